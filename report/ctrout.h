/*
 * ctrout.h - counter dumps: JSON, CSV and a perf-stat-like text summary
 * of a struct ctr_sink (sim/engine/counters.h).  docs/formats.md,
 * "Counters", specifies each format and every derived ratio.
 *
 * Entries are written in the sink's order (the order units emitted them),
 * integers exactly, floats as the shortest decimal that reads back to the
 * same double.  Output is a pure function of the sink and the metadata, so
 * identical runs give identical files.  A sink that ran out of memory while
 * being filled (s->oom) is incomplete and is refused rather than written.
 */
#ifndef NPU_CTROUT_H
#define NPU_CTROUT_H

#include <stdint.h>
#include <stdio.h>

#include "../arch/arch.h"
#include "../sim/engine/counters.h"
#include "../util/diag.h"

/* Version of the counters file layout ("schema" in JSON; docs/formats.md). */
#define CTROUT_SCHEMA 2

/* What the counters describe.  NULL strings and arrays are left out. */
struct ctrout_meta {
	const char *version;  /* npusim version, e.g. "0.1.0" */
	const char *config;   /* chip config file; NULL = built-in defaults */
	const char *program;  /* program file (the first, for the text header) */
	uint64_t cycles;      /* total simulated cycles */
	double clock_ghz;     /* core clock; 0 = unknown (no times, no GB/s) */
	/* The run's settings, so a file can be interpreted later. */
	const struct arch *arch;             /* resolved config: hash, peaks,
						energy; NULL = none of them */
	const char *const *overrides;        /* -s key=value, in order */
	size_t n_overrides;
	const char *const *defines;          /* -D NAME[=VALUE], in order */
	size_t n_defines;
	const char *const *programs;         /* every program, "CORES=FILE"
						or FILE for all cores */
	size_t n_programs;
	const struct ctr_region *regions; /* run_regions; NULL = none */
	size_t n_regions;
	/* Where the text and -x ratios find a counter's siblings when the
	 * printed sink is a selection of a larger one; NULL = the sink. */
	const struct ctr_sink *ratio_src;
	/* The sink energy is computed from (a unit's own counters, so not an
	 * aggregated selection); NULL = the printed sink.  no_energy: leave
	 * the energy section out of the text. */
	const struct ctr_sink *energy_src;
	int no_energy;
	/* Cores whose counters were summed into each per-core name (stat
	 * --total); ratios over the run's cycles then divide by cycles x
	 * cores.  0 or 1 = not summed. */
	int cores_summed;
};

enum ctrout_fmt {
	CTROUT_JSON, /* {"npusim_version":..., "cycles":N, "counters":{...}} */
	CTROUT_CSV,  /* name,value,unit */
	CTROUT_TEXT, /* aligned summary with derived ratios */
};

/* Format named by a file's extension (.json, .csv, .txt), or -1. */
int ctrout_fmt_of(const char *path);

/*
 * Write the counters to fp in format f.  Returns 0, NPU_ENOMEM when the
 * sink is incomplete (nothing is written), or NPU_EIO when fp reports an
 * error.
 */
int ctrout_print(FILE *fp, enum ctrout_fmt f, const struct ctr_sink *s,
		 const struct ctrout_meta *m) NPU_WUR;

/* The same into path, atomically (util/fsout.h); "-" = stdout. */
int ctrout_write(const char *path, enum ctrout_fmt f,
		 const struct ctr_sink *s, const struct ctrout_meta *m,
		 struct diag *d) NPU_WUR;

/*
 * Unit of measure of a full counter name ("core0.dma0.bytes_dram_to_sram"
 * -> "byte"): the ctr_info row whose leaf name matches the last component.
 * Leaves shared by groups with different units (reads: SRAM "access",
 * DRAM "burst") are told apart by the instance names in the path
 * ("dram1", "scratchpad").  "" when unknown.
 */
const char *ctrout_unit(const char *name);

/*
 * What `npusim stat` shows (ctrout_select): counters whose full name
 * matches one of the glob patterns (fnmatch; a pattern without '.' also
 * matches the leaf alone, so "macs" finds every core's matrix macs); all
 * when n_pats is 0.  Breakdowns (per bank, per requester: names of more
 * than three parts) only with 'detail' or when a pattern names them.
 * 'total' sums "coreN.<unit>.<leaf>" over the cores into "<unit>.<leaf>"
 * (per-core float rates are dropped: a sum of averages means nothing;
 * "coreN.cycles" becomes the latest core's).  out is a new sink.
 */
int ctrout_select(const struct ctr_sink *in, const char *const *pats,
		  size_t n_pats, int detail, int total,
		  struct ctr_sink *out) NPU_WUR;

/* Remove the integer counters that are 0 from s (stat's default view);
 * returns how many were removed. */
size_t ctrout_drop_zeros(struct ctr_sink *s);

/*
 * perf stat -x style: one line per counter, "value SEP unit SEP name SEP
 * ratio" (ratio as in the text summary, without padding; empty if none),
 * the run's cycles first.  No header, no thousands separators.
 */
int ctrout_print_x(FILE *fp, const char *sep, const struct ctr_sink *s,
		   const struct ctrout_meta *m) NPU_WUR;

#endif
