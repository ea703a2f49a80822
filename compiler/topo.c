/*
 * topo.c - SCALE-Sim topology CSVs (topo.h).
 *
 * Read the way SCALE-Sim v2 reads them (scalesim/topology_utils.py,
 * load_arrays_conv / load_arrays_gemm): the first line is a header and is
 * skipped, blank lines are skipped, fields are split on commas (no
 * quoting) and stripped of spaces.  Where SCALE-Sim would crash or
 * silently drop a row, npusim reports path:line:col instead.
 *
 * Convolution rows: output size ceil((H - R + S) / S) per axis
 * (topo_calc_hyperparams), the windows that overhang the bottom/right
 * edge reading zeros (operand_matrix.py marks their addresses invalid):
 * that is ONNX padding 0 at the top/left and (S - (H - R) % S) % S at the
 * bottom/right.  A row whose name contains "DP" is depthwise: SCALE-Sim
 * runs it as Channels single-channel layers of Num Filter filters each,
 * which is one convolution with group = Channels and Channels x Num Filter
 * output channels.  GEMM rows are SCALE-Sim's M x K by K x N product
 * (it runs them as an M x K "ifmap", a 1 x K filter, N filters).
 */
#include "topo.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest size a column may hold: any real layer, and products of a
 * few of them stay far inside int64 (graph_infer bounds the rest). */
#define TOPO_MAX_VALUE 1000000000LL
/* Larger files are not topologies (a ResNet-50 is 5 KiB). */
#define TOPO_MAX_BYTES (64L << 20)
/* Fields looked at per row; SCALE-Sim uses at most 9. */
#define TOPO_MAX_FIELDS 16

enum { TOPO_CONV, TOPO_GEMM };

static const char *const conv_cols[] = {
	"Layer name", "IFMAP Height", "IFMAP Width", "Filter Height",
	"Filter Width", "Channels", "Num Filter", "Strides", "Stride Width",
};
static const char *const gemm_cols[] = { "Layer", "M", "N", "K" };

struct field {
	const char *s;  /* stripped text (not terminated) */
	int len;
	int col;        /* 1-based column of its first character */
};

struct row {
	const char *name;   /* file name for messages */
	int line;
	struct field f[TOPO_MAX_FIELDS];
	int n;
	struct diag *d;
};

static int is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Split one line (without its '\n') into stripped fields. */
static void split(struct row *r, const char *s, size_t len)
{
	size_t i = 0;
	r->n = 0;
	while (r->n < TOPO_MAX_FIELDS) {
		size_t b = i;
		while (i < len && s[i] != ',')
			i++;
		size_t e = i;
		while (b < e && is_blank((unsigned char)s[b]))
			b++;
		while (e > b && is_blank((unsigned char)s[e - 1]))
			e--;
		r->f[r->n].s = s + b;
		r->f[r->n].len = (int)(e - b);
		r->f[r->n].col = (int)b + 1;
		r->n++;
		if (i >= len)
			break;
		i++;    /* past the comma */
	}
}

static int field_is(const struct field *f, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)f->len != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)f->s[i]) != tolower((unsigned char)w[i]))
			return 0;
	return 1;
}

/* A decimal integer (Python's int(): an optional sign, digits). */
static int parse_int(const struct field *f, long long *v)
{
	int i = 0;
	long long x = 0;
	int neg = 0;
	if (i < f->len && (f->s[i] == '+' || f->s[i] == '-'))
		neg = f->s[i++] == '-';
	if (i >= f->len)
		return -1;
	for (; i < f->len; i++) {
		if (!isdigit((unsigned char)f->s[i]))
			return -1;
		if (x <= TOPO_MAX_VALUE)
			x = x * 10 + (f->s[i] - '0');
	}
	*v = neg ? -x : x;
	return 0;
}

static int row_error(const struct row *r, int col, const char *fmt, ...)
	NPU_PRINTF(3, 4);

static int row_error(const struct row *r, int col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return diag_error(r->d, diag_at_file(r->name, r->line, col),
			  NPU_EMODEL, "%s", msg);
}

/* Column i of the row as a size in [1, TOPO_MAX_VALUE]. */
static int get_size(const struct row *r, int i, const char *const *cols,
		    int n_cols, long long *v)
{
	if (i >= r->n) {
		const struct field *l = &r->f[r->n - 1];
		return row_error(r, l->col + l->len, "missing column %d (%s): "
				 "a row needs %d columns (%s, ...)", i + 1,
				 cols[i], n_cols, cols[0]);
	}
	const struct field *f = &r->f[i];
	if (f->len == 0)
		return row_error(r, f->col, "column %d (%s) is empty", i + 1,
				 cols[i]);
	if (parse_int(f, v))
		return row_error(r, f->col, "column %d (%s): '%.*s' is not an "
				 "integer", i + 1, cols[i], f->len, f->s);
	if (*v < 1)
		return row_error(r, f->col, "column %d (%s) is %lld: it must "
				 "be at least 1", i + 1, cols[i], *v);
	if (*v > TOPO_MAX_VALUE)
		return row_error(r, f->col, "column %d (%s) is %.*s: more than "
				 "%lld", i + 1, cols[i], f->len, f->s,
				 TOPO_MAX_VALUE);
	return 0;
}

/* A tensor of the layer: "<layer>.<what>", shape given (rank -1: left to
 * graph_infer). */
static int add_tensor(struct graph *g, const char *layer, const char *what,
		      unsigned flags, int rank, const int64_t *dim)
{
	char name[600];
	snprintf(name, sizeof name, "%s.%s", layer, what);
	int t = graph_tensor(g, name);
	if (t < 0)
		return -1;
	struct g_tensor *x = &g->tensors[t];
	x->dtype = G_DT_F32;
	x->rank = rank;
	if (rank > 0)
		memcpy(x->dim, dim, (size_t)rank * sizeof *dim);
	x->flags |= flags;
	if ((flags & G_T_INPUT) && graph_add_input(g, t))
		return -1;
	return t;
}

/* One layer: its input, weights, node and output. */
static int add_layer(struct graph *g, const struct row *r, int form,
		     const long long *v)
{
	const struct field *nf = &r->f[0];
	char base[400], layer[512], probe[600];
	/* SCALE-Sim allows any name, even none or a repeated one; tensor
	 * names must be unique, so those get the line number. */
	if (nf->len)
		snprintf(base, sizeof base, "%.*s", nf->len, nf->s);
	else
		snprintf(base, sizeof base, "line%d", r->line);
	for (int i = 0;; i++) {
		if (i == 0)
			snprintf(layer, sizeof layer, "%s", base);
		else
			snprintf(layer, sizeof layer, "%s_line%d%.0d", base,
				 r->line, i > 1 ? i : 0);
		snprintf(probe, sizeof probe, "%s.ifmap", layer);
		if (graph_find(g, probe) < 0)
			break;
	}
	int k = graph_add_node(g, form == TOPO_GEMM ? G_MATMUL : G_CONV,
			       layer);
	if (k < 0)
		return NPU_ENOMEM;
	int x, w, y;
	if (form == TOPO_GEMM) {
		int64_t a[2] = { v[1], v[3] }, b[2] = { v[3], v[2] };
		x = add_tensor(g, layer, "ifmap", G_T_INPUT, 2, a);
		w = add_tensor(g, layer, "filter", G_T_CONST | G_T_SYNTH, 2, b);
		y = add_tensor(g, layer, "ofmap", 0, -1, NULL);
	} else {
		int64_t h = v[1], wd = v[2], fh = v[3], fw = v[4], c = v[5],
			m = v[6], sh = v[7], sw = v[8];
		int dw = 0;   /* SCALE-Sim: 'DP' in the name, case and all */
		for (int i = 0; i + 1 < nf->len; i++)
			if (nf->s[i] == 'D' && nf->s[i + 1] == 'P')
				dw = 1;
		struct g_node *n = &g->nodes[k];
		n->kernel[0] = (int)fh;
		n->kernel[1] = (int)fw;
		n->stride[0] = (int)sh;
		n->stride[1] = (int)sw;
		n->pad[2] = (int)((sh - (h - fh) % sh) % sh);
		n->pad[3] = (int)((sw - (wd - fw) % sw) % sw);
		n->group = dw ? (int)c : 1;
		int64_t xd[4] = { 1, c, h, wd };
		int64_t wdim[4] = { dw ? c * m : m, dw ? 1 : c, fh, fw };
		x = add_tensor(g, layer, "ifmap", G_T_INPUT, 4, xd);
		w = add_tensor(g, layer, "filter", G_T_CONST | G_T_SYNTH, 4,
			       wdim);
		y = add_tensor(g, layer, "ofmap", 0, -1, NULL);
	}
	if (x < 0 || w < 0 || y < 0 || graph_add_output(g, y))
		return NPU_ENOMEM;
	struct g_node *n = &g->nodes[k];
	n->in[0] = x;
	n->in[1] = w;
	n->n_in = 2;
	n->out[0] = y;
	n->n_out = 1;
	return 0;
}

static int parse_row(struct graph *g, struct row *r, int form)
{
	const char *const *cols = form == TOPO_GEMM ? gemm_cols : conv_cols;
	int need = form == TOPO_GEMM ? 4 : 8;
	long long v[9];
	for (int i = 1; i < need; i++) {
		int e = get_size(r, i, cols, need, &v[i]);
		if (e)
			return e;
	}
	if (form == TOPO_CONV) {
		/* column 9: the stride width when it is a number (SCALE-Sim
		 * v2), else a comment such as mobilnet_paper.csv's "#dw" */
		v[8] = v[7];
		if (r->n > 8 && r->f[8].len &&
		    (isdigit((unsigned char)r->f[8].s[0]) ||
		     r->f[8].s[0] == '+' || r->f[8].s[0] == '-')) {
			int e = get_size(r, 8, cols, need, &v[8]);
			if (e)
				return e;
		}
		for (int i = 1; i <= 2; i++)
			if (v[i + 2] > v[i])
				return row_error(r, r->f[i + 2].col, "the filter "
						 "%s %lld is larger than the "
						 "IFMAP %s %lld", i == 1 ?
						 "height" : "width", v[i + 2],
						 i == 1 ? "height" : "width",
						 v[i]);
	}
	return add_layer(g, r, form, v);
}

int topo_parse(struct graph *g, const char *name, const char *text,
	       size_t len, struct diag *d)
{
	struct row r = { .name = name, .d = d };
	int form = TOPO_CONV, layers = 0;
	size_t pos = 0;
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		pos = 3;    /* a UTF-8 byte order mark (spreadsheet export) */
	if (pos >= len)
		return diag_error(d, diag_at_file(name, 1, 1), NPU_EMODEL,
				  "empty file: a topology starts with a header "
				  "row");
	while (pos < len) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;
		pos += l + (nl != NULL);
		r.line++;
		if (memchr(s, '\0', l))
			return diag_error(d, diag_at_file(name, r.line, 0),
					  NPU_EMODEL, "a NUL byte: not a text "
					  "CSV file");
		split(&r, s, l);
		if (r.line == 1) {
			long long v;
			if (r.n >= 4 && field_is(&r.f[1], "M") &&
			    field_is(&r.f[2], "N") && field_is(&r.f[3], "K"))
				form = TOPO_GEMM;
			else if (r.n >= 2 && !parse_int(&r.f[1], &v))
				return diag_error(d, diag_at_file(name, 1,
						  r.f[1].col), NPU_EMODEL,
						  "line 1 holds a layer, not a "
						  "header: SCALE-Sim skips the "
						  "first line, so the file "
						  "needs a header row (%s, "
						  "...)", conv_cols[0]);
			continue;
		}
		int blank = 1;
		for (int i = 0; i < r.n; i++)
			if (r.f[i].len)
				blank = 0;
		if (blank)
			continue;   /* "" and ",,,," (Resnet50.csv line 2) */
		int e = parse_row(g, &r, form);
		if (e)
			return e;
		layers++;
	}
	if (!layers)
		return diag_error(d, diag_at_file(name, r.line, 0), NPU_EMODEL,
				  "no layers: only a header row");
	graph_uses(g);  /* producers; every layer's output is an output */
	return 0;
}

int topo_import(struct graph *g, const char *path, struct diag *d)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "cannot open: %s", strerror(errno));
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int e = 0;
	for (;;) {
		if (n == cap) {
			if (cap >= (size_t)TOPO_MAX_BYTES) {
				e = diag_error(d, diag_at_file(path, 0, 0),
					       NPU_EMODEL, "larger than %ld MiB: "
					       "not a topology CSV",
					       TOPO_MAX_BYTES >> 20);
				break;
			}
			cap = cap ? cap * 2 : 16384;
			char *p = realloc(buf, cap);
			if (!p) {
				e = diag_error(d, diag_at_file(path, 0, 0),
					       NPU_ENOMEM, "out of memory");
				break;
			}
			buf = p;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				e = diag_error(d, diag_at_file(path, 0, 0),
					       NPU_EIO, "cannot read: %s",
					       strerror(errno));
			break;
		}
	}
	fclose(f);
	if (!e)
		e = topo_parse(g, path, buf ? buf : "", n, d);
	free(buf);
	return e;
}
