/*
 * dram_map.c - parse and check dram.mapping strings (dram_map.h).
 *
 * The syntax is small enough for a hand-written scanner: parts separated
 * by '-', each a two-letter field name and an optional ":BITS".  Nothing
 * here knows the simulator; arch.c checks a config's string against its
 * geometry and sim/mem/dram.c builds its decoder from the same parse.
 */
#include "dram_map.h"

#include <stdio.h>
#include <string.h>

/* Field names, index = enum dram_field. */
static const char *const field_names[DRAM_F_N] = {
	[DRAM_F_RO] = "ro", [DRAM_F_RA] = "ra", [DRAM_F_BG] = "bg",
	[DRAM_F_BA] = "ba", [DRAM_F_CH] = "ch", [DRAM_F_CO] = "co",
};

/* Old mapping names (an enum before the string form) and their strings.
 * Their "ba" was the bank number within a rank, 0..banks-1; with the flat
 * numbering bank = bg x banks_per_group + ba that is "bg-ba", so the
 * strings decode every address exactly as the old names did. */
static const char *const aliases[][2] = {
	{ "ro_ba_ra_co_ch", "ro-bg-ba-ra-co-ch" },
	{ "ro_co_ba_ra_ch", "ro-co-bg-ba-ra-ch" },
	{ "ch_ro_ba_ra_co", "ch-ro-bg-ba-ra-co" },
};

const char *dram_map_field_name(int f)
{
	return f >= 0 && f < DRAM_F_N ? field_names[f] : "?";
}

const char *dram_map_alias(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(s, aliases[i][0]) == 0)
			return aliases[i][1];
	return s;
}

int dram_map_parse(const char *s, struct dram_map *m, char *err, size_t n)
{
	int seen[DRAM_F_N] = { 0 }, rest[DRAM_F_N] = { 0 }, f;
	const char *p;

	s = dram_map_alias(s);
	memset(m, 0, sizeof(*m));
	p = s;
	for (;;) {
		unsigned bits = 0;

		for (f = 0; f < DRAM_F_N; f++)
			if (strncmp(p, field_names[f], 2) == 0)
				break;
		if (f == DRAM_F_N) {
			snprintf(err, n, "'%.8s' at offset %d is not a field "
				 "(ro, ra, bg, ba, ch, co)", p, (int)(p - s));
			return -1;
		}
		p += 2;
		if (*p == ':') {
			p++;
			if (*p < '0' || *p > '9') {
				snprintf(err, n, "'%s:' needs a width in bits",
					 field_names[f]);
				return -1;
			}
			while (*p >= '0' && *p <= '9' && bits <= 64)
				bits = bits * 10 + (unsigned)(*p++ - '0');
			/* 40 bits of bursts is far beyond any dram.bytes */
			if (bits < 1 || bits > 40) {
				snprintf(err, n, "'%s:%u': a width is 1..40 bits",
					 field_names[f], bits);
				return -1;
			}
		} else if (rest[f]++) {
			snprintf(err, n, "'%s' appears twice without a width; "
				 "give all but one of its parts a :BITS width",
				 field_names[f]);
			return -1;
		}
		if (m->n == DRAM_MAP_MAX_PARTS) {
			snprintf(err, n, "more than %d parts",
				 DRAM_MAP_MAX_PARTS);
			return -1;
		}
		m->p[m->n].field = (uint8_t)f;
		m->p[m->n].bits = (uint8_t)bits;
		m->n++;
		seen[f] = 1;
		if (*p == '\0')
			break;
		if (*p != '-') {
			snprintf(err, n, "'%c' at offset %d: parts are "
				 "separated by '-'", *p, (int)(p - s));
			return -1;
		}
		p++;
	}
	for (f = 0; f < DRAM_F_N; f++)
		if (!seen[f]) {
			snprintf(err, n, "field '%s' is missing (every one of "
				 "ro, ra, bg, ba, ch, co must appear)",
				 field_names[f]);
			return -1;
		}
	return 0;
}

int dram_map_radices(const struct dram_map *m, const uint64_t *count,
		     uint64_t *radix, char *err, size_t n)
{
	uint64_t fixed[DRAM_F_N];
	int has_rest[DRAM_F_N] = { 0 }, i, f;

	for (f = 0; f < DRAM_F_N; f++)
		fixed[f] = 1;
	for (i = 0; i < m->n; i++) {
		f = m->p[i].field;
		if (m->p[i].bits) {
			radix[i] = (uint64_t)1 << m->p[i].bits;
			/* product stays <= count, so it cannot overflow */
			if (fixed[f] > count[f] / radix[i] ||
			    count[f] % (fixed[f] * radix[i])) {
				snprintf(err, n, "'%s:%u' does not divide the "
					 "%llu values of %s",
					 field_names[f], m->p[i].bits,
					 (unsigned long long)count[f],
					 field_names[f]);
				return -1;
			}
			fixed[f] *= radix[i];
		} else {
			has_rest[f] = 1;
		}
	}
	for (i = 0; i < m->n; i++)
		if (!m->p[i].bits)
			radix[i] = count[m->p[i].field] / fixed[m->p[i].field];
	for (f = 0; f < DRAM_F_N; f++)
		if (!has_rest[f] && fixed[f] != count[f]) {
			snprintf(err, n, "the widths of %s cover %llu values, "
				 "the geometry has %llu", field_names[f],
				 (unsigned long long)fixed[f],
				 (unsigned long long)count[f]);
			return -1;
		}
	return 0;
}

void dram_map_format(const struct dram_map *m, char *buf, size_t n)
{
	size_t used = 0;
	int i;

	if (n)
		buf[0] = '\0';
	for (i = 0; i < m->n && used < n; i++) {
		int w;

		if (m->p[i].bits)
			w = snprintf(buf + used, n - used, "%s%s:%u",
				     i ? "-" : "", field_names[m->p[i].field],
				     m->p[i].bits);
		else
			w = snprintf(buf + used, n - used, "%s%s",
				     i ? "-" : "", field_names[m->p[i].field]);
		if (w < 0)
			return;
		used += (size_t)w;
	}
}
