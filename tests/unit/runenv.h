/*
 * runenv.h - a chip for unit tests that drive the run library (test_run,
 * test_regions): a config (the built-in defaults with overrides) and a
 * run, with every message captured in memory so that a failing check can
 * show it (env_log).
 */
#ifndef NPU_TEST_RUNENV_H
#define NPU_TEST_RUNENV_H

#include <stdio.h>
#include <string.h>

#include "../../run/run.h"
#include "testutil.h"

struct env {
	struct arch a;      /* the config */
	struct diag d;      /* messages into log */
	FILE *fp;           /* open_memstream over log */
	char *log;
	size_t log_len;
	struct run *r;      /* the chip, no watchdog */
};

static inline void env_new(struct env *e, const char *const *ov, int n_ov)
{
	struct run_params p;

	memset(e, 0, sizeof(*e));
	e->fp = open_memstream(&e->log, &e->log_len);
	ck_assert_ptr_nonnull(e->fp);
	diag_init(&e->d, e->fp);
	ck_assert_int_eq(arch_load(&e->a, NULL, ov, n_ov, &e->d), 0);
	memset(&p, 0, sizeof(p));
	p.max_cycles = CYCLE_MAX;
	e->r = run_new(&e->a, &p, &e->d);
	ck_assert_ptr_nonnull(e->r);
}

static inline void env_free(struct env *e)
{
	run_free(e->r);
	arch_free(&e->a);
	fclose(e->fp);
	free(e->log);
}

/* Everything the run said so far. */
static inline const char *env_log(struct env *e)
{
	fflush(e->fp);
	return e->log ? e->log : "";
}

/* Counter name of sink s, which must be there. */
static inline uint64_t ctr(const struct ctr_sink *s, const char *name)
{
	const struct ctr_entry *c = ctr_find(s, name);

	ck_assert_msg(c != NULL, "no counter %s", name);
	return c->u;
}

#endif
