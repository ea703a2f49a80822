/*
 * cmd_dram.c - `npusim dram`: synthetic traffic against a config's DRAM
 * (options: opts_dram.def).
 *
 * Drives the DRAM alone (no cores): open loop (as many requests in flight
 * as the channel queues take), at an offered rate, or with a limit on
 * requests in flight, and prints achieved bandwidth (GB/s and % of peak),
 * read latency (average, p99, max; core cycles and ns; by row-buffer
 * outcome), source queueing at a rate, and the row buffer statistics.
 * --sweep measures latency against offered load up to saturation, as CSV
 * (and an SVG plot).  Deterministic: the same arguments print the same
 * numbers.  The traffic generator is dram_bench_run (sim/mem).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../arch/arch.h"
#include "../sim/mem/dram.h"
#include "../report/plot.h"
#include "../util/diag.h"
#include "../util/fsout.h"
#include "cli.h"
#include "cmds.h"

/* Most points of one sweep curve (step 1 % up to 100 %). */
#define SWEEP_MAX 100
/* Most patterns in one sweep (--pattern a,b,c). */
#define SWEEP_PATS DRAM_PAT_N

/* Option indices of cmds_dram, in opts_dram.def order. */
enum {
#define OPT(id, sh, lng, meta, kind, help) DRAM_OPT_##id,
#include "opts_dram.def"
#undef OPT
};

/*
 * --rate R: "0.2" (fraction of peak), "20%" (percent of peak) or "5GB/s"
 * (absolute, GB = 1e9 bytes).  0 ok with *gbps set, -1 with a message.
 */
static int parse_rate(const char *s, double peak_gbps, double *gbps)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || v > 1e6)
		goto bad;
	if (*end == '%' && end[1] == '\0')
		*gbps = v / 100 * peak_gbps;
	else if (strcasecmp(end, "GB/s") == 0 || strcasecmp(end, "gbps") == 0)
		*gbps = v;
	else if (*end == '\0')
		*gbps = v * peak_gbps;
	else
		goto bad;
	return 0;
bad:
	fprintf(stderr, "npusim dram: --rate '%s': give a fraction of peak "
			"(0.2), a percentage (20%%) or GB/s (5GB/s), above 0\n",
		s);
	return -1;
}

/* The report, one labelled line per quantity (docs/dram.md "Measured"
 * shows it).  Latencies are per read burst, arrival to last data beat;
 * ns = cycles / clock_ghz.  Bytes per request are recovered from the total
 * because without --bytes a request is one burst, whose size the DRAM
 * decides. */
static void print_result(const struct arch *a, const char *path,
			 const struct dram_bench_cfg *cfg,
			 const struct dram_bench_res *r)
{
	static const char *const state[3] = { "hit", "miss", "conflict" };
	double ghz = ARCH_F(a, CHIP_CLOCK_GHZ);
	const struct dram_stats *st = &r->st;
	int k, any = 0;

	printf("config:       %s\n", path ? path : "<defaults>");
	if (ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_IDEAL)
		printf("dram:         ideal, %.1f ns, %.2f GB/s, %lld channel%s\n",
		       ARCH_F(a, DRAM_IDEAL_LAT), ARCH_F(a, DRAM_IDEAL_BW),
		       (long long)ARCH_I(a, DRAM_CHANNELS),
		       ARCH_I(a, DRAM_CHANNELS) == 1 ? "" : "s");
	else
		printf("dram:         %s x %lld channel%s, tCK %.4g ns, %s, %s, "
		       "queues %lld/%lld, %s refresh\n",
		       arch_enum_name(a, P_DRAM_PRESET),
		       (long long)ARCH_I(a, DRAM_CHANNELS),
		       ARCH_I(a, DRAM_CHANNELS) == 1 ? "" : "s",
		       ARCH_F(a, DRAM_TCK), arch_enum_name(a, P_DRAM_SCHED),
		       ARCH_S(a, DRAM_MAPPING),
		       (long long)ARCH_I(a, DRAM_QUEUE),
		       (long long)ARCH_I(a, DRAM_WQUEUE),
		       arch_enum_name(a, P_DRAM_REFRESH));
	printf("traffic:      %s, %llu requests x %llu B, %d%% reads, seed %llu",
	       dram_pattern_names[cfg->pattern],
	       (unsigned long long)cfg->requests,
	       (unsigned long long)(r->bytes / (cfg->requests ? cfg->requests : 1)),
	       cfg->pattern == DRAM_PAT_COPY ? 50 :
	       cfg->pattern == DRAM_PAT_CHASE ? 100 : cfg->read_pct,
	       (unsigned long long)cfg->seed);
	if (cfg->pattern == DRAM_PAT_CHASE)
		printf(", 1 outstanding");
	else if (cfg->outstanding)
		printf(", %u outstanding", cfg->outstanding);
	printf("\n");
	if (r->offered_gbps > 0)
		printf("offered:      %.2f GB/s = %.1f%% of peak\n",
		       r->offered_gbps, 100 * r->offered_gbps / r->peak_gbps);
	printf("bandwidth:    %.2f GB/s = %.1f%% of peak %.2f GB/s\n",
	       r->gbps, r->pct_peak, r->peak_gbps);
	if (st->lat_n)
		printf("read latency: avg %.1f cycles (%.1f ns), p99 %llu cycles "
		       "(%.1f ns), max %llu cycles\n",
		       st->lat_avg, r->lat_avg_ns,
		       (unsigned long long)st->lat_p99, r->lat_p99_ns,
		       (unsigned long long)st->lat_max);
	else
		printf("read latency: no reads\n");
	for (k = 0; k < 3; k++)
		if (st->lat_state_n[k]) {
			double c = (double)st->lat_state_sum[k] /
				   (double)st->lat_state_n[k];

			printf("%s%s %.1f cycles (%.1f ns, %llu)",
			       any ? ", " : "  by row:     ", state[k], c,
			       c / ghz, (unsigned long long)st->lat_state_n[k]);
			any = 1;
		}
	if (any)
		printf("\n");
	if (r->offered_gbps > 0)
		printf("source queue: avg wait %.1f ns; read made to done avg "
		       "%.1f ns\n", r->wait_avg_ns, r->total_avg_ns);
	printf("row buffer:   %.1f%% hits (%llu hits, %llu misses, %llu "
	       "conflicts)\n", 100 * r->row_hit_rate,
	       (unsigned long long)st->row_hits,
	       (unsigned long long)st->row_misses,
	       (unsigned long long)st->row_conflicts);
	printf("commands:     %llu ACT, %llu PRE, %llu REF; %llu requests "
	       "refused (queue full)\n",
	       (unsigned long long)st->activates,
	       (unsigned long long)st->precharges,
	       (unsigned long long)st->refreshes,
	       (unsigned long long)st->rejected);
	printf("elapsed:      %llu cycles at %.4g GHz (%.3f us)\n",
	       (unsigned long long)r->cycles, ghz,
	       (double)r->cycles / ghz / 1e3);
}

/* One sweep: a curve per pattern, then CSV (and SVG) out.  The curves
 * are written only when every run succeeded. */
struct sweep {
	int n_pat;
	enum dram_pattern pat[SWEEP_PATS];
	int n[SWEEP_PATS];
	struct dram_bench_res r[SWEEP_PATS][SWEEP_MAX];
};

/* The CSV of a sweep: one row per (pattern, load) point. */
static void sweep_csv(FILE *fp, const struct arch *a, const struct sweep *w)
{
	int p, k;

	fprintf(fp, "preset,pattern,offered_pct,offered_gbps,achieved_gbps,"
		"achieved_pct,read_latency_ns,read_p99_ns,source_wait_ns,"
		"read_total_ns,row_hit_rate\n");
	for (p = 0; p < w->n_pat; p++)
		for (k = 0; k < w->n[p]; k++) {
			const struct dram_bench_res *r = &w->r[p][k];

			fprintf(fp, "%s,%s,%.1f,%.3f,%.3f,%.1f,%.1f,%.1f,%.1f,"
				"%.1f,%.3f\n",
				ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_IDEAL ?
				"ideal" : arch_enum_name(a, P_DRAM_PRESET),
				dram_pattern_names[w->pat[p]],
				100 * r->offered_gbps / r->peak_gbps,
				r->offered_gbps, r->gbps, r->pct_peak,
				r->lat_avg_ns, r->lat_p99_ns, r->wait_avg_ns,
				r->total_avg_ns, r->row_hit_rate);
		}
}

/*
 * The SVG of a sweep: average read latency (request made to data, source
 * queueing included) against offered load in % of peak.  The y axis ends
 * at 1.5 x the largest latency within 5x of its curve's light-load
 * latency, so the knees show and the blow-up past them runs off the top.
 */
static int sweep_svg(FILE *fp, const struct arch *a, const struct sweep *w)
{
	static double x[SWEEP_PATS][SWEEP_MAX], y[SWEEP_PATS][SWEEP_MAX];
	struct plot_series s[SWEEP_PATS];
	struct plot pl;
	char title[128];
	double ymax = 0;
	int p, k;

	for (p = 0; p < w->n_pat; p++) {
		for (k = 0; k < w->n[p]; k++) {
			const struct dram_bench_res *r = &w->r[p][k];

			x[p][k] = 100 * r->offered_gbps / r->peak_gbps;
			y[p][k] = r->total_avg_ns;
			/* the knee: points up to 5x the curve's light-load
			 * latency set the scale, the blow-up past it does not */
			if (y[p][k] <= 5 * w->r[p][0].total_avg_ns &&
			    y[p][k] > ymax)
				ymax = y[p][k];
		}
		s[p].name = dram_pattern_names[w->pat[p]];
		s[p].n = w->n[p];
		s[p].x = x[p];
		s[p].y = y[p];
		s[p].scatter = 0;
	}
	snprintf(title, sizeof(title), "%s: read latency against offered load",
		 ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_IDEAL ? "ideal" :
		 arch_enum_name(a, P_DRAM_PRESET));
	memset(&pl, 0, sizeof(pl));
	pl.title = title;
	pl.xlabel = "offered load, % of peak";
	pl.ylabel = "average read latency, ns";
	pl.xmax = 100;
	pl.ymax = 1.5 * ymax;
	pl.n_series = w->n_pat;
	pl.s = s;
	return plot_svg(fp, &pl);
}

/* Write one output through fsout (atomic; "-" = stdout). */
static int write_out(const char *path, const struct arch *a,
		     const struct sweep *w, int svg, struct diag *d)
{
	struct fsout o;
	int rc = fsout_open(&o, path, d);

	if (rc)
		return rc;
	if (svg) {
		if (sweep_svg(o.fp, a, w)) {
			fsout_abort(&o);
			return diag_error(d, diag_nowhere(), NPU_EIO,
					  "%s: write failed", path);
		}
	} else {
		sweep_csv(o.fp, a, w);
	}
	return fsout_commit(&o, d);
}

/* --pattern: one name, or for --sweep a comma-separated list. */
static int parse_patterns(const char *val, struct sweep *w)
{
	char buf[256], *tok, *save = NULL;
	int k;

	if (strlen(val) >= sizeof(buf))
		goto bad;
	strcpy(buf, val);
	w->n_pat = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < DRAM_PAT_N; k++)
			if (strcmp(tok, dram_pattern_names[k]) == 0)
				break;
		if (k == DRAM_PAT_N || w->n_pat == SWEEP_PATS)
			goto bad;
		w->pat[w->n_pat++] = (enum dram_pattern)k;
	}
	if (w->n_pat == 0)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "npusim dram: --pattern '%s': use stream, random, "
			"mixed, copy or pointer-chase (a comma list with "
			"--sweep)\n", val);
	return -1;
}

int cmd_dram(int argc, char **argv)
{
	const char *path = NULL, **sets, *rate = NULL, *csv = NULL, *svg = NULL;
	struct dram_bench_cfg cfg;
	struct dram_bench_res res;
	struct sweep *w = NULL;
	int n_sets = 0, k, i, rc, reads_set = 0, sweep = 0;
	double step = 5;
	struct arch a;
	struct diag d;
	struct opts op;

	if (opts_begin(&op, &cmds_dram, argc, argv))
		return NPU_EXIT_OK;
	/* Defaults of docs/dram.md's table: 100 000 one-burst stream reads,
	 * seed 1 (bytes 0 = one DRAM burst). */
	memset(&cfg, 0, sizeof(cfg));
	cfg.pattern = DRAM_PAT_STREAM;
	cfg.read_pct = 100;
	cfg.requests = 100000;
	cfg.seed = 1;
	/* At most argc - 1 overrides. */
	sets = calloc((size_t)argc, sizeof(*sets));
	w = calloc(1, sizeof(*w));
	if (!sets || !w) {
		fputs("npusim dram: out of memory\n", stderr);
		free(sets);
		free(w);
		return NPU_EXIT_USAGE;
	}
	w->n_pat = 1;
	w->pat[0] = DRAM_PAT_STREAM;
	while ((k = opts_next(&op)) != OPTS_END) {
		switch (k) {
		case DRAM_OPT_CONFIG:
			path = op.val;
			break;
		case DRAM_OPT_SET:
			sets[n_sets++] = op.val;
			break;
		case DRAM_OPT_PATTERN:
			if (parse_patterns(op.val, w))
				goto usage;
			break;
		case DRAM_OPT_READS:
			cfg.read_pct = (int)op.num;
			reads_set = 1;
			break;
		case DRAM_OPT_REQUESTS:
			cfg.requests = op.num;
			break;
		case DRAM_OPT_BYTES:
			cfg.bytes = (uint32_t)op.num;
			break;
		case DRAM_OPT_SEED:
			cfg.seed = op.num;
			break;
		case DRAM_OPT_RATE:
			rate = op.val;     /* parsed once the peak is known */
			break;
		case DRAM_OPT_OUTSTANDING:
			cfg.outstanding = (uint32_t)op.num;
			break;
		case DRAM_OPT_STEP:
			step = (double)op.num;
			break;
		case DRAM_OPT_CSV:
			csv = op.val;
			break;
		case DRAM_OPT_SVG:
			svg = op.val;
			break;
		case DRAM_OPT_SWEEP:
			sweep = 1;
			break;
		default:        /* OPTS_ERR: the command takes no operand */
			goto usage;
		}
	}
	if (!sweep && (w->n_pat > 1 || csv || svg)) {
		fputs("npusim dram: a pattern list, --csv and --svg go with "
		      "--sweep\n", stderr);
		goto usage;
	}
	if (sweep && rate) {
		fputs("npusim dram: --sweep sets the rate itself; drop --rate\n",
		      stderr);
		goto usage;
	}
	cfg.pattern = w->pat[0];
	/* mixed defaults to 70 % reads, but only if --reads was not given;
	 * applied after parsing so that the option order does not matter. */
	if (!reads_set && cfg.pattern == DRAM_PAT_MIXED)
		cfg.read_pct = 70;

	diag_init(&d, stderr);
	rc = arch_load(&a, path, sets, n_sets, &d);
	free(sets);
	sets = NULL;
	if (rc) {
		if (d.n_errors)
			fprintf(stderr, "%s: %d error%s\n",
				path ? path : "<defaults>", d.n_errors,
				d.n_errors == 1 ? "" : "s");
		else
			fprintf(stderr, "npusim dram: %s\n", npu_strerror(rc));
		free(w);
		return npu_exit_status(rc);
	}
	if (rate && parse_rate(rate, ARCH_PEAK(&a, DRAM_BYTES_PER_S) / 1e9,
			       &cfg.rate_gbps)) {
		arch_free(&a);
		free(w);
		return NPU_EXIT_USAGE;
	}
	if (sweep) {
		for (i = 0, rc = 0; i < w->n_pat && !rc; i++) {
			struct dram_bench_cfg c = cfg;

			c.pattern = w->pat[i];
			if (!reads_set)
				c.read_pct = c.pattern == DRAM_PAT_MIXED ? 70
									 : 100;
			rc = dram_bench_sweep(&a, &c, step, w->r[i], SWEEP_MAX,
					      &w->n[i], &d);
		}
		/* the plot first: a path that cannot be written fails the
		 * run before any CSV reaches stdout */
		if (!rc && svg)
			rc = write_out(svg, &a, w, 1, &d);
		if (!rc)
			rc = write_out(csv ? csv : "-", &a, w, 0, &d);
	} else {
		rc = dram_bench_run(&a, &cfg, &res, &d);
		if (!rc)
			print_result(&a, path, &cfg, &res);
	}
	if (rc) {
		if (!d.n_errors)
			fprintf(stderr, "npusim dram: %s\n", npu_strerror(rc));
		arch_free(&a);
		free(w);
		return npu_exit_status(rc);
	}
	arch_free(&a);
	free(w);
	/* An unwritable stdout is reported by main() (exit 1). */
	return NPU_EXIT_OK;
usage:
	free(sets);
	free(w);
	return NPU_EXIT_USAGE;
}
