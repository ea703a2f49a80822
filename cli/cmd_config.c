/*
 * cmd_config.c - `npusim config`: check a chip configuration, print it
 * resolved (--dump) or list every key (--keys).  Options: opts_config.def.
 *
 * Without -c the built-in defaults are checked.  Errors go to stderr as
 * "file:line: error: ..." (all of them, not just the first) and the exit
 * status is 2; a dump written with -o is never left half-written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/arch.h"
#include "../util/diag.h"
#include "../util/fsout.h"
#include "cli.h"
#include "cmds.h"

/* Option indices of cmds_config, in opts_config.def order. */
enum {
#define OPT(id, sh, lng, meta, kind, help) CONFIG_OPT_##id,
#include "opts_config.def"
#undef OPT
};

int cmd_config(int argc, char **argv)
{
	const char *path = NULL, *out = NULL, **sets;
	int n_sets = 0, dump = 0, keys = 0, k, rc, status;
	struct arch a;
	struct diag d;
	struct fsout o;
	struct opts op;

	if (opts_begin(&op, &cmds_config, argc, argv))
		return NPU_EXIT_OK;
	/* At most argc - 1 overrides: sized once, no limit to check. */
	sets = calloc((size_t)argc, sizeof(*sets));
	if (!sets) {
		fputs("npusim config: out of memory\n", stderr);
		return NPU_EXIT_USAGE;
	}
	/* Overrides keep command-line order: arch_load applies them after
	 * the file, in order, so a later -s of the same key wins. */
	while ((k = opts_next(&op)) != OPTS_END) {
		switch (k) {
		case CONFIG_OPT_CONFIG:
			path = op.val;
			break;
		case CONFIG_OPT_SET:
			sets[n_sets++] = op.val;
			break;
		case CONFIG_OPT_OUTPUT:
			out = op.val;
			break;
		case CONFIG_OPT_DUMP:
			dump = 1;
			break;
		case CONFIG_OPT_KEYS:
			keys = 1;
			break;
		default:        /* OPTS_ERR: the command takes no operand */
			free(sets);
			return NPU_EXIT_USAGE;
		}
	}
	if (keys) {
		free(sets);
		if (path || n_sets || dump || out) {
			fputs("npusim config: --keys takes no other option\n", stderr);
			return NPU_EXIT_USAGE;
		}
		/* main() reports a failed write of stdout (exit 1). */
		arch_list_keys(stdout);
		return NPU_EXIT_OK;
	}
	if (out && !dump) {
		fputs("npusim config: -o needs --dump\n", stderr);
		free(sets);
		return NPU_EXIT_USAGE;
	}

	diag_init(&d, stderr);
	rc = arch_load(&a, path, sets, n_sets, &d);
	free(sets);
	/* The loader printed each error with its file:line; add the count,
	 * or the bare reason when it failed before reporting any (I/O). */
	if (rc) {
		if (d.n_errors)
			fprintf(stderr, "%s: %d error%s\n",
				path ? path : "<defaults>", d.n_errors,
				d.n_errors == 1 ? "" : "s");
		else
			fprintf(stderr, "npusim config: %s\n", npu_strerror(rc));
		return npu_exit_status(rc);
	}
	/* The dump goes through fsout: written to a temporary and renamed
	 * into place on commit, so -o never leaves a half-written config
	 * ("-" is stdout, written directly; so are devices and pipes). */
	if (dump) {
		rc = fsout_open(&o, out ? out : "-", &d);
		if (!rc) {
			rc = arch_dump(&a, o.fp);
			if (rc)
				fsout_abort(&o);
			else
				rc = fsout_commit(&o, &d);
		}
	} else {
		/* A failed write of stdout is reported by main() (exit 1). */
		double reach, lat;

		printf("%s: ok\n", path ? path : "<defaults>");
		arch_summary(&a, stdout);
		if (!arch_dma_covers_dram(&a, &reach, &lat))
			fprintf(stderr, "%s: warning: the DMA engines keep at most "
				"%lld x %lld x %lld x %lld B in flight (cores x "
				"core.dma.engines x core.dma.max_outstanding x "
				"core.dma.burst_bytes): %.3g GB/s at the DRAM's %.4g ns "
				"unloaded latency, below its %.3g GB/s peak; raise "
				"core.dma.max_outstanding or core.dma.burst_bytes\n",
				path ? path : "<defaults>", (long long)ARCH_I(&a, CHIP_CORES),
				(long long)ARCH_I(&a, DMA_ENGINES),
				(long long)ARCH_I(&a, DMA_OUTSTANDING),
				(long long)ARCH_I(&a, DMA_BURST), reach / 1e9, lat,
				ARCH_PEAK(&a, DRAM_BYTES_PER_S) / 1e9);
	}
	arch_free(&a);
	/* A dump that could not be written is an I/O error (exit 1), with
	 * its message from fsout_commit. */
	status = npu_exit_status(rc);
	return status;
}
