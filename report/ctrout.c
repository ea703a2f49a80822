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

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fsout.h"
#include "energy.h"
#include "../trace/trace.h"
#include "../util/strutil.h"

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

/* "  \"name\": [\"a\", \"b\"]" (or nothing when n == 0). */
static void json_str_list(FILE *fp, const char *indent, const char *name,
			  const char *const *v, size_t n, int last)
{
	size_t i;

	fprintf(fp, "%s\"%s\": [", indent, name);
	for (i = 0; i < n; i++) {
		if (i)
			fputs(", ", fp);
		json_str(fp, v[i]);
	}
	fprintf(fp, "]%s\n", last ? "" : ",");
}

static void json_num(FILE *fp, double v)
{
	char buf[40];

	trc_json_double(buf, sizeof(buf), v);
	fputs(buf, fp);
}

/*
 * The derived peaks of the config (arch/peaks.def), per second, in table
 * order; the per-type MAC peaks as an object after macs_per_s_chip.
 */
static void json_peaks(FILE *fp, const struct arch *a)
{
	const struct arch_derived *d = &a->d;
	int k, t;

	fputs("  \"peaks\": {", fp);
	for (k = 0; k < ARCH_N_PEAKS; k++) {
		fprintf(fp, "%s\n    \"%s\": ", k ? "," : "",
			arch_peak_info[k].name);
		json_num(fp, d->peak[k]);
		if (k != ARCH_PEAK_MACS_PER_S_CHIP)
			continue;
		/* core.matrix.macs_per_pe.<type> MACs per PE per cycle */
		fputs(",\n    \"macs_per_s_by_type\": {", fp);
		for (t = 0; t < arch_enum_count(P_MTX_IN_TYPE); t++) {
			fprintf(fp, "%s\"%s\": ", t ? ", " : "",
				arch_enum_at(P_MTX_IN_TYPE, t));
			json_num(fp, d->macs_per_s_type[t]);
		}
		fputs("}", fp);
	}
	fputs("\n  },\n", fp);
}

/* {"total_pj": .., "avg_power_w": .., "by_component": {..}} */
static void json_energy(FILE *fp, const struct energy *e)
{
	int k;

	fputs("{\"total_pj\": ", fp);
	json_num(fp, e->total_pj);
	fputs(", \"avg_power_w\": ", fp);
	json_num(fp, e->avg_power_w);
	fputs(", \"by_component\": {", fp);
	for (k = 0; k < ENERGY_N_PARTS; k++) {
		fprintf(fp, "%s\"%s\": ", k ? ", " : "", energy_part_names[k]);
		json_num(fp, e->pj[k]);
	}
	fputs("}}", fp);
}

/* "counters": {...} of one sink, at the given indent. */
static void json_counters(FILE *fp, const char *indent,
			  const struct ctr_sink *s)
{
	size_t i;

	fprintf(fp, "%s\"counters\": {", indent);
	for (i = 0; i < s->n; i++) {
		fprintf(fp, "%s\n%s  ", i ? "," : "", indent);
		json_str(fp, s->v[i].name);
		fputs(": ", fp);
		json_value(fp, &s->v[i]);
	}
	fprintf(fp, s->n ? "\n%s}" : "}", indent);
}

/*
 * Layout as in docs/formats.md "JSON" (schema 2): the run's settings, its
 * peaks, "cycles" and "counters", energy and regions; one counter per
 * line, in sink order.  Members whose data the caller did not give are
 * left out, except schema, cycles and counters.
 */
static void print_json(FILE *fp, const struct ctr_sink *s,
		       const struct ctrout_meta *m)
{
	struct energy en;
	size_t i;

	fprintf(fp, "{\n  \"schema\": %d,\n", CTROUT_SCHEMA);
	if (m->version) {
		fputs("  \"npusim_version\": ", fp);
		json_str(fp, m->version);
		fputs(",\n", fp);
	}
	if (m->arch) {
		fputs("  \"config\": {\"file\": ", fp);
		if (m->config)
			json_str(fp, m->config);
		else
			fputs("null", fp);
		fprintf(fp, ", \"hash\": \"0x%016llx\",\n",
			(unsigned long long)arch_hash(m->arch));
		json_str_list(fp, "    ", "overrides", m->overrides,
			      m->n_overrides, 0);
		json_str_list(fp, "    ", "defines", m->defines, m->n_defines, 1);
		fputs("  },\n", fp);
	} else if (m->config) {
		fputs("  \"config\": {\"file\": ", fp);
		json_str(fp, m->config);
		fputs("},\n", fp);
	}
	if (m->n_programs)
		json_str_list(fp, "  ", "programs", m->programs, m->n_programs, 0);
	else if (m->program)
		json_str_list(fp, "  ", "programs", &m->program, 1, 0);
	if (m->clock_ghz > 0) {
		fputs("  \"clock_ghz\": ", fp);
		json_num(fp, m->clock_ghz);
		fputs(",\n", fp);
	}
	fprintf(fp, "  \"cycles\": %llu,\n", (unsigned long long)m->cycles);
	if (m->arch)
		json_peaks(fp, m->arch);
	json_counters(fp, "  ", s);
	if (m->arch) {
		energy_of(m->arch, s, m->cycles, &en);
		fputs(",\n  \"energy\": ", fp);
		json_energy(fp, &en);
	}
	if (m->n_regions) {
		fputs(",\n  \"regions\": [", fp);
		for (i = 0; i < m->n_regions; i++) {
			const struct ctr_region *r = &m->regions[i];

			fprintf(fp, "%s\n    {\"name\": ", i ? "," : "");
			json_str(fp, r->name);
			fprintf(fp, ", \"core\": %d, \"entries\": %llu, \"cycles\": %llu,\n",
				r->core, (unsigned long long)r->entries,
				(unsigned long long)r->cycles);
			json_counters(fp, "     ", &r->s);
			if (m->arch) {
				energy_of(m->arch, &r->s, r->cycles, &en);
				fputs(",\n     \"energy\": ", fp);
				json_energy(fp, &en);
			}
			fputs("}", fp);
		}
		fputs("\n  ]", fp);
	}
	fputs("\n}\n", fp);
}

/* ---- CSV ------------------------------------------------------------------------*/

/* The rows of one sink: name,value,unit,region. */
static void csv_rows(FILE *fp, const struct ctr_sink *s, const char *region)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		str_csv_field(fp, s->v[i].name);
		fputc(',', fp);
		json_value(fp, &s->v[i]);
		fputc(',', fp);
		str_csv_field(fp, ctrout_unit(s->v[i].name));
		fputc(',', fp);
		str_csv_field(fp, region);
		fputc('\n', fp);
	}
}

/* energy.<part>,pJ rows, then energy.total and energy.avg_power. */
static void csv_energy(FILE *fp, const struct arch *a, const struct ctr_sink *s,
		       uint64_t cycles, const char *region)
{
	struct energy e;
	char v[40];
	int k;

	energy_of(a, s, cycles, &e);
	for (k = 0; k < ENERGY_N_PARTS; k++) {
		trc_json_double(v, sizeof(v), e.pj[k]);
		fprintf(fp, "energy.%s,%s,pJ,", energy_part_names[k], v);
		str_csv_field(fp, region);
		fputc('\n', fp);
	}
	trc_json_double(v, sizeof(v), e.total_pj);
	fprintf(fp, "energy.total,%s,pJ,", v);
	str_csv_field(fp, region);
	trc_json_double(v, sizeof(v), e.avg_power_w);
	fprintf(fp, "\nenergy.avg_power,%s,W,", v);
	str_csv_field(fp, region);
	fputc('\n', fp);
}

/* "# key: value" lines before the header: pandas skips them with
 * comment='#'; a human reads the run's settings there. */
static void csv_meta(FILE *fp, const struct ctrout_meta *m)
{
	char v[40];
	size_t i;
	int k;

	fprintf(fp, "# npusim counters, schema %d\n", CTROUT_SCHEMA);
	if (m->version)
		fprintf(fp, "# npusim_version: %s\n", m->version);
	fprintf(fp, "# config: %s\n", m->config ? m->config : "(built-in defaults)");
	if (m->arch)
		fprintf(fp, "# config_hash: 0x%016llx\n",
			(unsigned long long)arch_hash(m->arch));
	for (i = 0; i < m->n_overrides; i++)
		fprintf(fp, "# override: %s\n", m->overrides[i]);
	for (i = 0; i < m->n_defines; i++)
		fprintf(fp, "# define: %s\n", m->defines[i]);
	for (i = 0; i < m->n_programs; i++)
		fprintf(fp, "# program: %s\n", m->programs[i]);
	if (!m->n_programs && m->program)
		fprintf(fp, "# program: %s\n", m->program);
	if (m->clock_ghz > 0) {
		trc_json_double(v, sizeof(v), m->clock_ghz);
		fprintf(fp, "# clock_ghz: %s\n", v);
	}
	for (k = 0; m->arch && k < arch_peak_count(); k++)
		fprintf(fp, "# peak %s: %.6g\n", arch_peak_name(k),
			arch_peak_at(m->arch, k));
}

/* The region column of r: its name, or "NAME@coreN" when another region
 * of the run has the same name (an SPMD program runs it on every core). */
static void region_label(char *buf, size_t n, const struct ctrout_meta *m,
			 const struct ctr_region *r)
{
	size_t i;

	for (i = 0; i < m->n_regions; i++)
		if (&m->regions[i] != r && strcmp(m->regions[i].name, r->name) == 0) {
			snprintf(buf, n, "%s@core%d", r->name, r->core);
			return;
		}
	snprintf(buf, n, "%s", r->name);
}

/*
 * One flat table (docs/formats.md "CSV"): name,value,unit,region with
 * region empty for the whole run; the run's rows first (cycles, every
 * counter, energy), then each region's (cycles, entries, counters,
 * energy).  Loadable as is: pandas.read_csv(path, comment='#').
 */
static void print_csv(FILE *fp, const struct ctr_sink *s,
		      const struct ctrout_meta *m)
{
	size_t i;

	csv_meta(fp, m);
	fputs("name,value,unit,region\n", fp);
	fprintf(fp, "cycles,%llu,cycle,\n", (unsigned long long)m->cycles);
	csv_rows(fp, s, "");
	if (m->arch)
		csv_energy(fp, m->arch, s, m->cycles, "");
	for (i = 0; i < m->n_regions; i++) {
		const struct ctr_region *r = &m->regions[i];
		char label[160];

		region_label(label, sizeof(label), m, r);
		fprintf(fp, "cycles,%llu,cycle,", (unsigned long long)r->cycles);
		str_csv_field(fp, label);
		fprintf(fp, "\nentries,%llu,,", (unsigned long long)r->entries);
		str_csv_field(fp, label);
		fprintf(fp, "\ncore,%d,,", r->core);
		str_csv_field(fp, label);
		fputc('\n', fp);
		csv_rows(fp, &r->s, label);
		if (m->arch)
			csv_energy(fp, m->arch, &r->s, r->cycles, label);
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
			/* A sum over cores is over cores x cycles (chip-level
			 * units, DRAM and NoC, were never summed). */
			if (m->cores_summed > 1 && ci->group != CTR_GRP_DRAM &&
			    ci->group != CTR_GRP_NOC)
				den *= m->cores_summed;
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

/* The counters of s, one line each, a blank line between unit
 * instances; ratios over m's cycles (the run's, or a region's). */
static void text_block(FILE *fp, const struct ctr_sink *s,
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
		derive(comment, sizeof(comment), m->ratio_src ? m->ratio_src : s, m, e);
		text_line(fp, vw, uw, nw, value, ctrout_unit(e->name), e->name,
			  comment);
	}
}

/* The energy breakdown of s over 'cycles', each part's share of the
 * total after '#'. */
static void text_energy(FILE *fp, const struct arch *a,
			const struct ctr_sink *s, uint64_t cycles)
{
	struct energy e;
	char value[48], comment[64];
	int k;

	energy_of(a, s, cycles, &e);
	fputs("\n Energy (docs/energy.md):\n\n", fp);
	for (k = 0; k < ENERGY_N_PARTS; k++) {
		fmt_sep_f64(value, sizeof(value), e.pj[k]);
		snprintf(comment, sizeof(comment), "%.2f%% of total",
			 e.total_pj > 0 ? 100.0 * e.pj[k] / e.total_pj : 0.0);
		text_line(fp, 18, 2, 20, value, "pJ", energy_part_names[k],
			  e.pj[k] > 0 ? comment : "");
	}
	fmt_sep_f64(value, sizeof(value), e.total_pj);
	text_line(fp, 18, 2, 20, value, "pJ", "total", "");
	fmt_sep_f64(value, sizeof(value), e.avg_power_w);
	text_line(fp, 18, 2, 20, value, "W", "average power", "");
}

static void print_text(FILE *fp, const struct ctr_sink *s,
		       const struct ctrout_meta *m)
{
	size_t i;

	fputs("\n Counter summary", fp);
	if (m->program)
		fprintf(fp, " for '%s'", m->program);
	if (m->config)
		fprintf(fp, " on '%s'", m->config);
	fputs(":\n", fp);
	if (m->arch)
		fprintf(fp, " config hash 0x%016llx\n",
			(unsigned long long)arch_hash(m->arch));
	for (i = 0; i < m->n_overrides; i++)
		fprintf(fp, " -s %s\n", m->overrides[i]);
	for (i = 0; i < m->n_defines; i++)
		fprintf(fp, " -D %s\n", m->defines[i]);
	fputc('\n', fp);
	text_block(fp, s, m);
	if (m->arch && !m->no_energy)
		text_energy(fp, m->arch, m->energy_src ? m->energy_src : s,
			    m->cycles);
	for (i = 0; i < m->n_regions; i++) {
		const struct ctr_region *r = &m->regions[i];
		struct ctrout_meta rm = *m;

		fprintf(fp, "\n Region '%s' on core %d, entered %llu time%s:\n\n",
			r->name, r->core, (unsigned long long)r->entries,
			r->entries == 1 ? "" : "s");
		rm.cycles = r->cycles;
		text_block(fp, &r->s, &rm);
		if (m->arch)
			text_energy(fp, m->arch, &r->s, r->cycles);
	}
	fputc('\n', fp);
}

/* ---- selection and -x output ----------------------------------------------------*/

static int n_parts(const char *name)
{
	int n = 1;

	for (; *name; name++)
		n += *name == '.';
	return n;
}

static int matches(const char *name, const char *const *pats, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (fnmatch(pats[i], name, 0) == 0)
			return 1;
		if (!strchr(pats[i], '.') && fnmatch(pats[i], leaf_of(name), 0) == 0)
			return 1;
	}
	return 0;
}

/* "core12.matrix.macs" -> "matrix.macs" (NULL if not core-prefixed). */
static const char *strip_core(const char *name)
{
	const char *p = name + 4;

	if (strncmp(name, "core", 4) != 0 || *p < '0' || *p > '9')
		return NULL;
	while (*p >= '0' && *p <= '9')
		p++;
	return *p == '.' ? p + 1 : NULL;
}

int ctrout_select(const struct ctr_sink *in, const char *const *pats,
		  size_t n_pats, int detail, int total, struct ctr_sink *out)
{
	size_t i, j;

	ctr_sink_init(out);
	for (i = 0; i < in->n; i++) {
		const struct ctr_entry *e = &in->v[i];
		const char *agg = total ? strip_core(e->name) : NULL;
		const char *name = agg ? agg : e->name;
		struct ctr_entry *o = NULL;

		if (n_pats ? !matches(e->name, pats, n_pats) &&
			     !(agg && matches(agg, pats, n_pats))
			   : !detail && n_parts(e->name) > 3)
			continue;
		if (agg && e->is_float)
			continue;
		for (j = 0; agg && j < out->n; j++)
			if (strcmp(out->v[j].name, name) == 0) {
				o = &out->v[j];
				break;
			}
		if (o) {
			/* "cycles" of a core is when it finished: the latest. */
			if (strcmp(name, "cycles") == 0)
				o->u = o->u > e->u ? o->u : e->u;
			else
				o->u += e->u;
			continue;
		}
		ctr_emit_copy(out, name, e);
	}
	return out->oom ? NPU_ENOMEM : 0;
}

size_t ctrout_drop_zeros(struct ctr_sink *s)
{
	size_t i, k = 0;

	for (i = 0; i < s->n; i++) {
		if (!s->v[i].is_float && s->v[i].u == 0) {
			free(s->v[i].name);
			continue;
		}
		s->v[k++] = s->v[i];
	}
	i = s->n - k;
	s->n = k;
	return i;
}

int ctrout_print_x(FILE *fp, const char *sep, const struct ctr_sink *s,
		   const struct ctrout_meta *m)
{
	static const struct ctrout_meta none;
	char comment[160], *c;
	size_t i;

	if (s->oom)
		return NPU_ENOMEM;
	if (!m)
		m = &none;
	fprintf(fp, "%llu%scycle%scycles%s\n", (unsigned long long)m->cycles,
		sep, sep, sep);
	for (i = 0; i < s->n; i++) {
		const struct ctr_entry *e = &s->v[i];

		json_value(fp, e);
		fprintf(fp, "%s%s%s%s%s", sep, ctrout_unit(e->name), sep,
			e->name, sep);
		derive(comment, sizeof(comment), m->ratio_src ? m->ratio_src : s, m, e);
		for (c = comment; *c == ' '; c++)
			;
		fprintf(fp, "%s\n", c);
	}
	return ferror(fp) ? NPU_EIO : 0;
}

/* ---- entry points ----------------------------------------------------------------*/

int ctrout_print(FILE *fp, enum ctrout_fmt f, const struct ctr_sink *s,
		 const struct ctrout_meta *m)
{
	/* No metadata: cycles 0, clock unknown (no times, no GB/s). */
	static const struct ctrout_meta none;

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
