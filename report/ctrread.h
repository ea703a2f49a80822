/*
 * ctrread.h - counter dumps read back (the JSON that `npusim run
 * --counters x.json` writes), for the roofline and other post-processing.
 *
 * Two layouts are accepted (docs/formats.md, docs/roofline.md):
 *   today's  no "schema": "cycles", "counters", optional "clock_ghz"
 *   schema 2 the same plus "peaks", "energy" and "regions" (one entry per
 *            marked region or model layer, each with its own "cycles",
 *            "counters" and optional "energy")
 * Only what a roofline needs is kept: per run and per region the cycles,
 * and the sums of three counter families
 *   MACs       core<N>.matrix.macs
 *   DRAM bytes dram.ch<N>.{read,write}_bytes (also dram<N>.*)
 *   SRAM bytes core<N>.scratchpad.{read,write}_bytes
 * (the per-bank and per-requester breakdowns below a scratchpad are not
 * summed: they split the same bytes again).
 *
 * Bad input never crashes: every problem is one "file: error: ..." (a JSON
 * syntax error "file:line:col: error: ...") through the diag, and the
 * functions return NPU_ECOUNTERS (NPU_EIO when the file cannot be read).
 */
#ifndef NPU_CTRREAD_H
#define NPU_CTRREAD_H

#include <stddef.h>
#include <stdint.h>

#include "../arch/arch.h"
#include "../util/diag.h"

/* The newest counters schema this reader understands. */
#define CTRREAD_SCHEMA_MAX 2

/* Sums of the counter families a roofline plots. */
struct ctrread_sums {
	uint64_t macs;        /* sum of core<N>.matrix.macs */
	uint64_t dram_bytes;  /* DRAM bytes read + written, every channel */
	uint64_t sram_bytes;  /* scratchpad bytes read + written, every core */
	int n_macs;           /* how many macs counters were found */
};

/* An "energy" object (schema 2), when present. */
struct ctrread_energy {
	int present;          /* 1 if the object was there */
	double total_pj;      /* "total_pj" */
	double avg_power_w;   /* "avg_power_w" (< 0: absent) */
};

/* One type's peak from "peaks.macs_per_s_by_type". */
struct ctrread_type_peak {
	char *type;           /* "int8" (owned) */
	double macs_per_s;    /* chip MACs per second for that type */
};

/* "peaks" (schema 2); a member absent from the file reads as 0. */
struct ctrread_peaks {
	int present;                    /* 1 if the object was there */
	double peak[ARCH_N_PEAKS];      /* by enum arch_peak (arch/peaks.def) */
	struct ctrread_type_peak *types; /* by type, in file order (owned) */
	int n_types;
};

/* One region (a marked part of the program, or one layer of a model). */
struct ctrread_region {
	char *name;           /* "gemm" (owned) */
	int core;             /* core that marked it, -1 if not given */
	uint64_t entries;     /* times it was entered (0 if not given) */
	uint64_t cycles;      /* cycles spent inside it */
	struct ctrread_sums sums;
	struct ctrread_energy energy;
};

/* One counters file. */
struct ctrread_file {
	int schema;           /* 0 (absent: today's layout) or 2 */
	char *version;        /* "npusim_version" (owned), or NULL */
	char *config;         /* "config" (a string or config.file), or NULL */
	uint64_t cycles;      /* "cycles": total cycles of the core clock */
	double clock_ghz;     /* "clock_ghz", 0 if absent */
	struct ctrread_sums sums;
	struct ctrread_energy energy;
	struct ctrread_peaks peaks;
	struct ctrread_region *regions; /* in file order (owned) */
	int n_regions;
};

/*
 * Parse a counters file's text (len bytes, need not be NUL-terminated);
 * name is the file name used in messages.  On failure f is left empty
 * (ctrread_free is still safe).
 */
int ctrread_parse(struct ctrread_file *f, const char *name, const char *text,
		  size_t len, struct diag *d) NPU_WUR;
/* Read and parse the file at path. */
int ctrread_load(struct ctrread_file *f, const char *path,
		 struct diag *d) NPU_WUR;
void ctrread_free(struct ctrread_file *f);

#endif
