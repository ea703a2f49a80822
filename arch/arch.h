/*
 * arch.h - the chip description: keys from params.def, loaded from a
 * libconfig file, overridden by -s key=value, validated, with derived peaks.
 *
 * Values are read by id: ARCH_I(a, MTX_ROWS), ARCH_F(a, CHIP_CLOCK_GHZ),
 * ARCH_E(a, MTX_DATAFLOW) (index into the key's value list, compared with
 * the generated constants: ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_IDEAL),
 * ARCH_S(a, CHIP_NAME), arch_list(a, P_NOC_CORE_NODES, &n).
 * After arch_load() returns 0 every "0 = from preset" key holds its resolved
 * value and every cross-key rule has been checked.
 */
#ifndef NPU_ARCH_H
#define NPU_ARCH_H

#include <stdint.h>
#include <stdio.h>

#include "../util/diag.h"

enum param_type { PT_INT, PT_FLT, PT_BOOL, PT_ENUM, PT_STR, PT_LIST };

enum param_id {
#define PINT(id, key, def, lo, hi, unit, doc) P_##id,
#define PFLT(id, key, def, lo, hi, unit, doc) P_##id,
#define PBOOL(id, key, def, doc) P_##id,
#define PENUM(id, key, def, doc) P_##id,
#define PSTR(id, key, def, doc) P_##id,
#define PLIST(id, key, lo, hi, unit, doc) P_##id,
#include "params.def"
#undef PINT
#undef PFLT
#undef PBOOL
#undef PENUM
#undef PSTR
#undef PLIST
	P_N
};

/*
 * The values of every ENUM key, from its ARCH_VALS_<ID> list: one enum per
 * key holding ARCH_<ID>_<VALUE> = the value's index (what ARCH_E returns)
 * and ARCH_N_<ID>, the number of values.  E.g. ARCH_NOC_TOPOLOGY_MESH = 0,
 * ARCH_NOC_TOPOLOGY_TORUS = 1, ARCH_N_NOC_TOPOLOGY = 2.
 */
#define ARCH_VAL_CONST(k, v, name) ARCH_##k##_##v,
#define PINT(id, key, def, lo, hi, unit, doc)
#define PFLT(id, key, def, lo, hi, unit, doc)
#define PBOOL(id, key, def, doc)
#define PENUM(id, key, def, doc) \
	enum { ARCH_VALS_##id(ARCH_VAL_CONST, id) ARCH_N_##id };
#define PSTR(id, key, def, doc)
#define PLIST(id, key, lo, hi, unit, doc)
#include "params.def"
#undef PINT
#undef PFLT
#undef PBOOL
#undef PENUM
#undef PSTR
#undef PLIST
#undef ARCH_VAL_CONST

/* Static description of one key (from params.def). */
struct param_info {
	const char *key;     /* dotted path: "core.matrix.rows" */
	enum param_type type;
	double def;          /* default for INT/FLT/BOOL */
	const char *sdef;    /* default for ENUM/STR */
	double lo, hi;       /* inclusive range for INT/FLT/LIST elements */
	const char *names;   /* ENUM: "a|b|c" */
	const char *unit;    /* unit of measure, "" if none */
	const char *doc;     /* one-line meaning */
};
extern const struct param_info param_info[P_N];

/* Where a value came from, for messages. */
struct param_src {
	const char *file;    /* config file, "<command line>", or NULL = default */
	int line;            /* 1-based line, 0 if unknown */
};

/* One value. */
union param_val {
	int64_t i;           /* INT, BOOL (0/1), ENUM (index) */
	double f;            /* FLT */
	char *s;             /* STR (owned) */
	struct {
		int64_t *v;  /* LIST elements (owned) */
		int n;       /* LIST length */
	} l;
};

/* The derived peaks (peaks.def). */
enum arch_peak {
#define PEAK(id, name, alias, unit, doc) ARCH_PEAK_##id,
#include "peaks.def"
#undef PEAK
	ARCH_N_PEAKS
};

struct arch_peak_info {
	const char *name;   /* "dram_bytes_per_s" */
	const char *alias;  /* older name sweep specs accept, "" if none */
	const char *unit;   /* "B/s" */
	const char *doc;    /* how it is computed */
};

extern const struct arch_peak_info arch_peak_info[ARCH_N_PEAKS];

/* Derived, read-only quantities computed after validation. */
struct arch_derived {
	double peak[ARCH_N_PEAKS];  /* by enum arch_peak */
	/* macs_per_s_chip x core.matrix.macs_per_pe.<type>, by index of the
	 * in_type names: "macs_per_s_<type>" */
	double macs_per_s_type[ARCH_N_MTX_IN_TYPE];
	int *core_node;          /* node of each core (chip.cores entries) */
	int *dram_node;          /* node of each DRAM channel */
};

struct arch {
	union param_val v[P_N];       /* resolved values */
	struct param_src src[P_N];    /* where each came from */
	char *path;                   /* config file loaded (owned), or NULL */
	struct arch_derived d;        /* filled by arch_load/arch_finish */
	char **files;                 /* names src[].file points into (owned) */
	int n_files;                  /* entries in files */
};

#define ARCH_I(a, id) ((a)->v[P_##id].i)
#define ARCH_F(a, id) ((a)->v[P_##id].f)
#define ARCH_E(a, id) ((int)(a)->v[P_##id].i)
#define ARCH_B(a, id) ((a)->v[P_##id].i != 0)
#define ARCH_S(a, id) ((const char *)(a)->v[P_##id].s)
#define ARCH_PEAK(a, id) ((a)->d.peak[ARCH_PEAK_##id])

/* Defaults only (no file): always succeeds unless out of memory. */
int arch_init_defaults(struct arch *a) NPU_WUR;
/*
 * Load a config: defaults, then the file (may be NULL), then overrides
 * "key=value" in order, then validation and derivation.  Every error is
 * reported through d as "file:line: error: ..." (with a did-you-mean for
 * unknown keys); returns 0 or NPU_ECONFIG / NPU_ENOMEM.
 */
int arch_load(struct arch *a, const char *path, const char *const *overrides,
	      int n_overrides, struct diag *d) NPU_WUR;
void arch_free(struct arch *a);

/* Name of an ENUM key's current value ("ws"). */
const char *arch_enum_name(const struct arch *a, enum param_id id);
const int64_t *arch_list(const struct arch *a, enum param_id id, int *n);
/* Key lookup by dotted name, -1 if unknown. */
int arch_find_key(const char *key);

/*
 * A derived peak by name: a peaks.def name or alias, or
 * "macs_per_s_<type>" for a matrix input type.  0 and *v, or -1 if no
 * peak has that name.
 */
int arch_peak_find(const struct arch *a, const char *name, double *v);
/* The number of peaks arch_peak_name lists, the k-th name (the table's
 * rows, then macs_per_s_<type> per input type; NULL past the end) and
 * its value. */
int arch_peak_count(void);
const char *arch_peak_name(int k);
double arch_peak_at(const struct arch *a, int k);

/* Write the resolved config (loadable) with derived peaks as comments. */
int arch_dump(const struct arch *a, FILE *fp) NPU_WUR;
/* 1 if the chip's DMA engines can have enough bytes in flight to reach
 * the DRAM peak at its unloaded latency (arch_dump.c says how), else 0;
 * *reach_bps is what they can reach, *latency_ns the latency used. */
int arch_dma_covers_dram(const struct arch *a, double *reach_bps,
			 double *latency_ns);
/* FNV-1a 64 of the resolved settings (not of a file): equal for configs
 * that resolve alike; recorded in counter files. */
uint64_t arch_hash(const struct arch *a);
/* Write docs/config.md from the table. */
void arch_write_doc(FILE *fp);

/* Handy derived values */
double arch_clock_hz(const struct arch *a);
/* Bits of one element of a type named in params.def's in_type list. */
int arch_dtype_bits(int in_type_index);

/* MACs per PE per cycle of a type named in params.def's in_type list. */
int arch_macs_per_pe(const struct arch *a, int in_type_index);

/* ENUM keys: number of names, k-th name, index of a name (-1 if none). */
int arch_enum_count(enum param_id id);
const char *arch_enum_at(enum param_id id, int k);
int arch_enum_find(enum param_id id, const char *name);
/* 1 if the key is filled from dram.preset while 0 ("0 = from preset"). */
int arch_is_preset_key(enum param_id id);
/* One-paragraph human summary (cores, array, SRAM, DRAM, peaks). */
void arch_summary(const struct arch *a, FILE *fp);

/*
 * The config as assembler defines, "CFG_CORE_MATRIX_ROWS=32" ...: one per
 * integer, boolean and enum key plus CFG_CHIP_CLOCK_MHZ (arch_asm.c says
 * how values are written).  0 or NPU_ENOMEM; free with arch_defs_free.
 */
struct arch_defs {
	char **v;   /* "NAME=VALUE" strings (owned) */
	size_t n;   /* entries */
};
int arch_asm_defines(const struct arch *a, struct arch_defs *out) NPU_WUR;
void arch_defs_free(struct arch_defs *d);
/* Print every key: name, type, default, range/values, unit, doc. */
void arch_list_keys(FILE *fp);

#endif
