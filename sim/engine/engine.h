/*
 * engine.h - the discrete-event engine: one event queue, one run loop.
 *
 * Time is counted in core clock cycles (cycle_t).  Models with their own
 * clock (DRAM) convert at their boundary and say so in their file header.
 *
 * Ordering is total and deterministic: events pop by (when, pri, seq), where
 * seq is a monotonic insertion counter, so the same inputs give the same
 * order bit for bit.  An event scheduled for the current cycle never runs
 * before the event that scheduled it has returned.
 *
 * Cancellation is lazy: an event may carry a pointer to a generation word
 * and the value it had when scheduled; if the word changed by the time the
 * event pops, the event is dropped without being dispatched.
 *
 * Idle time is skipped by construction: the clock jumps to the next event.
 */
#ifndef NPU_ENGINE_H
#define NPU_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "../../util/diag.h"

typedef uint64_t cycle_t;
#define CYCLE_MAX UINT64_MAX

struct unit;
struct trc;
struct cal;

/*
 * Priority of events within one cycle.  Each value says why it precedes
 * the next one.
 */
enum ev_pri {
	EV_PRI_COMPLETE = 0, /* completions of earlier work: data returns and
				units free up before anyone looks at them */
	EV_PRI_WAKE = 1,     /* semaphore signals and unit wake-ups, so that
				waiters see this cycle's signals */
	EV_PRI_ISSUE = 2,    /* units issue work and memory requests */
	EV_PRI_ARB = 3,      /* arbiters resolve every request made this cycle */
	EV_PRI_CONTROL = 4,  /* control units fetch/dispatch after the units
				have taken this cycle's completions */
	EV_PRI_STATS = 5,    /* sampling and bookkeeping, after all work */
	EV_N_PRI
};

/* One scheduled event: a small record in a flat heap, no malloc per event. */
struct ev {
	cycle_t when;           /* cycle at which it fires */
	uint64_t seq;           /* insertion order: the final tie-break */
	struct unit *unit;      /* receiver */
	const uint32_t *genp;   /* lazy cancel: generation word, or NULL */
	uint64_t arg;           /* receiver-defined payload */
	uint32_t gen;           /* *genp at scheduling time */
	uint16_t pri;           /* enum ev_pri */
	uint16_t kind;          /* receiver-defined event kind */
};

typedef struct eng eng;

/*
 * The engine's fields that its getters below read inline (eng_now alone
 * is called about once per event: a call each was 3 % of the engine's
 * instructions).  struct eng in engine.c begins with this, so a pointer
 * to the engine is a pointer to it (C11 6.7.2.1p15); the rest of the
 * engine stays private.  Read it only through the getters.
 */
struct eng_pub {
	cycle_t now;            /* cycle of the event being dispatched */
	struct trc *trace;      /* trace writer, NULL = off */
	struct diag *diag;      /* runtime fault sink (may be NULL) */
	int no_values;          /* timing only (eng_values) */
	int no_ff;              /* fast-forward off (eng_fast_forward) */
};

/* Outcome of eng_run beyond the NPU_E* code. */
struct eng_stats {
	uint64_t n_events;      /* events dispatched */
	uint64_t n_cancelled;   /* stale events dropped */
	cycle_t end_cycle;      /* cycle of the last dispatched event */
	int paused;             /* eng_run_until stopped at its cycle */
};

eng *eng_new(void);
void eng_free(eng *e);

static inline const struct eng_pub *eng_pub(const eng *e)
{
	return (const struct eng_pub *)(const void *)e;
}

static inline cycle_t eng_now(const eng *e) { return eng_pub(e)->now; }
/* NULL when tracing is off */
static inline struct trc *eng_trace(const eng *e) { return eng_pub(e)->trace; }
void eng_set_trace(eng *e, struct trc *t);
/* where runtime faults go */
static inline struct diag *eng_diag(const eng *e) { return eng_pub(e)->diag; }
/* 0 when the run computes no tensor values (--timing-only): units move
 * and compute no bytes but time every access exactly as with values. */
static inline int eng_values(const eng *e) { return !eng_pub(e)->no_values; }
void eng_set_values(eng *e, int on);
void eng_set_diag(eng *e, struct diag *d);
/*
 * 1 (the default) when units may apply uncontended work of several cycles
 * at once where nobody can tell (the matrix engine's streams, eng_horizon);
 * 0 runs every cycle's events.  Results are the same either way (tested);
 * only the host time and the number of events differ.
 */
static inline int eng_fast_forward(const eng *e) { return !eng_pub(e)->no_ff; }
void eng_set_fast_forward(eng *e, int on);

/*
 * Counter sampling for traces: fn(ctx, at) runs once per 'interval'
 * cycles of simulated activity, with 'at' a multiple of the interval and
 * every event before cycle 'at' already dispatched (so the state it reads
 * is the state at 'at').  It runs from the run loop before the first
 * event at or after 'at', not as an event of its own: sampling adds no
 * events, changes no cycle, and costs one comparison per event when off
 * (interval 0, the default).  An idle stretch of many intervals gets two
 * calls, at its first and at its last boundary.  fn must not schedule.
 */
typedef void (*eng_sample_fn)(void *ctx, cycle_t at);
void eng_set_sampler(eng *e, cycle_t interval, eng_sample_fn fn, void *ctx);

/*
 * Polling hook of long runs (interrupt, progress line): fn is called after
 * every ENG_POLL_EVENTS dispatched events, between two events; a non-zero
 * return ends the run with that code (NPU_EINTR).  It must not change the
 * simulation: a poll sees the state, it does not take part.  Without a
 * hook the cost is one decrement and an untaken branch per event.
 */
#define ENG_POLL_EVENTS 1024
typedef int (*eng_poll_fn)(void *ctx, cycle_t now);
void eng_set_poll(eng *e, eng_poll_fn fn, void *ctx);

/*
 * A calendar of per-cycle items (calendar.h) for a unit of this engine,
 * which owns it: eng_free frees it after the units.  Items go at most
 * 'span' cycles ahead, in n_lanes lanes of size[lane]-byte items.  NULL
 * when out of memory.
 */
struct cal *eng_calendar(eng *e, cycle_t span, unsigned n_lanes,
			 const size_t *size);

/* Register a unit for deadlock detection and teardown (engine owns it). */
int eng_add_unit(eng *e, struct unit *u) NPU_WUR;
size_t eng_n_units(const eng *e);
struct unit *eng_unit(const eng *e, size_t i);

/*
 * Schedule an event.  'when' must not be in the past.  With genp != NULL the
 * event is dropped on pop if *genp no longer equals its value now.
 */
int eng_schedule(eng *e, cycle_t when, enum ev_pri pri, struct unit *u,
		 unsigned kind, uint64_t arg) NPU_WUR;
int eng_schedule_gen(eng *e, cycle_t when, enum ev_pri pri, struct unit *u,
		     unsigned kind, uint64_t arg, const uint32_t *genp) NPU_WUR;

/*
 * The first cycle at which anything but the running handler may act or
 * look: the next pending event's cycle (stale ones included), the next
 * sampling boundary, the cycle after a pause of eng_run_until, the cycle
 * after its limit; CYCLE_MAX if none.  A unit that works alone (no event
 * of anyone else, its own included, can come between) may apply the
 * effects of its work of every cycle before it at once, from the handler
 * running now: nobody can tell (the matrix engine's fast-forward).
 */
cycle_t eng_horizon(const eng *e);

/*
 * eng_horizon with the pending events 'mine' accepts taken as absent: a
 * unit that will apply work of its own at once, and replace its own
 * events in between, asks when anybody else may act.  Events beyond the
 * calendar window (a thousand cycles ahead) are not looked at one by one:
 * the first of them bounds the result.
 */
typedef int (*eng_ev_fn)(void *ctx, const struct ev *ev);
cycle_t eng_horizon_except(const eng *e, eng_ev_fn mine, void *ctx);

/* Number of events pending (including stale ones not yet dropped); it
 * walks the queue, so it is for tests and reports, not per event. */
size_t eng_pending(const eng *e);

/*
 * Run until the queue is empty, a unit returns an error, or the clock would
 * pass max_cycles.  Returns 0, NPU_EDEADLOCK (queue empty but a unit still
 * has work: each such unit is named in the diag with what it waits on),
 * NPU_ETIMEOUT, the unit's error, or the poll hook's (eng_set_poll).
 */
int eng_run(eng *e, cycle_t max_cycles, struct eng_stats *st) NPU_WUR;
/*
 * The same, but pause (return 0 with st->paused set and now = stop) once
 * every event up to cycle 'stop' has run; a later call continues.  No
 * deadlock check at a pause.
 */
int eng_run_until(eng *e, cycle_t stop, cycle_t max_cycles,
		  struct eng_stats *st) NPU_WUR;

#endif
