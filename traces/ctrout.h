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

#include "../sim/engine/counters.h"
#include "../util/diag.h"

/* What the counters describe.  NULL strings are left out of the output. */
struct ctrout_meta {
	const char *version;  /* npusim version, e.g. "0.1.0" */
	const char *config;   /* chip config file */
	const char *program;  /* program file */
	uint64_t cycles;      /* total simulated cycles */
	double clock_ghz;     /* core clock; 0 = unknown (no times, no GB/s) */
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

#endif
