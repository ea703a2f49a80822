/*
 * dram_map.h - the DRAM address mapping as an ordered field string.
 *
 * dram.mapping names the fields of a burst address from most to least
 * significant, separated by '-':
 *
 *   ro  row            ra  rank           bg  bank group
 *   ba  bank in group  ch  channel        co  column (in bursts)
 *
 * e.g. "ro-ba-ra-co-bg-ch": channel in the lowest bits (consecutive bursts
 * go to consecutive channels), then bank group, then column.  Below every
 * field is the byte offset inside one burst.  A field may be split into
 * parts with a width in bits, "co:2": a part with a width holds that many
 * bits of the field, the part without one holds the rest; the part further
 * right holds the lower bits of the field.  "ro-ba-ra-bg-co-ch-co:2" puts 4
 * consecutive bursts (co:2) in one channel before moving to the next.  Every
 * field appears at least once (a field of one value costs no bits); at most
 * one part of a field has no width.
 *
 * The three mapping names of earlier versions are accepted as names for
 * strings (dram_map_alias): ro_ba_ra_co_ch = "ro-bg-ba-ra-co-ch",
 * ro_co_ba_ra_ch = "ro-co-bg-ba-ra-ch", ch_ro_ba_ra_co = "ch-ro-bg-ba-ra-co"
 * (their "ba" was the bank number within a rank; the flat bank number is
 * bg x banks_per_group + ba, so they decode as before).
 *
 * Fields are decoded as a mixed-radix number (radix = the field's count, or
 * 2^width for a part), so counts need not be powers of two.  arch/ checks a
 * config's string with dram_map_check; sim/mem/dram.c decodes with it.
 */
#ifndef NPU_DRAM_MAP_H
#define NPU_DRAM_MAP_H

#include <stddef.h>
#include <stdint.h>

/* The fields, in the order the doc table lists them. */
enum dram_field {
	DRAM_F_RO, DRAM_F_RA, DRAM_F_BG, DRAM_F_BA, DRAM_F_CH, DRAM_F_CO,
	DRAM_F_N
};

/* Most parts one string may have (6 fields, each split a few times). */
#define DRAM_MAP_MAX_PARTS 16

/* One part of the string. */
struct dram_map_part {
	uint8_t field;      /* enum dram_field */
	uint8_t bits;       /* width in bits; 0 = the rest of the field */
};

/* A parsed string: parts, most significant first. */
struct dram_map {
	int n;                                   /* parts */
	struct dram_map_part p[DRAM_MAP_MAX_PARTS];
};

/* Two-letter name of a field ("ro"). */
const char *dram_map_field_name(int f);
/* The string an old mapping name stands for, or s itself. */
const char *dram_map_alias(const char *s);
/*
 * Parse s (after dram_map_alias) into m.  Syntax only: known fields, widths
 * 1..40, every field present, at most one part without a width per field.
 * Returns 0, or -1 with a message in err.
 */
int dram_map_parse(const char *s, struct dram_map *m, char *err, size_t n);
/*
 * Radix of every part for the field counts count[DRAM_F_*]: a part with a
 * width has 2^width values; the part without one has count / (product of
 * the field's widths), which must divide exactly; a field without such a
 * part needs count == product.  Returns 0, or -1 with a message in err.
 */
int dram_map_radices(const struct dram_map *m, const uint64_t *count,
		     uint64_t *radix, char *err, size_t n);
/* Write m back as a string ("ro-ba-ra-co-bg-ch"). */
void dram_map_format(const struct dram_map *m, char *buf, size_t n);

#endif
