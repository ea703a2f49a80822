/*
 * control.c - the per-core control unit (scalar core and dispatcher).
 * Its program regions are in control_region.c, its deadlock report in
 * control_report.c; the state they share is control_int.h's struct ctl.
 *
 * Timing model (docs/timing.md, "Control unit"):
 *   - In-order, single issue: at most one instruction issues per cycle.
 *   - An instruction issues when its source registers are ready (a
 *     scoreboard of ready cycles per register); its result is ready
 *     'latency' cycles after issue (alu/mul/div/mem latencies from config).
 *   - A taken branch or jump delays the next issue to issue +
 *     branch_latency; a not-taken branch costs one issue slot.
 *   - mset/vset/dset write configuration registers in one issue slot.
 *   - A tile instruction is appended to its unit's queue (depth
 *     core.control.queue_depth) and becomes visible to the unit
 *     dispatch_latency cycles later; when the queue is full the control
 *     unit stalls (stall_queue_full_cycles) until an entry leaves.
 *   - sig/wait on a unit are queue entries too: the unit's queue head
 *     'sig' fires when the unit is idle, a head 'wait' passes when the
 *     semaphore is large enough.  wait on ctl stalls the control unit
 *     (stall_sem_wait_cycles); fence stalls until the masked units are
 *     drained (stall_fence_cycles); barrier until every core arrived.
 *
 * Cost: scalar instructions run in a tight loop on a local clock without
 * events; an event is scheduled only where the control unit meets the rest
 * of the chip (a tile or sync instruction, a stall, or every CTL_BATCH
 * scalar instructions so that the cycle watchdog stays responsive).
 *
 * Invariants:
 *  - Two clocks.  The engine clock (eng_now) is "now"; the local clock t
 *    of ctl_run may run ahead of it through scalar and configuration
 *    instructions, which touch only this unit's private state.  Anything
 *    another unit can observe (a queue entry, a semaphore, a barrier, an
 *    rsig) executes only when the operands-ready cycle equals now, so the
 *    chip never sees an effect before its simulated cycle.
 *  - Values are computed at issue; ready[r] alone carries the latency.
 *    Scalar and configuration instructions run through exec_<ID>, the
 *    handlers of a dispatch table expanded from isa/opcodes.def; the
 *    row's latency class picks the latency (ctl_latency).
 *    x[0] is never written (ctl_set_reg drops it), so it always reads 0.
 *  - Each unit queue is FIFO and ready cycles never decrease along it
 *    (now only grows and dispatch_latency is fixed), so looking at the
 *    head alone is enough to know whether anything can leave.
 *  - st names exactly one reason at a time; a stall's cycles are charged
 *    once, to that reason's counter, when it ends (ctl_unstall), so the
 *    stall counters add up to stall_cycles.
 *  - At most one STEP event is live (step_gen cancels older ones) and at
 *    most one WAKE per cycle is scheduled by the unit itself (wake_at).
 *  - Unit ids (ISA names.def): 0 = ctl, 1 = mtx, 2 = vec, 3 + k = dma<k>;
 *    queue xq[i] belongs to unit id i + 1 (ctl has no queue).
 *  - Markers (unit mark: rbeg/rend) take no issue slot and retire
 *    nothing: the next instruction issues at the cycle it would have
 *    without them.  They act when the engine's clock reaches the local
 *    one (like a world instruction), so that a region boundary sees
 *    every counter bumped before it in the event order and none after
 *    (docs/timing.md, "Regions").
 */
#include "control_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../trace/trace.h"
#include "../../util/dtype.h"
#include "hazard.h"

/*
 * Scalar instructions run per event at most (watchdog responsiveness).
 * The max_cycles test inside ctl_run already stops a runaway loop at the
 * right cycle; the batch bounds the host work done in one event, so that a
 * loop of pure scalar code still returns to the engine every 1024
 * instructions (about 1024 simulated cycles at one instruction a cycle).
 */
#define CTL_BATCH 1024

/* Event kinds the control unit receives (struct ev.kind). */
enum ctl_ev {
	CTL_EV_STEP,  /* issue the next instruction(s) */
	CTL_EV_WAKE,  /* a unit changed state or a queue entry became ready */
	CTL_EV_RSIG,  /* a remote signal arrives: arg = semaphore */
};



/* ---- queues ---------------------------------------------------------------*/

/* Oldest entry of a non-empty queue. */
static struct qent *xq_head(struct xq *q) { return &q->q[q->head]; }

static void xq_pop(struct xq *q)
{
	q->head = (q->head + 1) % q->cap;
	q->n--;
}


/*
 * Schedule a WAKE at cycle t unless one is already scheduled for it.  Only
 * the latest scheduled cycle is remembered: a second request for an earlier
 * cycle still schedules, so at worst a WAKE is duplicated, never lost (a
 * spurious WAKE just pumps queues that cannot move).
 */
static int ctl_wake_at(struct ctl *c, cycle_t t)
{
	if (c->wake_valid && c->wake_at == t)
		return 0;
	c->wake_valid = 1;
	c->wake_at = t;
	return eng_schedule(c->u.eng, t, EV_PRI_WAKE, &c->u, CTL_EV_WAKE, 0);
}

/*
 * Move queue heads into their units as far as each allows.  Repeats until
 * nothing moves, because a sig that fires can release a wait in another
 * queue.  *moved tells the caller whether any entry left a queue.
 */
static int ctl_pump(struct ctl *c, int *moved)
{
	cycle_t now = eng_now(c->u.eng);
	int progress, i, rc;

	*moved = 0;
	do {
		progress = 0;
		for (i = 0; i < c->n_xq; i++) {
			struct xq *q = &c->xq[i];

			while (q->n > 0) {
				struct qent *e = xq_head(q);

				/* Still inside dispatch_latency: come back
				 * when it becomes visible; entries behind it
				 * are younger, so none can be ready earlier. */
				if (e->ready > now) {
					rc = ctl_wake_at(c, e->ready);
					if (rc)
						return rc;
					break;
				}
				if (e->kind == Q_CMD) {
					if (!q->xu.port->can_accept(q->xu.u))
						break;
					/* The unit checks the command first: one
					 * that faults is never walked by the
					 * hazard checker. */
					rc = q->xu.port->accept(q->xu.u, &e->cmd);
					if (rc)
						return rc;
					if (c->hz)
						hz_on_start(c->hz, c->core, i + 1,
							    &e->cmd, now);
				} else if (e->kind == Q_SIG) {
					/* A unit sig fires only once every
					 * earlier command of the unit has
					 * fully completed (ISA "sig"). */
					if (!q->xu.port->idle(q->xu.u))
						break;
					c->sem[e->sem]++;
					if (c->hz)
						hz_on_signal(c->hz, c->core, i + 1,
							     e->sem, now);
				} else {
					/* Q_WAIT: all-or-nothing, the count
					 * is taken in one step, never in part. */
					if (c->sem[e->sem] < e->cnt)
						break;
					c->sem[e->sem] -= e->cnt;
					if (c->hz)
						hz_on_wait(c->hz, c->core, i + 1,
							   e->sem, now);
				}
				xq_pop(q);
				progress = 1;
				*moved = 1;
			}
		}
	} while (progress);
	return 0;
}

/* ---- stalls ---------------------------------------------------------------*/

/* The counter each stall reason is charged to (docs/counters.md). */
static const enum ctr_id stall_ctr[] = {
	[ST_STALL_QUEUE] = CTR_CONTROL_STALL_QUEUE,
	[ST_STALL_SEM] = CTR_CONTROL_STALL_SEM,
	[ST_STALL_FENCE] = CTR_CONTROL_STALL_FENCE,
	[ST_STALL_BARRIER] = CTR_CONTROL_STALL_BARRIER,
};

/* Enter a stall at the engine's cycle: stalls only start on instructions
 * that meet the world, which issue at now (see the file header). */
static void ctl_stall(struct ctl *c, enum ctl_state why)
{
	c->st = why;
	c->stall_start = eng_now(c->u.eng);
}

/* End a stall at the current cycle, charging it to its reason. */
static void ctl_unstall(struct ctl *c)
{
	cycle_t now = eng_now(c->u.eng), d = now - c->stall_start;

	/* A zero-length stall (ended in the cycle it began) leaves no span. */
	if (d && eng_trace(c->u.eng)) {
		/* The timeline shows what the control unit waited on. */
		char name[48], args[64];

		/* "stall: ..." tells a stall from the instruction slices
		 * (named by mnemonic) on the same track. */
		switch (c->st) {
		case ST_STALL_QUEUE:
			snprintf(name, sizeof(name), "stall: queue full %s", c->xq[c->stall_xq].name);
			break;
		case ST_STALL_SEM:
			snprintf(name, sizeof(name), "stall: wait sem %d", c->stall_sem);
			break;
		case ST_STALL_FENCE:
			snprintf(name, sizeof(name), "stall: fence");
			break;
		default:
			snprintf(name, sizeof(name), "stall: barrier");
			break;
		}
		/* A barrier retired on arrival: pc is already past it. */
		snprintf(args, sizeof(args), "\"pc\":\"0x%" PRIx64 "\"",
			 c->st == ST_STALL_BARRIER ? c->pc - 4 : c->pc);
		unit_span(&c->u, c->stall_start, now, name, args);
	}
	c->u.ctr[stall_ctr[c->st]] += d;
	c->u.ctr[CTR_CONTROL_STALL_CYCLES] += d;
	c->st = ST_RUN;
}

/* Would the current stall end now? */
static int ctl_stall_over(const struct ctl *c)
{
	int i;

	switch (c->st) {
	case ST_STALL_QUEUE:
		return c->xq[c->stall_xq].n < c->xq[c->stall_xq].cap;
	case ST_STALL_SEM:
		return c->sem[c->stall_sem] >= (uint32_t)c->stall_cnt;
	case ST_STALL_FENCE:
		/* The fence mask is 24 bits: bit i = unit id i for ids 0..22,
		 * bit 23 stands for every unit id >= 23 (dma20 and later), so
		 * a fence can name any number of DMA engines (ISA "fence").
		 * Bit 0 (ctl) needs no test: the control unit is here. */
		for (i = 0; i < c->n_xq; i++)
			if (isa_fence_covers(c->stall_mask, (unsigned)i + 1) &&
			    !xq_drained(&c->xq[i]))
				return 0;
		return 1;
	case ST_STALL_BARRIER:
		return !c->barrier_wait;
	default: /* ST_RUN, ST_HALTED, ST_DONE: not a stall */
		return 0;
	}
}


/* After halt: finished when every queue is empty and every unit idle. */
static void ctl_check_done(struct ctl *c)
{
	int i;

	if (c->st != ST_HALTED)
		return;
	for (i = 0; i < c->n_xq; i++)
		if (!xq_drained(&c->xq[i]))
			return;
	c->st = ST_DONE;
	/* The halt itself occupies its issue cycle: a core whose units were
	 * already idle finishes at halt issue + 1 (docs/timing.md, "halt"). */
	c->finish = eng_now(c->u.eng) > c->halt_end ? eng_now(c->u.eng) : c->halt_end;
	/* Regions still open close where the core finished. */
	ctl_region_close_all(c, c->finish);
	c->sync.ops->core_finished(c->sync.ctx, c->core);
}


/* ---- dispatch -------------------------------------------------------------*/

/*
 * Append an entry to queue qi at the current cycle.  Returns 1 if the queue
 * is full (the caller stalls), 0 when queued, or NPU_E*.  The entry becomes
 * visible dispatch_latency cycles later: the WAKE scheduled for that cycle
 * lets ctl_pump hand it over (with dispatch_latency 0 that is a WAKE in
 * this same cycle, which runs before the next EV_PRI_CONTROL step).
 */
static int ctl_enqueue(struct ctl *c, int qi, const struct qent *e)
{
	struct xq *q = &c->xq[qi];
	struct qent *slot;

	if (q->n == q->cap) {
		c->stall_xq = qi;
		return 1;
	}
	slot = &q->q[(q->head + q->n) % q->cap];
	*slot = *e;
	slot->ready = eng_now(c->u.eng) + (cycle_t)c->lat_disp;
	q->n++;
	return ctl_wake_at(c, slot->ready);
}

/*
 * Queue a sig or wait on a unit: 0, 1 when the queue is full (the control
 * unit stalls), or NPU_E*.  Like a tile command, the entry tells the hazard
 * checker what the control unit knew when it was queued (the dispatch
 * edge): a sig fired by an idle unit still orders everything the control
 * unit had ordered before queueing it.
 */
static int ctl_enqueue_sync(struct ctl *c, int qi, const struct qent *e)
{
	int rc = ctl_enqueue(c, qi, e);

	if (rc == 1)
		ctl_stall(c, ST_STALL_QUEUE);
	else if (rc == 0 && c->hz)
		hz_on_dispatch(c->hz, c->core, qi + 1, NULL, eng_now(c->u.eng));
	return rc;
}

/* Build the tile command of a matrix instruction. */
static int ctl_mtx_cmd(struct ctl *c, const struct isa_insn *in,
		       struct tile_cmd *tc)
{
	struct mtx_cmd *m = &tc->u.m;
	/* A post-increment variant builds its base's command (opcodes.def
	 * BASE); its register steps follow the dispatch. */
	enum isa_op base = isa_op_info[in->op].base;

	/* Strides stay as written (0 = dense): what "dense" means depends on
	 * the dataflow's operand layout, which the matrix engine owns. */
	m->cfg = c->mcfg;
	switch (base) {
	case ISA_OP_MPRE:
		m->kind = MTX_PRELOAD;
		m->a = c->x[in->rs1];
		/* Remember it at dispatch, in program order: the matrix queue
		 * is in order, so the mmul after it will find this tile. */
		c->mpre_addr = m->a;
		c->mpre_valid = 1;
		break;
	case ISA_OP_MMUL:
	case ISA_OP_MMACC:
		m->kind = base == ISA_OP_MMUL ? MTX_MUL : MTX_MUL_ACC;
		m->c = c->x[in->rd];
		m->a = c->x[in->rs1];
		m->b = c->x[in->rs2];
		/* x0 names "the resident tile": the last mpre's address.  The
		 * stationary operand is B in WS and A in IS; OS has no
		 * stationary operand, so x0 there is a plain address 0.
		 * Faulting here, at dispatch, names the pc; the matrix engine
		 * checks the rest when it accepts. */
		if ((c->mcfg.dataflow == ISA_CONST_WS && in->rs2 == 0) ||
		    (c->mcfg.dataflow == ISA_CONST_IS && in->rs1 == 0)) {
			if (!c->mpre_valid)
				return ctl_fault(c, eng_now(c->u.eng),
						 "%s names the resident tile (x0) but no mpre came before it",
						 isa_op_info[in->op].name);
			if (c->mcfg.dataflow == ISA_CONST_WS)
				m->b = c->mpre_addr;
			else
				m->a = c->mpre_addr;
		}
		break;
	case ISA_OP_MOUT:
		m->kind = MTX_OUT;
		m->d = c->x[in->rd];
		m->c = c->x[in->rs1];
		break;
	default: NPU_BUG("%s is not a matrix instruction", isa_op_info[in->op].name);
	}
	return 0;
}

/*
 * Build the tile command of a vector instruction.  Every register operand
 * is read whether the op uses it or not: an unused field is 0 = x0 and
 * costs nothing.  The op's flags say whether rs1 or rs2 is a scalar value
 * (vadds, vbcast, ...) rather than an address.
 */
static void ctl_vec_cmd(struct ctl *c, const struct isa_insn *in,
			struct tile_cmd *tc)
{
	struct vec_cmd *v = &tc->u.v;
	uint32_t fl = isa_op_info[in->op].flags;

	v->op = (int)in->op;
	v->cfg = c->vcfg;
	v->d = c->x[in->rd];
	v->s1 = c->x[in->rs1];
	v->s2 = c->x[in->rs2];
	v->s3 = c->x[in->rs3];
	if (fl & ISA_SCL_RS2)
		v->scalar = c->x[in->rs2];
	else if (fl & ISA_SCL_RS1)
		v->scalar = c->x[in->rs1];
}

/*
 * Snapshot the DMA staging registers into a descriptor (unset = dense).
 * dset_mask says which dset fields were ever written on this core; an
 * unwritten extent is 1 and an unwritten stride is dense for its
 * dimension: elem_bytes for dimension 0, else shape[i-1] x stride[i-1] of
 * the dimension inside it (so an explicit ss0 also widens the default
 * ss1).  The staging registers persist between dma instructions: a kernel
 * re-issues a descriptor by changing only src/dst.
 */
static void ctl_dma_desc(struct ctl *c, struct dma_desc *dd)
{
	static const int nf[4] = { ISA_DF_N0, ISA_DF_N1, ISA_DF_N2, ISA_DF_N3 };
	static const int sf[4] = { ISA_DF_SS0, ISA_DF_SS1, ISA_DF_SS2, ISA_DF_SS3 };
	static const int df[4] = { ISA_DF_DS0, ISA_DF_DS1, ISA_DF_DS2, ISA_DF_DS3 };
	int i;

	memset(dd, 0, sizeof(*dd));
	/* No checks here: the DMA engine validates the whole descriptor when
	 * it accepts it, with the bounding box of every element (timing.md,
	 * DMA "Faults"). */
	dd->src = c->dreg[ISA_DF_SRC];
	dd->dst = c->dreg[ISA_DF_DST];
	dd->src_mem = (int)c->dreg[ISA_DF_SMEM];
	dd->dst_mem = (int)c->dreg[ISA_DF_DMEM];
	dd->src_core = (int)c->dreg[ISA_DF_SCORE];
	dd->dst_core = (int)c->dreg[ISA_DF_DCORE];
	dd->dst_mask = c->dreg[ISA_DF_DMASK];
	dd->idx_mode = c->dreg[ISA_DF_IMODE] < DMA_N_IDX ?
			       (int)c->dreg[ISA_DF_IMODE] : DMA_N_IDX; /* faults */
	dd->idx = c->dreg[ISA_DF_IDX];
	dd->elem_bytes = (uint32_t)c->dreg[ISA_DF_ESIZE];
	for (i = 0; i < 4; i++)
		dd->shape[i] = (c->dset_mask >> nf[i] & 1) ?
				       (uint32_t)c->dreg[nf[i]] : 1;
	/* Outward from dimension 0, so stride[i-1] is final when used. */
	for (i = 0; i < 4; i++) {
		int64_t dense_s = i == 0 ? (int64_t)dd->elem_bytes :
				  (int64_t)dd->shape[i - 1] * dd->src_stride[i - 1];
		int64_t dense_d = i == 0 ? (int64_t)dd->elem_bytes :
				  (int64_t)dd->shape[i - 1] * dd->dst_stride[i - 1];

		dd->src_stride[i] = (c->dset_mask >> sf[i] & 1) ?
					    (int64_t)c->dreg[sf[i]] : dense_s;
		dd->dst_stride[i] = (c->dset_mask >> df[i] & 1) ?
					    (int64_t)c->dreg[df[i]] : dense_d;
	}
}

/* Validate a dtype id written by mset/vset (enum npu_dtype, util/dtype.h).
 * It faults at the configuring instruction, not later at the tile
 * instruction that would use the bad type. */
static int ctl_check_dtype(struct ctl *c, uint64_t v, const char *what)
{
	if (v >= DT_N)
		return ctl_fault(c, c->t_cur,
				 "%s %" PRIu64 " is not a dtype id (0..%d: int4 int8 int16 int32 fp8e4m3 fp8e5m2 fp16 bf16 fp32)",
				 what, v, DT_N - 1);
	return 0;
}

/* oscale and vset scale are passed as IEEE binary32 bits in the low 32
 * bits of a register; memcpy is the aliasing-safe reinterpretation. */
static float bits_to_f32(uint64_t v)
{
	uint32_t b = (uint32_t)v;
	float f;

	memcpy(&f, &b, sizeof(f));
	return f;
}

/* mset: write one matrix configuration register. */
static int ctl_mset(struct ctl *c, int field, uint64_t v)
{
	struct mtx_cfg *m = &c->mcfg;
	int rc = 0;

	switch (field) {
	case ISA_MF_DF:
		if (v >= ISA_N_DATAFLOWS) {
			char dfs[64];

			return ctl_fault(c, c->t_cur, "mset df %" PRIu64 ": dataflow must be %s",
					 v, isa_dataflow_list(dfs, sizeof(dfs)));
		}
		m->dataflow = (int)v;
		break;
	case ISA_MF_ITYPE: rc = ctl_check_dtype(c, v, "mset itype"); m->in_type = (int)v; break;
	case ISA_MF_ATYPE:
		if (v != DT_INT32 && v != DT_FP32)
			return ctl_fault(c, c->t_cur,
					 "mset atype %" PRIu64 ": the accumulator type must be int32 (%d) or fp32 (%d)",
					 v, DT_INT32, DT_FP32);
		m->acc_type = (int)v;
		break;
	case ISA_MF_OTYPE: rc = ctl_check_dtype(c, v, "mset otype"); m->out_type = (int)v; break;
	case ISA_MF_M: m->m = (uint32_t)v; break;
	case ISA_MF_K: m->k = (uint32_t)v; break;
	case ISA_MF_N: m->n = (uint32_t)v; break;
	case ISA_MF_SA: m->a_stride = (uint32_t)v; break;
	case ISA_MF_SB: m->b_stride = (uint32_t)v; break;
	case ISA_MF_SC: m->c_stride = (uint32_t)v; break;
	case ISA_MF_SO: m->out_stride = (uint32_t)v; break;
	case ISA_MF_OSCALE: m->out_scale = bits_to_f32(v); break;
	case ISA_MF_OZP: m->out_zp = (int32_t)v; break;
	case ISA_MF_OACT: m->out_act = (int)v; break;
	case ISA_MF_OFUSE: m->out_fuse = (uint32_t)v; break;
	case ISA_MF_OPAR: m->out_par = v; break;
	case ISA_MF_IA: m->inc[MTX_INC_A] = (int64_t)v; break;
	case ISA_MF_IB: m->inc[MTX_INC_B] = (int64_t)v; break;
	case ISA_MF_IC: m->inc[MTX_INC_C] = (int64_t)v; break;
	case ISA_MF_IO: m->inc[MTX_INC_O] = (int64_t)v; break;
	default:
		return ctl_fault(c, c->t_cur, "mset: unknown field %d", field);
	}
	/* Shape and stride fields (m, k, n, sa, sb, sc, so; field order of
	 * isa/names.def) are 32-bit registers in the hardware: a wider value
	 * faults rather than being silently truncated.  The truncated value
	 * was stored above, but the fault ends the run. */
	if (field >= ISA_MF_M && field <= ISA_MF_SO && field != ISA_MF_OTYPE &&
	    field != ISA_MF_OSCALE && field != ISA_MF_OZP && field != ISA_MF_OACT &&
	    v > UINT32_MAX)
		return ctl_fault(c, c->t_cur, "mset %s %" PRIu64 " exceeds 32 bits",
				 isa_mfield_names[field], v);
	return rc;
}

/* vset: write one vector configuration register. */
static int ctl_vset(struct ctl *c, int field, uint64_t v)
{
	struct vec_cfg *g = &c->vcfg;

	switch (field) {
	case ISA_VF_TYPE:
		if (ctl_check_dtype(c, v, "vset type"))
			return NPU_EFAULT;
		g->type = (int)v;
		break;
	case ISA_VF_OTYPE:
		if (ctl_check_dtype(c, v, "vset otype"))
			return NPU_EFAULT;
		g->out_type = (int)v;
		break;
	case ISA_VF_LEN: g->len = (uint32_t)v; break;
	case ISA_VF_ROWS: g->rows = (uint32_t)v; break;
	case ISA_VF_SD: g->d_stride = (uint32_t)v; break;
	case ISA_VF_SS1: g->s1_stride = (uint32_t)v; break;
	case ISA_VF_SS2: g->s2_stride = (uint32_t)v; break;
	case ISA_VF_DMEM:
	case ISA_VF_SMEM:
		if (!(isa_mem_flags(v) & ISA_MS_VEC))
			return ctl_fault(c, c->t_cur,
					 "vset %s %" PRIu64 ": vector operands live in spm (1) or acc (2)",
					 isa_vfield_names[field], v);
		if (field == ISA_VF_DMEM)
			g->d_mem = (int)v;
		else
			g->s_mem = (int)v;
		break;
	case ISA_VF_SCALE: g->scale = bits_to_f32(v); break;
	case ISA_VF_ZP: g->zp = (int32_t)v; break;
	case ISA_VF_BC:
		if (v >= VEC_N_BC)
			return ctl_fault(c, c->t_cur, "vset bc %" PRIu64 ": 0 (tile), 1 (column) or 2 (row)", v);
		g->s2_bcast = (int)v;
		break;
	default:
		return ctl_fault(c, c->t_cur, "vset: unknown field %d", field);
	}
	/* Only len and rows are range-checked; the strides sd/ss1/ss2 are
	 * truncated to 32 bits without a fault (unlike mset's strides). */
	if ((field == ISA_VF_LEN || field == ISA_VF_ROWS || field == ISA_VF_SD ||
	     field == ISA_VF_SS1 || field == ISA_VF_SS2) && v > UINT32_MAX)
		return ctl_fault(c, c->t_cur, "vset %s %" PRIu64 " exceeds 32 bits",
				 isa_vfield_names[field], v);
	return 0;
}

/* Unit id -> queue index, faulting on a unit this core does not have.
 * Unit id 0 (ctl) has no queue: *qi = -1 and the caller acts at once.
 * The id field is 7 bits (0..127), more than any config has engines. */
static int ctl_unit_queue(struct ctl *c, unsigned id, int *qi)
{
	char nm[16];

	if (id == 0) {
		*qi = -1;
		return 0;
	}
	if ((int)id - 1 >= c->n_xq)
		return ctl_fault(c, eng_now(c->u.eng),
				 "unit %s does not exist on this core (core.dma.engines = %lld)",
				 isa_unit_id_name(id, nm, sizeof(nm)),
				 (long long)ARCH_I(c->a, DMA_ENGINES));
	*qi = (int)id - 1;
	return 0;
}

/* ---- scalar execution -----------------------------------------------------*/

/* Scalar memory access check: in range and naturally aligned.  The range
 * test is written without addr + size so that an address near 2^64 cannot
 * wrap around into range. */
static int ctl_smem_check(struct ctl *c, cycle_t t, uint64_t addr, int size)
{
	if (addr % (uint64_t)size)
		return ctl_fault(c, t, "misaligned %d-byte scalar memory access at 0x%" PRIx64,
				 size, addr);
	if (addr > c->smem_bytes || c->smem_bytes - addr < (uint64_t)size)
		return ctl_fault(c, t,
				 "scalar memory access [0x%" PRIx64 ", 0x%" PRIx64 ") outside [0, 0x%zx) (core.control.scalar_mem_bytes)",
				 addr, addr + (uint64_t)size, c->smem_bytes);
	return 0;
}

/* Little-endian load/store of 1, 2, 4 or 8 bytes, independent of the host's
 * byte order (the scalar memory is little-endian, like every NPU memory). */
static uint64_t ld_le(const uint8_t *p, int size)
{
	uint64_t v = 0;
	int i;

	for (i = size - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void st_le(uint8_t *p, uint64_t v, int size)
{
	int i;

	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Sign-extend the low 'bits' bits of v: xor-then-subtract the sign bit
 * avoids shifting into the sign of a signed type (undefined in C). */
static uint64_t sext(uint64_t v, int bits)
{
	uint64_t m = 1ull << (bits - 1);

	v &= bits == 64 ? ~0ull : (1ull << bits) - 1;
	return (v ^ m) - m;
}

/*
 * Signed division and remainder that never trap, with the RISC-V
 * M-extension results: x / 0 = all ones (-1), x % 0 = x, and the one
 * signed overflow INT64_MIN / -1 = INT64_MIN with remainder 0 (C leaves
 * both undefined, so they are tested before dividing).
 */
static uint64_t div_s64(uint64_t a, uint64_t b)
{
	if (b == 0)
		return ~0ull;
	if ((int64_t)a == INT64_MIN && (int64_t)b == -1)
		return a;
	return (uint64_t)((int64_t)a / (int64_t)b);
}

static uint64_t rem_s64(uint64_t a, uint64_t b)
{
	if (b == 0)
		return a;
	if ((int64_t)a == INT64_MIN && (int64_t)b == -1)
		return 0;
	return (uint64_t)((int64_t)a % (int64_t)b);
}

/* Arithmetic shift right by s (0..63) without relying on the
 * implementation-defined >> of a negative value. */
static uint64_t sra64(uint64_t a, unsigned s)
{
	return (int64_t)a < 0 ? ~(~a >> s) : a >> s;
}

/*
 * Result latency of a latency class (opcodes.def LAT_x column) in the
 * control unit: alu, mul, div and mem from core.control.*; a branch's
 * register result (the link of jal/jalr, dbnz's counter) comes out of the
 * ALU, its redirect costs lat_br (ctl_branch).  none: halt and the
 * configuration writes have no register result.  sfu and move are vector
 * classes: the static assertions below the handlers keep them off every
 * row the control unit executes.
 */
static cycle_t ctl_latency(const struct ctl *c, enum isa_lat cls)
{
	switch (cls) {
	case ISA_LAT_ALU:
	case ISA_LAT_BRANCH:
		return (cycle_t)c->lat_alu;
	case ISA_LAT_MUL:
		return (cycle_t)c->lat_mul;
	case ISA_LAT_DIV:
		return (cycle_t)c->lat_div;
	case ISA_LAT_MEM:
		return (cycle_t)c->lat_mem;
	case ISA_LAT_NONE:
	case ISA_LAT_SFU:
	case ISA_LAT_MOVE:
	case ISA_N_LATS:
		break;
	}
	return 0;
}

/* Write a register now and mark it readable from cycle 'ready' on.  The
 * value is stored at once because the in-order issue rule keeps any reader
 * from issuing before 'ready' (ctl_operands_ready). */
static void ctl_set_reg(struct ctl *c, int r, uint64_t v, cycle_t ready)
{
	if (r == 0)
		return;
	c->x[r] = v;
	c->ready[r] = ready;
}

/* Earliest cycle >= t at which every register the insn reads is ready.
 * The operand-role flags of isa/opcodes.def say which fields are read
 * (RD_RD covers instructions that read rd, e.g. mmul's C address), so no
 * per-op list is kept here (STYLE.md convention 4). */
static cycle_t ctl_operands_ready(const struct ctl *c,
				  const struct isa_insn *in, cycle_t t)
{
	uint32_t fl = isa_op_info[in->op].flags;

	if ((fl & ISA_RD_RD) && c->ready[in->rd] > t)
		t = c->ready[in->rd];
	if ((fl & ISA_RD_RS1) && c->ready[in->rs1] > t)
		t = c->ready[in->rs1];
	if ((fl & ISA_RD_RS2) && c->ready[in->rs2] > t)
		t = c->ready[in->rs2];
	if ((fl & ISA_RD_RS3) && c->ready[in->rs3] > t)
		t = c->ready[in->rs3];
	return t;
}

/* ---- scalar semantics: one handler per opcodes.def row --------------------*/

/*
 * An instruction the control unit executes by itself (unit ctl or cfg),
 * as its handler sees it.  ctl_run fills it before the call with "fall
 * through" as the outcome (the next instruction at pc + 4, one cycle
 * later); the handler writes its result and, for a taken branch or a
 * jump, changes the outcome.
 */
struct ctl_exec {
	const struct isa_insn *in; /* the instruction (c->pc is its pc) */
	uint64_t a;                /* x[rs1] */
	uint64_t b;                /* x[rs2] if the op reads it (RD_RS2),
				      else the immediate (sign-extended) */
	cycle_t ti;                /* issue cycle, on the local clock */
	cycle_t ready;             /* ti + the latency of the op's class:
				      when its register result is readable */
	uint64_t next_pc;          /* pc of the next instruction to issue */
	cycle_t next_t;            /* its earliest issue cycle */
};

/* A handler returns 0, CTL_STOP (halt: the core stops issuing) or NPU_E*. */
typedef int (*ctl_exec_fn)(struct ctl *c, struct ctl_exec *x);
#define CTL_STOP 1

/* rd = v, readable from x->ready. */
static int ctl_wr(struct ctl *c, const struct ctl_exec *x, uint64_t v)
{
	ctl_set_reg(c, x->in->rd, v, x->ready);
	return 0;
}

/*
 * Register and immediate ALU ops: rd = expr of a = x[rs1] and b = x[rs2]
 * or the immediate, so add and addi share an expression.  Shift amounts
 * use the low 6 bits, as RV64 does (slli's shamt field is 0..63 anyway);
 * compares give 0 or 1; min/max are signed.  The latency (alu, mul, div)
 * is the row's class, not the handler's business.
 */
#define CTL_ALU(id, expr)                                                  \
	static int exec_##id(struct ctl *c, struct ctl_exec *x)            \
	{                                                                  \
		uint64_t a = x->a, b = x->b;                               \
									   \
		(void)a; /* lui reads no register */                       \
		return ctl_wr(c, x, (uint64_t)(expr));                     \
	}
CTL_ALU(ADD,   a + b)
CTL_ALU(SUB,   a - b)
CTL_ALU(MUL,   a * b)
CTL_ALU(DIV,   div_s64(a, b))
CTL_ALU(DIVU,  b ? a / b : ~0ull)
CTL_ALU(REM,   rem_s64(a, b))
CTL_ALU(REMU,  b ? a % b : a)
CTL_ALU(AND,   a & b)
CTL_ALU(OR,    a | b)
CTL_ALU(XOR,   a ^ b)
CTL_ALU(SLL,   a << (b & 63))
CTL_ALU(SRL,   a >> (b & 63))
CTL_ALU(SRA,   sra64(a, (unsigned)(b & 63)))
CTL_ALU(SLT,   (int64_t)a < (int64_t)b)
CTL_ALU(SLTU,  a < b)
CTL_ALU(MIN,   (int64_t)a < (int64_t)b ? a : b)
CTL_ALU(MAX,   (int64_t)a > (int64_t)b ? a : b)
CTL_ALU(ADDI,  a + b)
CTL_ALU(ANDI,  a & b)
CTL_ALU(ORI,   a | b)
CTL_ALU(XORI,  a ^ b)
CTL_ALU(SLTI,  (int64_t)a < (int64_t)b)
CTL_ALU(SLTIU, a < b)
CTL_ALU(SLLI,  a << (b & 63))
CTL_ALU(SRLI,  a >> (b & 63))
CTL_ALU(SRAI,  sra64(a, (unsigned)(b & 63)))
/* lui: imm is a signed 19-bit field, already sign-extended to 64 bits
 * before the shift, as the ISA defines. */
CTL_ALU(LUI,   b << 13)
#undef CTL_ALU

static int exec_CSRR(struct ctl *c, struct ctl_exec *x)
{
	uint64_t v;

	switch ((enum isa_csr)x->b) {
	case ISA_CSR_COREID: v = (uint64_t)(c->core - c->part_base); break;
	case ISA_CSR_NCORES: v = (uint64_t)c->part_size; break;
	/* cycle: the issue cycle on the local clock. */
	case ISA_CSR_CYCLE: v = x->ti; break;
	/* instret: instructions retired before this one. */
	case ISA_CSR_INSTRET: v = c->instret; break;
	default: /* the decoder admits only names.def CSR ids */
		return ctl_fault(c, x->ti, "csrr: no status register %" PRIu64,
				 x->b);
	}
	return ctl_wr(c, x, v);
}

/*
 * Loads and stores of size bytes at x[rs1] + imm; loads sign- or
 * zero-extend.  A store is done at issue: a later load sees it, being
 * issued no earlier.
 */
static int ctl_load(struct ctl *c, struct ctl_exec *x, int size, int sign)
{
	uint64_t addr = x->a + x->b, v;
	int rc = ctl_smem_check(c, x->ti, addr, size);

	if (rc)
		return rc;
	v = ld_le(c->smem + addr, size);
	return ctl_wr(c, x, sign && size < 8 ? sext(v, size * 8) : v);
}

static int ctl_store(struct ctl *c, struct ctl_exec *x, int size)
{
	uint64_t addr = x->a + (uint64_t)x->in->imm;
	int rc = ctl_smem_check(c, x->ti, addr, size);

	if (rc)
		return rc;
	st_le(c->smem + addr, x->b, size);
	return 0;
}

#define CTL_LOAD(id, size, sign)                                           \
	static int exec_##id(struct ctl *c, struct ctl_exec *x)            \
	{                                                                  \
		return ctl_load(c, x, size, sign);                         \
	}
#define CTL_STORE(id, size)                                                \
	static int exec_##id(struct ctl *c, struct ctl_exec *x)            \
	{                                                                  \
		return ctl_store(c, x, size);                              \
	}
CTL_LOAD(LD, 8, 0)
CTL_LOAD(LW, 4, 1)
CTL_LOAD(LWU, 4, 0)
CTL_LOAD(LH, 2, 1)
CTL_LOAD(LHU, 2, 0)
CTL_LOAD(LB, 1, 1)
CTL_LOAD(LBU, 1, 0)
CTL_STORE(SD, 8)
CTL_STORE(SW, 4)
CTL_STORE(SH, 2)
CTL_STORE(SB, 1)
#undef CTL_LOAD
#undef CTL_STORE

/*
 * Every branch and jump ends here.  A taken one continues at target
 * branch_latency cycles after its issue (a pipeline refill); a
 * fall-through keeps ctl_run's outcome and costs only its issue slot.
 */
static int ctl_branch(struct ctl *c, struct ctl_exec *x, int taken,
		      uint64_t target)
{
	c->u.ctr[CTR_CONTROL_BRANCHES]++;
	if (taken) {
		c->u.ctr[CTR_CONTROL_BRANCHES_TAKEN]++;
		x->next_pc = target;
		x->next_t = x->ti + (cycle_t)c->lat_br;
	}
	return 0;
}

/* Two-register branches: the target is pc + imm (bytes); the U forms
 * compare unsigned. */
#define CTL_BRANCH(id, cond)                                               \
	static int exec_##id(struct ctl *c, struct ctl_exec *x)            \
	{                                                                  \
		uint64_t a = x->a, b = x->b;                               \
									   \
		return ctl_branch(c, x, cond, c->pc + (uint64_t)x->in->imm); \
	}
CTL_BRANCH(BEQ,  a == b)
CTL_BRANCH(BNE,  a != b)
CTL_BRANCH(BLT,  (int64_t)a < (int64_t)b)
CTL_BRANCH(BGE,  (int64_t)a >= (int64_t)b)
CTL_BRANCH(BLTU, a < b)
CTL_BRANCH(BGEU, a >= b)
#undef CTL_BRANCH

/* dbnz: the hardware loop counter; decremented even when it falls
 * through (rs1 is also its destination). */
static int exec_DBNZ(struct ctl *c, struct ctl_exec *x)
{
	ctl_set_reg(c, x->in->rs1, x->a - 1, x->ready);
	return ctl_branch(c, x, x->a - 1 != 0, c->pc + (uint64_t)x->in->imm);
}

/* jal/jalr link pc + 4 in rd; jalr's target is register-relative with
 * the low two bits cleared, so it is word-aligned. */
static int exec_JAL(struct ctl *c, struct ctl_exec *x)
{
	ctl_set_reg(c, x->in->rd, c->pc + 4, x->ready);
	return ctl_branch(c, x, 1, c->pc + (uint64_t)x->in->imm);
}

static int exec_JALR(struct ctl *c, struct ctl_exec *x)
{
	ctl_set_reg(c, x->in->rd, c->pc + 4, x->ready);
	return ctl_branch(c, x, 1, (x->a + x->b) & ~3ull);
}

/*
 * halt: the core stops issuing; it finishes when its queues are empty and
 * every unit is idle (ctl_run calls ctl_check_done).  busy_cycles counts
 * the cycles up to and including the halt's issue.
 */
static int exec_HALT(struct ctl *c, struct ctl_exec *x)
{
	c->instret++;
	c->u.ctr[CTR_CONTROL_INSNS]++;
	c->u.ctr[CTR_CONTROL_BUSY_CYCLES] = x->ti + 1;
	c->halt_end = x->ti + 1;
	c->st = ST_HALTED;
	c->t_next = x->ti + 1;
	return CTL_STOP;
}

/* mset/vset/dset write one configuration register from x[rs1]. */
static int exec_MSET(struct ctl *c, struct ctl_exec *x)
{
	return ctl_mset(c, x->in->cfg, x->a);
}

static int exec_VSET(struct ctl *c, struct ctl_exec *x)
{
	return ctl_vset(c, x->in->cfg, x->a);
}

/* dset stages one descriptor field; the mask tells "set to 0" from
 * "never set" (dense). */
static int exec_DSET(struct ctl *c, struct ctl_exec *x)
{
	c->dreg[x->in->cfg] = x->a;
	c->dset_mask |= 1u << x->in->cfg;
	return 0;
}

/* The DMA staging registers at program start (also ctl_reset_state). */
static void ctl_dreg_defaults(struct ctl *c)
{
	memset(c->dreg, 0, sizeof(c->dreg));
	c->dset_mask = 0;
	c->dreg[ISA_DF_ESIZE] = 1;
	c->dreg[ISA_DF_SMEM] = MEM_DRAM;
	c->dreg[ISA_DF_DMEM] = MEM_SPM;
}

/* dreset: every staging register back to its program-start value. */
static int exec_DRESET(struct ctl *c, struct ctl_exec *x)
{
	(void)x;
	ctl_dreg_defaults(c);
	return 0;
}

/*
 * The dispatch table, expanded from opcodes.def: one handler per row of
 * unit ctl or cfg, exec_<ID>.  A row without a handler does not compile
 * (exec_<ID> undeclared), a handler without a row neither (unused static
 * function under -Werror); rows of other units leave a NULL (ctl_run
 * queues those or runs them through ctl_exec_world).
 */
#define CTL_ROW_UNIT_CTL(...) __VA_ARGS__
#define CTL_ROW_UNIT_CFG(...) __VA_ARGS__
#define CTL_ROW_UNIT_SYNC(...)
#define CTL_ROW_UNIT_MTX(...)
#define CTL_ROW_UNIT_VEC(...)
#define CTL_ROW_UNIT_DMA(...)
#define CTL_ROW_UNIT_MARK(...)
static const ctl_exec_fn ctl_exec_fns[ISA_N_OPS] = {
#define OP(id, mn, opc, fmt, unit, flags, lat, vk, base, sem, doc) \
	CTL_ROW_##unit([ISA_OP_##id] = exec_##base,)
#include "../../isa/opcodes.def"
};

/* The same rows take a latency class the control unit times (see
 * ctl_latency): a row with a vector class does not compile. */
#define CTL_LAT_OK(l) ((l) == ISA_LAT_NONE || (l) == ISA_LAT_ALU ||       \
		       (l) == ISA_LAT_MUL || (l) == ISA_LAT_DIV ||         \
		       (l) == ISA_LAT_MEM || (l) == ISA_LAT_BRANCH)
#define OP(id, mn, opc, fmt, unit, flags, lat, vk, base, sem, doc) \
	CTL_ROW_##unit(_Static_assert(CTL_LAT_OK(ISA_##lat), #id " has a latency class the control unit does not time");)
#include "../../isa/opcodes.def"
#undef CTL_LAT_OK
#undef CTL_ROW_UNIT_CTL
#undef CTL_ROW_UNIT_CFG
#undef CTL_ROW_UNIT_SYNC
#undef CTL_ROW_UNIT_MTX
#undef CTL_ROW_UNIT_VEC
#undef CTL_ROW_UNIT_DMA
#undef CTL_ROW_UNIT_MARK

int ctl_executes(enum isa_op op)
{
	return op >= 0 && op < ISA_N_OPS && ctl_exec_fns[op] != NULL;
}

/* --trace-insn: one line per issued instruction, "core N cycle pc text",
 * through the same disassembler as objdump, with labels when the program
 * object is known.  Cycle is the issue cycle on the local clock. */
/* isa_names.region over the program's region table (ctx: the ctl_prog). */
static const char *ctl_region_name(void *ctx, uint64_t id)
{
	const struct ctl_prog *p = ctx;

	return id < p->n_regions ? p->regions[id] : NULL;
}

/* Labels and region names of the program, for the disassembler. */
static struct isa_names ctl_names(const struct ctl *c)
{
	const struct prog_symbolizer *s = c->prog.sym;
	struct isa_names nm = { s ? s->label : NULL, s ? s->ctx : NULL,
				ctl_region_name, (void *)&c->prog };

	return nm;
}

static void ctl_print_insn(const struct ctl *c, const struct isa_insn *in,
			   cycle_t t)
{
	struct isa_names nm = ctl_names(c);
	char buf[96];

	isa_format_insn_names(in, c->pc, buf, sizeof(buf), &nm);
	fprintf(stderr, "core%d %10" PRIu64 "  %06" PRIx64 "  %s\n", c->core,
		(uint64_t)t, c->pc, buf);
}

/*
 * Trace: the instruction at pc issued at cycle t, as a one-cycle slice on
 * the control unit's track named by its mnemonic, with the disassembly
 * and source line in args.  A tile instruction's slice (seq >= 0, its
 * dispatch number) starts the flow arrow to the slice of the unit that
 * executes it.  Only called when tracing is on.
 */
static void ctl_trace_insn(struct ctl *c, uint64_t pc, cycle_t t,
			   int64_t seq)
{
	const struct prog_symbolizer *s = c->prog.sym;
	const struct isa_insn *in = &c->prog.insns[pc / 4];
	char text[96], args[160];
	struct unit_insn ui = { pc, s, seq >= 0 ? (uint64_t)seq : 0,
				seq >= 0 ? UNIT_FLOW_OUT : UNIT_FLOW_NONE, t };

	struct isa_names nm = ctl_names(c);

	if (!unit_traced(&c->u, t, t + 1))
		return;
	isa_format_insn_names(in, pc, text, sizeof(text), &nm);
	trc_json_member(args, sizeof(args), "insn", text);
	unit_span_insn(&c->u, t, t + 1, isa_op_info[in->op].name, args, &ui);
}

/* Schedule the next STEP at cycle t (replacing any scheduled one): bumping
 * step_gen lazily cancels the old event, so at most one STEP is live and a
 * stalled unit cannot be stepped twice. */
static int ctl_step_at(struct ctl *c, cycle_t t)
{
	c->step_gen++;
	c->step_pending = 1;
	c->t_next = t;
	return eng_schedule_gen(c->u.eng, t, EV_PRI_CONTROL, &c->u, CTL_EV_STEP,
				0, &c->step_gen);
}

/*
 * mprep/mmulp/mmaccp/moutp, once dispatched: each address register steps
 * by the increment of the operand it names (docs/isa.md "Post-increment"),
 * from the values read at dispatch, ready after the ALU latency as if an
 * addi had run.  Order rd, rs1, rs2: a register named twice keeps the
 * last; x0 is never written (in WS/IS it names the resident tile).
 */
static void ctl_post_increment(struct ctl *c, const struct isa_insn *in,
			       cycle_t now)
{
	const int64_t *inc = c->mcfg.inc;
	cycle_t ready = now + ctl_latency(c, ISA_LAT_ALU);
	uint64_t rd = c->x[in->rd], r1 = c->x[in->rs1], r2 = c->x[in->rs2];

	switch (isa_op_info[in->op].base) {
	case ISA_OP_MPRE:
		ctl_set_reg(c, in->rs1, r1 + (uint64_t)inc[c->mcfg.dataflow ==
				ISA_CONST_IS ? MTX_INC_A : MTX_INC_B], ready);
		break;
	case ISA_OP_MOUT:
		ctl_set_reg(c, in->rd, rd + (uint64_t)inc[MTX_INC_O], ready);
		ctl_set_reg(c, in->rs1, r1 + (uint64_t)inc[MTX_INC_C], ready);
		break;
	default: /* mmulp, mmaccp (base mmul, mmacc) */
		ctl_set_reg(c, in->rd, rd + (uint64_t)inc[MTX_INC_C], ready);
		ctl_set_reg(c, in->rs1, r1 + (uint64_t)inc[MTX_INC_A], ready);
		ctl_set_reg(c, in->rs2, r2 + (uint64_t)inc[MTX_INC_B], ready);
		break;
	}
}

/*
 * Execute a sync or tile instruction at the current cycle (configuration
 * instructions are handled in ctl_run).  Returns 0 when it completed (pc
 * advances), 1 when the control unit stalled on it (pc stays, except for
 * barrier, which has already arrived), 2 when a barrier was released at
 * once (pc and counters already advanced by the barrier case), or NPU_E*.
 */
static int ctl_exec_world(struct ctl *c, const struct isa_insn *in)
{
	const struct isa_op_info *oi = &isa_op_info[in->op];
	cycle_t now = eng_now(c->u.eng);
	struct qent e;
	int qi, rc, i;

	memset(&e, 0, sizeof(e));
	e.pc = c->pc;
	switch (in->op) {
	case ISA_OP_SIG:
		if ((rc = ctl_unit_queue(c, in->unit, &qi)))
			return rc;
		/* sig ctl: everything before it in program order has issued,
		 * so it fires now; pump at once, since it may release a wait
		 * at the head of a unit queue in this same cycle. */
		if (qi < 0) {
			c->sem[in->sem]++;
			if (c->hz)
				hz_on_signal(c->hz, c->core, 0, in->sem, now);
			return ctl_pump(c, &i);
		}
		e.kind = Q_SIG;
		e.sem = in->sem;
		return ctl_enqueue_sync(c, qi, &e);
	case ISA_OP_WAIT:
		if ((rc = ctl_unit_queue(c, in->unit, &qi)))
			return rc;
		/* wait ctl blocks the control unit itself (stall_sem_wait). */
		if (qi < 0) {
			if (c->sem[in->sem] < (uint32_t)in->imm) {
				c->stall_sem = in->sem;
				c->stall_cnt = (int)in->imm;
				ctl_stall(c, ST_STALL_SEM);
				return 1;
			}
			c->sem[in->sem] -= (uint32_t)in->imm;
			if (c->hz)
				hz_on_wait(c->hz, c->core, 0, in->sem, now);
			return 0;
		}
		e.kind = Q_WAIT;
		e.sem = in->sem;
		e.cnt = (uint16_t)in->imm;
		return ctl_enqueue_sync(c, qi, &e);
	case ISA_OP_FENCE:
		/* Probe with st set, since ctl_stall_over() reads the reason; a
		 * fence whose units are already drained costs one issue slot
		 * and is not a stall (no stall cycles, no span). */
		c->stall_mask = (uint32_t)in->imm;
		c->st = ST_STALL_FENCE;
		if (ctl_stall_over(c)) {
			c->st = ST_RUN;
			if (c->hz)
				hz_on_fence(c->hz, c->core, c->stall_mask, now);
			return 0;
		}
		ctl_stall(c, ST_STALL_FENCE);
		return 1;
	case ISA_OP_BARRIER:
		/* Barriers are counted, not named: the k-th barrier of each core
		 * meets the k-th of the others.  The instruction retires on
		 * arrival, so the barrier_arrive call below may release this
		 * very core (the last to arrive) and clear barrier_wait. */
		c->barrier_wait = 1;
		c->pc += 4; /* arrival is the side effect; resume after it */
		c->instret++;
		c->u.ctr[CTR_CONTROL_INSNS]++;
		if ((rc = c->sync.ops->barrier_arrive(c->sync.ctx, c->core)))
			return rc;
		if (!c->barrier_wait)
			return 2; /* released at once: already advanced */
		ctl_stall(c, ST_STALL_BARRIER);
		return 1;
	case ISA_OP_RSIG: {
		/* Remote signal: the chip delivers it after the NoC latency
		 * (sync.remote_signal); the sender does not wait. */
		uint64_t to = c->x[in->rs1];

		if (to >= (uint64_t)c->part_size && c->part_size == c->n_cores)
			return ctl_fault(c, now, "rsig to core %" PRIu64 ": the chip has %d cores",
					 to, c->n_cores);
		if (to >= (uint64_t)c->part_size)
			return ctl_fault(c, now, "rsig to core %" PRIu64 ": this core's partition has %d cores (chip cores %d-%d)",
					 to, c->part_size, c->part_base,
					 c->part_base + c->part_size - 1);
		return c->sync.ops->remote_signal(c->sync.ctx, c->core,
						  c->part_base + (int)to,
						  in->sem);
	}
	default:
		break;
	}

	/* Tile instructions: build the command from the registers and the
	 * configuration snapshot now, at dispatch; the unit never reads the
	 * control unit's state later (tile.h). */
	e.kind = Q_CMD;
	e.cmd.pc = c->pc;
	e.cmd.op = (int)in->op;
	e.cmd.issued = now;
	e.cmd.sym = c->prog.sym;
	if (oi->unit == ISA_UNIT_MTX) {
		qi = ISA_UID_MTX - 1;
		if ((rc = ctl_mtx_cmd(c, in, &e.cmd)))
			return rc;
	} else if (oi->unit == ISA_UNIT_VEC) {
		qi = ISA_UID_VEC - 1;
		ctl_vec_cmd(c, in, &e.cmd);
	} else if (oi->unit == ISA_UNIT_DMA) {
		/* dmar names the engine in rs1, dma in its immediate */
		uint64_t eng_i = oi->flags & ISA_RD_RS1 ? c->x[in->rs1] :
							  (uint64_t)in->imm;

		/* n_xq - 2 = core.dma.engines (queues 0 and 1 are mtx, vec). */
		if (eng_i >= (uint64_t)(c->n_xq - 2))
			return ctl_fault(c, now, "DMA engine %" PRIu64 " does not exist (core.dma.engines = %d)",
					 eng_i, c->n_xq - 2);
		qi = ISA_UID_DMA0 - 1 + (int)eng_i;
		ctl_dma_desc(c, &e.cmd.u.d);
	} else {
		return ctl_fault(c, now, "instruction %s has no execution unit", oi->name);
	}
	rc = ctl_enqueue(c, qi, &e);
	if (rc == 1) {
		ctl_stall(c, ST_STALL_QUEUE);
		return 1;
	}
	if (rc)
		return rc;
	/* Only now does the command exist: give it its sequence number (a
	 * command refused by a full queue is re-built on retry, so ids have
	 * no gaps and follow program order on this core). */
	{
		struct xq *q = &c->xq[qi];
		struct qent *slot = &q->q[(q->head + q->n - 1) % q->cap];

		slot->cmd.id = c->next_id++;
		c->trc_seq = (int64_t)slot->cmd.id;
		if (c->hz)
			hz_on_dispatch(c->hz, c->core, qi + 1, &slot->cmd, now);
	}
	c->u.ctr[CTR_CONTROL_DISPATCHED]++;
	if (oi->flags & ISA_POSTINC)
		ctl_post_increment(c, in, now);
	return 0;
}

/*
 * Issue instructions from pc starting no earlier than the current cycle.
 * Scalar instructions advance a local clock; anything that touches the
 * rest of the chip waits for the engine's clock to catch up (a STEP event).
 *
 * One iteration issues one instruction at cycle ti = max(t, operands
 * ready) and sets t to the earliest cycle the next one may issue: ti + 1,
 * or ti + branch_latency after a taken branch.  Returns 0 with a STEP or
 * WAKE arranged (or the core halted), or NPU_E* on a fault.
 */
static int ctl_run(struct ctl *c)
{
	cycle_t now = eng_now(c->u.eng);
	cycle_t t = c->t_next > now ? c->t_next : now;
	cycle_t lat[ISA_N_LATS];
	int n, rc;

	/* Result latency per class, looked up once per batch rather than
	 * per instruction (the loop below is the simulator's scalar hot
	 * path). */
	for (n = 0; n < ISA_N_LATS; n++)
		lat[n] = ctl_latency(c, (enum isa_lat)n);
	c->step_pending = 0;
	for (n = 0; n < CTL_BATCH; n++) {
		const struct isa_insn *in;
		const struct isa_op_info *oi;
		uint64_t idx = c->pc / 4;
		cycle_t ti;

		if (t > c->max_cycles) /* the watchdog ends the run first */
			return ctl_step_at(c, t);
		/* A jump can land anywhere: fetch checks the pc every time. */
		if (c->pc % 4 || idx >= c->prog.n)
			return ctl_fault(c, t, "pc 0x%" PRIx64 " is outside the program (%zu instructions)",
					 c->pc, c->prog.n);
		/* Data words in the code section decode as illegal; only
		 * executing one is a fault (the program is decoded once). */
		if (!c->prog.legal[idx])
			return ctl_fault(c, t, "illegal instruction word 0x%08x",
					 c->prog.words[idx]);
		in = &c->prog.insns[idx];
		oi = &isa_op_info[in->op];
		/* A marker reads no register and takes no issue slot: it acts
		 * at t, once the engine is there (its snapshot is of cycle
		 * t), and the next instruction still issues at t. */
		if (oi->unit == ISA_UNIT_MARK) {
			if (t > now)
				return ctl_step_at(c, t);
			if (c->trace_insns)
				ctl_print_insn(c, in, t);
			c->t_cur = t;
			if ((rc = ctl_region_marker(c, in, t)))
				return rc;
			c->pc += 4;
			continue;
		}
		ti = ctl_operands_ready(c, in, t);
		/*
		 * Meet the world on time; and past the watchdog's limit run
		 * nothing (the STEP event beyond it ends the run), so that a
		 * timed-out core's state is that of the limit's cycle, not
		 * of wherever its local clock had got to.
		 */
		if ((oi->unit != ISA_UNIT_CTL && oi->unit != ISA_UNIT_CFG &&
		     ti > now) || ti > c->max_cycles)
			return ctl_step_at(c, ti);
		c->t_cur = ti;
		if (c->trace_insns)
			ctl_print_insn(c, in, ti);

		/* Scalar and configuration instructions: the op's handler
		 * (ctl_exec_fns), on the local clock. */
		if (oi->unit == ISA_UNIT_CTL || oi->unit == ISA_UNIT_CFG) {
			struct ctl_exec x;

			x.in = in;
			x.a = c->x[in->rs1];
			x.b = (oi->flags & ISA_RD_RS2) ? c->x[in->rs2] :
							 (uint64_t)in->imm;
			x.ti = ti;
			x.ready = ti + lat[oi->lat];
			x.next_pc = c->pc + 4;
			x.next_t = ti + 1;
			rc = ctl_exec_fns[in->op](c, &x);
			if (rc >= 0 && eng_trace(c->u.eng))
				ctl_trace_insn(c, c->pc, ti, -1);
			if (rc == CTL_STOP) {
				/* Halted.  Units may already be drained: look
				 * at the halt cycle. */
				if (ti > now)
					return ctl_wake_at(c, ti);
				ctl_check_done(c);
				return 0;
			}
			if (rc)
				return rc;
			if (oi->unit == ISA_UNIT_CTL)
				c->u.ctr[CTR_CONTROL_SCALAR_INSNS]++;
			c->u.ctr[CTR_CONTROL_INSNS]++;
			c->instret++;
			c->pc = x.next_pc;
			t = x.next_t;
			continue;
		}
		c->trc_seq = -1;
		rc = ctl_exec_world(c, in);
		if (rc < 0)
			return rc;
		/* Issued now (0), or a barrier released at once (2, pc
		 * already past it); a stalled instruction (1) gets its slice
		 * when it completes. */
		if (rc != 1 && eng_trace(c->u.eng))
			ctl_trace_insn(c, rc == 2 ? c->pc - 4 : c->pc, ti,
				       c->trc_seq);
		/* Stalls begin only at ti == now (the check above), so the
		 * retry after the stall is at or after now. */
		if (rc == 1) { /* stalled: resume from a WAKE */
			c->t_next = now;
			return 0;
		}
		if (rc == 2) { /* barrier released at once */
			t = ti + 1;
			continue;
		}
		c->u.ctr[CTR_CONTROL_INSNS]++;
		c->instret++;
		c->pc += 4;
		t = ti + 1;
	}
	return ctl_step_at(c, t); /* batch limit: continue in a later event */
}

/*
 * The control unit's event handler.  Every kind ends in the same steps:
 * pump the unit queues (a signal or a freed unit may let entries move),
 * then, if a stall is over, charge it and resume issue.  STEP is the only
 * event that issues without a stall to end.
 */
static int ctl_on_event(struct unit *u, const struct ev *ev)
{
	struct ctl *c = to_ctl(u);
	int rc, moved;

	switch (ev->kind) {
	case CTL_EV_STEP:
		/* A step that finds the unit stalled or halted is moot: the
		 * WAKE that ends the stall resumes issue itself. */
		if (c->st != ST_RUN)
			return 0;
		return ctl_run(c);
	case CTL_EV_RSIG:
		c->sem[ev->arg]++;
		if (c->hz)
			hz_on_remote_signal(c->hz, c->core, (int)ev->arg,
					    eng_now(u->eng));
		break;
	default: /* CTL_EV_WAKE */
		/* The WAKE ctl_wake_at remembered has arrived: a new one for
		 * this cycle (scheduled while handling it) must not be
		 * suppressed as a duplicate. */
		if (c->wake_valid && c->wake_at == eng_now(u->eng))
			c->wake_valid = 0;
		break;
	}
	if ((rc = ctl_pump(c, &moved)))
		return rc;
	if (c->st == ST_HALTED) {
		ctl_check_done(c);
		return 0;
	}
	if (c->st != ST_RUN && c->st != ST_DONE && ctl_stall_over(c)) {
		int was_fence = c->st == ST_STALL_FENCE;
		int was_barrier = c->st == ST_STALL_BARRIER;

		ctl_unstall(c);
		/* A barrier or fence completes now: its slice follows the
		 * stall's span (the others re-issue through ctl_run). */
		if ((was_barrier || was_fence) && eng_trace(u->eng))
			ctl_trace_insn(c, was_barrier ? c->pc - 4 : c->pc,
				       eng_now(u->eng), -1);
		if (was_barrier) {
			/*
			 * The barrier retired when this core arrived; it
			 * completes in the release cycle, in which the last
			 * core to arrive issues its own barrier.  Like that
			 * core, this one issues the next instruction one
			 * cycle later, so every core leaves a barrier in
			 * the same cycle.
			 */
			c->t_next = eng_now(u->eng) + 1;
			return ctl_step_at(c, c->t_next);
		}
		if (was_fence) {
			/* The fence instruction completes now. */
			if (c->hz)
				hz_on_fence(c->hz, c->core, c->stall_mask,
					    eng_now(u->eng));
			c->pc += 4;
			c->instret++;
			c->u.ctr[CTR_CONTROL_INSNS]++;
			c->t_next = eng_now(u->eng) + 1;
			return ctl_step_at(c, c->t_next);
		}
		/* A queue-full, semaphore or barrier stall ended: the stalled
		 * instruction is re-executed by ctl_run (pc did not move),
		 * unless a STEP is already on its way to do it. */
		if (c->step_pending)
			return 0;
		return ctl_run(c);
	}
	return 0;
}


static void ctl_destroy(struct unit *u)
{
	struct ctl *c = to_ctl(u);
	int i;

	ctl_region_free(c);
	for (i = 0; i < c->n_xq; i++)
		free(c->xq[i].q);
	free(c->xq);
	free(c->smem);
	free(c);
}

static const struct unit_ops ctl_ops = {
	.kind = UNIT_CONTROL,
	.on_event = ctl_on_event,
	.blocked = ctl_report_blocked,
	.dump = NULL,
	.destroy = ctl_destroy,
};

/*
 * Architectural state at the start of a program: registers, semaphores,
 * pc 0, the configuration registers at the chip's defaults, an empty
 * scalar data memory.  Counters are not state: they keep counting across
 * programs (phases), and the memories outside the core keep their bytes.
 */
static void ctl_reset_state(struct ctl *c)
{
	const struct arch *a = c->a;

	memset(c->x, 0, sizeof(c->x));
	memset(c->ready, 0, sizeof(c->ready));
	memset(c->sem, 0, sizeof(c->sem));
	memset(&c->mcfg, 0, sizeof(c->mcfg));
	memset(&c->vcfg, 0, sizeof(c->vcfg));
	memset(c->smem, 0, c->smem_bytes);
	c->pc = 0;
	c->mpre_addr = 0;
	c->mpre_valid = 0;
	c->st = ST_RUN;
	c->barrier_wait = 0;
	c->finish = 0;
	c->halt_end = 0;
	/* Configuration registers start from the chip's defaults. */
	c->mcfg.dataflow = ARCH_E(a, MTX_DATAFLOW);
	c->mcfg.in_type = dtype_from_name(arch_enum_name(a, P_MTX_IN_TYPE));
	c->mcfg.acc_type = dtype_from_name(arch_enum_name(a, P_MTX_ACC_TYPE));
	c->mcfg.out_type = c->mcfg.in_type;
	c->mcfg.out_scale = 1.0f;
	/* Vector and DMA defaults: int8 rows of one row in the scratchpad;
	 * a DMA of 1-byte elements from DRAM to the scratchpad. */
	c->vcfg.type = DT_INT8;
	c->vcfg.out_type = DT_INT8;
	c->vcfg.rows = 1;
	c->vcfg.d_mem = MEM_SPM;
	c->vcfg.s_mem = MEM_SPM;
	c->vcfg.scale = 1.0f;
	ctl_dreg_defaults(c);
}

struct unit *ctl_new(eng *e, const struct arch *a, const struct ctl_params *p)
{
	struct ctl *c = calloc(1, sizeof(*c));
	static const struct ctl_prog empty = { NULL, NULL, NULL, 0, NULL };

	if (!c)
		return NULL;
	unit_init(&c->u, &ctl_ops, e, p->core, "core%d.control", p->core);
	c->a = a;
	c->sync = p->sync;
	c->n_cores = p->n_cores;
	c->core = p->core;
	c->part_size = p->n_cores;
	c->prog = empty;
	/* Fixed for the chip's life: the options are set before any unit
	 * runs. */
	c->trace_insns = p->trace_insns;
	c->max_cycles = p->max_cycles;
	c->smem_bytes = (size_t)ARCH_I(a, CTL_SMEM_BYTES);
	c->smem = calloc(1, c->smem_bytes);
	if (!c->smem) {
		free(c);
		return NULL;
	}
	/* Latencies are read once: ARCH_I is a table lookup, and these are
	 * needed on every scalar instruction. */
	c->lat_alu = (int)ARCH_I(a, CTL_ALU_LAT);
	c->lat_mul = (int)ARCH_I(a, CTL_MUL_LAT);
	c->lat_div = (int)ARCH_I(a, CTL_DIV_LAT);
	c->lat_mem = (int)ARCH_I(a, CTL_MEM_LAT);
	c->lat_br = (int)ARCH_I(a, CTL_BRANCH_LAT);
	c->lat_disp = (int)ARCH_I(a, CTL_DISPATCH_LAT);
	ctl_reset_state(c);
	return &c->u;
}

/* Units notify with a WAKE: the same path as a dispatch becoming visible,
 * so a freed slot and a finished command are handled alike (ctl_pump). */
struct tile_listener ctl_listener(struct unit *ctl)
{
	struct tile_listener l = { ctl, CTL_EV_WAKE };

	return l;
}

int ctl_attach(struct unit *ctl, const struct ctl_xu *xus, int n_xu)
{
	struct ctl *c = to_ctl(ctl);
	int i, depth = (int)ARCH_I(c->a, CTL_QUEUE_DEPTH);

	/* On NPU_ENOMEM part of the queues may exist; n_xq is already set so
	 * ctl_destroy frees exactly what was allocated (calloc'd NULLs). */
	c->xq = calloc((size_t)n_xu, sizeof(*c->xq));
	if (!c->xq)
		return NPU_ENOMEM;
	c->n_xq = n_xu;
	for (i = 0; i < n_xu; i++) {
		c->xq[i].xu = xus[i];
		c->xq[i].cap = depth;
		c->xq[i].q = calloc((size_t)depth, sizeof(struct qent));
		if (!c->xq[i].q)
			return NPU_ENOMEM;
		isa_unit_id_name((unsigned)i + 1, c->xq[i].name,
				 sizeof(c->xq[i].name));
	}
	return 0;
}

void ctl_set_hazard(struct unit *ctl, struct hz *hz) { to_ctl(ctl)->hz = hz; }

int ctl_set_program(struct unit *ctl, const struct ctl_prog *prog)
{
	struct ctl *c = to_ctl(ctl);

	/* Only between programs: a running core's queues hold its commands. */
	if (c->st != ST_RUN && c->st != ST_DONE)
		return NPU_EINTERNAL;
	c->prog = *prog;
	ctl_reset_state(c);
	return ctl_region_install(c);
}

void ctl_set_partition(struct unit *ctl, int base, int size)
{
	struct ctl *c = to_ctl(ctl);

	c->part_base = base;
	c->part_size = size;
}

/* The program's first instruction issues at cycle t (0 for the first
 * program; where the previous phase ended for the next). */
int ctl_start(struct unit *ctl, cycle_t t)
{
	struct ctl *c = to_ctl(ctl);
	int i;

	c->t_next = t;
	c->wake_valid = 0;
	for (i = 0; i < 32; i++)
		c->ready[i] = t;
	return ctl_step_at(c, t);
}

uint8_t *ctl_smem(struct unit *ctl) { return to_ctl(ctl)->smem; }
size_t ctl_smem_size(const struct unit *ctl) { return to_cctl(ctl)->smem_bytes; }
/* r & 31: a caller's bad register number cannot read outside x[]. */
uint64_t ctl_reg(const struct unit *ctl, int r) { return to_cctl(ctl)->x[r & 31]; }
int ctl_finished(const struct unit *ctl) { return to_cctl(ctl)->st == ST_DONE; }

enum ctl_where ctl_where(const struct unit *ctl, uint64_t *pc)
{
	const struct ctl *c = to_cctl(ctl);

	*pc = c->pc;
	return c->st == ST_DONE ? CTL_DONE : c->st == ST_RUN ? CTL_RUNNING
							     : CTL_WAITING;
}
cycle_t ctl_finish_cycle(const struct unit *ctl) { return to_cctl(ctl)->finish; }

/* Deliver an rsig at cycle 'when' (chip.c computes the NoC delay).  At
 * EV_PRI_WAKE, so a wait of that cycle sees the signal. */
int ctl_remote_signal(struct unit *ctl, int sem, cycle_t when)
{
	return eng_schedule(ctl->eng, when, EV_PRI_WAKE, ctl, CTL_EV_RSIG,
			    (uint64_t)sem);
}

/* Called by the chip for every core when the last one arrives, inside
 * that core's barrier instruction; the others resume from a WAKE of the
 * same cycle and issue their next instruction one cycle later. */
int ctl_barrier_release(struct unit *ctl)
{
	struct ctl *c = to_ctl(ctl);

	c->barrier_wait = 0;
	if (c->st != ST_STALL_BARRIER)
		return 0; /* the arriving core: it continues by itself */
	return eng_schedule(ctl->eng, eng_now(ctl->eng), EV_PRI_WAKE, ctl,
			    CTL_EV_WAKE, 0);
}

int ctl_queue_len(const struct unit *u, int id)
{
	const struct ctl *c = to_cctl(u);

	return id >= 1 && id <= c->n_xq ? c->xq[id - 1].n : 0;
}

