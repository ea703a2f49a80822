/*
 * energy.c - counters to energy (energy.h; formulas in docs/energy.md).
 *
 * Each counter that costs energy maps to a part and a config key (by its
 * counter id, which the sink's entries carry: never by name):
 *   matrix macs_<type>      -> mac            x energy.mac_pj_<type>
 *   vector ops              -> vector         x energy.vector_op_pj
 *   SRAM read/write_bytes   -> sram_read/_write x energy.sram_*_pj_per_byte
 *   DRAM read/write_bytes   -> dram_read/_write x energy.dram_*_pj_per_byte
 *   DRAM activates          -> dram_activate  x energy.dram_activate_pj
 *   NoC hops (flit-hops)    -> noc            x energy.noc_pj_per_flit_hop
 * and static power (mW: cores, SRAM KiB, DRAM channels, NoC routers)
 * times the time of 'cycles' at the core clock.  pJ = mW x ns.
 */
#include "energy.h"

#include <string.h>

const char *const energy_part_names[ENERGY_N_PARTS] = {
#define ENERGY_NAME(id, name) [ENERGY_##id] = name,
	ENERGY_PARTS(ENERGY_NAME)
#undef ENERGY_NAME
};

/* counters.def expands the macs_<type> rows from NPU_DTYPES in order. */
_Static_assert(CTR_MATRIX_MACS_FP32 - CTR_MATRIX_MACS_INT4 == DT_FP32 - DT_INT4 &&
	       DT_INT4 == 0, "macs_<type> rows follow util/dtype.h order");

/* The energy.mac_pj_<type> key of each matrix input type; -1 for a type
 * the array does not take (int32), whose MAC counter stays 0. */
static int mac_key(enum npu_dtype t)
{
	switch (t) {
	case DT_INT4: return P_EN_MAC_INT4;
	case DT_INT8: return P_EN_MAC_INT8;
	case DT_INT16: return P_EN_MAC_INT16;
	case DT_FP8E4M3: return P_EN_MAC_FP8E4M3;
	case DT_FP8E5M2: return P_EN_MAC_FP8E5M2;
	case DT_FP16: return P_EN_MAC_FP16;
	case DT_BF16: return P_EN_MAC_BF16;
	case DT_FP32: return P_EN_MAC_FP32;
	case DT_INT32: case DT_N: break;
	}
	return -1;
}

/* The part and pJ per count of counter id, or -1 when it costs nothing. */
static int cost_of(const struct arch *a, int id, double *pj)
{
	int t, k;

	for (t = 0; t < DT_N; t++)
		if (id == CTR_MATRIX_MACS_INT4 + t) {
			k = mac_key((enum npu_dtype)t);
			*pj = k < 0 ? 0.0 : a->v[k].f;
			return ENERGY_MAC;
		}
	switch (id) {
	case CTR_VECTOR_OPS: *pj = ARCH_F(a, EN_VEC_OP); return ENERGY_VECTOR;
	case CTR_SRAM_READ_BYTES: *pj = ARCH_F(a, EN_SRAM_RD); return ENERGY_SRAM_READ;
	case CTR_SRAM_WRITE_BYTES: *pj = ARCH_F(a, EN_SRAM_WR); return ENERGY_SRAM_WRITE;
	case CTR_DRAM_READ_BYTES: *pj = ARCH_F(a, EN_DRAM_RD); return ENERGY_DRAM_READ;
	case CTR_DRAM_WRITE_BYTES: *pj = ARCH_F(a, EN_DRAM_WR); return ENERGY_DRAM_WRITE;
	case CTR_DRAM_ACTIVATES: *pj = ARCH_F(a, EN_DRAM_ACT); return ENERGY_DRAM_ACTIVATE;
	case CTR_NOC_HOPS: *pj = ARCH_F(a, EN_NOC); return ENERGY_NOC;
	default: return -1;
	}
}

/* Static power of the whole chip in mW. */
static double static_mw(const struct arch *a)
{
	double cores = (double)ARCH_I(a, CHIP_CORES);
	double kib = (double)(ARCH_I(a, SPM_BYTES) + ARCH_I(a, ACC_BYTES)) / 1024.0;

	return cores * (ARCH_F(a, EN_LEAK_CORE) + kib * ARCH_F(a, EN_LEAK_SRAM)) +
	       (double)ARCH_I(a, DRAM_CHANNELS) * ARCH_F(a, EN_LEAK_DRAM) +
	       (double)(ARCH_I(a, NOC_COLS) * ARCH_I(a, NOC_ROWS)) *
		       ARCH_F(a, EN_LEAK_NOC);
}

void energy_of(const struct arch *a, const struct ctr_sink *s, uint64_t cycles,
	       struct energy *e)
{
	double ns = (double)cycles / ARCH_F(a, CHIP_CLOCK_GHZ), pj;
	size_t i;
	int k, part;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < s->n; i++) {
		const struct ctr_entry *x = &s->v[i];

		if (x->id < 0)
			continue;
		if ((part = cost_of(a, x->id, &pj)) >= 0)
			e->pj[part] += (double)x->u * pj;
	}
	e->pj[ENERGY_STATIC] = static_mw(a) * ns; /* mW x ns = pJ */
	for (k = 0; k < ENERGY_N_PARTS; k++)
		e->total_pj += e->pj[k];
	/* pJ / ns = mW; / 1000 = W. */
	e->avg_power_w = ns > 0 ? e->total_pj / ns / 1000.0 : 0.0;
}
