/*
 * fuzz_ctr.c - libFuzzer target for counter files read back and plotted
 * (`make fuzz`).
 *
 * Each input is read as a counters JSON file.  Rejection is fine (with
 * exactly one message); a file that reads is turned into roofline points
 * (the run and each region) and plotted to SVG and CSV, which must not
 * fail.  Crashing inputs are kept in fuzz/regress/ctr and replayed by
 * tests/unit/test_roofline.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report/ctrread.h"
#include "../report/roofline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	static const struct roofline_ceiling ceil = { "int8", 2e12, 1 };
	struct ctrread_file f;
	struct roofline_point *p;
	struct roofline_chart c;
	struct diag d;
	int i;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	diag_init(&d, NULL);
	if (ctrread_parse(&f, "fuzz.json", (const char *)data, size, &d) != 0) {
		if (d.n_errors != 1 || f.regions)
			__builtin_trap();
		return 0;
	}
	p = calloc((size_t)f.n_regions + 1, sizeof(*p));
	if (!p)
		__builtin_trap();
	for (i = -1; i < f.n_regions; i++) {
		struct roofline_point *q = &p[i + 1];
		const struct ctrread_sums *s = i < 0 ? &f.sums : &f.regions[i].sums;

		q->file = "fuzz.json";
		q->region = i < 0 ? NULL : f.regions[i].name;
		q->series = i + 1;
		q->cycles = i < 0 ? f.cycles : f.regions[i].cycles;
		q->seconds = (double)q->cycles / 1e9;
		q->macs = s->macs;
		q->dram_bytes = s->dram_bytes;
		q->sram_bytes = s->sram_bytes;
	}
	memset(&c, 0, sizeof(c));
	c.chip = "fuzz";
	c.config = "fuzz.cfg";
	c.n_cores = 2;
	c.clock_ghz = 1;
	c.ceilings = &ceil;
	c.n_ceilings = 1;
	c.core_ops_per_s = 1e12;
	c.dram_bytes_per_s = 1e10;
	c.sram_bytes_per_s = 1e11;
	c.points = p;
	c.n_points = f.n_regions + 1;
	if (devnull && (roofline_write_svg(&c, devnull) || roofline_write_csv(&c, devnull)))
		__builtin_trap();
	free(p);
	ctrread_free(&f);
	return 0;
}
