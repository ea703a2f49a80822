/*
 * unit.h - the one interface every hardware model implements.
 *
 * A model embeds struct unit as its first member and exports one
 * const struct unit_ops with designated initialisers.  The engine calls
 * on_event for each event addressed to the unit; at the end of a run it asks
 * every unit whether it still has unfinished work (deadlock detection), and
 * the output side asks each to dump its counters.
 */
#ifndef NPU_UNIT_H
#define NPU_UNIT_H

#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "engine.h"

struct ctr_sink;
struct prog_symbolizer;

/*
 * What a unit is.  The kind is its counter group (counters.def GROUP), so
 * the counter dump indexes the table by it instead of matching names;
 * UNIT_OTHER is for test drivers and benches, which own no counters.
 */
enum unit_kind {
	UNIT_CONTROL = CTR_GRP_CONTROL,
	UNIT_MATRIX = CTR_GRP_MATRIX,
	UNIT_VECTOR = CTR_GRP_VECTOR,
	UNIT_DMA = CTR_GRP_DMA,
	UNIT_SRAM = CTR_GRP_SRAM,
	UNIT_DRAM = CTR_GRP_DRAM,
	UNIT_NOC = CTR_GRP_NOC,
	UNIT_OTHER = CTR_N_GRP
};

struct unit_ops {
	enum unit_kind kind; /* what it is: counter group, trace kind */
	/* Handle one event; return 0 or NPU_E* (a fault stops the run). */
	int (*on_event)(struct unit *u, const struct ev *ev);
	/*
	 * Deadlock report: return nonzero when the unit still has unfinished
	 * work, and describe in buf what it waits on ("wait sem 2 (count 1,
	 * value 0) at pc 0x40").  May be NULL for units that never block.
	 */
	int (*blocked)(const struct unit *u, char *buf, size_t n);
	/* Emit counters beyond the fixed ones in u->ctr (may be NULL). */
	void (*dump)(const struct unit *u, struct ctr_sink *s);
	/* Free the model (the struct unit is its first member). */
	void (*destroy)(struct unit *u);
};

struct unit {
	const struct unit_ops *ops; /* behaviour */
	char name[32];              /* hierarchical prefix: "core0.matrix" */
	int core;                   /* owning core, -1 for chip-level units */
	int index;                  /* instance of its kind, set by the
				       constructor: DMA engine number, SRAM
				       (0 scratchpad, 1 accumulator), DRAM
				       channel; 0 for one-of-a-kind units.
				       (core, kind, index) names its trace
				       track */
	eng *eng;                   /* engine it runs on */
	uint64_t ctr[CTR_N];        /* counters, indexed by enum ctr_id */
	int trc_track;              /* trace track id + 1; 0 = not created yet */
};

/* Fill the common header (name is printf-formatted into u->name). */
void unit_init(struct unit *u, const struct unit_ops *ops, eng *e, int core,
	       const char *fmt, ...) NPU_PRINTF(5, 6);

/*
 * Record one span of work [start, end) on the unit's trace track (Perfetto
 * shows one track per unit per core).  name is the mnemonic; args_json is
 * NULL or a JSON object body ("\"bytes\":512").  Costs one pointer test
 * when tracing is off.
 */
void unit_span(struct unit *u, cycle_t start, cycle_t end, const char *name,
	       const char *args_json);

/*
 * What a span knows of the instruction it shows: its pc and source line,
 * and the flow arrow from the control unit's dispatch slice to the
 * executing unit's slice, keyed by the dispatch sequence number.
 */
struct unit_insn {
	uint64_t pc;                       /* byte address */
	const struct prog_symbolizer *sym; /* source lines, or NULL */
	uint64_t seq;                      /* tile_cmd.id: dispatch number on
					      the core */
	int flow;                          /* 0 none, UNIT_FLOW_OUT on the
					      dispatch slice, UNIT_FLOW_IN on
					      the executing unit's */
	cycle_t issued;                    /* FLOW_IN: the dispatch cycle */
};
enum { UNIT_FLOW_NONE, UNIT_FLOW_OUT, UNIT_FLOW_IN };

/*
 * unit_span for an instruction: args get "pc" (hex) and "src"
 * ("file:line") before the caller's members, and the span starts or ends
 * the instruction's flow arrow.
 */
void unit_span_insn(struct unit *u, cycle_t start, cycle_t end,
		    const char *name, const char *args_json,
		    const struct unit_insn *in);

/* A point event (fault, hazard, barrier release, deadlock) on the unit's
 * track, and a counter sample; both cost one pointer test when off. */
void unit_instant(struct unit *u, cycle_t when, const char *name,
		  const char *args_json);
void unit_counter(struct unit *u, cycle_t when, const char *name,
		  double value);

/*
 * Would an event over [start, end] on the unit's track be written?  0
 * when tracing is off, the unit is not selected (--trace-units) or the
 * cycles lie outside --trace-window: callers skip building args then.
 */
int unit_traced(struct unit *u, cycle_t start, cycle_t end);

#endif
