/*
 * fuzz_spec.c - libFuzzer target for sweep specs and constraint
 * expressions (`make fuzz-spec`; dse/spec.c, dse/expr.c).
 *
 * The input is a spec file.  Invariants:
 *   - a rejected spec comes with a message;
 *   - a loaded one has n_points = the product of its dimensions, every
 *     point's value indices inside its parameters' value lists, and its
 *     constraints evaluate (or fail with a message) on its first and last
 *     points without crashing;
 *   - the input's first line, as an expression, evaluates or fails with a
 *     message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../dse/expr.h"
#include "../dse/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fz_lookup(void *ctx, const char *name, size_t len, double *out)
{
	(void)ctx;
	*out = (double)len;
	return name[0] == 'u' ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/npusim_fuzz_spec_XXXXXX", err[256], why[400];
	char line[512];
	struct spec s;
	struct diag d;
	FILE *fp, *mem;
	char *log = NULL;
	size_t log_len = 0, n;
	double v;
	int fd = mkstemp(path), rc, line_no;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	mem = open_memstream(&log, &log_len);
	diag_init(&d, mem);
	rc = spec_load(&s, path, &d);
	fflush(mem);
	if (rc) {
		if (!log_len)
			abort(); /* rejected without a message */
	} else {
		uint64_t prod = 1, k;
		int i;

		for (i = 0; i < s.n_dims; i++)
			prod *= (uint64_t)s.dim_len[i];
		if (prod != s.n_points)
			abort();
		for (k = 0; k < s.n_points && k < 4; k++) {
			struct spec_point pt;
			uint64_t kk = k < 2 ? k : s.n_points - 1 - (k - 2);

			spec_point(&s, kk, &pt);
			for (i = 0; i < s.n_params; i++)
				if (pt.idx[i] < 0 || pt.idx[i] >= s.p[i].n_values)
					abort();
			rc = spec_feasible(&s, &pt, why, sizeof(why), &line_no);
			if (rc < 0 && !why[0])
				abort();
		}
		spec_free(&s);
	}
	fclose(mem);
	free(log);
	unlink(path);
	/* the first line as an expression */
	n = size < sizeof(line) - 1 ? size : sizeof(line) - 1;
	memcpy(line, data, n);
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (expr_eval(line, fz_lookup, NULL, &v, err, sizeof(err)) && !err[0])
		abort();
	return 0;
}
