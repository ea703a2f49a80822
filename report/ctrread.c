/*
 * ctrread.c - counter dumps read back with json-c (see ctrread.h).
 *
 * The whole file is parsed strictly (json-c's strict mode: no trailing
 * commas or comments, nothing after the top-level value; it still takes
 * NaN and Infinity, which the number checks below refuse), then walked
 * once; every member the
 * roofline needs is checked for its type, and a wrong one is reported with
 * its JSON path ("regions[2].cycles").  Unknown members are ignored, so a
 * newer writer that adds members is still read; a newer *schema* is not
 * (its members may mean something else), and says so.
 *
 * Counter names are matched by shape, not looked up in counters.def: the
 * file may come from another npusim version, and only the three families
 * of ctrread.h matter here.
 */
#include "ctrread.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"

/* Counter files are text written by npusim; 1 GiB is far above any real
 * one (a 1000-layer model with 200 counters per region is ~10 MB) and
 * keeps a mistaken argument (a DRAM image, /dev/zero) from eating memory. */
#define CTRREAD_MAX_BYTES (1u << 30)

/* Parsing context: the file name for messages and the diag. */
struct rd {
	const char *name;
	struct diag *d;
};

static int bad(struct rd *r, const char *path, const char *what)
{
	return diag_error(r->d, diag_at_file(r->name, 0, 0), NPU_ECOUNTERS,
			  "%s: %s", path, what);
}

/* ---- counter families ----------------------------------------------------------*/
/* s starts with prefix followed by at least one digit; returns the rest
 * after the digits, or NULL. */
static const char *after_numbered(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n) != 0 || s[n] < '0' || s[n] > '9')
		return NULL;
	s += n;
	while (*s >= '0' && *s <= '9')
		s++;
	return s;
}

/* Which family a counter name belongs to: 0 none, 1 MACs, 2 DRAM bytes,
 * 3 SRAM bytes. */
enum fam { FAM_NONE, FAM_MACS, FAM_DRAM, FAM_SRAM };

static enum fam family_of(const char *name)
{
	const char *t;

	if ((t = after_numbered(name, "core"))) {
		if (strcmp(t, ".matrix.macs") == 0)
			return FAM_MACS;
		if (strcmp(t, ".scratchpad.read_bytes") == 0 ||
		    strcmp(t, ".scratchpad.write_bytes") == 0)
			return FAM_SRAM;
		return FAM_NONE;
	}
	/* "dram.ch0.read_bytes" today; "dram0.read_bytes" in the docs'
	 * older examples. */
	if (!(t = after_numbered(name, "dram.ch")))
		t = after_numbered(name, "dram");
	if (t && (strcmp(t, ".read_bytes") == 0 || strcmp(t, ".write_bytes") == 0))
		return FAM_DRAM;
	return FAM_NONE;
}

/* A non-negative integer member; 0 or an error naming path. */
static int get_u64(struct rd *r, const char *path, json_object *o,
		   uint64_t *out)
{
	if (!o || !json_object_is_type(o, json_type_int))
		return bad(r, path, "expected a non-negative integer");
	/* json-c keeps integers above INT64_MAX as uint64 and returns
	 * INT64_MAX from get_int64 for them; below 0 is the only bad case. */
	if (json_object_get_int64(o) < 0)
		return bad(r, path, "expected a non-negative integer");
	*out = json_object_get_uint64(o);
	return 0;
}

/* A finite number >= 0 (integer or not). */
static int get_num(struct rd *r, const char *path, json_object *o, double *out)
{
	double v;

	if (!o || !(json_object_is_type(o, json_type_int) ||
		    json_object_is_type(o, json_type_double)))
		return bad(r, path, "expected a number");
	v = json_object_get_double(o);
	if (!isfinite(v) || v < 0)
		return bad(r, path, "expected a finite number >= 0");
	*out = v;
	return 0;
}

/* a += b, refusing to wrap. */
static int add_u64(struct rd *r, const char *path, uint64_t *a, uint64_t b)
{
	if (*a > UINT64_MAX - b)
		return bad(r, path, "sum of the counters overflows 64 bits");
	*a += b;
	return 0;
}

/* Sum the families of a "counters" object (prefix: its JSON path). */
static int sum_counters(struct rd *r, const char *prefix, json_object *ctrs,
			struct ctrread_sums *s)
{
	char path[256];

	memset(s, 0, sizeof(*s));
	if (!ctrs || !json_object_is_type(ctrs, json_type_object))
		return bad(r, prefix, "expected an object of counters");
	json_object_object_foreach(ctrs, key, val) {
		enum fam f = family_of(key);
		uint64_t v;
		uint64_t *dst;

		if (f == FAM_NONE)
			continue;
		snprintf(path, sizeof(path), "%s[\"%.100s\"]", prefix, key);
		if (get_u64(r, path, val, &v))
			return NPU_ECOUNTERS;
		dst = f == FAM_MACS ? &s->macs :
		      f == FAM_DRAM ? &s->dram_bytes : &s->sram_bytes;
		if (add_u64(r, path, dst, v))
			return NPU_ECOUNTERS;
		s->n_macs += f == FAM_MACS;
	}
	/* ops = 2 x MACs must fit too */
	if (s->macs > UINT64_MAX / 2)
		return bad(r, prefix, "MAC count too large");
	return 0;
}

/* ---- members -------------------------------------------------------------------*/
static int get_energy(struct rd *r, const char *prefix, json_object *o,
		      struct ctrread_energy *e)
{
	char path[160];
	json_object *v;

	memset(e, 0, sizeof(*e));
	e->avg_power_w = -1;
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return bad(r, prefix, "expected an object");
	snprintf(path, sizeof(path), "%s.total_pj", prefix);
	if (!json_object_object_get_ex(o, "total_pj", &v))
		return bad(r, path, "missing");
	if (get_num(r, path, v, &e->total_pj))
		return NPU_ECOUNTERS;
	if (json_object_object_get_ex(o, "avg_power_w", &v)) {
		snprintf(path, sizeof(path), "%s.avg_power_w", prefix);
		if (get_num(r, path, v, &e->avg_power_w))
			return NPU_ECOUNTERS;
	}
	e->present = 1;
	return 0;
}

static int get_peaks(struct rd *r, json_object *o, struct ctrread_peaks *p)
{
	char path[160];
	json_object *v, *bt;
	int i, n;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return bad(r, "peaks", "expected an object");
	p->present = 1;
	/* every peak the table names; one a file lacks reads as 0 */
	for (i = 0; i < ARCH_N_PEAKS; i++) {
		if (!json_object_object_get_ex(o, arch_peak_info[i].name, &v))
			continue;
		snprintf(path, sizeof(path), "peaks.%s", arch_peak_info[i].name);
		if (get_num(r, path, v, &p->peak[i]))
			return NPU_ECOUNTERS;
	}
	if (!json_object_object_get_ex(o, "macs_per_s_by_type", &bt))
		return 0;
	if (!json_object_is_type(bt, json_type_object))
		return bad(r, "peaks.macs_per_s_by_type", "expected an object");
	n = json_object_object_length(bt);
	p->types = calloc((size_t)n + 1, sizeof(*p->types));
	if (!p->types)
		return NPU_ENOMEM;
	json_object_object_foreach(bt, key, val) {
		struct ctrread_type_peak *t = &p->types[p->n_types];

		snprintf(path, sizeof(path), "peaks.macs_per_s_by_type.%.60s", key);
		if (!*key || strlen(key) > 32)
			return bad(r, path, "a type name must be 1 to 32 characters");
		if (get_num(r, path, val, &t->macs_per_s))
			return NPU_ECOUNTERS;
		if (!(t->type = str_dup(key)))
			return NPU_ENOMEM;
		p->n_types++;
	}
	return 0;
}

static int get_region(struct rd *r, int k, json_object *o,
		      struct ctrread_region *g)
{
	char pre[64], path[96];
	json_object *v;

	snprintf(pre, sizeof(pre), "regions[%d]", k);
	g->core = -1;
	if (!json_object_is_type(o, json_type_object))
		return bad(r, pre, "expected an object");
	snprintf(path, sizeof(path), "%s.name", pre);
	if (!json_object_object_get_ex(o, "name", &v) ||
	    !json_object_is_type(v, json_type_string))
		return bad(r, path, "expected a string");
	if (!(g->name = str_dup(json_object_get_string(v))))
		return NPU_ENOMEM;
	if (json_object_object_get_ex(o, "core", &v)) {
		uint64_t c;

		snprintf(path, sizeof(path), "%s.core", pre);
		if (get_u64(r, path, v, &c))
			return NPU_ECOUNTERS;
		if (c > 1u << 20)
			return bad(r, path, "core number out of range");
		g->core = (int)c;
	}
	if (json_object_object_get_ex(o, "entries", &v)) {
		snprintf(path, sizeof(path), "%s.entries", pre);
		if (get_u64(r, path, v, &g->entries))
			return NPU_ECOUNTERS;
	}
	snprintf(path, sizeof(path), "%s.cycles", pre);
	if (!json_object_object_get_ex(o, "cycles", &v))
		return bad(r, path, "missing");
	if (get_u64(r, path, v, &g->cycles))
		return NPU_ECOUNTERS;
	snprintf(path, sizeof(path), "%s.counters", pre);
	v = NULL;
	(void)json_object_object_get_ex(o, "counters", &v);
	if (sum_counters(r, path, v, &g->sums))
		return NPU_ECOUNTERS;
	snprintf(path, sizeof(path), "%s.energy", pre);
	v = NULL;
	(void)json_object_object_get_ex(o, "energy", &v);
	return get_energy(r, path, v, &g->energy);
}

/* The members of the top-level object, in the order ctrread.h lists them. */
static int walk(struct rd *r, json_object *top, struct ctrread_file *f)
{
	json_object *v;
	int rc, k, n;

	if (!json_object_is_type(top, json_type_object))
		return bad(r, "top level", "expected an object (an npusim counters file)");
	if (json_object_object_get_ex(top, "schema", &v)) {
		uint64_t s;

		if (get_u64(r, "schema", v, &s))
			return NPU_ECOUNTERS;
		if (s > CTRREAD_SCHEMA_MAX || s < 1)
			return diag_error(r->d, diag_at_file(r->name, 0, 0),
					  NPU_ECOUNTERS,
					  "schema %llu is not one this npusim reads "
					  "(1 to %d; a newer npusim wrote it?)",
					  (unsigned long long)s, CTRREAD_SCHEMA_MAX);
		f->schema = (int)s;
	}
	if (json_object_object_get_ex(top, "npusim_version", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    !(f->version = str_dup(json_object_get_string(v))))
		return NPU_ENOMEM;
	/* "config": a path today, {"file": ...} in schema 2 */
	if (json_object_object_get_ex(top, "config", &v)) {
		json_object *file;

		if (json_object_is_type(v, json_type_object) &&
		    json_object_object_get_ex(v, "file", &file))
			v = file;
		if (json_object_is_type(v, json_type_string) &&
		    !(f->config = str_dup(json_object_get_string(v))))
			return NPU_ENOMEM;
	}
	if (!json_object_object_get_ex(top, "cycles", &v))
		return bad(r, "cycles", "missing (not an npusim counters file?)");
	if (get_u64(r, "cycles", v, &f->cycles))
		return NPU_ECOUNTERS;
	if (json_object_object_get_ex(top, "clock_ghz", &v)) {
		if (get_num(r, "clock_ghz", v, &f->clock_ghz))
			return NPU_ECOUNTERS;
		if (f->clock_ghz <= 0)
			return bad(r, "clock_ghz", "must be above 0");
	}
	if (!json_object_object_get_ex(top, "counters", &v))
		return bad(r, "counters", "missing (not an npusim counters file?)");
	if (sum_counters(r, "counters", v, &f->sums))
		return NPU_ECOUNTERS;
	v = NULL;
	(void)json_object_object_get_ex(top, "energy", &v);
	if ((rc = get_energy(r, "energy", v, &f->energy)))
		return rc;
	v = NULL;
	(void)json_object_object_get_ex(top, "peaks", &v);
	if ((rc = get_peaks(r, v, &f->peaks)))
		return rc;
	if (!json_object_object_get_ex(top, "regions", &v))
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return bad(r, "regions", "expected an array");
	n = (int)json_object_array_length(v);
	f->regions = calloc((size_t)n + 1, sizeof(*f->regions));
	if (!f->regions)
		return NPU_ENOMEM;
	for (k = 0; k < n; k++) {
		rc = get_region(r, k, json_object_array_get_idx(v, (size_t)k),
				&f->regions[k]);
		f->n_regions = k + 1; /* so that free sees its name */
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- entry points --------------------------------------------------------------*/
/* 1-based line and column of byte offset off in text. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

int ctrread_parse(struct ctrread_file *f, const char *name, const char *text,
		  size_t len, struct diag *d)
{
	struct rd r = { name, d };
	struct json_tokener *tok;
	json_object *top;
	enum json_tokener_error jerr;
	size_t end;
	int rc, line, col;

	memset(f, 0, sizeof(*f));
	f->energy.avg_power_w = -1;
	if (len > (size_t)INT32_MAX)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ECOUNTERS,
				  "file too large for a counters file");
	tok = json_tokener_new();
	if (!tok)
		return NPU_ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	top = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	/* A complete value, then only white space. */
	if (top && jerr == json_tokener_success)
		while (end < len && strchr(" \t\r\n", text[end]) && text[end])
			end++;
	if (!top || jerr != json_tokener_success || end < len) {
		if (jerr == json_tokener_success && top)
			jerr = json_tokener_error_parse_unexpected;
		else if (jerr == json_tokener_continue)
			jerr = json_tokener_error_parse_eof;
		line_col(text, end < len ? end : len, &line, &col);
		rc = diag_error(d, diag_at_file(name, line, col), NPU_ECOUNTERS,
				"JSON: %s%s", json_tokener_error_desc(jerr),
				len == 0 ? " (empty file)" :
				end < len && top ? " (data after the top-level value)" : "");
		json_object_put(top);
		json_tokener_free(tok);
		return rc;
	}
	json_tokener_free(tok);
	rc = walk(&r, top, f);
	json_object_put(top);
	if (rc) {
		if (rc == NPU_ENOMEM)
			(void)diag_error(d, diag_at_file(name, 0, 0), rc,
					 "out of memory");
		ctrread_free(f);
	}
	return rc;
}

int ctrread_load(struct ctrread_file *f, const char *path, struct diag *d)
{
	FILE *fp;
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, got;
	int rc, err;

	memset(f, 0, sizeof(*f));
	fp = fopen(path, "rb");
	if (!fp)
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "cannot open: %s", strerror(errno));
	/* Read in growing chunks: works for pipes and /dev/stdin too. */
	for (;;) {
		if (len == cap) {
			if (cap >= CTRREAD_MAX_BYTES) {
				free(buf);
				fclose(fp);
				return diag_error(d, diag_at_file(path, 0, 0),
						  NPU_ECOUNTERS,
						  "larger than 1 GiB: not a counters file");
			}
			cap = cap ? cap * 2 : 1 << 16;
			if (!(nb = realloc(buf, cap))) {
				free(buf);
				fclose(fp);
				return diag_error(d, diag_at_file(path, 0, 0),
						  NPU_ENOMEM, "out of memory");
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, fp);
		len += got;
		if (got == 0)
			break;
	}
	err = ferror(fp);
	fclose(fp);
	if (err) {
		free(buf);
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "read error");
	}
	rc = ctrread_parse(f, path, buf ? buf : "", len, d);
	free(buf);
	return rc;
}

void ctrread_free(struct ctrread_file *f)
{
	int i;

	free(f->version);
	free(f->config);
	for (i = 0; i < f->peaks.n_types; i++)
		free(f->peaks.types[i].type);
	free(f->peaks.types);
	for (i = 0; i < f->n_regions; i++)
		free(f->regions[i].name);
	free(f->regions);
	memset(f, 0, sizeof(*f));
}
