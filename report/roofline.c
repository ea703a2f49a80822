/*
 * roofline.c - roofline model, SVG plot and CSV table (see roofline.h).
 *
 * The SVG is written by hand: a fixed canvas (ROOF_W x at least ROOF_H
 * pixels) with the plot on the left and a legend column on the right.
 *
 *   +--------------------------------------------------+-------------+
 *   | title: chip; subtitle: config, clock, peaks       |             |
 *   |   +-------------------------------------------+   | key         |
 *   |   |           ______________ compute ceilings |   | (markers)   |
 *   |   |    SRAM  /  ____________                  |   |             |
 *   |   |        / DRAM                             |   | points:     |
 *   |   |      /  /   o--(1)                        |   | 1 run.json  |
 *   |   +-------------------------------------------+   | 2  layer    |
 *   |          operational intensity                    |             |
 *   +--------------------------------------------------+-------------+
 *
 * Both axes are log10 with whole decades at the ends, so every decade has
 * the same width and a slope-1 line (a bandwidth ceiling) is straight.
 * Points carry a number, placed next to the marker where it hits nothing
 * else already drawn (markers, other numbers, ceiling labels), with a
 * leader line when it had to move away; the legend maps numbers to names,
 * so a pile of 100 layers stays readable.  Every marker also has an SVG
 * <title> (a tooltip in browsers) with its numbers.
 *
 * Text from the outside (file and region names) is XML-escaped and reduced
 * to valid UTF-8 XML characters (anything else becomes '?'), so the SVG is
 * well-formed whatever the counters file held.
 */
#include "roofline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/diag.h"
#include "../util/strutil.h"

/* ---- layout (pixels) ------------------------------------------------------------*/

#define ROOF_W       1000  /* canvas width */
#define ROOF_H       640   /* canvas height without a long legend */
#define PX0          88.0  /* plot area: left */
#define PX1          700.0 /*            right */
#define PY0          72.0  /*            top */
#define PY1          568.0 /*            bottom */
#define LX           722.0 /* legend column: left edge */
#define LEG_ROW      16.0  /* legend row pitch */
#define LEG_KEY_ROWS 5     /* rows above the point list (key + headings) */
#define NAME_CPS     26    /* legend names longer than this are cut */
#define MAX_DECADES  30    /* an axis never spans more (absurd inputs) */
#define MARK_R       4.5   /* marker radius */
#define NUM_FONT     10.0  /* point numbers: font size, glyph width */
#define NUM_CHAR_W   6.4
#define ROOF_PI      3.14159265358979323846

/* Colour of each file's points (Tableau 10: tells 10 series apart,
 * including for the common forms of colour blindness). */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};
#define N_PALETTE ((int)(sizeof(palette) / sizeof(palette[0])))

/* ---- the model -----------------------------------------------------------------*/
double roofline_peak(const struct roofline_chart *c)
{
	double best = 0;
	int i;

	for (i = 0; i < c->n_ceilings; i++)
		if (c->ceilings[i].selected)
			return c->ceilings[i].ops_per_s;
	for (i = 0; i < c->n_ceilings; i++)
		if (c->ceilings[i].ops_per_s > best)
			best = c->ceilings[i].ops_per_s;
	return best;
}

void roofline_eval(const struct roofline_chart *c, const struct roofline_point *p,
	       struct roofline_eval *e)
{
	double peak = roofline_peak(c), mem;

	memset(e, 0, sizeof(*e));
	e->ops = 2.0 * (double)p->macs;
	if (p->dram_bytes)
		e->intensity = e->ops / (double)p->dram_bytes;
	if (p->sram_bytes)
		e->sram_intensity = e->ops / (double)p->sram_bytes;
	if (p->seconds > 0)
		e->attained = e->ops / p->seconds;
	e->power_w = -1;
	if (p->has_energy)
		e->power_w = p->power_w >= 0 ? p->power_w :
			     p->seconds > 0 ? p->energy_pj * 1e-12 / p->seconds : -1;
	e->plotted = e->ops > 0 && e->intensity > 0 && e->attained > 0 &&
		     isfinite(e->attained) && isfinite(e->intensity);
	if (!e->plotted)
		return;
	mem = e->intensity * c->dram_bytes_per_s;
	e->memory_bound = c->dram_bytes_per_s > 0 && mem < peak;
	e->roof = e->memory_bound ? mem : peak;
	e->pct = e->roof > 0 ? 100.0 * e->attained / e->roof : 0;
}

/* Why a point is not on the plot (legend and tooltips). */
static const char *why_not(const struct roofline_point *p)
{
	if (!p->macs)
		return "no MACs";
	if (!p->dram_bytes)
		return "no DRAM bytes";
	return "no cycles";
}

/* ---- text ----------------------------------------------------------------------*/
/*
 * Bytes of the XML 1.0 character (RFC 3629 UTF-8) at s, 0 if the bytes
 * there are not one: C0 controls but tab, overlongs, surrogates,
 * U+FFFE/U+FFFF and anything past U+10FFFF.  Reads past s[0] only while
 * the bytes so far are valid, so never past a NUL.
 */
static int xml_char_len(const unsigned char *s)
{
	unsigned c = s[0];

	if (c < 0x80)
		return c >= 0x20 || c == '\t' ? 1 : 0;
	if (c >= 0xC2 && c <= 0xDF)
		return (s[1] & 0xC0) == 0x80 ? 2 : 0;
	if (c >= 0xE0 && c <= 0xEF) {
		if ((s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
			return 0;
		if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0))
			return 0; /* overlong, surrogate */
		if (c == 0xEF && s[1] == 0xBF && s[2] >= 0xBE)
			return 0; /* U+FFFE, U+FFFF */
		return 3;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		if ((s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 ||
		    (s[3] & 0xC0) != 0x80)
			return 0;
		if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

/* Characters (an invalid byte counts as one, printed as '?'). */
static int n_chars(const char *s)
{
	int n = 0, k;

	for (; *s; s += k ? k : 1, n++)
		k = xml_char_len((const unsigned char *)s);
	return n;
}

/* Characters [from, to) of s, escaped for XML text and attributes. */
static void xml_range(FILE *fp, const char *s, int from, int to)
{
	int i = 0, k;

	for (; *s && i < to; s += k ? k : 1, i++) {
		k = xml_char_len((const unsigned char *)s);
		if (i < from)
			continue;
		if (!k)
			fputc('?', fp);
		else if (*s == '&')
			fputs("&amp;", fp);
		else if (*s == '<')
			fputs("&lt;", fp);
		else if (*s == '>')
			fputs("&gt;", fp);
		else if (*s == '"')
			fputs("&quot;", fp);
		else
			fwrite(s, 1, (size_t)k, fp);
	}
}

/*
 * s escaped, cut to max characters (max >= 4) with "..." where the cut
 * was: at the start when keep_end (paths: the file name is the end), at
 * the end otherwise.  max <= 0: never cut.
 */
static void xml_text(FILE *fp, const char *s, int max, int keep_end)
{
	int n = n_chars(s);

	if (max <= 0 || n <= max) {
		xml_range(fp, s, 0, n);
	} else if (keep_end) {
		fputs("...", fp);
		xml_range(fp, s, n - (max - 3), n);
	} else {
		xml_range(fp, s, 0, max - 3);
		fputs("...", fp);
	}
}

/* v with 3 significant digits and an SI prefix: "2.05 T" + unit. */
static void fmt_si(char *buf, size_t n, double v, const char *unit)
{
	static const char *const pre[] = { "y", "z", "a", "f", "p", "n", "\xc2\xb5",
					   "m", "", "k", "M", "G", "T", "P", "E",
					   "Z", "Y" };
	int e3;
	double m;

	if (!(v > 0) || !isfinite(v)) {
		snprintf(buf, n, "0 %s", unit);
		return;
	}
	e3 = (int)floor(log10(v) / 3.0);
	if (e3 < -8)
		e3 = -8;
	if (e3 > 8)
		e3 = 8;
	m = v / pow(10.0, 3.0 * e3);
	/* 999.7 prints as "1e+03" with %.3g: move to the next prefix */
	if (m >= 999.5 && e3 < 8) {
		e3++;
		m /= 1000.0;
	}
	snprintf(buf, n, "%.3g %s%s", m, pre[e3 + 8], unit);
}

/* Label of the tick at 10^e: "0.01", "1", "100", "1k", "10G", "1e-9". */
static void tick_label(char *buf, size_t n, int e)
{
	static const char *const pre[] = { "", "k", "M", "G", "T", "P", "E",
					   "Z", "Y" };

	if (e >= -3 && e < 0)
		snprintf(buf, n, "%.*f", -e, pow(10.0, e));
	else if (e >= 0 && e < 27)
		snprintf(buf, n, "%d%s", e % 3 == 0 ? 1 : e % 3 == 1 ? 10 : 100,
			 pre[e / 3]);
	else
		snprintf(buf, n, "1e%d", e);
}

/* ---- coordinates ---------------------------------------------------------------*/
/* Axis ranges in whole decades, and the pixel mapping. */
struct axes {
	int xlo, xhi;        /* x from 10^xlo to 10^xhi */
	int ylo, yhi;
};

static double px_x(const struct axes *a, double v)
{
	return PX0 + (log10(v) - a->xlo) / (a->xhi - a->xlo) * (PX1 - PX0);
}

static double px_y(const struct axes *a, double v)
{
	return PY1 - (log10(v) - a->ylo) / (a->yhi - a->ylo) * (PY1 - PY0);
}

/* Widen [lo, hi] to at least min decades (alternately up and down, or
 * down first), cap it at MAX_DECADES below hi. */
static void span(int *lo, int *hi, int min, int down_first)
{
	int k = down_first;

	while (*hi - *lo < min)
		if (k++ % 2)
			--*lo;
		else
			++*hi;
	if (*hi - *lo > MAX_DECADES)
		*lo = *hi - MAX_DECADES;
}

/* The decades that hold every ridge and every point with some margin. */
static void pick_axes(const struct roofline_chart *c, const struct roofline_eval *ev,
		      struct axes *a)
{
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0, v;
	double peaks[2] = { INFINITY, 0 }; /* lowest and highest ceiling */
	int i, k;

	for (i = 0; i < c->n_ceilings; i++) {
		v = c->ceilings[i].ops_per_s;
		peaks[0] = fmin(peaks[0], v);
		peaks[1] = fmax(peaks[1], v);
	}
	if (c->n_cores > 1 && c->core_ops_per_s > 0)
		peaks[0] = fmin(peaks[0], c->core_ops_per_s);
	for (k = 0; k < 2; k++) {
		if (c->dram_bytes_per_s > 0) {
			v = peaks[k] / c->dram_bytes_per_s;
			xmin = fmin(xmin, v);
			xmax = fmax(xmax, v);
		}
		if (c->sram_bytes_per_s > 0) {
			v = peaks[k] / c->sram_bytes_per_s;
			xmin = fmin(xmin, v);
			xmax = fmax(xmax, v);
		}
	}
	ymin = peaks[0];
	ymax = peaks[1];
	for (i = 0; i < c->n_points; i++) {
		if (!ev[i].plotted)
			continue;
		xmin = fmin(xmin, ev[i].intensity);
		xmax = fmax(xmax, ev[i].intensity);
		if (ev[i].sram_intensity > 0) {
			xmin = fmin(xmin, ev[i].sram_intensity);
			xmax = fmax(xmax, ev[i].sram_intensity);
		}
		ymin = fmin(ymin, ev[i].attained);
		ymax = fmax(ymax, ev[i].attained);
	}
	if (!(xmin > 0) || !isfinite(xmin) || !(xmax > 0) || !isfinite(xmax)) {
		xmin = 1;
		xmax = 100;
	}
	if (!(ymin > 0) || !isfinite(ymin) || !(ymax > 0) || !isfinite(ymax)) {
		ymin = 1e9;
		ymax = 1e12;
	}
	/* a quarter decade of room around the extremes, so nothing sits on
	 * the frame */
	a->xlo = (int)floor(log10(xmin) - 0.25);
	a->xhi = (int)ceil(log10(xmax) + 0.25);
	a->ylo = (int)floor(log10(ymin) - 0.25);
	a->yhi = (int)ceil(log10(ymax) + 0.15);
	span(&a->xlo, &a->xhi, 3, 0);
	span(&a->ylo, &a->yhi, 3, 1); /* room below the roof, not above */
}

/* ---- collision boxes for labels ------------------------------------------------*/
struct box {
	double x0, y0, x1, y1;
};

struct boxes {
	struct box *v;
	int n, cap;
};

static int box_add(struct boxes *b, double x0, double y0, double x1, double y1)
{
	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 64;
		struct box *nv = realloc(b->v, (size_t)cap * sizeof(*nv));

		if (!nv)
			return NPU_ENOMEM;
		b->v = nv;
		b->cap = cap;
	}
	b->v[b->n].x0 = x0;
	b->v[b->n].y0 = y0;
	b->v[b->n].x1 = x1;
	b->v[b->n].y1 = y1;
	b->n++;
	return 0;
}

/* How many boxes q overlaps. */
static int box_hits(const struct boxes *b, const struct box *q)
{
	int i, n = 0;

	for (i = 0; i < b->n; i++)
		n += q->x0 < b->v[i].x1 && b->v[i].x0 < q->x1 &&
		     q->y0 < b->v[i].y1 && b->v[i].y0 < q->y1;
	return n;
}

/*
 * A label written at angle ang (radians, SVG sense) from (lx, ly), its
 * middle off pixels across the line (negative: above), w pixels long, as
 * squares of 12 pixels along it: a rotated label's bounding rectangle
 * would cover far more than its text.  Returns how many.
 */
#define LABEL_PIECES 40
static int label_pieces(double lx, double ly, double ang, double off, double w,
			struct box *out)
{
	double u;
	int n = 0;

	for (u = 4 + 6; u < 4 + w && n < LABEL_PIECES; u += 12, n++) {
		double x = lx + u * cos(ang) - off * sin(ang);
		double y = ly + u * sin(ang) + off * cos(ang);

		out[n].x0 = x - 6;
		out[n].x1 = x + 6;
		out[n].y0 = y - 6;
		out[n].y1 = y + 6;
	}
	return n;
}

/* ---- SVG pieces ----------------------------------------------------------------*/
/* A marker: circle for a whole run, diamond for a region; hollow ones are
 * the same point at its scratchpad intensity. */
static void marker(FILE *fp, double x, double y, int region, const char *col,
		   int hollow)
{
	const char *fill = hollow ? "white" : col;
	const char *stroke = hollow ? col : "white";
	double w = hollow ? 1.6 : 0.8;

	if (region)
		fprintf(fp, "<path d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fL%.2f %.2fZ\" "
			    "fill=\"%s\" stroke=\"%s\" stroke-width=\"%.1f\"/>",
			x, y - MARK_R - 1, x + MARK_R + 1, y, x, y + MARK_R + 1,
			x - MARK_R - 1, y, fill, stroke, w);
	else
		fprintf(fp, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\" fill=\"%s\" "
			    "stroke=\"%s\" stroke-width=\"%.1f\"/>",
			x, y, MARK_R, fill, stroke, w);
}

/* Name of point p in the legend and tooltips. */
static void point_name(FILE *fp, const struct roofline_point *p, int max)
{
	if (p->region)
		xml_text(fp, p->region, max, 0);
	else
		xml_text(fp, p->file, max, 1);
}

static void grid_and_axes(FILE *fp, const struct axes *a)
{
	char lab[32];
	int e, m, step;
	double x, y;

	/* minor grid (2..9 x 10^e) only while decades are wide enough */
	fputs("<g stroke=\"#ececec\" stroke-width=\"0.7\">\n", fp);
	if (a->xhi - a->xlo <= 12)
		for (e = a->xlo; e < a->xhi; e++)
			for (m = 2; m <= 9; m++) {
				x = px_x(a, m * pow(10.0, e));
				fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
					x, PY0, x, PY1);
			}
	if (a->yhi - a->ylo <= 12)
		for (e = a->ylo; e < a->yhi; e++)
			for (m = 2; m <= 9; m++) {
				y = px_y(a, m * pow(10.0, e));
				fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
					PX0, y, PX1, y);
			}
	fputs("</g>\n<g stroke=\"#c8c8c8\" stroke-width=\"1\">\n", fp);
	for (e = a->xlo + 1; e < a->xhi; e++) {
		x = px_x(a, pow(10.0, e));
		fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
			x, PY0, x, PY1);
	}
	for (e = a->ylo + 1; e < a->yhi; e++) {
		y = px_y(a, pow(10.0, e));
		fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
			PX0, y, PX1, y);
	}
	fputs("</g>\n", fp);
	/* frame, decade ticks and their labels (every other decade when
	 * there are many, so they do not touch) */
	fprintf(fp, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
		    "fill=\"none\" stroke=\"#333\" stroke-width=\"1\"/>\n",
		PX0, PY0, PX1 - PX0, PY1 - PY0);
	fputs("<g font-size=\"12\" fill=\"#222\">\n", fp);
	step = a->xhi - a->xlo > 12 ? 2 : 1;
	for (e = a->xlo; e <= a->xhi; e++) {
		x = px_x(a, pow(10.0, e));
		fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			    "stroke=\"#333\"/>\n", x, PY1, x, PY1 + 5);
		if ((e - a->xlo) % step)
			continue;
		tick_label(lab, sizeof(lab), e);
		fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n",
			x, PY1 + 19, lab);
	}
	step = a->yhi - a->ylo > 12 ? 2 : 1;
	for (e = a->ylo; e <= a->yhi; e++) {
		y = px_y(a, pow(10.0, e));
		fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			    "stroke=\"#333\"/>\n", PX0 - 5, y, PX0, y);
		if ((e - a->ylo) % step)
			continue;
		tick_label(lab, sizeof(lab), e);
		fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
			PX0 - 8, y + 4, lab);
	}
	fputs("</g>\n", fp);
	fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"13\" text-anchor=\"middle\">"
		    "Operational intensity [ops per byte] (filled: per DRAM byte, "
		    "hollow: per scratchpad byte)</text>\n",
		(PX0 + PX1) / 2, PY1 + 42);
	fprintf(fp, "<text transform=\"translate(%.2f %.2f) rotate(-90)\" font-size=\"13\" "
		    "text-anchor=\"middle\">Attained performance [ops/s] "
		    "(1 MAC = 2 ops)</text>\n",
		24.0, (PY0 + PY1) / 2);
}

/*
 * A bandwidth ceiling bw (bytes/s): the diagonal y = x * bw from the left
 * edge up to the highest compute ceiling, its label along the line (above
 * it, or below when below is set) and its ridge with the selected peak:
 * a dot, a dotted drop to the axis and the ridge's intensity.
 */
static int bw_ceiling(FILE *fp, const struct axes *a, struct boxes *bx,
		      double bw, double peak_max, double peak_sel,
		      const char *name, const char *dash, int below)
{
	char v[32];
	double x0 = pow(10.0, a->xlo), ridge = peak_max / bw, r_sel = peak_sel / bw;
	double vis0, t, lx, ly, ang, rx, ry, w;

	fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
		    "stroke=\"#222\" stroke-width=\"2\"%s%s%s clip-path=\"url(#plot)\"/>\n",
		px_x(a, x0), px_y(a, x0 * bw), px_x(a, ridge), px_y(a, peak_max),
		dash ? " stroke-dasharray=\"" : "", dash ? dash : "",
		dash ? "\"" : "");
	/* the label runs along the line; try spots along its visible part
	 * and take the first that hits nothing drawn so far (else the one
	 * that hits least) */
	ang = -atan2((PY1 - PY0) / (a->yhi - a->ylo), (PX1 - PX0) / (a->xhi - a->xlo));
	fmt_si(v, sizeof(v), bw, "B/s");
	w = 7.0 * (double)(strlen(name) + strlen(v) + 1);
	vis0 = fmax((double)a->xlo, log10(pow(10.0, a->ylo) / bw));
	{
		static const double at[] = { 0.1, 0.3, 0.5, 0.2, 0.4, 0.6, 0.05 };
		struct box pieces[LABEL_PIECES];
		int k, best = 0, best_hits = -1, n_pieces = 0, n_at, side;

		/* spot k: fraction at[k / 2], on the preferred side when k is
		 * even, the other side when odd */
		n_at = (int)(sizeof(at) / sizeof(at[0]));
		for (k = 0; k < 2 * n_at; k++) {
			int hits = 0;

			side = below ^ (k & 1);
			t = vis0 + at[k / 2] * (log10(ridge) - vis0);
			lx = px_x(a, pow(10.0, t));
			ly = px_y(a, pow(10.0, t) * bw);
			n_pieces = label_pieces(lx, ly, ang, side ? 10 : -10, w, pieces);
			while (n_pieces-- > 0)
				hits += box_hits(bx, &pieces[n_pieces]);
			if (best_hits < 0 || hits < best_hits) {
				best = k;
				best_hits = hits;
			}
			if (!hits)
				break;
		}
		side = below ^ (best & 1);
		t = vis0 + at[best / 2] * (log10(ridge) - vis0);
		lx = px_x(a, pow(10.0, t));
		ly = px_y(a, pow(10.0, t) * bw);
		fprintf(fp, "<text transform=\"translate(%.2f %.2f) rotate(%.2f)\" x=\"4\" "
			    "y=\"%d\" font-size=\"12\" fill=\"#222\" paint-order=\"stroke\" "
			    "stroke=\"white\" stroke-width=\"3\">%s %s</text>\n",
			lx, ly, ang * 180.0 / ROOF_PI, side ? 14 : -6, name, v);
		n_pieces = label_pieces(lx, ly, ang, side ? 10 : -10, w, pieces);
		for (k = 0; k < n_pieces; k++)
			if (box_add(bx, pieces[k].x0, pieces[k].y0, pieces[k].x1,
				    pieces[k].y1))
				return NPU_ENOMEM;
	}
	/* ridge with the selected peak */
	if (!(r_sel > pow(10.0, a->xlo) && r_sel < pow(10.0, a->xhi)))
		return 0;
	rx = px_x(a, r_sel);
	ry = px_y(a, peak_sel);
	fmt_si(v, sizeof(v), r_sel, "ops/B");
	fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#888\" "
		    "stroke-dasharray=\"2 3\"/>\n", rx, ry, rx, PY1);
	fprintf(fp, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3.5\" fill=\"#222\"/>\n", rx, ry);
	/* the ridge's intensity written up along the drop, from the axis, or
	 * down from the dot when that hits fewer markers */
	w = 6.2 * (double)(strlen(name) + strlen(v) + 7);
	{
		struct box lo = { rx - 14, PY1 - 6 - w, rx + 1, PY1 - 6 };
		struct box hi = { rx - 14, ry + 8, rx + 1, ry + 8 + w };
		int up = box_hits(bx, &lo) <= box_hits(bx, &hi) || hi.y1 > PY1;

		fprintf(fp, "<text transform=\"translate(%.2f %.2f) rotate(-90)\" "
			    "font-size=\"11\" fill=\"#555\"%s>%s ridge %s</text>\n",
			rx - 3, up ? PY1 - 6 : ry + 8,
			up ? "" : " text-anchor=\"end\"", name, v);
		if (box_add(bx, up ? lo.x0 : hi.x0, up ? lo.y0 : hi.y0,
			    up ? lo.x1 : hi.x1, up ? lo.y1 : hi.y1) ||
		    box_add(bx, rx - 5, ry - 5, rx + 5, ry + 5))
			return NPU_ENOMEM;
	}
	return 0;
}

/*
 * The compute ceilings: one horizontal line per distinct peak from its
 * ridge on the DRAM diagonal to the right edge, solid for the selected
 * type, dashed for the others; one core's peak dotted when there are
 * several cores.  Labels sit right-aligned above their line, or below it
 * when the one above would touch the previous label.
 */
static int compute_ceilings(FILE *fp, const struct roofline_chart *c,
			    const struct axes *a, struct boxes *bx)
{
	char v[32];
	double last_y = -1e9, x, y, ty, w;
	int i, n = c->n_ceilings + (c->n_cores > 1);

	for (i = 0; i < n; i++) {
		int core = i == c->n_ceilings;
		double peak = core ? c->core_ops_per_s : c->ceilings[i].ops_per_s;
		int sel = !core && c->ceilings[i].selected;

		if (!(peak > 0))
			continue;
		x = c->dram_bytes_per_s > 0 ? px_x(a, peak / c->dram_bytes_per_s) : PX0;
		y = px_y(a, peak);
		fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			    "stroke=\"%s\" stroke-width=\"%s\"%s clip-path=\"url(#plot)\"/>\n",
			fmax(x, PX0), y, PX1, y, core ? "#777" : "#222",
			sel ? "2.4" : "1.5",
			core ? " stroke-dasharray=\"2 3\"" :
			sel ? "" : " stroke-dasharray=\"8 4\"");
		fmt_si(v, sizeof(v), peak, "ops/s");
		ty = fabs(y - 6 - last_y) < 14 ? y + 15 : y - 6;
		last_y = ty;
		fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"12\" text-anchor=\"end\" "
			    "fill=\"%s\"%s>", PX1 - 6, ty, core ? "#555" : "#222",
			sel ? " font-weight=\"bold\"" : "");
		if (core)
			fputs("one core", fp);
		else
			xml_text(fp, c->ceilings[i].label, 60, 0);
		fprintf(fp, " peak %s</text>\n", v);
		w = 7.0 * (double)(strlen(v) + 6 +
				   (core ? 8 : (size_t)n_chars(c->ceilings[i].label)));
		if (box_add(bx, PX1 - 6 - w, ty - 12, PX1, ty + 3))
			return NPU_ENOMEM;
	}
	return 0;
}

/* The tooltip of a point: its name and numbers. */
static void tooltip(FILE *fp, const struct roofline_point *p,
		    const struct roofline_eval *e, int num)
{
	char att[32], roof[32];

	fmt_si(att, sizeof(att), e->attained, "ops/s");
	fmt_si(roof, sizeof(roof), e->roof, "ops/s");
	fprintf(fp, "<title>%d: ", num);
	xml_text(fp, p->file, 0, 0);
	if (p->region) {
		fputs(" / ", fp);
		xml_text(fp, p->region, 0, 0);
	}
	fprintf(fp, "\n%.4g ops/DRAM byte, %.4g ops/scratchpad byte\n%s of %s "
		    "(%.1f%%, %s bound)</title>",
		e->intensity, e->sram_intensity, att, roof, e->pct,
		e->memory_bound ? "memory" : "compute");
}

/*
 * Where the number of a point goes: the first spot around the marker, on
 * rings of growing radius, that is inside the plot and hits no box; the
 * farthest ring's first in-plot spot when every one is taken.  *lead is
 * set when the number sits away from the marker (draw a leader line).
 */
static void place_number(const struct boxes *bx, double mx, double my, int digits,
			 struct box *out, int *lead)
{
	static const double ring[] = { 9, 20, 34, 52 };
	static const int dir[][2] = { { 1, -1 }, { 1, 1 }, { -1, -1 }, { -1, 1 },
				      { 1, 0 }, { 0, -1 }, { -1, 0 }, { 0, 1 } };
	double w = NUM_CHAR_W * digits + 2, h = NUM_FONT + 1;
	int r, k, have = 0;
	struct box q, first = { 0, 0, 0, 0 };

	for (r = 0; r < (int)(sizeof(ring) / sizeof(ring[0])); r++)
		for (k = 0; k < 8; k++) {
			double cx = mx + dir[k][0] * (ring[r] + (dir[k][0] ? w / 2 - 3 : 0));
			double cy = my + dir[k][1] * (ring[r] + (dir[k][1] ? h / 2 - 3 : 0)) *
				    (dir[k][0] ? 0.8 : 1);

			q.x0 = cx - w / 2;
			q.x1 = cx + w / 2;
			q.y0 = cy - h / 2;
			q.y1 = cy + h / 2;
			if (q.x0 < PX0 + 1 || q.x1 > PX1 - 1 || q.y0 < PY0 + 1 ||
			    q.y1 > PY1 - 1)
				continue;
			if (!box_hits(bx, &q)) {
				*out = q;
				*lead = r > 0;
				return;
			}
			if (r == 3 && !have) {
				first = q;
				have = 1;
			}
		}
	*lead = have;
	if (have) {
		*out = first;
		return;
	}
	/* nowhere inside the frame: right of the marker, as is */
	out->x0 = mx + 6;
	out->x1 = mx + 6 + w;
	out->y0 = my - h / 2;
	out->y1 = my + h / 2;
	*lead = 0;
}

static int digits_of(int n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* The boxes of every marker, filled and hollow: known before anything
 * with a label is drawn, so that labels can keep clear of the data. */
static int marker_boxes(const struct roofline_chart *c, const struct roofline_eval *ev,
			const struct axes *a, struct boxes *bx)
{
	const double r = MARK_R + 1;
	double x, y;
	int i;

	for (i = 0; i < c->n_points; i++) {
		if (!ev[i].plotted)
			continue;
		x = px_x(a, ev[i].intensity);
		y = px_y(a, ev[i].attained);
		if (box_add(bx, x - r, y - r, x + r, y + r))
			return NPU_ENOMEM;
		if (ev[i].sram_intensity > 0) {
			x = px_x(a, ev[i].sram_intensity);
			if (box_add(bx, x - r, y - r, x + r, y + r))
				return NPU_ENOMEM;
		}
	}
	return 0;
}

/* Markers (hollow at scratchpad intensity, joined to the filled one),
 * then the numbers, which must avoid every marker (marker_boxes). */
static int draw_points(FILE *fp, const struct roofline_chart *c,
		       const struct roofline_eval *ev, const struct axes *a,
		       struct boxes *bx)
{
	int i;

	fputs("<g clip-path=\"url(#plot)\">\n", fp);
	for (i = 0; i < c->n_points; i++) {
		const struct roofline_point *p = &c->points[i];
		const char *col = palette[p->series % N_PALETTE];
		double x, y, xs;

		if (!ev[i].plotted)
			continue;
		x = px_x(a, ev[i].intensity);
		y = px_y(a, ev[i].attained);
		fputs("<g>", fp);
		tooltip(fp, p, &ev[i], i + 1);
		if (ev[i].sram_intensity > 0) {
			xs = px_x(a, ev[i].sram_intensity);
			fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
				    "stroke=\"%s\" stroke-width=\"1\" stroke-dasharray=\"1 2\"/>",
				x, y, xs, y, col);
			marker(fp, xs, y, p->region != NULL, col, 1);
		}
		marker(fp, x, y, p->region != NULL, col, 0);
		fputs("</g>\n", fp);
	}
	fputs("</g>\n<g font-size=\"10\" text-anchor=\"middle\" fill=\"#111\">\n", fp);
	for (i = 0; i < c->n_points; i++) {
		struct box q;
		int lead;
		double x, y, cx, cy, dx, dy, d;

		if (!ev[i].plotted)
			continue;
		x = px_x(a, ev[i].intensity);
		y = px_y(a, ev[i].attained);
		place_number(bx, x, y, digits_of(i + 1), &q, &lead);
		cx = (q.x0 + q.x1) / 2;
		cy = (q.y0 + q.y1) / 2;
		dx = cx - x;
		dy = cy - y;
		d = sqrt(dx * dx + dy * dy);
		if (lead && d > 12)
			fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
				    "stroke=\"#666\" stroke-width=\"0.7\"/>",
				x + dx / d * (MARK_R + 1), y + dy / d * (MARK_R + 1),
				cx - dx / d * 6, cy - dy / d * 6);
		fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" paint-order=\"stroke\" "
			    "stroke=\"white\" stroke-width=\"2.5\">%d</text>\n",
			cx, q.y1 - 2, i + 1);
		if (box_add(bx, q.x0, q.y0, q.x1, q.y1))
			return NPU_ENOMEM;
	}
	fputs("</g>\n", fp);
	return 0;
}

/* Legend column: what the markers mean, then one row per point. */
static void legend(FILE *fp, const struct roofline_chart *c, const struct roofline_eval *ev)
{
	double y = PY0 + 4;
	int i;

	fprintf(fp, "<g font-size=\"11\" fill=\"#222\">\n"
		    "<text x=\"%.2f\" y=\"%.2f\" font-weight=\"bold\">Key</text>\n",
		LX, y);
	y += LEG_ROW;
	marker(fp, LX + 6, y - 4, 0, "#555", 0);
	fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\">whole run, ops per DRAM byte</text>\n",
		LX + 16, y);
	y += LEG_ROW;
	marker(fp, LX + 6, y - 4, 1, "#555", 0);
	fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\">region / layer of a run</text>\n",
		LX + 16, y);
	y += LEG_ROW;
	marker(fp, LX + 6, y - 4, 0, "#555", 1);
	fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\">same point, ops per scratchpad byte</text>\n",
		LX + 16, y);
	y += LEG_ROW * (LEG_KEY_ROWS - 3);
	fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" font-weight=\"bold\">Points</text>"
		    "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" fill=\"#555\">"
		    "%% of roof</text>\n", LX, y, (double)ROOF_W - 8, y);
	for (i = 0; i < c->n_points; i++) {
		const struct roofline_point *p = &c->points[i];
		double indent = p->region ? 10 : 0;

		y += LEG_ROW;
		fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%d</text>",
			LX + 18, y, i + 1);
		marker(fp, LX + 27 + indent, y - 4, p->region != NULL,
		       palette[p->series % N_PALETTE], 0);
		fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\">", LX + 36 + indent, y);
		point_name(fp, p, NAME_CPS - (int)(indent / 6));
		fputs("</text>", fp);
		if (ev[i].plotted)
			fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" "
				    "fill=\"#555\">%.0f%% %s</text>\n",
				(double)ROOF_W - 8, y, ev[i].pct,
				ev[i].memory_bound ? "mem" : "cmp");
		else
			fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" "
				    "fill=\"#a00\">%s</text>\n",
				(double)ROOF_W - 8, y, why_not(p));
	}
	fputs("</g>\n", fp);
}

void roofline_svg_size(const struct roofline_chart *c, int *width, int *height)
{
	double bottom = PY0 + 4 + LEG_ROW * (LEG_KEY_ROWS + c->n_points) + 16;

	*width = ROOF_W;
	*height = bottom > ROOF_H ? (int)ceil(bottom) : ROOF_H;
}

int roofline_write_svg(const struct roofline_chart *c, FILE *fp)
{
	struct roofline_eval *ev;
	struct boxes bx = { NULL, 0, 0 };
	struct axes a;
	char peak[32], dram[32], sram[32];
	double pk_max = 0, pk_sel = roofline_peak(c);
	int i, w, h, rc = 0;

	ev = calloc((size_t)c->n_points + 1, sizeof(*ev));
	if (!ev)
		return NPU_ENOMEM;
	for (i = 0; i < c->n_points; i++)
		roofline_eval(c, &c->points[i], &ev[i]);
	for (i = 0; i < c->n_ceilings; i++)
		pk_max = fmax(pk_max, c->ceilings[i].ops_per_s);
	pick_axes(c, ev, &a);
	roofline_svg_size(c, &w, &h);

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		    "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Verdana, Arial, "
		    "sans-serif\">\n<title>Roofline of ", w, h, w, h);
	xml_text(fp, c->chip, 0, 0);
	fprintf(fp, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n"
		    "<defs><clipPath id=\"plot\"><rect x=\"%.2f\" y=\"%.2f\" "
		    "width=\"%.2f\" height=\"%.2f\"/></clipPath></defs>\n",
		w, h, PX0, PY0, PX1 - PX0, PY1 - PY0);
	/* title and subtitle */
	fputs("<text x=\"88\" y=\"28\" font-size=\"18\" font-weight=\"bold\">Roofline: ", fp);
	xml_text(fp, c->chip, 48, 0);
	fputs("</text>\n<text x=\"88\" y=\"50\" font-size=\"12\" fill=\"#444\">", fp);
	xml_text(fp, c->config, 40, 1);
	fmt_si(peak, sizeof(peak), pk_sel, "ops/s");
	fmt_si(dram, sizeof(dram), c->dram_bytes_per_s, "B/s");
	fmt_si(sram, sizeof(sram), c->sram_bytes_per_s, "B/s");
	fprintf(fp, ": %d core%s at %.4g GHz, peak %s, DRAM %s, scratchpad %s</text>\n",
		c->n_cores, c->n_cores == 1 ? "" : "s", c->clock_ghz, peak, dram, sram);

	grid_and_axes(fp, &a);
	rc = marker_boxes(c, ev, &a, &bx);
	if (!rc && c->sram_bytes_per_s > 0)
		rc = bw_ceiling(fp, &a, &bx, c->sram_bytes_per_s, pk_max, pk_sel,
				"scratchpad", "7 4", 0);
	if (!rc && c->dram_bytes_per_s > 0)
		rc = bw_ceiling(fp, &a, &bx, c->dram_bytes_per_s, pk_max, pk_sel,
				"DRAM", NULL, 1);
	if (!rc)
		rc = compute_ceilings(fp, c, &a, &bx);
	if (!rc)
		rc = draw_points(fp, c, ev, &a, &bx);
	if (!rc) {
		legend(fp, c, ev);
		fputs("</svg>\n", fp);
	}
	free(bx.v);
	free(ev);
	if (rc)
		return rc;
	return ferror(fp) ? NPU_EIO : 0;
}

/* ---- CSV -----------------------------------------------------------------------*/
/* ",%.6g", or "," alone when v is not a meaningful value. */
static void csv_num(FILE *fp, double v, int known)
{
	if (known && isfinite(v))
		fprintf(fp, ",%.6g", v);
	else
		fputc(',', fp);
}

int roofline_write_csv(const struct roofline_chart *c, FILE *fp)
{
	struct roofline_eval e;
	int i;

	fputs("file,region,cycles,seconds,macs,ops,dram_bytes,sram_bytes,intensity,"
	      "sram_intensity,attained_ops_per_s,roof_ops_per_s,bound,roof_pct,"
	      "energy_pj,avg_power_w\n", fp);
	for (i = 0; i < c->n_points; i++) {
		const struct roofline_point *p = &c->points[i];

		roofline_eval(c, p, &e);
		str_csv_field(fp, p->file);
		fputc(',', fp);
		if (p->region)
			str_csv_field(fp, p->region);
		fprintf(fp, ",%llu", (unsigned long long)p->cycles);
		csv_num(fp, p->seconds, 1);
		fprintf(fp, ",%llu,%llu,%llu,%llu", (unsigned long long)p->macs,
			2ull * (unsigned long long)p->macs,
			(unsigned long long)p->dram_bytes,
			(unsigned long long)p->sram_bytes);
		csv_num(fp, e.intensity, p->dram_bytes > 0);
		csv_num(fp, e.sram_intensity, p->sram_bytes > 0);
		csv_num(fp, e.attained, p->seconds > 0);
		csv_num(fp, e.roof, e.plotted);
		fprintf(fp, ",%s", !e.plotted ? "" : e.memory_bound ? "memory" : "compute");
		if (e.plotted)
			fprintf(fp, ",%.2f", e.pct);
		else
			fputc(',', fp);
		csv_num(fp, p->energy_pj, p->has_energy);
		csv_num(fp, e.power_w, e.power_w >= 0);
		fputc('\n', fp);
	}
	return ferror(fp) ? NPU_EIO : 0;
}
