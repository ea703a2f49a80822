/*
 * sweep.c - sweep points as processes, their status files, the collected
 * CSV, the Pareto front and the Slurm script (sweep.h).
 *
 * Each point is one `npusim run` process (fork + exec of the binary in
 * sweep_opts.self): a crash, a fault or a timeout in one point cannot
 * disturb another, the run's own atomic outputs and error messages are
 * reused as they are, and a Slurm task runs exactly what a local worker
 * runs.  The cost, a few milliseconds per point, is small next to a
 * simulation.
 */
/* realpath */
#define _XOPEN_SOURCE 700

#include "sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../report/plot.h"
#include "../util/fsout.h"
#include "../util/strutil.h"

#define SW_MAX_ARGS 256

static int mkdirs(const char *dir, struct diag *d)
{
	char path[PATH_MAX];
	char *p;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return diag_error(d, diag_nowhere(), NPU_EUSAGE, "%s: path too long", dir);
	for (p = path + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;

			*p = '\0';
			if (mkdir(path, 0777) && errno != EEXIST)
				return diag_error(d, diag_nowhere(), NPU_EIO,
						  "%s: cannot create: %s", path, strerror(errno));
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

static void point_path(char *buf, size_t n, const char *dir, uint64_t k,
		       const char *ext)
{
	snprintf(buf, n, "%s/points/%llu.%s", dir, (unsigned long long)k, ext);
}

static int write_text(const char *path, const char *text, struct diag *d)
{
	struct fsout o;
	int rc;

	if ((rc = fsout_open(&o, path, d)))
		return rc;
	fputs(text, o.fp);
	return fsout_commit(&o, d);
}

/* The state of point k: 0 none, 1 ok, 2 skipped, 3 failed. */
static int point_state(const char *dir, uint64_t k)
{
	char path[PATH_MAX], *t;
	int st = 0;

	point_path(path, sizeof(path), dir, k, "status");
	if (!(t = str_read_file(path, NULL)))
		return 0;
	if (!strncmp(t, "ok", 2))
		st = 1;
	else if (!strncmp(t, "skipped", 7))
		st = 2;
	else if (!strncmp(t, "failed", 6))
		st = 3;
	free(t);
	return st;
}

/* The spec is copied into the directory, which --collect reads; a
 * directory holding another spec's results is refused. */
static int keep_spec(const struct spec *s, const char *dir, struct diag *d)
{
	char path[PATH_MAX];
	char *mine, *there;
	size_t n1 = 0, n2 = 0;
	int rc = 0;

	if (!(mine = str_read_file(s->path, &n1)))
		return diag_error(d, diag_nowhere(), NPU_EIO, "%s: cannot read", s->path);
	snprintf(path, sizeof(path), "%s/spec.sweep", dir);
	there = str_read_file(path, &n2);
	if (!there)
		rc = write_text(path, mine, d);
	else if (n1 != n2 || memcmp(mine, there, n1))
		rc = diag_error(d, diag_nowhere(), NPU_EUSAGE,
				"%s holds the results of another spec (%s differs from %s); "
				"use another -o directory", dir, path, s->path);
	free(mine);
	free(there);
	return rc;
}

/* The argument vector of point k's run. */
static int point_argv(const struct spec *s, const struct sweep_opts *o,
		      const struct spec_point *pt, char **argv, char *store,
		      size_t n_store)
{
	int n = 0, i;
	size_t used = 0;
	char mc[32];

#define ARG(str) (argv[n++] = (char *)(str))
#define ARGF(...)                                                          \
	do {                                                               \
		int w_ = snprintf(store + used, n_store - used, __VA_ARGS__); \
		if (w_ < 0 || (size_t)w_ >= n_store - used)                \
			return -1;                                         \
		argv[n++] = store + used;                                  \
		used += (size_t)w_ + 1;                                    \
	} while (0)
	ARG("npusim");
	ARG("run");
	ARG("-q");
	if (s->timing_only)
		ARG("--timing-only");
	if (s->config) {
		ARG("-c");
		ARG(s->config);
	}
	for (i = 0; i < s->n_set && n < SW_MAX_ARGS - 40; i++) {
		ARG("-s");
		ARG(s->set[i]);
	}
	for (i = 0; i < s->n_defines && n < SW_MAX_ARGS - 40; i++) {
		ARG("-D");
		ARG(s->defines[i]);
	}
	for (i = 0; i < s->n_params; i++) {
		ARG(s->p[i].define ? "-D" : "-s");
		ARGF("%s=%s", s->p[i].name, spec_value(s, pt, i));
	}
	for (i = 0; i < s->n_inputs && n < SW_MAX_ARGS - 8; i++) {
		ARG("--input");
		ARG(s->inputs[i]);
	}
	ARG("--counters");
	ARGF("%s/points/%llu.csv", o->dir, (unsigned long long)pt->k);
	if (s->max_cycles) {
		snprintf(mc, sizeof(mc), "%llu", (unsigned long long)s->max_cycles);
		ARG("--max-cycles");
		ARGF("%s", mc);
	}
	ARG(s->program);
	argv[n] = NULL;
#undef ARG
#undef ARGF
	return 0;
}

static pid_t launch(const struct spec *s, const struct sweep_opts *o,
		    uint64_t k, struct diag *d)
{
	struct spec_point pt;
	char *argv[SW_MAX_ARGS + 1], store[16384], log[PATH_MAX];
	pid_t p;

	spec_point(s, k, &pt);
	if (point_argv(s, o, &pt, argv, store, sizeof(store)))
		return diag_error(d, diag_nowhere(), NPU_EUSAGE,
				  "point %llu: its arguments are too long",
				  (unsigned long long)k), -1;
	point_path(log, sizeof(log), o->dir, k, "log");
	fflush(NULL);
	p = fork();
	if (p == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execv(o->self, argv);
		fprintf(stderr, "npusim sweep: cannot run %s: %s\n", o->self,
			strerror(errno));
		_exit(127);
	}
	if (p < 0)
		(void)diag_error(d, diag_nowhere(), NPU_EIO, "fork: %s", strerror(errno));
	return p;
}

/* What point k's run said went wrong: its first "error:" line, else its
 * last non-empty line. */
static void first_error(const char *dir, uint64_t k, char *out, size_t n)
{
	char path[PATH_MAX], *t, *e, *b;
	size_t len = 0;

	point_path(path, sizeof(path), dir, k, "log");
	out[0] = '\0';
	if (!(t = str_read_file(path, &len)))
		return;
	if ((e = strstr(t, "error: "))) {
		for (b = e; b > t && b[-1] != '\n'; b--)
			;
		snprintf(out, n, "%.*s", (int)strcspn(b, "\n"), b);
		free(t);
		return;
	}
	e = t + len;
	while (e > t && (e[-1] == '\n' || e[-1] == ' '))
		e--;
	*e = '\0';
	b = strrchr(t, '\n');
	snprintf(out, n, "%s", b ? b + 1 : t);
	free(t);
}

static int record(const char *dir, uint64_t k, const char *text, struct diag *d)
{
	char path[PATH_MAX];

	point_path(path, sizeof(path), dir, k, "status");
	return write_text(path, text, d);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress(const struct sweep_opts *o, const struct sweep_counts *c,
		     uint64_t todo, double t0)
{
	uint64_t done = c->ok + c->skipped + c->failed;
	double el = now_s() - t0, left = done ? el / (double)done * (double)(todo - done) : 0;

	if (!o->progress)
		return;
	fprintf(stderr, "\rsweep: %llu/%llu done, %llu failed, %llu left, ~%.0f s left   ",
		(unsigned long long)done, (unsigned long long)todo,
		(unsigned long long)c->failed, (unsigned long long)(todo - done), left);
}

int sweep_prepare(const struct spec *s, const char *dir, struct diag *d)
{
	char sub[PATH_MAX];
	int rc;

	snprintf(sub, sizeof(sub), "%s/points", dir);
	if ((rc = mkdirs(sub, d)))
		return rc;
	return keep_spec(s, dir, d);
}

int sweep_run(const struct spec *s, const struct sweep_opts *o,
	      struct sweep_counts *c, struct diag *d)
{
	char why[400], msg[600];
	pid_t *pid;
	uint64_t *pk, k, todo = 0, lo = 0, hi = s->n_points;
	int running = 0, jobs = o->jobs > 0 ? o->jobs : 1, rc, i;
	double t0 = now_s();

	memset(c, 0, sizeof(*c));
	if ((rc = sweep_prepare(s, o->dir, d)))
		return rc;
	if (o->point >= 0) {
		if ((uint64_t)o->point >= s->n_points)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "point %lld does not exist (the spec has %llu: 0-%llu)",
					  (long long)o->point, (unsigned long long)s->n_points,
					  (unsigned long long)s->n_points - 1);
		lo = (uint64_t)o->point;
		hi = lo + 1;
	}
	for (k = lo; k < hi; k++)
		if (k % (uint64_t)o->shard_n == (uint64_t)o->shard_i &&
		    (!o->only || bsearch(&k, o->only, o->n_only, sizeof(k), cmp_u64)))
			todo++;
	pid = calloc((size_t)jobs, sizeof(*pid));
	pk = calloc((size_t)jobs, sizeof(*pk));
	if (!pid || !pk) {
		free(pid);
		free(pk);
		return NPU_ENOMEM;
	}
	rc = 0;
	for (k = lo; k <= hi && !rc; k++) {
		/* wait for a worker when all are busy, or at the end */
		while (running && (running == jobs || k == hi || (o->stop && *o->stop))) {
			int st;
			pid_t w = waitpid(-1, &st, 0);

			if (w < 0) {
				if (errno == EINTR)
					continue;
				rc = diag_error(d, diag_nowhere(), NPU_EIO, "wait: %s", strerror(errno));
				break;
			}
			for (i = 0; i < jobs && pid[i] != w; i++)
				;
			if (i == jobs)
				continue;
			pid[i] = 0;
			running--;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
				c->ok++;
				rc = record(o->dir, pk[i], "ok\n", d);
			} else if (WIFEXITED(st) && WEXITSTATUS(st) == 130) {
				c->left++; /* interrupted: no status, reruns */
			} else {
				first_error(o->dir, pk[i], why, sizeof(why));
				snprintf(msg, sizeof(msg), "failed %d %s\n",
					 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
					 why);
				c->failed++;
				rc = record(o->dir, pk[i], msg, d);
			}
			progress(o, c, todo, t0);
		}
		if (k == hi || rc)
			break;
		if (o->stop && *o->stop) {
			c->left++;
			continue;
		}
		if (k % (uint64_t)o->shard_n != (uint64_t)o->shard_i)
			continue;
		if (o->only && !bsearch(&k, o->only, o->n_only, sizeof(k), cmp_u64))
			continue;
		switch (point_state(o->dir, k)) {
		case 1: case 2:
			c->already++;
			continue;
		case 3:
			if (!o->retry_failed) {
				c->already++;
				continue;
			}
			break;
		default:
			break;
		}
		{
			struct spec_point pt;
			int f, line = 0;

			spec_point(s, k, &pt);
			f = spec_feasible(s, &pt, why, sizeof(why), &line);
			if (f == 0) {
				snprintf(msg, sizeof(msg), "skipped %s\n", why);
				c->skipped++;
				rc = record(o->dir, k, msg, d);
				progress(o, c, todo, t0);
				continue;
			}
			if (f == -2) {
				rc = diag_error(d, diag_at_file(s->path, line, 0),
						NPU_ECONFIG, "%s", why);
				break;
			}
			if (f < 0) {
				snprintf(msg, sizeof(msg), "failed 2 %s\n", why);
				c->failed++;
				rc = record(o->dir, k, msg, d);
				progress(o, c, todo, t0);
				continue;
			}
		}
		for (i = 0; i < jobs && pid[i]; i++)
			;
		pk[i] = k;
		if ((pid[i] = launch(s, o, k, d)) < 0) {
			pid[i] = 0;
			rc = NPU_EIO;
			break;
		}
		running++;
	}
	/* an error: let the running points finish and record them */
	while (running > 0) {
		int st;
		pid_t w = waitpid(-1, &st, 0);

		if (w < 0 && errno != EINTR)
			break;
		for (i = 0; i < jobs; i++)
			if (w > 0 && pid[i] == w) {
				pid[i] = 0;
				running--;
				if (WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
				    !record(o->dir, pk[i], "ok\n", d))
					c->ok++;
				else
					c->left++;
			}
	}
	if (o->progress)
		fputc('\n', stderr);
	free(pid);
	free(pk);
	if (!rc && o->stop && *o->stop)
		rc = NPU_EINTR;
	return rc;
}

/* ---- collecting ---------------------------------------------------------------*/

/* Value of whole-run counter name in a counters CSV text, or NULL. */
static const char *csv_value(const char *text, const char *name, char *out,
			     size_t n)
{
	size_t len = strlen(name);
	const char *p = text;

	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l > len && !strncmp(p, name, len) && p[len] == ',') {
			const char *v = p + len + 1, *c1 = memchr(v, ',', l - len - 1);
			const char *c2 = c1 ? memchr(c1 + 1, ',', (size_t)(p + l - c1 - 1)) : NULL;

			/* name,value,unit,region: the whole run has no region */
			if (c1 && c2 && (size_t)(c2 - p) + 1 == l) {
				snprintf(out, n, "%.*s", (int)(c1 - v), v);
				return out;
			}
		}
		p = e ? e + 1 : NULL;
	}
	return NULL;
}

int sweep_point(const char *dir, uint64_t k, const char *metric,
		double *value, char *text, size_t n)
{
	char path[PATH_MAX], val[128], *t;
	int st = point_state(dir, k);

	text[0] = '\0';
	point_path(path, sizeof(path), dir, k, "status");
	if (st && (t = str_read_file(path, NULL))) {
		snprintf(text, n, "%.*s", (int)strcspn(t, "\n"), t);
		free(t);
	}
	if (st != 1 || !metric)
		return st;
	point_path(path, sizeof(path), dir, k, "csv");
	if (!(t = str_read_file(path, NULL)))
		return 0;
	if (!csv_value(t, metric, val, sizeof(val)))
		st = 0;
	else
		*value = strtod(val, NULL);
	free(t);
	return st;
}

struct row {
	int state;              /* point_state, or 0 missing */
	char status[300];
	char **m;               /* metric values (NULL = absent) */
	double px, py;          /* the Pareto metrics */
	int has_p, front;
};

int sweep_collect(const char *dir, const char *out, const char *pareto,
		  const char *svg, struct diag *d)
{
	char path[PATH_MAX], val[128];
	struct spec s;
	struct row *rows;
	int rc, i, pm[2] = { -1, -1 }, pmax[2] = { 0, 0 };
	uint64_t k, missing = 0, failed = 0;
	struct fsout o;

	snprintf(path, sizeof(path), "%s/spec.sweep", dir);
	if ((rc = spec_load(&s, path, d)))
		return rc;
	/* the Pareto metrics must be among the spec's metrics */
	if (pareto) {
		char tmp[256], *a, *b;

		snprintf(tmp, sizeof(tmp), "%s", pareto);
		a = tmp;
		b = strchr(tmp, ',');
		if (!b) {
			spec_free(&s);
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--pareto takes two metrics: A,B");
		}
		*b++ = '\0';
		for (i = 0; i < 2; i++) {
			char *m = i ? b : a;
			int j;

			if (!strncmp(m, "max:", 4)) {
				pmax[i] = 1;
				m += 4;
			}
			for (j = 0; j < s.n_metrics; j++)
				if (!strcmp(s.metrics[j], m))
					pm[i] = j;
			if (pm[i] < 0) {
				rc = diag_error(d, diag_nowhere(), NPU_EUSAGE,
						"--pareto: '%s' is not one of the spec's metrics", m);
				spec_free(&s);
				return rc;
			}
		}
	}
	rows = calloc((size_t)s.n_points, sizeof(*rows));
	if (!rows) {
		spec_free(&s);
		return NPU_ENOMEM;
	}
	for (k = 0; k < s.n_points; k++) {
		struct row *r = &rows[k];
		char *text;

		r->state = point_state(dir, k);
		point_path(path, sizeof(path), dir, k, "status");
		if (r->state) {
			char *st = str_read_file(path, NULL);

			snprintf(r->status, sizeof(r->status), "%s", st ? st : "");
			r->status[strcspn(r->status, "\n")] = '\0';
			free(st);
		} else {
			snprintf(r->status, sizeof(r->status), "missing");
			missing++;
		}
		if (r->state == 3 && ++failed <= 10)
			fprintf(stderr, "npusim sweep: point %llu %s\n",
				(unsigned long long)k, r->status);
		r->m = calloc((size_t)s.n_metrics + 1, sizeof(char *));
		if (!r->m) {
			rc = NPU_ENOMEM;
			goto out;
		}
		point_path(path, sizeof(path), dir, k, "csv");
		if (r->state != 1 || !(text = str_read_file(path, NULL)))
			continue;
		for (i = 0; i < s.n_metrics; i++)
			if (csv_value(text, s.metrics[i], val, sizeof(val)) &&
			    !(r->m[i] = strdup(val))) {
				free(text);
				rc = NPU_ENOMEM;
				goto out;
			}
		free(text);
		if (pareto && r->m[pm[0]] && r->m[pm[1]]) {
			r->px = strtod(r->m[pm[0]], NULL);
			r->py = strtod(r->m[pm[1]], NULL);
			r->has_p = 1;
		}
	}
	/* a metric no finished point has is a typo in the spec */
	for (i = 0; i < s.n_metrics; i++) {
		uint64_t seen = 0, ok = 0;

		for (k = 0; k < s.n_points; k++) {
			ok += rows[k].state == 1;
			seen += rows[k].m[i] != NULL;
		}
		if (ok && !seen)
			fprintf(stderr, "npusim sweep: warning: no point has a whole-run "
				"counter named '%s' (%s, metrics; the counters files list "
				"the names)\n", s.metrics[i], path);
	}
	if (failed > 10)
		fprintf(stderr, "npusim sweep: ... %llu failed points in all (their "
			"status column says why)\n", (unsigned long long)failed);
	if (missing)
		fprintf(stderr, "npusim sweep: %llu of %llu points have not run "
			"(rerun the sweep to run them)\n", (unsigned long long)missing,
			(unsigned long long)s.n_points);
	/* the front: no other point at least as good on both, better on one */
	if (pareto)
		for (k = 0; k < s.n_points; k++) {
			uint64_t j;
			double ax, ay;

			if (!rows[k].has_p)
				continue;
			ax = pmax[0] ? -rows[k].px : rows[k].px;
			ay = pmax[1] ? -rows[k].py : rows[k].py;
			rows[k].front = 1;
			for (j = 0; j < s.n_points && rows[k].front; j++) {
				double bx, by;

				if (j == k || !rows[j].has_p)
					continue;
				bx = pmax[0] ? -rows[j].px : rows[j].px;
				by = pmax[1] ? -rows[j].py : rows[j].py;
				if (bx <= ax && by <= ay && (bx < ax || by < ay))
					rows[k].front = 0;
			}
		}
	if ((rc = fsout_open(&o, out, d)))
		goto out;
	fputs("point", o.fp);
	for (i = 0; i < s.n_params; i++) {
		fputc(',', o.fp);
		str_csv_field(o.fp, s.p[i].name);
	}
	for (i = 0; i < s.n_metrics; i++) {
		fputc(',', o.fp);
		str_csv_field(o.fp, s.metrics[i]);
	}
	fputs(pareto ? ",status,pareto\n" : ",status\n", o.fp);
	for (k = 0; k < s.n_points; k++) {
		struct spec_point pt;

		spec_point(&s, k, &pt);
		fprintf(o.fp, "%llu", (unsigned long long)k);
		for (i = 0; i < s.n_params; i++) {
			fputc(',', o.fp);
			str_csv_field(o.fp, spec_value(&s, &pt, i));
		}
		for (i = 0; i < s.n_metrics; i++) {
			fputc(',', o.fp);
			str_csv_field(o.fp, rows[k].m[i] ? rows[k].m[i] : "");
		}
		fputc(',', o.fp);
		str_csv_field(o.fp, rows[k].status);
		if (pareto)
			fprintf(o.fp, ",%d", rows[k].front);
		fputc('\n', o.fp);
	}
	if ((rc = fsout_commit(&o, d)))
		goto out;
	if (pareto && svg) {
		double *x = calloc((size_t)s.n_points * 4 + 1, sizeof(double));
		struct plot_series ser[2];
		struct plot pl;
		char title[256];
		int n_all = 0, n_f = 0;

		if (!x) {
			rc = NPU_ENOMEM;
			goto out;
		}
		for (k = 0; k < s.n_points; k++)
			if (rows[k].has_p) {
				x[n_all] = rows[k].px;
				x[s.n_points + (size_t)n_all] = rows[k].py;
				n_all++;
			}
		/* the front, in order of the first metric */
		for (k = 0; k < s.n_points; k++)
			if (rows[k].front) {
				size_t at = 2 * s.n_points + (size_t)n_f, j;

				for (j = at; j > 2 * s.n_points &&
				     x[j - 1] > rows[k].px; j--) {
					x[j] = x[j - 1];
					x[j + s.n_points] = x[j - 1 + s.n_points];
				}
				x[j] = rows[k].px;
				x[j + s.n_points] = rows[k].py;
				n_f++;
			}
		memset(ser, 0, sizeof(ser));
		ser[0].name = "points";
		ser[0].n = n_all;
		ser[0].x = x;
		ser[0].y = x + s.n_points;
		ser[0].scatter = 1;
		ser[1].name = "Pareto front";
		ser[1].n = n_f;
		ser[1].x = x + 2 * s.n_points;
		ser[1].y = x + 3 * s.n_points;
		memset(&pl, 0, sizeof(pl));
		snprintf(title, sizeof(title), "%s: %s against %s", s.program,
			 s.metrics[pm[1]], s.metrics[pm[0]]);
		pl.title = title;
		pl.xlabel = s.metrics[pm[0]];
		pl.ylabel = s.metrics[pm[1]];
		pl.n_series = 2;
		pl.s = ser;
		if (!(rc = fsout_open(&o, svg, d))) {
			if (plot_svg(o.fp, &pl))
				fsout_abort(&o), rc = NPU_EIO;
			else
				rc = fsout_commit(&o, d);
		}
		free(x);
	}
out:
	for (k = 0; k < s.n_points; k++)
		if (rows[k].m) {
			for (i = 0; i < s.n_metrics; i++)
				free(rows[k].m[i]);
			free(rows[k].m);
		}
	free(rows);
	spec_free(&s);
	if (!rc && failed)
		rc = NPU_EFAULT; /* the CSV is complete; failures are named */
	return rc;
}

/* ---- Slurm ----------------------------------------------------------------------*/

int sweep_slurm_script(const struct spec *s, const char *spec_path,
		       const struct sweep_opts *o, const char *partition,
		       const char *time_limit, int array_limit, char *script,
		       size_t n_script, struct diag *d)
{
	char spec_abs[PATH_MAX], dir_abs[PATH_MAX], self_abs[PATH_MAX], cwd[PATH_MAX];
	struct fsout f;
	int rc;

	if (!realpath(spec_path, spec_abs) || !realpath(o->dir, dir_abs) ||
	    !realpath(o->self, self_abs) || !getcwd(cwd, sizeof(cwd)))
		return diag_error(d, diag_nowhere(), NPU_EIO, "cannot resolve the paths "
				  "of the spec, the directory or npusim: %s", strerror(errno));
	snprintf(script, n_script, "%s/sweep.sbatch", dir_abs);
	if ((rc = fsout_open(&f, script, d)))
		return rc;
	fprintf(f.fp, "#!/bin/sh\n"
		"# npusim sweep %s: %llu points as a Slurm job array (sbatch this file).\n"
		"# Each task runs one point into %s; rerunning the array skips\n"
		"# finished points.  Collect with: npusim sweep --collect %s\n"
		"#SBATCH --job-name=npusim-sweep\n"
		"#SBATCH --array=0-%llu",
		spec_path, (unsigned long long)s->n_points, dir_abs, dir_abs,
		(unsigned long long)s->n_points - 1);
	if (array_limit > 0)
		fprintf(f.fp, "%%%d", array_limit);
	fprintf(f.fp, "\n#SBATCH --output=%s/points/slurm-%%A_%%a.out\n", dir_abs);
	fprintf(f.fp, "#SBATCH --chdir=%s\n", cwd);
	if (partition)
		fprintf(f.fp, "#SBATCH --partition=%s\n", partition);
	if (time_limit)
		fprintf(f.fp, "#SBATCH --time=%s\n", time_limit);
	fprintf(f.fp, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
		"exec %s sweep %s --point \"$SLURM_ARRAY_TASK_ID\" -o %s\n",
		self_abs, spec_abs, dir_abs);
	if ((rc = fsout_commit(&f, d)))
		return rc;
	chmod(script, 0755);
	return 0;
}
