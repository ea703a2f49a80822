/*
 * run.h - the run library: config + program images + tensors -> chip ->
 * counters and outputs.  `npusim run` and `stat` are thin wrappers over it,
 * and so are sweeps, the tuner and the model runner: anything that
 * simulates goes through here, never through the command line.
 *
 *   struct run *r = run_new(&arch, &opts, &diag);
 *   run_load_file(r, "gemm.s", &asm_opts, RUN_ALL_CORES);   // or _image
 *   run_bind_npy(r, "A", 0, "a.npy");                       // or _write
 *   run_go(r, CYCLE_MAX, &res);                             // a phase
 *   run_save_npy(r, "C", 0, "c.npy");                       // or _read
 *   run_counters(r, &sink);                                 // snapshot
 *   run_load_file(r, "next.s", ...); run_go(r, ...);        // phase 2
 *   run_free(r);
 *
 * A run owns its chip and the programs it assembled or loaded itself;
 * images given with run_load_image are borrowed and must outlive it.  No
 * global state: any number of runs may live in one process.  Every error
 * is reported in the diag given to run_new (file:line for inputs, core,
 * pc and cycle for faults, plus a note with the faulting instruction's
 * source line) and returned as NPU_E*; nothing is printed otherwise.
 *
 * Phases: run_go runs until every core has finished (or to a cycle, to
 * be continued).  Loading programs again and calling run_go starts the
 * next phase at the cycle the last one ended, with DRAM, scratchpad and
 * accumulator contents kept; counters keep counting, so a phase's counters
 * are the difference of the snapshots taken at its ends.
 */
#ifndef NPU_RUN_H
#define NPU_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "../arch/arch.h"
#include "../asm/asm.h"
#include "../prog/prog.h"
#include "../sim/chip.h"
#include "../sim/engine/counters.h"
#include "../util/diag.h"

struct trc;

/* Cores lo..hi for every core (the run_load_* functions). */
#define RUN_ALL_CORES 0, -1

struct run;

struct run_params {
	cycle_t max_cycles;      /* watchdog, CYCLE_MAX = none */
	int check_hazards;       /* run the hazard checker */
	int timing_only;         /* compute no tensor values (chip_opts) */
	int no_fast_forward;     /* every cycle's events (chip_opts) */
	int trace_insns;         /* print every control-unit instruction */
	struct trc *trace;       /* Chrome trace writer (not owned), or NULL */
	cycle_t trace_interval;  /* trace counter samples every N cycles;
				    0 = none */
	/* Polled every ENG_POLL_EVENTS engine events: non-zero stops the
	 * run with NPU_EINTR ("interrupted at cycle N"); NULL = never. */
	int (*interrupted)(void);
	/* Called at the same polls, for display only (a progress line): it
	 * may read the run (run_status), never change it.  NULL = none. */
	void (*progress)(void *ctx, struct run *r);
	void *progress_ctx;      /* progress's context */
};

/* A run's state mid-phase (run_status). */
struct run_status {
	cycle_t cycle;           /* simulated cycle reached */
	uint64_t insns;          /* instructions retired, all cores */
	int n_running;           /* cores issuing instructions */
	int n_waiting;           /* cores waiting: semaphore, queue, fence,
				    barrier, or halted with units draining */
	int n_done;              /* cores finished */
};

/* Build the chip of a resolved config (a must outlive the run); NULL on
 * failure (reported in d, which must outlive the run as well). */
struct run *run_new(const struct arch *a, const struct run_params *o,
		    struct diag *d);
void run_free(struct run *r);

/*
 * Assembler options for a chip: the user's (-D, -I; NULL = none) with the
 * config's CFG_* symbols (arch_asm_defines) defined before the user's -D.
 * run_load_file/_source use it with the run's config; `npusim as -c`
 * calls it directly.  run_asm_end frees what begin allocated.
 */
struct run_asm {
	struct asm_opts opts;     /* what to pass to the assembler */
	struct arch_defs cfg;     /* the config's defines (owned) */
	const char **all;         /* cfg then the user's defines (owned) */
};
int run_asm_begin(const struct arch *a, const struct asm_opts *user,
		  struct run_asm *ra) NPU_WUR;
void run_asm_end(struct run_asm *ra);

/*
 * Load a program into cores lo..hi (hi = -1: the last core).  _image
 * borrows the image; _file assembles PATH (.s, with ao: defines and
 * include directories; NULL = none; the config's CFG_* symbols are always
 * defined, see run_asm_begin) or reads an object file (recognised
 * by its magic), _source assembles text named name.  0 or NPU_E*.
 */
int run_load_image(struct run *r, const struct prog_image *img, int lo,
		   int hi) NPU_WUR;
int run_load_file(struct run *r, const char *path, const struct asm_opts *ao,
		  int lo, int hi) NPU_WUR;
int run_load_source(struct run *r, const char *name, const char *text,
		    size_t n, const struct asm_opts *ao, int lo,
		    int hi) NPU_WUR;

/* Assemble text (as run_load_source) into an image the run keeps until
 * run_free, without loading it: for chip_launch (sim/chip.h).  cores > 0:
 * for a partition of that many cores (CFG_CHIP_CORES is its size: the
 * partition is the program's chip). */
int run_assemble_source(struct run *r, const char *name, const char *text,
			size_t n, const struct asm_opts *ao, int cores,
			const struct prog_image **img) NPU_WUR;

/*
 * Tensors by name, from the tensor table of the program on 'core' (whose
 * scratchpad/accumulator a per-core tensor lives in; DRAM tensors are
 * shared).  _bind_npy converts the file to the tensor's dtype (shape must
 * match), _write copies raw little-endian elements in the tensor's dtype
 * (bytes must equal its size); _read and _save_npy read it back.
 */
const struct prog_tensor *run_tensor(struct run *r, const char *name,
				     int core);
int run_bind_npy(struct run *r, const char *name, int core,
		 const char *path) NPU_WUR;
/* The same from a whole .npy file image in memory; label names it in
 * messages. */
int run_bind_npy_mem(struct run *r, const char *name, int core, const void *buf,
		     size_t n, const char *label) NPU_WUR;
int run_write(struct run *r, const char *name, int core, const void *data,
	      size_t bytes) NPU_WUR;
int run_read(struct run *r, const char *name, int core, void *buf,
	     size_t bytes) NPU_WUR;
/* Set every byte of the tensor to 0 (`--input NAME=zeros`). */
int run_zero(struct run *r, const char *name, int core) NPU_WUR;
int run_save_npy(struct run *r, const char *name, int core,
		 const char *path) NPU_WUR;

/*
 * Run the current phase (starting one if none is running) to its end, or
 * until cycle 'until' (CYCLE_MAX: to the end; res->paused says it
 * stopped early).  0, or NPU_E* for a fault, deadlock, watchdog, a core
 * without a program, or NPU_EINTR when run_params.interrupted said so.
 * After the watchdog or an interrupt a note names each unfinished core's
 * pc and source line; counters stay readable (run_counters) but the
 * phase cannot continue.
 */
int run_go(struct run *r, cycle_t until, struct chip_result *res) NPU_WUR;

/* The run's state now (cheap: one pass over the cores). */
void run_status(struct run *r, struct run_status *st);

/* Append a snapshot of every counter to s (ctr_sink_init'd by the
 * caller); 0 or NPU_ENOMEM. */
int run_counters(struct run *r, struct ctr_sink *s) NPU_WUR;

/*
 * Program regions (rbeg/rend) after a run: one entry per core and region
 * name, cores in order, a core's regions in order of first appearance in
 * the region tables of the programs it ran (regions never entered are
 * listed with 0 entries).  s holds the counters accumulated inside the
 * region, named as in run_counters (core<N>.<unit>.<counter>, dram.ch<K>.
 * ...): the fixed counters of the core's units and of the chip-level
 * units, not the units' dump extras.  A region still open (a paused or
 * failed run) counts as if it closed at the current cycle.
 *
 * *v is NULL and *n 0 when no program named a region; else free it with
 * run_regions_free.  0 or NPU_ENOMEM.  The names belong to the programs
 * (valid until run_free).  The counters files write them as they are
 * (struct ctrout_meta's regions).
 */
int run_regions(struct run *r, struct ctr_region **v, size_t *n) NPU_WUR;
void run_regions_free(struct ctr_region *v, size_t n);

/* The chip (memories, registers) for what the API does not cover. */
struct chip *run_chip(struct run *r);

#endif
