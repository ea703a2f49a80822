/*
 * ctrout.c - counter dumps as JSON, CSV and text (see ctrout.h).
 *
 * The text summary follows `perf stat`: one counter per line, the value
 * right-aligned with thousands separators, its unit, its name, and after
 * '#' a ratio derived from it and its sibling counters (the counters of the
 * same unit instance, i.e. with the same name up to the last '.').  Which
 * counter is divided by which is sim/engine/derived.def, keyed by counter
 * id (ctr_derived[]) and listed in docs/counters.md.  A ratio is printed
 * only when its denominator exists and is not zero, so an incomplete set
 * of counters never prints a misleading 0% or a division by zero.
 */
#include "ctrout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fsout.h"
#include "trace.h"

/* ---- names and units ---------------------------------------------------------*/

/* Last path component of a counter name. */
static const char *leaf_of(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot ? dot + 1 : name;
}

/*
 * The counter group (enum ctr_group) an instance name denotes, or -1:
 * "dma1" -> dma, "dram0" -> dram, "matrix" -> matrix; the memories of a
 * core are instances of the sram group under their own names.
 *
 * ("spad" and "acc" are accepted as short instance names of the SRAM
 * group besides the chip's own "scratchpad"/"accumulator".)
 */
static int group_of_component(const char *c, size_t len)
{
	static const char *const sram_names[] = { "scratchpad", "accumulator",
						  "spad", "acc" };
	size_t k;
	int g;

	while (len && c[len - 1] >= '0' && c[len - 1] <= '9')
		len--; /* instance number */
	for (g = 0; g < CTR_N_GRP; g++)
		if (strlen(ctr_group_names[g]) == len &&
		    strncmp(ctr_group_names[g], c, len) == 0)
			return g;
	for (k = 0; k < sizeof(sram_names) / sizeof(sram_names[0]); k++)
		if (strlen(sram_names[k]) == len &&
		    strncmp(sram_names[k], c, len) == 0)
			return CTR_GRP_SRAM;
	return -1;
}

/* The row of counter 'leaf' in group g, or NULL. */
static const struct ctr_info *row_in(int g, const char *leaf)
{
	int i;

	for (i = 0; i < CTR_N; i++)
		if ((int)ctr_info[i].group == g && strcmp(ctr_info[i].name, leaf) == 0)
			return &ctr_info[i];
	return NULL;
}

/*
 * The row of the leaf in the nearest path component that names a group
 * having such a row, or NULL.  "core0.dma1.bytes_dram_to_sram" -> dma;
 * "core0.scratchpad.req.matrix.left.reads" skips matrix (no "reads" row)
 * and resolves to the scratchpad's SRAM "reads" (unit access).
 */
static const struct ctr_info *row_of_path(const char *name)
{
	const char *leaf = leaf_of(name), *end = leaf, *p;
	const struct ctr_info *r;
	int g;

	if (end == name)
		return NULL;
	end--; /* the '.' before the leaf */
	while (end > name) {
		for (p = end; p > name && p[-1] != '.'; p--)
			;
		g = group_of_component(p, (size_t)(end - p));
		if (g >= 0 && (r = row_in(g, leaf)))
			return r;
		end = p > name ? p - 1 : name;
	}
	return NULL;
}

/*
 * The ctr_info row of a full name, or NULL when unknown or ambiguous.
 * Resolution order: the row of the leaf's name in the nearest group of the
 * path that has one; else the first row, if every row with that leaf has
 * the same unit (then the choice does not matter); else NULL ("reads":
 * SRAM access vs DRAM burst, with no group in the path).
 */
static const struct ctr_info *info_of(const char *name)
{
	const char *leaf = leaf_of(name);
	const struct ctr_info *first = NULL, *r;
	int i, same_unit = 1;

	for (i = 0; i < CTR_N; i++) {
		if (strcmp(ctr_info[i].name, leaf) != 0)
			continue;
		if (!first)
			first = &ctr_info[i];
		else if (strcmp(first->unit, ctr_info[i].unit) != 0)
			same_unit = 0;
	}
	if (!first)
		return NULL;
	if ((r = row_of_path(name)))
		return r;
	return same_unit ? first : NULL;
}

const char *ctrout_unit(const char *name)
{
	const struct ctr_info *ci = info_of(name);

	if (ci)
		return ci->unit;
	/* The run and per-core totals ("cycles", "core0.cycles") are not
	 * unit counters but are cycles all the same. */
	return strcmp(leaf_of(name), "cycles") == 0 ? "cycle" : "";
}

/*
 * By extension only (".text" is accepted as a synonym of ".txt"); a '.'
 * inside a directory name ("out.d/counters") is not an extension.
 */
int ctrout_fmt_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot || strchr(dot, '/'))
		return -1;
	if (strcmp(dot, ".json") == 0)
		return CTROUT_JSON;
	if (strcmp(dot, ".csv") == 0)
		return CTROUT_CSV;
	if (strcmp(dot, ".txt") == 0 || strcmp(dot, ".text") == 0)
		return CTROUT_TEXT;
	return -1;
}

/* ---- JSON ----------------------------------------------------------------------*/

/* s as a quoted JSON string, escaped 64 bytes at a time (an escape is at
 * most 6 bytes, so each piece fits the buffer; no allocation). */
static void json_str(FILE *fp, const char *s)
{
	char piece[65], out[6 * 64 + 1];
	size_t len = strlen(s), i, k;

	fputc('"', fp);
	for (i = 0; i < len; i += k) {
		k = len - i < 64 ? len - i : 64;
		memcpy(piece, s + i, k);
		piece[k] = '\0';
		trc_json_escape(out, sizeof(out), piece);
		fputs(out, fp);
	}
	fputc('"', fp);
}

static void json_value(FILE *fp, const struct ctr_entry *e)
{
	char buf[40];

	if (e->is_float) {
		trc_json_double(buf, sizeof(buf), e->f);
		fputs(buf, fp);
	} else {
		/* Integers exactly: JSON numbers have no size limit (RFC 8259). */
		fprintf(fp, "%llu", (unsigned long long)e->u);
	}
}

/*
 * Layout as in docs/formats.md "JSON": metadata members only when known,
 * "cycles" and "counters" always; one counter per line, in sink order.
 */
static void print_json(FILE *fp, const struct ctr_sink *s,
		       const struct ctrout_meta *m)
{
	char clk[40];
	size_t i;

	fputs("{\n", fp);
	if (m->version) {
		fputs("  \"npusim_version\": ", fp);
		json_str(fp, m->version);
		fputs(",\n", fp);
	}
	if (m->config) {
		fputs("  \"config\": ", fp);
		json_str(fp, m->config);
		fputs(",\n", fp);
	}
	if (m->program) {
		fputs("  \"program\": ", fp);
		json_str(fp, m->program);
		fputs(",\n", fp);
	}
	if (m->clock_ghz > 0) {
		trc_json_double(clk, sizeof(clk), m->clock_ghz);
		fprintf(fp, "  \"clock_ghz\": %s,\n", clk);
	}
	fprintf(fp, "  \"cycles\": %llu,\n", (unsigned long long)m->cycles);
	fputs("  \"counters\": {", fp);
	for (i = 0; i < s->n; i++) {
		fputs(i ? ",\n    " : "\n    ", fp);
		json_str(fp, s->v[i].name);
		fputs(": ", fp);
		json_value(fp, &s->v[i]);
	}
	fputs(s->n ? "\n  }\n}\n" : "}\n}\n", fp);
}

/* ---- CSV ------------------------------------------------------------------------*/

/* A CSV field, quoted when it holds a separator, quote or line break
 * (RFC 4180 section 2). */
static void csv_field(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void print_csv(FILE *fp, const struct ctr_sink *s,
		      const struct ctrout_meta *m)
{
	size_t i;

	/* The run's total first, then every counter (docs/formats.md "CSV"). */
	fputs("name,value,unit\n", fp);
	fprintf(fp, "cycles,%llu,cycle\n", (unsigned long long)m->cycles);
	for (i = 0; i < s->n; i++) {
		csv_field(fp, s->v[i].name);
		fputc(',', fp);
		json_value(fp, &s->v[i]);
		fputc(',', fp);
		csv_field(fp, ctrout_unit(s->v[i].name));
		fputc('\n', fp);
	}
}

/* ---- text summary ------------------------------------------------------------------*/

/* Decimal with thousands separators: 1234567 -> "1,234,567". */
static void fmt_sep_u64(char *buf, size_t cap, uint64_t v)
{
	/* 2^64 - 1 has 20 digits: 24 bytes hold any value and the NUL. */
	char digits[24];
	size_t n = (size_t)snprintf(digits, sizeof(digits), "%llu",
				    (unsigned long long)v);
	size_t i, k = 0;

	for (i = 0; i < n && k + 1 < cap; i++) {
		if (i && (n - i) % 3 == 0 && k + 2 < cap)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
}

/* A float counter: separators in the integer part, 3 decimals. */
static void fmt_sep_f64(char *buf, size_t cap, double v)
{
	char ip[32];
	double r;

	if (!isfinite(v) || fabs(v) >= 1e19) {
		snprintf(buf, cap, "%g", v);
		return;
	}
	/*
	 * Rounded half up in the last decimal (display only, the JSON keeps
	 * the exact double).  |v| < 1e19 keeps r / 1000 inside uint64_t;
	 * the sign is printed only if something nonzero remains ("-0.000"
	 * never appears).
	 */
	r = floor(fabs(v) * 1000.0 + 0.5); /* value in thousandths */
	fmt_sep_u64(ip, sizeof(ip), (uint64_t)(r / 1000.0));
	snprintf(buf, cap, "%s%s.%03u", v < 0 && r > 0 ? "-" : "", ip,
		 (unsigned)fmod(r, 1000.0));
}

/* The value of sibling 'leaf' of e (same instance prefix), or NULL. */
static const struct ctr_entry *sibling(const struct ctr_sink *s,
				       const char *name, const char *leaf)
{
	const char *l = leaf_of(name);
	size_t plen = (size_t)(l - name), i;

	/* Siblings are usually emitted next to each other, but the sink
	 * guarantees no order, so look at every entry. */
	for (i = 0; i < s->n; i++) {
		const char *n = s->v[i].name;

		if (strncmp(n, name, plen) == 0 && strcmp(n + plen, leaf) == 0)
			return &s->v[i];
	}
	return NULL;
}

static double val(const struct ctr_entry *e)
{
	return e->is_float ? e->f : (double)e->u;
}

/* Sum of the named siblings of name; *found counts those present. */
static double sibling_sum(const struct ctr_sink *s, const char *name,
			  const char *const *leaves, int n, int *found)
{
	double sum = 0;
	int i;

	*found = 0;
	for (i = 0; i < n; i++) {
		const struct ctr_entry *e = sibling(s, name, leaves[i]);

		if (e) {
			sum += val(e);
			(*found)++;
		}
	}
	return sum;
}

/*
 * The '#' comment of entry e into buf ("" when nothing applies).
 *
 * The entry's counter is the counters.def row its path resolves to
 * (row_of_path: "core0.matrix.macs" -> CTR_MATRIX_MACS); its ratio is that
 * row's derived.def line, ctr_derived[id].  A name that resolves to no row
 * gets no ratio.  Denominators are the siblings named by the row's den ids,
 * or the run's cycles for CTR_RUN.
 */
static void derive(char *buf, size_t cap, const struct ctr_sink *s,
		   const struct ctrout_meta *m, const struct ctr_entry *e)
{
	const struct ctr_info *ci = row_of_path(e->name);
	const struct ctr_derived *r = ci ? &ctr_derived[ci - ctr_info] : NULL;
	double x = val(e), den;
	const char *leaves[3];
	char num[48];
	int k, n_den = 0, found = 0;

	buf[0] = '\0';
	if (r && r->shape != CTR_SH_NONE) {
		if (r->den[0] == CTR_RUN) {
			den = (double)m->cycles;
			found = 1;
		} else {
			for (k = 0; k < 3; k++)
				if (r->den[k] != CTR_NONE)
					leaves[n_den++] = ctr_info[r->den[k]].name;
			den = sibling_sum(s, e->name, leaves, n_den, &found);
		}
		/* No denominator, no ratio: never a fake 0% or an inf. */
		if (!found || den == 0)
			return;
		if (r->shape == CTR_SH_PCT)
			snprintf(num, sizeof(num), "%.2f%%", 100.0 * x / den);
		else
			snprintf(num, sizeof(num), "%.3f", x / den);
		snprintf(buf, cap, "%9s %s", num, r->text);
		return;
	}
	/*
	 * Byte counters: bandwidth over the whole run.
	 * Bytes over the whole run's cycles (not the unit's busy cycles):
	 * the average rate a roofline compares with the peak.
	 */
	if (!e->is_float && strcmp(ctrout_unit(e->name), "byte") == 0 &&
	    m->cycles) {
		double bpc = x / (double)m->cycles;

		snprintf(num, sizeof(num), "%.3f", bpc);
		if (m->clock_ghz > 0)
			/* B/cycle * 1e9 cycles/s * clock_ghz = GB/s x clock. */
			snprintf(buf, cap, "%9s B/cycle, %.3f GB/s", num,
				 bpc * m->clock_ghz);
		else
			snprintf(buf, cap, "%9s B/cycle", num);
	}
}

/* Simulated time of the run, e.g. "12.345 us at 1 GHz". */
static void run_time(char *buf, size_t cap, const struct ctrout_meta *m)
{
	double ns;
	char clk[40];

	buf[0] = '\0';
	if (m->clock_ghz <= 0)
		return;
	/* cycles / (cycles per ns): clock_ghz is cycles per nanosecond. */
	ns = (double)m->cycles / m->clock_ghz;
	trc_json_double(clk, sizeof(clk), m->clock_ghz);
	if (ns < 1e3)
		snprintf(buf, cap, "%9.3f ns at %s GHz", ns, clk);
	else if (ns < 1e6)
		snprintf(buf, cap, "%9.3f us at %s GHz", ns / 1e3, clk);
	else if (ns < 1e9)
		snprintf(buf, cap, "%9.3f ms at %s GHz", ns / 1e6, clk);
	else
		snprintf(buf, cap, "%9.3f s at %s GHz", ns / 1e9, clk);
}

/*
 * One summary line; the name is padded only when a comment follows.
 * vw, uw, nw: column widths of value (right-aligned), unit and name;
 * trailing spaces are avoided so the file diffs cleanly.
 */
static void text_line(FILE *fp, int vw, int uw, int nw, const char *value,
		      const char *unit, const char *name, const char *comment)
{
	if (*comment)
		fprintf(fp, "    %*s  %-*s  %-*s  # %s\n", vw, value, uw, unit,
			nw, name, comment);
	else if (*unit)
		fprintf(fp, "    %*s  %-*s  %s\n", vw, value, uw, unit, name);
	else
		fprintf(fp, "    %*s  %*s  %s\n", vw, value, uw, "", name);
}

static void print_text(FILE *fp, const struct ctr_sink *s,
		       const struct ctrout_meta *m)
{
	char value[48], comment[160];
	int vw, uw = 5, nw = 6;
	size_t i;

	/* Column widths from the data, so the layout is the same for the
	 * same counters and nothing is ever cut. */
	fmt_sep_u64(value, sizeof(value), m->cycles);
	vw = (int)strlen(value);
	for (i = 0; i < s->n; i++) {
		const struct ctr_entry *e = &s->v[i];
		int l;

		if (e->is_float)
			fmt_sep_f64(value, sizeof(value), e->f);
		else
			fmt_sep_u64(value, sizeof(value), e->u);
		if ((l = (int)strlen(value)) > vw)
			vw = l;
		if ((l = (int)strlen(ctrout_unit(e->name))) > uw)
			uw = l;
		if ((l = (int)strlen(e->name)) > nw)
			nw = l;
	}
	if (vw < 10)
		vw = 10;
	fputs("\n Counter summary", fp);
	if (m->program)
		fprintf(fp, " for '%s'", m->program);
	if (m->config)
		fprintf(fp, " on '%s'", m->config);
	fputs(":\n\n", fp);
	fmt_sep_u64(value, sizeof(value), m->cycles);
	run_time(comment, sizeof(comment), m);
	text_line(fp, vw, uw, nw, value, "cycle", "cycles", comment);
	for (i = 0; i < s->n; i++) {
		const struct ctr_entry *e = &s->v[i];
		const char *leaf = leaf_of(e->name);

		/*
		 * A blank line between unit instances.
		 * The instance prefix (everything up to the leaf) differs
		 * from the previous entry's: compare lengths, then bytes.
		 */
		if (i == 0 ||
		    (size_t)(leaf - e->name) !=
			    (size_t)(leaf_of(s->v[i - 1].name) - s->v[i - 1].name) ||
		    strncmp(e->name, s->v[i - 1].name,
			    (size_t)(leaf - e->name)) != 0)
			fputc('\n', fp);
		if (e->is_float)
			fmt_sep_f64(value, sizeof(value), e->f);
		else
			fmt_sep_u64(value, sizeof(value), e->u);
		derive(comment, sizeof(comment), s, m, e);
		text_line(fp, vw, uw, nw, value, ctrout_unit(e->name), e->name,
			  comment);
	}
	fputc('\n', fp);
}

/* ---- entry points ----------------------------------------------------------------*/

int ctrout_print(FILE *fp, enum ctrout_fmt f, const struct ctr_sink *s,
		 const struct ctrout_meta *m)
{
	/* No metadata: cycles 0, clock unknown (no times, no GB/s). */
	static const struct ctrout_meta none = { NULL, NULL, NULL, 0, 0 };

	if (s->oom)
		return NPU_ENOMEM;
	if (!m)
		m = &none;
	switch (f) {
	case CTROUT_JSON:
		print_json(fp, s, m);
		break;
	case CTROUT_CSV:
		print_csv(fp, s, m);
		break;
	case CTROUT_TEXT:
		print_text(fp, s, m);
		break;
	default:
		return NPU_EINTERNAL;
	}
	return ferror(fp) ? NPU_EIO : 0;
}

int ctrout_write(const char *path, enum ctrout_fmt f,
		 const struct ctr_sink *s, const struct ctrout_meta *m,
		 struct diag *d)
{
	struct fsout o;
	int r;

	/* Refuse before creating anything: an incomplete dump must not
	 * replace a good one. */
	if (s->oom)
		return diag_error(d, diag_at_file(path, 0, 0), NPU_ENOMEM,
				  "counters incomplete (out of memory while "
				  "collecting them); not written");
	if ((r = fsout_open(&o, path, d)) != 0)
		return r;
	r = ctrout_print(o.fp, f, s, m);
	if (r != 0) {
		fsout_abort(&o);
		return diag_error(d, diag_at_file(path, 0, 0), r,
				  "cannot write the counters");
	}
	return fsout_commit(&o, d);
}
