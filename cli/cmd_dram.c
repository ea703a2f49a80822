/*
 * cmd_dram.c - `npusim dram`: synthetic traffic against a config's DRAM.
 *
 *   npusim dram [-c FILE] [-s key=value ...] [--pattern stream|random|mixed]
 *               [--reads PCT] [--requests N] [--bytes B] [--seed S]
 *
 * Drives the DRAM alone (no cores) open loop, as many requests in flight as
 * the channel queues take, and prints achieved bandwidth (GB/s and % of
 * peak), read latency (average, p99, max; core cycles and ns) and the row
 * buffer statistics.  Deterministic: the same arguments print the same
 * numbers.  The traffic generator is dram_bench_run (sim/core).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/arch.h"
#include "../sim/mem/dram.h"
#include "../util/diag.h"
#include "cli.h"

static void dram_usage(FILE *fp)
{
	fputs("usage: npusim dram [-c FILE] [-s key=value ...] [--pattern P]\n"
	      "                   [--reads PCT] [--requests N] [--bytes B] [--seed S]\n"
	      "\n"
	      "Synthetic traffic against the DRAM of a chip config: achieved\n"
	      "bandwidth (GB/s, % of peak), read latency (average, p99, max in\n"
	      "core cycles and ns) and row-buffer hit rate.  Requests are issued\n"
	      "open loop: as many as the channel queues (dram.queue_depth) accept.\n"
	      "\n"
	      "options:\n"
	      "  -c, --config FILE    libconfig file (default: built-in defaults)\n"
	      "  -s, --set KEY=VALUE  override one key (repeatable), e.g.\n"
	      "                       -s dram.preset=hbm3 -s dram.channels=4\n"
	      "      --pattern P      stream (consecutive addresses), random\n"
	      "                       (uniform), mixed (each request stream or\n"
	      "                       random with probability 1/2); default stream\n"
	      "      --reads PCT      percent of reads (default 100; mixed: 70)\n"
	      "      --requests N     requests to issue (default 100000)\n"
	      "      --bytes B        bytes per request (default: one DRAM burst)\n"
	      "      --seed S         random seed (default 1)\n"
	      "  -h, --help           this help\n"
	      "\n"
	      "Model and measured numbers per preset: docs/dram.md.\n"
	      "exit status: 0 ok, 1 output not written, 2 usage or configuration error\n", fp);
}

/* Unsigned decimal in [lo, hi]; 0 ok, -1 with a message.  strtoull
 * accepts "-1" (negated modulo 2^64), hence the explicit '-' test;
 * trailing garbage ("10k") and overflow (ERANGE) are refused too. */
static int parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi,
		     uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "npusim dram: %s '%s' is not a whole number in "
				"%llu..%llu\n", opt, s, (unsigned long long)lo,
			(unsigned long long)hi);
		return -1;
	}
	*out = v;
	return 0;
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
	static const char *const pat[] = { "stream", "random", "mixed" };
	double ghz = ARCH_F(a, CHIP_CLOCK_GHZ);
	const struct dram_stats *st = &r->st;

	printf("config:       %s\n", path ? path : "<defaults>");
	if (ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_IDEAL)
		printf("dram:         ideal, %.1f ns, %.2f GB/s, %lld channel%s\n",
		       ARCH_F(a, DRAM_IDEAL_LAT), ARCH_F(a, DRAM_IDEAL_BW),
		       (long long)ARCH_I(a, DRAM_CHANNELS),
		       ARCH_I(a, DRAM_CHANNELS) == 1 ? "" : "s");
	else
		printf("dram:         %s x %lld channel%s, tCK %.4g ns, %s, %s, "
		       "queue %lld\n",
		       arch_enum_name(a, P_DRAM_PRESET),
		       (long long)ARCH_I(a, DRAM_CHANNELS),
		       ARCH_I(a, DRAM_CHANNELS) == 1 ? "" : "s",
		       ARCH_F(a, DRAM_TCK), arch_enum_name(a, P_DRAM_SCHED),
		       arch_enum_name(a, P_DRAM_MAPPING),
		       (long long)ARCH_I(a, DRAM_QUEUE));
	printf("traffic:      %s, %llu requests x %llu B, %d%% reads, seed %llu\n",
	       pat[cfg->pattern], (unsigned long long)cfg->requests,
	       (unsigned long long)(r->bytes / (cfg->requests ? cfg->requests : 1)),
	       cfg->read_pct, (unsigned long long)cfg->seed);
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

int cmd_dram(int argc, char **argv)
{
	const char *path = NULL, **sets;
	struct dram_bench_cfg cfg;
	struct dram_bench_res res;
	int n_sets = 0, i, rc, reads_set = 0;
	uint64_t v;
	struct arch a;
	struct diag d;

	if (cli_want_help(argc, argv)) {
		dram_usage(stdout);
		return NPU_EXIT_OK;
	}
	/* Defaults of docs/dram.md's table: 100 000 one-burst stream reads,
	 * seed 1 (bytes 0 = one DRAM burst). */
	memset(&cfg, 0, sizeof(cfg));
	cfg.pattern = DRAM_PAT_STREAM;
	cfg.read_pct = 100;
	cfg.requests = 100000;
	cfg.seed = 1;
	/* At most argc - 1 overrides. */
	sets = calloc((size_t)argc, sizeof(*sets));
	if (!sets) {
		fputs("npusim dram: out of memory\n", stderr);
		return NPU_EXIT_USAGE;
	}
	for (i = 1; i < argc; i++) {
		const char *val;
		int missing = 0;

		if ((val = cli_opt_value(argc, argv, &i, 'c', "--config", &missing))) {
			path = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 's', "--set",
					    &missing))) {
			sets[n_sets++] = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--pattern",
					    &missing))) {
			if (strcmp(val, "stream") == 0)
				cfg.pattern = DRAM_PAT_STREAM;
			else if (strcmp(val, "random") == 0)
				cfg.pattern = DRAM_PAT_RANDOM;
			else if (strcmp(val, "mixed") == 0)
				cfg.pattern = DRAM_PAT_MIXED;
			else {
				fprintf(stderr, "npusim dram: --pattern '%s': "
						"use stream, random or mixed\n", val);
				goto usage;
			}
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--reads",
					    &missing))) {
			if (parse_u64("--reads", val, 0, 100, &v))
				goto usage;
			cfg.read_pct = (int)v;
			reads_set = 1;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--requests",
					    &missing))) {
			/* 1e9 requests is hours of host time: a bound
			 * against typos, not a model limit. */
			if (parse_u64("--requests", val, 1, 1000000000, &v))
				goto usage;
			cfg.requests = v;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--bytes",
					    &missing))) {
			/* up to 1 GiB per request: dram_request takes a
			 * uint32_t size */
			if (parse_u64("--bytes", val, 1, 1u << 30, &v))
				goto usage;
			cfg.bytes = (uint32_t)v;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--seed",
					    &missing))) {
			if (parse_u64("--seed", val, 0, UINT64_MAX, &v))
				goto usage;
			cfg.seed = v;
		} else if (missing) {
			fprintf(stderr, "npusim dram: %s needs a value "
					"(see 'npusim dram --help')\n", argv[i]);
			goto usage;
		} else {
			fprintf(stderr, "npusim dram: unknown argument '%s' "
					"(see 'npusim dram --help')\n", argv[i]);
			goto usage;
		}
	}
	/* mixed defaults to 70 % reads, but only if --reads was not given;
	 * applied after parsing so that the option order does not matter. */
	if (!reads_set && cfg.pattern == DRAM_PAT_MIXED)
		cfg.read_pct = 70;

	diag_init(&d, stderr);
	rc = arch_load(&a, path, sets, n_sets, &d);
	free(sets);
	if (rc) {
		if (d.n_errors)
			fprintf(stderr, "%s: %d error%s\n",
				path ? path : "<defaults>", d.n_errors,
				d.n_errors == 1 ? "" : "s");
		else
			fprintf(stderr, "npusim dram: %s\n", npu_strerror(rc));
		return npu_exit_status(rc);
	}
	rc = dram_bench_run(&a, &cfg, &res, &d);
	if (rc) {
		if (!d.n_errors)
			fprintf(stderr, "npusim dram: %s\n", npu_strerror(rc));
		arch_free(&a);
		return npu_exit_status(rc);
	}
	print_result(&a, path, &cfg, &res);
	arch_free(&a);
	/* An unwritable stdout is reported by main() (exit 1). */
	return NPU_EXIT_OK;
usage:
	free(sets);
	return NPU_EXIT_USAGE;
}
