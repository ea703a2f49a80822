/*
 * cmds.h - the option table of every npusim subcommand (commands.def,
 * opts_<name>.def), and docs/cli.md written from them.
 *
 * Data only, below the commands: cmd_<name>.c parses with cmds_<name>,
 * main.c lists them in `npusim --help`, mkdoc writes the doc, the unit
 * test walks them; none of these is needed to read a table.
 */
#ifndef NPU_CLI_CMDS_H
#define NPU_CLI_CMDS_H

#include <stdio.h>

#include "opts.h"

#define CMD(name, fn, voice, base, operands, summary, intro, outro) \
	extern const struct opts_cmd cmds_##name;
#include "commands.def"
#undef CMD

/* Every command's table, in commands.def order. */
extern const struct opts_cmd *const cmds_all[];
extern const int cmds_n;

/* docs/cli.md: the fixed prose around a section per command. */
void cmds_write_doc(FILE *fp);

#endif
