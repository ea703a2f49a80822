/*
 * chip.c - build a chip from a config, load programs, run, dump counters.
 *
 * Unit creation order fixes the SRAM requestor priority (matrix, vector,
 * then DMA engines: lower id wins under fixed-priority arbitration) and the
 * order of the counter dump.  Every core runs the program loaded for it:
 * one for all (SPMD; a kernel tells cores apart with `csrr coreid`) or one
 * per core or group of cores (chip_load_program_cores).
 *
 * Phases: a run ends when every core has finished; loading new programs
 * and running again starts a phase at the cycle the previous one ended,
 * with every memory's contents (DRAM, scratchpads, accumulators) kept and
 * counters still counting.  A run may also stop at a given cycle and be
 * continued (chip_run_until).
 *
 * Memory binding: every requester port is bound here (sim/mem/port.h), so
 * units never see which model serves them.
 *
 * The network (sim/noc) carries every byte that crosses the chip: each
 * DMA engine's DRAM and remote-scratchpad ports are bound to the core's
 * network interfaces (sim/noc/nocport.h), which send request and response
 * packets between the core's node and the DRAM channel's or the other
 * core's node.  Remote signals (rsig) and barriers are chip services
 * carried as one-flit packets (class sync): an rsig goes from the
 * sender's node to the receiver's; a barrier arrival goes to core 0's
 * node, which counts them and, at the last, sends a release to every
 * other core.  A core signalling itself, or core 0's own arrival and
 * release, needs no network.
 *
 * Ownership: the engine destroys every unit registered with a destroy op;
 * the chip owns the DRAM (a multi-unit model), the per-core DMA pointer
 * arrays, the decoded programs and the hazard checker; the arch and the
 * program images belong to the caller and must outlive the chip.
 *
 * Tracing (chip_opts.trace): the chip adds what no single unit knows:
 * counter samples every trace_interval cycles (each unit's queue
 * occupancy in the control unit, each SRAM's bank conflicts per cycle,
 * each DRAM channel's bandwidth and queue), barrier releases and hazards
 * as instants.  Samples come from the engine's sampler hook, which adds
 * no events, so a traced run has the cycles and counters of an untraced
 * one.  A rate is written at the start of the interval it averages over
 * and a value only when it changed (a counter holds until its next
 * sample).  Each NoC link's utilisation (flits per cycle) is one more
 * probe, on the network's track.
 *
 * Engine registration order, per core: scratchpad, accumulator, control
 * unit, matrix, vector, DMA engines; the DRAM channels come before every
 * core (dram_new runs first).  The deadlock report lists stuck units in
 * this order; the counter dump order is chip_dump's own.
 */
#include "chip.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/isa.h"
#include "core/control.h"
#include "core/dma.h"
#include "mem/dram.h"
#include "core/hazard.h"
#include "core/matrix.h"
#include "mem/sram.h"
#include "noc/noc.h"
#include "noc/nocport.h"
#include "engine/unit.h"
#include "core/vector.h"
#include "../trace/trace.h"

/* Everything one core owns. */
struct core {
	struct unit *ctl;        /* control unit */
	struct unit *mtx;        /* matrix engine */
	struct unit *vec;        /* vector unit */
	struct unit **dma;       /* DMA engines */
	int n_dma;               /* their number */
	sram *spm, *acc;         /* scratchpad and accumulator */
	int finished;            /* halted and drained (counted once) */
	int loaded;              /* a program was loaded since its last run */
	const struct prog_image *img; /* its program (not owned), or NULL */
};

/*
 * One sampled trace counter: a level (read as it is) or a rate (the
 * growth of a unit counter over the interval, per cycle, times scale).
 */
struct probe {
	struct unit *u;          /* the track it is drawn on */
	const char *name;        /* counter name ("queue", "GB/s") */
	int rate;                /* 1: rate of ctr[a] (+ ctr[b]); 0: level */
	int a, b;                /* rate: counter ids (b = -1: none);
				    level: which (PROBE_*) and its index */
	double scale;            /* rate: per-cycle value x scale */
	int link;                /* >= 0: rate of this NoC link's flits */
	uint64_t last_raw;       /* rate: counter sum at the last sample */
	double last_out;         /* value last written; NaN = none yet */
};

/* What a level probe reads. */
enum { PROBE_QUEUE, PROBE_DRAM_QUEUE };

/* A partition: cores base .. base + size - 1, a chip to their programs. */
struct part {
	int base, size;
	int arrived;             /* cores arrived at its current barrier */
	int n_done;              /* its cores finished since its last launch */
};

/* One decoded program; several cores may share it. */
struct chip_prog {
	struct ctl_prog prog;    /* decoded (insns, legal owned) */
	const struct prog_image *img; /* the image (not owned) */
};

struct chip {
	const struct arch *a;    /* configuration (not owned) */
	struct chip_opts o;      /* options */
	struct diag *d;          /* where runtime messages go */
	eng *e;                  /* the engine, owns every unit */
	dram *dram;              /* DRAM channels */
	noc *noc;                /* the network (a unit: the engine frees it) */
	nocport *np;             /* network interfaces of the memory ports */
	struct core *cores;      /* the cores */
	int n_cores;             /* their number */
	struct part *parts;      /* the partitions (one: the whole chip) */
	int n_parts;             /* their number */
	int *part_of;            /* each core's partition */
	chip_launch_fn launch;   /* the launcher (chip_set_launcher), or NULL */
	void *launch_ctx;        /* its context */
	struct unit *cp;         /* the command processor: its events call
				    the launcher (created with it) */
	int launch_rc;           /* an event it could not schedule */
	int n_finished;          /* cores finished in this phase */
	int running;             /* a phase started and has not ended */
	cycle_t phase_start;     /* cycle the current (or last) phase began */
	cycle_t last_finish;     /* cycle the last core finished: the run's
				    "cycles" */
	struct hz *hz;           /* hazard checker or NULL */
	struct chip_prog **progs; /* every program decoded so far (owned;
				    words point into the images) */
	int n_progs;             /* entries */
	struct probe *probes;    /* trace counters (tracing only) */
	int n_probes;            /* entries */
	cycle_t sample_last;     /* boundary of the last sample */
	uint64_t n_barriers;     /* barriers released (trace args) */
	char *link_names;        /* probe names of the NoC links (owned) */
};

static const struct ctl_sync_ops chip_sync_ops;
/* The command processor's events (chip_set_launcher). */
enum { CP_EV_DONE, CP_EV_SIGNAL };
static int chip_sync_arrive(void *ctx, uint64_t tag, int node, cycle_t when);

/* Sync packet kinds (tag bits 60-63). */
#define SYNC_KIND    (15ULL << 60)
#define SYNC_ARRIVE  (1ULL << 60)
#define SYNC_RELEASE (2ULL << 60)
#define SYNC_RSIG    (3ULL << 60)
#define SYNC_PART    (4ULL << 60) /* chip_signal: partition << 32 | tag */
static int chip_probes(struct chip *c);
static void chip_hazard_traced(void *ctx, int core, int unit, cycle_t when,
			       const char *msg);

/*
 * The geometry of a core's scratchpad (acc = 0) or accumulator (acc = 1)
 * from core.scratchpad.* / core.accumulator.* (docs/memory.md).  The
 * arbitration enum is in params.def order: 0 "rr", 1 "fixed".  Values
 * were range-checked by the config loader, so this cannot fail (it always
 * returns 0; callers ignore it).
 */
static int sram_geom_of(const struct arch *a, int acc, struct sram_geom *g)
{
	memset(g, 0, sizeof(*g));
	g->index = acc; /* trace track: 0 scratchpad, 1 accumulator */
	if (acc) {
		g->bytes = (uint64_t)ARCH_I(a, ACC_BYTES);
		g->banks = (int)ARCH_I(a, ACC_BANKS);
		g->bank_width = (int)ARCH_I(a, ACC_BANK_WIDTH);
		g->ports = (int)ARCH_I(a, ACC_PORTS);
		g->latency = (int)ARCH_I(a, ACC_LATENCY);
		g->arb = ARCH_E(a, ACC_ARB) == ARCH_ACC_ARB_FIXED ? SRAM_ARB_FIXED
								  : SRAM_ARB_RR;
	} else {
		g->bytes = (uint64_t)ARCH_I(a, SPM_BYTES);
		g->banks = (int)ARCH_I(a, SPM_BANKS);
		g->bank_width = (int)ARCH_I(a, SPM_BANK_WIDTH);
		g->ports = (int)ARCH_I(a, SPM_PORTS);
		g->latency = (int)ARCH_I(a, SPM_LATENCY);
		g->arb = ARCH_E(a, SPM_ARB) == ARCH_SPM_ARB_FIXED ? SRAM_ARB_FIXED
								  : SRAM_ARB_RR;
	}
	return 0;
}

/*
 * Build one core's units (the program comes later).  The memories come
 * first because every execution unit registers its requestors on them at
 * creation; the control unit comes before the execution units because
 * they need its listener, and gets their ports afterwards (ctl_attach):
 * the two-phase creation of control.h.  On failure, units already
 * registered with the engine are freed by chip_free (a control unit whose
 * own eng_add_unit failed is not: a leak on out-of-memory only).
 */
static int chip_build_core(struct chip *c, int i)
{
	struct core *k = &c->cores[i];
	struct sram_geom g;
	struct tile_listener l;
	struct ctl_xu *xus;
	struct mem_target mems[MEM_N_SPACES] = { { NULL, NULL } };
	char name[32];
	int j, rc = 0, n_xu;
	struct ctl_params cp;

	sram_geom_of(c->a, 0, &g);
	snprintf(name, sizeof(name), "core%d.scratchpad", i);
	k->spm = sram_new(c->e, i, name, &g);
	sram_geom_of(c->a, 1, &g);
	snprintf(name, sizeof(name), "core%d.accumulator", i);
	k->acc = sram_new(c->e, i, name, &g);
	if (!k->spm || !k->acc)
		return NPU_ENOMEM;
	memset(&cp, 0, sizeof(cp));
	cp.core = i;
	cp.n_cores = c->n_cores;
	cp.trace_insns = c->o.trace_insns;
	cp.max_cycles = c->o.max_cycles;
	cp.sync.ops = &chip_sync_ops;
	cp.sync.ctx = c;
	k->ctl = ctl_new(c->e, c->a, &cp);
	if (!k->ctl)
		return NPU_ENOMEM;
	if ((rc = eng_add_unit(c->e, k->ctl))) {
		k->ctl->ops->destroy(k->ctl); /* not registered: free it here */
		k->ctl = NULL;
		return rc;
	}
	l = ctl_listener(k->ctl);
	/* Creation order = SRAM requestor order = fixed priority. */
	k->mtx = mtx_new(c->e, c->a, i, sram_target(k->spm),
			 sram_target(k->acc), &l);
	k->vec = vec_new(c->e, c->a, i, sram_target(k->spm),
			 sram_target(k->acc), &l);
	if (!k->mtx || !k->vec)
		return NPU_ENOMEM;
	k->n_dma = (int)ARCH_I(c->a, DMA_ENGINES);
	k->dma = calloc((size_t)k->n_dma, sizeof(*k->dma));
	if (!k->dma)
		return NPU_ENOMEM;
	/* What each DMA memory space reaches (enum mem_space order): DRAM
	 * and other cores' scratchpads through the core's network
	 * interfaces, its own memories directly. */
	mems[MEM_DRAM] = nocport_dram_target(c->np, i);
	mems[MEM_RSPM] = nocport_rspm_target(c->np, i);
	mems[MEM_SPM] = sram_target(k->spm);
	mems[MEM_ACC] = sram_target(k->acc);
	for (j = 0; j < k->n_dma; j++) {
		k->dma[j] = dma_new(c->e, c->a, i, j, mems, &l);
		if (!k->dma[j])
			return NPU_ENOMEM;
	}
	/* Sync unit ids: xus[i] is unit id i + 1 (mtx 1, vec 2, dma<k> 3 + k;
	 * isa/names.def); unit id 0 is the control unit itself. */
	n_xu = 2 + k->n_dma;
	xus = calloc((size_t)n_xu, sizeof(*xus));
	if (!xus)
		return NPU_ENOMEM;
	xus[0].u = k->mtx;
	xus[0].port = &mtx_port;
	xus[1].u = k->vec;
	xus[1].port = &vec_port;
	for (j = 0; j < k->n_dma; j++) {
		xus[2 + j].u = k->dma[j];
		xus[2 + j].port = &dma_port;
	}
	/* ctl_attach copies the array: it is only a parameter block. */
	rc = ctl_attach(k->ctl, xus, n_xu);
	free(xus);
	return rc;
}

struct chip *chip_new(const struct arch *a, const struct chip_opts *o,
		      struct diag *d)
{
	struct chip *c = calloc(1, sizeof(*c));
	int i, n_errors = d->n_errors;
	struct noc_params np;

	if (!c)
		return NULL;
	c->a = a;
	c->o = *o;
	c->d = d;
	c->n_cores = (int)ARCH_I(a, CHIP_CORES);
	c->e = eng_new();
	c->cores = calloc((size_t)c->n_cores, sizeof(*c->cores));
	c->parts = calloc(1, sizeof(*c->parts));
	c->part_of = calloc((size_t)c->n_cores, sizeof(*c->part_of));
	if (!c->e || !c->cores || !c->parts || !c->part_of)
		goto fail;
	c->n_parts = 1;
	c->parts[0].size = c->n_cores;
	eng_set_diag(c->e, d);
	eng_set_trace(c->e, o->trace);
	eng_set_values(c->e, !o->timing_only);
	eng_set_fast_forward(c->e, !o->no_fast_forward);
	if (o->timing_only && ARCH_E(a, MTX_MODEL) == ARCH_MTX_MODEL_PE) {
		(void)diag_error(d, diag_nowhere(), NPU_EUSAGE,
				 "timing only: the per-PE reference model (core.matrix.model = \"pe\") times the array by computing it; use the fast model");
		goto fail;
	}
	/* One DRAM for the chip, shared by every core's DMA engines: it must
	 * exist before them. */
	c->dram = dram_new(c->e, a);
	if (!c->dram)
		goto fail;
	noc_params_from_arch(a, &np);
	c->noc = noc_new(c->e, &np, "noc");
	if (!c->noc)
		goto fail;
	c->np = nocport_new(c->noc, dram_target(c->dram), a, c->n_cores,
			    a->d.core_node);
	if (!c->np)
		goto fail;
	for (i = 0; i < c->n_cores; i++)
		if (chip_build_core(c, i))
			goto fail;
	/* remote requests reach each scratchpad through its node's NI,
	 * bound last: the lowest fixed priority on that SRAM */
	for (i = 0; i < c->n_cores; i++)
		if (nocport_bind_spm(c->np, i, sram_target(c->cores[i].spm)))
			goto fail;
	/* Threads per core for the checker: ctl, mtx, vec and every DMA
	 * engine (every core has the same engine count).  At most 20 hazards
	 * are printed (docs/hazards.md); all are counted. */
	if (o->check_hazards) {
		c->hz = hz_new(c->n_cores, 3 + c->cores[0].n_dma, d, 20);
		if (!c->hz)
			goto fail;
		for (i = 0; i < c->n_cores; i++)
			ctl_set_hazard(c->cores[i].ctl, c->hz);
		if (o->trace)
			hz_set_report(c->hz, chip_hazard_traced, c);
	}
	if (o->trace && o->trace_interval && chip_probes(c))
		goto fail;
	return c;
fail:
	/* Every failure above is an allocation failure (the config was
	 * validated when it was loaded) that its part did not report, or
	 * one it did report (the DRAM store names dram.bytes). */
	if (d->n_errors == n_errors)
		(void)diag_error(d, diag_nowhere(), NPU_ENOMEM,
				 "out of memory building the chip");
	chip_free(c);
	return NULL;
}

void chip_free(struct chip *c)
{
	int i;

	if (!c)
		return;
	/* The units themselves (DMA engines included) go with the engine;
	 * cores[i].dma is only the chip's array of pointers to them. */
	eng_free(c->e); /* destroys every registered unit */
	dram_free(c->dram); /* the chip's: the engine only dispatches to it */
	nocport_free(c->np);
	free(c->link_names);
	if (c->cores)
		for (i = 0; i < c->n_cores; i++)
			free(c->cores[i].dma);
	for (i = 0; i < c->n_progs; i++) {
		free((void *)c->progs[i]->prog.insns);
		free((void *)c->progs[i]->prog.legal);
		free(c->progs[i]);
	}
	free(c->progs);
	free(c->cores);
	free(c->parts);
	free(c->part_of);
	free(c->probes);
	hz_free(c->hz);
	free(c);
}

/* Functional bytes of a memory space (chip.h).  DRAM ignores 'core'; a
 * per-core space needs a valid core.  NULL for anything else, including
 * MEM_RSPM, which is addressed as the owner's MEM_SPM instead. */
uint8_t *chip_mem(struct chip *c, int space, int core, uint64_t *size)
{
	struct core *k;

	if (space == MEM_DRAM) {
		*size = dram_size(c->dram);
		return dram_data(c->dram);
	}
	if (core < 0 || core >= c->n_cores)
		return NULL;
	k = &c->cores[core];
	switch (space) {
	case MEM_SPM:
		*size = sram_size(k->spm);
		return sram_data(k->spm);
	case MEM_ACC:
		*size = sram_size(k->acc);
		return sram_data(k->acc);
	case MEM_DATA:
		*size = ctl_smem_size(k->ctl);
		return ctl_smem(k->ctl);
	default:
		return NULL;
	}
}

uint64_t chip_reg(const struct chip *c, int core, int r)
{
	if (core < 0 || core >= c->n_cores)
		return 0;
	return ctl_reg(c->cores[core].ctl, r);
}

/*
 * Decode an image's code once; every core loaded with it shares the result.
 * Words that do not decode are marked illegal rather than rejected: the
 * code may hold data or padding, and only executing such a word is a fault
 * (control.c).  Allocates at least one entry so that an empty program
 * still has non-NULL tables.
 */
static int chip_decode(const struct prog_image *p, struct ctl_prog *out)
{
	struct isa_insn *insns;
	uint8_t *legal;
	size_t i;

	insns = calloc(p->n_code ? p->n_code : 1, sizeof(*insns));
	legal = calloc(p->n_code ? p->n_code : 1, 1);
	if (!insns || !legal) {
		free(insns);
		free(legal);
		return NPU_ENOMEM;
	}
	for (i = 0; i < p->n_code; i++)
		legal[i] = isa_decode(p->code[i], &insns[i]) == 0;
	out->insns = insns;
	out->legal = legal;
	out->words = p->code;
	out->n = p->n_code;
	out->sym = &p->sym;
	out->regions = p->regions;
	out->n_regions = p->n_regions;
	return 0;
}

const struct prog_image *chip_program(const struct chip *c, int core)
{
	return core >= 0 && core < c->n_cores ? c->cores[core].img : NULL;
}

/*
 * Copy an image's initialised data: DRAM once, per-core memories on each
 * core of [lo, hi] (each core starts with the same image).
 */
static int chip_load_data(struct chip *c, const struct prog_image *p, int lo,
			  int hi, struct diag *d)
{
	size_t s;
	int i;

	for (s = 0; s < p->n_sects; s++) {
		const struct prog_section *sec = &p->sects[s];
		int last = sec->mem == MEM_DRAM ? lo : hi;

		for (i = lo; i <= last; i++) {
			uint64_t size = 0;
			uint8_t *base = chip_mem(c, sec->mem, i, &size);

			/* Overflow-safe "addr + size <= capacity": images
			 * come from user files and may hold any 64-bit
			 * values.  Memory sizes come from this config, so a
			 * section that fit when assembled may not fit here. */
			if (!base || sec->addr > size || size - sec->addr < sec->size)
				return diag_error(d, diag_nowhere(), NPU_EOBJ,
						  "%s: data section at %s 0x%llx (%llu bytes) does not fit in that memory (%llu bytes with this config)",
						  p->name, isa_mem_name(sec->mem),
						  (unsigned long long)sec->addr,
						  (unsigned long long)sec->size,
						  (unsigned long long)size);
			memcpy(base + sec->addr, sec->bytes, sec->size);
		}
	}
	return 0;
}

/*
 * Timing only computes no tensor values, so an instruction whose timing
 * depends on them cannot be timed: vgather and vscatter take their
 * addresses from an index tile.  (Scalar loads read the control unit's
 * private memory, which is always exact, so branches and DMA addresses
 * computed from scalar data stay exact.)  The first one is named.
 */
static int chip_check_timing_only(struct chip *c, const struct chip_prog *cp,
				  struct diag *d)
{
	size_t i;

	(void)c;
	for (i = 0; i < cp->prog.n; i++) {
		const char *file;
		int line;
		unsigned op = cp->prog.insns[i].op;

		if (!cp->prog.legal[i] || (op != ISA_OP_VGATHER && op != ISA_OP_VSCATTER))
			continue;
		if (prog_src_line(cp->img, 4 * (uint64_t)i, &file, &line) == 0)
			return diag_error(d, diag_at_file(file, line, 0), NPU_EUSAGE,
					  "timing only: %s takes its addresses from an index tile, whose values a timing-only run does not compute; run without --timing-only",
					  isa_op_info[op].name);
		return diag_error(d, diag_nowhere(), NPU_EUSAGE,
				  "timing only: %s at pc 0x%zx takes its addresses from an index tile, whose values a timing-only run does not compute; run without --timing-only",
				  isa_op_info[op].name, 4 * i);
	}
	return 0;
}

/*
 * The decoded form of image p: decoded once, kept for the chip's life
 * (a launcher may start the same image many times; the last one decoded
 * is looked for first).
 */
static int chip_prog_get(struct chip *c, const struct prog_image *p,
			 struct chip_prog **out, struct diag *d)
{
	struct chip_prog *cp, **v;
	int i, rc;

	for (i = c->n_progs - 1; i >= 0; i--)
		if (c->progs[i]->img == p) {
			*out = c->progs[i];
			return 0;
		}
	cp = calloc(1, sizeof(*cp));
	v = realloc(c->progs, (size_t)(c->n_progs + 1) * sizeof(*v));
	if (v)
		c->progs = v;
	if (!cp || !v || (rc = chip_decode(p, &cp->prog))) {
		free(cp);
		return diag_error(d, diag_nowhere(), NPU_ENOMEM,
				  "out of memory decoding the program");
	}
	cp->img = p;
	c->progs[c->n_progs++] = cp;
	*out = cp;
	if (c->o.timing_only && (rc = chip_check_timing_only(c, cp, d)))
		return rc;
	return 0;
}

/* Install p on cores lo..hi: decoded, each core's state reset for it,
 * its data loaded. */
static int chip_install(struct chip *c, const struct prog_image *p, int lo,
			int hi, struct diag *d)
{
	struct chip_prog *cp = NULL;
	int i, rc;

	if ((rc = chip_prog_get(c, p, &cp, d)))
		return rc;
	for (i = lo; i <= hi; i++) {
		/* NPU_ENOMEM: the program's regions could not be set up. */
		if ((rc = ctl_set_program(c->cores[i].ctl, &cp->prog)))
			return rc == NPU_ENOMEM
				? diag_error(d, diag_nowhere(), rc,
					     "out of memory loading the program")
				: rc;
		c->cores[i].img = p;
		if (c->hz)
			hz_set_program(c->hz, i, p);
	}
	return chip_load_data(c, p, lo, hi, d);
}

int chip_load_program_cores(struct chip *c, const struct prog_image *p,
			    int lo, int hi, struct diag *d)
{
	int i;

	if (lo < 0 || hi >= c->n_cores || lo > hi)
		return diag_error(d, diag_nowhere(), NPU_EUSAGE,
				  "%s: cores %d-%d do not exist (the chip has %d: 0-%d)",
				  p->name, lo, hi, c->n_cores, c->n_cores - 1);
	if (c->running)
		return diag_error(d, diag_nowhere(), NPU_EUSAGE,
				  "%s: the chip is in the middle of a phase; run it to the end before loading programs",
				  p->name);
	for (i = lo; i <= hi; i++)
		c->cores[i].loaded = 1;
	return chip_install(c, p, lo, hi, d);
}

int chip_load_program(struct chip *c, const struct prog_image *p,
		      struct diag *d)
{
	return chip_load_program_cores(c, p, 0, c->n_cores - 1, d);
}

/*
 * Start a phase if none is running: every core must have a program loaded
 * since its last run; they all start at the cycle the previous phase
 * ended (0 for the first).
 */
static int chip_start_phase(struct chip *c)
{
	int i, rc;

	for (i = 0; i < c->n_cores; i++)
		if (!c->cores[i].loaded)
			return diag_error(c->d, diag_nowhere(), NPU_EUSAGE,
					  "core %d has no program to run (load one for every core: the chip has %d)",
					  i, c->n_cores);
	c->phase_start = c->last_finish;
	c->n_finished = 0;
	c->running = 1;
	for (i = 0; i < c->n_parts; i++)
		c->parts[i].n_done = 0;
	for (i = 0; i < c->n_cores; i++) {
		c->cores[i].finished = 0;
		c->cores[i].loaded = 0;
		if ((rc = ctl_start(c->cores[i].ctl, c->phase_start)))
			return rc;
	}
	return 0;
}

/* ---- trace counters and instants -----------------------------------------*/

/* The current value of a probe: a counter sum (rate) or a level. */
static uint64_t probe_read(const struct chip *c, const struct probe *p)
{
	if (p->link >= 0)
		return noc_link_flits(c->noc, p->link);
	if (p->rate)
		return p->u->ctr[p->a] + (p->b >= 0 ? p->u->ctr[p->b] : 0);
	if (p->a == PROBE_DRAM_QUEUE)
		return dram_channel_queued(c->dram, p->b);
	return (uint64_t)ctl_queue_len(c->cores[p->u->core].ctl, p->b);
}

/*
 * Sample every probe at cycle 'at' (the engine's sampler, and once more
 * at the end of a phase): every event before 'at' has run.  A rate
 * covers [sample_last, at) and is drawn from sample_last; a level is the
 * value at 'at'.  Only changes are written.
 */
static void chip_sample(void *ctx, cycle_t at)
{
	struct chip *c = ctx;
	cycle_t from = c->sample_last;
	int i;

	if (at < from)
		return; /* a phase's end flush then a boundary: nothing new */
	for (i = 0; i < c->n_probes; i++) {
		struct probe *p = &c->probes[i];
		uint64_t raw = probe_read(c, p);
		double v;
		cycle_t when = at;

		if (p->rate) {
			if (at == from)
				continue;
			v = (double)(raw - p->last_raw) / (double)(at - from) *
			    p->scale;
			p->last_raw = raw;
			when = from;
		} else {
			v = (double)raw;
		}
		if (v == p->last_out)
			continue;
		p->last_out = v;
		unit_counter(p->u, when, p->name, v);
	}
	c->sample_last = at;
}

static int add_probe(struct chip *c, struct unit *u, const char *name,
		     int rate, int a, int b, double scale)
{
	struct probe *v = realloc(c->probes,
				  (size_t)(c->n_probes + 1) * sizeof(*v));

	if (!v)
		return NPU_ENOMEM;
	c->probes = v;
	v += c->n_probes++;
	memset(v, 0, sizeof(*v));
	v->u = u;
	v->name = name;
	v->rate = rate;
	v->a = a;
	v->b = b;
	v->scale = scale;
	v->link = -1;
	v->last_out = NAN;
	return 0;
}

/*
 * The trace counters, per core: each execution unit's queue (entries
 * the control unit holds for it), each SRAM's bank conflicts per cycle;
 * per DRAM channel: bandwidth in GB/s (bytes per cycle x clock in GHz)
 * and bursts queued or in flight.  NoC links: add their probes here.
 */
static int chip_probes(struct chip *c)
{
	double ghz = ARCH_F(c->a, CHIP_CLOCK_GHZ);
	int i, j, rc = 0;

	for (i = 0; i < c->n_cores && !rc; i++) {
		struct core *k = &c->cores[i];

		rc = add_probe(c, k->mtx, "queue", 0, PROBE_QUEUE, 1, 0);
		rc = rc ? rc : add_probe(c, k->vec, "queue", 0, PROBE_QUEUE, 2, 0);
		for (j = 0; j < k->n_dma && !rc; j++)
			rc = add_probe(c, k->dma[j], "queue", 0, PROBE_QUEUE,
				       3 + j, 0);
		rc = rc ? rc : add_probe(c, sram_unit(k->spm), "bank conflicts/cycle",
					 1, CTR_SRAM_BANK_CONFLICTS, -1, 1);
		rc = rc ? rc : add_probe(c, sram_unit(k->acc), "bank conflicts/cycle",
					 1, CTR_SRAM_BANK_CONFLICTS, -1, 1);
	}
	for (i = 0; i < dram_channels(c->dram) && !rc; i++) {
		struct unit *u = dram_channel_unit(c->dram, i);

		rc = add_probe(c, u, "GB/s", 1, CTR_DRAM_READ_BYTES,
			       CTR_DRAM_WRITE_BYTES, ghz > 0 ? ghz : 1);
		rc = rc ? rc : add_probe(c, u, "queue", 0, PROBE_DRAM_QUEUE, i, 0);
	}
	/* NoC links: flits per cycle on every output port that exists
	 * ("router5.east flits/cycle"), drawn on the network's track */
	{
		int links = noc_nodes(c->noc) * NOC_N_PORTS, l;
		const size_t w = 40;

		c->link_names = calloc((size_t)links, w);
		if (!c->link_names)
			rc = NPU_ENOMEM;
		for (l = 0; l < links && !rc; l++) {
			char *nm = c->link_names + (size_t)l * w;

			if (!noc_link_exists(c->noc, l))
				continue;
			snprintf(nm, w, "router%d.%s flits/cycle", l / NOC_N_PORTS,
				 noc_port_names[l % NOC_N_PORTS]);
			rc = add_probe(c, noc_unit(c->noc), nm, 1, 0, -1, 1);
			if (!rc)
				c->probes[c->n_probes - 1].link = l;
		}
	}
	if (!rc)
		eng_set_sampler(c->e, c->o.trace_interval, chip_sample, c);
	return rc;
}

/* The unit of a core by sync unit id (0 ctl, 1 mtx, 2 vec, 3 + k dma k). */
static struct unit *chip_sync_unit(struct chip *c, int core, int id)
{
	struct core *k = &c->cores[core];

	if (id == 0)
		return k->ctl;
	if (id == 1)
		return k->mtx;
	if (id == 2)
		return k->vec;
	return id - 3 < k->n_dma ? k->dma[id - 3] : k->ctl;
}

/* hz_report_fn: a hazard as an instant on the later command's unit. */
static void chip_hazard_traced(void *ctx, int core, int unit, cycle_t when,
			       const char *msg)
{
	struct chip *c = ctx;
	char args[900];

	trc_json_member(args, sizeof(args), "what", msg);
	unit_instant(chip_sync_unit(c, core, unit), when, "hazard", args);
}

/*
 * Run the current phase (starting one if needed) until every core has
 * finished, or until cycle 'until' has been simulated (then r->paused is
 * set and a later call continues).  The result is filled even on a fault,
 * timeout or deadlock: cycles is then the latest finish among the cores
 * that did finish.
 */
int chip_run_until(struct chip *c, cycle_t until, struct chip_result *r)
{
	struct eng_stats st;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!c->running && (rc = chip_start_phase(c)))
		return rc;
	rc = eng_run_until(c->e, until, c->o.max_cycles, &st);
	if (!rc && c->launch_rc)
		rc = diag_error(c->d, diag_nowhere(), c->launch_rc,
				"out of memory scheduling a launch");
	r->cycles = c->last_finish;
	/* The engine stops at the first event past the limit, and an event at
	 * the limit itself may still start work in that cycle: a run that
	 * needed more than max_cycles cycles has timed out all the same (a
	 * run of C cycles completes with --max-cycles C, not C - 1). */
	if (!rc && !st.paused && c->last_finish > c->o.max_cycles)
		rc = diag_error(c->d, diag_nowhere(), NPU_ETIMEOUT,
				"cycle limit %llu reached: the run took %llu cycles "
				"(raise --max-cycles)",
				(unsigned long long)c->o.max_cycles,
				(unsigned long long)c->last_finish);
	r->phase_start = c->phase_start;
	r->n_events = st.n_events;
	r->n_hazards = c->hz ? hz_count(c->hz) : 0;
	r->paused = st.paused;
	/* The partial interval since the last sample, whatever the
	 * outcome: a failed run keeps its trace (up to the fault). */
	if (c->n_probes && !st.paused)
		chip_sample(c, eng_now(c->e) + 1);
	if (rc || st.paused) {
		if (rc)
			c->running = 0; /* a failed phase cannot continue */
		return rc;
	}
	c->running = 0;
	if (c->n_finished < c->n_cores)
		rc = NPU_EDEADLOCK; /* cannot happen: the engine names units */
	return rc;
}

int chip_run(struct chip *c, struct chip_result *r)
{
	return chip_run_until(c, CYCLE_MAX, r);
}

cycle_t chip_now(const struct chip *c) { return eng_now(c->e); }

/*
 * Fixed counters of a unit's group (its kind), then its own extras.  A
 * kind with no counter group (UNIT_OTHER) emits only its extras.
 */
static void dump_unit(const struct unit *u, struct ctr_sink *s)
{
	int i;

	if (!u)
		return;
	for (i = 0; i < CTR_N; i++)
		if ((int)ctr_info[i].group == (int)u->ops->kind)
			ctr_emit_id(s, u->name, (enum ctr_id)i, u->ctr[i]);
	if (u->ops->dump)
		u->ops->dump(u, s);
}

void chip_dump(const struct chip *c, struct ctr_sink *s)
{
	int i, j;

	/* The run total is the counter files' top-level "cycles".  Order:
	 * per core its cycles, control, matrix, vector, DMA engines,
	 * scratchpad, accumulator; then the DRAM channels.  The output
	 * follows this order, so changing it changes every golden. */
	for (i = 0; i < c->n_cores; i++) {
		const struct core *k = &c->cores[i];
		char pre[32];

		snprintf(pre, sizeof(pre), "core%d", i);
		ctr_emit_u64(s, pre, "cycles", ctl_finish_cycle(k->ctl));
		dump_unit(k->ctl, s);
		dump_unit(k->mtx, s);
		dump_unit(k->vec, s);
		for (j = 0; j < k->n_dma; j++)
			dump_unit(k->dma[j], s);
		dump_unit(sram_unit(k->spm), s);
		dump_unit(sram_unit(k->acc), s);
	}
	for (i = 0; i < dram_channels(c->dram); i++)
		dump_unit(dram_channel_unit(c->dram, i), s);
	dump_unit(noc_unit(c->noc), s);
}

int chip_n_cores(const struct chip *c) { return c->n_cores; }
eng *chip_eng(const struct chip *c) { return c->e; }

/* ---- chip-wide services (struct ctl_sync_ops) ------------------------------*/

/* A one-flit sync packet from node src to node dst, delivered to
 * chip_sync_arrive with tag; sync messages are never refused. */
static int sync_send(struct chip *c, int src, int dst, uint64_t tag)
{
	struct noc_msg m;

	memset(&m, 0, sizeof(m));
	m.src = src;
	m.dst = dst;
	m.flits = 1;
	m.cls = NOC_CLS_SYNC;
	m.deliver = chip_sync_arrive;
	m.ctx = c;
	m.tag = tag;
	m.response = 1;
	return noc_send(c->noc, &m);
}

/* Every core of partition p arrived: release them all (its first core's
 * node sends the releases; that core itself needs no packet). */
static int chip_barrier_release(struct chip *c, int p)
{
	const struct part *pt = &c->parts[p];
	int i, rc;

	c->parts[p].arrived = 0;
	c->n_barriers++;
	if (c->hz)
		hz_on_barrier(c->hz, eng_now(c->e));
	if (eng_trace(c->e)) {
		char args[40];

		snprintf(args, sizeof(args), "\"barrier\":%llu",
			 (unsigned long long)c->n_barriers);
		unit_instant(c->cores[pt->base].ctl, eng_now(c->e),
			     "barrier release", args);
	}
	for (i = pt->base + 1; i < pt->base + pt->size; i++)
		if ((rc = sync_send(c, c->a->d.core_node[pt->base],
				    c->a->d.core_node[i],
				    SYNC_RELEASE | (uint64_t)i)))
			return rc;
	return ctl_barrier_release(c->cores[pt->base].ctl);
}

/* A barrier arrival counted at its partition's first core. */
static int chip_barrier_count(struct chip *c, int core)
{
	int p = c->part_of[core];

	return ++c->parts[p].arrived < c->parts[p].size
		? 0 : chip_barrier_release(c, p);
}

/*
 * A sync packet arrived (tag: kind in the top bits, then core, then
 * semaphore): a barrier arrival at a partition's first core, a release
 * at a core, a remote signal, or a partition signal (chip_signal).
 */
static int chip_sync_arrive(void *ctx, uint64_t tag, int node, cycle_t when)
{
	struct chip *c = ctx;
	int core = (int)(tag & 0xffffffffu);

	(void)node;
	if ((tag & SYNC_KIND) == SYNC_ARRIVE)
		return chip_barrier_count(c, core);
	if ((tag & SYNC_KIND) == SYNC_RELEASE) {
		if (eng_trace(c->e)) {
			char args[40];

			snprintf(args, sizeof(args), "\"barrier\":%llu",
				 (unsigned long long)c->n_barriers);
			unit_instant(c->cores[core].ctl, when,
				     "barrier release", args);
		}
		return ctl_barrier_release(c->cores[core].ctl);
	}
	if ((tag & SYNC_KIND) == SYNC_PART)
		return c->launch(c->launch_ctx, CHIP_SIGNAL,
				 (int)(tag >> 32 & 0xfffffff),
				 (uint32_t)tag, when);
	core = (int)(tag >> 8 & 0xffffff);
	return ctl_remote_signal(c->cores[core].ctl, (int)(tag & 0xff), when);
}

/*
 * Barriers are counted, not named: the k-th arrival of each core of a
 * partition makes its k-th barrier.  Arrivals travel to the partition's
 * first core's node as one-flit packets (that core's own counts at once);
 * the count is reset before the releases, and a released core arrives
 * again no earlier than the next cycle, so consecutive barriers never mix
 * (packets between two nodes stay in order).
 */
static int chip_barrier_arrive(void *ctx, int core)
{
	struct chip *c = ctx;
	int lead = c->parts[c->part_of[core]].base;

	if (core == lead)
		return chip_barrier_count(c, core);
	return sync_send(c, c->a->d.core_node[core], c->a->d.core_node[lead],
			 SYNC_ARRIVE | (uint64_t)core);
}

/*
 * rsig from core 'from' to semaphore 'sem' of core 'to': a one-flit packet
 * between the two cores' nodes (docs/noc.md; at zero load it arrives
 * after noc_zero_load); a core signalling itself needs no network: one
 * cycle (docs/timing.md, Control unit).  The hazard checker is told the
 * zero-load arrival as the send's order key.
 */
static int chip_remote_signal(void *ctx, int from, int to, int sem)
{
	struct chip *c = ctx;
	const struct noc_params *p = noc_params(c->noc);
	int na = c->a->d.core_node[from], nb = c->a->d.core_node[to];

	if (from == to) {
		if (c->hz)
			hz_on_remote_send(c->hz, from, to, sem, eng_now(c->e) + 1);
		return ctl_remote_signal(c->cores[to].ctl, sem, eng_now(c->e) + 1);
	}
	if (c->hz)
		hz_on_remote_send(c->hz, from, to, sem, eng_now(c->e) +
				  noc_zero_load(p, noc_hops(p, na, nb), 1));
	return sync_send(c, na, nb,
			 SYNC_RSIG | (uint64_t)to << 8 | (uint64_t)(sem & 0xff));
}

/* Called by a core's control unit when it is done (on its ST_HALTED ->
 * ST_DONE transition, so once); the guard keeps n_finished exact anyway.
 * With a launcher, the last core of a partition to finish has the
 * command processor tell it (an event: the core is inside its handler). */
static void chip_core_finished(void *ctx, int core)
{
	struct chip *c = ctx;
	int p = c->part_of[core];

	if (c->cores[core].finished)
		return;
	c->cores[core].finished = 1;
	c->n_finished++;
	if (ctl_finish_cycle(c->cores[core].ctl) > c->last_finish)
		c->last_finish = ctl_finish_cycle(c->cores[core].ctl);
	if (c->launch && ++c->parts[p].n_done == c->parts[p].size) {
		int rc = eng_schedule(c->e, eng_now(c->e), EV_PRI_CONTROL, c->cp,
				      CP_EV_DONE, (uint64_t)p);
		if (rc && !c->launch_rc)
			c->launch_rc = rc;
	}
}

static const struct ctl_sync_ops chip_sync_ops = {
	.barrier_arrive = chip_barrier_arrive,
	.remote_signal = chip_remote_signal,
	.core_finished = chip_core_finished,
};

/* ---- partitions and launches ---------------------------------------------*/

int chip_set_partitions(struct chip *c, int n, const int *sizes,
			struct diag *d)
{
	struct part *v;
	int i, k, base = 0;

	if (c->running)
		return diag_error(d, diag_nowhere(), NPU_EUSAGE,
				  "partitions: the chip is in the middle of a phase");
	for (i = 0; i < n; i++) {
		if (sizes[i] < 1 || sizes[i] > c->n_cores - base)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "partition %d of %d cores: the chip has %d cores and %d are left",
					  i, sizes[i], c->n_cores,
					  c->n_cores - base);
		base += sizes[i];
	}
	if (n < 1 || base != c->n_cores)
		return diag_error(d, diag_nowhere(), NPU_EUSAGE,
				  "partitions of %d cores in all: the chip has %d",
				  base, c->n_cores);
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
	free(c->parts);
	c->parts = v;
	c->n_parts = n;
	for (i = 0, base = 0; i < n; base += sizes[i++]) {
		v[i].base = base;
		v[i].size = sizes[i];
		for (k = base; k < base + sizes[i]; k++) {
			struct core *co = &c->cores[k];

			c->part_of[k] = i;
			ctl_set_partition(co->ctl, base, sizes[i]);
			for (int j = 0; j < co->n_dma; j++)
				dma_set_partition(co->dma[j], base, sizes[i]);
		}
	}
	return 0;
}

int chip_partition(const struct chip *c, int part, int *base)
{
	if (part < 0 || part >= c->n_parts)
		return 0;
	if (base)
		*base = c->parts[part].base;
	return c->parts[part].size;
}

/* The command processor: a chip-level unit whose events call the
 * launcher outside any core's handler. */

struct cproc {
	struct unit u;           /* must be first */
	struct chip *c;
};

static int cp_on_event(struct unit *u, const struct ev *ev)
{
	struct chip *c = ((struct cproc *)u)->c;

	if (ev->kind == CP_EV_SIGNAL)
		return c->launch(c->launch_ctx, CHIP_SIGNAL, (int)(ev->arg >> 32),
				 (uint32_t)ev->arg, ev->when);
	/* done: at the latest finish among the partition's cores (a core
	 * whose units were idle at halt finishes a cycle after it) */
	const struct part *pt = &c->parts[ev->arg];
	cycle_t t = ev->when;

	for (int i = pt->base; i < pt->base + pt->size; i++)
		if (ctl_finish_cycle(c->cores[i].ctl) > t)
			t = ctl_finish_cycle(c->cores[i].ctl);
	return c->launch(c->launch_ctx, CHIP_DONE, (int)ev->arg, 0, t);
}

static void cp_destroy(struct unit *u) { free(u); }

static const struct unit_ops cp_ops = {
	.kind = UNIT_OTHER,
	.on_event = cp_on_event,
	.destroy = cp_destroy,
};

int chip_set_launcher(struct chip *c, chip_launch_fn fn, void *ctx)
{
	if (!c->cp) {
		struct cproc *p = calloc(1, sizeof(*p));

		if (!p)
			return NPU_ENOMEM;
		unit_init(&p->u, &cp_ops, c->e, -1, "cp");
		p->c = c;
		if (eng_add_unit(c->e, &p->u)) {
			free(p);
			return NPU_ENOMEM;
		}
		c->cp = &p->u;
	}
	c->launch = fn;
	c->launch_ctx = ctx;
	return 0;
}

int chip_launch(struct chip *c, int part, const struct prog_image *img,
		cycle_t when, struct diag *d)
{
	const struct part *pt;
	int i, rc;

	if (!c->running || part < 0 || part >= c->n_parts || when < eng_now(c->e))
		return diag_error(d, diag_nowhere(), NPU_EINTERNAL,
				  "%s: launch on partition %d at cycle %llu outside a running phase",
				  img->name, part, (unsigned long long)when);
	pt = &c->parts[part];
	for (i = pt->base; i < pt->base + pt->size; i++)
		if (!c->cores[i].finished)
			return diag_error(d, diag_nowhere(), NPU_EINTERNAL,
					  "%s: launch on partition %d while core %d still runs",
					  img->name, part, i);
	if ((rc = chip_install(c, img, pt->base, pt->base + pt->size - 1, d)))
		return rc;
	for (i = pt->base; i < pt->base + pt->size; i++)
		c->cores[i].finished = 0;
	c->n_finished -= pt->size;
	c->parts[part].n_done = 0;
	for (i = pt->base; i < pt->base + pt->size; i++)
		if ((rc = ctl_start(c->cores[i].ctl, when)))
			return rc;
	return 0;
}

/*
 * A partition signal: a one-flit sync packet from the first core of
 * 'from' to the first core of 'to' (a dataflow hand-off: "your input is
 * in DRAM"); on its arrival the launcher gets CHIP_SIGNAL.  Between
 * partitions on one node it takes a cycle, as an rsig to oneself.
 */
int chip_signal(struct chip *c, int from, int to, uint32_t tag)
{
	int na = c->a->d.core_node[c->parts[from].base];
	int nb = c->a->d.core_node[c->parts[to].base];

	if (na == nb)
		return eng_schedule(c->e, eng_now(c->e) + 1, EV_PRI_WAKE, c->cp,
				    CP_EV_SIGNAL, (uint64_t)to << 32 | tag);
	return sync_send(c, na, nb, SYNC_PART | (uint64_t)to << 32 | tag);
}
