/*
 * control_report.c - what a core's control unit reports when a run
 * stops: a fault at its current instruction (ctl_fault, which the rest of
 * the unit calls), and the deadlock report (unit_ops.blocked):
 * when the event queue is empty and a core has not finished, what its
 * control unit waits on, in the terms of the program (pc with its source
 * line, semaphore, queue), followed to the root cause where it waits on a
 * queue: the entry at the head and who could have released it.  The
 * engine gathers one such note per stuck unit into the deadlock report
 * that ends the run (exit 3, docs/noc.md).
 *
 * Invariants: read-only (called only when no event is pending, so every
 * state but ST_DONE is stuck for good); the chase through queues and
 * semaphores is bounded (depth 2), and every note fits the caller's buffer
 * (snprintf cuts it).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "control_int.h"

/* Without a diag sink the code alone is returned; the run stops either
 * way (control_int.h). */
int ctl_fault(struct ctl *c, cycle_t t, const char *fmt, ...)
{
	struct diag *d = eng_diag(c->u.eng);
	va_list ap;

	if (!d)
		return NPU_EFAULT;
	va_start(ap, fmt);
	(void)diag_vreport(d, DIAG_ERROR, diag_at_run(c->core, c->pc, t),
			   NPU_EFAULT, fmt, ap);
	va_end(ap);
	return NPU_EFAULT;
}

/* " (file.s:12)" for pc when the program's symbolizer knows it, else "". */
static const char *ctl_src(const struct ctl *c, uint64_t pc, char *buf,
			   size_t n)
{
	const struct prog_symbolizer *s = c->prog.sym;
	const char *file;
	int line;

	buf[0] = '\0';
	if (s && s->src_line && s->src_line(s->ctx, pc, &file, &line) == 0)
		snprintf(buf, n, " (%s:%d)", file, line);
	return buf;
}

static void ctl_queue_root(const struct ctl *c, const struct xq *q, char *buf,
			   size_t n, int depth);

/*
 * Who could still raise semaphore 'sem' on this core: a sig queued
 * behind a blocked entry (then what that queue's head waits for, to
 * 'depth' more levels) or nobody on this core.  A remote core's rsig may
 * also raise it, which the other cores' notes then show.
 */
static void ctl_sem_source(const struct ctl *c, int sem, char *buf, size_t n,
			   int depth)
{
	char src[96], root[384];
	int i, k;

	for (i = 0; i < c->n_xq; i++) {
		const struct xq *q = &c->xq[i];

		for (k = 0; k < q->n; k++) {
			const struct qent *e = &q->q[(q->head + k) % q->cap];

			if (e->kind != Q_SIG || e->sem != sem)
				continue;
			if (k == 0 || depth == 0) {
				snprintf(buf, n, "its sig from pc 0x%" PRIx64 "%s is in the %s queue",
					 e->pc, ctl_src(c, e->pc, src, sizeof(src)), q->name);
				return;
			}
			ctl_queue_root(c, q, root, sizeof(root), depth - 1);
			snprintf(buf, n, "its sig from pc 0x%" PRIx64 "%s is queued behind %s",
				 e->pc, ctl_src(c, e->pc, src, sizeof(src)), root);
			return;
		}
	}
	snprintf(buf, n, "no sig for it is queued on core %d", c->core);
}

/*
 * The root of a stuck queue: what its head waits for.  A wait on a
 * semaphore names who could raise it; a command names the unit, whose
 * own note (unit_ops.blocked) says what it waits for.
 */
static void ctl_queue_root(const struct ctl *c, const struct xq *q, char *buf,
			   size_t n, int depth)
{
	const struct qent *e = &q->q[q->head];
	char src[96], who[384];

	if (q->n == 0) {
		snprintf(buf, n, "the %s unit has not finished its last command", q->name);
		return;
	}
	ctl_src(c, e->pc, src, sizeof(src));
	if (e->kind == Q_WAIT) {
		ctl_sem_source(c, e->sem, who, sizeof(who), depth);
		snprintf(buf, n, "the %s queue head (wait from pc 0x%" PRIx64 "%s), which waits for semaphore %d >= %d (value %u), and %s",
			 q->name, e->pc, src, e->sem, e->cnt, c->sem[e->sem], who);
	} else {
		snprintf(buf, n, "the %s queue head (from pc 0x%" PRIx64 "%s; %d entries)",
			 q->name, e->pc, src, q->n);
	}
}

/*
 * Deadlock report (unit_ops.blocked): what this core waits on, in the
 * terms of the program (pc with source line, semaphore, queue), followed
 * to the root cause where the control unit waits on a queue: the entry
 * at its head and who could have released it.  Called only when the
 * event queue is empty, so any state other than ST_DONE is stuck for good.
 */
int ctl_report_blocked(const struct unit *u, char *buf, size_t n)
{
	const struct ctl *c = to_cctl(u);
	char src[96], root[640];
	int i;

	ctl_src(c, c->pc, src, sizeof(src));
	switch (c->st) {
	case ST_DONE:
		return 0;
	case ST_STALL_QUEUE:
		ctl_queue_root(c, &c->xq[c->stall_xq], root, sizeof(root), 2);
		snprintf(buf, n, "control unit at pc 0x%" PRIx64 "%s waits for space in the %s queue; root cause: %s",
			 c->pc, src, c->xq[c->stall_xq].name, root);
		return 1;
	case ST_STALL_SEM:
		ctl_sem_source(c, c->stall_sem, root, sizeof(root), 2);
		snprintf(buf, n, "control unit at pc 0x%" PRIx64 "%s waits for semaphore %d >= %d (value %u), and %s",
			 c->pc, src, c->stall_sem, c->stall_cnt, c->sem[c->stall_sem], root);
		return 1;
	case ST_STALL_FENCE:
		/* Name the first unit the fence waits for that has not
		 * drained (bit 23 stands for every id >= 23). */
		for (i = 0; i < c->n_xq; i++)
			if (isa_fence_covers(c->stall_mask, (unsigned)i + 1) &&
			    !xq_drained(&c->xq[i]))
				break;
		if (i == c->n_xq) {
			snprintf(buf, n, "control unit at pc 0x%" PRIx64 "%s waits in a fence for units to drain",
				 c->pc, src);
			return 1;
		}
		ctl_queue_root(c, &c->xq[i], root, sizeof(root), 2);
		snprintf(buf, n, "control unit at pc 0x%" PRIx64 "%s waits in a fence for %s to drain; root cause: %s",
			 c->pc, src, c->xq[i].name, root);
		return 1;
	case ST_STALL_BARRIER:
		/* pc - 4: the barrier retired on arrival, pc is past it. */
		snprintf(buf, n, "control unit at pc 0x%" PRIx64 "%s waits in a barrier for the other cores",
			 c->pc - 4, ctl_src(c, c->pc - 4, src, sizeof(src)));
		return 1;
	case ST_RUN:
		snprintf(buf, n, "control unit at pc 0x%" PRIx64 "%s has not halted", c->pc, src);
		return 1;
	case ST_HALTED:
		break;
	}
	/* Halted: name the first queue that cannot drain and why. */
	for (i = 0; i < c->n_xq; i++)
		if (c->xq[i].n) {
			ctl_queue_root(c, &c->xq[i], root, sizeof(root), 2);
			snprintf(buf, n, "halted; root cause: %s", root);
			return 1;
		}
	/* Queues empty but a unit not idle: that unit's own blocked() names
	 * the cause. */
	snprintf(buf, n, "halted; waiting for units to finish");
	return 1;
}
