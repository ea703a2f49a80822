/*
 * fuzz_cfg.c - libFuzzer target for the config loader (`make fuzz`).
 *
 * An input is a config file, optionally followed by a line "%%" and then
 * one -s override per line (key=value), at most FZ_CFG_MAX_SETS of them:
 * both the libconfig path and the loader's own override parser are
 * reached.  The text is written to a file in a private directory (the
 * loader reads files; @include names resolve there, where nothing else
 * lives) and loaded with arch_load.  Invariants:
 *   - loading prints nothing on stdout (libconfig's scanner used to echo
 *     stray characters of an @include line there);
 *   - rejection comes with at least one message and leaves *a empty;
 *   - an accepted config dumps (arch_dump), the dump loads back, and
 *     dumping that gives the same bytes: what `config --dump` prints is a
 *     config that means the same chip.
 * Crashing inputs are kept in fuzz/regress/cfg and replayed by
 * tests/unit/test_arch.c, which includes this file and calls the target.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../arch/arch.h"

#define FZ_CFG_MAX_SETS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whole contents of fp (rewound), NUL-terminated; NULL when out of memory. */
static char *fz_cfg_text(FILE *fp, size_t *n)
{
	char *b;
	long len;

	fflush(fp);
	if (fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0)
		return NULL;
	rewind(fp);
	b = malloc((size_t)len + 1);
	if (b && fread(b, 1, (size_t)len, fp) != (size_t)len) {
		free(b);
		return NULL;
	}
	if (b)
		b[len] = '\0';
	*n = (size_t)len;
	return b;
}

/* Drop comments ("# ..." to the end of the line) and the blanks before
 * them, in place: the dump's comments say where values came from ("set
 * by -s", the source file), which a reloaded dump rightly says otherwise. */
static void fz_cfg_strip(char *t)
{
	char *w = t, *r = t;

	while (*r) {
		if (*r == '#') {
			while (w > t && (w[-1] == ' ' || w[-1] == '\t'))
				w--;
			while (*r && *r != '\n')
				r++;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Dump a, load the dump from dir, dump again: the two dumps must hold
 * the same settings. */
static void fz_cfg_roundtrip(const struct arch *a, const char *dir)
{
	char path[512], *t1, *t2;
	size_t n1 = 0, n2 = 0;
	struct arch b;
	struct diag d;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/dump.cfg", dir);
	fp = fopen(path, "w+");
	if (!fp)
		return;
	if (arch_dump(a, fp) != 0)
		__builtin_trap();
	t1 = fz_cfg_text(fp, &n1);
	fclose(fp);
	diag_init(&d, NULL);
	if (arch_load(&b, path, NULL, 0, &d) != 0)
		__builtin_trap(); /* --dump printed a config that fails */
	fp = tmpfile();
	if (fp && arch_dump(&b, fp) != 0)
		__builtin_trap();
	t2 = fp ? fz_cfg_text(fp, &n2) : NULL;
	if (fp)
		fclose(fp);
	if (t1 && t2) {
		fz_cfg_strip(t1);
		fz_cfg_strip(t2);
		if (strcmp(t1, t2) != 0)
			__builtin_trap();
	}
	free(t1);
	free(t2);
	arch_free(&b);
	remove(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	char path[128], *text, *sep, *line, *next;
	const char *sets[FZ_CFG_MAX_SETS];
	int n_sets = 0, rc;
	struct arch a;
	struct diag d;
	FILE *fp;

	/* Configs beyond 16 KiB only slow the search down. */
	if (size > 16384)
		return 0;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/npusim_fuzz_cfg_XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* "%%" on a line of its own starts the overrides.  A NUL byte ends
	 * the text as the loader would see it anyway. */
	sep = strstr(text, "\n%%\n");
	if (sep) {
		*sep = '\0';
		for (line = sep + 4; line && *line && n_sets < FZ_CFG_MAX_SETS;
		     line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			sets[n_sets++] = line;
		}
	}
	snprintf(path, sizeof(path), "%s/fuzz.cfg", dir);
	fp = fopen(path, "w");
	if (!fp) {
		free(text);
		return 0;
	}
	fputs(text, fp);
	fclose(fp);
	diag_init(&d, NULL);
	/* stdout goes to a scratch file during the load, then back. */
	{
		static int scratch = -1;
		struct stat st;
		int saved;

		if (scratch < 0) {
			char sp[128];

			snprintf(sp, sizeof(sp), "%s/stdout", dir);
			scratch = open(sp, O_RDWR | O_CREAT | O_TRUNC, 0600);
		}
		fflush(stdout);
		saved = dup(1);
		if (scratch < 0 || saved < 0 || ftruncate(scratch, 0) != 0 ||
		    dup2(scratch, 1) < 0)
			abort();
		rc = arch_load(&a, path, sets, n_sets, &d);
		fflush(stdout);
		if (fstat(scratch, &st) != 0 || dup2(saved, 1) < 0)
			abort();
		close(saved);
		if (st.st_size != 0)
			__builtin_trap();
	}
	if (rc != 0) {
		/* Always a message; nothing left allocated in *a. */
		if (d.n_errors == 0 && rc != NPU_ENOMEM)
			__builtin_trap();
		if (a.path || a.files || a.d.core_node)
			__builtin_trap();
	} else {
		fz_cfg_roundtrip(&a, dir);
		arch_free(&a);
	}
	remove(path);
	free(text);
	return 0;
}
