/*
 * control_int.h - internals of the control unit shared by its three files:
 *   control.c         the control unit proper: issue on the local clock,
 *                     scalar semantics, dispatch into the unit queues,
 *                     sync instructions, stalls, the unit's ops
 *   control_region.c  program regions (rbeg/rend): the counter scopes a
 *                     core keeps per region name
 *   control_report.c  the deadlock report (unit_ops.blocked): what a
 *                     stuck core waits on, followed to its root cause
 * Nothing outside sim/core/control*.c includes it; the rest of the chip
 * sees control.h.
 *
 * Invariants (control.c's header has the timing model's):
 *   - struct ctl embeds struct unit first (to_ctl casts);
 *   - the region state (struct ctl_regions, c->rg) is read and written by
 *     control_region.c only; control.c calls it at a marker, at program
 *     install, when the core finishes and when it is destroyed;
 *   - the deadlock report only reads: it runs when the event queue is
 *     empty, after which nothing changes.
 */
#ifndef NPU_CONTROL_INT_H
#define NPU_CONTROL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "control.h"
#include "../engine/unit.h"

/* Why the control unit is not issuing. */
enum ctl_state {
	ST_RUN,           /* issuing (or waiting for a STEP event) */
	ST_STALL_QUEUE,   /* target unit queue full */
	ST_STALL_SEM,     /* wait ctl: semaphore too small */
	ST_STALL_FENCE,   /* fence: masked units not drained */
	ST_STALL_BARRIER, /* barrier: other cores not there yet */
	ST_HALTED,        /* halt issued; waiting for the units to drain */
	ST_DONE,          /* halted and drained */
};

/* What a queue entry is: Q_CMD a tile instruction for the unit; Q_SIG and
 * Q_WAIT are sig/wait instructions naming the unit, which act in queue
 * order so that they order against the unit's own commands. */
enum qkind { Q_CMD, Q_SIG, Q_WAIT };

/* One entry of a unit's in-order queue. */
struct qent {
	enum qkind kind;     /* tile command, sig or wait */
	cycle_t ready;       /* cycle from which the unit may see it */
	uint8_t sem;         /* Q_SIG/Q_WAIT: semaphore (0..31, 5-bit field) */
	uint16_t cnt;        /* Q_WAIT: count (1..4095, 12-bit field) */
	uint64_t pc;         /* instruction that queued it */
	struct tile_cmd cmd; /* Q_CMD: the command */
};

/*
 * A unit's queue, held by the control unit (ring buffer).  It models the
 * in-order instruction queue in front of each execution unit: the unit
 * pulls from it only through ctl_pump, so its depth is exactly the
 * core.control.queue_depth entries the program can run ahead by.
 */
struct xq {
	struct ctl_xu xu;    /* the unit and its port */
	struct qent *q;      /* entries */
	int head, n, cap;    /* first entry, count, capacity (queue_depth) */
	char name[8];        /* "mtx", "dma0", ...: stall and deadlock text */
};

/* One program region of this core: what its entries added up to. */
struct ctl_rgn {
	const char *name;    /* the image's string (images outlive the chip) */
	uint64_t entries;    /* closed entries */
	cycle_t cycles;      /* sum of (close - open) */
	uint64_t *ctr;       /* scope.n accumulated counters */
	int open;            /* on the stack now (no recursion) */
};

/* An open region: when it opened and the counters then. */
struct ctl_rframe {
	int r;               /* index into rgns */
	cycle_t start;       /* open cycle */
	uint64_t *snap;      /* scope.n counters at the open (allocated
				once per depth and reused) */
};

/* A core's program regions (rbeg/rend); nothing here is touched by a
 * program without them. */
struct ctl_regions {
	struct ctr_scope scope;        /* counters a boundary snapshots */
	int scope_ok;                  /* scope was built */
	struct ctl_rgn *rgns;          /* regions by name, first-seen order */
	int n_rgns;                    /* entries */
	int *map;                      /* program region id -> rgns index */
	size_t n_map;                  /* entries (= prog.n_regions) */
	struct ctl_rframe stack[CTL_MAX_REGION_DEPTH]; /* open regions */
	int depth;                     /* frames in use */
	int track;                     /* trace track "regions" + 1; 0 none */
};

struct ctl {
	struct unit u;                 /* must be first */
	const struct arch *a;          /* chip description */
	struct ctl_sync sync;          /* barrier, remote signals, finish */
	int n_cores;                   /* cores on the chip */
	int core;                      /* core index on the chip */
	int part_base, part_size;      /* its partition: cores part_base ..
					  + part_size - 1 (csrr coreid and
					  ncores, rsig targets count in it) */
	struct ctl_prog prog;          /* decoded program */
	uint64_t x[32];                /* scalar registers (x[0] stays 0) */
	cycle_t ready[32];             /* cycle each register's value is ready */
	uint64_t pc;                   /* byte address of the next instruction */
	uint8_t *smem;                 /* scalar data memory */
	size_t smem_bytes;             /* its size */
	uint32_t sem[32];              /* semaphores */
	struct mtx_cfg mcfg;           /* matrix configuration registers */
	struct vec_cfg vcfg;           /* vector configuration registers */
	uint64_t dreg[ISA_N_DFIELDS];  /* DMA staging registers */
	uint32_t dset_mask;            /* which staging registers were written */
	uint64_t mpre_addr;            /* address of the last mpre (resident) */
	int mpre_valid;                /* an mpre was dispatched */
	struct xq *xq;                 /* queues; xq[i] is unit id i + 1 */
	int n_xq;                      /* matrix, vector and DMA engines:
					  2 + core.dma.engines */
	enum ctl_state st;             /* issuing, stalled, halted, done */
	int stall_xq;                  /* ST_STALL_QUEUE: which queue */
	int stall_sem, stall_cnt;      /* ST_STALL_SEM: semaphore and count */
	uint32_t stall_mask;           /* ST_STALL_FENCE: mask */
	cycle_t stall_start;           /* cycle the current stall began */
	int barrier_wait;              /* arrived at a barrier, not released */
	cycle_t t_next;                /* earliest issue cycle of next insn */
	cycle_t t_cur;                 /* issue cycle of the insn executing
					  (scalar/cfg insns run ahead of the
					  engine clock: faults must name it) */
	int step_pending;              /* a STEP event is scheduled */
	uint32_t step_gen;             /* cancels stale STEP events */
	cycle_t wake_at;               /* cycle of the last WAKE scheduled */
	int wake_valid;                /* wake_at is meaningful */
	uint64_t instret;              /* instructions retired */
	uint64_t next_id;              /* tile command sequence number */
	cycle_t finish;                /* cycle the core finished */
	cycle_t halt_end;              /* cycle after the halt instruction */
	struct hz *hz;                 /* hazard checker or NULL */
	int trace_insns;               /* print each instruction */
	int64_t trc_seq;               /* trace: dispatch number of the tile
					  command the instruction being
					  issued queued, -1 none (its slice
					  starts a flow) */
	cycle_t max_cycles;            /* watchdog: nothing issues later */
	struct ctl_regions rg;         /* program regions (control_region.c) */
	/* Latencies in cycles, from core.control.*: results of alu, mul,
	 * div and load instructions; lat_br delays the issue after a taken
	 * branch; lat_disp is enqueue -> visible to the unit (dispatch). */
	int lat_alu, lat_mul, lat_div, lat_mem, lat_br, lat_disp;
};

static inline struct ctl *to_ctl(struct unit *u) { return (struct ctl *)u; }
static inline const struct ctl *to_cctl(const struct unit *u)
{
	return (const struct ctl *)u;
}

/*
 * Nothing queued and nothing in flight: what fence and halt wait for.  An
 * empty queue is not enough, since the unit may still be running accepted
 * commands (tile.h: idle() means results written and requests retired).
 */
static inline int xq_drained(const struct xq *q)
{
	return q->n == 0 && q->xu.port->idle(q->xu.u);
}

/*
 * Report a runtime fault at the current instruction (control_report.c).  t is
 * the cycle to print: for scalar and configuration instructions it is the
 * local clock (t_cur), which can be ahead of the engine's.  Returns
 * NPU_EFAULT; the run stops.
 */
int ctl_fault(struct ctl *c, cycle_t t, const char *fmt, ...)
	NPU_PRINTF(3, 4);

/* ---- control_region.c ---------------------------------------------------- */

/*
 * Map a newly installed program's region table onto the core's regions
 * by name (nothing is open between programs).  0 or NPU_ENOMEM.
 */
int ctl_region_install(struct ctl *c) NPU_WUR;
/* rbeg/rend at cycle t (= now): 0, or a fault naming the region. */
int ctl_region_marker(struct ctl *c, const struct isa_insn *in,
		      cycle_t t) NPU_WUR;
/* The core finished at cycle 'end': regions still open close there. */
void ctl_region_close_all(struct ctl *c, cycle_t end);
/* Free the region state (ctl_destroy). */
void ctl_region_free(struct ctl *c);

/* ---- control_report.c ---------------------------------------------------- */

/* unit_ops.blocked: 0 when the core is done, else 1 with what it waits on
 * in buf. */
int ctl_report_blocked(const struct unit *u, char *buf, size_t n);

#endif
