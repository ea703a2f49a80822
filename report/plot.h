/*
 * plot.h - a small XY chart as SVG: lines (latency against offered load
 * in `npusim dram --sweep --svg`, docs/dram.md) or scatters (the Pareto
 * plot of `npusim sweep --collect`).
 *
 * Linear axes from 0 with round tick steps, one polyline with point
 * markers per series, a legend.  Points above ymax are drawn at the top
 * edge (clipped), so one runaway saturated point does not flatten the
 * rest of the curves.  Output is deterministic text: the same data give
 * the same bytes.
 */
#ifndef NPU_PLOT_H
#define NPU_PLOT_H

#include <stdio.h>

struct plot_series {
	const char *name;       /* legend text */
	int n;                  /* points */
	const double *x, *y;    /* coordinates */
	int scatter;            /* markers only, no line */
};

struct plot {
	const char *title;      /* top line */
	const char *xlabel, *ylabel;
	double xmax, ymax;      /* axis ends; 0 = from the data */
	int n_series;
	const struct plot_series *s;
};

/* Write the chart; returns 0, or -1 if fp reported an error. */
int plot_svg(FILE *fp, const struct plot *p);

#endif
