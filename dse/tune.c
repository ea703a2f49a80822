/*
 * tune.c - the schedule autotuner (tune.h).
 *
 * The search space is the product of the kernel's .tunable values.  A
 * candidate is feasible if the kernel assembles with it for the chip (the
 * kernel's .error checks); feasible candidates are simulated timing-only
 * as points of a sweep written into the tuning directory, so every result
 * is cached there (status files) and a rerun simulates nothing it has
 * seen.  Each batch runs with --max-cycles set to the best time so far: a
 * candidate that cannot win stops there (recorded as "no faster than
 * N").
 *
 * The model-guided strategy is a surrogate search in the manner of
 * Bayesian optimisation, with a Shepard (inverse-distance-weighted)
 * interpolation of log(cycles) as the model instead of a Gaussian
 * process: each tunable is a coordinate (log2 of its value, scaled to
 * [0, 1]), the model predicts a candidate from every evaluated one
 * weighted by 1/d^2, and its uncertainty grows with the distance to the
 * nearest evaluated point.  The next batch is the candidates with the
 * lowest prediction minus uncertainty (a lower confidence bound).  Why
 * this model: schedule spaces are small grids on which cycles vary
 * smoothly with log(tile size) except at a few cliffs (SRAM no longer
 * double-buffers, a fold boundary), it needs no fitting of
 * hyperparameters, it is deterministic, and it costs microseconds next
 * to a simulation.
 */
/* realpath */
#define _XOPEN_SOURCE 700

#include "tune.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../arch/arch.h"
#include "../asm/asm.h"
#include "../asm/obj.h"
#include "../report/plot.h"
#include "../util/fsout.h"
#include "spec.h"
#include "sweep.h"
#include "../util/strutil.h"

#define TUNE_MAX_DEFS 512

/* One candidate. */
struct cand {
	int feasible;
	int state;               /* 0 unknown, 1 measured, 2 cut (>= bound) */
	double cycles;           /* measured, or the bound it was cut at */
	double x[SPEC_MAX_PARAMS]; /* coordinates in [0, 1] */
};

struct tuner {
	const struct tune_opts *o;
	struct diag *d;
	struct arch a;
	struct arch_defs cfg;    /* CFG_* defines for assembling */
	struct spec s;           /* the sweep of all candidates */
	char dir[PATH_MAX];
	struct cand *c;
	uint64_t n, n_feasible;
	double best;             /* cycles, 0 = none yet */
	uint64_t best_k;
	uint64_t *order;         /* evaluations in the order made */
	uint64_t n_order;
	uint64_t simulated, cached;
	uint64_t rng;
	int steps[SPEC_MAX_PARAMS]; /* distinct values - 1, per tunable */
	double bound;            /* roofline lower bound (cycles), 0 = none */
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

static int mkdirs(const char *dir)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1;; p++)
		if (*p == '/' || !*p) {
			char c = *p;

			*p = '\0';
			if (mkdir(path, 0777) && errno != EEXIST)
				return -1;
			*p = c;
			if (!c)
				return 0;
		}
}

/* Assemble the kernel with the fixed defines, the chip's CFG_* and
 * extra; 0 and *out, or an error with its first message in err. */
static int assemble(struct tuner *t, const char *const *extra, int n_extra,
		    struct obj_prog **out, char *err, size_t n_err)
{
	const char *defs[TUNE_MAX_DEFS];
	struct asm_opts ao;
	struct diag d;
	char *log = NULL;
	size_t len = 0, i;
	FILE *mem = open_memstream(&log, &len);
	int n = 0, rc;

	if (!mem)
		return NPU_ENOMEM;
	for (i = 0; i < t->cfg.n && n < TUNE_MAX_DEFS - 64; i++)
		defs[n++] = t->cfg.v[i];
	for (i = 0; i < (size_t)t->o->n_defines && n < TUNE_MAX_DEFS - 32; i++)
		defs[n++] = t->o->defines[i];
	for (i = 0; i < (size_t)n_extra && n < TUNE_MAX_DEFS; i++)
		defs[n++] = extra[i];
	memset(&ao, 0, sizeof(ao));
	ao.defines = defs;
	ao.n_defines = (size_t)n;
	diag_init(&d, mem);
	rc = asm_assemble_file(t->o->kernel, &ao, &d, out);
	fclose(mem);
	if (rc && err) {
		const char *e = log ? strstr(log, "error: ") : NULL;

		snprintf(err, n_err, "%.*s", e ? (int)strcspn(e, "\n") : 0, e ? e : "");
	}
	free(log);
	return rc;
}

/* libconfig string: quotes and backslashes escaped. */
static void put_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void put_list(FILE *fp, const char *key, const char *const *v, int n)
{
	int i;

	fprintf(fp, "%s = [", key);
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : " ", fp);
		put_str(fp, v[i]);
	}
	fputs(n ? " ];\n" : "];\n", fp);
}

/* 1 if a fixed -D names this tunable. */
static int pinned(const struct tuner *t, const char *name)
{
	size_t l = strlen(name);
	int k;

	for (k = 0; k < t->o->n_defines; k++)
		if (!strncmp(t->o->defines[k], name, l) &&
		    (t->o->defines[k][l] == '=' || !t->o->defines[k][l]))
			return 1;
	return 0;
}

/*
 * The cache directory of a kernel (absolute path kabs, its text) with
 * fixed defines and inputs on chip a: $NPUSIM_CACHE/tune/HASH, or
 * ~/.cache/npusim/tune/HASH, the hash over the resolved config, the
 * kernel's path and text and the fixed arguments in order.
 */
static void cache_dir(const struct arch *a, const char *kabs, const char *text,
		      const char *const *defines, int n_defines,
		      const char *const *inputs, int n_inputs, char *dir,
		      size_t n)
{
	uint64_t h = arch_hash(a);
	const char *c = getenv("NPUSIM_CACHE"), *home = getenv("HOME");
	int i;

	h = fnv(h, kabs, strlen(kabs));
	h = fnv(h, text, strlen(text));
	for (i = 0; i < n_defines; i++)
		h = fnv(h, defines[i], strlen(defines[i]) + 1);
	for (i = 0; i < n_inputs; i++)
		h = fnv(h, inputs[i], strlen(inputs[i]) + 1);
	if (c && *c)
		snprintf(dir, n, "%s/tune/%016llx", c, (unsigned long long)h);
	else
		snprintf(dir, n, "%s/.cache/npusim/tune/%016llx",
			 home && *home ? home : "/tmp", (unsigned long long)h);
}

int tune_cached_best(const struct arch *a, const char *kernel,
		     const char *const *defines, int n_defines, char *out,
		     size_t n)
{
	char kabs[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 16], text2[400];
	char *text;
	struct spec s;
	struct diag quiet;
	uint64_t k, best_k = 0;
	double best = 0;
	int found = 0;

	if (!realpath(kernel, kabs) || !(text = str_read_file(kabs, NULL)))
		return 0;
	cache_dir(a, kabs, text, defines, n_defines, NULL, 0, dir, sizeof(dir));
	free(text);
	snprintf(path, sizeof(path), "%s/tune.sweep", dir);
	if (access(path, R_OK))
		return 0;
	diag_init(&quiet, NULL);
	if (spec_load(&s, path, &quiet))
		return 0;
	for (k = 0; k < s.n_points; k++) {
		double v = 0;

		if (sweep_point(dir, k, "cycles", &v, text2, sizeof(text2)) == 1 &&
		    (!found || v < best)) {
			best = v;
			best_k = k;
			found = 1;
		}
	}
	if (found) {
		struct spec_point pt;
		size_t len = 0;
		int i;

		spec_point(&s, best_k, &pt);
		out[0] = '\0';
		for (i = 0; i < s.n_params && len < n; i++)
			len += (size_t)snprintf(out + len, n - len, "%s=%s\n",
						s.p[i].name, spec_value(&s, &pt, i));
		if (len >= n)
			found = 0;
	}
	spec_free(&s);
	return found;
}

/* The tuning directory and its sweep spec. */
static int write_spec(struct tuner *t, const struct obj_prog *p,
		      const char *kernel_abs, const char *config_abs)
{
	char path[PATH_MAX + 16];
	struct fsout f;
	size_t i, j;
	int rc;

	snprintf(path, sizeof(path), "%s/tune.sweep", t->dir);
	if ((rc = fsout_open(&f, path, t->d)))
		return rc;
	fprintf(f.fp, "# npusim tune: the schedules of %s (generated)\n", t->o->kernel);
	if (config_abs) {
		fputs("config = ", f.fp);
		put_str(f.fp, config_abs);
		fputs(";\n", f.fp);
	}
	fputs("program = ", f.fp);
	put_str(f.fp, kernel_abs);
	fputs(";\n", f.fp);
	put_list(f.fp, "set", t->o->sets, t->o->n_sets);
	put_list(f.fp, "defines", t->o->defines, t->o->n_defines);
	put_list(f.fp, "inputs", t->o->inputs, t->o->n_inputs);
	fputs("timing_only = true;\nmetrics = [ \"cycles\" ];\nparams = (\n", f.fp);
	for (i = 0, j = 0; i < p->n_tunables; i++) {
		const struct obj_tunable *tu = &p->tunables[i];
		size_t v;

		/* a fixed -D NAME=V pins the tunable: not a dimension */
		if (pinned(t, tu->name))
			continue;
		fprintf(f.fp, "%s  { name = \"%s\"; define = true; values = [ ",
			j++ ? ",\n" : "", tu->name);
		for (v = 0; v < tu->n_values; v++)
			fprintf(f.fp, "%s%lld", v ? ", " : "", (long long)tu->values[v]);
		fputs(" ]; }", f.fp);
	}
	fputs(j ? "\n" : "", f.fp);
	fputs(");\n", f.fp);
	return fsout_commit(&f, t->d);
}

static uint64_t rnd(struct tuner *t)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return t->rng;
}

/* What a point's cached result says; fills c. */
static int read_point(struct tuner *t, uint64_t k)
{
	char text[400];
	double v = 0;
	int st = sweep_point(t->dir, k, "cycles", &v, text, sizeof(text));
	struct cand *c = &t->c[k];

	if (st == 1) {
		c->state = 1;
		c->cycles = v;
	} else if (st == 3 && strstr(text, "cycle limit")) {
		/* cut by --max-cycles: "failed 3 ... cycle limit N reached" */
		const char *p = strstr(text, "cycle limit ");

		c->state = 2;
		c->cycles = p ? strtod(p + 12, NULL) + 1 : 0;
	} else if (st == 3) {
		c->feasible = 0; /* it fails when run: say so, never pick it */
		if (!t->o->quiet)
			fprintf(stderr, "npusim tune: point %llu %s\n",
				(unsigned long long)k, text);
	}
	if (c->state == 1 && (t->best == 0 || c->cycles < t->best)) {
		t->best = c->cycles;
		t->best_k = k;
	}
	return st;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Simulate the candidates of batch that have no cached result, with the
 * best time so far as their cycle limit, then read every one of them. */
static int evaluate(struct tuner *t, uint64_t *batch, uint64_t n)
{
	struct sweep_opts so;
	struct sweep_counts cnt;
	uint64_t i;
	int rc;

	if (!n)
		return 0;
	qsort(batch, (size_t)n, sizeof(*batch), cmp_u64);
	memset(&so, 0, sizeof(so));
	so.dir = t->dir;
	so.self = t->o->self;
	so.jobs = t->o->jobs > 0 ? t->o->jobs : 1;
	so.point = -1;
	so.shard_n = 1;
	so.only = batch;
	so.n_only = (size_t)n;
	/*
	 * The cut: exhaustive and random search need only know that a
	 * candidate lost (the best so far); the model needs real values near
	 * the optimum to find its slope - a censored "no faster than the
	 * best" everywhere is a flat landscape - so it cuts only candidates
	 * twice as slow as the best.
	 */
	t->s.max_cycles = t->best > 0 ?
		(uint64_t)(t->best * (t->o->strategy == TUNE_MODEL ? 2 : 1)) : 0;
	if ((rc = sweep_run(&t->s, &so, &cnt, t->d)))
		return rc;
	t->simulated += cnt.ok + cnt.failed;
	t->cached += cnt.already;
	for (i = 0; i < n; i++) {
		read_point(t, batch[i]);
		t->order[t->n_order++] = batch[i];
	}
	return 0;
}

/* Shepard prediction of log(cycles) at candidate k and its uncertainty
 * (distance to the nearest measured point x the spread of the data). */
static void predict(const struct tuner *t, uint64_t k, double *mean, double *unc)
{
	double wsum = 0, vsum = 0, dmin = 1e30, lo = 1e30, hi = -1e30;
	uint64_t j;
	int p;

	for (j = 0; j < t->n; j++) {
		const struct cand *c = &t->c[j];
		double dd = 0, y, w;

		if (!c->state)
			continue;
		y = log(c->cycles);
		if (y < lo)
			lo = y;
		if (y > hi)
			hi = y;
		for (p = 0; p < t->s.n_params; p++)
			dd += (t->c[k].x[p] - c->x[p]) * (t->c[k].x[p] - c->x[p]);
		if (dd < dmin)
			dmin = dd;
		w = 1.0 / (dd + 1e-12);
		wsum += w;
		vsum += w * y;
	}
	*mean = wsum > 0 ? vsum / wsum : 0;
	*unc = sqrt(dmin) * (hi > lo ? hi - lo : 1.0);
}

/*
 * The trust region of the model search: how many steps (in each
 * tunable's list of values, the largest over the tunables) candidate k
 * is from the best schedule so far, minus one - 0 for its neighbours.
 * The search ranks candidates by the model only within the smallest
 * region that still holds unevaluated ones, and widens it when it is
 * exhausted (trust-region Bayesian optimisation, as TuRBO does: a global
 * surrogate with distance-based uncertainty otherwise spends a small
 * budget on the corners of the space).
 */
static double region(const struct tuner *t, uint64_t k)
{
	int p, r = 0;

	if (t->best <= 0)
		return 0;
	for (p = 0; p < t->s.n_params; p++) {
		int d = (int)lround(fabs(t->c[k].x[p] - t->c[t->best_k].x[p]) *
				    t->steps[p]);

		if (d > r)
			r = d;
	}
	return r > 0 ? r - 1 : 0;
}

/* The next batch: up to want unevaluated feasible candidates. */
static uint64_t pick(struct tuner *t, uint64_t *batch, uint64_t want)
{
	uint64_t n = 0, k;
	double *score;

	if (!want)
		return 0;
	score = malloc((size_t)t->n * sizeof(*score));
	if (!score)
		return 0;
	for (k = 0; k < t->n; k++) {
		double m, u;

		score[k] = HUGE_VAL;
		if (!t->c[k].feasible || t->c[k].state)
			continue;
		if (t->o->strategy == TUNE_MODEL) {
			predict(t, k, &m, &u);
			score[k] = m - u;
			/* outside the trust region for now: after every
			 * candidate inside it (see region()) */
			score[k] += 1e6 * region(t, k);
		} else if (t->o->strategy == TUNE_RANDOM) {
			score[k] = (double)(rnd(t) >> 11);
		} else {
			score[k] = (double)k;
		}
	}
	while (n < want) {
		uint64_t b = UINT64_MAX;

		for (k = 0; k < t->n; k++)
			if (score[k] < HUGE_VAL && (b == UINT64_MAX || score[k] < score[b]))
				b = k;
		if (b == UINT64_MAX)
			break;
		score[b] = HUGE_VAL;
		batch[n++] = b;
	}
	free(score);
	return n;
}

/*
 * Coordinates: each tunable's value as its rank among the tunable's
 * distinct values, scaled to [0, 1].  For the usual power-of-two lists
 * this is log2 of the value; a special value such as 0 ("as many as
 * fit") sits next to its neighbours instead of infinitely far away.
 */
static void coords(struct tuner *t)
{
	uint64_t k;
	int p;

	for (k = 0; k < t->n; k++) {
		struct spec_point pt;

		spec_point(&t->s, k, &pt);
		for (p = 0; p < t->s.n_params; p++) {
			const struct spec_param *sp = &t->s.p[p];
			double v = strtod(spec_value(&t->s, &pt, p), NULL);
			int j, below = 0, distinct = 0;

			for (j = 0; j < sp->n_values; j++) {
				double w = strtod(sp->values[j], NULL);
				int l, seen = 0;

				for (l = 0; l < j; l++)
					if (strtod(sp->values[l], NULL) == w)
						seen = 1;
				if (seen)
					continue;
				distinct++;
				if (w < v)
					below++;
			}
			t->c[k].x[p] = distinct > 1 ? (double)below / (distinct - 1) : 0;
			t->steps[p] = distinct - 1;
		}
	}
}

/*
 * The model's start: the unevaluated feasible candidate farthest from
 * every evaluated one (maximin distance; ties to the lowest index, so the
 * start is deterministic).  It spreads the first samples over the space
 * - the corners first - so the model interpolates instead of extrapolating.
 */
static uint64_t farthest(const struct tuner *t)
{
	uint64_t k, j, b = UINT64_MAX;
	double bd = -1;

	for (k = 0; k < t->n; k++) {
		double dmin = 1e30;

		if (!t->c[k].feasible || t->c[k].state)
			continue;
		for (j = 0; j < t->n; j++) {
			double dd = 0;
			int p;

			if (!t->c[j].state)
				continue;
			for (p = 0; p < t->s.n_params; p++)
				dd += (t->c[k].x[p] - t->c[j].x[p]) * (t->c[k].x[p] - t->c[j].x[p]);
			if (dd < dmin)
				dmin = dd;
		}
		if (dmin > bd) {
			bd = dmin;
			b = k;
		}
	}
	return b;
}

static void print_point(const struct tuner *t, uint64_t k, FILE *fp)
{
	struct spec_point pt;
	int p;

	spec_point(&t->s, k, &pt);
	for (p = 0; p < t->s.n_params; p++)
		fprintf(fp, "%s-D %s=%s", p ? " " : "", t->s.p[p].name,
			spec_value(&t->s, &pt, p));
}

static int write_curve(struct tuner *t)
{
	char csv[PATH_MAX + 16], svg[PATH_MAX + 16];
	struct fsout f;
	double *x, *y, best = 0;
	uint64_t i;
	int rc;

	snprintf(csv, sizeof(csv), "%s/curve.csv", t->dir);
	snprintf(svg, sizeof(svg), "%s/curve.svg", t->dir);
	x = calloc((size_t)t->n_order + 1, sizeof(*x));
	y = calloc((size_t)t->n_order + 1, sizeof(*y));
	if (!x || !y) {
		free(x);
		free(y);
		return NPU_ENOMEM;
	}
	if ((rc = fsout_open(&f, t->o->curve_csv ? t->o->curve_csv : csv, t->d)))
		goto out;
	fputs("evaluation,point,cycles,best\n", f.fp);
	for (i = 0; i < t->n_order; i++) {
		const struct cand *c = &t->c[t->order[i]];

		if (c->state == 1 && (best == 0 || c->cycles < best))
			best = c->cycles;
		fprintf(f.fp, "%llu,%llu,%s%.0f,%.0f\n", (unsigned long long)i + 1,
			(unsigned long long)t->order[i], c->state == 2 ? ">=" : "",
			c->cycles, best);
		x[i] = (double)(i + 1);
		y[i] = best;
	}
	if ((rc = fsout_commit(&f, t->d)))
		goto out;
	{
		struct plot_series ser;
		struct plot pl;
		char title[256];

		memset(&ser, 0, sizeof(ser));
		ser.name = "best so far";
		ser.n = (int)t->n_order;
		ser.x = x;
		ser.y = y;
		memset(&pl, 0, sizeof(pl));
		snprintf(title, sizeof(title), "npusim tune %s: best cycles against simulations",
			 t->o->kernel);
		pl.title = title;
		pl.xlabel = "simulations";
		pl.ylabel = "cycles";
		pl.n_series = 1;
		pl.s = &ser;
		if ((rc = fsout_open(&f, t->o->curve_svg ? t->o->curve_svg : svg, t->d)))
			goto out;
		if (plot_svg(f.fp, &pl)) {
			fsout_abort(&f);
			rc = NPU_EIO;
		} else {
			rc = fsout_commit(&f, t->d);
		}
	}
out:
	free(x);
	free(y);
	return rc;
}

int tune_run(const struct tune_opts *o, struct diag *d)
{
	struct tuner t;
	struct obj_prog *p = NULL;
	char err[300], kabs[PATH_MAX], cabs[PATH_MAX], path[PATH_MAX + 16];
	char *text = NULL;
	uint64_t k, budget, def_k = UINT64_MAX, *batch = NULL;
	int rc, i, jobs = o->jobs > 0 ? o->jobs : 1;

	memset(&t, 0, sizeof(t));
	t.o = o;
	t.d = d;
	t.rng = o->seed ? o->seed : 0x9e3779b97f4a7c15ULL;
	if ((rc = arch_load(&t.a, o->config, o->sets, o->n_sets, d)))
		return rc;
	if ((rc = arch_asm_defines(&t.a, &t.cfg)))
		goto out;
	if (!realpath(o->kernel, kabs) || !(text = str_read_file(kabs, NULL))) {
		rc = diag_error(d, diag_nowhere(), NPU_EIO, "%s: cannot read: %s",
				o->kernel, strerror(errno));
		goto out;
	}
	if (o->config && !realpath(o->config, cabs)) {
		rc = diag_error(d, diag_nowhere(), NPU_EIO, "%s: %s", o->config, strerror(errno));
		goto out;
	}
	/* the tunables, from the kernel assembled with its defaults */
	if (assemble(&t, NULL, 0, &p, err, sizeof(err))) {
		rc = diag_error(d, diag_nowhere(), NPU_EASM, "%s does not assemble for this chip "
				"with its default schedule: %s", o->kernel, err);
		goto out;
	}
	if (!p->n_tunables) {
		rc = diag_error(d, diag_nowhere(), NPU_EUSAGE, "%s declares no .tunable "
				"parameters: nothing to tune (docs/dse.md)", o->kernel);
		goto out;
	}
	/*
	 * The roofline lower bound of every schedule: the DRAM tensors'
	 * bytes, each moved once, at the DRAM peak (a schedule may move more,
	 * never less).  A best time at the bound cannot be beaten: the search
	 * stops there.
	 */
	{
		double bytes = 0, bps = ARCH_PEAK(&t.a, DRAM_BYTES_PER_S), hz = arch_clock_hz(&t.a);
		size_t j;

		for (j = 0; j < p->n_tensors; j++) {
			const struct obj_tensor *tn = &p->tensors[j];
			double n = 1;
			int r;

			if (tn->mem != OBJ_MEM_DRAM)
				continue;
			for (r = 0; r < tn->rank; r++)
				n *= (double)tn->shape[r];
			bytes += n * dtype_bits(tn->dtype) / 8.0;
		}
		t.bound = bps > 0 && hz > 0 ? bytes / bps * hz : 0;
	}
	/* the cache key: config, kernel (path and text), fixed arguments */
	if (o->dir)
		snprintf(t.dir, sizeof(t.dir), "%s", o->dir);
	else
		cache_dir(&t.a, kabs, text, o->defines, o->n_defines, o->inputs,
			  o->n_inputs, t.dir, sizeof(t.dir));
	if (mkdirs(t.dir)) {
		rc = diag_error(d, diag_nowhere(), NPU_EIO, "%s: cannot create: %s", t.dir,
				strerror(errno));
		goto out;
	}
	if ((rc = write_spec(&t, p, kabs, o->config ? cabs : NULL)))
		goto out;
	snprintf(path, sizeof(path), "%s/tune.sweep", t.dir);
	if ((rc = spec_load(&t.s, path, d)))
		goto out;
	t.n = t.s.n_points;
	t.c = calloc((size_t)t.n, sizeof(*t.c));
	t.order = calloc((size_t)t.n + 1, sizeof(*t.order));
	batch = calloc((size_t)t.n + 1, sizeof(*batch));
	if (!t.c || !t.order || !batch) {
		rc = NPU_ENOMEM;
		goto out;
	}
	/* feasibility: the kernel's own checks, at assembly, for the chip */
	for (k = 0; k < t.n; k++) {
		char defs[SPEC_MAX_PARAMS][96];
		const char *dv[SPEC_MAX_PARAMS];
		struct spec_point pt;
		struct obj_prog *q = NULL;
		int same = 1;
		size_t j;

		spec_point(&t.s, k, &pt);
		for (i = 0; i < t.s.n_params; i++) {
			snprintf(defs[i], sizeof(defs[i]), "%s=%s", t.s.p[i].name,
				 spec_value(&t.s, &pt, i));
			dv[i] = defs[i];
			for (j = 0; j < p->n_tunables; j++)
				if (!strcmp(p->tunables[j].name, t.s.p[i].name) &&
				    strtoll(spec_value(&t.s, &pt, i), NULL, 0) !=
				    p->tunables[j].values[0])
					same = 0;
		}
		t.c[k].feasible = assemble(&t, dv, t.s.n_params, &q, NULL, 0) == 0;
		obj_free(q);
		t.n_feasible += (uint64_t)t.c[k].feasible;
		if (same)
			def_k = k;
	}
	coords(&t);
	if (!t.n_feasible) {
		rc = diag_error(d, diag_nowhere(), NPU_EUSAGE, "no schedule of %s fits this chip",
				o->kernel);
		goto out;
	}
	budget = o->budget > 0 ? (uint64_t)o->budget
		: o->strategy == TUNE_EXHAUSTIVE ? t.n_feasible
		: (uint64_t)ceil(0.2 * (double)t.n_feasible);
	if (budget > t.n_feasible)
		budget = t.n_feasible;
	if (budget < 1)
		budget = 1;
	/* what the cache already knows costs nothing: every result there */
	for (k = 0; k < t.n; k++)
		if (t.c[k].feasible && read_point(&t, k) && t.c[k].state) {
			t.order[t.n_order++] = k;
			t.cached++;
		}
	/* the kernel's defaults first: the baseline, and a bound for the rest */
	if (def_k != UINT64_MAX && t.c[def_k].feasible && !t.c[def_k].state) {
		batch[0] = def_k;
		if ((rc = evaluate(&t, batch, 1)))
			goto out;
	}
	/* model: without a default to start from, a spread-out start
	 * (maximin); then the model's picks around the best so far */
	if (o->strategy == TUNE_MODEL && t.best == 0) {
		uint64_t n0 = (uint64_t)jobs > 2 ? (uint64_t)jobs : 2, n;

		if (n0 + t.n_order > budget)
			n0 = budget > t.n_order ? budget - t.n_order : 0;
		for (n = 0; n < n0; n++) {
			uint64_t c = farthest(&t);

			if (c == UINT64_MAX)
				break;
			batch[0] = c;
			if ((rc = evaluate(&t, batch, 1)))
				goto out;
		}
	}
	while (t.n_order < budget && !(t.best > 0 && t.best <= t.bound)) {
		uint64_t want = budget - t.n_order, n;

		if (want > (uint64_t)jobs)
			want = (uint64_t)jobs;
		n = pick(&t, batch, want);
		if (!n)
			break;
		if ((rc = evaluate(&t, batch, n)))
			goto out;
	}
	if ((rc = write_curve(&t)))
		goto out;
	if (t.best == 0) {
		rc = diag_error(d, diag_nowhere(), NPU_EFAULT, "no schedule of %s ran to the end",
				o->kernel);
		goto out;
	}
	if (o->quiet > 1)       /* a caller that reports on its own */
		goto out;
	printf("best: ");
	print_point(&t, t.best_k, stdout);
	printf(": %.0f cycles\n", t.best);
	if (t.bound > 0)
		printf("roofline bound: %.0f cycles (the DRAM tensors moved once at the DRAM peak); the best takes %.2fx that%s\n",
		       t.bound, t.best / t.bound,
		       t.best <= t.bound ? ": the search stopped there" : "");
	if (def_k != UINT64_MAX && t.c[def_k].state == 1) {
		printf("default: ");
		print_point(&t, def_k, stdout);
		printf(": %.0f cycles (best is %.2fx faster)\n", t.c[def_k].cycles,
		       t.c[def_k].cycles / t.best);
	}
	printf("space: %llu schedules, %llu feasible; %llu evaluated (%llu simulated, "
	       "%llu cached) by %s search\n", (unsigned long long)t.n,
	       (unsigned long long)t.n_feasible, (unsigned long long)t.n_order,
	       (unsigned long long)t.simulated, (unsigned long long)t.cached,
	       o->strategy == TUNE_EXHAUSTIVE ? "exhaustive"
	       : o->strategy == TUNE_RANDOM ? "random" : "model-guided");
	printf("results: %s (curve.csv, curve.svg, points/)\n", t.dir);
out:
	free(batch);
	free(t.order);
	free(t.c);
	if (t.s.path)
		spec_free(&t.s);
	obj_free(p);
	free(text);
	arch_defs_free(&t.cfg);
	arch_free(&t.a);
	return rc;
}

int tune_layer_schedule(void *ctx, const char *kernel,
			const char *const *defines, int n_defines,
			const char *layer, char *best, size_t n,
			struct diag *d)
{
	const struct tune_layer_ctx *t = ctx;
	const char *base = strrchr(kernel, '/');
	int rc = 0;

	if (t->search && !tune_cached_best(t->a, kernel, defines, n_defines,
					   best, n)) {
		struct tune_opts to;

		memset(&to, 0, sizeof to);
		to.config = t->config;
		to.sets = t->sets;
		to.n_sets = t->n_sets;
		to.defines = defines;
		to.n_defines = n_defines;
		to.kernel = kernel;
		to.strategy = TUNE_MODEL;
		to.seed = 1;
		to.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
		to.self = t->self;
		to.quiet = t->quiet ? 2 : 1;
		if (!t->quiet)
			fprintf(stderr, "npusim model: tuning layer '%s' (%s)\n",
				layer, base ? base + 1 : kernel);
		rc = tune_run(&to, d);
	}
	if (rc)
		return rc;
	return t->use && tune_cached_best(t->a, kernel, defines, n_defines,
					   best, n);
}
