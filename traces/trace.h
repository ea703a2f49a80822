/*
 * trace.h - timelines in the Chrome Trace Event Format, gzip-compressed,
 * which Perfetto UI (ui.perfetto.dev) and chrome://tracing open as they are
 * (docs/formats.md, "Trace").
 *
 * Layout in the viewer: one process per core (pid = core index, named
 * "core N"), one process "chip" for chip-level units (DRAM channels, NoC),
 * and one thread track per unit ("control", "matrix", "vector", "dma0",
 * ...), ordered by a sort index derived from the unit's name.  Work is a
 * complete event ("ph":"X") named after the instruction, with the cycle
 * numbers and the caller's fields in its args; faults are instant events;
 * occupancies and rates are counter events.
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
 * (a DMA engine with outstanding descriptors) therefore gets extra lanes,
 * "dma0 #2", "dma0 #3", ..., opened on demand: a span goes to the first
 * lane whose last span ended at or before its start.
 *
 * Invariants: output is a function of the call sequence only (no clock,
 * no pointers; gzip header mtime 0), so identical runs give identical
 * bytes; nothing is visible at 'path' until trc_close succeeds, and a
 * failed or aborted trace leaves nothing.  Tracing costs nothing when off:
 * callers test eng_trace(e) != NULL before building args.
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
 * Start a trace that will be written to path (gzip; "-" = stdout).
 * Returns NULL after reporting on d when the file cannot be created.
 */
struct trc *trc_open(const char *path, double clock_ghz, struct diag *d);

/*
 * The track of unit 'unit_name' of core 'core' (TRC_CHIP for chip-level
 * units), created with its metadata on first use.  Returns the track id
 * (>= 0) or NPU_ENOMEM.  Calling again with the same pair returns the same
 * id, so units may look their track up lazily.
 */
int trc_track(struct trc *t, int core, const char *unit_name);

/*
 * A span of work on a track from cycle start to cycle end (end >= start).
 * name: the instruction mnemonic or operation; args_json: NULL or JSON
 * object members without braces, e.g. "\"pc\":64,\"bytes\":256" (build
 * strings with trc_json_escape).  Errors (bad track, out of memory, write
 * failure) are remembered and reported by trc_close.
 */
void trc_span(struct trc *t, int track, uint64_t start, uint64_t end,
	      const char *name, const char *args_json);

/* A point event on a track (faults, deadlock reports). */
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
 * Finish the JSON, flush, and rename into place.  Returns 0, or reports on
 * d and returns NPU_E* (then nothing is left at path).  Frees t either way.
 */
int trc_close(struct trc *t, struct diag *d) NPU_WUR;

/* Drop the trace: nothing is left at path.  Frees t.  NULL is fine. */
void trc_abort(struct trc *t);

/*
 * JSON helpers shared with traces/ctrout.c and callers building args.
 * trc_json_escape writes s escaped for a JSON string body (no quotes) into
 * dst and returns the length the full result needs, like snprintf.
 * trc_json_double writes the shortest decimal that reads back as exactly
 * v ("null" for NaN and infinities, which JSON lacks); returns the length.
 */
size_t trc_json_escape(char *dst, size_t cap, const char *s);
size_t trc_json_double(char *dst, size_t cap, double v);

#endif
