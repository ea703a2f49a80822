/*
 * spec.c - loading sweep specs and enumerating their points (spec.h,
 * docs/dse.md has the format).
 */
#include "spec.h"

#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/arch.h"
#include "expr.h"
#include "../util/strutil.h"

static int fail(struct diag *d, const char *path, int line, const char *fmt,
		const char *a, const char *b)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, a ? a : "", b ? b : "");
	return diag_error(d, diag_at_file(path, line, 0), NPU_ECONFIG, "%s", msg);
}

/* A setting's scalar as text ("32", "0.5", "ws", "true"); NULL if not a
 * scalar. */
static char *scalar_text(const config_setting_t *e)
{
	char buf[64];

	switch (config_setting_type(e)) {
	case CONFIG_TYPE_INT:
		snprintf(buf, sizeof(buf), "%d", config_setting_get_int(e));
		break;
	case CONFIG_TYPE_INT64:
		snprintf(buf, sizeof(buf), "%lld", config_setting_get_int64(e));
		break;
	case CONFIG_TYPE_FLOAT:
		snprintf(buf, sizeof(buf), "%.17g", config_setting_get_float(e));
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, sizeof(buf), "%s", config_setting_get_bool(e) ? "true" : "false");
		break;
	case CONFIG_TYPE_STRING:
		return str_dup(config_setting_get_string(e));
	default:
		return NULL;
	}
	return str_dup(buf);
}

static double num(const config_setting_t *e)
{
	return config_setting_type(e) == CONFIG_TYPE_FLOAT ? config_setting_get_float(e)
		: (double)config_setting_get_int64(e);
}

/* A list of strings at name (absent = none). */
static int str_list(config_t *cf, const char *name, char ***out, int *n,
		    int **lines, struct diag *d, const char *path)
{
	config_setting_t *l = config_lookup(cf, name);
	int i, len;

	*out = NULL;
	*n = 0;
	if (!l)
		return 0;
	if (!config_setting_is_aggregate(l))
		return fail(d, path, config_setting_source_line(l),
			    "'%s' must be a list of strings, e.g. [\"a\", \"b\"]", name, NULL);
	len = config_setting_length(l);
	*out = calloc((size_t)len + 1, sizeof(char *));
	if (lines)
		*lines = calloc((size_t)len + 1, sizeof(int));
	if (!*out || (lines && !*lines))
		return NPU_ENOMEM;
	for (i = 0; i < len; i++) {
		config_setting_t *e = config_setting_get_elem(l, (unsigned)i);

		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return fail(d, path, config_setting_source_line(e),
				    "'%s' must hold strings only", name, NULL);
		if (!((*out)[i] = str_dup(config_setting_get_string(e))))
			return NPU_ENOMEM;
		if (lines)
			(*lines)[i] = config_setting_source_line(e);
		(*n)++;
	}
	return 0;
}

/* Values of one parameter from values / range / log2 / geom. */
static int param_values(struct spec_param *p, config_setting_t *g,
			struct diag *d, const char *path)
{
	config_setting_t *v = config_setting_get_member(g, "values");
	config_setting_t *r = config_setting_get_member(g, "range");
	config_setting_t *l2 = config_setting_get_member(g, "log2");
	config_setting_t *gm = config_setting_get_member(g, "geom");
	int forms = !!v + !!r + !!l2 + !!gm, i;
	char buf[64];

	if (forms != 1)
		return fail(d, path, p->line, "parameter '%s' needs exactly one of "
			    "values = [...], range = [lo, hi(, step)], log2 = [lo, hi] "
			    "or geom = [lo, hi, factor]", p->name, NULL);
	if (v) {
		int n = config_setting_length(v);

		if (!config_setting_is_aggregate(v) || n < 1)
			return fail(d, path, config_setting_source_line(v),
				    "parameter '%s': values must be a non-empty list", p->name, NULL);
		p->values = calloc((size_t)n, sizeof(char *));
		if (!p->values)
			return NPU_ENOMEM;
		for (i = 0; i < n; i++) {
			char *t = scalar_text(config_setting_get_elem(v, (unsigned)i));

			if (!t)
				return fail(d, path, config_setting_source_line(v),
					    "parameter '%s': values must be numbers, "
					    "strings or booleans", p->name, NULL);
			p->values[p->n_values++] = t;
		}
		return 0;
	}
	{
		config_setting_t *a = r ? r : l2 ? l2 : gm;
		int n = config_setting_length(a), want = gm ? 3 : l2 ? 2 : -1, k;
		double lo, hi, step;

		if (!config_setting_is_aggregate(a) || (want > 0 && n != want) ||
		    (want < 0 && (n < 2 || n > 3)))
			return fail(d, path, config_setting_source_line(a),
				    "parameter '%s': %s", p->name,
				    r ? "range = [lo, hi] or [lo, hi, step]"
				      : l2 ? "log2 = [lo, hi] (powers of two)"
					   : "geom = [lo, hi, factor]");
		lo = num(config_setting_get_elem(a, 0));
		hi = num(config_setting_get_elem(a, 1));
		step = n == 3 ? num(config_setting_get_elem(a, 2)) : r ? 1 : 2;
		if ((r && step <= 0) || (!r && (step <= 1 || lo <= 0)) || hi < lo)
			return fail(d, path, config_setting_source_line(a),
				    "parameter '%s': the %s is empty or never ends "
				    "(lo <= hi, a positive step, a factor > 1 from lo > 0)",
				    p->name, r ? "range" : "sequence");
		for (k = 0;; k++) {
			double x = r ? lo + k * step : lo * pow(step, k);

			if (x > hi * (1 + 1e-12))
				break;
			if (k >= 100000)
				return fail(d, path, config_setting_source_line(a),
					    "parameter '%s' has more than 100000 values", p->name, NULL);
			if (!(p->values = realloc(p->values, (size_t)(k + 1) * sizeof(char *))))
				return NPU_ENOMEM;
			if (x == floor(x) && fabs(x) < 9e15)
				snprintf(buf, sizeof(buf), "%.0f", x);
			else
				snprintf(buf, sizeof(buf), "%.17g", x);
			if (!(p->values[k] = str_dup(buf)))
				return NPU_ENOMEM;
			p->n_values = k + 1;
		}
	}
	return 0;
}

static int load_params(struct spec *s, config_t *cf, struct diag *d)
{
	config_setting_t *l = config_lookup(cf, "params");
	char *zip[SPEC_MAX_PARAMS] = { 0 }; /* each parameter's zip group */
	int i, j, n, rc = 0;

	if (!l)
		return 0;
	n = config_setting_length(l);
	if (!config_setting_is_list(l) && !config_setting_is_array(l) && n)
		return fail(d, s->path, config_setting_source_line(l),
			    "params must be a list of groups: ( { name = ...; values = [...]; }, ... )",
			    NULL, NULL);
	if (n > SPEC_MAX_PARAMS)
		return fail(d, s->path, config_setting_source_line(l),
			    "at most 32 parameters", NULL, NULL);
	for (i = 0; i < n && !rc; i++) {
		config_setting_t *g = config_setting_get_elem(l, (unsigned)i);
		struct spec_param *p = &s->p[i];
		const char *name = NULL, *z = NULL;
		int def = 0;

		p->line = config_setting_source_line(g);
		if (!config_setting_is_group(g) ||
		    !config_setting_lookup_string(g, "name", &name)) {
			rc = fail(d, s->path, p->line,
				  "each parameter is a group with name = \"...\"", NULL, NULL);
			break;
		}
		if (!(p->name = str_dup(name))) {
			rc = NPU_ENOMEM;
			break;
		}
		s->n_params++;
		config_setting_lookup_bool(g, "define", &def);
		p->define = def;
		if (!def && arch_find_key(name) < 0) {
			rc = fail(d, s->path, p->line,
				  "'%s' is not a config key (npusim config --keys lists them; "
				  "a kernel parameter needs define = true)", name, NULL);
			break;
		}
		if ((rc = param_values(p, g, d, s->path)))
			break;
		if (config_setting_lookup_string(g, "zip", &z) && !(zip[i] = str_dup(z))) {
			rc = NPU_ENOMEM;
			break;
		}
		/* its dimension: that of an earlier member of its zip group */
		p->dim = -1;
		for (j = 0; j < i && zip[i]; j++)
			if (zip[j] && !strcmp(zip[i], zip[j])) {
				p->dim = s->p[j].dim;
				if (s->p[j].n_values != p->n_values) {
					char a[96];

					snprintf(a, sizeof(a), "%s' has %d values, '%s' %d",
						 p->name, p->n_values, s->p[j].name,
						 s->p[j].n_values);
					rc = fail(d, s->path, p->line,
						  "zip group '%s': '%s", z, a);
				}
				break;
			}
		if (!rc && p->dim < 0) {
			p->dim = s->n_dims;
			s->dim_len[s->n_dims++] = p->n_values;
		}
	}
	for (i = 0; i < n; i++)
		free(zip[i]);
	return rc;
}

int spec_load(struct spec *s, const char *path, struct diag *d)
{
	config_t cf;
	const char *str;
	long long mc = 0;
	int rc, i;

	memset(s, 0, sizeof(*s));
	config_init(&cf);
	rc = NPU_ENOMEM;
	if (!(s->path = str_dup(path)))
		goto out;
	if (config_read_file(&cf, path) != CONFIG_TRUE) {
		rc = config_error_type(&cf) == CONFIG_ERR_FILE_IO
			? diag_error(d, diag_nowhere(), NPU_EIO, "%s: cannot read the sweep spec", path)
			: diag_error(d, diag_at_file(path, config_error_line(&cf), 0),
				     NPU_ECONFIG, "%s", config_error_text(&cf));
		goto out;
	}
	rc = NPU_ENOMEM;
	if (config_lookup_string(&cf, "config", &str) && !(s->config = str_dup(str)))
		goto out;
	if (!config_lookup_string(&cf, "program", &str)) {
		rc = fail(d, path, 1, "the spec needs program = \"file.s\" (the workload)",
			  NULL, NULL);
		goto out;
	}
	if (!(s->program = str_dup(str)))
		goto out;
	if (config_lookup_int64(&cf, "max_cycles", &mc) && mc > 0)
		s->max_cycles = (uint64_t)mc;
	config_lookup_bool(&cf, "timing_only", &s->timing_only);
	if ((rc = str_list(&cf, "set", &s->set, &s->n_set, NULL, d, path)) ||
	    (rc = str_list(&cf, "defines", &s->defines, &s->n_defines, NULL, d, path)) ||
	    (rc = str_list(&cf, "inputs", &s->inputs, &s->n_inputs, NULL, d, path)) ||
	    (rc = str_list(&cf, "constraints", &s->constraints, &s->n_constraints,
			   &s->constraint_line, d, path)) ||
	    (rc = str_list(&cf, "metrics", &s->metrics, &s->n_metrics, NULL, d, path)) ||
	    (rc = load_params(s, &cf, d)))
		goto out;
	s->n_points = 1;
	for (i = 0; i < s->n_dims; i++) {
		if (s->n_points > (1ULL << 40) / (uint64_t)s->dim_len[i]) {
			rc = fail(d, path, 1, "more than 2^40 points", NULL, NULL);
			goto out;
		}
		s->n_points *= (uint64_t)s->dim_len[i];
	}
	rc = 0;
out:
	config_destroy(&cf);
	if (rc)
		spec_free(s); /* a failed load leaves nothing behind */
	return rc;
}

static void free_list(char **v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void spec_free(struct spec *s)
{
	int i;

	free(s->path);
	free(s->config);
	free(s->program);
	free_list(s->set, s->n_set);
	free_list(s->defines, s->n_defines);
	free_list(s->inputs, s->n_inputs);
	free_list(s->constraints, s->n_constraints);
	free(s->constraint_line);
	free_list(s->metrics, s->n_metrics);
	for (i = 0; i < s->n_params; i++) {
		free(s->p[i].name);
		free_list(s->p[i].values, s->p[i].n_values);
	}
	memset(s, 0, sizeof(*s));
}

void spec_point(const struct spec *s, uint64_t k, struct spec_point *pt)
{
	uint64_t rest = k;
	int dix[SPEC_MAX_PARAMS], i;

	pt->k = k;
	/* the last dimension varies fastest */
	for (i = s->n_dims - 1; i >= 0; i--) {
		dix[i] = (int)(rest % (uint64_t)s->dim_len[i]);
		rest /= (uint64_t)s->dim_len[i];
	}
	for (i = 0; i < s->n_params; i++)
		pt->idx[i] = dix[s->p[i].dim];
}

const char *spec_value(const struct spec *s, const struct spec_point *pt, int i)
{
	return s->p[i].values[pt->idx[i]];
}

struct look {
	const struct spec *s;
	const struct spec_point *pt;
	const struct arch *a;
};

static int lookup(void *ctx, const char *name, size_t len, double *out)
{
	const struct look *l = ctx;
	char key[128];
	int i, id;

	if (len >= sizeof(key))
		return -1;
	memcpy(key, name, len);
	key[len] = '\0';
	for (i = 0; i < l->s->n_params; i++)
		if (l->s->p[i].define && !strcmp(l->s->p[i].name, key)) {
			char *end;

			*out = strtod(spec_value(l->s, l->pt, i), &end);
			return *end ? -1 : 0;
		}
	if (!strncmp(key, "peak.", 5))
		return arch_peak_find(l->a, key + 5, out);
	if ((id = arch_find_key(key)) < 0)
		return -1;
	switch (param_info[id].type) {
	case PT_INT: case PT_BOOL: case PT_ENUM:
		*out = (double)l->a->v[id].i;
		return 0;
	case PT_FLT:
		*out = l->a->v[id].f;
		return 0;
	default:
		return -1; /* strings and lists are not numbers */
	}
}

int spec_feasible(const struct spec *s, const struct spec_point *pt,
		  char *why, size_t n, int *line)
{
	const char *ov[2 * SPEC_MAX_PARAMS + 64];
	char buf[SPEC_MAX_PARAMS][160];
	struct arch a;
	struct diag d;
	struct look l = { s, pt, &a };
	int n_ov = 0, i, rc = 1;
	FILE *mem;
	char *log = NULL;
	size_t log_len = 0;

	if (!s->n_constraints)
		return 1;
	for (i = 0; i < s->n_set && n_ov < 64; i++)
		ov[n_ov++] = s->set[i];
	for (i = 0; i < s->n_params; i++)
		if (!s->p[i].define) {
			snprintf(buf[i], sizeof(buf[i]), "%s=%s", s->p[i].name,
				 spec_value(s, pt, i));
			ov[n_ov++] = buf[i];
		}
	mem = open_memstream(&log, &log_len);
	if (!mem)
		return -1;
	diag_init(&d, mem);
	if (arch_load(&a, s->config, ov, n_ov, &d)) {
		fflush(mem);
		snprintf(why, n, "the point's config does not load: %s",
			 d.last[0] ? d.last : "error");
		fclose(mem);
		free(log);
		return -1;
	}
	for (i = 0; i < s->n_constraints && rc == 1; i++) {
		double v;
		char err[200];

		if (expr_eval(s->constraints[i], lookup, &l, &v, err, sizeof(err))) {
			snprintf(why, n, "constraint '%s': %s", s->constraints[i], err);
			*line = s->constraint_line[i];
			rc = -2;
		} else if (v == 0) {
			snprintf(why, n, "%s", s->constraints[i]);
			rc = 0;
		}
	}
	arch_free(&a);
	fclose(mem);
	free(log);
	return rc;
}
