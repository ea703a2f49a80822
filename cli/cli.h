/*
 * cli.h - subcommands of the npusim binary (listed in commands.def).
 *
 * Each cmd_<name>(argc, argv) gets argv[0] = the subcommand name and returns
 * an exit status (enum npu_exit).
 */
#ifndef NPU_CLI_H
#define NPU_CLI_H

#define NPU_VERSION "0.1.0"

#define CMD(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef CMD

/* 1 if --help or -h appears among the arguments. */
int cli_want_help(int argc, char **argv);
/* Value of option -s / lng at argv[*i] (see main.c); *missing if absent. */
const char *cli_opt_value(int argc, char **argv, int *i, char s,
			  const char *lng, int *missing);

#endif
