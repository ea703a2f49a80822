/*
 * alloc.c - the allocators of a router (noc_int.h): virtual-channel
 * allocation (VA) and separable, input-first switch allocation (SA) with
 * one iteration, round robin or oldest packet first (noc.priority), as
 * BookSim's separable_input_first allocators.  Each stage has a fast
 * path for a single bidder - one VA request, one unicast VC past VA on
 * one input port - which nearly every call under light or streaming
 * (DMA) load takes, and which decides what the general stage would.
 *
 * The allocators decide and keep their own state (the owners of output
 * VCs, the round-robin pointers, the VCs' move from VA to SA); they move
 * no flit: SA hands its grants to the router (router.c), which moves
 * them in the order given.
 *
 * Invariants:
 *  - an output VC has at most one owner (its free_m bit clear), from its
 *    VA grant to its tail's crossing (or the tail's credit with
 *    wait_for_tail_credit);
 *  - on a torus a head takes an output VC of its dateline class only
 *    (vc_allowed), so the channel dependencies stay acyclic;
 *  - a multicast head gets a VC on every link branch at once or on none
 *    (va_multicast), before the unicast requests of its cycle;
 *  - SA grants each input port and each output port at most once per
 *    cycle, except that a multicast input may win several outputs; a
 *    ready VC that cannot bid for lack of a credit counts one credit
 *    stall cycle.
 */
#include "noc_int.h"

/* ---- VC allocation ----------------------------------------------------------*/

/* Dateline class of the VCs a packet may take out of port o, arriving on
 * input VC (ip, iv): 0 = lower half, 1 = upper half (torus only). */
static int vc_class(const struct noc *n, const struct router *r, int ip,
		    int iv, int o)
{
	if (r->wrap[o])
		return 1;
	return ip == opposite(o) && iv >= n->p.vcs / 2;
}

/* The packet at the front of input VC k of router r. */
static const struct pkt *front_pkt(const struct noc *n, const struct router *r,
				   int k)
{
	const struct ivc *iv = &r->in[k];

	return &n->pk[iv->buf[iv->head].pkt];
}

/* Age order: older creation first, then send order. */
static int older(const struct pkt *a, const struct pkt *b)
{
	if (a->created != b->created)
		return a->created < b->created;
	return a->serial < b->serial;
}

/* Output VCs of port o that the packet on input VC iv may take (bit per
 * VC): all of them, or on a torus link the half of its dateline class. */
static inline uint32_t vc_allowed(const struct noc *n,
				  const struct router *r,
				  const struct ivc *iv, int o)
{
	int V = n->p.vcs;
	uint32_t all = (1u << V) - 1, lower = (1u << (V / 2)) - 1;

	if (!n->p.torus || o == NOC_LOCAL)
		return all;
	return vc_class(n, r, iv->port, iv->vc, o) ? all & ~lower : lower;
}

/* Output VC v of port o gets an owner. */
static inline void ovc_take(struct router *r, int o, int v)
{
	r->free_m[o] &= (uint16_t)~(1u << v);
}

/* Input VC iv won VA in cycle c: on to SA after the VA stage. */
static inline __attribute__((always_inline)) void
va_granted(struct noc *n, struct router *r, struct ivc *iv, cycle_t c)
{
	iv->state = IVC_ACTIVE;
	r->n_va--;
	if (iv->branches) {
		r->vqmc[iv->k >> 6] &= ~(1ULL << (iv->k & 63));
	} else {
		uint64_t *q = r->vq[iv->out_port];

		q[iv->k >> 6] &= ~(1ULL << (iv->k & 63));
		if (!(q[0] | q[1]))
			r->vq_ports &= (uint8_t)~(1u << iv->out_port);
	}
	if (n->t_va_eff) {
		due_push(n, r->saq, r->saq_h, &r->saq_n,
			 c + (cycle_t)n->t_va_eff, iv->k);
	} else {
		r->act_m[iv->port] |= (uint16_t)(1u << iv->vc);
		r->act_ports |= (uint8_t)(1u << iv->port);
	}
}

/*
 * VA for a multicast head: an output VC on every link branch at once, or
 * none.  Holding some branches while waiting for others could deadlock
 * two trees that each hold what the other waits for (Lin, McKinley and Ni,
 * "Deadlock-free multicast wormhole routing in 2-D mesh multicomputers",
 * IEEE TPDS 1994).  The ejection branch takes no VC: a tree whose flit has
 * been ejected here but waits for a credit on another branch would
 * otherwise hold this node's ejection VCs, and unicast packets that only
 * need to leave here would wait on that tree's links - a dependency from
 * the last channel of every route back to the mesh links, which closes
 * cycles.  The NI sinks every flit and reassembles packets by id.  What is
 * left are waits for credits along dimension-order channels (acyclic).  Multicast heads are served
 * before the unicast requests of the same cycle, so a tree is not starved
 * by unicast packets taking its VCs one port at a time.  Returns 1 if
 * granted.
 */
static int va_multicast(struct noc *n, struct router *r, int in, cycle_t c)
{
	struct ivc *iv = &r->in[in];
	int o;
	uint16_t got[NOC_N_PORTS] = { 0 };

	for (o = 1; o < NOC_N_PORTS; o++) {
		uint32_t fm;

		if (!(iv->branches >> o & 1))
			continue;
		fm = r->free_m[o] & vc_allowed(n, r, iv, o);
		if (!fm)
			return 0;    /* a branch has no free VC: retry */
		got[o] = (uint16_t)__builtin_ctz(fm); /* the lowest */
	}
	for (o = 1; o < NOC_N_PORTS; o++)
		if (iv->branches >> o & 1) {
			ovc_take(r, o, got[o]);
			r->mc[in].bvc[o] = got[o];
		}
	r->mc[in].bvc[NOC_LOCAL] = NOC_NO_VC;
	iv->out_vc = r->mc[in].bvc[iv->out_port];
	va_granted(n, r, iv, c);
	return 1;
}

/* The lowest set bit of m[2] at or after 'from' (< 128), or -1. */
static inline int mask_next(const uint64_t m[2], int from)
{
	uint64_t w;

	if (from < 64) {
		w = m[0] & (~0ULL << from);
		if (w)
			return __builtin_ctzll(w);
		from = 64;
	}
	if (from >= 128)
		return -1;
	w = m[1] & (~0ULL << (from - 64));
	return w ? 64 + __builtin_ctzll(w) : -1;
}

/* Grant head 'in' (iv) of router r output VC v of port o. */
static inline __attribute__((always_inline)) void
va_grant(struct noc *n, struct router *r, struct ivc *iv, int o, int v,
	 cycle_t c)
{
	ovc_take(r, o, v);
	iv->out_vc = (uint16_t)v;
	iv->oidx = (uint16_t)(o * n->p.vcs + v);
	iv->dk = (uint16_t)(opposite(o) * n->p.vcs + v);
	va_granted(n, r, iv, c);
	r->rr_va[o] = (uint16_t)wrap(iv->k + 1, n->pv);
}

/*
 * VA's requests m for output port o in the general case (age order, a
 * torus link's dateline classes, or more than 64 input VCs): oldest first
 * or round robin from the port's pointer; each takes the lowest free VC
 * of its class.  Returns the number of grants.
 */
static __attribute__((noinline)) int
va_port(struct noc *n, struct router *r, int o, const uint64_t m[2], cycle_t c)
{
	int rq[NOC_N_PORTS * NOC_MAX_VCS], nr = 0, i, k, grants = 0;

	/* the requests in the port's order */
	if (n->p.age) {
		for (k = mask_next(m, 0); k >= 0; k = mask_next(m, k + 1))
			rq[nr++] = k;
		/* oldest first (insertion sort, at most PV) */
		for (i = 1; i < nr; i++) {
			int x = rq[i], j;

			for (j = i; j > 0 && older(front_pkt(n, r, x),
					front_pkt(n, r, rq[j - 1])); j--)
				rq[j] = rq[j - 1];
			rq[j] = x;
		}
	} else {
		int rr = r->rr_va[o];

		for (k = mask_next(m, rr); k >= 0; k = mask_next(m, k + 1))
			rq[nr++] = k;
		for (k = mask_next(m, 0); k >= 0 && k < rr;
		     k = mask_next(m, k + 1))
			rq[nr++] = k;
	}
	for (i = 0; i < nr; i++) {
		struct ivc *iv = &r->in[rq[i]];
		uint32_t fm = r->free_m[o] & vc_allowed(n, r, iv, o);

		if (!fm)
			continue;    /* no free VC: retry next cycle */
		va_grant(n, r, iv, o, __builtin_ctz(fm), c);
		grants++;
	}
	return grants;
}

/*
 * VA in the general case: multicast heads first, in input VC order
 * (va_multicast); then the requests of each output port, oldest first
 * (age) or round robin from the port's pointer (input VCs from the
 * pointer up, then from 0), each winner taking the lowest free VC of its
 * class.  Out of line: alloc_va's fast path then saves no registers (its
 * entry and exit were a third of its cost).  Returns the grants.
 */
static __attribute__((noinline)) int
va_general(struct noc *n, struct router *r, cycle_t c)
{
	int k, o, grants = 0;
	uint32_t pm = r->vq_ports;

	if (r->vqmc[0] | r->vqmc[1]) {
		uint64_t m[2] = { r->vqmc[0], r->vqmc[1] };

		for (k = mask_next(m, 0); k >= 0; k = mask_next(m, k + 1))
			grants += va_multicast(n, r, k, c);
	}
	for (; pm; pm &= pm - 1) {
		const int pv = n->pv;
		uint64_t m[2], rot;
		int rr;

		o = __builtin_ctz(pm);
		/* no free VC at o: no request for it can be granted (every
		 * order below takes VCs from free_m alone) - retry next
		 * cycle */
		if (!r->free_m[o])
			continue;
		m[0] = r->vq[o][0];
		m[1] = r->vq[o][1];
		if (n->p.age || pv > 64 || (n->p.torus && o != NOC_LOCAL)) {
			grants += va_port(n, r, o, m, c);
			continue;
		}
		/* Round robin over one word, every VC of the port allowed:
		 * the requests from the pointer up, then from 0 (bit b of
		 * the rotated mask is input VC (rr + b) mod pv), each taking
		 * the lowest free VC until none is left (common case, no
		 * list) */
		rr = r->rr_va[o];
		rot = rr ? (m[0] >> rr | m[0] << (pv - rr)) &
			   (~0ULL >> (64 - pv))
			 : m[0];
		for (; rot; rot &= rot - 1) {
			uint32_t fm = r->free_m[o];
			int v = __builtin_ctzll(rot) + rr;

			if (!fm)
				break; /* retry next cycle */
			va_grant(n, r, &r->in[v >= pv ? v - pv : v], o,
				 __builtin_ctz(fm), c);
			grants++;
		}
	}
	return grants;
}

/*
 * VC allocation: every head whose RC is done asks for an output VC of its
 * route's port, in its dateline class (va_general).
 */
int alloc_va(struct noc *n, struct router *r, cycle_t c)
{
	uint32_t pm = r->vq_ports;
	int o;

	/* One unicast request (nearly every call under light or streaming
	 * load): whatever the order, it takes the lowest free VC of its
	 * class, if any - as va_general would. */
	if (!(r->vqmc[0] | r->vqmc[1]) && pm && !(pm & (pm - 1))) {
		const uint64_t *m = r->vq[o = __builtin_ctz(pm)];
		/* nonzero: more than one request */
		uint64_t more = m[0] ? (m[0] & (m[0] - 1)) | m[1]
				     : m[1] & (m[1] - 1);

		if (!more) {
			struct ivc *iv = &r->in[m[0] ? __builtin_ctzll(m[0])
						  : 64 + __builtin_ctzll(m[1])];
			uint32_t fm = r->free_m[o] & vc_allowed(n, r, iv, o);

			if (!fm)
				return 0;    /* retry next cycle */
			va_grant(n, r, iv, o, __builtin_ctz(fm), c);
			return 1;
		}
	}
	return va_general(n, r, c);
}

/* ---- switch allocation ------------------------------------------------------*/

/* 1 if input VC k's front flit may cross to output o now: it goes there
 * (and, multicast, has not yet) and the output VC has a credit. */
static int sa_wants(const struct noc *n, const struct router *r, int k, int o)
{
	const struct ivc *iv = &r->in[k];
	int V = n->p.vcs;

	if (!iv->branches)
		return iv->out_port == o &&
		       (o == NOC_LOCAL || r->cred[o * V + iv->out_vc] > 0);
	const struct ivc_mc *m = &r->mc[k];

	return (iv->branches & ~m->bdone) >> o & 1 && m->bpos[o] < iv->n &&
	       (o == NOC_LOCAL || r->cred[o * V + m->bvc[o]] > 0);
}

/* 1 if input VC k's front flit may cross to some output now. */
static int sa_ready(const struct noc *n, const struct router *r, int k)
{
	const struct ivc *iv = &r->in[k];
	int o;

	if (!iv->branches)
		return sa_wants(n, r, k, iv->out_port);
	for (o = 0; o < NOC_N_PORTS; o++)
		if (sa_wants(n, r, k, o))
			return 1;
	return 0;
}

/*
 * The output stage of alloc_sa when several input ports picked a VC or a
 * pick is a multicast: each output port grants one of the input ports
 * whose pick bids for it; the winners go into g in output order.  Returns
 * their number.
 */
static __attribute__((noinline)) int
sa_outputs(struct noc *n, struct router *r, const int pick[NOC_N_PORTS],
	   uint32_t picks, uint32_t mc, struct alloc_grant *g)
{
	const int V = n->p.vcs, age = n->p.age;
	int p, o, moved = 0;
	int win[NOC_N_PORTS];    /* input port granted per output */
	uint32_t want[NOC_N_PORTS]; /* input ports bidding per output */
	uint32_t pm, outs = 0;   /* outputs with a bidder (bit per port) */

	/*
	 * Output stage: want[o] = the input ports whose pick bids for o.  A
	 * unicast pick bids for its route alone (its credit was just seen); a
	 * multicast one for each branch sa_wants names.
	 */
	for (pm = picks & ~mc; pm; pm &= pm - 1) {
		p = __builtin_ctz(pm);
		o = r->in[pick[p]].out_port;
		if (!(outs >> o & 1)) {
			outs |= 1u << o;
			want[o] = 0;
		}
		want[o] |= 1u << p;
	}
	for (pm = mc; pm; pm &= pm - 1)
		for (o = 0; o < NOC_N_PORTS; o++) {
			p = __builtin_ctz(pm);
			if (!sa_wants(n, r, pick[p], o))
				continue;
			if (!(outs >> o & 1)) {
				outs |= 1u << o;
				want[o] = 0;
			}
			want[o] |= 1u << p;
		}
	/*
	 * Round robin takes the first bidder at or after the port's pointer,
	 * cyclically; age the oldest, lowest port first on a tie (the order
	 * the bidders were once visited in, p = 0..4).
	 */
	for (pm = outs; pm; pm &= pm - 1) {
		uint32_t m = want[o = __builtin_ctz(pm)], hi;

		if (!age) {
			hi = m & ~((1u << r->rr_out[o]) - 1);
			win[o] = __builtin_ctz(hi ? hi : m);
			continue;
		}
		for (win[o] = -1; m; m &= m - 1) {
			int ip = __builtin_ctz(m);

			if (win[o] < 0 ||
			    older(front_pkt(n, r, pick[ip]),
				  front_pkt(n, r, pick[win[o]])))
				win[o] = ip;
		}
	}
	/* the winners cross in output order */
	for (pm = outs; pm; pm &= pm - 1) {
		int ip = win[o = __builtin_ctz(pm)], k = pick[ip];

		r->rr_in[ip] = (uint16_t)wrap(k - ip * V + 1, V); /* k = ip*V + vc */
		r->rr_out[o] = (uint16_t)wrap(ip + 1, NOC_N_PORTS);
		g[moved].k = (uint8_t)k;
		g[moved].o = (uint8_t)o;
		moved++;
	}
	return moved;
}

/*
 * SA in the general case (alloc_sa says what it decides): the input
 * stage, then the output stage (sa_outputs) unless one unicast pick is
 * left.  Out of line for the fast path's sake, as va_general.
 */
static __attribute__((noinline)) int
sa_general(struct noc *n, struct router *r, struct alloc_grant *g)
{
	const int V = n->p.vcs, age = n->p.age;
	int p;
	int pick[NOC_N_PORTS];   /* input VC chosen per input port */
	uint32_t pm = r->act_ports; /* input ports with a VC past VA */
	uint32_t picks = 0, mc = 0; /* ports with a pick, those whose pick
				       is a multicast (bit per port) */

	/* Every loop walks set bits only: the input ports with a VC past VA
	 * (most cycles see one or two bids). */
	for (; pm; pm &= pm - 1) {
		/* the VCs with a flit past VA, in visiting order: from the
		 * round-robin pointer up, then from 0 (age: from 0) - bit
		 * b of the rotated mask is VC (rr + b) mod V */
		uint32_t cand, rot;
		const struct ivc *iv;
		int k = -1, rr, base;

		p = __builtin_ctz(pm);
		cand = (uint32_t)(r->act_m[p] & r->ne_m[p]);
		if (!cand)
			continue;
		rr = age ? 0 : r->rr_in[p];
		rot = ((cand >> rr) | (cand << (V - rr))) & ((1u << V) - 1);
		base = p * V - V;
		for (; rot; rot &= rot - 1) {
			int v = __builtin_ctz(rot) + rr;
			int kk = base + (v >= V ? v : v + V);

			iv = &r->in[kk];
			/* a unicast flit's credit (ejection never runs
			 * out: its VCs hold 2^30) */
			if (iv->branches ? !sa_ready(n, r, kk)
					 : r->cred[iv->oidx] <= 0) {
				r->stall_credit++;
				n->u.ctr[CTR_NOC_STALL_CREDIT]++;
				continue;
			}
			if (k < 0 ||
			    (age && older(front_pkt(n, r, kk),
					  front_pkt(n, r, k))))
				k = kk;
			if (!age)
				break;
		}
		if (k < 0)
			continue;
		pick[p] = k;
		picks |= 1u << p;
		if (r->in[k].branches)
			mc |= 1u << p;
	}
	if (!picks)
		return 0;
	/*
	 * One unicast pick (DMA streams: nearly every call): the only bidder
	 * for its output wins it under round robin and age alike, so the
	 * output stage below would grant it; the same pointer updates and
	 * crossing, without the bid masks.
	 */
	if (!(picks & (picks - 1)) && !mc) {
		int ip = __builtin_ctz(picks), k = pick[ip];
		struct ivc *iv = &r->in[k];
		int o = iv->out_port;

		r->rr_in[ip] = (uint16_t)wrap(k - ip * V + 1, V);
		r->rr_out[o] = (uint16_t)wrap(ip + 1, NOC_N_PORTS);
		g->k = (uint8_t)k;
		g->o = (uint8_t)o;
		return 1;
	}
	return sa_outputs(n, r, pick, picks, mc, g);
}

/*
 * Switch allocation, separable and input first: each input port picks one
 * of its VCs that has a flit, an output VC and a credit; each output port
 * then picks one of the inputs that chose it.  Round robin (or oldest
 * packet first) at both stages.  A VC ready but without a credit counts a
 * credit-stall cycle.  A multicast flit bids for every branch it has not
 * left on yet and may win several outputs in one cycle (the crossbar
 * copies an input to several outputs); branches without a credit wait and
 * the flit leaves its buffer once it has left on all of them
 * (asynchronous replication at the front of the buffer).
 */
int alloc_sa(struct noc *n, struct router *r, struct alloc_grant *g)
{
	uint32_t pm = r->act_ports;

	/*
	 * One unicast VC with a flit past VA on one input port (DMA streams:
	 * nearly every call): it is the only bidder at both stages under
	 * round robin and age alike - it crosses if it has a credit, else
	 * stalls - as sa_general would decide.
	 */
	if (!(pm & (pm - 1))) {
		const int V = n->p.vcs, p = __builtin_ctz(pm);
		uint32_t cand = (uint32_t)(r->act_m[p] & r->ne_m[p]);
		struct ivc *iv;

		if (!cand)
			return 0;
		iv = &r->in[p * V + __builtin_ctz(cand)];
		if (!(cand & (cand - 1)) && !iv->branches) {
			int o = iv->out_port;

			if (r->cred[iv->oidx] <= 0) {
				r->stall_credit++;
				n->u.ctr[CTR_NOC_STALL_CREDIT]++;
				return 0;
			}
			r->rr_in[p] = (uint16_t)wrap(iv->vc + 1, V);
			r->rr_out[o] = (uint16_t)wrap(p + 1, NOC_N_PORTS);
			g->k = iv->k;
			g->o = (uint8_t)o;
			return 1;
		}
	}
	return sa_general(n, r, g);
}
