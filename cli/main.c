/*
 * main.c - the npusim binary: dispatch to a subcommand (git/perf style).
 *
 * Exit statuses: 0 ok, 1 program/assembly/tensor error, 2 usage or
 * configuration error, 3 simulated program fault, deadlock or cycle limit.
 * Subcommands compute theirs with npu_exit_status() (util/diag.c), which
 * maps every NPU_E* code to one of these, so scripts can tell a bad kernel
 * (3) from a bad command line (2) without parsing messages.
 *
 * The subcommand table is commands.def, included here for the dispatch
 * table, in cli.h for the prototypes and in cmds.c for the option tables:
 * adding a subcommand is one entry there and its opts_<name>.def, and a
 * missing cmd_<name> is a link error.  Objects call one way: main.o ->
 * cmd_*.o -> cmds.o -> opts.o.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/diag.h"
#include "../util/fsout.h"
#include "cli.h"
#include "cmds.h"

/* A subcommand: its table (name, summary, options) and its function. */
struct cmd {
	const struct opts_cmd *opts;      /* cmds_<name>: name, summary, options */
	int (*fn)(int argc, char **argv); /* argv[0] is the name */
};

/* In commands.def order, which is the order --help lists them in. */
static const struct cmd commands[] = {
#define CMD(name, fn, voice, base, operands, summary, intro, outro) \
	{ &cmds_##name, fn },
#include "commands.def"
#undef CMD
};

static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: npusim <command> [options]   (npusim <command> --help)\n\n"
		    "npusim %s: cycle-accurate NPU architecture simulator\n\ncommands:\n",
		NPU_VERSION);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "  %-9s %s\n", commands[i].opts->name,
			commands[i].opts->summary);
	fprintf(fp, "\nexit status: 0 ok, 1 program/assembly/tensor error, "
		    "2 usage/config error,\n             3 simulated fault, deadlock or cycle limit\n");
}

/*
 * Every command's stdout is checked here, once, after it returns: a
 * listing, summary or tensor that did not reach stdout (a full disk,
 * /dev/full, a closed file) is an error even when the command itself
 * finished.  Already-reported failures cleared the stream's error flag
 * (fsout_check), so nothing is reported twice.  fclose also catches
 * errors that only show when the descriptor closes (NFS).
 */
static int close_stdout(int status)
{
	struct diag d;

	diag_init(&d, stderr);
	if (fsout_check(stdout, "<stdout>", &d) != 0 ||
	    (fclose(stdout) != 0 &&
	     diag_error(&d, diag_at_file("<stdout>", 0, 0), NPU_EIO,
			"cannot write: %s", strerror(errno))))
		return status ? status : npu_exit_status(NPU_EIO);
	return status;
}

static int dispatch(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return NPU_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return NPU_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("npusim %s\n", NPU_VERSION);
		return NPU_EXIT_OK;
	}
	/* Shift argv so each subcommand parses "name args..." like a program
	 * of its own (its messages say "npusim <name>: ..."). */
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].opts->name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "npusim: '%s' is not a command (see 'npusim --help')\n",
		argv[1]);
	return NPU_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	/* ^C, kill or a closed terminal remove every temporary output file
	 * (util/fsout.h); run and stat switch to stopping the simulation
	 * cleanly instead. */
	int status;

	fsout_catch_signals(FSOUT_SIG_DIE);
	status = close_stdout(dispatch(argc, argv));
	/* A run stopped by a signal has kept what it keeps; now die by that
	 * signal, so the caller sees it (status 130 for ^C in a shell).
	 * Returns at once when no signal was caught. */
	fsout_die();
	return status;
}
