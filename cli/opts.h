/*
 * opts.h - the options of every npusim subcommand: one table per command
 * (rows in opts_<command>.def, tables in cmds.c) and the one parser, help
 * writer and doc writer that read them.
 *
 * A row names an option once: its short and long form, the metavariable
 * of its value, its kind (flag, string, repeatable string, unsigned in a
 * range, one of some names) and its help.  The parser (opts_next), the
 * text of `npusim <command> --help` (opts_usage) and the command's section
 * of docs/cli.md (opts_write_md) all come from the rows; nothing else
 * describes an option.
 *
 * The words a command accepts:
 *   -c VALUE, -cVALUE                 a value option with a short form
 *   --config VALUE, --config=VALUE    with a long form ("=" may give "")
 *   -q, --quiet                       a flag: exactly this word
 *   -h or --help anywhere             the usage on stdout; nothing parsed
 *   a word not starting with '-', or "-" alone: an operand
 * Any other word starting with '-' is an unknown option; a value option
 * as the last word misses its value.  A non-repeatable option given twice
 * keeps the last value.  Messages start "npusim <command>: " and are
 * worded in the command's voice (enum opts_voice).
 */
#ifndef NPU_CLI_OPTS_H
#define NPU_CLI_OPTS_H

#include <stdint.h>
#include <stdio.h>

/* What an option takes. */
enum opts_kind {
	OPTS_FLAG,      /* nothing */
	OPTS_STR,       /* a string, which the command checks itself */
	OPTS_LIST,      /* a string, repeatable: each one is returned */
	OPTS_U64,       /* an unsigned decimal in [lo, hi] */
	OPTS_ENUM,      /* one of names[]: its index */
};

/*
 * How a command words its usage errors.  The wordings grew command by
 * command; golden tests record them and scripts match them, so each
 * command keeps its own (opts.c has the texts).
 */
enum opts_voice {
	OPTS_VOICE_ARGUMENT,  /* "unknown argument 'X' (see 'npusim C --help')" */
	OPTS_VOICE_OPTION,    /* "unknown option 'X' (see 'npusim C --help')" */
	OPTS_VOICE_RUN,       /* "unknown option 'X' (see npusim C --help)" */
	OPTS_VOICE_TRY,       /* "unknown option X", then "try 'npusim C --help'" */
	OPTS_VOICE_SHORT,     /* "-X needs a value"; unknown as OPTS_VOICE_RUN */
};

/* One option of one command (a row of opts_<command>.def). */
struct opts_row {
	char short_name;            /* 'c' of -c; 0: none */
	const char *long_name;      /* "config" of --config; NULL: none */
	const char *meta;           /* the value in help ("FILE"); NULL for a
				       flag, and for an enum that shows its
				       names instead ("fast|pe") */
	enum opts_kind kind;        /* what the option takes */
	uint64_t lo, hi;            /* OPTS_U64: the accepted range */
	const char *const *names;   /* OPTS_ENUM: the accepted values */
	int n_names;                /* OPTS_ENUM: entries of names */
	const char *help;           /* what it means: one paragraph */
};

/* One command: its prose and its options (an entry of commands.def). */
struct opts_cmd {
	const char *name;           /* "run": argv[0] and messages */
	const char *operands;       /* after the options in the synopsis
				       ("PROGRAM"); "": the command takes
				       none and refuses every operand */
	const char *summary;        /* one line for `npusim --help` */
	const char *intro;          /* before the options: lines, "\n" apart */
	const char *outro;          /* after them (docs, exit statuses) */
	enum opts_voice voice;      /* wording of usage errors */
	const struct opts_cmd *base;  /* a command whose options come first
					 (stat: run's), or NULL; no chains */
	const struct opts_row *rows;  /* the command's own options */
	int n_rows;                 /* entries of rows */
};

/* Parser state: opts_begin, then opts_next until OPTS_END or OPTS_ERR. */
struct opts {
	const struct opts_cmd *cmd; /* the table */
	int argc;                   /* words; argv[0] is the command name */
	char **argv;                /* the words, read but never written */
	int i;                      /* the next word to read */
	const char *val;            /* the value (or operand) just returned */
	uint64_t num;               /* OPTS_U64: the number; OPTS_ENUM: the
				       index of the value in names */
};

/* What opts_next returns besides an option's index. */
#define OPTS_ARG  (-1)          /* an operand, in val */
#define OPTS_END  (-2)          /* every word read */
#define OPTS_ERR  (-3)          /* a usage error, reported on stderr */

/*
 * Start parsing argv[1..argc-1] for cmd.  Returns 1 after printing the
 * usage on stdout when -h or --help is among the words (wherever it is:
 * a half-typed command line still gets help, as with git), else 0.
 */
int opts_begin(struct opts *p, const struct opts_cmd *cmd, int argc,
	       char **argv);

/*
 * The next item: an option's index k (opts_row(cmd, k); the base's
 * options count first) with its value in val and num, OPTS_ARG, OPTS_END,
 * or OPTS_ERR after the message.  Options come back in command-line
 * order, so a command may give a meaning to their order.
 */
int opts_next(struct opts *p);

/* Options of cmd, its base's included, and the k-th of them. */
int opts_n(const struct opts_cmd *cmd);
const struct opts_row *opts_row(const struct opts_cmd *cmd, int k);

/* The usage of `npusim <cmd> --help`: synopsis, intro, options, outro. */
void opts_usage(FILE *fp, const struct opts_cmd *cmd);

/* cmd's section of docs/cli.md (Markdown). */
void opts_write_md(FILE *fp, const struct opts_cmd *cmd);

#endif
