/*
 * test_progress.c - polling a run: the progress line and interrupts
 * (report/progress.h, run_params.interrupted / progress).  Host time comes
 * from a fake clock, so nothing here depends on the machine's speed.
 *
 *   progress.line           after PROGRESS_DELAY the line shows cycle,
 *                           rate, instructions and core states, redrawn in
 *                           place; progress_clear erases it
 *   progress.no_effect      a run with the line gives the same cycles and
 *                           counters as one without (display only)
 *   progress.off            no stream, no output
 *   progress.diag_clears    a message printed while the line shows erases
 *                           it first
 *   progress.interrupt      run_params.interrupted stops the run with
 *                           NPU_EINTR and "interrupted at cycle N", naming
 *                           the core's pc and source line; counters stay
 *                           readable
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../report/progress.h"
#include "testutil.h"

/* A scalar loop of about 40 M cycles (two instructions an iteration,
 * about 1024 per control-unit event): some forty engine polls. */
static const char loop_s[] =
	"\tli t1, 20000000\n"
	"top:\n\taddi t0, t0, 1\n\tblt t0, t1, top\n\thalt\n";

/* Fake host clock: 0.1 s per reading. */
static double fake_now;
static double fake_clock(void)
{
	fake_now += 0.1;
	return fake_now;
}

/* Run loop_s on the default chip with the given hooks; counters into s. */
static int run_loop(void (*prog)(void *, struct run *), void *ctx,
		    int (*intr)(void), struct diag *d, struct ctr_sink *s,
		    cycle_t *cycles)
{
	struct arch a;
	struct run_params p;
	struct chip_result res;
	struct run *r;
	int rc;

	ck_assert_int_eq(arch_load(&a, NULL, NULL, 0, d), 0);
	memset(&p, 0, sizeof(p));
	p.max_cycles = CYCLE_MAX;
	p.progress = prog;
	p.progress_ctx = ctx;
	p.interrupted = intr;
	r = run_new(&a, &p, d);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(run_load_source(r, "loop.s", loop_s, strlen(loop_s),
					 NULL, RUN_ALL_CORES), 0);
	rc = run_go(r, CYCLE_MAX, &res);
	*cycles = rc ? chip_now(run_chip(r)) : res.cycles;
	ck_assert_int_eq(run_counters(r, s), 0);
	run_free(r);
	arch_free(&a);
	return rc;
}

START_TEST(progress_line)
{
	struct progress pg;
	struct diag d;
	struct ctr_sink s;
	char *out = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&out, &n);
	cycle_t cycles;
	const char *last;

	diag_init(&d, NULL);
	ctr_sink_init(&s);
	progress_init(&pg, fp, NULL);
	pg.clock = fake_clock;
	fake_now = 0;
	ck_assert_int_eq(run_loop(progress_update, &pg, NULL, &d, &s, &cycles), 0);
	ck_assert_int_eq(pg.shown, 1);
	progress_clear(&pg);
	fclose(fp);
	ck_assert_ptr_nonnull(strstr(out, "\rnpusim: cycle "));
	ck_assert_ptr_nonnull(strstr(out, " cycles/s, "));
	ck_assert_ptr_nonnull(strstr(out, " insns; cores: 1 running, 0 waiting, 0 done\033[K"));
	/* Nothing before the first PROGRESS_DELAY (10 readings at 0.1 s). */
	ck_assert_int_eq(out[0], '\r');
	ck_assert_ptr_null(strchr(out, '\n'));
	/* Redrawn several times, erased at the end. */
	last = strrchr(out, '\r');
	ck_assert_str_eq(last, "\r\033[K");
	ck_assert_ptr_nonnull(strstr(strstr(out, "npusim: cycle") + 1, "npusim: cycle"));
	ctr_sink_free(&s);
	free(out);
}
END_TEST

START_TEST(progress_no_effect)
{
	struct progress pg;
	struct diag d;
	struct ctr_sink s1, s2;
	FILE *fp = fopen("/dev/null", "w");
	cycle_t c1, c2;
	size_t i;

	diag_init(&d, NULL);
	ctr_sink_init(&s1);
	ctr_sink_init(&s2);
	progress_init(&pg, fp, NULL);
	pg.clock = fake_clock;
	ck_assert_int_eq(run_loop(progress_update, &pg, NULL, &d, &s1, &c1), 0);
	ck_assert_int_eq(run_loop(NULL, NULL, NULL, &d, &s2, &c2), 0);
	ck_assert_uint_eq(c1, c2);
	ck_assert_uint_gt(c1, 2000000);
	ck_assert_uint_eq(s1.n, s2.n);
	for (i = 0; i < s1.n; i++) {
		ck_assert_str_eq(s1.v[i].name, s2.v[i].name);
		ck_assert_uint_eq(s1.v[i].u, s2.v[i].u);
	}
	fclose(fp);
	ctr_sink_free(&s1);
	ctr_sink_free(&s2);
}
END_TEST

START_TEST(progress_off)
{
	struct progress pg;
	struct diag d;
	struct ctr_sink s;
	cycle_t c;

	diag_init(&d, NULL);
	ctr_sink_init(&s);
	progress_init(&pg, NULL, &d);
	ck_assert_ptr_null(d.on_print);
	ck_assert_int_eq(run_loop(progress_update, &pg, NULL, &d, &s, &c), 0);
	ck_assert_int_eq(pg.shown, 0);
	progress_clear(&pg);
	ctr_sink_free(&s);
}
END_TEST

START_TEST(progress_diag_clears)
{
	struct progress pg;
	struct diag d;
	char *out = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&out, &n);

	diag_init(&d, fp);
	progress_init(&pg, fp, &d);
	pg.shown = 1; /* as if a line were on screen */
	(void)diag_error(&d, diag_nowhere(), NPU_EFAULT, "boom");
	fclose(fp);
	ck_assert_str_eq(out, "\r\033[Kerror: boom\n");
	ck_assert_int_eq(pg.shown, 0);
	free(out);
}
END_TEST

/* Interrupted at the third poll. */
static int n_polls;
static int third_poll(void)
{
	return ++n_polls >= 3;
}

START_TEST(progress_interrupt)
{
	struct diag d;
	struct ctr_sink s;
	const struct ctr_entry *insns;
	char *out = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&out, &n);
	cycle_t c;

	diag_init(&d, fp);
	ctr_sink_init(&s);
	n_polls = 0;
	ck_assert_int_eq(run_loop(NULL, NULL, third_poll, &d, &s, &c), NPU_EINTR);
	fclose(fp);
	ck_assert_uint_gt(c, 0);
	ck_assert_uint_lt(c, 10000000);
	ck_assert_ptr_nonnull(strstr(out, "error: interrupted at cycle "));
	ck_assert_ptr_nonnull(strstr(out, "loop.s:3: note: core 0 was running at pc 0x") ||
			      strstr(out, "loop.s:4: note: core 0 was running at pc 0x") ?
			      out : NULL);
	/* Three polls of ENG_POLL_EVENTS events: the counters are those of
	 * the stop, readable like a finished run's. */
	insns = ctr_find(&s, "core0.control.insns");
	ck_assert_ptr_nonnull(insns);
	ck_assert_uint_gt(insns->u, 0);
	ctr_sink_free(&s);
	free(out);
}
END_TEST

static Suite *suite_progress(void)
{
	Suite *s = suite_create("progress");

	TEST_ADD(s, progress_line);
	TEST_ADD(s, progress_no_effect);
	TEST_ADD(s, progress_off);
	TEST_ADD(s, progress_diag_clears);
	TEST_ADD(s, progress_interrupt);
	return s;
}

TEST_MAIN(suite_progress)
