/*
 * bench_matrix.c - what one matrix tile instruction costs the simulator,
 * for 16x16 .. 256x256 arrays (not part of `make test`).
 *
 * Two workloads per array size, each a stream of weight-stationary folds
 * (mpre + mmul) fed back to back by a stand-in control unit:
 *   fixed  the same 16x16x16 tile on every array: the simulator's own cost
 *          (events, host time) must not grow with R x C;
 *   full   full-array tiles (M = K = N = R): the functional work (M*K*N
 *          multiply-accumulates, computed exactly) grows as R^3, events do
 *          not.
 * The per-PE reference model (core.matrix.model = pe) runs the fixed
 * workload on the smaller arrays for contrast: its cost grows with R x C.
 *
 * Output: one line per run, "bench.matrix.<model>.<workload>.RxC: ...",
 * ending with simulated cycles per host second.  Host time is this
 * process's CPU time (CLOCK_PROCESS_CPUTIME_ID), so a busy machine does not
 * skew it; it never feeds back into the simulation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../arch/arch.h"
#include "../util/dtype.h"
#include "../sim/engine/engine.h"
#include "../sim/core/matrix.h"
#include "../sim/mem/sram.h"
#include "../sim/engine/unit.h"

/* Stand-in control unit: dispatches a command list as the queue allows. */
struct feeder {
	struct unit u;               /* header */
	struct unit *x;              /* matrix unit */
	const struct tile_cmd *cmds; /* commands */
	int n, next;                 /* count, next */
};

static int feeder_event(struct unit *u, const struct ev *ev)
{
	struct feeder *f = (struct feeder *)u;
	int rc;

	(void)ev;
	while (f->next < f->n && mtx_port.can_accept(f->x)) {
		if ((rc = mtx_port.accept(f->x, &f->cmds[f->next])))
			return rc;
		f->next++;
	}
	return 0;
}

static void nop_destroy(struct unit *u) { (void)u; }

static const struct unit_ops feeder_ops = {
	.kind = UNIT_OTHER, .on_event = feeder_event, .destroy = nop_destroy,
};

/* Host CPU time of this process: stable when other jobs share the CPUs. */
static double host_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/*
 * n_folds WS folds of an M x K x N tile on an R x R array; prints the cost.
 * Returns 0 or an NPU_E* code.
 */
static const char *filter; /* argv[1]: run only names containing it */

static int run(const char *model_name, int model, const char *workload,
	       uint32_t R, uint32_t M, uint32_t K, uint32_t N, int n_folds)
{
	struct arch a;
	/* memories wide enough that no row waits: the cost measured is the
	 * engine's, not contention's */
	struct sram_geom g = { 1u << 22, 64, 256, 2, 1, SRAM_ARB_RR };
	struct tile_cmd *cmds = calloc(2 * (size_t)n_folds, sizeof(*cmds));
	struct feeder f;
	struct tile_listener l;
	struct eng_stats st;
	struct diag d;
	double t0, t1;
	eng *e = eng_new();
	sram *spm, *acc;
	struct unit *x;
	int i, rc;
	char name[64];

	snprintf(name, sizeof(name), "%s.%s.%ux%u", model_name, workload, R, R);
	if (filter && !strstr(name, filter)) {
		free(cmds);
		eng_free(e);
		return 0;
	}
	if (!cmds || !e || arch_init_defaults(&a)) {
		free(cmds);
		eng_free(e);
		return NPU_ENOMEM;
	}
	a.v[P_MTX_ROWS].i = R;
	a.v[P_MTX_COLS].i = R;
	a.v[P_MTX_MODEL].i = model;
	diag_init(&d, stderr);
	eng_set_diag(e, &d);
	spm = sram_new(e, 0, "core0.scratchpad", &g);
	acc = sram_new(e, 0, "core0.accumulator", &g);
	memset(&f, 0, sizeof(f));
	unit_init(&f.u, &feeder_ops, e, 0, "core0.feeder");
	l.unit = &f.u;
	l.kind = 1;
	x = spm && acc ? mtx_new(e, &a, 0, sram_target(spm), sram_target(acc), &l) : NULL;
	if (!x || eng_add_unit(e, &f.u)) {
		free(cmds);
		eng_free(e);
		arch_free(&a);
		return NPU_ENOMEM;
	}
	/* deterministic operands: A at 0, B at 1 MiB, C at 0 */
	{
		uint8_t *mem = sram_data(spm);

		for (i = 0; i < (1 << 21); i++)
			mem[i] = (uint8_t)(i * 2654435761u >> 24);
	}
	for (i = 0; i < n_folds; i++) {
		struct tile_cmd *p = &cmds[2 * i], *q = &cmds[2 * i + 1];

		p->pc = q->pc = 0x100;
		p->u.m.kind = MTX_PRELOAD;
		p->u.m.a = 1u << 20;
		q->u.m.kind = i ? MTX_MUL_ACC : MTX_MUL;
		q->u.m.b = 1u << 20;
		p->u.m.cfg.in_type = q->u.m.cfg.in_type = DT_INT8;
		p->u.m.cfg.acc_type = q->u.m.cfg.acc_type = DT_INT32;
		p->u.m.cfg.m = q->u.m.cfg.m = M;
		p->u.m.cfg.k = q->u.m.cfg.k = K;
		p->u.m.cfg.n = q->u.m.cfg.n = N;
	}
	f.x = x;
	f.cmds = cmds;
	f.n = 2 * n_folds;
	rc = eng_schedule(e, 0, EV_PRI_CONTROL, &f.u, 1, 0);
	t0 = host_seconds();
	if (!rc)
		rc = eng_run(e, CYCLE_MAX, &st);
	t1 = host_seconds();
	if (!rc) {
		double s = t1 - t0 > 1e-9 ? t1 - t0 : 1e-9;
		double insns = 2.0 * n_folds;

		printf("bench.matrix.%s: %d insns (%ux%ux%u), %llu cycles, "
		       "%.1f events/insn, %.2f us/insn, %.3g MACs/s, %.3g cycles/s\n",
		       name, 2 * n_folds, M, K, N,
		       (unsigned long long)st.end_cycle,
		       (double)st.n_events / insns, 1e6 * s / insns,
		       (double)x->ctr[CTR_MATRIX_MACS] / s,
		       (double)st.end_cycle / s);
	}
	free(cmds);
	eng_free(e);
	arch_free(&a);
	return rc;
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 16, 32, 64, 128, 256 };
	size_t i;
	int rc = 0;

	filter = argc > 1 ? argv[1] : NULL;
	for (i = 0; i < 5 && !rc; i++)
		rc = run("fast", ARCH_MTX_MODEL_FAST, "fixed", sizes[i], 16, 16,
			 16, 500);
	for (i = 0; i < 5 && !rc; i++)
		rc = run("fast", ARCH_MTX_MODEL_FAST, "full", sizes[i], sizes[i],
			 sizes[i], sizes[i], sizes[i] >= 128 ? 4 : 20);
	for (i = 0; i < 3 && !rc; i++)
		rc = run("pe", ARCH_MTX_MODEL_PE, "fixed", sizes[i], 16, 16, 16, 20);
	if (rc)
		fprintf(stderr, "bench_matrix: %s\n", npu_strerror(rc));
	return rc ? 1 : 0;
}
