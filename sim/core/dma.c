/*
 * dma.c - DMA engines: strided 1-4D descriptors between DRAM, scratchpad
 * and accumulator, split into bursts.
 *
 * A descriptor moves shape[3] x shape[2] x shape[1] x shape[0] elements of
 * elem_bytes each, element (i3,i2,i1,i0) from src + sum i_k*src_stride[k]
 * to dst + sum i_k*dst_stride[k].  At its start it is canonicalised: the
 * innermost dimensions that are contiguous on both sides fold into one
 * "run" of bytes, dimensions of extent 1 drop out, and the rest are walked
 * as an odometer.  Each run is cut into bursts of at most burst_bytes,
 * aligned to burst_bytes on the DRAM side (the source if both or neither
 * side is DRAM), so a burst never straddles a contiguity boundary.
 *
 * A burst goes through two phases: read the source, then write the
 * destination, each one transaction through the engine's memory port for
 * that space (sim/mem/port.h; the chip binds them to the core's SRAMs and
 * the DRAM, or whatever sits in between).  Its
 * bytes travel in a staging slot: copied from the source memory when the
 * read completes, into the destination memory when the write completes.
 * The write is issued in the cycle the read completes.
 *
 * Issue: at most one new burst per cycle (EV_PRI_ISSUE), while fewer than
 * max_outstanding bursts are in flight (from read issue to write
 * completion) and the DRAM accepts.  A refused request (MEM_RETRY)
 * stays at the head, retried when the DRAM reports space; refused writes
 * wait in order in a FIFO.  Descriptors run strictly one after another, so
 * the next one sees every byte of the previous one written.
 *
 * Invariants:
 *  - n_out == slots in use; a slot is in use from its read issue until its
 *    write completion; held_read (if >= 0) and wq[] hold in-use slots;
 *  - the engine is stalled iff the active descriptor has bursts left to
 *    issue and it cannot issue one (n_out == max, or the head was
 *    refused); a stall is charged at its end to one reason (DRAM or SRAM);
 *  - busy (a descriptor accepted and not complete) is what can_accept and
 *    idle report; completion notifies the listener once per descriptor.
 *  - Data moves only at completions: the source is copied into the slot
 *    when its read completes and the slot into the destination when its
 *    write completes, so other units see bytes exactly when the banks or
 *    the DRAM would deliver them (docs/timing.md, DMA).
 *
 * Timing, and its worked numbers, in docs/timing.md "DMA"; DRAM timing in
 * docs/dram.md.  Cost: one issue event per burst plus the memories' own
 * events; a stalled engine schedules nothing until a completion or the
 * DRAM's space hook wakes it.
 */
#include "dma.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/unit.h"

/* Event kinds: the engine's only own event is the issue step; completions
 * arrive as callbacks from the memory models. */
enum { DMA_EV_ISSUE = 1 };

/* Why a stall started: STALL_OUT = max_outstanding bursts in flight,
 * STALL_FULL = a memory (the DRAM) refused a request (MEM_RETRY),
 * STALL_NET = the network interface refused one (source queue full). */
enum { STALL_NONE, STALL_OUT, STALL_FULL, STALL_NET };

/* Phase of a burst: reading the source; write refused by the DRAM and
 * queued in wq; writing the destination. */
enum { PH_READ, PH_WRITE_WAIT, PH_WRITE };

/* One burst in flight (indexed by slot). */
struct dburst {
	uint64_t src, dst;  /* byte addresses */
	uint32_t bytes;     /* length, 1 .. burst_bytes */
	uint8_t phase;      /* PH_* */
};

/* The active descriptor, canonicalised. */
struct xfer {
	int src_mem, dst_mem;   /* MEM_* */
	uint64_t src, dst;      /* bases */
	uint64_t run;           /* contiguous bytes per innermost run */
	int n;                  /* odometer dimensions (0 .. 4) */
	uint64_t cnt[4];        /* extents, innermost first */
	int64_t ss[4], ds[4];   /* byte strides */
	uint64_t idx[4];        /* odometer position */
	uint64_t off;           /* bytes of the current run already issued */
	int done;               /* every burst issued (or none to issue) */
	uint64_t total;         /* bytes of the descriptor (trace, counters) */
	uint64_t mcast;         /* destination cores of a multicast (dmask) */
	int ind_k;              /* odometer dimension walked by indices, -1 */
	int ind_dst;            /* ... on the destination side (else source) */
	const uint8_t *iv;      /* the int32 indices, little-endian */
};

struct dma {
	struct unit u;              /* must be first */
	int engine;                 /* index on its core */
	struct mem_port port[MEM_N_SPACES]; /* one per memory space, indexed
				       by enum mem_space; unbound = the
				       space is not reachable (MEM_RSPM
				       until the NoC model) */
	struct mem_info mem[MEM_N_SPACES]; /* each port's target: bytes and
				       size, read once at bind (every burst
				       copies through them) */
	struct tile_listener l;     /* who to wake */
	double clock_hz;            /* core clock in Hz, for bandwidth */
	uint32_t burst_bytes;       /* core.dma.burst_bytes */
	int max_out;                /* core.dma.max_outstanding */
	int depth;                  /* core.dma.queue_depth */
	int part_base, part_size;   /* the core's partition (dma_set_partition):
				       remote core fields and dmask bits
				       count from part_base; size 0 = the
				       whole chip */

	struct tile_cmd *q;         /* waiting descriptors, ring of 'depth' */
	int q_head, q_n;            /* ring head and count (waiting only) */
	int active;                 /* a descriptor is in progress */
	struct tile_cmd cur;        /* it */
	struct xfer x;              /* its walk */
	cycle_t cur_start;          /* cycle it started (trace span) */

	struct dburst *b;           /* bursts, max_out slots */
	uint8_t *buf;               /* staging, max_out x burst_bytes: slot k
				       holds burst k's bytes between read
				       and write completion */
	int *free_slot;             /* stack of free slot indices */
	int n_free;                 /* entries in free_slot */
	int n_out;                  /* slots in use */
	int held_read;              /* slot whose DRAM read was refused, -1 */
	int *wq;                    /* slots whose DRAM write was refused */
	int wq_head, wq_n;          /* FIFO of max_out entries */
	int space_wait;             /* a retry is asked for (mem_want_retry) */

	int issue_pending;          /* a DMA_EV_ISSUE is scheduled ... */
	cycle_t issue_at;           /* ... for this cycle */
	cycle_t last_issue;         /* cycle of the last new burst */
	int have_issued;            /* last_issue is valid */

	int stall;                  /* STALL_* */
	cycle_t stall_t0;           /* start of the open stall */
	uint64_t stall_conf0;       /* our SRAM conflict cycles at its start */
	cycle_t busy_t0;            /* start of the open busy stretch */
	int busy;                   /* a descriptor is accepted */

	int fetch;                  /* reading an indirect copy's indices */
	struct xfer xr;             /* ... the copy's own walk, meanwhile */
	uint8_t *iv;                /* the indices read (n1 x 4 bytes) */
	size_t iv_cap;              /* allocated bytes of iv */
};

static struct dma *to_dma(struct unit *u) { return (struct dma *)u; }

/* Short names used in fault messages and trace args (memspaces.def). */
static const char *mem_name(int m)
{
	const char *n = isa_mem_name((uint64_t)m);

	return n ? n : "?";
}

/* ---- faults -------------------------------------------------------------------*/

static int fault(struct dma *m, const struct tile_cmd *c, const char *fmt,
		 ...) NPU_PRINTF(3, 4);

/* "core N pc 0x.. cycle N: error: core0.dma1: descriptor #7: ..." */
static int fault(struct dma *m, const struct tile_cmd *c, const char *fmt,
		 ...)
{
	struct diag *dg = eng_diag(m->u.eng);
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!dg)
		return NPU_EFAULT;
	return diag_error(dg, diag_at_run(m->u.core, c->pc, eng_now(m->u.eng)),
			  NPU_EFAULT, "%s: descriptor #%" PRIu64 ": %s",
			  m->u.name, c->id, msg);
}

/*
 * Bytes one side of a descriptor touches: [lo, hi).  Returns 0, or -1 with
 * *dim when a stride times its extent leaves the 2^60-byte space the
 * arithmetic is exact in, or -2 when the strides reach below address 0
 * (either would wrap around the address space).
 */
static int side_extent(const struct dma_desc *dd, uint64_t base,
		       const int64_t *stride, uint64_t *lo, uint64_t *hi,
		       int *dim)
{
	/* keep every partial sum inside int64 even for 4 dimensions */
	const int64_t lim = INT64_MAX / 8;
	int64_t neg = 0, pos = 0;
	int i;

	/* Sum the negative and the positive extents apart: the lowest byte is
	 * base + neg, the highest element starts at base + pos.  Each term is
	 * at most lim = 2^60 in magnitude, so 4 of them cannot overflow. */
	for (i = 0; i < 4; i++) {
		int64_t n = (int64_t)dd->shape[i] - 1, ext;

		if (n == 0)
			continue;
		if (stride[i] > lim / n || stride[i] < -(lim / n)) {
			*dim = i;
			return -1;
		}
		ext = stride[i] * n;
		if (ext < 0)
			neg += ext;
		else
			pos += ext;
	}
	if (base > (uint64_t)lim) {
		/* far beyond any memory: report it as out of range */
		*lo = base;
		*hi = UINT64_MAX;
		return 0;
	}
	if ((int64_t)base + neg < 0)
		return -2;
	*lo = (uint64_t)((int64_t)base + neg);
	*hi = (uint64_t)((int64_t)base + pos) + dd->elem_bytes;
	return 0;
}

/*
 * Check one side of a descriptor: memory space, range, wrap.  The range is
 * the bounding box of every element, so one check covers all bursts and a
 * fault is reported before any byte moves.
 */
static int check_side(struct dma *m, const struct tile_cmd *c, int mem,
		      uint64_t base, const int64_t *stride, const char *what)
{
	const struct dma_desc *dd = &c->u.d;
	uint64_t lo, hi, size;
	int dim = -1, rc;
	char ok[64];

	if (!(isa_mem_flags((uint64_t)mem) & ISA_MS_DMA))
		return fault(m, c, "%s memory space %d is not one DMA can "
			     "address (%s)", what, mem,
			     isa_mem_list(ISA_MS_DMA, ok, sizeof(ok)));
	/* what is "source" or "destination": its first letter picks the
	 * remote core field to name. */
	if (!mem_bound(&m->port[mem]))
		return fault(m, c, "%s in another core's scratchpad (core %d): "
			     "this chip has no network to reach it; stage "
			     "through DRAM", what,
			     what[0] == 's' ? dd->src_core : dd->dst_core);
	/* a remote space names its core: it must exist (a multicast's
	 * cores were checked against dmask instead) */
	if (m->mem[mem].copies && !(what[0] == 'd' && dd->dst_mask)) {
		int core = what[0] == 's' ? dd->src_core : dd->dst_core;

		if (m->part_size && core >= 0 && core >= m->part_size)
			return fault(m, c, "%s core %d does not exist in this "
				     "core's partition (%d cores: chip cores "
				     "%d-%d)", what, core, m->part_size,
				     m->part_base,
				     m->part_base + m->part_size - 1);
		if (core < 0 || (uint32_t)core >= m->mem[mem].copies)
			return fault(m, c, "%s core %d does not exist (the "
				     "chip has %u cores: 0-%u)", what, core,
				     m->mem[mem].copies,
				     m->mem[mem].copies - 1);
	}
	rc = side_extent(dd, base, stride, &lo, &hi, &dim);
	if (rc == -1)
		return fault(m, c, "%s stride %" PRId64 " of dimension %d "
			     "(extent %u) wraps past the end of the address "
			     "space", what, stride[dim], dim, dd->shape[dim]);
	if (rc == -2)
		return fault(m, c, "%s strides wrap below address 0: base 0x%"
			     PRIx64 " minus %s", what, base,
			     "the negative strides times their extents");
	/* hi == UINT64_MAX marks a base beyond 2^60 (side_extent): print a
	 * one-byte range at the base rather than a meaningless end. */
	size = m->mem[mem].size;
	if (hi > size)
		return fault(m, c, "%s %s [0x%" PRIx64 ", 0x%" PRIx64 ") is "
			     "outside the %s [0x0, 0x%" PRIx64 ")", what,
			     mem_name(mem), lo, hi == UINT64_MAX ? lo + 1 : hi,
			     mem_name(mem), size);
	return 0;
}

/* Every fault is found when the descriptor is accepted: nothing moves. */
static int check_desc(struct dma *m, const struct tile_cmd *c)
{
	const struct dma_desc *dd = &c->u.d;
	int i, rc;

	if (dd->elem_bytes == 0)
		return fault(m, c, "element size (esize) is 0; set it with "
			     "dset esize");
	if (dd->dst_mask) {
		uint32_t n = m->mem[MEM_RSPM].copies;

		if (dd->dst_mem != MEM_RSPM)
			return fault(m, c, "dmask 0x%" PRIx64 " names a multicast, "
				     "but dmem is %s: a multicast writes to rspm "
				     "(set dmask to 0 for this copy)", dd->dst_mask,
				     mem_name(dd->dst_mem));
		if (m->part_size && m->part_size < 64 &&
		    dd->dst_mask >> m->part_size)
			return fault(m, c, "dmask 0x%" PRIx64 " names core %d, "
				     "which does not exist in this core's "
				     "partition (%d cores: chip cores %d-%d)",
				     dd->dst_mask,
				     63 - __builtin_clzll(dd->dst_mask),
				     m->part_size, m->part_base,
				     m->part_base + m->part_size - 1);
		if (n && n < 64 && dd->dst_mask >> n)
			return fault(m, c, "dmask 0x%" PRIx64 " names core %d, "
				     "which does not exist (the chip has %u cores: "
				     "0-%u)", dd->dst_mask,
				     63 - __builtin_clzll(dd->dst_mask), n, n - 1);
	}
	/* An empty transfer touches no byte, so its addresses are not
	 * checked: it completes at once whatever they are. */
	for (i = 0; i < 4; i++)
		if (dd->shape[i] == 0)
			return 0;       /* nothing to move */
	/* Overlapping elements (zero strides) let the byte count exceed any
	 * memory; past 2^48 bytes (256 TiB) it could also wrap to 0 and pass
	 * as empty, so such a descriptor faults. */
	{
		uint64_t total = dd->elem_bytes;

		for (i = 0; i < 4; i++) {
			if (total > (1ull << 48) / dd->shape[i])
				return fault(m, c, "the descriptor moves more than 2^48 bytes "
					     "(esize %u x %u x %u x %u x %u)", dd->elem_bytes,
					     dd->shape[0], dd->shape[1], dd->shape[2],
					     dd->shape[3]);
			total *= dd->shape[i];
		}
	}
	if (dd->idx_mode) {
		struct tile_cmd one = *c;
		uint64_t n = dd->shape[1], sz = m->mem[MEM_SPM].size;

		if (dd->idx_mode >= DMA_N_IDX)
			return fault(m, c, "imode: 0 (none), 1 (gather: source rows by index) or 2 (scatter: destination rows by index)");
		if (!eng_values(m->u.eng))
			return fault(m, c, "timing only: an indirect copy (dset imode) takes its row addresses from index data, which a timing-only run does not compute; run without --timing-only");
		if (dd->idx % 4 || dd->idx > sz || n * 4 > sz - dd->idx)
			return fault(m, c, "indices (dset idx) [0x%" PRIx64 ", 0x%" PRIx64 ") must be 4-byte aligned int32 inside the scratchpad [0x0, 0x%" PRIx64 ")",
				     dd->idx, dd->idx + n * 4, sz);
		/* the indexed side is checked per index once they are read
		 * (fetch_done); here its other dimensions, at row 0 */
		one.u.d.shape[1] = 1;
		rc = dd->idx_mode == DMA_IDX_GATHER ?
			check_side(m, &one, dd->src_mem, dd->src, dd->src_stride, "source") :
			check_side(m, c, dd->src_mem, dd->src, dd->src_stride, "source");
		if (rc)
			return rc;
		return dd->idx_mode == DMA_IDX_SCATTER ?
			check_side(m, &one, dd->dst_mem, dd->dst, dd->dst_stride, "destination") :
			check_side(m, c, dd->dst_mem, dd->dst, dd->dst_stride, "destination");
	}
	rc = check_side(m, c, dd->src_mem, dd->src, dd->src_stride, "source");
	if (rc)
		return rc;
	return check_side(m, c, dd->dst_mem, dd->dst, dd->dst_stride,
			  "destination");
}

/* ---- the walk -----------------------------------------------------------------------*/

/*
 * Canonicalise a checked descriptor into the odometer walk.  Dimensions of
 * extent 1 contribute no address and drop out.  Starting from one element,
 * each further innermost dimension whose source and destination strides
 * both equal the bytes gathered so far continues the contiguous run (a
 * dense 4D tile becomes a single run); the first one that does not ends
 * the folding, and it and everything outside it is walked element-run by
 * element-run.
 */
static void xfer_init(struct xfer *x, const struct dma_desc *dd, int base)
{
	int i, n = 0;

	memset(x, 0, sizeof(*x));
	x->ind_k = -1;
	x->ind_dst = dd->idx_mode == DMA_IDX_SCATTER;
	x->src_mem = dd->src_mem;
	x->dst_mem = dd->dst_mem;
	/* a remote space's core goes in the address's high bits
	 * (MEM_CORE_SHIFT); the checked offsets stay below them */
	x->src = dd->src + (dd->src_mem == MEM_RSPM ?
			    (uint64_t)(dd->src_core + base) << MEM_CORE_SHIFT : 0);
	x->dst = dd->dst + (dd->dst_mem == MEM_RSPM && !dd->dst_mask ?
			    (uint64_t)(dd->dst_core + base) << MEM_CORE_SHIFT : 0);
	x->mcast = dd->dst_mask << base;
	/* total feeds the trace, the counters and the empty test below; the
	 * checks bound it by 2^48 bytes, so it cannot wrap. */
	x->run = dd->elem_bytes;
	x->total = dd->elem_bytes;
	for (i = 0; i < 4; i++)
		x->total *= dd->shape[i];
	if (x->total == 0) {
		x->done = 1;
		return;
	}
	for (i = 0; i < 4; i++) {
		/* an indirect copy walks dimension 1 by its indices: it
		 * neither drops out nor folds into the run */
		int ind = dd->idx_mode && i == 1;

		if (dd->shape[i] == 1 && !ind)
			continue;
		/* contiguous on both sides so far: fold into the run */
		if (n == 0 && !ind && dd->src_stride[i] == (int64_t)x->run &&
		    dd->dst_stride[i] == (int64_t)x->run) {
			x->run *= dd->shape[i];
			continue;
		}
		if (ind)
			x->ind_k = n;
		x->cnt[n] = dd->shape[i];
		x->ss[n] = dd->src_stride[i];
		x->ds[n] = dd->dst_stride[i];
		n++;
	}
	x->n = n;
}

/* Addresses of the current run: bases plus index x stride per dimension
 * (strides may be negative; the bounding-box check made this exact). */
static void xfer_run(const struct xfer *x, uint64_t *s, uint64_t *d)
{
	int64_t so = 0, dof = 0;
	int i;

	for (i = 0; i < x->n; i++) {
		int64_t s_at = (int64_t)x->idx[i], d_at = (int64_t)x->idx[i];

		if (i == x->ind_k) {
			/* the row's index, as read (fetch_done checked it) */
			const uint8_t *p = x->iv + 4 * x->idx[i];
			int64_t v = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
					      (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);

			if (x->ind_dst)
				d_at = v;
			else
				s_at = v;
		}
		so += s_at * x->ss[i];
		dof += d_at * x->ds[i];
	}
	*s = (uint64_t)((int64_t)x->src + so);
	*d = (uint64_t)((int64_t)x->dst + dof);
}

/*
 * Next burst of the walk: addresses and length; advances the walk.  A
 * burst ends at the end of its run (contiguity boundary) or at the next
 * multiple of burst_bytes of the aligning address, whichever comes first,
 * so an unaligned run costs one short burst at its head and, at most, one
 * at its tail.
 */
static void xfer_next(struct xfer *x, uint32_t burst, struct dburst *b)
{
	uint64_t s, d, align, len;
	int i;

	/* Recomputed per burst (n <= 4 multiply-adds) instead of kept
	 * incrementally: simpler, and negative strides need no care. */
	xfer_run(x, &s, &d);
	s += x->off;
	d += x->off;
	/* align bursts on the DRAM side so they match DRAM bursts */
	align = x->dst_mem == MEM_DRAM && x->src_mem != MEM_DRAM ? d : s;
	len = burst - align % burst;
	if (len > x->run - x->off)
		len = x->run - x->off;
	b->src = s;
	b->dst = d;
	b->bytes = (uint32_t)len;
	x->off += len;
	if (x->off < x->run)
		return;
	/* Run finished: advance the odometer, innermost first; carrying out
	 * of the outermost dimension (or having none) ends the walk. */
	x->off = 0;
	for (i = 0; i < x->n; i++) {
		if (++x->idx[i] < x->cnt[i])
			return;
		x->idx[i] = 0;
	}
	x->done = 1;
}

/* ---- issue ---------------------------------------------------------------------------*/

/* Make sure an issue step runs at 'when' (one pending step at a time;
 * a request for a later cycle than the pending one is already covered,
 * because each step re-arms itself while it has work). */
static int kick(struct dma *m, cycle_t when)
{
	if (m->issue_pending && m->issue_at <= when)
		return 0;
	m->issue_pending = 1;
	m->issue_at = when;
	return eng_schedule(m->u.eng, when, EV_PRI_ISSUE, &m->u, DMA_EV_ISSUE,
			    0);
}

/* Tell the control unit (tile.h's tile_notify contract, done in place):
 * a WAKE in the current cycle, so it can dispatch into the freed queue
 * slot or pass a sig/fence in this same cycle. */
static int notify(struct dma *m)
{
	if (!m->l.unit)
		return 0;
	return eng_schedule(m->u.eng, eng_now(m->u.eng), EV_PRI_WAKE, m->l.unit,
			    m->l.kind, 0);
}

/* Cycles our accesses lost bank arbitration so far, in both memories
 * (the memories count them per requestor, cycle by cycle). */
static uint64_t conflicts(const struct dma *m)
{
	uint64_t n = 0;
	int i;

	/* Targets without an arbiter (DRAM) report 0. */
	for (i = 0; i < MEM_N_SPACES; i++)
		if (mem_bound(&m->port[i]))
			n += mem_conflicts(&m->port[i]);
	return n;
}

/* The stall reason of a refusal by the memory of 'space'. */
static int refused(const struct dma *m, int space)
{
	return m->mem[space].network ? STALL_NET : STALL_FULL;
}

/* Open a stall interval unless one is open (the first reason sticks:
 * an interval is charged once, when it ends). */
static void stall_begin(struct dma *m, int why)
{
	if (m->stall != STALL_NONE)
		return;
	m->stall = why;
	m->stall_t0 = eng_now(m->u.eng);
	m->stall_conf0 = conflicts(m);
}

/*
 * End the open stall now.  Refused DRAM requests are DRAM stalls.  A stall
 * on the outstanding limit is SRAM for the cycles our SRAM accesses lost
 * bank arbitration meanwhile, and the rest is waiting for DRAM if the
 * descriptor touches DRAM, else for SRAM (latency of its accesses).
 */
static void stall_end(struct dma *m)
{
	uint64_t len, sram_part;
	int dram_side;

	if (m->stall == STALL_NONE)
		return;
	len = eng_now(m->u.eng) - m->stall_t0;
	/* DRAM latency explains an outstanding-limit stall only if the
	 * descriptor has a DRAM side at all. */
	dram_side = m->x.src_mem == MEM_DRAM || m->x.dst_mem == MEM_DRAM;
	if (m->stall == STALL_FULL) {
		m->u.ctr[CTR_DMA_STALL_DRAM] += len;
	} else if (m->stall == STALL_NET) {
		m->u.ctr[CTR_DMA_STALL_NOC] += len;
	} else {
		/* Conflict cycles were counted per memory, so an access
		 * losing in both memories in one cycle counts twice: clamp
		 * to the stall's length so the reasons still sum to it. */
		sram_part = conflicts(m) - m->stall_conf0;
		if (sram_part > len)
			sram_part = len;
		m->u.ctr[CTR_DMA_STALL_SRAM] += sram_part;
		/* the rest waits on the far side: DRAM, another core's
		 * scratchpad over the network, or the local SRAM's latency */
		if (dram_side)
			m->u.ctr[CTR_DMA_STALL_DRAM] += len - sram_part;
		else if (m->x.src_mem == MEM_RSPM || m->x.dst_mem == MEM_RSPM)
			m->u.ctr[CTR_DMA_STALL_NOC] += len - sram_part;
		else
			m->u.ctr[CTR_DMA_STALL_SRAM] += len - sram_part;
	}
	m->u.ctr[CTR_DMA_STALL_CYCLES] += len;
	m->stall = STALL_NONE;
}

static int on_read(void *ctx, uint64_t tag, cycle_t when);
static int on_write(void *ctx, uint64_t tag, cycle_t when);

/* Ask the memory of 'space' for a retry once it has room (one-shot; the
 * flag keeps one registration at a time however many requests wait).
 * Only a refusing target (the DRAM today) is ever asked. */
static int wait_space(struct dma *m, int space)
{
	if (m->space_wait)
		return 0;
	m->space_wait = 1;
	return mem_want_retry(&m->port[space]);
}

/*
 * Send one burst's read or write through the port of 'space'.  Returns
 * 1 if the target refused it (MEM_RETRY), else 0 or NPU_E*.  An SRAM
 * access competes for banks from this cycle on, like every other
 * requestor's; a DRAM one enters the channel queues.  tag = slot index:
 * the completion callback finds its burst by it.
 */
static int send(struct dma *m, int space, uint64_t addr, int k, int write)
{
	struct mem_req r;

	r.addr = addr;
	r.bytes = m->b[k].bytes;
	r.write = (uint8_t)write;
	r.when = eng_now(m->u.eng);
	r.done = write ? on_write : on_read;
	r.ctx = m;
	r.tag = (uint64_t)k;
	r.mcast = write ? m->x.mcast : 0;
	return mem_send(&m->port[space], &r);
}

/* Issue the read of slot k; 1 if the target refused it. */
static int issue_read(struct dma *m, int k)
{
	m->b[k].phase = PH_READ;
	return send(m, m->x.src_mem, m->b[k].src, k, 0);
}

/* Issue the write of slot k; 1 if the target refused it. */
static int issue_write(struct dma *m, int k)
{
	int rc;

	m->b[k].phase = PH_WRITE;
	rc = send(m, m->x.dst_mem, m->b[k].dst, k, 1);
	if (rc == MEM_RETRY)
		m->b[k].phase = PH_WRITE_WAIT;
	return rc;
}

/* Queue a refused write (FIFO: writes go to memory in burst order). */
static int defer_write(struct dma *m, int k)
{
	/* Cannot overflow: at most max_out slots exist, each queued once. */
	m->wq[(m->wq_head + m->wq_n) % m->max_out] = k;
	m->wq_n++;
	return wait_space(m, m->x.dst_mem);
}

/* Retry refused writes in order; stops at the first refusal. */
static int drain_writes(struct dma *m)
{
	while (m->wq_n > 0) {
		int k = m->wq[m->wq_head], rc = issue_write(m, k);

		if (rc == 1)
			return wait_space(m, m->x.dst_mem);
		if (rc)
			return rc;
		m->wq_head = (m->wq_head + 1) % m->max_out;
		m->wq_n--;
	}
	return 0;
}

/*
 * Start the next waiting descriptor, if any.  Only when the previous one
 * has written its last byte: strict order per engine is what lets a
 * program chain "DRAM -> spm" and "spm -> DRAM" on one engine without a
 * semaphore, at the price of a latency bubble between descriptors (use
 * two engines to overlap).
 */
static void start_next(struct dma *m)
{
	cycle_t now = eng_now(m->u.eng);

	if (m->active || m->q_n == 0)
		return;
	/* Copy out of the ring: the slot may be reused by the next accept
	 * while this descriptor runs. */
	m->cur = m->q[m->q_head];
	m->q_head = (m->q_head + 1) % m->depth;
	m->q_n--;
	m->active = 1;
	m->cur_start = now;
	xfer_init(&m->x, &m->cur.u.d, m->part_base);
	if (m->cur.u.d.idx_mode && !m->x.done) {
		/*
		 * An indirect copy first reads its n1 indices from the
		 * scratchpad, in bursts like any read (they compete for the
		 * banks); its rows start once every index is in.
		 */
		uint64_t n = (uint64_t)m->cur.u.d.shape[1] * 4;

		if (n > m->iv_cap) {
			uint8_t *p = realloc(m->iv, n);

			if (!p) {
				m->fetch = -1; /* reported by issue_step */
				return;
			}
			m->iv = p;
			m->iv_cap = n;
		}
		m->xr = m->x;
		m->xr.iv = m->iv;
		memset(&m->x, 0, sizeof(m->x));
		m->x.ind_k = -1;
		m->x.src_mem = MEM_SPM;
		m->x.dst_mem = MEM_SPM;
		m->x.src = m->cur.u.d.idx;
		m->x.run = n;
		m->x.total = n;
		m->fetch = 1;
	}
}

/*
 * Every index of an indirect copy is in: each row it names must lie inside
 * the indexed side's memory (the same bounding-box check as at accept,
 * with dimension 1 at that row); then the copy's own walk starts.
 */
static int fetch_done(struct dma *m)
{
	const struct dma_desc *dd = &m->cur.u.d;
	struct tile_cmd one = m->cur;
	int gather = dd->idx_mode == DMA_IDX_GATHER;
	uint64_t i;
	int rc;

	one.u.d.shape[1] = 1;
	for (i = 0; i < dd->shape[1]; i++) {
		const uint8_t *p = m->iv + 4 * i;
		int64_t v = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				      (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		int64_t st = gather ? dd->src_stride[1] : dd->dst_stride[1];
		int64_t base = (int64_t)(gather ? dd->src : dd->dst) + v * st;

		if (base < 0)
			return fault(m, &m->cur, "index %" PRId64 " (row %" PRIu64 ") puts the %s below address 0",
				     v, i, gather ? "source" : "destination");
		if (gather)
			one.u.d.src = (uint64_t)base;
		else
			one.u.d.dst = (uint64_t)base;
		rc = gather ? check_side(m, &one, dd->src_mem, one.u.d.src, dd->src_stride, "source")
			    : check_side(m, &one, dd->dst_mem, one.u.d.dst, dd->dst_stride, "destination");
		if (rc)
			return rc;
	}
	m->x = m->xr;
	m->fetch = 0;
	return kick(m, eng_now(m->u.eng));
}

/* Bytes by direction: SRAM means the local scratchpad or accumulator. */
static void count_bytes(struct dma *m, uint64_t n)
{
	int s = m->x.src_mem == MEM_DRAM, d = m->x.dst_mem == MEM_DRAM;

	if (s && d)
		m->u.ctr[CTR_DMA_BYTES_DRAM_TO_DRAM] += n;
	else if (s)
		m->u.ctr[CTR_DMA_BYTES_DRAM_TO_SRAM] += n;
	else if (d)
		m->u.ctr[CTR_DMA_BYTES_SRAM_TO_DRAM] += n;
	else
		m->u.ctr[CTR_DMA_BYTES_SRAM_TO_SRAM] += n;
}

/*
 * The active descriptor has moved its last byte: one trace span for it,
 * the transfer counted, busy time closed if nothing waits, the next one
 * started in the same cycle, and the control unit told (a queue slot
 * freed and a command finished, both in one notification).
 */
static int finish(struct dma *m)
{
	cycle_t now = eng_now(m->u.eng);
	char args[200];
	struct unit_insn ui = { m->cur.pc, m->cur.sym, m->cur.id,
				UNIT_FLOW_IN, m->cur.issued };

	/* An engine works on one descriptor at a time, so its transfers
	 * never overlap: complete slices on the engine's own track read
	 * better than async slices and carry the flow from dispatch. */
	if (unit_traced(&m->u, m->cur_start, now)) {
		snprintf(args, sizeof(args),
			 "\"bytes\":%" PRIu64 ",\"from\":\"%s 0x%" PRIx64
			 "\",\"to\":\"%s 0x%" PRIx64 "\"", m->x.total,
			 mem_name(m->x.src_mem), m->cur.u.d.src,
			 mem_name(m->x.dst_mem), m->cur.u.d.dst);
		unit_span_insn(&m->u, m->cur_start, now,
			       isa_op_info[m->cur.op].name, args, &ui);
	}
	m->u.ctr[CTR_DMA_TRANSFERS]++;
	m->active = 0;
	/* busy_cycles counts stretches with any descriptor accepted, so
	 * back-to-back descriptors form one stretch, closed when the queue
	 * runs dry. */
	if (m->q_n == 0) {
		m->busy = 0;
		m->u.ctr[CTR_DMA_BUSY_CYCLES] += now - m->busy_t0;
	}
	start_next(m);
	if (m->active) {
		int rc = kick(m, now);

		if (rc)
			return rc;
	}
	return notify(m);
}

/*
 * One issue step: refused writes first, then the refused head read, then
 * (at most one per cycle) a new burst.
 */
static int issue_step(struct dma *m)
{
	cycle_t now = eng_now(m->u.eng);
	int k, rc;

	m->issue_pending = 0;
	/* Writes first: they free slots and hold DRAM order; a read issued
	 * ahead of them could take the DRAM queue space they wait for. */
	rc = drain_writes(m);
	if (rc)
		return rc;
	if (!m->active)
		start_next(m);
	if (!m->active)
		return 0;
	if (m->fetch < 0)
		return NPU_ENOMEM;            /* no room for the indices */
	if (m->x.done && m->held_read < 0) {
		if (m->n_out == 0 && !m->fetch)
			return finish(m);     /* an empty descriptor */
		return 0;                     /* draining */
	}
	/* A completion can kick a second step in a cycle that already issued. */
	if (m->have_issued && m->last_issue == now)
		return kick(m, now + 1);      /* one new burst per cycle */
	if (m->held_read >= 0) {
		k = m->held_read;
		rc = issue_read(m, k);
		if (rc == 1) {
			stall_begin(m, refused(m, m->x.src_mem));
			return wait_space(m, m->x.src_mem);
		}
		if (rc)
			return rc;
		/* The held burst was counted in requests when first tried. */
		m->held_read = -1;
	} else {
		if (m->n_out == m->max_out) {
			stall_begin(m, STALL_OUT);
			return 0;             /* a completion kicks us */
		}
		k = m->free_slot[--m->n_free];
		m->n_out++;
		xfer_next(&m->x, m->burst_bytes, &m->b[k]);
		m->u.ctr[CTR_DMA_REQUESTS]++;
		rc = issue_read(m, k);
		if (rc == 1) {
			m->held_read = k;
			stall_begin(m, refused(m, m->x.src_mem));
			return wait_space(m, m->x.src_mem);
		}
		if (rc)
			return rc;
	}
	/* A burst left: whatever held the engine back is over. */
	stall_end(m);
	m->last_issue = now;
	m->have_issued = 1;
	if (!m->x.done)
		return kick(m, now + 1);
	return 0;
}

/* ---- completions ------------------------------------------------------------------*/

/*
 * The read of slot k completed: stage its bytes (the source is read now,
 * not at issue, so a write to the source by another unit before this cycle
 * is seen), then issue its write in the same cycle.  DRAM writes leave in
 * burst order: if earlier ones wait for queue space, this one queues too.
 */
static int read_done(struct dma *m, int k)
{
	struct dburst *b = &m->b[k];
	int rc;

	if (m->fetch) {
		/* an index burst: into the index buffer, no write */
		memcpy(m->iv + (b->src - m->cur.u.d.idx),
		       mem_bytes(&m->port[MEM_SPM], &m->mem[MEM_SPM], b->src),
		       b->bytes);
		m->free_slot[m->n_free++] = k;
		m->n_out--;
		if (m->x.done && m->held_read < 0 && m->n_out == 0)
			return fetch_done(m);
		if (m->stall == STALL_OUT)
			return kick(m, eng_now(m->u.eng));
		return 0;
	}
	if (eng_values(m->u.eng))
		memcpy(m->buf + (size_t)k * m->burst_bytes,
		       mem_bytes(&m->port[m->x.src_mem], &m->mem[m->x.src_mem], b->src),
		       b->bytes);
	if (m->wq_n > 0)
		return defer_write(m, k);     /* keep DRAM writes in order */
	rc = issue_write(m, k);
	if (rc == 1)
		return defer_write(m, k);
	return rc;
}

/*
 * The write of slot k completed: the bytes land in the destination now
 * (readers before this cycle see the old contents), the slot frees, and an
 * engine stalled on the outstanding limit may issue again this cycle.
 */
static int write_done(struct dma *m, int k)
{
	struct dburst *b = &m->b[k];
	cycle_t now = eng_now(m->u.eng);

	if (!eng_values(m->u.eng)) {
		/* timing only: no bytes move */
	} else if (m->x.mcast) {
		/* every destination core's copy at the same offset */
		uint64_t mask = m->x.mcast;

		while (mask) {
			uint64_t core = (uint64_t)__builtin_ctzll(mask);

			mask &= mask - 1;
			memcpy(mem_bytes(&m->port[MEM_RSPM], &m->mem[MEM_RSPM],
					 core << MEM_CORE_SHIFT | b->dst),
			       m->buf + (size_t)k * m->burst_bytes, b->bytes);
		}
	} else {
		memcpy(mem_bytes(&m->port[m->x.dst_mem], &m->mem[m->x.dst_mem],
				 b->dst),
		       m->buf + (size_t)k * m->burst_bytes, b->bytes);
	}
	count_bytes(m, b->bytes);
	m->free_slot[m->n_free++] = k;
	m->n_out--;
	if (m->x.done && m->held_read < 0 && m->n_out == 0)
		return finish(m);
	if (m->stall == STALL_OUT)
		return kick(m, now);
	return 0;
}

/* Memory completions (ctx = the engine, tag = slot).  The engine's clock
 * is already at the completion cycle, so 'when' is not needed. */
static int on_read(void *ctx, uint64_t tag, cycle_t when)
{
	(void)when;
	return read_done(ctx, (int)tag);
}

static int on_write(void *ctx, uint64_t tag, cycle_t when)
{
	(void)when;
	return write_done(ctx, (int)tag);
}

/* A refusing memory has room again: re-run the issue step, which retries
 * the refused writes in order and then the held read. */
static int space_retry(void *ctx, cycle_t when)
{
	struct dma *m = ctx;

	m->space_wait = 0;
	return kick(m, when);
}

/* ---- xu_port ---------------------------------------------------------------------*/

/* The queue holds queue_depth descriptors, the running one included. */
static int dma_can_accept(const struct unit *u)
{
	const struct dma *m = (const struct dma *)u;

	return m->q_n + m->active < m->depth;
}

/*
 * Accept a descriptor at the current cycle.  Every fault is detected here,
 * so the control unit sees it at dispatch with the instruction's pc; a
 * valid descriptor starts (at the earliest) in this cycle's issue step.
 */
static int dma_accept(struct unit *u, const struct tile_cmd *cmd)
{
	struct dma *m = to_dma(u);
	int rc;

	if (!dma_can_accept(u))
		return NPU_EINTERNAL;   /* control checks can_accept first */
	rc = check_desc(m, cmd);
	if (rc)
		return rc;
	/* The descriptor is copied: the control unit's queue slot is reused
	 * as soon as this returns. */
	m->q[(m->q_head + m->q_n) % m->depth] = *cmd;
	m->q_n++;
	if (!m->busy) {
		m->busy = 1;
		m->busy_t0 = eng_now(u->eng);
	}
	/* Accepted from a WAKE or CONTROL event, the ISSUE event of this cycle
	 * runs after it; an SRAM read it issues then competes from the next
	 * cycle's arbitration if this cycle's has passed (docs/memory.md,
	 * rule 4). */
	return kick(m, eng_now(u->eng));
}

/* Idle = every accepted descriptor has written its last byte (what sig
 * and fence wait for). */
static int dma_idle(const struct unit *u)
{
	const struct dma *m = (const struct dma *)u;

	return !m->busy;
}

const struct xu_port dma_port = {
	.can_accept = dma_can_accept,
	.accept = dma_accept,
	.idle = dma_idle,
};

/* ---- unit ops ---------------------------------------------------------------------*/

/* The only event is the issue step; anything else is a simulator bug. */
static int dma_event(struct unit *u, const struct ev *ev)
{
	if (ev->kind != DMA_EV_ISSUE)
		return NPU_EINTERNAL;
	return issue_step(to_dma(u));
}

/* Deadlock report: an engine with work left but no pending event is
 * waiting on a memory that will never answer (a model bug) or on DRAM
 * space that never frees. */
static int dma_blocked(const struct unit *u, char *buf, size_t n)
{
	const struct dma *m = (const struct dma *)u;

	if (!m->busy)
		return 0;
	snprintf(buf, n, "descriptor #%" PRIu64 " (pc 0x%" PRIx64 ") has %d "
		 "bursts in flight, %d waiting for DRAM space",
		 m->cur.id, m->cur.pc, m->n_out,
		 m->wq_n + (m->held_read >= 0));
	return 1;
}

void dma_set_partition(struct unit *u, int base, int size)
{
	struct dma *m = (struct dma *)u;

	m->part_base = base;
	m->part_size = size;
}

/* Achieved bandwidth while busy: bytes moved (all directions) per busy
 * cycle, times the core clock. */
double dma_bandwidth(const struct unit *u)
{
	const struct dma *m = (const struct dma *)u;
	const uint64_t *c = u->ctr;
	uint64_t bytes = c[CTR_DMA_BYTES_DRAM_TO_SRAM] +
			 c[CTR_DMA_BYTES_SRAM_TO_DRAM] +
			 c[CTR_DMA_BYTES_SRAM_TO_SRAM] +
			 c[CTR_DMA_BYTES_DRAM_TO_DRAM];

	if (c[CTR_DMA_BUSY_CYCLES] == 0)
		return 0;
	return (double)bytes / (double)c[CTR_DMA_BUSY_CYCLES] * m->clock_hz;
}

/* Extra dump row: bandwidth in GB/s (1e9 bytes/s), a derived float. */
static void dma_dump(const struct unit *u, struct ctr_sink *s)
{
	ctr_emit_f64(s, u->name, "bandwidth_gbps", dma_bandwidth(u) / 1e9);
}

static void dma_destroy(struct unit *u)
{
	struct dma *m = to_dma(u);

	free(m->q);
	free(m->b);
	free(m->buf);
	free(m->iv);
	free(m->free_slot);
	free(m->wq);
	free(m);
}

static const struct unit_ops dma_ops = {
	.kind = UNIT_DMA,
	.on_event = dma_event,
	.blocked = dma_blocked,
	.dump = dma_dump,
	.destroy = dma_destroy,
};

/*
 * The engine registers as requestor "dma<engine>" of both memories; the
 * chip creates matrix, vector, then the DMA engines, so with fixed-priority
 * arbitration the DMA engines rank last (docs/config.md).
 */
struct unit *dma_new(eng *e, const struct arch *a, int core, int engine,
		     const struct mem_target mems[MEM_N_SPACES],
		     const struct tile_listener *l)
{
	struct dma *m = calloc(1, sizeof(*m));
	char name[16];
	int i;

	if (!m)
		return NULL;
	unit_init(&m->u, &dma_ops, e, core, "core%d.dma%d", core, engine);
	m->u.index = engine; /* trace track: dma<engine> */
	m->engine = engine;
	if (l)
		m->l = *l;
	m->clock_hz = arch_clock_hz(a);
	m->burst_bytes = (uint32_t)ARCH_I(a, DMA_BURST);
	m->max_out = (int)ARCH_I(a, DMA_OUTSTANDING);
	m->depth = (int)ARCH_I(a, DMA_QUEUE_DEPTH);
	m->held_read = -1;
	m->q = calloc((size_t)m->depth, sizeof(*m->q));
	m->b = calloc((size_t)m->max_out, sizeof(*m->b));
	m->buf = malloc((size_t)m->max_out * m->burst_bytes);
	m->free_slot = malloc((size_t)m->max_out * sizeof(*m->free_slot));
	m->wq = malloc((size_t)m->max_out * sizeof(*m->wq));
	if (!m->q || !m->b || !m->buf || !m->free_slot || !m->wq)
		goto fail;
	/* slots are handed out lowest first (free_slot is a stack, so the
	 * lowest index sits on top): deterministic slot reuse */
	for (i = 0; i < m->max_out; i++)
		m->free_slot[i] = m->max_out - 1 - i;
	m->n_free = m->max_out;
	snprintf(name, sizeof(name), "dma%d", engine);
	/* Bound in space order (DRAM, SPM, ACC, ...): on each SRAM the engine
	 * registers after the matrix and vector units. */
	for (i = 0; i < MEM_N_SPACES; i++) {
		if (mem_bind(&m->port[i], mems[i], name, space_retry, m))
			goto fail;
		mem_info(&m->port[i], &m->mem[i]);
	}
	if (eng_add_unit(e, &m->u))
		goto fail;
	return &m->u;
fail:
	dma_destroy(&m->u);
	return NULL;
}
