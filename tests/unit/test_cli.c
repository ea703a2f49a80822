/*
 * test_cli.c - the option parser of the npusim commands and their tables
 * (cli/opts.h, cli/cmds.h).
 *
 *   cli.forms        -cX, -c X, --config=X, --config X, "=" with nothing,
 *                    flags only as their exact word, operands and "-"
 *   cli.repeat       every occurrence comes back, in command-line order
 *   cli.range        U64: both bounds in, one past each out; "-1", "10k",
 *                    "" and overflow refused, with the range in the message
 *   cli.enum         the index of the value; a bad value names them all
 *   cli.errors       unknown option, missing value, operand where none is
 *                    taken: the exact text in every voice
 *   cli.base         a command's options after its base's (stat after run)
 *   cli.help         -h / --help anywhere: the usage on stdout, no parsing
 *   cli.tables       every command's table: names unique, help everywhere,
 *                    kinds with what they need; usage within 79 columns
 *                    naming every option
 *   cli.voices       the real tables give the messages the golden tests
 *                    record (run, roofline, noc)
 *   cli.doc          docs/cli.md regenerated equals the committed file
 *
 * The command line is not in the library: the parser and the tables are
 * compiled in.  Tests run from the top directory (make test does).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cli/opts.c"
#include "../../cli/cmds.c"
#include "testutil.h"

/* ---- a command of every kind ---------------------------------------------*/

static const char *const colours[] = { "red", "green", "blue" };

static const struct opts_row t_rows[] = {
	{ .short_name = 'c', .long_name = "config", .meta = "FILE",
	  .kind = OPTS_STR, .help = "a file" },
	{ .short_name = 's', .long_name = "set", .meta = "KEY=VALUE",
	  .kind = OPTS_LIST, .help = "an override" },
	{ .short_name = 'q', .long_name = "quiet", .kind = OPTS_FLAG,
	  .help = "quiet" },
	{ .long_name = "dump", .kind = OPTS_FLAG, .help = "dump" },
	{ .short_name = 'j', .long_name = "jobs", .meta = "N", .kind = OPTS_U64,
	  .lo = 1, .hi = 1024, .help = "jobs" },
	{ .long_name = "colour", .kind = OPTS_ENUM, .names = colours,
	  .n_names = 3, .help = "a colour" },
	{ .short_name = 'D', .meta = "NAME", .kind = OPTS_LIST,
	  .help = "a define" },
};

/* Not const: the tests change its voice and operands. */
static struct opts_cmd t_cmd = {
	.name = "t", .operands = "FILE", .summary = "a test command",
	.intro = "Test.", .outro = "", .voice = OPTS_VOICE_ARGUMENT,
	.rows = t_rows, .n_rows = (int)(sizeof(t_rows) / sizeof(t_rows[0])),
};

/* The tests change t_cmd's voice and operands: each starts from this
 * (under CK_FORK=no they share one process). */
static void t_reset(void)
{
	t_cmd.voice = OPTS_VOICE_ARGUMENT;
	t_cmd.operands = "FILE";
}

/* ---- running the parser ---------------------------------------------------*/

/* A file that fd (1 or 2) writes into while capturing. */
struct capture {
	int fd, saved;      /* the descriptor and its original */
	FILE *tmp;          /* where it writes meanwhile */
};

static void capture_begin(struct capture *c, int fd)
{
	fflush(fd == 1 ? stdout : stderr);
	c->fd = fd;
	c->saved = dup(fd);
	c->tmp = tmpfile();
	ck_assert(c->saved >= 0 && c->tmp);
	ck_assert_int_ge(dup2(fileno(c->tmp), fd), 0);
}

/* What was written, malloc'ed. */
static char *capture_end(struct capture *c)
{
	long n;
	char *s;

	fflush(c->fd == 1 ? stdout : stderr);
	dup2(c->saved, c->fd);
	close(c->saved);
	n = ftell(c->tmp);
	s = calloc(1, (size_t)n + 1);
	ck_assert_ptr_nonnull(s);
	rewind(c->tmp);
	ck_assert_int_eq((long)fread(s, 1, (size_t)n, c->tmp), n);
	fclose(c->tmp);
	return s;
}

/* argv for a command line: name, then words (NULL-terminated; the
 * parser does not write into them); argc. */
static int make_argv(char **argv, const char *name, const char *const *words)
{
	int argc = 1;

	argv[0] = (char *)name;
	for (; words[argc - 1]; argc++)
		argv[argc] = (char *)words[argc - 1];
	argv[argc] = NULL;
	return argc;
}

/*
 * Parse words (NULL-terminated) for cmd and describe what came back, one
 * item a word apart: "config=X", "quiet", "jobs=5#5" (value#num for a
 * number or an enum), "ARG:x", then "END" or "ERR".  *err: stderr.
 */
static char *parse(const struct opts_cmd *cmd, const char *const *words,
		   char **err)
{
	char *argv[32], *out;
	size_t n = 0;
	struct capture cap;
	struct opts p;
	FILE *fp;
	int argc = make_argv(argv, cmd->name, words), k;

	fp = open_memstream(&out, &n);
	capture_begin(&cap, 2);
	ck_assert_int_eq(opts_begin(&p, cmd, argc, argv), 0);
	for (;;) {
		const struct opts_row *r;

		k = opts_next(&p);
		if (k == OPTS_END || k == OPTS_ERR) {
			fputs(k == OPTS_END ? "END" : "ERR", fp);
			break;
		}
		if (k == OPTS_ARG) {
			fprintf(fp, "ARG:%s ", p.val);
			continue;
		}
		r = opts_row(cmd, k);
		fputs(r->long_name ? r->long_name : (char[]){ r->short_name, 0 }, fp);
		if (r->kind != OPTS_FLAG)
			fprintf(fp, "=%s", p.val);
		if (r->kind == OPTS_U64 || r->kind == OPTS_ENUM)
			fprintf(fp, "#%llu", (unsigned long long)p.num);
		fputc(' ', fp);
	}
	fclose(fp);
	*err = capture_end(&cap);
	return out;
}

#define W(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* words give the trace want and exactly the message want_err. */
static void expect(const struct opts_cmd *cmd, const char *const *words,
		   const char *want, const char *want_err)
{
	char *err, *got = parse(cmd, words, &err);

	ck_assert_str_eq(got, want);
	ck_assert_str_eq(err, want_err);
	free(got);
	free(err);
}

/* ---- tests ----------------------------------------------------------------*/

START_TEST(cli_forms)
{
	t_reset();
	expect(&t_cmd, W("-cX", "-c", "Y", "--config=Z", "--config", "W", "--config="),
	       "config=X config=Y config=Z config=W config= END", "");
	/* a glued value is the rest of the word, whatever it holds */
	expect(&t_cmd, W("-c=x", "-c-q", "--config=a=b"),
	       "config==x config=-q config=a=b END", "");
	/* the next word is the value even when it looks like an option */
	expect(&t_cmd, W("-c", "--dump", "--config", "-q"),
	       "config=--dump config=-q END", "");
	expect(&t_cmd, W("-q", "--quiet", "--dump"), "quiet quiet dump END", "");
	expect(&t_cmd, W("x", "-", "-q", "y"), "ARG:x ARG:- quiet ARG:y END", "");
	expect(&t_cmd, W("-DA", "-D", "B"), "D=A D=B END", "");
	/* flags take no value, glued or with '=' */
	expect(&t_cmd, W("-qx"), "ERR",
	       "npusim t: unknown argument '-qx' (see 'npusim t --help')\n");
	expect(&t_cmd, W("--dump=1"), "ERR",
	       "npusim t: unknown argument '--dump=1' (see 'npusim t --help')\n");
	/* no abbreviations, no "--" end marker, no long form of -D */
	expect(&t_cmd, W("--conf", "x"), "ERR",
	       "npusim t: unknown argument '--conf' (see 'npusim t --help')\n");
	expect(&t_cmd, W("--"), "ERR",
	       "npusim t: unknown argument '--' (see 'npusim t --help')\n");
	expect(&t_cmd, W("--D=x"), "ERR",
	       "npusim t: unknown argument '--D=x' (see 'npusim t --help')\n");
	expect(&t_cmd, W(NULL), "END", "");
}
END_TEST

START_TEST(cli_repeat)
{
	t_reset();
	expect(&t_cmd, W("-s", "a=1", "-c", "x", "--set=b=2", "-sc=3", "-c", "y"),
	       "set=a=1 config=x set=b=2 set=c=3 config=y END", "");
}
END_TEST

START_TEST(cli_range)
{
	static const char *const bad[] = {
		"0", "1025", "-1", "10k", "", " ", "18446744073709551616",
		"99999999999999999999999",
	};
	char word[64], msg[160];
	size_t i;

	t_reset();
	expect(&t_cmd, W("-j1", "--jobs=1024", "-j", "007"),
	       "jobs=1#1 jobs=1024#1024 jobs=007#7 END", "");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(word, sizeof(word), "--jobs=%s", bad[i]);
		snprintf(msg, sizeof(msg), "npusim t: --jobs '%s' is not a whole "
			 "number in 1..1024\n", bad[i]);
		expect(&t_cmd, W(word), "ERR", msg);
	}
	/* the stop is at the bad word: what came before came back */
	expect(&t_cmd, W("-q", "-j", "0", "-q"), "quiet ERR",
	       "npusim t: --jobs '0' is not a whole number in 1..1024\n");
}
END_TEST

START_TEST(cli_enum)
{
	t_reset();
	expect(&t_cmd, W("--colour", "red", "--colour=blue"),
	       "colour=red#0 colour=blue#2 END", "");
	expect(&t_cmd, W("--colour=Red"), "ERR",
	       "npusim t: --colour 'Red': use red, green or blue\n");
	t_cmd.voice = OPTS_VOICE_RUN;
	expect(&t_cmd, W("--colour", "pink"), "ERR",
	       "npusim t: --colour pink: expected red, green or blue\n");
	t_cmd.voice = OPTS_VOICE_TRY;
	expect(&t_cmd, W("--colour="), "ERR",
	       "npusim t: --colour is red, green or blue, not \n"
	       "try 'npusim t --help'\n");
}
END_TEST

START_TEST(cli_errors)
{
	static const struct {
		enum opts_voice v;
		const char *unknown, *missing_short, *missing_long;
	} voices[] = {
		{ OPTS_VOICE_ARGUMENT,
		  "npusim t: unknown argument '--x' (see 'npusim t --help')\n",
		  "npusim t: -c needs a value (see 'npusim t --help')\n",
		  "npusim t: --config needs a value (see 'npusim t --help')\n" },
		{ OPTS_VOICE_OPTION,
		  "npusim t: unknown option '--x' (see 'npusim t --help')\n",
		  "npusim t: -c needs a value (see 'npusim t --help')\n",
		  "npusim t: --config needs a value (see 'npusim t --help')\n" },
		{ OPTS_VOICE_RUN,
		  "npusim t: unknown option '--x' (see npusim t --help)\n",
		  "npusim t: option '-c' needs a value (see npusim t --help)\n",
		  "npusim t: option '--config' needs a value (see npusim t --help)\n" },
		{ OPTS_VOICE_TRY,
		  "npusim t: unknown option --x\ntry 'npusim t --help'\n",
		  "npusim t: missing value after -c\ntry 'npusim t --help'\n",
		  "npusim t: missing value after --config\ntry 'npusim t --help'\n" },
		{ OPTS_VOICE_SHORT,
		  "npusim t: unknown option '--x' (see npusim t --help)\n",
		  "npusim t: -c needs a value\n",
		  "npusim t: --config needs a value\n" },
	};
	size_t i;

	t_reset();
	for (i = 0; i < sizeof(voices) / sizeof(voices[0]); i++) {
		t_cmd.voice = voices[i].v;
		expect(&t_cmd, W("-q", "--x", "-q"), "quiet ERR", voices[i].unknown);
		expect(&t_cmd, W("-q", "-c"), "quiet ERR", voices[i].missing_short);
		expect(&t_cmd, W("--config"), "ERR", voices[i].missing_long);
	}
	/* a command without operands refuses them as unknown words */
	t_cmd.voice = OPTS_VOICE_ARGUMENT;
	t_cmd.operands = "";
	expect(&t_cmd, W("-q", "x"), "quiet ERR",
	       "npusim t: unknown argument 'x' (see 'npusim t --help')\n");
	expect(&t_cmd, W("-"), "ERR",
	       "npusim t: unknown argument '-' (see 'npusim t --help')\n");
}
END_TEST

START_TEST(cli_base)
{
	static const struct opts_row own[] = {
		{ .short_name = 'e', .long_name = "event", .meta = "E",
		  .kind = OPTS_LIST, .help = "an event" },
	};
	const struct opts_cmd sub = {
		.name = "u", .operands = "FILE", .summary = "", .intro = "",
		.outro = "", .base = &t_cmd, .rows = own, .n_rows = 1,
	};
	char *err, *got, *argv[4];
	struct opts p;

	t_reset();
	ck_assert_int_eq(opts_n(&sub), t_cmd.n_rows + 1);
	ck_assert_ptr_eq(opts_row(&sub, 0), &t_rows[0]);
	ck_assert_ptr_eq(opts_row(&sub, t_cmd.n_rows), &own[0]);
	expect(&sub, W("-q", "-e", "a", "--event=b"), "quiet event=a event=b END", "");
	/* the base alone does not know them */
	got = parse(&t_cmd, W("-ex"), &err);
	ck_assert_str_eq(got, "ERR");
	free(got);
	free(err);
	/* an index past the base's is the command's own */
	ck_assert_int_eq(opts_begin(&p, &sub, make_argv(argv, "u", W("-ex")), argv), 0);
	ck_assert_int_eq(opts_next(&p), t_cmd.n_rows);
}
END_TEST

START_TEST(cli_help)
{
	char *argv[8], *out, *want = NULL;
	size_t n = 0;
	struct capture cap;
	struct opts p;
	FILE *fp;

	t_reset();
	/* help wins over the unknown option before it */
	capture_begin(&cap, 1);
	ck_assert_int_eq(opts_begin(&p, &t_cmd, make_argv(argv, "t",
				   W("-q", "--bogus", "-h", "-c")), argv), 1);
	out = capture_end(&cap);
	fp = open_memstream(&want, &n);
	opts_usage(fp, &t_cmd);
	fclose(fp);
	ck_assert_str_eq(out, want);
	ck_assert_ptr_nonnull(strstr(out,
		"usage: npusim t [-c FILE] [-s KEY=VALUE]... [-q] [--dump] [-j N]\n"
		"                [--colour red|green|blue] [-D NAME]... FILE\n"));
	ck_assert_ptr_nonnull(strstr(out, "  -h, --help"));
	free(out);
	free(want);
	/* "--help" where a value belongs is still help */
	capture_begin(&cap, 1);
	ck_assert_int_eq(opts_begin(&p, &t_cmd, make_argv(argv, "t",
				   W("-c", "--help")), argv), 1);
	free(capture_end(&cap));
}
END_TEST

/* Two rows of one command with the same short or long name. */
static void check_unique(const struct opts_cmd *c)
{
	int a, b, n = opts_n(c);

	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++) {
			const struct opts_row *x = opts_row(c, a), *y = opts_row(c, b);

			ck_assert_msg(!x->short_name || x->short_name != y->short_name,
				      "%s: -%c twice", c->name, x->short_name);
			ck_assert_msg(!x->long_name || !y->long_name ||
				      strcmp(x->long_name, y->long_name),
				      "%s: --%s twice", c->name, x->long_name);
		}
}

START_TEST(cli_tables)
{
	int i, k, j;

	ck_assert_int_eq(cmds_n, 11);
	for (i = 0; i < cmds_n; i++) {
		const struct opts_cmd *c = cmds_all[i];
		char *text = NULL, *line, *save = NULL;
		size_t len = 0;
		FILE *fp;

		ck_assert(c->name && *c->name && c->operands && c->outro);
		/* a '|' would split the summary's cell in docs/cli.md */
		ck_assert_msg(c->summary && *c->summary && !strchr(c->summary, '|'),
			      "%s: no summary, or a '|' in it", c->name);
		ck_assert_msg(c->intro && *c->intro, "%s: no intro", c->name);
		ck_assert_msg(!c->base || !c->base->base, "%s: a chain of bases", c->name);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(cmds_all[j]->name, c->name);
		check_unique(c);
		for (k = 0; k < opts_n(c); k++) {
			const struct opts_row *r = opts_row(c, k);
			const char *nm = r->long_name ? r->long_name : "(short)";

			ck_assert_msg(r->help && *r->help, "%s %s: no help", c->name, nm);
			ck_assert_msg(r->short_name || r->long_name, "%s: a row without a name", c->name);
			ck_assert_msg(!r->short_name || isalnum((unsigned char)r->short_name),
				      "%s: -%c", c->name, r->short_name);
			ck_assert_msg(!r->long_name || (isalnum((unsigned char)r->long_name[0]) &&
							!strchr(r->long_name, '=')),
				      "%s: --%s", c->name, nm);
			/* -h and --help belong to every command */
			ck_assert_msg(r->short_name != 'h' && (!r->long_name ||
				      strcmp(r->long_name, "help")), "%s: -h/--help", c->name);
			if (r->kind == OPTS_FLAG)
				ck_assert_msg(!r->meta, "%s %s: a flag with a value", c->name, nm);
			else if (r->kind == OPTS_ENUM)
				ck_assert_msg(r->names && r->n_names > 0, "%s %s: no names",
					      c->name, nm);
			else
				ck_assert_msg(r->meta && *r->meta, "%s %s: no META", c->name, nm);
			if (r->kind == OPTS_U64)
				ck_assert_msg(r->lo <= r->hi, "%s %s: empty range", c->name, nm);
			for (j = 0; r->kind == OPTS_ENUM && j < r->n_names; j++)
				ck_assert_msg(r->names[j] && *r->names[j], "%s %s", c->name, nm);
		}
		/* the usage names every option and fits a terminal */
		fp = open_memstream(&text, &len);
		opts_usage(fp, c);
		fclose(fp);
		for (k = 0; k < opts_n(c); k++) {
			const struct opts_row *r = opts_row(c, k);
			char w[64];

			if (r->long_name)
				snprintf(w, sizeof(w), "--%s", r->long_name);
			else
				snprintf(w, sizeof(w), "-%c", r->short_name);
			ck_assert_msg(strstr(text, w), "%s: %s not in the usage", c->name, w);
		}
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			ck_assert_msg(strlen(line) <= WIDTH, "%s: usage line too long: %s",
				      c->name, line);
		free(text);
	}
	ck_assert_ptr_eq(cmds_stat.base, &cmds_run);
}
END_TEST

START_TEST(cli_voices)
{
	expect(&cmds_run, W("--frobnicate", "tens.s"), "ERR",
	       "npusim run: unknown option '--frobnicate' (see npusim run --help)\n");
	expect(&cmds_roofline, W("-c", "x", "--frobnicate"), "config=x ERR",
	       "npusim roofline: unknown option '--frobnicate' (see 'npusim roofline --help')\n");
	expect(&cmds_noc, W("--pattern", "zigzag"), "ERR",
	       "npusim noc: --pattern 'zigzag': use uniform, transpose, bitcomp, "
	       "bitrev, shuffle, tornado, neighbor or hotspot\n");
	expect(&cmds_config, W("-c"), "ERR",
	       "npusim config: -c needs a value (see 'npusim config --help')\n");
	expect(&cmds_as, W("-o"), "ERR", "npusim as: -o needs a value\n");
	/* run's table has no stat options; stat's has both */
	expect(&cmds_run, W("-e", "x"), "ERR",
	       "npusim run: unknown option '-e' (see npusim run --help)\n");
	expect(&cmds_stat, W("-q", "-emacs"), "quiet event=macs END", "");
	expect(&cmds_run, W("--matrix-model=pe"), "matrix-model=pe#1 END", "");
}
END_TEST

START_TEST(cli_doc)
{
	char *gen = NULL, *old;
	size_t n = 0;
	long len;
	FILE *fp = open_memstream(&gen, &n);

	cmds_write_doc(fp);
	fclose(fp);
	fp = fopen("docs/cli.md", "rb");
	ck_assert_msg(fp != NULL, "docs/cli.md missing (run from the top)");
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	old = calloc(1, (size_t)len + 1);
	ck_assert_int_eq((long)fread(old, 1, (size_t)len, fp), len);
	fclose(fp);
	ck_assert_msg(strcmp(gen, old) == 0, "docs/cli.md is stale: make docs");
	free(gen);
	free(old);
}
END_TEST

static Suite *suite_cli(void)
{
	Suite *s = suite_create("cli");

	TEST_ADD(s, cli_forms);
	TEST_ADD(s, cli_repeat);
	TEST_ADD(s, cli_range);
	TEST_ADD(s, cli_enum);
	TEST_ADD(s, cli_errors);
	TEST_ADD(s, cli_base);
	TEST_ADD(s, cli_help);
	TEST_ADD(s, cli_tables);
	TEST_ADD(s, cli_voices);
	TEST_ADD(s, cli_doc);
	return s;
}

TEST_MAIN(suite_cli)
