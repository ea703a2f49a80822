/*
 * cmd_config.c - `npusim config`: check a chip configuration, print it
 * resolved (--dump) or list every key (--keys).
 *
 *   npusim config [-c FILE] [-s key=value ...] [--dump [-o OUT]]
 *   npusim config --keys
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

static void config_usage(FILE *fp)
{
	fputs("usage: npusim config [-c FILE] [-s key=value ...] [--dump [-o OUT]]\n"
	      "       npusim config --keys\n"
	      "\n"
	      "Check a chip configuration: every key known, typed and in range,\n"
	      "every cross-key rule met.  Prints \"FILE: ok\" and a summary, or\n"
	      "every error as file:line: error: ...\n"
	      "\n"
	      "options:\n"
	      "  -c, --config FILE    libconfig file (default: built-in defaults)\n"
	      "  -s, --set KEY=VALUE  override one key after the file; repeatable,\n"
	      "                       applied in order (256K, 0.7, true, os, [0,1])\n"
	      "      --dump           print the resolved config (loadable, libconfig\n"
	      "                       syntax) with the derived peaks as comments\n"
	      "  -o, --output OUT     write the dump to OUT instead of stdout\n"
	      "      --keys           list every key: type, default, range, unit, doc\n"
	      "  -h, --help           this help\n"
	      "\n"
	      "Keys and rules: docs/config.md.\n"
	      "exit status: 0 ok, 1 output not written, 2 usage or configuration error\n", fp);
}

int cmd_config(int argc, char **argv)
{
	const char *path = NULL, *out = NULL, **sets;
	int n_sets = 0, dump = 0, keys = 0, i, rc, status;
	struct arch a;
	struct diag d;
	struct fsout o;

	if (cli_want_help(argc, argv)) {
		config_usage(stdout);
		return NPU_EXIT_OK;
	}
	/* At most argc - 1 overrides: sized once, no limit to check. */
	sets = calloc((size_t)argc, sizeof(*sets));
	if (!sets) {
		fputs("npusim config: out of memory\n", stderr);
		return NPU_EXIT_USAGE;
	}
	/* Overrides keep command-line order: arch_load applies them after
	 * the file, in order, so a later -s of the same key wins. */
	for (i = 1; i < argc; i++) {
		const char *v;
		int missing = 0;

		if ((v = cli_opt_value(argc, argv, &i, 'c', "--config", &missing))) {
			path = v;
		} else if ((v = cli_opt_value(argc, argv, &i, 's', "--set",
					  &missing))) {
			sets[n_sets++] = v;
		} else if ((v = cli_opt_value(argc, argv, &i, 'o', "--output",
					  &missing))) {
			out = v;
		} else if (missing) {
			fprintf(stderr, "npusim config: %s needs a value "
					"(see 'npusim config --help')\n", argv[i]);
			free(sets);
			return NPU_EXIT_USAGE;
		} else if (strcmp(argv[i], "--dump") == 0) {
			dump = 1;
		} else if (strcmp(argv[i], "--keys") == 0) {
			keys = 1;
		} else {
			fprintf(stderr, "npusim config: unknown argument '%s' "
					"(see 'npusim config --help')\n", argv[i]);
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
