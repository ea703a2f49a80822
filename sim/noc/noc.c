/*
 * noc.c - flit-level network-on-chip: routers with virtual channels,
 * credit-based flow control, dimension-order routing (dateline VCs on a
 * torus), a pipeline of named stages (RC, VA, SA, ST) and per-node
 * network interfaces.  The header gives the timing contract and the
 * zero-load formula; docs/noc.md the model and how it maps to BookSim.
 *
 * One tick = one network cycle, an event at EV_PRI_ARB (every request of
 * the cycle has been made).  A tick:
 *   1. delivers what the network's calendar (an engine calendar,
 *      calendar.h: not one event per flit, docs/noc.md "Cost") holds for
 *      this cycle: flits arriving in input buffers, credits arriving at
 *      upstream output VCs;
 *   2. lets every NI with a packet waiting inject at most one flit;
 *   3. steps every router that holds flits: VA for heads whose RC is done,
 *      then switch allocation (separable, input first, one iteration), and
 *      the winners leave: onto the calendar for their next buffer, or out
 *      of the ejection port;
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

#include "../engine/calendar.h"
#include "../engine/unit.h"

/* (a) mod n for 0 <= a < 2n, without a division: the round-robin pointers
 * and the flit rings of a router visit (each was an idiv per VC). */
static inline int wrap(int a, int n)
{
	return a >= n ? a - n : a;
}

const char *const noc_class_names[NOC_N_CLS] = {
#define NOC_CLS_NAME(n, json, doc) json,
	NOC_CLASSES(NOC_CLS_NAME)
#undef NOC_CLS_NAME
};

const char *const noc_port_names[NOC_N_PORTS] = {
	"local", "east", "west", "south", "north"
};

/* Networks of up to this many nodes keep their routes in a table (at most
 * 1 MiB): a head's route is one load. */
#define NOC_RT_NODES 1024

/* Latencies kept exactly up to this many cycles (p99); longer ones count
 * in the last slot. */
#define NOC_HIST_EXACT 65536

enum { NOC_EV_TICK = 1, NOC_EV_DELIVER = 2, NOC_EV_SPACE = 3 };
enum { IVC_IDLE, IVC_VA, IVC_ACTIVE };
/* A multicast's ejection branch holds no output VC (va_multicast). */
#define NOC_NO_VC 0xffff

/* One flit in a buffer: its packet and position.  Flits carry no data:
 * the functional bytes move at delivery (port.h). */
struct flit {
	uint32_t pkt;            /* packet slot */
	unsigned idx : 31;       /* 0 = head */
	unsigned tail : 1;       /* the packet's last flit (idx = flits - 1) */
	cycle_t arrive;          /* cycle it entered this buffer */
};

/* A credit arriving at a fixed future cycle (8 bytes): an item of the
 * calendar's NOC_LANE_CREDIT. */
struct credit {
	uint32_t idx;            /* the counter it adds to (noc.cred) */
	uint32_t tail;           /* credit of a tail flit */
};

/* An input virtual channel: a ring of flits and the state of the packet
 * at its front (32 bytes: two to a cache line; what only a multicast
 * needs is in struct ivc_mc). */
struct ivc {
	struct flit *buf;        /* buf_depth slots */
	uint16_t head, n;        /* ring front, flits held */
	uint8_t state;           /* IVC_IDLE / IVC_VA / IVC_ACTIVE */
	uint8_t out_port;        /* route of the front packet (from RC) */
	uint16_t out_vc;         /* its output VC once VA granted it */
	uint16_t oidx;           /* unicast: out[] index of that VC
				    (out_port * vcs + out_vc) */
	uint8_t branches;        /* multicast: output ports of the tree here
				    (bit per port); 0 = unicast (out_port) */
	uint8_t port, vc;        /* where it sits: in[port * vcs + vc] */
	uint8_t k;               /* that index, port * vcs + vc */
	uint16_t dk;             /* unicast: the input VC its flits enter
				    downstream (opposite(out_port) * vcs +
				    out_vc), when out_port is a link */
	struct credit up;        /* the credit a freed slot sends upstream
				    (tail 0): to the output VC feeding this
				    one, or the NI for the local port */
};

/* The multicast state of input VC k of a router (router.mc[k]). */
struct ivc_mc {
	uint8_t bdone;           /* branches that have sent the tail */
	uint16_t bpos[NOC_N_PORTS]; /* per branch: the next flit it sends,
				    counted from the buffer's front */
	uint16_t bvc[NOC_N_PORTS]; /* output VC per branch */
};

struct router {
	int x, y;                /* coordinates */
	int nbr[NOC_N_PORTS];    /* neighbour router per port, -1 none */
	uint8_t wrap[NOC_N_PORTS]; /* the link wraps around (torus dateline) */
	struct ivc *in;          /* NOC_N_PORTS * vcs */
	struct ivc_mc *mc;       /* the same, their multicast state */
	struct flit *fbuf;       /* every input VC's buffer, in one block */
	/* Output VCs (NOC_N_PORTS * vcs, index port * vcs + vc): credits
	 * for the downstream buffer (in noc.cred), whether the tail has
	 * left and waits for its credit (wait_for_tail_credit).  Whether a
	 * packet owns one is its free_m bit. */
	int *cred;
	uint8_t *tail_wait;
	int n_buf;               /* flits held in all input VCs */
	int n_va;                /* input VCs in IVC_VA (router_va's work) */
	/* Bit v of [port]: the allocators' candidates, kept in step with the
	 * VC states so that VA and SA visit only them (8 VCs x 5 ports were
	 * 40 visits per router cycle, nearly all to idle VCs). */
	/* Heads in IVC_VA past their RC, bit k = input VC k (two words:
	 * up to 128 VCs): unicast ones by the output port they ask for,
	 * multicast ones apart (they go first). */
	uint64_t vq[NOC_N_PORTS][2];
	uint64_t vqmc[2];
	uint8_t vq_ports;             /* ports whose vq is not empty */
	uint16_t act_m[NOC_N_PORTS];  /* input VCs in IVC_ACTIVE, out of
					 their VA stage */
	uint8_t act_ports;            /* ports whose act_m is not empty:
					 switch allocation visits only
					 them */
	uint16_t ne_m[NOC_N_PORTS];   /* input VCs holding a flit */
	uint16_t free_m[NOC_N_PORTS]; /* output VCs without an owner */
	/*
	 * Heads still in RC (state VA, ready in the future) and VCs granted
	 * VA still in its stage (state ACTIVE, ready in the future) wait in
	 * these queues, not in vq and act_m, so the allocators never visit
	 * a VC only to find it not ready, and a router whose VCs all wait on
	 * time does no allocation at all.  Each queue fills in the order of
	 * its ready cycles (RC ends t_rc after an arrival or t_rc + 1 after
	 * a tail left, VA t_va_eff after the grant) and empties into the
	 * masks from the front when the router steps; a VC is in at most one
	 * of them at a time.
	 */
	struct due *rcq, *saq;   /* rings of noc.dq_cap entries */
	uint32_t rcq_h, rcq_n, saq_h, saq_n;
	uint16_t rr_in[NOC_N_PORTS];  /* SA: next VC to favour per input */
	uint16_t rr_out[NOC_N_PORTS]; /* SA: next input per output */
	uint16_t rr_va[NOC_N_PORTS];  /* VA: next input VC per output */
	uint64_t flits;          /* flits that crossed the switch */
	uint64_t stall_credit;   /* flit-cycles ready but without credit */
	uint64_t occ_sum;        /* flit-cycles held in buffers */
	uint64_t link_flits[NOC_N_PORTS]; /* flits sent per output port */
};

/* A network interface: the source queue and the injection channel. */
struct ni {
	uint32_t *q;             /* ring of waiting packet slots */
	uint32_t qh, qn, qcap;   /* front, count, capacity (a power of two) */
	int busy;                /* a packet is being injected */
	uint32_t cur;            /* its slot */
	uint32_t cur_idx;        /* next flit of it */
	int cur_vc;              /* the local input VC it uses */
	int *credits;            /* per local input VC of the router (in
				    noc.cred) */
	uint8_t *owned;          /* per local input VC: a packet holds it */
	int rr;                  /* next VC to try first */
	cycle_t last_inj;        /* cycle + 1 of the last flit injected */
	uint32_t n_resp;         /* queued responses (outside inject_queue) */
	struct waiter *w;        /* senders refused, waiting for room */
	uint32_t n_w, cap_w;
	struct waiter *w2;       /* the other list noc_space swaps in while
				    it calls the refused (no malloc per
				    space event) */
	uint32_t cap_w2;
	int space_ev;            /* a NOC_EV_SPACE is scheduled */
};

/* A VC whose stage ends at cycle 'at' (router.rcq, router.saq). */
struct due {
	cycle_t at;
	uint32_t k;              /* input VC index */
};

struct waiter {
	noc_space_fn fn;
	void *ctx;
};

struct pkt {
	int src, dst;            /* nodes */
	uint32_t flits;          /* length */
	uint8_t cls;             /* enum noc_class */
	cycle_t created;         /* cycle of noc_send */
	uint64_t serial;         /* send order: age tie-break */
	noc_deliver_fn deliver;  /* at the tail's arrival */
	void *ctx;               /* its context */
	uint64_t tag;            /* passed back */
	uint32_t next_free;      /* free list link */
	uint8_t response;        /* outside the inject_queue limit */
	uint8_t mc;              /* multicast: destinations in mcs[] */
	uint32_t left;           /* deliveries still to come */
};

/* A flit arriving in a router's input buffer at a fixed future cycle: an
 * item of the calendar's NOC_LANE_FLIT. */
struct arrival {
	uint16_t k;              /* the input VC, port * vcs + vc */
	int node;                /* the router */
	struct flit f;           /* the flit */
};

/*
 * The lanes of the network's calendar (noc.arr): per cycle, its flits and
 * its credits, each in the order they were sent.  Two lanes, not one of
 * mixed items: a flit arrival and a credit touch disjoint state (an input
 * VC and the routers' VA state; an output VC's credits and owner, or an
 * NI's), so the order between the two kinds cannot matter, and a credit
 * takes 8 bytes and no dispatch on its kind.
 */
enum { NOC_LANE_FLIT, NOC_LANE_CREDIT, NOC_N_LANES };

struct cls_stat {
	uint64_t packets, flits, lat_sum, hops_sum, lat_max;
	uint32_t *hist;          /* NOC_HIST_EXACT counts, lazily allocated */
};

struct noc {
	struct unit u;           /* must be first */
	struct noc_params p;     /* parameters */
	int n_nodes;             /* cols * rows */
	int pv;                  /* NOC_N_PORTS * vcs */
	uint32_t dq_cap;         /* router.rcq/saq entries: a power of two
				    >= pv (a VC is in one at most once) */
	int t_va_eff;            /* VA grant -> SA eligibility */
	cycle_t d_link, d_eject; /* SA -> the next buffer (t_sa + t_st +
				    t_link), -> the NI (t_sa + t_st + 1) */
	struct router *r;        /* routers, by node */
	/* Every credit counter, so that a credit's arrival is one add: the
	 * routers' output VCs (pv per node), then the NIs' (vcs per node). */
	int *cred;
	struct ni *ni;           /* NIs, by node */
	uint64_t *act;           /* routers holding flits (bitmap) */
	uint64_t *nipend;        /* NIs with a flit to inject (bitmap) */
	int n_words;             /* words per bitmap */
	cal *arr;                /* flits and credits by arrival cycle
				    (NOC_LANE_*; the engine's) */
	uint8_t *rt;             /* route(node, dst) at [node * nodes + dst],
				    for networks of up to NOC_RT_NODES */
	cal *dlv;                /* the packets whose tails reach their NI,
				    by cycle, in ejection order: (node << 32
				    | packet slot) (the engine's) */
	struct pkt *pk;          /* packet slots */
	uint32_t pk_cap;         /* slots allocated */
	uint64_t *mcs;           /* multicast destination bitmaps, n_words
				    per packet slot (allocated on the first
				    multicast) */
	uint32_t mcs_cap;        /* slots they cover */
	uint32_t pk_free;        /* free list head (UINT32_MAX: none) */
	uint64_t serial;         /* packets sent */
	cycle_t tick_at;         /* the scheduled tick, CYCLE_MAX none */
	uint32_t tick_gen;       /* bumped to cancel it */
	int oom;                 /* an allocation failed inside a tick */
	struct noc_stats st;     /* totals */
	struct cls_stat cls[NOC_N_CLS];
	cycle_t win_lo, win_hi;  /* flits ejected in [lo, hi) count in win */
	uint64_t win_flits;      /* (noc_bench's accepted throughput) */
};

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

/* Signed shortest step count from a to b on a ring of k (torus) or a
 * line (mesh); ties on an even ring go the positive way. */
static int dim_delta(int a, int b, int k, int torus)
{
	int d = b - a;

	if (!torus)
		return d;
	d = ((d % k) + k) % k;
	return d <= k / 2 ? d : d - k;
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

/* Output port of the dimension-order route at router (x, y). */
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

static int opposite(int port)
{
	static const int opp[NOC_N_PORTS] = {
		NOC_LOCAL, NOC_WEST, NOC_EAST, NOC_NORTH, NOC_SOUTH
	};

	return opp[port];
}

/* ---- bitmaps ---------------------------------------------*/

static void bit_set(uint64_t *b, int i) { b[i >> 6] |= 1ULL << (i & 63); }
static void bit_clr(uint64_t *b, int i) { b[i >> 6] &= ~(1ULL << (i & 63)); }

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

/* ---- routers ----------------------------------------------------------------*/

/* Queue q (of n->dq_cap entries, front h, count *cnt) gets (at, k). */
static inline void due_push(const struct noc *n, struct due *q, uint32_t h,
			    uint32_t *cnt, cycle_t at, uint32_t k)
{
	struct due *d = &q[(h + (*cnt)++) & (n->dq_cap - 1)];

	d->at = at;
	d->k = k;
}

/* Head iv (RC done) joins VA's requests. */
static inline void va_add(struct router *r, const struct ivc *iv)
{
	if (iv->branches) {
		r->vqmc[iv->k >> 6] |= 1ULL << (iv->k & 63);
	} else {
		r->vq[iv->out_port][iv->k >> 6] |= 1ULL << (iv->k & 63);
		r->vq_ports |= (uint8_t)(1u << iv->out_port);
	}
}

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
 * to output VCs and NIs.  Kept out of noc_tick (noinline): inlined, it
 * competed with the router loop for registers (1-2 % more instructions
 * in the network). */
static __attribute__((noinline)) void deliver_arrivals(struct noc *n,
							cycle_t c)
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
 * VC allocation: every head whose RC is done asks for an output VC of its
 * route's port, in its dateline class.  Multicast heads go first, in input
 * VC order (va_multicast).  Requests for one port are then served oldest
 * first (age) or round robin from the port's pointer (input VCs from the
 * pointer up, then from 0); each winner takes the lowest free VC of its
 * class.  Returns the number of grants.
 */
static int router_va(struct noc *n, struct router *r, cycle_t c)
{
	int k, o, grants = 0;
	uint32_t pm = r->vq_ports;

	/* One unicast request (nearly every call under light or streaming
	 * load): whatever the order, it takes the lowest free VC of its
	 * class, if any - as below. */
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
 * Packet slot's tail reaches node's NI at cycle 'at'.  Every delivery of
 * a cycle comes from the one tick at - (t_sa + t_st + 1), during which no
 * other unit schedules anything: one event per cycle for all of them, at
 * the place the first one's would have had, dispatches them in the same
 * order as one event each did (2 M fewer events in ResNet-50 on tpu-v1).
 */
static void deliver_at(struct noc *n, cycle_t at, int node, uint32_t slot)
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

/* The front flit of input VC 'in' crosses the switch to output o (output
 * VC ov): onto the link to the next router, or out of the ejection port. */
static void flit_out(struct noc *n, int node, struct router *r, int in,
		     int pos, int o, int ov, cycle_t c)
{
	int V = n->p.vcs;
	struct ivc *iv = &r->in[in];
	struct flit f = iv->buf[wrap(iv->head + pos, n->p.buf_depth)];
	int tail = f.tail;
	struct arrival *it;

	r->flits++;
	r->link_flits[o]++;
	if (o == NOC_LOCAL) {
		/* ejection: the NI sinks every flit; the tail completes */
		cycle_t at = c + n->d_eject;

		n->u.ctr[CTR_NOC_FLITS]++;
		if (at >= n->win_lo && at < n->win_hi)
			n->win_flits++;
		if (tail)
			deliver_at(n, at, node, f.pkt);
	} else {
		cycle_t at = c + n->d_link;

		if ((it = cal_add(n->arr, at, NOC_LANE_FLIT, sizeof(*it)))) {
			it->node = r->nbr[o];
			it->k = (uint16_t)(opposite(o) * V + ov);
			it->f = f;
			it->f.arrive = at;
		} else {
			n->oom = 1;
		}
		r->cred[o * V + ov]--;
		n->u.ctr[CTR_NOC_HOPS]++;
	}
	if (tail && ov != NOC_NO_VC) {
		if (o != NOC_LOCAL && n->p.wait_tail) {
			r->tail_wait[o * V + ov] = 1;
		} else {
			r->free_m[o] |= (uint16_t)(1u << ov);
		}
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
	if (tail) {
		iv->state = IVC_IDLE;
		if (!(r->act_m[ip] &= (uint16_t)~(1u << vc)))
			r->act_ports &= (uint8_t)~(1u << ip);
		if (iv->n)
			ivc_new_head(n, node, iv, c + 1, c);
	}
}

/* The front flit of unicast input VC iv crosses the switch to its output
 * o and leaves the buffer: flit_out then flit_pop, the same updates in
 * the same order, in one pass (the path of nearly every flit). */
static inline __attribute__((always_inline)) void
flit_move(struct noc *n, int node, struct router *r, struct ivc *iv, int o,
	  cycle_t c)
{
	const struct noc_params *p = &n->p;
	struct flit f = iv->buf[iv->head];
	int ip = iv->port, vc = iv->vc;
	struct arrival *it;

	r->flits++;
	r->link_flits[o]++;
	if (o == NOC_LOCAL) {
		/* ejection: the NI sinks every flit; the tail completes */
		cycle_t at = c + n->d_eject;

		n->u.ctr[CTR_NOC_FLITS]++;
		if (at >= n->win_lo && at < n->win_hi)
			n->win_flits++;
		if (f.tail)
			deliver_at(n, at, node, f.pkt);
	} else {
		cycle_t at = c + n->d_link;

		if ((it = cal_add(n->arr, at, NOC_LANE_FLIT, sizeof(*it)))) {
			it->node = r->nbr[o];
			it->k = iv->dk;
			it->f = f;
			it->f.arrive = at;
		} else {
			n->oom = 1;
		}
		r->cred[iv->oidx]--;
		n->u.ctr[CTR_NOC_HOPS]++;
	}
	if (f.tail) {
		if (o != NOC_LOCAL && p->wait_tail) {
			r->tail_wait[iv->oidx] = 1;
		} else {
			r->free_m[o] |= (uint16_t)(1u << iv->out_vc);
		}
	}
	/* the slot frees; its credit goes upstream */
	slot_free(n, r, iv, f.tail, c);
	if (f.tail) {
		iv->state = IVC_IDLE;
		if (!(r->act_m[ip] &= (uint16_t)~(1u << vc)))
			r->act_ports &= (uint8_t)~(1u << ip);
		if (iv->n)
			ivc_new_head(n, node, iv, c + 1, c);
	}
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
	flit_out(n, node, r, k, pos, o, m->bvc[o], c);
	m->bpos[o]++;
	for (b = 0; b < NOC_N_PORTS; b++)
		if (iv->branches >> b & 1 && !m->bpos[b])
			all = 0;
	if (all)
		flit_pop(n, node, r, k, c);
}

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
 * The output stage of router_sa when several input ports picked a VC or a
 * pick is a multicast: each output port grants one of the input ports
 * whose pick bids for it; the winners cross.  Returns the flits moved.
 */
static __attribute__((noinline)) int
sa_outputs(struct noc *n, int node, struct router *r, cycle_t c,
	   const int pick[NOC_N_PORTS], uint32_t picks, uint32_t mc)
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
		struct ivc *iv = &r->in[k];

		r->rr_in[ip] = (uint16_t)wrap(k - ip * V + 1, V); /* k = ip*V + vc */
		r->rr_out[o] = (uint16_t)wrap(ip + 1, NOC_N_PORTS);
		moved++;
		if (!iv->branches) {
			flit_move(n, node, r, iv, o, c);
			continue;
		}
		mc_out(n, node, r, k, o, c);
	}
	return moved;
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
 * (asynchronous replication at the front of the buffer).  Returns the
 * number of flits that moved.
 */
static int router_sa(struct noc *n, int node, struct router *r, cycle_t c)
{
	const int V = n->p.vcs, age = n->p.age;
	int p;
	int pick[NOC_N_PORTS];   /* input VC chosen per input port */
	uint32_t pm, picks = 0, mc = 0; /* ports with a pick, those whose
					   pick is a multicast (bit per
					   port) */

	/*
	 * One unicast VC with a flit past VA on one input port (DMA streams:
	 * nearly every call): it is the only bidder at both stages under
	 * round robin and age alike - it crosses if it has a credit, else
	 * stalls - as the stages below would decide.
	 */
	pm = r->act_ports;
	if (!(pm & (pm - 1))) {
		uint32_t cand;
		struct ivc *iv;

		p = __builtin_ctz(pm);
		cand = (uint32_t)(r->act_m[p] & r->ne_m[p]);
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
			flit_move(n, node, r, iv, o, c);
			return 1;
		}
	}
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
		flit_move(n, node, r, iv, o, c);
		return 1;
	}
	return sa_outputs(n, node, r, c, pick, picks, mc);
}

/* What a router's cycle leaves (router_step's flags). */
enum {
	STEP_MOVED = 1,          /* a grant or a flit crossed */
	STEP_WAITS = 2,          /* a VC waits in its RC or VA stage */
	STEP_HOLDS = 4           /* flits are still buffered */
};

/* One cycle of router 'node': VA then SA.  Returns STEP_* flags. */
static int router_step(struct noc *n, int node, cycle_t c)
{
	struct router *r = &n->r[node];
	const uint32_t dm = n->dq_cap - 1;
	int g;

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
	g = r->n_va > (int)r->rcq_n ? router_va(n, r, c) : 0;
	if (r->act_ports)
		g += router_sa(n, node, r, c);
	/* (a VC queued by the allocators themselves waits too: a grant, a
	 * tail's crossing, both progress anyway) */
	g = (g ? STEP_MOVED : 0) | (r->rcq_n | r->saq_n ? STEP_WAITS : 0);
	if (!r->n_buf)
		bit_clr(n->act, node);
	else
		g |= STEP_HOLDS;
	return g;
}

static int noc_tick(struct noc *n, cycle_t c)
{
	int w, progress = 0, busy = 0, f = 0;
	cycle_t next = CYCLE_MAX;

	n->tick_at = CYCLE_MAX;
	n->st.ticks++;
	if (cal_pending(n->arr) && (cal_count(n->arr, c, NOC_LANE_FLIT) |
				    cal_count(n->arr, c, NOC_LANE_CREDIT))) {
		deliver_arrivals(n, c);
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
	for (w = 0; w < n->n_words; w++) {
		uint64_t m = n->act[w];

		while (m) {
			int i = w * 64 + __builtin_ctzll(m);

			m &= m - 1;
			n->st.router_visits++;
			f |= router_step(n, i, c);
		}
	}
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

/* The deliveries of cycle 'now', in order (deliver_at).  The callbacks
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
		for (i = 0; i < n->n_nodes; i++) {
			free(n->r[i].fbuf);
			free(n->r[i].rcq);
			free(n->r[i].saq);
			free(n->r[i].mc);
			free(n->r[i].in);
			free(n->r[i].tail_wait);
		}
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

/* ---- construction -----------------------------------------------------------*/

static int router_init(struct noc *n, int i)
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
	if (n->n_nodes <= NOC_RT_NODES) {
		int d;

		n->rt = malloc((size_t)n->n_nodes * (size_t)n->n_nodes);
		if (!n->rt)
			goto fail;
		for (i = 0; i < n->n_nodes; i++)
			for (d = 0; d < n->n_nodes; d++)
				n->rt[(size_t)i * (size_t)n->n_nodes +
				      (size_t)d] = (uint8_t)route(n, i, d);
	}
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
