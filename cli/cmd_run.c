/*
 * cmd_run.c - `npusim run` and `npusim stat`: simulate a program on a chip
 * (options: opts_run.def, and opts_stat.def for stat's own).
 *
 * PROGRAM is assembly (.s, assembled in memory) or an object file (.npo,
 * recognised by its magic).  Inputs are written into the tensor's memory
 * before the run; outputs are read back after it.  Every output file is
 * written atomically and only when the run succeeded, so a failing run
 * leaves no half-written file.  `stat` is `run` that prints the full
 * perf-stat-like counter summary.
 *
 * The work is the run library's (run/run.h); this file parses options and
 * writes files.  Order of one run (cmd_run_common): config -> trace file
 * opened -> chip built -> programs and --input tensors loaded -> run ->
 * (only on success) --output tensors, counter files, trace closed,
 * summary.  The trace is the exception: once the run has started it is
 * always closed and kept, so a fault, deadlock or cycle limit (or any
 * other failed status) leaves the timeline up to it ("trace kept: FILE").  Each output file is atomic on its own (fsout); if a later one
 * fails, earlier ones stay written, whole.  With --check-hazards a run
 * whose only problem is hazards still writes everything and exits 3
 * (docs/hazards.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../arch/arch.h"
#include "../report/progress.h"
#include "../run/run.h"
#include "../sim/engine/counters.h"
#include "../report/ctrout.h"
#include "../report/summary.h"
#include "../trace/trace.h"
#include "../util/fsout.h"
#include "../util/npy.h"
#include "cli.h"
#include "cmds.h"

/* Most repeats of each repeatable option (fixed arrays in run_opts). */
#define MAX_ARGS 256

/* One --program binding: cores lo..hi run path. */
struct core_prog {
	int lo, hi;         /* core range */
	const char *path;   /* .s or .npo */
};

/* One --input / --output binding. */
struct bind {
	const char *arg;    /* as given, for messages */
	char name[128];     /* tensor name */
	int core;           /* core whose memory (spm/acc); 0 by default */
	const char *path;   /* .npy file */
};

/* The parsed command line (heap-allocated: the bind arrays make it about
 * 85 KiB, kept off the stack). */
struct run_opts {
	const char *config;                /* -c: libconfig file, NULL = defaults */
	const char *program;               /* .s or .npo operand (the cores no
					      --program names) */
	struct core_prog progs[MAX_ARGS];  /* --program CORES=FILE */
	int n_progs;                       /* used entries of progs */
	const char *overrides[MAX_ARGS];   /* -s key=value, command-line order */
	int n_overrides;                   /* used entries of overrides */
	const char *defines[MAX_ARGS];     /* -D NAME[=VALUE] for .s input */
	int n_defines;                     /* used entries of defines */
	const char *incdirs[MAX_ARGS];     /* -I DIR for .s input */
	int n_incdirs;                     /* used entries of incdirs */
	struct bind inputs[MAX_ARGS];      /* --input tensors, loaded in order */
	int n_inputs;                      /* used entries of inputs */
	struct bind outputs[MAX_ARGS];     /* --output tensors, written in order */
	int n_outputs;                     /* used entries of outputs */
	const char *counters[8];           /* --counters files, format by
					      extension; at most 8 */
	int n_counters;                    /* used entries of counters */
	const char *trace;                 /* --trace: .json.gz, NULL = off */
	cycle_t trace_interval;            /* --trace-interval (default 1000) */
	cycle_t trace_lo, trace_hi;        /* --trace-window [lo, hi) */
	const char *trace_units;           /* --trace-units LIST, NULL = all */
	cycle_t max_cycles;                /* watchdog, CYCLE_MAX = none */
	int check_hazards;                 /* --check-hazards */
	int timing_only;                   /* --timing-only */
	int no_ff;                         /* --no-fast-forward */
	int trace_insn;                    /* --trace-insn: to stderr */
	int quiet;                         /* -q: errors only */
	int stat;          /* `npusim stat`: print the full summary */
	/* stat only: what to show (ctrout_select) and how */
	char *events;                      /* -e lists joined by ',' (owned) */
	const char *x_sep;                 /* -x SEP: machine-readable */
	const char *region;                /* --region NAME: that region only */
	int total;                         /* 1 --total, 0 --per-core, -1 unset:
					      sum over cores when there are several */
	int detail;                        /* --detail: per-bank/requester too */
	char model_override[64];           /* "core.matrix.model=..." built from
					      --matrix-model (an -s in disguise) */
};

/* Option indices of cmds_run and cmds_stat: run's, then stat's own. */
enum {
#define OPT(id, sh, lng, meta, kind, help) RUN_OPT_##id,
#include "opts_run.def"
#include "opts_stat.def"
#undef OPT
};

/* Parse NAME[@CORE]=PATH.  The first '=' ends the name, so a path may
 * contain '='; '@' counts only before it.  Core ids are checked against
 * the chip later (tensor_mem), once the config is known; 65535 only keeps
 * the number sane.  -1 on any malformed part. */
static int parse_bind(const char *arg, struct bind *b)
{
	const char *eq = strchr(arg, '=');
	const char *at;
	size_t n;

	memset(b, 0, sizeof(*b));
	b->arg = arg;
	if (!eq || eq == arg || !eq[1])
		return -1;
	at = memchr(arg, '@', (size_t)(eq - arg));
	n = (size_t)((at ? at : eq) - arg);
	if (n >= sizeof(b->name))
		return -1;
	memcpy(b->name, arg, n);
	if (at) {
		char *end;
		long v = strtol(at + 1, &end, 10);

		if (end != eq || v < 0 || v > 65535)
			return -1;
		b->core = (int)v;
	}
	b->path = eq + 1;
	return 0;
}

/*
 * --program CORES=FILE: a core "3" or a range "2-5".  Checked against the
 * chip when loaded (run_load_file reports cores that do not exist).
 */
static int parse_core_prog(const char *arg, struct core_prog *cp)
{
	const char *eq = strchr(arg, '=');
	char *end;
	long lo, hi;

	if (!eq || eq == arg || !eq[1])
		return -1;
	lo = strtol(arg, &end, 10);
	hi = lo;
	if (*end == '-')
		hi = strtol(end + 1, &end, 10);
	if (end != eq || lo < 0 || hi < lo || hi > 65535)
		return -1;
	cp->lo = (int)lo;
	cp->hi = (int)hi;
	cp->path = eq + 1;
	return 0;
}

/* --trace-window START:END, either side may be empty (0 / no end). */
static int parse_window(const char *v, cycle_t *lo, cycle_t *hi)
{
	const char *colon = strchr(v, ':');
	char *end;

	if (!colon)
		return -1;
	*lo = 0;
	*hi = CYCLE_MAX;
	if (colon != v) {
		if (*v == '-')
			return -1;
		*lo = strtoull(v, &end, 10);
		if (end != colon)
			return -1;
	}
	if (colon[1]) {
		if (colon[1] == '-')
			return -1;
		*hi = strtoull(colon + 1, &end, 10);
		if (*end)
			return -1;
	}
	return *lo < *hi ? 0 : -1;
}

/* The command line into o; -1 after a message.  Options are taken in
 * command-line order: --matrix-model joins the -s overrides where it
 * stands. */
static int parse_args(struct opts *op, struct run_opts *o)
{
	const char *cmd = op->cmd->name, *v;
	char *end;
	int k;

	for (;;) {
		/* Checked before each word that is left: one item adds at
		 * most one entry to one array, so none can overflow below. */
		if (op->i < op->argc &&
		    (o->n_overrides >= MAX_ARGS || o->n_inputs >= MAX_ARGS ||
		     o->n_outputs >= MAX_ARGS || o->n_defines >= MAX_ARGS ||
		     o->n_incdirs >= MAX_ARGS || o->n_progs >= MAX_ARGS)) {
			fprintf(stderr, "npusim %s: too many options\n", cmd);
			return -1;
		}
		if ((k = opts_next(op)) == OPTS_END)
			break;
		v = op->val;
		switch (k) {
		case OPTS_ERR:
			return -1;
		case OPTS_ARG:
			if (o->program) {
				fprintf(stderr, "npusim %s: more than one program given ('%s' and '%s')\n",
					cmd, o->program, v);
				return -1;
			}
			o->program = v;
			break;
		case RUN_OPT_CONFIG:
			o->config = v;
			break;
		case RUN_OPT_SET:
			o->overrides[o->n_overrides++] = v;
			break;
		case RUN_OPT_DEFINE:
			o->defines[o->n_defines++] = v;
			break;
		case RUN_OPT_INCLUDE:
			o->incdirs[o->n_incdirs++] = v;
			break;
		case RUN_OPT_PROGRAM:
			if (parse_core_prog(v, &o->progs[o->n_progs++])) {
				fprintf(stderr, "npusim %s: --program %s: expected CORE[-CORE]=FILE\n",
					cmd, v);
				return -1;
			}
			break;
		case RUN_OPT_INPUT:
			if (parse_bind(v, &o->inputs[o->n_inputs++])) {
				fprintf(stderr, "npusim %s: --input %s: expected NAME[@CORE]=FILE.npy\n",
					cmd, v);
				return -1;
			}
			break;
		case RUN_OPT_OUTPUT:
			if (parse_bind(v, &o->outputs[o->n_outputs++])) {
				fprintf(stderr, "npusim %s: --output %s: expected NAME[@CORE]=FILE.npy\n",
					cmd, v);
				return -1;
			}
			break;
		case RUN_OPT_COUNTERS:
			/* The format comes from the extension; note that
			 * a 9th --counters gets the same message. */
			if (o->n_counters == 8) {
				fprintf(stderr, "npusim %s: at most 8 --counters files\n", cmd);
				return -1;
			}
			if (ctrout_fmt_of(v) < 0) {
				fprintf(stderr, "npusim %s: --counters %s: the file name must end in .json, .csv or .txt\n",
					cmd, v);
				return -1;
			}
			o->counters[o->n_counters++] = v;
			break;
		case RUN_OPT_TRACE:
			o->trace = v;
			break;
		case RUN_OPT_TRACE_INTERVAL:
			o->trace_interval = strtoull(v, &end, 10);
			if (*end || !*v || *v == '-') {
				fprintf(stderr, "npusim %s: --trace-interval %s: expected a number of cycles (0 = no counters)\n",
					cmd, v);
				return -1;
			}
			break;
		case RUN_OPT_TRACE_WINDOW:
			if (parse_window(v, &o->trace_lo, &o->trace_hi)) {
				fprintf(stderr, "npusim %s: --trace-window %s: expected START:END in cycles with START < END (either may be omitted)\n",
					cmd, v);
				return -1;
			}
			break;
		case RUN_OPT_TRACE_UNITS:
			o->trace_units = v;
			break;
		case RUN_OPT_MAX_CYCLES:
			/* 0 would stop before cycle 0 ever ran: refused;
			 * strtoull takes "-N" modulo 2^64 and saturates an
			 * overflow, both refused too. */
			errno = 0;
			o->max_cycles = strtoull(v, &end, 10);
			if (*end || !*v || *v == '-' || errno ||
			    o->max_cycles == 0) {
				fprintf(stderr, "npusim %s: --max-cycles %s: expected a positive integer\n",
					cmd, v);
				return -1;
			}
			break;
		case RUN_OPT_MATRIX_MODEL:
			/* Becomes an ordinary override at this position, so
			 * a later -s core.matrix.model=... still wins. */
			snprintf(o->model_override, sizeof(o->model_override),
				 "core.matrix.model=%s", v);
			o->overrides[o->n_overrides++] = o->model_override;
			break;
		case RUN_OPT_CHECK_HAZARDS:
			o->check_hazards = 1;
			break;
		case RUN_OPT_TIMING_ONLY:
			o->timing_only = 1;
			break;
		case RUN_OPT_NO_FAST_FORWARD:
			o->no_ff = 1;
			break;
		case RUN_OPT_TRACE_INSN:
			o->trace_insn = 1;
			break;
		case RUN_OPT_QUIET:
			o->quiet = 1;
			break;
		case RUN_OPT_EVENT: {
			/* Repeatable and comma-separated, as perf's -e. */
			size_t l = o->events ? strlen(o->events) : 0;
			char *e = realloc(o->events, l + strlen(v) + 2);

			if (!e) {
				fprintf(stderr, "npusim %s: out of memory\n", cmd);
				return -1;
			}
			snprintf(e + l, strlen(v) + 2, "%s%s", l ? "," : "", v);
			o->events = e;
			break;
		}
		case RUN_OPT_TOTAL:
			o->total = 1;
			break;
		case RUN_OPT_PER_CORE:
			o->total = 0;
			break;
		case RUN_OPT_DETAIL:
			o->detail = 1;
			break;
		case RUN_OPT_REGION:
			o->region = v;
			break;
		case RUN_OPT_FIELD_SEPARATOR:
			o->x_sep = v;
			break;
		}
	}
	if (!o->program && o->n_progs == 0) {
		fprintf(stderr, "npusim %s: no program given (see npusim %s --help)\n",
			cmd, cmd);
		return -1;
	}
	if (o->timing_only && o->n_outputs) {
		fprintf(stderr, "npusim %s: --timing-only computes no tensor values, so there is nothing to --output\n",
			cmd);
		return -1;
	}
	return 0;
}

/*
 * Refuse two outputs naming one file (--trace x.json --counters x.json,
 * or --output C=x.npy twice): they would overwrite each other, and the
 * last writer would win with whatever it wrote.  Checked before anything
 * runs; NPU_EUSAGE (exit 2).
 */
static int check_outputs(const struct run_opts *o, struct diag *d)
{
	int n = 0, i, rc;
	const char **paths = malloc((MAX_ARGS + 9) * sizeof(*paths));
	const char **labels = malloc((MAX_ARGS + 9) * sizeof(*labels));
	char (*bufs)[sizeof(o->outputs[0].name) + 16] =
		malloc(MAX_ARGS * sizeof(*bufs));

	if (!paths || !labels || !bufs) {
		rc = diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
		goto out;
	}
	if (o->trace) {
		labels[n] = "--trace ";
		paths[n++] = o->trace;
	}
	for (i = 0; i < o->n_counters; i++) {
		labels[n] = "--counters ";
		paths[n++] = o->counters[i];
	}
	for (i = 0; i < o->n_outputs; i++) {
		/* The binding as written, up to its '=' ("C@1="). */
		snprintf(bufs[i], sizeof(bufs[i]), "--output %.*s",
			 (int)(o->outputs[i].path - o->outputs[i].arg),
			 o->outputs[i].arg);
		labels[n] = bufs[i];
		paths[n++] = o->outputs[i].path;
	}
	rc = fsout_distinct(paths, labels, n, d);
out:
	free(paths);
	free(labels);
	free(bufs);
	return rc;
}

/* 1 if some --input or --output names tensor 'name'. */
static int is_bound(const struct run_opts *o, const char *name)
{
	int i;

	for (i = 0; i < o->n_inputs; i++)
		if (strcmp(o->inputs[i].name, name) == 0)
			return 1;
	for (i = 0; i < o->n_outputs; i++)
		if (strcmp(o->outputs[i].name, name) == 0)
			return 1;
	return 0;
}

/*
 * A tensor that neither the command line nor the program's data gives
 * contents, and that is not read back either, is most likely a forgotten
 * --input: say so once per name rather than silently compute on zeros.
 */
static void warn_unbound(struct run *r, const struct run_opts *o)
{
	struct chip *c = run_chip(r);
	int core, k;
	size_t i;

	for (core = 0; core < chip_n_cores(c); core++) {
		const struct prog_image *p = chip_program(c, core);

		for (i = 0; p && i < p->n_tensors; i++) {
			const struct prog_tensor *t = &p->tensors[i];
			int seen = 0;

			if (is_bound(o, t->name) || prog_tensor_initialised(p, t))
				continue;
			/* Once per name: an SPMD program lists it on every core. */
			for (k = 0; k < core && !seen; k++)
				seen = chip_program(c, k) &&
				       prog_find_tensor(chip_program(c, k), t->name);
			if (!seen)
				fprintf(stderr, "npusim %s: warning: tensor '%s' has no "
					"--input or --output; it starts as zeros "
					"(--input %s=zeros says that is meant)\n", o->stat ? "stat" : "run",
					t->name, t->name);
		}
	}
}

/* Write each --input tensor before the run, in command-line order;
 * FILE "zeros" zero-fills the tensor. */
static int load_inputs(struct run *r, const struct run_opts *o)
{
	const struct bind *b;
	int i, rc;

	if (!o->quiet)
		warn_unbound(r, o);
	for (i = 0; i < o->n_inputs; i++) {
		b = &o->inputs[i];
		rc = strcmp(b->path, "zeros") == 0
			? run_zero(r, b->name, b->core)
			: run_bind_npy(r, b->name, b->core, b->path);
		if (rc)
			return rc;
	}
	return 0;
}

/* Read each --output tensor back into a .npy of the tensor's declared
 * dtype and shape; each file is written atomically. */
static int write_outputs(struct run *r, const struct run_opts *o)
{
	int i, rc;

	for (i = 0; i < o->n_outputs; i++)
		if ((rc = run_save_npy(r, o->outputs[i].name,
				       o->outputs[i].core, o->outputs[i].path)))
			return rc;
	return 0;
}

/*
 * Programs onto cores: the positional PROGRAM on every core first, then
 * each --program on its cores, in command-line order (a later one
 * replaces an earlier one on the cores they share).
 */
static int load_programs(struct run *r, const struct run_opts *o)
{
	struct asm_opts ao;
	int i, rc;

	memset(&ao, 0, sizeof(ao));
	ao.defines = o->defines;
	ao.n_defines = (size_t)o->n_defines;
	ao.include_dirs = o->incdirs;
	ao.n_include_dirs = (size_t)o->n_incdirs;
	if (o->program && (rc = run_load_file(r, o->program, &ao,
					      RUN_ALL_CORES)))
		return rc;
	for (i = 0; i < o->n_progs; i++)
		if ((rc = run_load_file(r, o->progs[i].path, &ao,
					o->progs[i].lo, o->progs[i].hi)))
			return rc;
	return 0;
}

/*
 * A run that started but did not succeed: close the trace validly (every
 * event up to the failure) and say where it is.  Any failed status is
 * treated alike (fault, deadlock, cycle limit, interruption).  If closing
 * fails, trc_close has reported why and left nothing.
 */
static void keep_trace(struct trc **trace, const char *path, struct diag *d)
{
	if (!*trace)
		return;
	if (trc_close(*trace, d) == 0)
		fprintf(stderr, "npusim: trace kept: %s\n", path);
	*trace = NULL;
}

static void free_opts(struct run_opts *o)
{
	free(o->events);
	free(o);
}

/*
 * Every program of the run as "FILE" (the positional one, on the cores
 * no --program names) or "CORES=FILE", for the counter files.  *buf is
 * the storage behind the strings; free both.
 */
static const char **program_list(const struct run_opts *o, size_t *n,
				 char **buf)
{
	const char **v = malloc((size_t)(o->n_progs + 1) * sizeof(*v));
	size_t cap = 1, k = 0, used = 0;
	int i;

	for (i = 0; i < o->n_progs; i++)
		cap += strlen(o->progs[i].path) + 48;
	*buf = malloc(cap);
	if (!v || !*buf) {
		free(v);
		free(*buf);
		*buf = NULL;
		return NULL;
	}
	if (o->program)
		v[k++] = o->program;
	for (i = 0; i < o->n_progs; i++) {
		char *p = *buf + used;
		const struct core_prog *c = &o->progs[i];

		if (c->lo == c->hi)
			used += (size_t)snprintf(p, cap - used, "%d=%s", c->lo, c->path) + 1;
		else
			used += (size_t)snprintf(p, cap - used, "%d-%d=%s", c->lo, c->hi,
						 c->path) + 1;
		v[k++] = p;
	}
	*n = k;
	return v;
}

static int cmd_run_common(int argc, char **argv, int stat)
{
	struct run_opts *o = calloc(1, sizeof(*o));
	struct arch a;
	struct diag d;
	struct run *r = NULL;
	struct run_params ro;
	const char **progs = NULL;
	char *progs_buf = NULL;
	struct chip_result res;
	struct ctr_sink sink;
	struct trc *trace = NULL;
	struct progress pg;
	struct ctr_region *rgn = NULL;     /* program regions (rbeg/rend) */
	size_t n_rgn = 0;
	struct opts op;
	int rc = 0, arch_ok = 0, interrupted = 0, i;

	/* Everything cleaned up at "out" must be initialised before the
	 * first goto: sink, r (NULL), trace (NULL). */
	diag_init(&d, stderr);
	ctr_sink_init(&sink);
	if (!o)
		return NPU_EXIT_PROGRAM;
	o->stat = stat;
	o->total = -1;
	o->max_cycles = CYCLE_MAX;
	o->trace_interval = 1000;
	o->trace_hi = CYCLE_MAX;
	if (opts_begin(&op, stat ? &cmds_stat : &cmds_run, argc, argv)) {
		free_opts(o);
		return NPU_EXIT_OK;
	}
	if (parse_args(&op, o)) {
		free_opts(o);
		return NPU_EXIT_USAGE;
	}
	if ((rc = check_outputs(o, &d))) {
		free_opts(o);
		return npu_exit_status(rc);
	}
	rc = arch_load(&a, o->config, o->overrides, o->n_overrides, &d);
	if (rc)
		goto out;
	arch_ok = 1;
	/* Opened before the run because events stream into it; a failure
	 * before the run aborts it (trc_abort), leaving no file behind. */
	if (o->trace) {
		trace = trc_open(o->trace, ARCH_F(&a, CHIP_CLOCK_GHZ), &d);
		if (!trace) {
			rc = NPU_EIO;
			goto out;
		}
		trc_set_window(trace, o->trace_lo, o->trace_hi);
		if (o->trace_units &&
		    (rc = trc_set_units(trace, o->trace_units, &d)))
			goto out;
	}
	memset(&ro, 0, sizeof(ro));
	ro.max_cycles = o->max_cycles;
	ro.check_hazards = o->check_hazards;
	ro.timing_only = o->timing_only;
	ro.no_fast_forward = o->no_ff;
	ro.trace_insns = o->trace_insn;
	ro.trace = trace;
	ro.trace_interval = o->trace_interval;
	ro.interrupted = fsout_interrupted;
	/* The progress line: a terminal only, never with -q or with
	 * --trace-insn (which owns stderr). */
	progress_init(&pg, !o->quiet && !o->trace_insn && isatty(STDERR_FILENO)
			   ? stderr : NULL, &d);
	ro.progress = pg.fp ? progress_update : NULL;
	ro.progress_ctx = &pg;
	if (!(r = run_new(&a, &ro, &d))) {
		/* A DRAM too large to reserve is a config error (exit 2). */
		rc = d.last_err ? d.last_err : NPU_ENOMEM;
		goto out;
	}
	if ((rc = load_programs(r, o)))
		goto out;
	if ((rc = load_inputs(r, o)))
		goto out;
	/* No output of a failed run: a fault, deadlock or timeout leaves
	 * the tensors in an undefined state.  The trace is kept: it shows
	 * what led up to the failure (keep_trace).  ^C, SIGTERM or SIGHUP
	 * during the simulation stop it cleanly (NPU_EINTR): its counters and
	 * trace up to that cycle are kept, its --output tensors are not
	 * written; then main() dies by the signal (docs/formats.md). */
	fsout_catch_signals(FSOUT_SIG_FLAG);
	rc = run_go(r, CYCLE_MAX, &res);
	fsout_catch_signals(FSOUT_SIG_DIE);
	progress_clear(&pg);
	if (rc == NPU_EINTR) {
		interrupted = 1;
		res.cycles = chip_now(run_chip(r));
	} else if (rc) {
		keep_trace(&trace, o->trace, &d);
		goto out;
	} else if ((rc = write_outputs(r, o))) {
		keep_trace(&trace, o->trace, &d);
		goto out;
	}
	if ((rc = run_counters(r, &sink))) {
		keep_trace(&trace, o->trace, &d);
		goto out;
	}
	{
		struct ctrout_meta m = { NPU_VERSION, o->config,
					 o->program ? o->program : o->progs[0].path,
					 res.cycles, ARCH_F(&a, CHIP_CLOCK_GHZ) };

		m.arch = &a;
		m.overrides = o->overrides;
		m.n_overrides = (size_t)o->n_overrides;
		m.defines = o->defines;
		m.n_defines = (size_t)o->n_defines;
		if (!(progs = program_list(o, &m.n_programs, &progs_buf))) {
			rc = diag_error(&d, diag_nowhere(), NPU_ENOMEM, "out of memory");
			goto out;
		}
		m.programs = progs;
		/* Program regions: the run library's records. */
		if ((rc = run_regions(r, &rgn, &n_rgn))) {
			rc = diag_error(&d, diag_nowhere(), NPU_ENOMEM, "out of memory");
			goto out;
		}
		m.regions = rgn;
		m.n_regions = n_rgn;

		for (i = 0; i < o->n_counters; i++)
			if ((rc = ctrout_write(o->counters[i],
					       (enum ctrout_fmt)ctrout_fmt_of(o->counters[i]),
					       &sink, &m, &d))) {
				keep_trace(&trace, o->trace, &d);
				goto out;
			}
		if (trace) {
			rc = trc_close(trace, &d);
			trace = NULL;
			if (rc)
				goto out;
		}
		if (!o->quiet && !interrupted) {
			if (stat) {
				struct summary_stat_opts so = {
					.region = o->region, .events = o->events,
					.detail = o->detail, .total = o->total,
					.x_sep = o->x_sep,
				};

				rc = summary_stat(stdout, &so, &sink, &m, &d);
			} else {
				summary_print(stdout, &sink, res.cycles,
					      ARCH_F(&a, CHIP_CLOCK_GHZ),
					      (uint64_t)(ARCH_I(&a, MTX_ROWS) *
							 ARCH_I(&a, MTX_COLS)));
			}
			for (i = 0; i < o->n_outputs; i++)
				printf("output %s -> %s\n", o->outputs[i].name,
				       o->outputs[i].path);
		}
	}
	/* Hazards do not stop the run (outputs and counters are written
	 * above); they only turn the exit status into 3. */
	if (interrupted) {
		rc = NPU_EINTR;
	} else if (o->check_hazards && res.n_hazards) {
		fprintf(stderr, "npusim: %d hazard%s found\n", res.n_hazards,
			res.n_hazards == 1 ? "" : "s");
		rc = NPU_EFAULT;
	} else if (o->check_hazards && !o->quiet) {
		printf("hazards: none\n");
	}
out:
	run_regions_free(rgn, n_rgn);
	free(progs);
	free(progs_buf);
	if (trace)
		trc_abort(trace);
	ctr_sink_free(&sink);
	run_free(r);
	if (arch_ok)
		arch_free(&a);
	free_opts(o);
	return npu_exit_status(rc);
}

int cmd_run(int argc, char **argv) { return cmd_run_common(argc, argv, 0); }
int cmd_stat(int argc, char **argv) { return cmd_run_common(argc, argv, 1); }
