/*
 * noc.c - the flit-level network-on-chip (noc.h): building the network,
 * its network interfaces (source queues, injection, deliveries to the
 * senders), the order of a network cycle, counters and reports.  The
 * routers are router.c's, their allocators alloc.c's (noc_int.h shows how
 * the three share the state).  The header gives the timing contract and
 * the zero-load formula; docs/noc.md the model and how it maps to
 * BookSim.
 *
 * One tick = one network cycle, an event at EV_PRI_ARB (every request of
 * the cycle has been made).  A tick:
 *   1. delivers what the network's calendar (an engine calendar,
 *      calendar.h: not one event per flit, docs/noc.md "Cost") holds for
 *      this cycle: flits arriving in input buffers, credits arriving at
 *      upstream output VCs (router_arrivals);
 *   2. lets every NI with a packet waiting inject at most one flit;
 *   3. steps every router that holds flits (router_step_all): VA for
 *      heads whose RC is done, then switch allocation (separable, input
 *      first, one iteration), and the winners leave: onto the calendar for
 *      their next buffer, or out of the ejection port;
 *   4. schedules the next tick: the next cycle while any flit is buffered
 *      or waiting in an NI, else the cycle of the next calendar arrival,
 *      else none (the network is empty and costs nothing).
 * Anything a tick produces lands at least one cycle later (link latency,
 * credit delay and the NI channels are >= 1), so routers never see each
 * other's same-cycle decisions and their visiting order cannot change the
 * result.
 *
 * Invariants:
 *  - an input VC never holds more than buf_depth flits (credits), checked;
 *  - flits of one packet stay in order on one VC per link, and a VC is
 *    owned by one packet at a time from VA to the tail's SA (or to the
 *    tail's credit with wait_for_tail_credit);
 *  - on a torus a packet uses the upper half of the VCs from the link that
 *    wraps around until it leaves that dimension (dateline), so channel
 *    dependencies are acyclic and dimension-order routing cannot deadlock;
 *  - every packet sent is delivered exactly once (deliver event), and the
 *    flits injected equal the flits ejected once the network is empty.
 *
 * Cost: per active cycle, one visit per router holding flits (its VCs),
 * plus a scan of two bitmaps (one bit per node); nothing when idle.  A
 * stage with a single bidder (VA: one request, SA: one VC on one input)
 * decides it directly, without the allocators' loops.
 */
#include "noc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noc_int.h"

const char *const noc_class_names[NOC_N_CLS] = {
#define NOC_CLS_NAME(n, json, doc) json,
	NOC_CLASSES(NOC_CLS_NAME)
#undef NOC_CLS_NAME
};

const char *const noc_port_names[NOC_N_PORTS] = {
	"local", "east", "west", "south", "north"
};

/* Latencies kept exactly up to this many cycles (p99); longer ones count
 * in the last slot. */
#define NOC_HIST_EXACT 65536


/* ---- parameters and geometry --------------------------------------------*/

void noc_params_from_arch(const struct arch *a, struct noc_params *p)
{
	memset(p, 0, sizeof(*p));
	p->cols = (int)ARCH_I(a, NOC_COLS);
	p->rows = (int)ARCH_I(a, NOC_ROWS);
	p->torus = ARCH_E(a, NOC_TOPOLOGY) == ARCH_NOC_TOPOLOGY_TORUS;
	p->yx = ARCH_E(a, NOC_ROUTING) == ARCH_NOC_ROUTING_YX;
	p->vcs = (int)ARCH_I(a, NOC_VCS);
	p->buf_depth = (int)ARCH_I(a, NOC_BUF_DEPTH);
	p->flit_bytes = (int)ARCH_I(a, NOC_LINK_BYTES);
	p->t_rc = (int)ARCH_I(a, NOC_RC_DELAY);
	p->t_va = (int)ARCH_I(a, NOC_VA_DELAY);
	p->t_sa = (int)ARCH_I(a, NOC_SA_DELAY);
	p->t_st = (int)ARCH_I(a, NOC_ST_DELAY);
	p->t_link = (int)ARCH_I(a, NOC_LINK_LAT);
	p->t_credit = (int)ARCH_I(a, NOC_CREDIT_DELAY);
	p->speculative = ARCH_B(a, NOC_SPECULATIVE);
	p->wait_tail = ARCH_B(a, NOC_WAIT_TAIL);
	p->age = ARCH_E(a, NOC_PRIORITY) == ARCH_NOC_PRIORITY_AGE;
	p->inject_queue = (int)ARCH_I(a, NOC_INJECT_QUEUE);
	p->head_flit = ARCH_B(a, NOC_HEAD_FLIT);
}

/* VA grant -> first cycle SA may be won: t_va, or with speculation the
 * part of VA that SA does not hide. */
static int va_eff(const struct noc_params *p)
{
	int m = p->t_va > p->t_sa ? p->t_va : p->t_sa;

	return p->speculative ? m - p->t_sa : p->t_va;
}

int noc_hops(const struct noc_params *p, int src, int dst)
{
	int dx = dim_delta(src % p->cols, dst % p->cols, p->cols, p->torus);
	int dy = dim_delta(src / p->cols, dst / p->cols, p->rows, p->torus);

	return abs(dx) + abs(dy);
}

cycle_t noc_zero_load(const struct noc_params *p, int hops, uint32_t flits)
{
	cycle_t router = (cycle_t)(p->t_rc + va_eff(p) + p->t_sa + p->t_st);

	/* injection channel + routers + links + ejection channel + the
	 * flits behind the head, one per cycle */
	return 1 + (cycle_t)(hops + 1) * router + (cycle_t)hops * (cycle_t)p->t_link
	       + 1 + (flits ? flits - 1 : 0);
}

uint32_t noc_flits_for(const struct noc_params *p, uint64_t bytes)
{
	uint32_t data = (uint32_t)((bytes + (uint64_t)p->flit_bytes - 1) /
				   (uint64_t)p->flit_bytes);

	/* without a head flit the header rides beside the first data flit;
	 * a packet is still at least one flit */
	return p->head_flit ? 1 + data : data ? data : 1;
}

/* noc_hops from the routers' coordinates (no division on a mesh). */
static int route_hops(const struct noc *n, int src, int dst)
{
	const struct router *a = &n->r[src], *b = &n->r[dst];
	int dx = b->x - a->x, dy = b->y - a->y;

	if (n->p.torus) {
		dx = dim_delta(a->x, b->x, n->p.cols, 1);
		dy = dim_delta(a->y, b->y, n->p.rows, 1);
	}
	return abs(dx) + abs(dy);
}

/* ---- ticks ------------------------------------------------------------------*/

/* Make sure a tick happens at 'when' (an earlier one re-decides anyway). */
static int want_tick(struct noc *n, cycle_t when)
{
	if (n->tick_at <= when)
		return 0;
	n->tick_gen++; /* cancel a later one */
	n->tick_at = when;
	return eng_schedule_gen(n->u.eng, when, EV_PRI_ARB, &n->u, NOC_EV_TICK,
				0, &n->tick_gen);
}

/* ---- packets ----------------------------------------------------------------*/

static int pkt_alloc(struct noc *n, uint32_t *out)
{
	uint32_t i;

	if (n->pk_free == UINT32_MAX) {
		uint32_t cap = n->pk_cap ? n->pk_cap * 2 : 64;
		struct pkt *v = realloc(n->pk, cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		n->pk = v;
		for (i = cap; i-- > n->pk_cap;) {
			v[i].next_free = n->pk_free;
			n->pk_free = i;
		}
		n->pk_cap = cap;
	}
	*out = n->pk_free;
	n->pk_free = n->pk[*out].next_free;
	return 0;
}

/* ---- network interfaces -----------------------------------------------------*/

/*
 * Inject at most one flit of node i's NI in cycle c: continue the packet
 * being injected, or start the next queued one on a free local input VC
 * with a credit.  The flit enters the router's buffer at c + 1.  Returns
 * 1 if a flit went.  Inlined into its two callers, noc_send and noc_tick
 * (once per packet and once per waiting NI a cycle: the call was 1-2 % of
 * the network's instructions).
 */
static inline __attribute__((always_inline)) int
ni_inject(struct noc *n, int i, cycle_t c)
{
	struct ni *q = &n->ni[i];
	struct arrival *it;
	struct pkt *pk;
	int v = 0, k;

	if (q->last_inj == c + 1)
		return 0;            /* one flit per cycle */
	if (!q->busy) {
		if (!q->qn)
			return 0;
		for (k = 0; k < n->p.vcs; k++) {
			v = wrap(q->rr + k, n->p.vcs);
			if (!q->owned[v] && q->credits[v] > 0)
				break;
		}
		if (k == n->p.vcs)
			return 0;    /* every VC taken or full */
		q->busy = 1;
		q->cur = q->q[q->qh];
		q->qh = (q->qh + 1) & (q->qcap - 1);
		q->qn--;
		if (n->pk[q->cur].response)
			q->n_resp--;
		/* room again: refused senders retry from the next WAKE */
		if (q->n_w && !q->space_ev) {
			q->space_ev = 1;
			if (eng_schedule(n->u.eng, c + 1, EV_PRI_WAKE, &n->u,
					 NOC_EV_SPACE, (uint64_t)i))
				n->oom = 1;
		}
		q->cur_idx = 0;
		q->cur_vc = v;
		q->owned[v] = 1;
		q->rr = wrap(v + 1, n->p.vcs);
	}
	v = q->cur_vc;
	if (q->credits[v] <= 0)
		return 0;
	pk = &n->pk[q->cur];
	if ((it = cal_add(n->arr, c + 1, NOC_LANE_FLIT, sizeof(*it)))) {
		it->node = i;
		it->k = (uint16_t)(NOC_LOCAL * n->p.vcs + v);
		it->f.pkt = q->cur;
		it->f.idx = q->cur_idx & 0x7fffffffu;
		it->f.tail = q->cur_idx + 1 == pk->flits;
		it->f.arrive = c + 1;
	} else {
		n->oom = 1;
	}
	q->credits[v]--;
	n->u.ctr[CTR_NOC_FLITS_INJECTED]++;
	q->last_inj = c + 1;
	if (++q->cur_idx == pk->flits) {
		q->busy = 0;
		if (!n->p.wait_tail)
			q->owned[v] = 0; /* else at the tail's credit */
	}
	return 1;
}

static int ni_pending(const struct ni *q)
{
	return q->busy || q->qn;
}

/* Keep packet slot's destination bitmap; *count = its destinations. */
static int mc_store(struct noc *n, uint32_t slot, const uint64_t *dsts,
		    uint32_t *count)
{
	size_t w = (size_t)n->n_words;
	uint32_t k;

	if (n->mcs_cap < n->pk_cap) {
		uint64_t *v = realloc(n->mcs, (size_t)n->pk_cap * w * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		n->mcs = v;
		n->mcs_cap = n->pk_cap;
	}
	memcpy(&n->mcs[slot * w], dsts, w * sizeof(*dsts));
	*count = 0;
	for (k = 0; k < w; k++)
		*count += (uint32_t)__builtin_popcountll(dsts[k]);
	return *count ? 0 : NPU_EINTERNAL;
}

int noc_send(noc *n, const struct noc_msg *m)
{
	struct ni *q = &n->ni[m->src];
	cycle_t now = eng_now(n->u.eng);
	struct pkt *pk;
	uint32_t slot;
	int rc;

	if (m->src < 0 || m->src >= n->n_nodes || !m->flits ||
	    (!m->dsts && (m->dst < 0 || m->dst >= n->n_nodes)))
		return NPU_EINTERNAL;
	if (!m->response && !m->force && noc_room(n, m->src) <= 0)
		return NOC_FULL;
	if (q->qn == q->qcap) {
		uint32_t cap = q->qcap ? q->qcap * 2 : 8, k;
		uint32_t *v = malloc(cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		for (k = 0; k < q->qn; k++)
			v[k] = q->q[(q->qh + k) & (q->qcap - 1)];
		free(q->q);
		q->q = v;
		q->qh = 0;
		q->qcap = cap;
	}
	if ((rc = pkt_alloc(n, &slot)))
		return rc;
	pk = &n->pk[slot];
	pk->src = m->src;
	pk->dst = m->dst;
	pk->flits = m->flits;
	pk->cls = (uint8_t)m->cls;
	pk->created = now;
	pk->serial = n->serial++;
	pk->deliver = m->deliver;
	pk->ctx = m->ctx;
	pk->tag = m->tag;
	pk->response = (uint8_t)(m->response != 0);
	pk->mc = m->dsts != NULL;
	pk->left = 1;
	if (m->dsts && (rc = mc_store(n, slot, m->dsts, &pk->left)))
		return rc;
	q->n_resp += pk->response;
	q->q[(q->qh + q->qn) & (q->qcap - 1)] = slot;
	q->qn++;
	n->st.packets_sent++;
	n->st.in_flight++;
	/* The head goes in this very cycle when the NI is free, whatever the
	 * caller's phase: the zero-load latency does not depend on it. */
	(void)ni_inject(n, m->src, now);
	if (n->oom)
		return NPU_ENOMEM;
	if (ni_pending(q))
		bit_set(n->nipend, m->src);
	return want_tick(n, now + 1);
}

/* ---- deliveries and the tick ------------------------------------------------*/

static int noc_tick(struct noc *n, cycle_t c)
{
	int w, progress = 0, busy = 0, f = 0;
	cycle_t next = CYCLE_MAX;

	n->tick_at = CYCLE_MAX;
	n->st.ticks++;
	if (cal_pending(n->arr) && (cal_count(n->arr, c, NOC_LANE_FLIT) |
				    cal_count(n->arr, c, NOC_LANE_CREDIT))) {
		router_arrivals(n, c);
		progress = 1;
	}
	for (w = 0; w < n->n_words; w++) {
		uint64_t m = n->nipend[w];

		while (m) {
			int i = w * 64 + __builtin_ctzll(m);

			m &= m - 1;
			progress |= ni_inject(n, i, c);
			if (!ni_pending(&n->ni[i]))
				bit_clr(n->nipend, i);
			else
				busy = 1;
		}
	}
	f = router_step_all(n, c);
	if (n->oom)
		return n->oom < 0 ? NPU_EINTERNAL : NPU_ENOMEM;
	/*
	 * Next tick: the next cycle while flits wait in buffers or NIs -
	 * unless nothing moved, nothing is on its way and nothing waits on
	 * time, which no later cycle can change: the network is stuck (a
	 * deadlock the engine then reports with the packets still inside).
	 * Otherwise the cycle of the next calendar arrival, if any.
	 */
	if ((busy || f & STEP_HOLDS) &&
	    (progress || f & (STEP_MOVED | STEP_WAITS) || cal_pending(n->arr)))
		next = c + 1;
	else
		next = cal_next(n->arr, c + 1);
	return next == CYCLE_MAX ? 0 : want_tick(n, next);
}

/* The tail reached the NI of 'node': account and call the sender's
 * callback.  A multicast packet's slot lives until its last destination. */
static int noc_deliver(struct noc *n, uint32_t slot, int node, cycle_t now)
{
	struct pkt *pk = &n->pk[slot];
	struct cls_stat *cs = &n->cls[pk->cls];
	uint64_t lat = now - pk->created;
	noc_deliver_fn fn = pk->deliver;
	void *ctx = pk->ctx;
	uint64_t tag = pk->tag;
	/* dimension-order routes are minimal: a unicast packet took
	 * noc_hops hops, as the branch of a multicast tree to node did */
	uint32_t hops = (uint32_t)route_hops(n, pk->src, node);

	n->u.ctr[CTR_NOC_PACKETS]++;
	n->u.ctr[CTR_NOC_LATENCY_SUM] += lat;
	if (!cs->hist && !(cs->hist = calloc(NOC_HIST_EXACT, sizeof(uint32_t))))
		return NPU_ENOMEM;
	cs->packets++;
	cs->flits += pk->flits;
	cs->lat_sum += lat;
	cs->hops_sum += hops;
	if (lat > cs->lat_max)
		cs->lat_max = lat;
	cs->hist[lat < NOC_HIST_EXACT ? lat : NOC_HIST_EXACT - 1]++;
	if (--pk->left == 0) {
		n->st.in_flight--;
		pk->next_free = n->pk_free;
		n->pk_free = slot;
	}
	return fn ? fn(ctx, tag, node, now) : 0;
}

/* The deliveries of cycle 'now', in order (noc_deliver_at).  The callbacks
 * only send packets, which reach an NI no earlier than a later tick's
 * ejection: nothing joins this cycle's list while it is walked. */
static int noc_deliver_all(struct noc *n, cycle_t now)
{
	uint32_t i, cnt;
	const uint64_t *v = cal_take(n->dlv, now, 0, &cnt);
	int rc = 0;

	for (i = 0; i < cnt && !rc; i++)
		rc = noc_deliver(n, (uint32_t)v[i], (int)(v[i] >> 32), now);
	return rc;
}

/* Room in node's source queue: call every refused sender, in the order
 * they were refused (each is one-shot; a sender refused again re-asks). */
static int noc_space(struct noc *n, int node, cycle_t now)
{
	struct ni *q = &n->ni[node];
	uint32_t k, cnt = q->n_w, cap = q->cap_w;
	struct waiter *w = q->w;
	int rc = 0;

	q->space_ev = 0;
	if (!cnt)
		return 0;
	/* the refused wait in w; those refused again queue in the other */
	q->w = q->w2;
	q->cap_w = q->cap_w2;
	q->n_w = 0;
	for (k = 0; k < cnt && !rc; k++)
		rc = w[k].fn(w[k].ctx, now);
	q->w2 = w;
	q->cap_w2 = cap;
	return rc;
}

static int noc_on_event(struct unit *u, const struct ev *ev)
{
	struct noc *n = (struct noc *)u;

	if (ev->kind == NOC_EV_TICK)
		return noc_tick(n, ev->when);
	if (ev->kind == NOC_EV_SPACE)
		return noc_space(n, (int)ev->arg, ev->when);
	return noc_deliver_all(n, ev->when);
}

int noc_room(const noc *n, int node)
{
	const struct ni *q = &n->ni[node];

	if (!n->p.inject_queue)
		return INT32_MAX;
	return n->p.inject_queue - (int)(q->qn - q->n_resp);
}

int noc_want_space(noc *n, int node, noc_space_fn fn, void *ctx)
{
	struct ni *q = &n->ni[node];

	if (q->n_w == q->cap_w) {
		uint32_t cap = q->cap_w ? q->cap_w * 2 : 4;
		struct waiter *v = realloc(q->w, cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		q->w = v;
		q->cap_w = cap;
	}
	q->w[q->n_w].fn = fn;
	q->w[q->n_w].ctx = ctx;
	q->n_w++;
	/* the queue may have drained since the refusal */
	if (noc_room(n, node) > 0 && !q->space_ev) {
		q->space_ev = 1;
		return eng_schedule(n->u.eng, eng_now(n->u.eng) + 1, EV_PRI_WAKE,
				    &n->u, NOC_EV_SPACE, (uint64_t)node);
	}
	return 0;
}

int noc_link_exists(const noc *n, int link)
{
	int r = link / NOC_N_PORTS, p = link % NOC_N_PORTS;

	return r >= 0 && r < n->n_nodes && (p == NOC_LOCAL || n->r[r].nbr[p] >= 0);
}

uint64_t noc_link_flits(const noc *n, int link)
{
	return n->r[link / NOC_N_PORTS].link_flits[link % NOC_N_PORTS];
}

/* ---- reports ----------------------------------------------------------------*/

/* Deadlock report: the packets still in the network (at most four named). */
static int noc_blocked(const struct unit *u, char *buf, size_t len)
{
	const struct noc *n = (const struct noc *)u;
	size_t at;
	int shown = 0, node;
	uint32_t k;

	if (!n->st.in_flight)
		return 0;
	at = (size_t)snprintf(buf, len, "%llu packet%s still in the network",
			      (unsigned long long)n->st.in_flight,
			      n->st.in_flight == 1 ? "" : "s");
	for (node = 0; node < n->n_nodes && shown < 4; node++) {
		const struct router *r = &n->r[node];

		for (k = 0; k < (uint32_t)n->pv && shown < 4; k++) {
			const struct ivc *iv = &r->in[k];
			const struct pkt *pk;

			if (!iv->n || iv->buf[iv->head].idx)
				continue;
			pk = &n->pk[iv->buf[iv->head].pkt];
			if (at < len)
				at += (size_t)snprintf(buf + at, len - at,
					"%s %s %d->%d (%u flits) at router %d %s vc %u",
					shown ? ";" : ":", noc_class_names[pk->cls],
					pk->src, pk->dst, pk->flits, node,
					noc_port_names[k / n->p.vcs],
					k % n->p.vcs);
			shown++;
		}
	}
	return 1;
}

uint64_t noc_class_quantile(const noc *n, enum noc_class c, double q)
{
	const struct cls_stat *cs = &n->cls[c];
	uint64_t want, seen = 0;
	uint32_t i;

	if (!cs->packets || !cs->hist)
		return 0;
	/* the smallest latency with at least q of the packets at or below */
	want = (uint64_t)((double)cs->packets * q);
	if ((double)want < (double)cs->packets * q)
		want++;
	if (!want)
		want = 1;
	for (i = 0; i < NOC_HIST_EXACT; i++) {
		seen += cs->hist[i];
		if (seen >= want)
			return i;
	}
	return NOC_HIST_EXACT - 1;
}

/*
 * Counters beyond the fixed group: per packet class that carried traffic
 * (packets, latency average / p99 / max, a log2 latency histogram, hops),
 * per router (flits, credit stalls, average buffer occupancy) and per
 * link (flits, utilisation = flits per cycle of the run so far).
 */
static void noc_dump(const struct unit *u, struct ctr_sink *s)
{
	const struct noc *n = (const struct noc *)u;
	double cyc = (double)(eng_now(u->eng) ? eng_now(u->eng) : 1);
	char name[64];
	int c, i, p, b;

	for (c = 0; c < NOC_N_CLS; c++) {
		const struct cls_stat *cs = &n->cls[c];
		const char *cn = noc_class_names[c];
		uint64_t lo = 0;

		if (!cs->packets)
			continue;
		snprintf(name, sizeof(name), "%s.packets", cn);
		ctr_emit_u64(s, u->name, name, cs->packets);
		snprintf(name, sizeof(name), "%s.flits", cn);
		ctr_emit_u64(s, u->name, name, cs->flits);
		snprintf(name, sizeof(name), "%s.latency_avg_cycles", cn);
		ctr_emit_f64(s, u->name, name,
			     (double)cs->lat_sum / (double)cs->packets);
		snprintf(name, sizeof(name), "%s.latency_p99_cycles", cn);
		ctr_emit_u64(s, u->name, name,
			     noc_class_quantile(n, (enum noc_class)c, 0.99));
		snprintf(name, sizeof(name), "%s.latency_max_cycles", cn);
		ctr_emit_u64(s, u->name, name, cs->lat_max);
		snprintf(name, sizeof(name), "%s.hops_avg", cn);
		ctr_emit_f64(s, u->name, name,
			     (double)cs->hops_sum / (double)cs->packets);
		/* histogram: [0,8), [8,16), ... [8192, inf) */
		for (b = 3; b <= 13; b++) {
			uint64_t hi = b == 13 ? NOC_HIST_EXACT : 1ULL << (b + 1);
			uint64_t cnt = 0, l;

			if (b == 3)
				hi = 8;
			for (l = lo; l < hi; l++)
				cnt += cs->hist[l];
			if (b == 13)
				snprintf(name, sizeof(name),
					 "%s.latency_hist_%llu_up", cn,
					 (unsigned long long)lo);
			else
				snprintf(name, sizeof(name),
					 "%s.latency_hist_%llu_%llu", cn,
					 (unsigned long long)lo,
					 (unsigned long long)hi - 1);
			ctr_emit_u64(s, u->name, name, cnt);
			lo = hi;
		}
	}
	for (i = 0; i < n->n_nodes; i++) {
		const struct router *r = &n->r[i];

		snprintf(name, sizeof(name), "router%d.flits", i);
		ctr_emit_u64(s, u->name, name, r->flits);
		snprintf(name, sizeof(name), "router%d.stall_credit_cycles", i);
		ctr_emit_u64(s, u->name, name, r->stall_credit);
		snprintf(name, sizeof(name), "router%d.buffer_occupancy_avg", i);
		ctr_emit_f64(s, u->name, name, (double)r->occ_sum / cyc);
		for (p = 0; p < NOC_N_PORTS; p++) {
			if (p != NOC_LOCAL && r->nbr[p] < 0)
				continue;
			snprintf(name, sizeof(name), "router%d.%s.flits", i,
				 noc_port_names[p]);
			ctr_emit_u64(s, u->name, name, r->link_flits[p]);
			snprintf(name, sizeof(name), "router%d.%s.utilisation",
				 i, noc_port_names[p]);
			ctr_emit_f64(s, u->name, name,
				     (double)r->link_flits[p] / cyc);
		}
	}
}

static void noc_destroy(struct unit *u)
{
	struct noc *n = (struct noc *)u;
	int i;

	if (n->r)
		for (i = 0; i < n->n_nodes; i++)
			router_fini(&n->r[i]);
	if (n->ni)
		for (i = 0; i < n->n_nodes; i++) {
			free(n->ni[i].q);
			free(n->ni[i].w);
			free(n->ni[i].w2);
			free(n->ni[i].owned);
		}
	for (i = 0; i < NOC_N_CLS; i++)
		free(n->cls[i].hist);
	free(n->rt);
	free(n->cred);
	free(n->r);
	free(n->ni);
	free(n->act);
	free(n->nipend);
	free(n->pk);
	free(n->mcs);
	free(n);
}

static const struct unit_ops noc_ops = {
	.kind = UNIT_NOC,
	.on_event = noc_on_event,
	.blocked = noc_blocked,
	.dump = noc_dump,
	.destroy = noc_destroy,
};

noc *noc_new(eng *e, const struct noc_params *p, const char *name)
{
	struct noc *n = calloc(1, sizeof(*n));
	const size_t lane_size[NOC_N_LANES] = {
		[NOC_LANE_FLIT] = sizeof(struct arrival),
		[NOC_LANE_CREDIT] = sizeof(struct credit),
	}, dlv_size = sizeof(uint64_t);
	int i, k, maxd;

	if (!n)
		return NULL;
	unit_init(&n->u, &noc_ops, e, -1, "%s", name);
	n->p = *p;
	n->n_nodes = p->cols * p->rows;
	n->pv = NOC_N_PORTS * p->vcs;
	for (n->dq_cap = 1; n->dq_cap < (uint32_t)n->pv; n->dq_cap *= 2)
		;
	n->t_va_eff = va_eff(p);
	n->d_link = (cycle_t)(p->t_sa + p->t_st + p->t_link);
	n->d_eject = (cycle_t)(p->t_sa + p->t_st + 1);
	n->tick_at = CYCLE_MAX;
	n->pk_free = UINT32_MAX;
	n->n_words = (n->n_nodes + 63) / 64;
	/* the farthest calendar item: a flit's SA -> next buffer, a credit,
	 * or the 1-cycle NI channels; a delivery (SA -> the NI, t_sa + t_st
	 * + 1) is no farther */
	maxd = p->t_sa + p->t_st + p->t_link;
	if (p->t_credit > maxd)
		maxd = p->t_credit;
	n->arr = eng_calendar(e, (cycle_t)maxd, NOC_N_LANES, lane_size);
	n->dlv = eng_calendar(e, (cycle_t)maxd, 1, &dlv_size);
	n->r = calloc((size_t)n->n_nodes, sizeof(*n->r));
	n->ni = calloc((size_t)n->n_nodes, sizeof(*n->ni));
	n->act = calloc((size_t)n->n_words, sizeof(uint64_t));
	n->nipend = calloc((size_t)n->n_words, sizeof(uint64_t));
	n->cred = calloc((size_t)n->n_nodes * (size_t)(n->pv + p->vcs),
			 sizeof(int));
	if (!n->r || !n->ni || !n->act || !n->nipend || !n->arr || !n->dlv ||
	    !n->cred)
		goto fail;
	for (i = 0; i < n->n_nodes; i++) {
		struct ni *q = &n->ni[i];

		if (router_init(n, i))
			goto fail;
		q->credits = &n->cred[(size_t)n->n_nodes * (size_t)n->pv +
				      (size_t)i * (size_t)p->vcs];
		q->owned = calloc((size_t)p->vcs, 1);
		if (!q->owned)
			goto fail;
		for (k = 0; k < p->vcs; k++)
			q->credits[k] = p->buf_depth;
	}
	if (router_routes(n))
		goto fail;
	if (eng_add_unit(e, &n->u))
		goto fail;
	return n;
fail:
	noc_destroy(&n->u);
	return NULL;
}

struct unit *noc_unit(noc *n) { return &n->u; }
const struct noc_params *noc_params(const noc *n) { return &n->p; }
int noc_nodes(const noc *n) { return n->n_nodes; }
int noc_words(const noc *n) { return n->n_words; }

void noc_get_stats(const noc *n, struct noc_stats *s)
{
	/* the totals the counters keep (never reset) are taken from them */
	*s = n->st;
	s->packets = n->u.ctr[CTR_NOC_PACKETS];
	s->latency_sum = n->u.ctr[CTR_NOC_LATENCY_SUM];
	s->flits_injected = n->u.ctr[CTR_NOC_FLITS_INJECTED];
	s->flits = n->u.ctr[CTR_NOC_FLITS];
	s->flits_replicated = n->u.ctr[CTR_NOC_FLITS_REPLICATED];
	s->hops = n->u.ctr[CTR_NOC_HOPS];
}

void noc_set_window(noc *n, cycle_t lo, cycle_t hi)
{
	n->win_lo = lo;
	n->win_hi = hi;
	n->win_flits = 0;
}

uint64_t noc_window_flits(const noc *n)
{
	return n->win_flits;
}

