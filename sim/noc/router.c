/*
 * router.c - the routers of the network (noc_int.h): route computation
 * (dimension order; the tree of a multicast), input VCs with their flit
 * buffers and the RC and VA stage queues, switch traversal of the flits
 * the allocators (alloc.c) grant - onto the network's calendar towards
 * the next router, or out of the ejection port to the NI - and the
 * credits a freed buffer slot sends upstream.
 *
 * A router's cycle (router_step): the VCs whose RC or VA stage has ended
 * join the allocators' candidates; VA runs if a head is past its RC; SA
 * runs if a VC is past its VA stage; the flits SA granted cross in the
 * order it gives.  A router touches only its own state in a cycle (what
 * it sends lands at least one cycle later), so the network may step its
 * routers in any order.
 *
 * Invariants:
 *  - an input VC never holds more than buf_depth flits: a flit arriving
 *    at a full one is a broken credit protocol (NPU_EINTERNAL);
 *  - the head of a VC's front packet goes through RC once (ivc_new_head)
 *    and leaves IVC_IDLE; the VC returns to IVC_IDLE when the tail leaves;
 *  - a multicast flit leaves its buffer (and frees its slot's credit)
 *    once every branch of its tree here has sent it.
 *
 * Cost: router_step_all visits only the routers holding flits (the act
 * bitmap) and is one call per tick: the per-router step is inlined into
 * its loop (out of line it cost the network 8-35 M instructions on the
 * 128x128 GEMM, docs/performance.md).
 */
#include <stdlib.h>
#include <string.h>

#include "noc_int.h"

/* ---- route computation ------------------------------------------------------*/

/* Networks of up to this many nodes keep their routes in a table (at most
 * 1 MiB): a head's route is one load. */
#define NOC_RT_NODES 1024

/* The routing function of RC: the output port of the dimension-order
 * route from router node to dst, each dimension the shorter way round on
 * a torus.  Static: the multicast tree's walks inline it (exported, it
 * was a call per step, 1.5 % of a router-multicast run). */
static int route(const struct noc *n, int node, int dst)
{
	const struct noc_params *p = &n->p;
	const struct router *a = &n->r[node], *b = &n->r[dst];
	int dx = b->x - a->x, dy = b->y - a->y;

	if (p->torus) {
		dx = dim_delta(a->x, b->x, p->cols, 1);
		dy = dim_delta(a->y, b->y, p->rows, 1);
	}

	if (p->yx && dy)
		return dy > 0 ? NOC_SOUTH : NOC_NORTH;
	if (dx)
		return dx > 0 ? NOC_EAST : NOC_WEST;
	if (dy)
		return dy > 0 ? NOC_SOUTH : NOC_NORTH;
	return NOC_LOCAL;
}

/* 1 if the dimension-order route from src to dst passes router 'node'
 * (its ends included).  Walks the route: at most cols + rows steps. */
static int on_route(const struct noc *n, int src, int dst, int node)
{
	int cur = src;

	for (;;) {
		if (cur == node)
			return 1;
		if (cur == dst)
			return 0;
		cur = n->r[cur].nbr[route(n, cur, dst)];
	}
}

/*
 * The output ports a multicast packet leaves router 'node' on: those of
 * the routes to every destination whose route from the source passes
 * here.  The union of the unicast routes is a tree (each router has one
 * route to each destination), so every destination gets exactly one copy
 * and no link carries a flit twice.
 */
static uint8_t mc_branches(const struct noc *n, int node, uint32_t slot)
{
	const uint64_t *d = &n->mcs[(size_t)slot * (size_t)n->n_words];
	int src = n->pk[slot].src, w;
	uint8_t b = 0;

	for (w = 0; w < n->n_words; w++) {
		uint64_t m = d[w];

		while (m) {
			int dst = w * 64 + __builtin_ctzll(m);

			m &= m - 1;
			if (on_route(n, src, dst, node))
				b |= (uint8_t)(1u << route(n, node, dst));
		}
	}
	return b;
}

int router_routes(struct noc *n)
{
	int i, d;

	if (n->n_nodes > NOC_RT_NODES)
		return 0;
	n->rt = malloc((size_t)n->n_nodes * (size_t)n->n_nodes);
	if (!n->rt)
		return NPU_ENOMEM;
	for (i = 0; i < n->n_nodes; i++)
		for (d = 0; d < n->n_nodes; d++)
			n->rt[(size_t)i * (size_t)n->n_nodes + (size_t)d] =
				(uint8_t)route(n, i, d);
	return 0;
}

/* ---- input VCs and arrivals -------------------------------------------------*/

/* The front flit of an input VC became a head at cycle 'from' (in the
 * tick of cycle now): route it and start its RC. */
static inline __attribute__((always_inline)) void
ivc_new_head(struct noc *n, int node, struct ivc *iv, cycle_t from, cycle_t now)
{
	const struct flit *f = &iv->buf[iv->head];
	const struct pkt *pk = &n->pk[f->pkt];
	struct router *r = &n->r[node];
	cycle_t ready = (f->arrive > from ? f->arrive : from) +
			(cycle_t)n->p.t_rc;

	if (pk->mc) {
		iv->branches = mc_branches(n, node, f->pkt);
		iv->out_port = (uint8_t)__builtin_ctz(iv->branches);
		r->mc[iv->k].bdone = 0;
		memset(r->mc[iv->k].bpos, 0, sizeof(r->mc[iv->k].bpos));
	} else {
		/* bdone and bpos are a multicast's alone */
		iv->branches = 0;
		iv->out_port = n->rt ? n->rt[(size_t)node * (size_t)n->n_nodes +
					     (size_t)pk->dst]
				     : (uint8_t)route(n, node, pk->dst);
	}
	iv->state = IVC_VA;
	r->n_va++;
	if (ready <= now)
		va_add(r, iv);
	else
		due_push(n, r->rcq, r->rcq_h, &r->rcq_n, ready, iv->k);
}

/* The credit of a tail reached counter idx of n->cred with
 * wait_for_tail_credit: the output VC (or the NI's VC) its packet held
 * is free again. */
static void tail_credit(struct noc *n, uint32_t idx)
{
	const uint32_t pv = (uint32_t)n->pv, V = (uint32_t)n->p.vcs;
	const uint32_t routers = (uint32_t)n->n_nodes * pv;

	if (idx < routers) {
		struct router *r = &n->r[idx / pv];
		uint32_t k = idx % pv;

		if (r->tail_wait[k]) {
			r->tail_wait[k] = 0;
			r->free_m[k / V] |= (uint16_t)(1u << (k % V));
		}
	} else {
		idx -= routers;
		n->ni[idx / V].owned[idx % V] = 0;
	}
}

/* The calendar's items for cycle c: flits into input buffers, credits
 * to output VCs and NIs.  (Out of noc_tick's file: inlined into it, it
 * competed with the router loop for registers, 1-2 % more instructions
 * in the network.) */
void router_arrivals(struct noc *n, cycle_t c)
{
	/* Locals: the stores below could alias the calendar's arrays and
	 * the parameters for the compiler, which would reload them per item.
	 * Nothing adds to this cycle's items while they are walked (whatever
	 * a tick schedules lands at least one cycle later). */
	uint32_t nf, nc;
	const struct arrival *const fv = cal_take(n->arr, c, NOC_LANE_FLIT, &nf);
	const struct credit *const cv = cal_take(n->arr, c, NOC_LANE_CREDIT, &nc);
	const int depth = n->p.buf_depth, wait_tail = n->p.wait_tail;
	struct router *const rs = n->r;
	int *const cred = n->cred;
	uint32_t i;

	for (i = 0; i < nf; i++) {
		const struct arrival *it = &fv[i];
		struct router *r = &rs[it->node];
		struct ivc *iv = &r->in[it->k];
		int held = iv->n; /* a local: the store below must not be
				     read back (a stalled load) */

		if (held >= depth) {
			n->oom = -1; /* credit protocol broken: a bug */
			continue;
		}
		iv->buf[wrap(iv->head + held, depth)] = it->f;
		iv->n = (uint16_t)(held + 1);
		/* a router's act bit is set exactly while it holds flits, a
		 * VC's ne_m bit while it does */
		if (!r->n_buf++)
			bit_set(n->act, it->node);
		if (!held) {
			r->ne_m[iv->port] |= (uint16_t)(1u << iv->vc);
			if (iv->state == IVC_IDLE)
				ivc_new_head(n, it->node, iv, c, c);
		}
	}
	/* (two loops: the test of the rare mode out of the common one) */
	if (!wait_tail)
		for (i = 0; i < nc; i++)
			cred[cv[i].idx]++;
	else
		for (i = 0; i < nc; i++) {
			cred[cv[i].idx]++;
			if (cv[i].tail)
				tail_credit(n, cv[i].idx);
		}
}

/*
 * Packet slot's tail reaches node's NI at cycle 'at' (an ejection): its
 * delivery, which noc.c's DELIVER event hands to the NI.  Every delivery of
 * a cycle comes from the one tick at - (t_sa + t_st + 1), during which no
 * other unit schedules anything: one event per cycle for all of them, at
 * the place the first one's would have had, dispatches them in the same
 * order as one event each did (2 M fewer events in ResNet-50 on tpu-v1).
 */
static void eject_at(struct noc *n, cycle_t at, int node, uint32_t slot)
{
	int first = !cal_count(n->dlv, at, 0);
	uint64_t *v = cal_add(n->dlv, at, 0, sizeof(*v));

	if (!v || (first && eng_schedule(n->u.eng, at, EV_PRI_COMPLETE, &n->u,
					 NOC_EV_DELIVER, 0))) {
		n->oom = 1;
		return;
	}
	*v = (uint64_t)node << 32 | slot;
}


/* ---- switch traversal -------------------------------------------------------*/

/*
 * Flit f of input VC iv crosses the switch to output o: onto the link to
 * the next router or out of the ejection port; a tail gives the output VC
 * back (at once, or at its credit with wait_for_tail_credit).  The output
 * VC is the one VA gave iv (mc 0: with the indexes VA kept, read where
 * they are used), or a multicast branch's, bvc (mc 1; NOC_NO_VC on the
 * ejection branch).  mc is a constant at each call: the other case folds
 * away.
 */
static inline __attribute__((always_inline)) void
flit_send(struct noc *n, int node, struct router *r, const struct ivc *iv,
	  const struct flit *f, int o, int mc, int bvc, cycle_t c)
{
	const int V = n->p.vcs;
	struct arrival *it;

	r->flits++;
	r->link_flits[o]++;
	if (o == NOC_LOCAL) {
		/* ejection: the NI sinks every flit; the tail completes */
		cycle_t at = c + n->d_eject;

		n->u.ctr[CTR_NOC_FLITS]++;
		if (at >= n->win_lo && at < n->win_hi)
			n->win_flits++;
		if (f->tail)
			eject_at(n, at, node, f->pkt);
	} else {
		cycle_t at = c + n->d_link;

		if ((it = cal_add(n->arr, at, NOC_LANE_FLIT, sizeof(*it)))) {
			it->node = r->nbr[o];
			it->k = mc ? (uint16_t)(opposite(o) * V + bvc) : iv->dk;
			it->f = *f;
			it->f.arrive = at;
		} else {
			n->oom = 1;
		}
		r->cred[mc ? o * V + bvc : iv->oidx]--;
		n->u.ctr[CTR_NOC_HOPS]++;
	}
	if (f->tail && (!mc || bvc != NOC_NO_VC)) {
		if (o != NOC_LOCAL && n->p.wait_tail)
			r->tail_wait[mc ? o * V + bvc : iv->oidx] = 1;
		else
			r->free_m[o] |= (uint16_t)(1u << (mc ? bvc : iv->out_vc));
	}
}

/* Input VC iv of router r frees its front slot at cycle c: its credit
 * goes upstream, to the network interface for the local port (tail: the
 * slot held a packet's last flit). */
static inline void slot_free(struct noc *n, struct router *r,
			     struct ivc *iv, int tail, cycle_t c)
{
	int ip = iv->port, vc = iv->vc;
	struct credit *cr;

	iv->head = (uint16_t)wrap(iv->head + 1, n->p.buf_depth);
	if (!--iv->n)
		r->ne_m[ip] &= (uint16_t)~(1u << vc);
	r->n_buf--;
	if ((cr = cal_add(n->arr, c + (cycle_t)n->p.t_credit, NOC_LANE_CREDIT,
			  sizeof(*cr)))) {
		*cr = iv->up;
		cr->tail = (uint8_t)tail;
	} else {
		n->oom = 1;
	}
}

/* A packet's tail left input VC iv (port ip, VC vc: read by the caller
 * before its stores, which the compiler must assume may change them) at
 * cycle c: the VC leaves SA and, if the next packet's head is buffered,
 * that head starts its RC. */
static inline __attribute__((always_inline)) void
tail_left(struct noc *n, int node, struct router *r, struct ivc *iv, int ip,
	  int vc, cycle_t c)
{
	iv->state = IVC_IDLE;
	if (!(r->act_m[ip] &= (uint16_t)~(1u << vc)))
		r->act_ports &= (uint8_t)~(1u << ip);
	if (iv->n)
		ivc_new_head(n, node, iv, c + 1, c);
}

/* The front flit of input VC 'in' has left on every output it goes to:
 * free its slot (the credit goes upstream) and start the next packet. */
static void flit_pop(struct noc *n, int node, struct router *r, int in,
		     cycle_t c)
{
	struct ivc *iv = &r->in[in];
	int ip = iv->port, vc = iv->vc;
	int tail = iv->buf[iv->head].tail;

	slot_free(n, r, iv, tail, c);
	if (iv->branches) {
		int k = __builtin_popcount(iv->branches) - 1, o;

		n->u.ctr[CTR_NOC_FLITS_REPLICATED] += (uint64_t)k;
		for (o = 0; o < NOC_N_PORTS; o++)
			if (iv->branches >> o & 1)
				r->mc[in].bpos[o]--;
	}
	if (tail)
		tail_left(n, node, r, iv, ip, vc, c);
}

/* The front flit of unicast input VC iv crosses the switch to its output
 * o and leaves the buffer: flit_send, then its slot frees (the path of
 * nearly every flit). */
static inline __attribute__((always_inline)) void
flit_move(struct noc *n, int node, struct router *r, struct ivc *iv, int o,
	  cycle_t c)
{
	struct flit f = iv->buf[iv->head];
	int ip = iv->port, vc = iv->vc;

	flit_send(n, node, r, iv, &f, o, 0, 0, c);
	/* the slot frees; its credit goes upstream */
	slot_free(n, r, iv, f.tail, c);
	if (f.tail)
		tail_left(n, node, r, iv, ip, vc, c);
}

/* Branch o of the multicast in input VC k sends its next flit; the front
 * flit leaves the buffer once every branch has sent it.  Branches advance
 * independently through the buffered packet (asynchronous replication):
 * one waiting for credits does not hold the others, so a tree never keeps
 * a VC on a free branch while it waits on another (with a packet that
 * fits in the buffer, which the config loader requires). */
static void mc_out(struct noc *n, int node, struct router *r, int k, int o,
		   cycle_t c)
{
	struct ivc *iv = &r->in[k];
	struct ivc_mc *m = &r->mc[k];
	int pos = m->bpos[o], b, all = 1;
	const struct flit *f = &iv->buf[wrap(iv->head + pos, n->p.buf_depth)];

	if (f->tail)
		m->bdone |= (uint8_t)(1u << o);
	flit_send(n, node, r, iv, f, o, 1, m->bvc[o], c);
	m->bpos[o]++;
	for (b = 0; b < NOC_N_PORTS; b++)
		if (iv->branches >> b & 1 && !m->bpos[b])
			all = 0;
	if (all)
		flit_pop(n, node, r, k, c);
}

/* ---- a router's cycle -------------------------------------------------------*/

/* One cycle of router 'node': the stage queues, the allocators, and the
 * flits SA granted cross in the order it gives.  Returns STEP_* flags. */
static inline __attribute__((always_inline)) int
router_step(struct noc *n, int node, cycle_t c)
{
	struct router *r = &n->r[node];
	const uint32_t dm = n->dq_cap - 1;
	struct alloc_grant w[NOC_N_PORTS];
	int g, j, m;

	r->occ_sum += (uint64_t)r->n_buf;
	/* the VCs whose RC or VA stage has ended join the allocators; those
	 * still in a stage make the router wait on time */
	for (; r->rcq_n && r->rcq[r->rcq_h].at <= c; r->rcq_n--) {
		va_add(r, &r->in[r->rcq[r->rcq_h].k]);
		r->rcq_h = (r->rcq_h + 1) & dm;
	}
	for (; r->saq_n && r->saq[r->saq_h].at <= c; r->saq_n--) {
		const struct ivc *iv = &r->in[r->saq[r->saq_h].k];

		r->act_m[iv->port] |= (uint16_t)(1u << iv->vc);
		r->act_ports |= (uint8_t)(1u << iv->port);
		r->saq_h = (r->saq_h + 1) & dm;
	}
	/* allocation only where some VC is past its stage's wait */
	g = r->n_va > (int)r->rcq_n ? alloc_va(n, r, c) : 0;
	if (r->act_ports) {
		/* the winners cross in the order SA gives them */
		m = alloc_sa(n, r, w);
		for (j = 0; j < m; j++) {
			struct ivc *iv = &r->in[w[j].k];

			if (!iv->branches)
				flit_move(n, node, r, iv, w[j].o, c);
			else
				mc_out(n, node, r, w[j].k, w[j].o, c);
		}
		g += m;
	}
	/* (a VC queued by the allocators themselves waits too: a grant, a
	 * tail's crossing, both progress anyway) */
	g = (g ? STEP_MOVED : 0) | (r->rcq_n | r->saq_n ? STEP_WAITS : 0);
	if (!r->n_buf)
		bit_clr(n->act, node);
	else
		g |= STEP_HOLDS;
	return g;
}

int router_step_all(struct noc *n, cycle_t c)
{
	int w, f = 0;

	for (w = 0; w < n->n_words; w++) {
		uint64_t m = n->act[w];

		while (m) {
			int i = w * 64 + __builtin_ctzll(m);

			m &= m - 1;
			n->st.router_visits++;
			f |= router_step(n, i, c);
		}
	}
	return f;
}

/* ---- construction -----------------------------------------------------------*/

/* ---- construction -----------------------------------------------------------*/

int router_init(struct noc *n, int i)
{
	struct router *r = &n->r[i];
	const struct noc_params *p = &n->p;
	int k, x = i % p->cols, y = i / p->cols;

	r->x = x;
	r->y = y;
	r->nbr[NOC_LOCAL] = -1;
	/* east/west along x, south/north along y; a torus closes each ring
	 * of 3 or more (the config refuses rings of 2) */
	r->nbr[NOC_EAST] = x + 1 < p->cols ? i + 1 : -1;
	r->nbr[NOC_WEST] = x > 0 ? i - 1 : -1;
	r->nbr[NOC_SOUTH] = y + 1 < p->rows ? i + p->cols : -1;
	r->nbr[NOC_NORTH] = y > 0 ? i - p->cols : -1;
	if (p->torus) {
		if (p->cols >= 3 && x == p->cols - 1) {
			r->nbr[NOC_EAST] = i - x;
			r->wrap[NOC_EAST] = 1;
		}
		if (p->cols >= 3 && x == 0) {
			r->nbr[NOC_WEST] = i + p->cols - 1;
			r->wrap[NOC_WEST] = 1;
		}
		if (p->rows >= 3 && y == p->rows - 1) {
			r->nbr[NOC_SOUTH] = x;
			r->wrap[NOC_SOUTH] = 1;
		}
		if (p->rows >= 3 && y == 0) {
			r->nbr[NOC_NORTH] = (p->rows - 1) * p->cols + x;
			r->wrap[NOC_NORTH] = 1;
		}
	}
	r->cred = &n->cred[(size_t)i * (size_t)n->pv];
	r->in = calloc((size_t)n->pv, sizeof(*r->in));
	r->mc = calloc((size_t)n->pv, sizeof(*r->mc));
	r->tail_wait = calloc((size_t)n->pv, 1);
	r->fbuf = calloc((size_t)n->pv * (size_t)p->buf_depth,
			 sizeof(*r->fbuf));
	r->rcq = calloc(n->dq_cap, sizeof(*r->rcq));
	r->saq = calloc(n->dq_cap, sizeof(*r->saq));
	if (!r->in || !r->mc || !r->tail_wait || !r->fbuf || !r->rcq || !r->saq)
		return NPU_ENOMEM;
	for (k = 0; k < NOC_N_PORTS; k++)
		r->free_m[k] = (uint16_t)((1u << p->vcs) - 1);
	for (k = 0; k < n->pv; k++) {
		r->in[k].buf = &r->fbuf[(size_t)k * (size_t)p->buf_depth];
		r->in[k].port = (uint8_t)(k / p->vcs);
		r->in[k].vc = (uint8_t)(k % p->vcs);
		r->in[k].k = (uint8_t)k;
		/* a freed slot's credit goes to the NI or to the output VC
		 * of the upstream router feeding this input VC */
		if (k / p->vcs == NOC_LOCAL)
			r->in[k].up.idx = (uint32_t)(n->n_nodes * n->pv +
						     i * p->vcs + k % p->vcs);
		else if (r->nbr[k / p->vcs] >= 0)
			r->in[k].up.idx = (uint32_t)(r->nbr[k / p->vcs] *
						     n->pv +
						     opposite(k / p->vcs) *
						     p->vcs + k % p->vcs);
		/* ejection never runs out of credits: the NI sinks */
		r->cred[k] = k / p->vcs == NOC_LOCAL ? 1 << 30 : p->buf_depth;
	}
	return 0;
}

void router_fini(struct router *r)
{
	free(r->fbuf);
	free(r->rcq);
	free(r->saq);
	free(r->mc);
	free(r->in);
	free(r->tail_wait);
}
