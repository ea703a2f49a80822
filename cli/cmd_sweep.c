/*
 * cmd_sweep.c - `npusim sweep`: design points of a sweep spec on local
 * worker processes or a Slurm job array, and their collected results
 * (options: opts_sweep.def).
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
#include "cmds.h"

static volatile int sweep_stop;

static void on_signal(int sig)
{
	(void)sig;
	sweep_stop = 1;
}

/* Option indices of cmds_sweep, in opts_sweep.def order. */
enum {
#define OPT(id, sh, lng, meta, kind, help) SWEEP_OPT_##id,
#include "opts_sweep.def"
#undef OPT
};

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
	int slurm = 0, submit = 0, array_limit = 0, k, rc;
	struct sweep_opts o;
	struct opts op;
	struct sweep_counts cnt;
	struct diag d;
	struct spec s;
	ssize_t n;

	if (opts_begin(&op, &cmds_sweep, argc, argv))
		return NPU_EXIT_OK;
	memset(&o, 0, sizeof(o));
	o.point = -1;
	o.shard_n = 1;
	o.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o.jobs < 1)
		o.jobs = 1;
	while ((k = opts_next(&op)) != OPTS_END) {
		switch (k) {
		case OPTS_ERR:
			goto usage;
		case OPTS_ARG:
			if (spec_path) {
				fprintf(stderr, "npusim sweep: one spec only ('%s' and '%s')\n",
					spec_path, op.val);
				goto usage;
			}
			spec_path = op.val;
			break;
		case SWEEP_OPT_OUT:
			dir = op.val;
			break;
		case SWEEP_OPT_JOBS:
			o.jobs = (int)op.num;
			break;
		case SWEEP_OPT_POINT:
			o.point = (int64_t)op.num;
			break;
		case SWEEP_OPT_SHARD:
			if (parse_shard(op.val, &o.shard_i, &o.shard_n)) {
				fprintf(stderr, "npusim sweep: --shard '%s': write I/N with 0 <= I < N\n",
					op.val);
				goto usage;
			}
			break;
		case SWEEP_OPT_COLLECT:
			collect = op.val;
			break;
		case SWEEP_OPT_CSV:
			csv = op.val;
			break;
		case SWEEP_OPT_PARETO:
			pareto = op.val;
			break;
		case SWEEP_OPT_SVG:
			svg = op.val;
			break;
		case SWEEP_OPT_PARTITION:
			partition = op.val;
			break;
		case SWEEP_OPT_TIME:
			tlimit = op.val;
			break;
		case SWEEP_OPT_ARRAY_LIMIT:
			array_limit = (int)op.num;
			break;
		case SWEEP_OPT_RETRY_FAILED:
			o.retry_failed = 1;
			break;
		case SWEEP_OPT_SLURM:
			slurm = 1;
			break;
		case SWEEP_OPT_SUBMIT:
			submit = 1;
			break;
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
	opts_usage(stderr, &cmds_sweep);
	return NPU_EXIT_USAGE;
}
