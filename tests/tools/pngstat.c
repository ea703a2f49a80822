/*
 * pngstat.c - what a rendered PNG holds, for the roofline golden test.
 *
 *   pngstat FILE.png [RRGGBB ...]
 *
 * Prints "WIDTH HEIGHT NONWHITE" (pixels that are not opaque white), then
 * "RRGGBB COUNT" for each colour asked for (pixels of exactly that colour:
 * the inside of a marker is drawn without anti-aliasing).  Reads 8-bit
 * RGB or RGBA, non-interlaced (what rsvg-convert writes): the chunks, the
 * IHDR, the zlib stream of the IDATs and the five row filters of the PNG
 * specification (ISO/IEC 15948, section 9).  Exit 0, or 1 with a message
 * when the file is not such a PNG.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int fail(const char *path, const char *why)
{
	fprintf(stderr, "pngstat: %s: %s\n", path, why);
	return 1;
}

/* The Paeth predictor (PNG section 9.4). */
static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

int main(int argc, char **argv)
{
	static const unsigned char sig[8] = { 137, 'P', 'N', 'G', 13, 10, 26, 10 };
	unsigned char *file = NULL, *idat = NULL, *raw = NULL;
	size_t n = 0, cap = 0, n_idat = 0, off = 8, got;
	uint32_t w = 0, h = 0, x, y;
	unsigned long nonwhite = 0;
	unsigned bpp = 0;
	uLongf rawlen;
	FILE *fp;
	int k;

	if (argc < 2) {
		fputs("usage: pngstat FILE.png [RRGGBB ...]\n", stderr);
		return 1;
	}
	if (!(fp = fopen(argv[1], "rb")))
		return fail(argv[1], "cannot open");
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			file = realloc(file, cap);
			idat = realloc(idat, cap);
			if (!file || !idat)
				return fail(argv[1], "out of memory");
		}
		got = fread(file + n, 1, cap - n, fp);
		n += got;
	} while (got);
	fclose(fp);
	if (n < 8 || memcmp(file, sig, 8))
		return fail(argv[1], "not a PNG (bad signature)");
	while (off + 12 <= n) {
		uint32_t len = be32(file + off);
		const unsigned char *type = file + off + 4, *data = file + off + 8;

		if (len > n - off - 12)
			return fail(argv[1], "chunk runs past the end");
		if (!memcmp(type, "IHDR", 4)) {
			if (len != 13)
				return fail(argv[1], "bad IHDR");
			w = be32(data);
			h = be32(data + 4);
			if (data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12])
				return fail(argv[1], "not 8-bit RGB/RGBA non-interlaced");
			bpp = data[9] == 6 ? 4 : 3;
		} else if (!memcmp(type, "IDAT", 4)) {
			memcpy(idat + n_idat, data, len);
			n_idat += len;
		} else if (!memcmp(type, "IEND", 4)) {
			break;
		}
		off += 12 + (size_t)len;
	}
	if (!bpp || !w || !h || w > 100000 || h > 100000)
		return fail(argv[1], "no usable IHDR");
	rawlen = (uLongf)h * (1 + (uLongf)w * bpp);
	if (!(raw = malloc(rawlen)))
		return fail(argv[1], "out of memory");
	if (uncompress(raw, &rawlen, idat, n_idat) != Z_OK ||
	    rawlen != (uLongf)h * (1 + (uLongf)w * bpp))
		return fail(argv[1], "image data does not inflate to the IHDR size");
	/* undo the row filters in place: each byte predicted from the one to
	 * its left (a), above (b) and above-left (c) */
	for (y = 0; y < h; y++) {
		unsigned char *row = raw + (size_t)y * (1 + w * bpp);
		unsigned char *px = row + 1, *up = y ? px - (1 + w * bpp) : NULL;
		uint32_t i;

		if (row[0] > 4)
			return fail(argv[1], "bad row filter");
		for (i = 0; i < w * bpp; i++) {
			int a = i >= bpp ? px[i - bpp] : 0, b = up ? up[i] : 0;
			int c = up && i >= bpp ? up[i - bpp] : 0, p = 0;

			switch (row[0]) {
			case 1: p = a; break;
			case 2: p = b; break;
			case 3: p = (a + b) / 2; break;
			case 4: p = paeth(a, b, c); break;
			}
			px[i] = (unsigned char)(px[i] + p);
		}
	}
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			const unsigned char *p = raw + (size_t)y * (1 + w * bpp) + 1 + x * bpp;

			nonwhite += !(p[0] == 255 && p[1] == 255 && p[2] == 255 &&
				      (bpp == 3 || p[3] == 255));
		}
	printf("%lu %lu %lu\n", (unsigned long)w, (unsigned long)h, nonwhite);
	for (k = 2; k < argc; k++) {
		unsigned long want = strtoul(argv[k], NULL, 16), count = 0;

		for (y = 0; y < h; y++)
			for (x = 0; x < w; x++) {
				const unsigned char *p =
					raw + (size_t)y * (1 + w * bpp) + 1 + x * bpp;

				count += ((unsigned long)p[0] << 16 | p[1] << 8 | p[2]) == want &&
					 (bpp == 3 || p[3] == 255);
			}
		printf("%s %lu\n", argv[k], count);
	}
	free(file);
	free(idat);
	free(raw);
	return 0;
}
