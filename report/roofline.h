/*
 * roofline.h - the roofline model of a chip and its plot: a hand-written
 * log-log SVG and a CSV with one row per point (docs/roofline.md).
 *
 * The caller fills a struct roofline_chart from a config's peaks and from
 * counter files (cli/cmd_roofline.c does, with report/ctrread.h); this
 * module only computes and draws, so it knows neither JSON nor configs.
 * Output is a pure function of the chart: the same chart gives the same
 * bytes (coordinates printed with a fixed number of decimals, no clock,
 * no locale).
 *
 * Quantities, per point:
 *   ops          2 x MACs (one MAC is a multiply and an add)
 *   intensity    ops / DRAM byte             (x of the filled marker)
 *   sram int.    ops / scratchpad byte       (x of the hollow marker)
 *   attained     ops / seconds, seconds = cycles / clock   (y of both)
 *   roof         min(peak, intensity x DRAM bandwidth), peak being the
 *                selected compute ceiling (the data type of the run)
 *   bound        "memory" left of the DRAM ridge, "compute" right of it
 */
#ifndef NPU_ROOFLINE_H
#define NPU_ROOFLINE_H

#include <stdint.h>
#include <stdio.h>

/* One horizontal compute ceiling: one data type, or several with the
 * same peak (drawn once, labelled with all of them). */
struct roofline_ceiling {
	const char *label;    /* "int8" or "int8, fp16" */
	double ops_per_s;     /* chip peak, ops/s (2 x MACs/s) */
	int selected;         /* 1: the ceiling bound and % of roof use */
};

/* One point: a whole run or one region of it. */
struct roofline_point {
	const char *file;     /* counters file as named on the command line */
	const char *region;   /* region name; NULL for the whole run */
	int series;           /* index of the file: selects the colour */
	uint64_t cycles;      /* core-clock cycles */
	double seconds;       /* cycles / clock */
	uint64_t macs;
	uint64_t dram_bytes;  /* read + written */
	uint64_t sram_bytes;  /* scratchpad read + written */
	int has_energy;       /* 1 if energy_pj (and power) are known */
	double energy_pj;
	double power_w;       /* average W; < 0: derive from energy/seconds */
};

/* Everything one plot shows. */
struct roofline_chart {
	const char *chip;     /* chip name, in the title */
	const char *config;   /* config file name, in the subtitle */
	int n_cores;
	double clock_ghz;
	const struct roofline_ceiling *ceilings; /* at least one */
	int n_ceilings;
	double core_ops_per_s;   /* one core's peak, drawn when n_cores > 1 */
	double dram_bytes_per_s; /* all channels */
	double sram_bytes_per_s; /* scratchpad, all cores */
	const struct roofline_point *points;
	int n_points;
};

/* What the model says about one point. */
struct roofline_eval {
	int plotted;          /* 1 if ops, DRAM bytes and seconds are all > 0 */
	double ops;           /* 2 x MACs */
	double intensity;     /* ops / DRAM byte; 0 if no DRAM bytes */
	double sram_intensity;/* ops / scratchpad byte; 0 if none */
	double attained;      /* ops / s; 0 if no time */
	double roof;          /* roof at this intensity (0 if not plotted) */
	int memory_bound;     /* 1 left of the DRAM ridge */
	double pct;           /* attained / roof x 100 */
	double power_w;       /* average W, < 0 unknown */
};

/* The selected peak (ops/s): the selected ceiling, else the highest. */
double roofline_peak(const struct roofline_chart *c);
void roofline_eval(const struct roofline_chart *c, const struct roofline_point *p,
	       struct roofline_eval *e);
/* Pixel size of the SVG (the height grows with the legend). */
void roofline_svg_size(const struct roofline_chart *c, int *width, int *height);
/* Write the plot / the table; 0, or NPU_EIO when fp reports an error. */
int roofline_write_svg(const struct roofline_chart *c, FILE *fp);
int roofline_write_csv(const struct roofline_chart *c, FILE *fp);

#endif
