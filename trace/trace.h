/*
 * trace.h - timelines in the Chrome Trace Event Format, gzip-compressed,
 * which Perfetto UI (ui.perfetto.dev) and chrome://tracing open as they are
 * (docs/formats.md, "Trace").
 *
 * Layout in the viewer: one process per core (pid = core index, named
 * "core N"), one process "chip" for chip-level units (DRAM channels, NoC),
 * and one thread track per unit ("control", "matrix", "vector", "dma0",
 * ...).  A track is identified by (core, kind, index): the unit's kind
 * (enum trc_kind) and its instance number of that kind (DMA engine,
 * SRAM instance, DRAM channel); tracks sort by kind in pipeline order,
 * then index.  The name is only a label.  Work is a complete event
 * ("ph":"X") named after the instruction, with the cycle numbers and the
 * caller's fields in its args; a span may start or end a flow arrow
 * (Perfetto "flow events v2": bind_id with flow_out / flow_in on the
 * slice); faults, hazards, barrier releases and deadlocks are instant
 * events; occupancies and rates are counter events.
 *
 * Time: with clock_ghz > 0 timestamps are real time (the viewer's
 * microseconds), converted from cycles at that clock with picosecond
 * resolution, so the viewer's rulers read nanoseconds of the modelled
 * chip; with clock_ghz <= 0 a timestamp is the raw cycle number (1 us in
 * the viewer = 1 cycle).  Either way every event carries "cycle" (start)
 * and spans "cycles" (duration) in args.
 *
 * Overlap: the format requires spans on one track to nest or be disjoint
 * (Perfetto drops the rest).  A unit with several operations in flight
 * (the matrix engine's pipelined instructions, the vector unit's queue)
 * therefore gets extra lanes, "matrix #2", "matrix #3", ..., opened on
 * demand: a span goes to the first lane whose last span ended at or
 * before its start.
 *
 * Selection: trc_set_window keeps only events that touch a cycle window
 * (a span that straddles an edge is kept whole), trc_set_units only the
 * tracks a list names.  Everything else is dropped before formatting, and
 * a flow whose start was dropped is not drawn.
 *
 * Memory is bounded: events are formatted into a 64 KiB buffer and
 * streamed through zlib as they come; what stays is per track (a few
 * dozen bytes each), never per event, so a billion-cycle run costs the
 * same memory as a short one.
 *
 * Invariants: output is a function of the call sequence only (no clock,
 * no pointers; gzip header mtime 0), so identical runs give identical
 * bytes; nothing is visible at 'path' until trc_close succeeds, and an
 * aborted trace leaves nothing.  trc_close always writes a valid file
 * of the events so far, so a run that faulted or deadlocked can keep its
 * trace.  Tracing costs nothing when off: callers test eng_trace(e) !=
 * NULL before building args.
 */
#ifndef NPU_TRACE_H
#define NPU_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../util/diag.h"

struct trc;

#define TRC_CHIP (-1)          /* 'core' of chip-level units */
#define TRC_CHIP_PID 100000    /* pid of the chip process, after all cores */
#define TRC_MAX_LANES 16       /* lanes per track before spans must overlap */

/*
 * What a track's unit is, in the order tracks sort within a process
 * (the control unit feeds the others; memories after the units that use
 * them).  The simulator maps its unit kinds onto these (sim/engine).
 */
enum trc_kind {
	TRC_KIND_CONTROL,   /* control unit: instructions, stalls */
	TRC_KIND_MATRIX,    /* matrix engine */
	TRC_KIND_VECTOR,    /* vector unit */
	TRC_KIND_DMA,       /* DMA engines, index = engine */
	TRC_KIND_SRAM,      /* banked SRAMs, index 0 scratchpad, 1 accumulator */
	TRC_KIND_NOC,       /* NoC links (index = link), not yet modelled */
	TRC_KIND_DRAM,      /* DRAM channels, index = channel */
	TRC_KIND_OTHER,     /* test drivers, benches */
	TRC_N_KINDS
};

/* "control", "matrix", ... (the --trace-units kind names). */
const char *trc_kind_name(enum trc_kind k);

/*
 * Start a trace that will be written to path (gzip; "-" = stdout).
 * Returns NULL after reporting on d when the file cannot be created.
 */
struct trc *trc_open(const char *path, double clock_ghz, struct diag *d);

/*
 * Keep only events touching cycles [start, end) (end = UINT64_MAX: no
 * upper bound).  Call before the first event.
 */
void trc_set_window(struct trc *t, uint64_t start, uint64_t end);

/*
 * Keep only the tracks a comma-separated list names.  Each item is a
 * kind ("dma", "sram", "dram"), a track name on any core ("dma1",
 * "scratchpad"), a name on one core ("core0.dma1"), a whole core
 * ("core2"), or "chip" (every chip-level track); track names of the chip
 * process are matched as they are ("dram.ch0").  An empty item is an
 * error (reported on d, NPU_EUSAGE).  Call before the first trc_track.
 */
int trc_set_units(struct trc *t, const char *list, struct diag *d) NPU_WUR;

/*
 * The track of the unit (core, kind, index) (core = TRC_CHIP for
 * chip-level units), created on first use with the display name 'name'
 * ("dma0", "dram.ch1").  Returns the track id (>= 0) or NPU_ENOMEM.
 * Calling again with the same key returns the same id, so units may look
 * their track up lazily.  A track that --trace-units leaves out still has
 * an id; its events are dropped.
 */
int trc_track(struct trc *t, int core, enum trc_kind kind, int index,
	      const char *name);

/*
 * Would an event on 'track' over cycles [start, end] be written (unit
 * selection and window)?  Lets callers skip building args for nothing.
 */
int trc_want(const struct trc *t, int track, uint64_t start, uint64_t end);

/*
 * A span of work on a track from cycle start to cycle end (end >= start).
 * name: the instruction mnemonic or operation; args_json: NULL or JSON
 * object members without braces, e.g. "\"pc\":64,\"bytes\":256" (build
 * strings with trc_json_escape).  Errors (bad track, out of memory, write
 * failure) are remembered and reported by trc_close.
 */
void trc_span(struct trc *t, int track, uint64_t start, uint64_t end,
	      const char *name, const char *args_json);

/*
 * A flow arrow between two spans: id (nonzero, unique in the trace) is
 * set on the span where it starts (out = 1) and on the one where it ends
 * (out = 0).  The end names where the flow started: the track key and
 * the start and end cycles of that span, so that a start that the window
 * or the unit selection dropped leaves no dangling end.
 */
struct trc_flow {
	uint64_t id;              /* nonzero, unique in the trace */
	int out;                  /* 1: starts on this span; 0: ends on it */
	int from_core;            /* out = 0: the starting span's track: */
	enum trc_kind from_kind;  /*   core, kind, */
	int from_index;           /*   index, */
	uint64_t from_start;      /*   and its cycles */
	uint64_t from_end;
};

/* trc_span with a flow (NULL = none). */
void trc_span_flow(struct trc *t, int track, uint64_t start, uint64_t end,
		   const char *name, const char *args_json,
		   const struct trc_flow *flow);

/* A point event on a track (faults, hazards, barriers, deadlocks). */
void trc_instant(struct trc *t, int track, uint64_t when, const char *name,
		 const char *args_json);

/*
 * A sample of counter 'name' of the track's unit at cycle 'when' (queue
 * occupancy, bytes per cycle); the value holds until the next sample.
 * Perfetto shows it as the counter track "<unit> <name>" in the unit's
 * process.
 */
void trc_counter(struct trc *t, int track, uint64_t when, const char *name,
		 double value);

/*
 * FNV-1a (64-bit) over the uncompressed JSON text the file will hold if it
 * is closed now, trailer included: a cheap fingerprint for golden tests.
 */
uint64_t trc_digest(const struct trc *t);

/* Events written so far (metadata included). */
uint64_t trc_n_events(const struct trc *t);

/*
 * Finish the JSON, flush, and rename into place: a valid file of every
 * event so far, whether or not the run succeeded.  Returns 0, or reports
 * on d and returns NPU_E* (then nothing is left at path).  Warns on d
 * about --trace-units items that matched no track.  Frees t either way.
 */
int trc_close(struct trc *t, struct diag *d) NPU_WUR;

/* Drop the trace: nothing is left at path.  Frees t.  NULL is fine. */
void trc_abort(struct trc *t);

/*
 * JSON helpers shared with report/ctrout.c and callers building args.
 * trc_json_escape writes s escaped for a JSON string body (no quotes) into
 * dst and returns the length the full result needs, like snprintf.
 * trc_json_double writes the shortest decimal that reads back as exactly
 * v ("null" for NaN and infinities, which JSON lacks); returns the length.
 */
size_t trc_json_escape(char *dst, size_t cap, const char *s);
/* One args member "key":"s" with s escaped (cut at an escape boundary if
 * cap is short, still valid JSON); cap must be at least 8 + strlen(key). */
void trc_json_member(char *dst, size_t cap, const char *key, const char *s);
size_t trc_json_double(char *dst, size_t cap, double v);

#endif
