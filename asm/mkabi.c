/*
 * mkabi.c - host program that writes the kernels' ABI includes.
 *
 *   mkabi DIR     writes DIR/<file>_abi.inc for every group of
 *                 asm/kernels/abi.def (`make abi`: DIR = asm/kernels/lib)
 *
 * Each file is written next to its place and renamed over it, so a
 * failed run leaves the committed include whole.
 */
#include <stdio.h>

#include "kabi.h"

int main(int argc, char **argv)
{
	char path[4096], tmp[4200];
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: mkabi DIR  (writes DIR/<file>_abi.inc)\n");
		return 2;
	}
	for (i = 0; i < kabi_n_files; i++) {
		FILE *f;
		int bad;

		snprintf(path, sizeof(path), "%s/%s_abi.inc", argv[1],
			 kabi_files[i]);
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		if (!(f = fopen(tmp, "w"))) {
			perror(tmp);
			return 1;
		}
		bad = kabi_write_inc(f, kabi_files[i]) != 0;
		bad |= fclose(f) != 0;
		if (bad || rename(tmp, path)) {
			perror(path);
			remove(tmp);
			return 1;
		}
	}
	return 0;
}
