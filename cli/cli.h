/*
 * cli.h - subcommands of the npusim binary (listed in commands.def).
 *
 * Each cmd_<name>(argc, argv) gets argv[0] = the subcommand name and returns
 * an exit status (enum npu_exit).
 */
#ifndef NPU_CLI_H
#define NPU_CLI_H

#include <stdint.h>

#define NPU_VERSION "0.1.0"

#define CMD(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef CMD

/* 1 if --help or -h appears among the arguments. */
int cli_want_help(int argc, char **argv);
/* Value of option -s / lng at argv[*i] (see main.c); *missing if absent. */
const char *cli_opt_value(int argc, char **argv, int *i, char s,
			  const char *lng, int *missing);
/*
 * Unsigned decimal s of option opt in [lo, hi] into *out: 0, or -1 after
 * "npusim CMD: OPT 'S' is not a whole number in LO..HI" on stderr.
 * strtoull accepts "-1" (negated modulo 2^64), hence the explicit '-'
 * test; trailing garbage ("10k") and overflow (ERANGE) are refused too.
 */
int cli_parse_u64(const char *cmd, const char *opt, const char *s,
		  uint64_t lo, uint64_t hi, uint64_t *out);

#endif
