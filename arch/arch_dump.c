/*
 * arch_dump.c - the chip description as text: the resolved config in
 * libconfig syntax (npusim config --dump), the one-paragraph summary, the
 * key list (--keys) and docs/config.md, all generated from params.def.
 *
 * The dump is loadable: every key is written with its resolved value in
 * nested groups, floats in the shortest form that reads back to the same
 * double, integers beyond 32 bits with libconfig's L suffix, strings
 * escaped.  Loading a dump therefore gives the same values bit for bit
 * (tests/unit/test_arch.c checks this for every shipped config).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/dtype.h"
#include "arch_int.h"

/* ---- number formatting ------------------------------------------------------*/

void arch_fmt_float(char *buf, size_t n, double v)
{
	int prec;

	/*
	 * whole numbers as "100.0", not "1e+02"; below 1e15 that text has
	 * at most 15 digits and is exact, larger ones take the shorter %g
	 * path below ("1e+20", not 21 digits)
	 */
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, n, "%.1f", v);
		return;
	}
	/*
	 * the first precision that reads back exactly: 0.7 stays "0.7";
	 * 17 significant digits always suffice for a double (IEEE 754)
	 */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* libconfig takes "1" for an integer; "1.0" and "1e+06" are floats */
	if (!strpbrk(buf, ".eE") && strlen(buf) + 3 <= n)
		strcat(buf, ".0");
}

void arch_fmt_si(char *buf, size_t n, double v)
{
	static const char *const pre[] = { "", "k", "M", "G", "T", "P", "E" };
	int k = 0;

	/*
	 * 999.5 rather than 1000: %.3g would print 999.7 as "1e+03"; moving
	 * up a prefix first gives "1 k".
	 */
	while (k < 6 && fabs(v) >= 999.5) {
		v /= 1000;
		k++;
	}
	snprintf(buf, n, "%.3g %s", v, pre[k]);
}

void arch_fmt_bytes(char *buf, size_t n, double v)
{
	static const char *const pre[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int k = 0;

	/* Only exact multiples climb: 1536 stays "1536 B", not "1.5 KiB". */
	while (k < 4 && v >= 1024 && fmod(v, 1024) == 0) {
		v /= 1024;
		k++;
	}
	snprintf(buf, n, "%.0f %s", v, pre[k]);
}

/* ---- the resolved dump -------------------------------------------------------*/

/*
 * Column where the trailing doc comments start.
 * (Longer settings push their comment right, one space after the ';'.)
 */
#define DUMP_COMMENT_COL 40

/* A libconfig string literal with escapes: quote and backslash escaped,
 * control characters as \xNN, which libconfig's scanner reads back. */
static void put_string(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", fp);
		else if (c == '\t')
			fputs("\\t", fp);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\x%02x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

/*
 * An integer in libconfig syntax: beyond 32 bits it needs the L suffix.
 * (Also the 32-bit truncation quirk of libconfig 1.5: see arch.c.)
 */
static int int_text(char *buf, size_t n, int64_t v)
{
	return snprintf(buf, n, "%lld%s", (long long)v,
			v > 2147483647LL || v < -2147483648LL ? "L" : "");
}

/* Write the value of key id as libconfig text into buf (strings are
 * written by put_string, which needs no buffer limit). */
static void value_text(const struct arch *a, int id, char *buf, size_t n)
{
	const union param_val *v = &a->v[id];
	size_t used;
	int k;

	switch (param_info[id].type) {
	case PT_INT:
		(void)int_text(buf, n, v->i);
		break;
	case PT_FLT:
		arch_fmt_float(buf, n, v->f);
		break;
	case PT_BOOL:
		snprintf(buf, n, "%s", v->i ? "true" : "false");
		break;
	case PT_ENUM:
		snprintf(buf, n, "\"%s\"", arch_enum_name(a, id));
		break;
	case PT_STR:
		buf[0] = '\0'; /* written by put_string */
		break;
	case PT_LIST:
		used = (size_t)snprintf(buf, n, "[");
		for (k = 0; k < v->l.n && used < n; k++)
			used += (size_t)snprintf(buf + used, n - used, "%s%lld",
						 k ? ", " : "",
						 (long long)v->l.v[k]);
		if (used < n)
			snprintf(buf + used, n - used, "]");
		break;
	}
}

/* The trailing comment of one key: doc, unit and range, provenance.  The
 * dump doubles as a reference card, so the comment says what the table
 * says about the key. */
static void comment_text(const struct arch *a, int id, char *buf, size_t n)
{
	const struct param_info *p = &param_info[id];
	char extra[96] = "", lo[32], hi[32];
	int pi = ARCH_E(a, DRAM_PRESET);
	size_t used;

	used = (size_t)snprintf(buf, n, "%s", p->doc);
	if (p->type == PT_INT || p->type == PT_FLT) {
		if (p->type == PT_INT) {
			snprintf(lo, sizeof(lo), "%.0f", p->lo);
			snprintf(hi, sizeof(hi), "%.0f", p->hi);
		} else {
			snprintf(lo, sizeof(lo), "%g", p->lo);
			snprintf(hi, sizeof(hi), "%g", p->hi);
		}
		if (strcmp(p->unit, "byte") == 0 && a->v[id].i >= 1024) {
			char b[32];

			arch_fmt_bytes(b, sizeof(b), (double)a->v[id].i);
			snprintf(extra, sizeof(extra), "; = %s", b);
		}
		used += (size_t)snprintf(buf + used, n > used ? n - used : 0,
					 " [%s, %s..%s%s]", p->unit, lo, hi,
					 extra);
	} else if (p->type == PT_LIST) {
		used += (size_t)snprintf(buf + used, n > used ? n - used : 0,
					 " [%s, each %.0f..%.0f]", p->unit,
					 p->lo, p->hi);
	} else if (p->type == PT_ENUM) {
		used += (size_t)snprintf(buf + used, n > used ? n - used : 0,
					 " [%s]", p->names);
	}
	/* provenance that survives a re-dump: "= preset" compares values,
	 * not where they came from, so a dump of a dump is the same text */
	if (a->src[id].file && strcmp(a->src[id].file, "<command line>") == 0)
		snprintf(buf + used, n > used ? n - used : 0, " (set by -s)");
	else if (arch_is_preset_key(id) &&
		 (p->type == PT_FLT
			  ? a->v[id].f == arch_preset_value(pi, id)
			  : (double)a->v[id].i == arch_preset_value(pi, id)))
		snprintf(buf + used, n > used ? n - used : 0,
			 " (= dram.preset)");
}

static void indent(FILE *fp, int depth)
{
	int i;

	for (i = 0; i < depth; i++)
		fputs("  ", fp);
}

/*
 * 1 if param i is the first key under prefix+sub (so the group opens).
 * Quadratic in the number of keys (94 x 94 at most per group), run once
 * per dump: not worth an index.
 */
static int opens_group(int i, const char *prefix, const char *sub, size_t sn)
{
	size_t pn = strlen(prefix);
	int j;

	for (j = 0; j < i; j++) {
		const char *k = param_info[j].key;

		if (strncmp(k, prefix, pn) == 0 &&
		    strncmp(k + pn, sub, sn) == 0 && k[pn + sn] == '.')
			return 0;
	}
	return 1;
}

/*
 * Keys under prefix ("" or "core.matrix."): direct keys as settings, each
 * subgroup once, where its first key appears in params.def.  libconfig
 * rejects a group written twice, so a subgroup is never reopened.
 */
static void dump_group(const struct arch *a, FILE *fp, const char *prefix,
		       int depth)
{
	size_t pn = strlen(prefix);
	int i;

	for (i = 0; i < P_N; i++) {
		const char *key = param_info[i].key, *rest, *dot;
		char val[1024], com[640];
		int col;

		if (strncmp(key, prefix, pn) != 0)
			continue;
		rest = key + pn;
		dot = strchr(rest, '.');
		if (dot) {
			size_t sn = (size_t)(dot - rest);
			char sub[ARCH_PATH_MAX];

			if (!opens_group(i, prefix, rest, sn) ||
			    pn + sn + 2 > sizeof(sub))
				continue;
			memcpy(sub, key, pn + sn);
			sub[pn + sn] = '.';
			sub[pn + sn + 1] = '\0';
			if (depth == 0)
				fputc('\n', fp);
			indent(fp, depth);
			fprintf(fp, "%.*s = {\n", (int)sn, rest);
			dump_group(a, fp, sub, depth + 1);
			indent(fp, depth);
			fputs("};\n", fp);
			continue;
		}
		value_text(a, i, val, sizeof(val));
		comment_text(a, i, com, sizeof(com));
		indent(fp, depth);
		/*
		 * col tracks the output column so the '#' comments line up;
		 * a string's width is its length + 2 quotes (escapes, rare,
		 * only push the comment a little right).
		 */
		col = 2 * depth + fprintf(fp, "%s = ", rest);
		if (param_info[i].type == PT_STR) {
			put_string(fp, a->v[i].s);
			col += (int)strlen(a->v[i].s) + 2;
		} else {
			col += fprintf(fp, "%s", val);
		}
		col += fprintf(fp, ";");
		fprintf(fp, "%*s# %s\n",
			col < DUMP_COMMENT_COL ? DUMP_COMMENT_COL - col : 1, "",
			com);
	}
}

/*
 * "1.024e+12 (1.02 T)"
 * (Full-precision value for checking, SI form for reading.)
 */
static void both(char *buf, size_t n, double v)
{
	char si[32];

	arch_fmt_si(si, sizeof(si), v);
	snprintf(buf, n, "%.6g (%s)", v, si);
}

/*
 * The derived peaks, one '#' comment line each, with the formula and the
 * numbers that went into it, so a reader can check them by hand.  They
 * are comments: loading the dump recomputes them from the settings.
 */
static void dump_derived(const struct arch *a, FILE *fp)
{
	const struct arch_derived *d = &a->d;
	char b1[64], b2[64], b3[64];
	int k, cols = (int)ARCH_I(a, NOC_COLS);

	fputs("\n# ---- derived peaks: computed from the values above on every "
	      "load; not settings ----\n", fp);
	fprintf(fp, "# clock: %g GHz = %g cycles/s\n", ARCH_F(a, CHIP_CLOCK_GHZ),
		arch_clock_hz(a));
	both(b1, sizeof(b1), d->peak[ARCH_PEAK_MACS_PER_S_CORE]);
	both(b2, sizeof(b2), d->peak[ARCH_PEAK_MACS_PER_S_CHIP]);
	both(b3, sizeof(b3), 2 * d->peak[ARCH_PEAK_MACS_PER_S_CHIP]);
	fprintf(fp, "# matrix MAC/s per core = rows x cols x clock = %lld x %lld "
		    "x %g = %s\n", (long long)ARCH_I(a, MTX_ROWS),
		(long long)ARCH_I(a, MTX_COLS), arch_clock_hz(a), b1);
	fprintf(fp, "# matrix MAC/s chip = per core x chip.cores (%lld) = %s; "
		    "ops/s = 2 x MAC/s = %s\n", (long long)ARCH_I(a, CHIP_CORES),
		b2, b3);
	fputs("# MAC/s by input type (x core.matrix.macs_per_pe.<type>):\n", fp);
	for (k = 0; k < arch_enum_count(P_MTX_IN_TYPE); k++) {
		const char *name = arch_enum_at(P_MTX_IN_TYPE, k);
		int t = dtype_from_name(name);

		both(b1, sizeof(b1), d->peak[ARCH_PEAK_MACS_PER_S_CORE] * arch_macs_per_pe(a, k));
		both(b2, sizeof(b2), d->macs_per_s_type[k]);
		fprintf(fp, "#   %-8s (acc %s)  core %s  chip %s%s\n", name,
			t >= 0 && dtype_is_float((enum npu_dtype)t) ? "fp32 "
								    : "int32",
			b1, b2, k == ARCH_E(a, MTX_IN_TYPE) ? "  <- in_type" : "");
	}
	both(b1, sizeof(b1), d->peak[ARCH_PEAK_SPM_BYTES_PER_S]);
	fprintf(fp, "# scratchpad bytes/s per core = banks x bank_width x ports "
		    "x clock = %lld x %lld x %lld x %g = %s\n",
		(long long)ARCH_I(a, SPM_BANKS), (long long)ARCH_I(a, SPM_BANK_WIDTH),
		(long long)ARCH_I(a, SPM_PORTS), arch_clock_hz(a), b1);
	both(b1, sizeof(b1), d->peak[ARCH_PEAK_ACC_BYTES_PER_S]);
	fprintf(fp, "# accumulator bytes/s per core = banks x bank_width x ports "
		    "x clock = %lld x %lld x %lld x %g = %s\n",
		(long long)ARCH_I(a, ACC_BANKS), (long long)ARCH_I(a, ACC_BANK_WIDTH),
		(long long)ARCH_I(a, ACC_PORTS), arch_clock_hz(a), b1);
	both(b1, sizeof(b1), d->peak[ARCH_PEAK_VEC_OPS_PER_S]);
	fprintf(fp, "# vector ops/s per core = lanes x clock = %lld x %g = %s\n",
		(long long)ARCH_I(a, VEC_LANES), arch_clock_hz(a), b1);
	both(b1, sizeof(b1), d->peak[ARCH_PEAK_NOC_BISECTION_BYTES_PER_S]);
	fprintf(fp, "# NoC bisection bytes/s = cut links x link_bytes x 2 "
		    "directions x clock (%s %lldx%lld) = %s\n",
		arch_enum_name(a, P_NOC_TOPOLOGY), (long long)ARCH_I(a, NOC_COLS),
		(long long)ARCH_I(a, NOC_ROWS), b1);
	both(b1, sizeof(b1), d->peak[ARCH_PEAK_DRAM_BYTES_PER_S]);
	if (ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_IDEAL)
		fprintf(fp, "# DRAM bytes/s = dram.ideal.bandwidth_gbps x 1e9 "
			    "= %s\n", b1);
	else
		fprintf(fp, "# DRAM bytes/s = channels x bus_bits / 8 x "
			    "beats_per_tck / tck = %lld x %lld / 8 x %lld / %g ns"
			    " = %s\n", (long long)ARCH_I(a, DRAM_CHANNELS),
			(long long)ARCH_I(a, DRAM_BUS_BITS),
			(long long)ARCH_I(a, DRAM_BEATS_PER_TCK),
			ARCH_F(a, DRAM_TCK), b1);
	fputs("# placement (node = y * noc.cols + x):", fp);
	/* Six entries per line keep a 16-core placement readable. */
	for (k = 0; k < ARCH_I(a, CHIP_CORES); k++)
		fprintf(fp, "%s core%d@(%d,%d)", k % 6 == 5 ? "\n#  " : "", k,
			a->d.core_node[k] % cols, a->d.core_node[k] / cols);
	for (k = 0; k < ARCH_I(a, DRAM_CHANNELS); k++)
		fprintf(fp, "%s dram%d@(%d,%d)",
			(k + (int)ARCH_I(a, CHIP_CORES)) % 6 == 5 ? "\n#  " : "",
			k, a->d.dram_node[k] % cols, a->d.dram_node[k] / cols);
	fputc('\n', fp);
}

/* Text inside a '#' comment: a newline would end the comment and turn
 * the rest into (broken) settings, so control characters become '?'. */
static void put_comment_text(FILE *fp, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, fp);
}

/*
 * Can the DMA engines keep the DRAM busy?  By Little's law the bytes in
 * flight must cover bandwidth x latency: all engines of all cores x
 * core.dma.max_outstanding x core.dma.burst_bytes against the DRAM peak x
 * its unloaded read latency.  The latency is a lower bound (timed mode: a
 * row miss's tRCD + tCL, no queueing, no NoC; ideal mode: its fixed
 * latency), so a config this flags cannot reach its peak with any kernel.
 */
int arch_dma_covers_dram(const struct arch *a, double *reach_bps,
			 double *latency_ns)
{
	double inflight = (double)ARCH_I(a, CHIP_CORES) *
			  (double)ARCH_I(a, DMA_ENGINES) *
			  (double)ARCH_I(a, DMA_OUTSTANDING) *
			  (double)ARCH_I(a, DMA_BURST);

	if (ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_IDEAL)
		*latency_ns = ARCH_F(a, DRAM_IDEAL_LAT);
	else
		*latency_ns = (double)(ARCH_I(a, DRAM_TRCD) + ARCH_I(a, DRAM_TCL)) *
			      ARCH_F(a, DRAM_TCK);
	*reach_bps = *latency_ns > 0 ? inflight / (*latency_ns * 1e-9) : 1e300;
	return *reach_bps >= ARCH_PEAK(a, DRAM_BYTES_PER_S);
}

/* FNV-1a (64-bit) of n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

/*
 * A fingerprint of the resolved settings: every key with its value, in
 * table order, so two configs that resolve alike (whatever their files,
 * comments or order) hash alike.  Floats go in as their bits.
 */
uint64_t arch_hash(const struct arch *a)
{
	uint64_t h = 0xcbf29ce484222325ull;
	int i;

	for (i = 0; i < P_N; i++) {
		const struct param_info *p = &param_info[i];
		const union param_val *v = &a->v[i];

		h = fnv(h, p->key, strlen(p->key) + 1);
		switch (p->type) {
		case PT_INT:
		case PT_BOOL:
		case PT_ENUM:
			h = fnv(h, &v->i, sizeof(v->i));
			break;
		case PT_FLT:
			h = fnv(h, &v->f, sizeof(v->f));
			break;
		case PT_STR:
			h = fnv(h, v->s ? v->s : "", v->s ? strlen(v->s) + 1 : 1);
			break;
		case PT_LIST:
			h = fnv(h, &v->l.n, sizeof(v->l.n));
			if (v->l.n)
				h = fnv(h, v->l.v, (size_t)v->l.n * sizeof(*v->l.v));
			break;
		}
	}
	return h;
}

/*
 * Returns NPU_EIO if any write failed (the stream's error flag); the CLI
 * (cmd_config.c) writes through fsout, so a failed dump leaves no
 * partial file.
 */
int arch_dump(const struct arch *a, FILE *fp)
{
	fputs("# ", fp);
	put_comment_text(fp, ARCH_S(a, CHIP_NAME));
	fputs(": resolved chip configuration (npusim config --dump)", fp);
	if (a->path) {
		fputs("\n# source: ", fp);
		put_comment_text(fp, a->path);
	}
	fputs("\n# Every key with its final value: defaults, dram.preset "
	      "timings, -s overrides\n# and NoC placement applied.  Loading "
	      "this file gives the same chip.\n", fp);
	dump_group(a, fp, "", 0);
	dump_derived(a, fp);
	return ferror(fp) ? NPU_EIO : 0;
}

/* ---- summary -------------------------------------------------------------------*/

/*
 * Non-breaking space inside the summary ("4 MiB" stays on one line).
 * 0x1f (ASCII unit separator) does not occur in numbers or sane names;
 * wrap() turns it back into a space on output.
 */
#define NBSP '\x1f'

/* Make the spaces of a number-with-unit non-breaking. */
static void glue(char *s)
{
	for (; *s; s++)
		if (*s == ' ')
			*s = NBSP;
}

/* Print text wrapped at 76 columns, breaking only at plain spaces. */
static void wrap(FILE *fp, const char *text)
{
	const char *s = text;
	int col = 0, k;

	while (*s) {
		const char *sp = strchr(s, ' ');
		int w = sp ? (int)(sp - s) : (int)strlen(s);

		if (col && col + 1 + w > 76) {
			fputc('\n', fp);
			col = 0;
		} else if (col) {
			fputc(' ', fp);
			col++;
		}
		for (k = 0; k < w; k++)
			fputc(s[k] == NBSP ? ' ' : s[k], fp);
		col += w;
		s += w;
		while (*s == ' ')
			s++;
	}
	fputc('\n', fp);
}

/* Indexed by core.matrix.dataflow; the "%" guards the index. */
static const char *const dataflow_long[ARCH_N_MTX_DATAFLOW] = {
	[ARCH_MTX_DATAFLOW_WS] = "weight-stationary",
	[ARCH_MTX_DATAFLOW_OS] = "output-stationary",
	[ARCH_MTX_DATAFLOW_IS] = "input-stationary",
};

/* One paragraph for `npusim config` (no --dump): what the chip is and its
 * peaks, with numbers in engineering units. */
void arch_summary(const struct arch *a, FILE *fp)
{
	const struct arch_derived *d = &a->d;
	char text[2048], spm[32], acc[32], dram[32], p[6][32], kind[96];
	int64_t cores = ARCH_I(a, CHIP_CORES);
	int k;

	arch_fmt_bytes(spm, sizeof(spm), (double)ARCH_I(a, SPM_BYTES));
	arch_fmt_bytes(acc, sizeof(acc), (double)ARCH_I(a, ACC_BYTES));
	arch_fmt_bytes(dram, sizeof(dram), (double)ARCH_I(a, DRAM_BYTES));
	arch_fmt_si(p[0], sizeof(p[0]), d->peak[ARCH_PEAK_MACS_PER_S_CHIP]);
	arch_fmt_si(p[1], sizeof(p[1]), 2 * d->peak[ARCH_PEAK_MACS_PER_S_CHIP]);
	arch_fmt_si(p[2], sizeof(p[2]), d->peak[ARCH_PEAK_SPM_BYTES_PER_S]);
	arch_fmt_si(p[3], sizeof(p[3]), d->peak[ARCH_PEAK_NOC_BISECTION_BYTES_PER_S]);
	arch_fmt_si(p[4], sizeof(p[4]), d->peak[ARCH_PEAK_DRAM_BYTES_PER_S]);
	arch_fmt_si(p[5], sizeof(p[5]), d->peak[ARCH_PEAK_VEC_OPS_PER_S]);
	if (ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_IDEAL)
		snprintf(kind, sizeof(kind), "ideal (%g ns latency)",
			 ARCH_F(a, DRAM_IDEAL_LAT));
	else
		snprintf(kind, sizeof(kind), "%s timed",
			 arch_enum_name(a, P_DRAM_PRESET));
	glue(spm);
	glue(acc);
	glue(dram);
	for (k = 0; k < 6; k++)
		glue(p[k]);
	snprintf(text, sizeof(text),
		 "%s: %lld core%s at %g GHz on a %lldx%lld %s NoC. Each core: a "
		 "%lldx%lld %s %s array (%s accumulate), a %lld-lane vector "
		 "unit, %s scratchpad (%lld banks x %lld B), %s accumulator "
		 "(%lld banks x %lld B), %lld DMA engine%s. DRAM: %s, %lld "
		 "channel%s, %s. Peaks: %sMAC/s (%sOPS) chip, scratchpad %sB/s "
		 "per core, vector %sop/s per core, NoC bisection %sB/s, DRAM "
		 "%sB/s.",
		 ARCH_S(a, CHIP_NAME), (long long)cores, cores == 1 ? "" : "s",
		 ARCH_F(a, CHIP_CLOCK_GHZ), (long long)ARCH_I(a, NOC_COLS),
		 (long long)ARCH_I(a, NOC_ROWS), arch_enum_name(a, P_NOC_TOPOLOGY),
		 (long long)ARCH_I(a, MTX_ROWS), (long long)ARCH_I(a, MTX_COLS),
		 arch_enum_name(a, P_MTX_IN_TYPE),
		 dataflow_long[ARCH_E(a, MTX_DATAFLOW) % ARCH_N_MTX_DATAFLOW],
		 arch_enum_name(a, P_MTX_ACC_TYPE), (long long)ARCH_I(a, VEC_LANES),
		 spm, (long long)ARCH_I(a, SPM_BANKS),
		 (long long)ARCH_I(a, SPM_BANK_WIDTH), acc,
		 (long long)ARCH_I(a, ACC_BANKS), (long long)ARCH_I(a, ACC_BANK_WIDTH),
		 (long long)ARCH_I(a, DMA_ENGINES),
		 ARCH_I(a, DMA_ENGINES) == 1 ? "" : "s",
		 kind, (long long)ARCH_I(a, DRAM_CHANNELS),
		 ARCH_I(a, DRAM_CHANNELS) == 1 ? "" : "s", dram, p[0], p[1], p[2],
		 p[5], p[3], p[4]);
	wrap(fp, text);
}

/* ---- key list -----------------------------------------------------------------*/

/* Indexed by enum param_type (PT_INT ... PT_LIST), same order. */
static const char *const type_names[] = { "int", "float", "bool", "enum",
					  "string", "list" };

/* Default of a key as text ("32", "\"ws\"", "[]", "0 (preset)"). */
static void default_text(int id, char *buf, size_t n)
{
	const struct param_info *p = &param_info[id];

	switch (p->type) {
	case PT_INT:
		snprintf(buf, n, "%.0f", p->def);
		break;
	case PT_FLT:
		arch_fmt_float(buf, n, p->def);
		break;
	case PT_BOOL:
		snprintf(buf, n, "%s", p->def != 0 ? "true" : "false");
		break;
	case PT_ENUM:
	case PT_STR:
		snprintf(buf, n, "\"%s\"", p->sdef);
		break;
	case PT_LIST:
		snprintf(buf, n, "[]");
		break;
	}
}

/* Range or allowed values as text. */
static void range_text(int id, char *buf, size_t n)
{
	const struct param_info *p = &param_info[id];

	switch (p->type) {
	case PT_INT:
		snprintf(buf, n, "%.0f..%.0f", p->lo, p->hi);
		break;
	case PT_FLT:
		snprintf(buf, n, "%g..%g", p->lo, p->hi);
		break;
	case PT_LIST:
		snprintf(buf, n, "each %.0f..%.0f", p->lo, p->hi);
		break;
	case PT_BOOL:
		snprintf(buf, n, "true, false");
		break;
	case PT_ENUM:
		snprintf(buf, n, "%s", p->names);
		break;
	case PT_STR:
		snprintf(buf, n, "any");
		break;
	}
}

void arch_list_keys(FILE *fp)
{
	int i;

	fprintf(fp, "%-34s %-6s %-15s %-22s %s\n", "key", "type", "default",
		"range / values", "unit: meaning");
	for (i = 0; i < P_N; i++) {
		char def[64], rng[128];

		default_text(i, def, sizeof(def));
		range_text(i, rng, sizeof(rng));
		fprintf(fp, "%-34s %-6s %-15s %-22s %s%s%s\n", param_info[i].key,
			type_names[param_info[i].type], def, rng,
			param_info[i].unit, *param_info[i].unit ? ": " : "",
			param_info[i].doc);
	}
}

/* ---- docs/config.md -----------------------------------------------------------*/

/*
 * Markdown table cell: '|' would end the cell, so "ws|os|is" prints as
 * "ws, os, is".
 */
static void md_cell(FILE *fp, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs(", ", fp);
		else
			fputc(*s, fp);
	}
}

/*
 * The hand-written part of docs/config.md.  Its facts must follow the
 * code: the libconfig quirk (arch.c), the override syntax (parse_int,
 * apply_override), the rules (check_rules) and the formulas (derive).
 */
static const char doc_intro[] =
"# Chip configuration (`configs/*.cfg`)\n"
"\n"
"<!-- generated by `make docs` from arch/params.def and arch/arch_dump.c;\n"
"     do not edit: `make test` fails when this file is stale -->\n"
"\n"
"One [libconfig](https://hyperrealm.github.io/libconfig/) file describes the\n"
"whole chip. Every key below has a default, so an empty file is a valid chip\n"
"(the built-in default: one 32x32 int8 core with LPDDR5). `npusim config -c\n"
"FILE` checks a file and prints a summary; `npusim config -c FILE --dump`\n"
"prints the fully resolved configuration, itself a loadable file, with the\n"
"derived peaks as comments; `npusim config --keys` lists every key.\n"
"\n"
"## File syntax\n"
"\n"
"Keys are dotted paths; in the file each dot is a group:\n"
"\n"
"```\n"
"chip = { name = \"edge\"; clock_ghz = 0.8; cores = 1; };\n"
"core = {\n"
"  matrix = { rows = 32; cols = 32; dataflow = \"ws\"; in_type = \"int8\"; };\n"
"  scratchpad = { bytes = 262144; banks = 8; bank_width = 16; };\n"
"};\n"
"noc = { cols = 2; rows = 1; core_nodes = [0]; };\n"
"dram = { preset = \"lpddr5_6400\"; channels = 1; ideal = { latency_ns = 80.0; }; };\n"
"```\n"
"\n"
"- Settings end with `;`; comments are `#`, `//` or `/* */`.\n"
"- Integers: decimal or `0x` hex. libconfig reads an integer as 32 bits\n"
"  unless it carries the `L` suffix: write `8589934592L` for 8 GiB. (The\n"
"  libconfig 1.5 on Debian 12 silently truncates a longer literal without\n"
"  `L`; npusim checks the file text and reports it as an error instead.)\n"
"- Float keys accept integers too (`clock_ghz = 1;`); integer keys reject\n"
"  floats. Booleans are `true`/`false`. Enumerations and names are strings\n"
"  in double quotes. Lists are `[0, 1, 2]` (or `(0, 1, 2)`).\n"
"- Every setting in the file must be a known key or group; a misspelling is\n"
"  an error with a suggestion, never silently ignored.\n"
"\n"
"## `@include`\n"
"\n"
"`@include \"file.cfg\"` (on a line of its own) inserts another file at that\n"
"point. The name is relative to the directory of the top-level config file\n"
"(libconfig's include directory), also inside included files. libconfig\n"
"rejects a setting or group written twice at the same level, so split a\n"
"config by groups: e.g. a shared `dram-hbm3.cfg` holding the whole `dram`\n"
"group, included by several chip files that do not write `dram` themselves.\n"
"Errors inside an included file name that file and line.\n"
"\n"
"## Command-line overrides: `-s key=value`\n"
"\n"
"Every command that takes `-c FILE` also takes `-s key=value` (repeatable).\n"
"Overrides apply after the file, left to right, so the last one wins; they\n"
"are how sweeps change one parameter. The value is parsed by the key's type:\n"
"\n"
"| type | examples |\n"
"| --- | --- |\n"
"| int | `-s core.scratchpad.bytes=256K`, `=0x40000`, `=262144` (suffixes K, M, G, T multiply by 1024, 1024^2, ...) |\n"
"| float | `-s chip.clock_ghz=0.7`, `=1e0` |\n"
"| bool | `-s core.matrix.weight_double_buffer=true` (`true`, `false`, `1`, `0`) |\n"
"| enum / string | `-s core.matrix.dataflow=os` (quotes optional: `='\"os\"'`) |\n"
"| list | `-s 'noc.core_nodes=[0,1,2,3]'` (or `0,1,2,3`; `[]` = default placement) |\n"
"\n"
"Errors in overrides are reported as `<command line>: error: ...`.\n"
"\n"
"## DRAM presets\n"
"\n"
"`dram.preset` names a part (`ddr4_3200`, `ddr5_4800`, `lpddr5_6400`,\n"
"`hbm2`, `hbm2e`, `hbm3`; values in arch/dram_presets.def, parts and\n"
"sources in docs/dram.md). Every DRAM key whose doc says \"0 = from\n"
"preset\" takes the preset's value while it is 0; set it to any other value\n"
"to override that one parameter, and an empty `dram.mapping` takes the\n"
"preset's address layout. `npusim config --dump` shows the values in use,\n"
"marked `(= dram.preset)`. `dram.beats_per_tck` is 2 where data moves on\n"
"both edges of tCK (DDR4, DDR5, HBM) and 8 for LPDDR5, whose data moves on\n"
"both edges of WCK = 4 x CK at 6400 MT/s (JEDEC JESD209-5).\n"
"\n"
"With `dram.mode = \"ideal\"` the timing keys are ignored: every request\n"
"takes `dram.ideal.latency_ns` and all channels together move at most\n"
"`dram.ideal.bandwidth_gbps` (GB = 1e9 bytes).\n"
"\n"
"## Placement on the NoC\n"
"\n"
"The NoC is a `noc.cols` x `noc.rows` grid; node `y * cols + x` sits at\n"
"column x, row y. Each core and each DRAM channel (its memory controller)\n"
"attaches to a node of its own: two things on one node are an error, and a\n"
"chip needs at least `chip.cores + dram.channels` nodes. `noc.core_nodes`\n"
"and `noc.dram_nodes` give the node of each core / channel explicitly (one\n"
"entry each, or empty). An empty list is filled with the lowest-numbered free\n"
"nodes, cores first: by default cores take nodes 0..n-1 and the DRAM channels\n"
"the nodes after them. The dump writes the resolved lists.\n"
"\n"
"## Validation\n"
"\n"
"Loading reports every error, each as `file:line: error: message` with the\n"
"line of the offending key (for rules over several keys, the first of them\n"
"that is set in the file or by `-s`), and `npusim` exits with status 2:\n"
"\n"
"- libconfig syntax errors (the file's line; later checks are skipped);\n"
"- unknown keys and groups, with a did-you-mean suggestion;\n"
"- wrong types (e.g. a string for an integer), with what the key takes;\n"
"- values out of range, with the legal range and unit (zero sizes included);\n"
"- enumeration values not in the list, with the list and a suggestion;\n"
"- `bank_width` of the scratchpad and accumulator must be a power of two\n"
"  (bank interleaving takes address bits);\n"
"- `bytes` of the scratchpad and accumulator must be a multiple of\n"
"  `banks x bank_width` (the message offers the two nearest sizes);\n"
"- the scratchpad must hold one `rows x cols` tile of `in_type`, the\n"
"  accumulator one output row (`cols x 4` bytes);\n"
"- `acc_type` must match `in_type`: integer inputs accumulate in `int32`,\n"
"  floating-point inputs in `fp32`;\n"
"- placement: `chip.cores + dram.channels <= noc.cols x noc.rows`; list\n"
"  lengths equal `chip.cores` / `dram.channels`; every node inside the NoC;\n"
"  no node used twice;\n"
"- torus: each dimension is 1 or at least 3 (a ring of 2 would wire the same\n"
"  two routers twice), and `noc.vcs >= 2` (dimension-order routing on rings\n"
"  needs a dateline virtual channel to be deadlock-free);\n"
"- timed DRAM only: `bus_bits` a multiple of 8; `row_bytes` a multiple of\n"
"  one burst (`bus_bits / 8 x burst_length`); `dram.bytes` a multiple of\n"
"  `channels x row_bytes` and no larger than `channels x ranks x banks x\n"
"  rows x row_bytes`; `tras >= trcd`; `trfc + max(tras, tcwl + burst +\n"
"  twr) + trp + trcd < trefi`, with per-bank refresh the same for\n"
"  `trfc_pb` (burst = `burst_length / beats_per_tck` rounded up: a refresh\n"
"  waits for open rows to close, and a request's ACT after it must get its\n"
"  column command in before the next refresh is due).\n"
"\n"
"## Derived peaks\n"
"\n"
"Computed on every load (struct arch_derived) and printed by `--dump` as\n"
"comments. `clock` is `chip.clock_ghz x 1e9` cycles/s.\n"
"\n"
"| quantity | formula |\n"
"| --- | --- |\n"
"| matrix MAC/s per core | `core.matrix.rows x core.matrix.cols x clock`: one multiply-accumulate per PE per cycle |\n"
"| matrix MAC/s chip | per core `x chip.cores`; ops/s (TOPS) = 2 x MAC/s |\n"
"| per input type | the same for every `in_type`: the array does one MAC per PE per cycle whatever the width; int4 is *not* counted double (no sub-word packing is modelled) |\n"
"| scratchpad bytes/s per core | `banks x bank_width x ports x clock` |\n"
"| accumulator bytes/s per core | `banks x bank_width x ports x clock` |\n"
"| vector ops/s per core | `core.vector.lanes x clock` (one element op per lane per cycle) |\n"
"| NoC bisection bytes/s | `links x noc.link_bytes x 2 directions x clock`; the narrowest cut runs across the longer dimension and crosses `links = min(cols, rows)` links on a mesh, twice that on a torus (wraparound); 0 for a single node |\n"
"| DRAM bytes/s, timed | `dram.channels x dram.bus_bits / 8 x dram.beats_per_tck / (dram.tck_ns x 1e-9)`; e.g. DDR4-3200: 64 / 8 x 2 / 0.625 ns = 25.6 GB/s per channel; LPDDR5-6400 x16: 16 / 8 x 8 / 1.25 ns = 12.8 GB/s |\n"
"| DRAM bytes/s, ideal | `dram.ideal.bandwidth_gbps x 1e9` |\n"
"\n"
"Example: TPU v1 (configs/tpu-v1.cfg): 256 x 256 x 0.7e9 = 45.9 TMAC/s =\n"
"91.8 TOPS, the paper's \"92 TOPS\".\n"
"\n"
"`npusim config` also checks that the DMA engines can keep the DRAM busy\n"
"(Little's law): `chip.cores x core.dma.engines x core.dma.max_outstanding\n"
"x core.dma.burst_bytes` bytes in flight must cover the DRAM peak times its\n"
"unloaded read latency (`(dram.trcd + dram.tcl) x dram.tck_ns` timed, a row\n"
"miss with no queueing; `dram.ideal.latency_ns` ideal). The latency is a\n"
"lower bound, so a config it warns about cannot reach its DRAM peak with any\n"
"kernel; every bundled config passes.\n"
"\n"
"## Example configs\n"
"\n"
"| file | chip |\n"
"| --- | --- |\n"
"| configs/default.cfg | small single-core edge NPU: 32x32 int8 WS, 256 KiB 8-bank scratchpad, 64 KiB accumulator, LPDDR5 |\n"
"| configs/tpu-v1.cfg | Google TPU v1 after Jouppi et al., ISCA 2017: 256x256 int8 WS at 700 MHz, 24 MiB unified buffer, 4 MiB accumulators, ~30 GB/s DDR3 |\n"
"| configs/gemmini.cfg | Gemmini default after Genc et al., DAC 2021: 16x16 int8, 256 KiB 4-bank scratchpad, 64 KiB accumulator |\n"
"| configs/datacenter.cfg | 16 cores on a 4x4 mesh of a 6x6 NoC, 128x128 bf16 arrays with fp32 accumulate, 16 HBM3 channels on the edge nodes |\n"
"\n"
"# Keys\n";

/*
 * docs/config.md: the fixed introduction, then one table per group in
 * first-appearance order of params.def (so the reference reads like a
 * config file), each key with its type, default, range, unit and doc.
 */
void arch_write_doc(FILE *fp)
{
	int g, i;

	fputs(doc_intro, fp);
	for (g = 0; g < arch_n_groups(); g++) {
		const char *grp = arch_group(g);
		size_t gn = strlen(grp);
		int depth = 0, any = 0;
		const char *c;

		for (c = grp; *c; c++)
			depth += *c == '.';
		/* Does any key sit directly in grp (not in a subgroup)? */
		for (i = 0; i < P_N && !any; i++)
			any = strncmp(param_info[i].key, grp, gn) == 0 &&
			      param_info[i].key[gn] == '.' &&
			      !strchr(param_info[i].key + gn + 1, '.');
		fprintf(fp, "\n%s `%s`\n", depth == 0 ? "##" : "###", grp);
		if (!any)
			continue;
		fputs("\n| key | type | default | range / values | unit | "
		      "meaning |\n| --- | --- | --- | --- | --- | --- |\n", fp);
		for (i = 0; i < P_N; i++) {
			const struct param_info *p = &param_info[i];
			char def[64], rng[128];

			if (strncmp(p->key, grp, gn) != 0 || p->key[gn] != '.' ||
			    strchr(p->key + gn + 1, '.'))
				continue;
			default_text(i, def, sizeof(def));
			range_text(i, rng, sizeof(rng));
			fprintf(fp, "| `%s` | %s | `%s` | ", p->key,
				type_names[p->type], def);
			md_cell(fp, rng);
			fprintf(fp, " | %s | ", p->unit);
			md_cell(fp, p->doc);
			fputs(" |\n", fp);
		}
	}
	arch_write_peaks_doc(fp);
}
