/*
 * ceiling.h - a layer's roofline ceiling: the fewest cycles any mapping
 * of its work could take on the cores it runs on (docs/models.md,
 * "Reading --explain").
 *
 *   struct ceil_work w = { .unit = CEIL_ARRAY, .macs = M * K * N, .m = M,
 *                          .k = K, .n = N, .bytes = compulsory,
 *                          .cores = 1, .dtype = DT_INT8 };
 *   struct ceil_result r;
 *   ceil_eval(&arch, &w, &r);    // r.cycles, r.bound, r.eff
 *
 *   ceiling = max(compute, dram)
 *   compute = MACs / (array MACs per cycle x cores x eff)      (array)
 *           = ops  / (vector lanes x cores)                    (vector)
 *   dram    = compulsory bytes / DRAM bytes per cycle
 *
 * eff is the array's unavoidable tile quantisation for the dataflow of
 * the config (WS: K on p x R rows, N on C columns; IS: K on rows, M on
 * columns; OS: M on rows, N on columns, K streamed p at a time; p the
 * MACs per PE of the type).  Every rate comes from the peaks table
 * (arch/peaks.def), per core clock cycle.  A pure function of the config
 * and the work: no counters, no run.
 */
#ifndef NPU_CEILING_H
#define NPU_CEILING_H

#include <stdint.h>

#include "../arch/arch.h"
#include "../util/dtype.h"

/* The unit whose peak bounds the layer's compute. */
enum ceil_unit {
	CEIL_ARRAY,       /* the systolic arrays: MACs */
	CEIL_VECTOR,      /* the vector units: element operations */
};

/* What set a ceiling (and so what the layer is bound by at best). */
enum ceil_bound {
	CEIL_BOUND_ARRAY,
	CEIL_BOUND_VECTOR,
	CEIL_BOUND_DRAM,
};

/* "array", "vector", "dram" */
const char *ceil_bound_name(enum ceil_bound b);

struct ceil_work {
	enum ceil_unit unit;
	uint64_t macs;        /* array: the model MACs (groups x M x K x N) */
	int64_t m, k, n;      /* array: one group's GEMM (M x K times K x N) */
	uint64_t ops;         /* vector: element operations it needs at least */
	uint64_t bytes;       /* compulsory DRAM bytes: inputs, weights and
				 outputs each moved once */
	int cores;            /* cores it runs on (>= 1) */
	enum npu_dtype dtype; /* the array's input type (its MACs per PE) */
};

struct ceil_result {
	double peak;          /* MACs (array) or ops (vector) per cycle of
				 the cores, quantisation aside */
	double eff;           /* tile quantisation on the array, (0, 1];
				 1 for the vector unit */
	double compute;       /* cycles: the work at peak x eff */
	double dram;          /* cycles: the compulsory bytes at the DRAM
				 peak */
	double cycles;        /* the ceiling: max(compute, dram) */
	enum ceil_bound bound;/* which of the two set it */
};

void ceil_eval(const struct arch *a, const struct ceil_work *w,
	       struct ceil_result *r);

/* The useful fraction of x spread over tiles of t: x / (ceil(x/t) t). */
double ceil_quant(int64_t x, int64_t t);

#endif
