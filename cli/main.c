/*
 * main.c - the npusim binary: dispatch to a subcommand (git/perf style).
 *
 * Exit statuses: 0 ok, 1 program/assembly/tensor error, 2 usage or
 * configuration error, 3 simulated program fault, deadlock or cycle limit.
 * Subcommands compute theirs with npu_exit_status() (util/diag.c), which
 * maps every NPU_E* code to one of these, so scripts can tell a bad kernel
 * (3) from a bad command line (2) without parsing messages.
 *
 * The subcommand table is commands.def, included twice (here for the
 * dispatch table, in cli.h for the prototypes): adding a subcommand is one
 * line there, and a missing cmd_<name> is a link error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/diag.h"
#include "../util/fsout.h"
#include "cli.h"

struct cmd {
	const char *name;                 /* subcommand word: "run" */
	int (*fn)(int argc, char **argv); /* argv[0] is that word */
	const char *summary;              /* one line for --help */
};

/* In commands.def order, which is the order --help lists them in. */
static const struct cmd cmds[] = {
#define CMD(name, fn, summary) { #name, fn, summary },
#include "commands.def"
#undef CMD
};

static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: npusim <command> [options]   (npusim <command> --help)\n\n"
		    "npusim %s: cycle-accurate NPU architecture simulator\n\ncommands:\n",
		NPU_VERSION);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(fp, "  %-9s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(fp, "\nexit status: 0 ok, 1 program/assembly/tensor error, "
		    "2 usage/config error,\n             3 simulated fault, deadlock or cycle limit\n");
}

/* -h/--help anywhere wins over every other argument, so a half-typed
 * command line still gets help instead of an error (git does the same). */
int cli_want_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
}

/*
 * Value of an option with short form 's' (0 = none) or long form lng at
 * argv[*i]: accepts "-c X", "-cX", "--config X", "--config=X".  Returns
 * NULL when argv[*i] is not this option; sets *missing when it is but the
 * value is absent.
 */
const char *cli_opt_value(int argc, char **argv, int *i, char s,
			  const char *lng, int *missing)
{
	const char *arg = argv[*i];
	size_t n = strlen(lng);

	/* "-cX": the value is glued on; "-c" alone or the exact long form
	 * fall through to take the next argument.  "--config=X" may give an
	 * empty value, which the caller then rejects or accepts itself. */
	if (s && arg[0] == '-' && arg[1] == s) {
		if (arg[2])
			return arg + 2;
	} else if (strncmp(arg, lng, n) == 0 && arg[n] == '=') {
		return arg + n + 1;
	} else if (strcmp(arg, lng) != 0) {
		return NULL;
	}
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
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
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[1], cmds[i].name) == 0)
			return cmds[i].fn(argc - 1, argv + 1);
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

int cli_parse_u64(const char *cmd, const char *opt, const char *s,
		  uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "npusim %s: %s '%s' is not a whole number in "
				"%llu..%llu\n", cmd, opt, s, (unsigned long long)lo,
			(unsigned long long)hi);
		return -1;
	}
	*out = v;
	return 0;
}
