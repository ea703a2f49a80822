/*
 * plot.c - XY line charts as SVG (plot.h).
 *
 * Layout in SVG user units: a 640 x 400 canvas, the plot area inset by
 * margins that leave room for tick labels, axis titles and the legend on
 * the right.  Numbers are printed with %g-style short formats, so output
 * is identical across runs and hosts with the same libc.
 */
#include "plot.h"

#include <math.h>

/* Canvas and plot-area geometry, SVG user units. */
#define W 640.0
#define H 400.0
#define ML 64.0         /* left margin: y tick labels and title */
#define MR 150.0        /* right margin: legend */
#define MT 36.0         /* top: chart title */
#define MB 52.0         /* bottom: x tick labels and title */

/* Series colours (Okabe-Ito, distinguishable with colour blindness). */
static const char *const colours[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
	"#F0E442", "#000000",
};

/* A round tick step: 1, 2 or 5 x 10^k, about a fifth of the range. */
static double tick_step(double range)
{
	double raw = range / 5, p = pow(10, floor(log10(raw))), m = raw / p;

	if (m <= 1)
		return p;
	if (m <= 2)
		return 2 * p;
	if (m <= 5)
		return 5 * p;
	return 10 * p;
}

/* Text with the five XML specials escaped. */
static void xml_text(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&apos;", fp); break;
		default: fputc(*s, fp); break;
		}
	}
}

int plot_svg(FILE *fp, const struct plot *p)
{
	double xmax = p->xmax, ymax = p->ymax, xs, ys, v;
	double pw = W - ML - MR, ph = H - MT - MB;
	int i, k;

	/* axis ends from the data when not given, rounded up to a tick */
	for (i = 0; i < p->n_series; i++)
		for (k = 0; k < p->s[i].n; k++) {
			if (p->xmax <= 0 && p->s[i].x[k] > xmax)
				xmax = p->s[i].x[k];
			if (p->ymax <= 0 && p->s[i].y[k] > ymax)
				ymax = p->s[i].y[k];
		}
	if (xmax <= 0)
		xmax = 1;
	if (ymax <= 0)
		ymax = 1;
	xs = tick_step(xmax);
	ys = tick_step(ymax);
	xmax = ceil(xmax / xs - 1e-9) * xs;
	ymax = ceil(ymax / ys - 1e-9) * ys;

	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" "
		"height=\"%g\" viewBox=\"0 0 %g %g\" font-family=\"sans-serif\" "
		"font-size=\"12\">\n", W, H, W, H);
	fprintf(fp, "<rect width=\"%g\" height=\"%g\" fill=\"white\"/>\n", W, H);
	fprintf(fp, "<text x=\"%g\" y=\"22\" font-size=\"14\">", ML);
	xml_text(fp, p->title ? p->title : "");
	fputs("</text>\n", fp);
	fprintf(fp, "<clipPath id=\"area\"><rect x=\"%g\" y=\"%g\" width=\"%g\" "
		"height=\"%g\"/></clipPath>\n", ML, MT - 4, pw + 4, ph + 8);
	/* grid and tick labels */
	for (v = 0; v <= xmax + 1e-9; v += xs) {
		double x = ML + v / xmax * pw;

		fprintf(fp, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" "
			"stroke=\"#ddd\"/>\n", x, MT, x, MT + ph);
		fprintf(fp, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">"
			"%g</text>\n", x, MT + ph + 16, v);
	}
	for (v = 0; v <= ymax + 1e-9; v += ys) {
		double y = MT + ph - v / ymax * ph;

		fprintf(fp, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" "
			"stroke=\"#ddd\"/>\n", ML, y, ML + pw, y);
		fprintf(fp, "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">"
			"%g</text>\n", ML - 6, y + 4, v);
	}
	fprintf(fp, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" "
		"fill=\"none\" stroke=\"black\"/>\n", ML, MT, pw, ph);
	fprintf(fp, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">",
		ML + pw / 2, H - 12);
	xml_text(fp, p->xlabel ? p->xlabel : "");
	fputs("</text>\n", fp);
	fprintf(fp, "<text transform=\"translate(16 %g) rotate(-90)\" "
		"text-anchor=\"middle\">", MT + ph / 2);
	xml_text(fp, p->ylabel ? p->ylabel : "");
	fputs("</text>\n", fp);
	/* series: polyline, markers, legend entry */
	for (i = 0; i < p->n_series; i++) {
		const struct plot_series *s = &p->s[i];
		const char *col = colours[i % (int)(sizeof(colours) /
						    sizeof(colours[0]))];
		double ly = MT + 10 + 18 * i;

		fputs("<g clip-path=\"url(#area)\">", fp);
		if (!s->scatter) {
			fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" "
				"stroke-width=\"2\" points=\"", col);
			for (k = 0; k < s->n; k++) {
				double y = s->y[k] > ymax ? ymax : s->y[k];

				fprintf(fp, "%s%.1f,%.1f", k ? " " : "",
					ML + s->x[k] / xmax * pw,
					MT + ph - y / ymax * ph);
			}
			fputs("\"/>", fp);
		}
		fputs("\n", fp);
		for (k = 0; k < s->n; k++) {
			double y = s->y[k] > ymax ? ymax : s->y[k];

			fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
				"fill=\"%s\"/>\n", ML + s->x[k] / xmax * pw,
				MT + ph - y / ymax * ph, col);
		}
		fputs("</g>\n", fp);
		fprintf(fp, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
			"stroke=\"%s\" stroke-width=\"2\"/>\n", ML + pw + 12, ly,
			ML + pw + 36, ly, col);
		fprintf(fp, "<text x=\"%g\" y=\"%g\">", ML + pw + 42, ly + 4);
		xml_text(fp, s->name ? s->name : "");
		fputs("</text>\n", fp);
	}
	fputs("</svg>\n", fp);
	return ferror(fp) ? -1 : 0;
}
