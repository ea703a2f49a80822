/*
 * ceiling.c - a layer's roofline ceiling from the config's peaks
 * (ceiling.h; docs/models.md "Reading --explain" works an example).
 */
#include "ceiling.h"

#include <stdio.h>

const char *ceil_bound_name(enum ceil_bound b)
{
	switch (b) {
	case CEIL_BOUND_ARRAY:  return "array";
	case CEIL_BOUND_VECTOR: return "vector";
	case CEIL_BOUND_DRAM:   return "dram";
	}
	return "?";
}

double ceil_quant(int64_t x, int64_t t)
{
	if (x <= 0 || t <= 0)
		return 1;
	int64_t tiles = (x + t - 1) / t;
	return (double)x / ((double)tiles * (double)t);
}

/* The array's MACs per cycle on one core for type dt, from the peaks
 * table (macs_per_s_<type>, the chip's, over the cores and the clock);
 * *pack: the MACs per PE it implies.  A type the array does not name
 * (none today) counts one MAC per PE. */
static double array_peak(const struct arch *a, enum npu_dtype dt, int *pack)
{
	double hz = ARCH_F(a, CHIP_CLOCK_GHZ) * 1e9;
	double chip = ARCH_PEAK(a, MACS_PER_S_CHIP), v = chip;
	char name[48];

	snprintf(name, sizeof name, "macs_per_s_%s", dtype_name(dt));
	if (arch_peak_find(a, name, &v) || v <= 0)
		v = chip;
	*pack = chip > 0 ? (int)(v / chip + 0.5) : 1;
	if (*pack < 1)
		*pack = 1;
	return v / (double)ARCH_I(a, CHIP_CORES) / hz;
}

void ceil_eval(const struct arch *a, const struct ceil_work *w,
	       struct ceil_result *r)
{
	double hz = ARCH_F(a, CHIP_CLOCK_GHZ) * 1e9;
	int cores = w->cores > 0 ? w->cores : 1;
	int64_t R = ARCH_I(a, MTX_ROWS), C = ARCH_I(a, MTX_COLS);
	int pack = 1;

	r->eff = 1;
	if (w->unit == CEIL_ARRAY) {
		r->peak = array_peak(a, w->dtype, &pack) * cores;
		/* which two dimensions sit on the array (docs/timing.md,
		 * "dataflows"): the third streams through in time */
		switch (ARCH_E(a, MTX_DATAFLOW)) {
		case ARCH_MTX_DATAFLOW_OS:
			r->eff = ceil_quant(w->m, R) * ceil_quant(w->n, C) *
				 ceil_quant(w->k, pack);
			break;
		case ARCH_MTX_DATAFLOW_IS:
			r->eff = ceil_quant(w->k, pack * R) *
				 ceil_quant(w->m, C);
			break;
		default:
			r->eff = ceil_quant(w->k, pack * R) *
				 ceil_quant(w->n, C);
			break;
		}
		r->compute = (double)w->macs / (r->peak * r->eff);
	} else {
		r->peak = ARCH_PEAK(a, VEC_OPS_PER_S) / hz * cores;
		r->compute = (double)w->ops / r->peak;
	}
	r->dram = (double)w->bytes / (ARCH_PEAK(a, DRAM_BYTES_PER_S) / hz);
	r->bound = w->unit == CEIL_ARRAY ? CEIL_BOUND_ARRAY : CEIL_BOUND_VECTOR;
	r->cycles = r->compute;
	if (r->dram > r->compute) {
		r->cycles = r->dram;
		r->bound = CEIL_BOUND_DRAM;
	}
}
