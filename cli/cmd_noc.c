/*
 * cmd_noc.c - `npusim noc`: synthetic traffic on a config's network alone
 * (options: opts_noc.def).
 *
 * One point: average and p99 packet latency, accepted throughput, hops.
 * --sweep walks the offered load in steps of --rate until the network
 * saturates and writes latency against offered and accepted load as CSV.
 * The generator is noc_bench_run (sim/noc/noc_bench.c); docs/noc.md has
 * the model, the zero-load formula and measured curves.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/arch.h"
#include "../sim/noc/noc.h"
#include "../util/diag.h"
#include "../util/fsout.h"
#include "cli.h"
#include "cmds.h"

/* BookSim's latency_thres default: a point whose average latency passes
 * it counts as saturated. */
#define NOC_LAT_THRES 500.0

/* Option indices of cmds_noc, in opts_noc.def order. */
enum {
#define OPT(id, sh, lng, meta, kind, help) NOC_OPT_##id,
#include "opts_noc.def"
#undef OPT
};

static void print_network(const struct arch *a, const char *path,
			  const struct noc_params *p)
{
	printf("config:    %s\n", path ? path : "<defaults>");
	printf("network:   %dx%d %s, %s routing, %d VC%s x %d flits, %d B flits,"
	       " wait_for_tail_credit %s\n", p->cols, p->rows,
	       p->torus ? "torus" : "mesh", arch_enum_name(a, P_NOC_ROUTING),
	       p->vcs, p->vcs == 1 ? "" : "s", p->buf_depth, p->flit_bytes,
	       p->wait_tail ? "on" : "off");
	printf("router:    RC %d, VA %d, SA %d, ST %d%s; link %d, credit %d;"
	       " %s allocation\n", p->t_rc, p->t_va, p->t_sa, p->t_st,
	       p->speculative ? " (speculative)" : "", p->t_link, p->t_credit,
	       p->age ? "age-based" : "round-robin");
}

static void print_point(const struct noc_params *p,
			const struct noc_bench_cfg *c,
			const struct noc_bench_res *r)
{
	printf("traffic:   %s, %u-flit packets, offered %.4f flits/node/cycle,"
	       " warmup %llu, window %llu cycles, seed %llu\n",
	       noc_pattern_names[c->pattern], c->packet_flits, c->rate,
	       (unsigned long long)c->warmup, (unsigned long long)c->cycles,
	       (unsigned long long)c->seed);
	if (r->measured)
		printf("latency:   avg %.2f, p99 %llu, min %llu, max %llu cycles"
		       " (zero-load formula %.2f)\n", r->lat_avg,
		       (unsigned long long)r->lat_p99,
		       (unsigned long long)r->lat_min,
		       (unsigned long long)r->lat_max, r->zero_load_avg);
	else
		printf("latency:   no packet created in the window\n");
	printf("accepted:  %.4f flits/node/cycle (created %.4f)\n",
	       r->accepted, r->offered);
	printf("hops:      %.3f average\n", r->hops_avg);
	printf("packets:   %llu measured, %llu delivered%s\n",
	       (unsigned long long)r->measured,
	       (unsigned long long)r->delivered,
	       r->saturated ? " (saturated: not drained)" : "");
	printf("network:   %llu credit-stall flit-cycles; %llu network cycles"
	       " and %llu router visits simulated of %llu cycles\n",
	       (unsigned long long)r->stall_credit,
	       (unsigned long long)r->st.ticks,
	       (unsigned long long)r->st.router_visits,
	       (unsigned long long)r->end);
	(void)p;
}

/* Sweep the offered load: step, 2 step, ... <= 1 flit/node/cycle,
 * stopping after the first saturated point; one CSV row per point. */
static int sweep(const struct noc_params *p, struct noc_bench_cfg *c,
		 const char *csv, struct diag *d)
{
	struct fsout o;
	struct noc_bench_res r;
	double step = c->rate;
	int k, rc;

	if ((rc = fsout_open(&o, csv ? csv : "-", d)))
		return rc;
	fprintf(o.fp, "pattern,packet_flits,offered,accepted,latency_avg,"
		      "latency_p99,zero_load,hops_avg,saturated\n");
	for (k = 1; step * k <= 1.0 + 1e-9; k++) {
		int sat;

		c->rate = step * k;
		if ((rc = noc_bench_run(p, c, &r, d))) {
			fsout_abort(&o);
			return rc;
		}
		sat = r.saturated || r.lat_avg > NOC_LAT_THRES;
		fprintf(o.fp, "%s,%u,%.4f,%.4f,%.2f,%llu,%.2f,%.3f,%d\n",
			noc_pattern_names[c->pattern], c->packet_flits,
			r.offered, r.accepted, r.lat_avg,
			(unsigned long long)r.lat_p99, r.zero_load_avg,
			r.hops_avg, sat);
		if (sat)
			break;
	}
	return fsout_commit(&o, d);
}

int cmd_noc(int argc, char **argv)
{
	const char *path = NULL, *csv = NULL, **sets;
	struct noc_bench_cfg cfg;
	struct noc_bench_res res;
	struct noc_params p;
	int n_sets = 0, k, rc, do_sweep = 0, drain_set = 0;
	struct arch a;
	struct diag d;
	struct opts op;

	if (opts_begin(&op, &cmds_noc, argc, argv))
		return NPU_EXIT_OK;
	memset(&cfg, 0, sizeof(cfg));
	cfg.pattern = NOC_PAT_UNIFORM;
	cfg.rate = 0.1;
	cfg.packet_flits = 1;
	cfg.warmup = 1000;
	cfg.cycles = 10000;
	cfg.seed = 1;
	sets = calloc((size_t)argc, sizeof(*sets));
	if (!sets) {
		fputs("npusim noc: out of memory\n", stderr);
		return NPU_EXIT_USAGE;
	}
	while ((k = opts_next(&op)) != OPTS_END) {
		switch (k) {
		case NOC_OPT_CONFIG:
			path = op.val;
			break;
		case NOC_OPT_SET:
			sets[n_sets++] = op.val;
			break;
		case NOC_OPT_PATTERN:
			cfg.pattern = (enum noc_pattern)op.num;
			break;
		case NOC_OPT_RATE: {
			char *end;

			errno = 0;
			cfg.rate = strtod(op.val, &end);
			if (errno || end == op.val || *end || !(cfg.rate > 0) ||
			    cfg.rate > 1.0) {
				fprintf(stderr, "npusim noc: --rate '%s' is not a load "
						"in (0, 1] flits per node per cycle\n", op.val);
				goto usage;
			}
			break;
		}
		case NOC_OPT_PACKET_FLITS:
			cfg.packet_flits = (uint32_t)op.num;
			break;
		case NOC_OPT_CYCLES:
			cfg.cycles = op.num;
			break;
		case NOC_OPT_WARMUP:
			cfg.warmup = op.num;
			break;
		case NOC_OPT_DRAIN:
			cfg.drain_limit = op.num;
			drain_set = 1;
			break;
		case NOC_OPT_HOTSPOT:
			cfg.hotspot = (int)op.num;
			break;
		case NOC_OPT_SEED:
			cfg.seed = op.num;
			break;
		case NOC_OPT_CSV:
			csv = op.val;
			break;
		case NOC_OPT_SWEEP:
			do_sweep = 1;
			break;
		default:        /* OPTS_ERR: the command takes no operand */
			goto usage;
		}
	}
	if (csv && !do_sweep) {
		fputs("npusim noc: --csv goes with --sweep\n", stderr);
		goto usage;
	}
	if (!drain_set)
		cfg.drain_limit = cfg.cycles;

	diag_init(&d, stderr);
	rc = arch_load(&a, path, sets, n_sets, &d);
	free(sets);
	if (rc) {
		if (d.n_errors)
			fprintf(stderr, "%s: %d error%s\n",
				path ? path : "<defaults>", d.n_errors,
				d.n_errors == 1 ? "" : "s");
		else
			fprintf(stderr, "npusim noc: %s\n", npu_strerror(rc));
		return npu_exit_status(rc);
	}
	noc_params_from_arch(&a, &p);
	if (do_sweep) {
		rc = sweep(&p, &cfg, csv, &d);
	} else {
		rc = noc_bench_run(&p, &cfg, &res, &d);
		if (!rc) {
			print_network(&a, path, &p);
			print_point(&p, &cfg, &res);
		}
	}
	arch_free(&a);
	if (rc) {
		if (!d.n_errors)
			fprintf(stderr, "npusim noc: %s\n", npu_strerror(rc));
		return npu_exit_status(rc);
	}
	/* An unwritable stdout is reported by main() (exit 1). */
	return NPU_EXIT_OK;
usage:
	free(sets);
	return NPU_EXIT_USAGE;
}
