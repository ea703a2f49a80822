/*
 * cmd_sweep.c - `npusim sweep`: design points of a sweep spec on local
 * worker processes or a Slurm job array, and their collected results.
 *
 *   npusim sweep SPEC [-o DIR] [-j N] [--point K] [--shard I/N]
 *                     [--retry-failed] [--slurm [--partition P] [--time T]
 *                     [--array-limit N] [--submit]]
 *   npusim sweep --collect DIR [--csv FILE] [--pareto A,B [--svg FILE]]
 *
 * The library is dse/ (spec.h, sweep.h); docs/dse.md has the spec format,
 * the directory layout and a Slurm and GNU parallel walk-through.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../dse/spec.h"
#include "../dse/sweep.h"
#include "../util/diag.h"
#include "cli.h"

static volatile int sweep_stop;

static void on_signal(int sig)
{
	(void)sig;
	sweep_stop = 1;
}

static void sweep_usage(FILE *fp)
{
	fputs("usage: npusim sweep SPEC [-o DIR] [-j N] [--point K] [--shard I/N]\n"
	      "                    [--retry-failed] [--slurm [--partition P] [--time T]\n"
	      "                    [--array-limit N] [--submit]]\n"
	      "       npusim sweep --collect DIR [--csv FILE] [--pareto A,B [--svg FILE]]\n"
	      "\n"
	      "Run every design point of a sweep spec (docs/dse.md): each point is one\n"
	      "`npusim run` with the spec's config, overrides, defines and inputs; its\n"
	      "counters and status land in DIR/points/.  A rerun skips finished points,\n"
	      "so an interrupted sweep resumes; failed points are recorded with their\n"
	      "error and rerun with --retry-failed.\n"
	      "\n"
	      "options:\n"
	      "  -o, --out DIR        results directory (default: SPEC without its\n"
	      "                       extension, plus .out)\n"
	      "  -j, --jobs N         worker processes (default: the online CPUs)\n"
	      "      --point K        run point K only (what a Slurm task runs)\n"
	      "      --shard I/N      run the points with number %% N == I\n"
	      "      --retry-failed   rerun points that failed\n"
	      "      --slurm          write DIR/sweep.sbatch, a job array of the points\n"
	      "      --partition P, --time T, --array-limit N\n"
	      "                       its #SBATCH partition, time limit, and how many\n"
	      "                       tasks may run at once\n"
	      "      --submit         and submit it with sbatch\n"
	      "      --collect DIR    merge DIR's points into one CSV: parameters,\n"
	      "                       the spec's metrics and each point's status\n"
	      "      --csv FILE       where (default DIR/results.csv; - = stdout)\n"
	      "      --pareto A,B     mark the points on the Pareto front of metrics A\n"
	      "                       and B (both minimised; max:A maximises A)\n"
	      "      --svg FILE       and plot them\n"
	      "  -h, --help           this help\n", fp);
}

static int parse_shard(const char *v, int *i, int *n)
{
	char *end;
	long a = strtol(v, &end, 10), b;

	if (end == v || *end != '/')
		return -1;
	b = strtol(end + 1, &end, 10);
	if (*end || b < 1 || b > 1000000 || a < 0 || a >= b)
		return -1;
	*i = (int)a;
	*n = (int)b;
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	const char *spec_path = NULL, *dir = NULL, *collect = NULL, *csv = NULL;
	const char *pareto = NULL, *svg = NULL, *partition = NULL, *tlimit = NULL;
	char self[PATH_MAX], dirbuf[PATH_MAX], csvbuf[PATH_MAX];
	int slurm = 0, submit = 0, array_limit = 0, i, rc;
	struct sweep_opts o;
	struct sweep_counts cnt;
	struct diag d;
	struct spec s;
	ssize_t n;

	if (cli_want_help(argc, argv)) {
		sweep_usage(stdout);
		return NPU_EXIT_OK;
	}
	memset(&o, 0, sizeof(o));
	o.point = -1;
	o.shard_n = 1;
	o.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o.jobs < 1)
		o.jobs = 1;
	for (i = 1; i < argc; i++) {
		const char *val;
		int missing = 0;
		uint64_t u;

		if ((val = cli_opt_value(argc, argv, &i, 'o', "--out", &missing))) {
			dir = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 'j', "--jobs", &missing))) {
			if (cli_parse_u64("sweep", "--jobs", val, 1, 1024, &u))
				goto usage;
			o.jobs = (int)u;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--point", &missing))) {
			if (cli_parse_u64("sweep", "--point", val, 0, 1ULL << 40, &u))
				goto usage;
			o.point = (int64_t)u;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--shard", &missing))) {
			if (parse_shard(val, &o.shard_i, &o.shard_n)) {
				fprintf(stderr, "npusim sweep: --shard '%s': write I/N with 0 <= I < N\n", val);
				goto usage;
			}
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--collect", &missing))) {
			collect = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--csv", &missing))) {
			csv = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--pareto", &missing))) {
			pareto = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--svg", &missing))) {
			svg = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--partition", &missing))) {
			partition = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--time", &missing))) {
			tlimit = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--array-limit", &missing))) {
			if (cli_parse_u64("sweep", "--array-limit", val, 1, 1000000, &u))
				goto usage;
			array_limit = (int)u;
		} else if (!strcmp(argv[i], "--retry-failed")) {
			o.retry_failed = 1;
		} else if (!strcmp(argv[i], "--slurm")) {
			slurm = 1;
		} else if (!strcmp(argv[i], "--submit")) {
			submit = 1;
		} else if (missing) {
			fprintf(stderr, "npusim sweep: %s needs a value (see 'npusim sweep --help')\n",
				argv[i]);
			goto usage;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "npusim sweep: unknown argument '%s' (see 'npusim sweep --help')\n",
				argv[i]);
			goto usage;
		} else if (!spec_path) {
			spec_path = argv[i];
		} else {
			fprintf(stderr, "npusim sweep: one spec only ('%s' and '%s')\n",
				spec_path, argv[i]);
			goto usage;
		}
	}
	diag_init(&d, stderr);
	if (collect) {
		if (spec_path || slurm) {
			fputs("npusim sweep: --collect reads a results directory; no spec or --slurm\n",
			      stderr);
			goto usage;
		}
		if (svg && !pareto) {
			fputs("npusim sweep: --svg plots the --pareto front\n", stderr);
			goto usage;
		}
		if (!csv) {
			snprintf(csvbuf, sizeof(csvbuf), "%s/results.csv", collect);
			csv = csvbuf;
		}
		rc = sweep_collect(collect, csv, pareto, svg, &d);
		if (rc && rc != NPU_EFAULT && !d.n_errors)
			fprintf(stderr, "npusim sweep: %s\n", npu_strerror(rc));
		return npu_exit_status(rc);
	}
	if (!spec_path) {
		fputs("npusim sweep: no spec given\n", stderr);
		goto usage;
	}
	if (csv || pareto || svg) {
		fputs("npusim sweep: --csv, --pareto and --svg go with --collect\n", stderr);
		goto usage;
	}
	if (!slurm && (partition || tlimit || array_limit || submit)) {
		fputs("npusim sweep: --partition, --time, --array-limit and --submit go with --slurm\n",
		      stderr);
		goto usage;
	}
	if (!dir) {
		const char *dot = strrchr(spec_path, '.'), *sl = strrchr(spec_path, '/');
		int len = (int)(dot && (!sl || dot > sl) ? dot - spec_path : (long)strlen(spec_path));

		snprintf(dirbuf, sizeof(dirbuf), "%.*s.out", len, spec_path);
		dir = dirbuf;
	}
	o.dir = dir;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "npusim sweep: cannot find the npusim binary: %s\n",
			strerror(errno));
		return NPU_EXIT_USAGE;
	}
	self[n] = '\0';
	o.self = self;
	if ((rc = spec_load(&s, spec_path, &d))) {
		if (!d.n_errors)
			fprintf(stderr, "npusim sweep: %s\n", npu_strerror(rc));
		return npu_exit_status(rc);
	}
	if (slurm) {
		char script[PATH_MAX + 32], cmd[PATH_MAX + 64];

		rc = sweep_prepare(&s, dir, &d);
		if (!rc)
			rc = sweep_slurm_script(&s, spec_path, &o, partition, tlimit,
						array_limit, script, sizeof(script), &d);
		if (!rc)
			printf("wrote %s: %llu tasks\n", script, (unsigned long long)s.n_points);
		spec_free(&s);
		if (rc || !submit)
			return npu_exit_status(rc);
		snprintf(cmd, sizeof(cmd), "sbatch %s", script);
		fflush(stdout);
		rc = system(cmd);
		if (rc != 0) {
			fprintf(stderr, "npusim sweep: sbatch failed (status %d)\n", rc);
			return NPU_EXIT_USAGE;
		}
		return NPU_EXIT_OK;
	}
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	o.stop = &sweep_stop;
	o.progress = isatty(2) && o.point < 0;
	rc = sweep_run(&s, &o, &cnt, &d);
	fprintf(stderr, "npusim sweep: %llu points: %llu ok, %llu skipped by constraints, "
		"%llu failed, %llu finished before, %llu not run (%s)\n",
		(unsigned long long)s.n_points, (unsigned long long)cnt.ok,
		(unsigned long long)cnt.skipped, (unsigned long long)cnt.failed,
		(unsigned long long)cnt.already, (unsigned long long)cnt.left, dir);
	spec_free(&s);
	if (!rc && cnt.failed)
		rc = NPU_EFAULT;
	return npu_exit_status(rc);
usage:
	sweep_usage(stderr);
	return NPU_EXIT_USAGE;
}
