/*
 * cli.h - subcommands of the npusim binary (listed in commands.def).
 *
 * Each cmd_<name>(argc, argv) gets argv[0] = the subcommand name and returns
 * an exit status (enum npu_exit).  Its options are the table cmds_<name>
 * (cmds.h), read with the parser of opts.h.
 */
#ifndef NPU_CLI_H
#define NPU_CLI_H

#define NPU_VERSION "0.1.0"

#define CMD(name, fn, voice, base, operands, summary, intro, outro) \
	int fn(int argc, char **argv);
#include "commands.def"
#undef CMD

#endif
