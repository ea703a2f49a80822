/*
 * arch_peaks.c - the chip's rates: the clock, MACs per PE by type, and
 * the derived peaks (peaks.def): what each is, how it is computed from a
 * validated config, and lookup by name.  It reads resolved values only
 * (arch.c calls it; it calls nothing there).
 *
 * Each peak is an upper bound the timing models can reach but not
 * exceed: the roofline's ceilings, the counters files' "peaks", sweep
 * constraints.  docs/config.md ("Derived peaks") is written from the
 * same table (arch_write_peaks_doc).
 */
#include <stdio.h>
#include <string.h>

#include "arch_int.h"

const struct arch_peak_info arch_peak_info[ARCH_N_PEAKS] = {
#define PEAK(id, name_, alias_, unit_, doc_) \
	[ARCH_PEAK_##id] = { name_, alias_, unit_, doc_ },
#include "peaks.def"
#undef PEAK
};

/* "macs_per_s_<type>" for each matrix input type, in type order. */
static const char *const type_peak_names[ARCH_N_MTX_IN_TYPE] = {
#define TYPE_PEAK(k, v, name) "macs_per_s_" name,
	ARCH_VALS_MTX_IN_TYPE(TYPE_PEAK, MTX_IN_TYPE)
#undef TYPE_PEAK
};

/* chip.clock_ghz in Hz: every cycle count of the simulator is in it. */
double arch_clock_hz(const struct arch *a)
{
	return ARCH_F(a, CHIP_CLOCK_GHZ) * 1e9;
}

/* The macs_per_pe keys follow the in_type names (params.def). */
_Static_assert(P_MTX_MACS_FP32 - P_MTX_MACS_INT4 == ARCH_N_MTX_IN_TYPE - 1 &&
		       ARCH_MTX_IN_TYPE_INT4 == 0 &&
		       ARCH_MTX_IN_TYPE_FP32 == ARCH_N_MTX_IN_TYPE - 1,
	       "one core.matrix.macs_per_pe key per in_type, in its order");

int arch_macs_per_pe(const struct arch *a, int in_type_index)
{
	if (in_type_index < 0 || in_type_index >= ARCH_N_MTX_IN_TYPE)
		return 1;
	return (int)a->v[P_MTX_MACS_INT4 + in_type_index].i;
}

void arch_derive_peaks(struct arch *a)
{
	struct arch_derived *d = &a->d;
	double *pk = d->peak, hz = arch_clock_hz(a);
	int64_t cols = ARCH_I(a, NOC_COLS), rows = ARCH_I(a, NOC_ROWS);
	int64_t lo = cols < rows ? cols : rows, hi = cols < rows ? rows : cols;
	double links;
	int k;

	/*
	 * macs_per_s_core/chip: one MAC per PE per cycle; the per-type peaks
	 * multiply by core.matrix.macs_per_pe.<type>.
	 */
	pk[ARCH_PEAK_MACS_PER_S_CORE] = (double)ARCH_I(a, MTX_ROWS) *
					(double)ARCH_I(a, MTX_COLS) * hz;
	pk[ARCH_PEAK_MACS_PER_S_CHIP] = pk[ARCH_PEAK_MACS_PER_S_CORE] *
					(double)ARCH_I(a, CHIP_CORES);
	for (k = 0; k < ARCH_N_MTX_IN_TYPE; k++)
		d->macs_per_s_type[k] = pk[ARCH_PEAK_MACS_PER_S_CHIP] *
					arch_macs_per_pe(a, k);
	pk[ARCH_PEAK_SPM_BYTES_PER_S] = (double)ARCH_I(a, SPM_BANKS) *
					(double)ARCH_I(a, SPM_BANK_WIDTH) *
					(double)ARCH_I(a, SPM_PORTS) * hz;
	pk[ARCH_PEAK_ACC_BYTES_PER_S] = (double)ARCH_I(a, ACC_BANKS) *
					(double)ARCH_I(a, ACC_BANK_WIDTH) *
					(double)ARCH_I(a, ACC_PORTS) * hz;
	/* the narrowest cut runs across the longer dimension and crosses
	 * one link per node of the shorter one; a torus adds the wraparound */
	links = hi < 2 ? 0 : (double)lo;
	if (ARCH_E(a, NOC_TOPOLOGY) == ARCH_NOC_TOPOLOGY_TORUS && hi >= 3)
		links *= 2;
	pk[ARCH_PEAK_NOC_BISECTION_BYTES_PER_S] =
		links * (double)ARCH_I(a, NOC_LINK_BYTES) * 2 * hz;
	/*
	 * Timed DRAM: channels x bytes per beat x beats per tCK / tCK; e.g.
	 * LPDDR5-6400 x16: 2 B x 8 / 1.25 ns = 12.8 GB/s.
	 */
	if (ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_IDEAL)
		pk[ARCH_PEAK_DRAM_BYTES_PER_S] = ARCH_F(a, DRAM_IDEAL_BW) * 1e9;
	else
		pk[ARCH_PEAK_DRAM_BYTES_PER_S] =
			(double)ARCH_I(a, DRAM_CHANNELS) *
			(double)ARCH_I(a, DRAM_BUS_BITS) / 8 *
			(double)ARCH_I(a, DRAM_BEATS_PER_TCK) /
			(ARCH_F(a, DRAM_TCK) * 1e-9);
	pk[ARCH_PEAK_VEC_OPS_PER_S] = (double)ARCH_I(a, VEC_LANES) * hz;
}

int arch_peak_count(void)
{
	return ARCH_N_PEAKS + ARCH_N_MTX_IN_TYPE;
}

const char *arch_peak_name(int k)
{
	if (k < 0 || k >= arch_peak_count())
		return NULL;
	return k < ARCH_N_PEAKS ? arch_peak_info[k].name
				: type_peak_names[k - ARCH_N_PEAKS];
}

double arch_peak_at(const struct arch *a, int k)
{
	if (k < 0 || k >= arch_peak_count())
		return 0;
	return k < ARCH_N_PEAKS ? a->d.peak[k]
				: a->d.macs_per_s_type[k - ARCH_N_PEAKS];
}

int arch_peak_find(const struct arch *a, const char *name, double *v)
{
	int k;

	for (k = 0; k < ARCH_N_PEAKS; k++)
		if (strcmp(name, arch_peak_info[k].name) == 0 ||
		    (*arch_peak_info[k].alias &&
		     strcmp(name, arch_peak_info[k].alias) == 0)) {
			*v = a->d.peak[k];
			return 0;
		}
	for (k = 0; k < ARCH_N_MTX_IN_TYPE; k++)
		if (strcmp(name, type_peak_names[k]) == 0) {
			*v = a->d.macs_per_s_type[k];
			return 0;
		}
	return -1;
}

void arch_write_peaks_doc(FILE *fp)
{
	int k;

	fputs("\n# Derived peaks\n\n"
	      "Computed from the keys above on every load (arch/peaks.def); "
	      "`npusim config` prints them with the numbers that went in, the "
	      "counters files carry them (`\"peaks\"`), `npusim_config_peak` and "
	      "the Python package's `Config.peak` read them by name, and sweep "
	      "constraints name them `peak.<name>`. Per matrix input type, "
	      "`macs_per_s_<type>` is `macs_per_s_chip` x "
	      "`core.matrix.macs_per_pe.<type>`.\n\n"
	      "| name | unit | formula | also accepted in sweep specs |\n"
	      "| --- | --- | --- | --- |\n", fp);
	for (k = 0; k < ARCH_N_PEAKS; k++)
		fprintf(fp, "| `%s` | %s | %s | %s%s%s |\n", arch_peak_info[k].name,
			arch_peak_info[k].unit, arch_peak_info[k].doc,
			*arch_peak_info[k].alias ? "`" : "",
			arch_peak_info[k].alias,
			*arch_peak_info[k].alias ? "`" : "");
}
