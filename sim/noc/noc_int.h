/*
 * noc_int.h - internals of the network shared by its three files, as
 * BookSim separates its network, routers and allocators:
 *   noc.c     the network: building it, the network interfaces (source
 *             queues, injection, deliveries), the step order of a tick,
 *             counters and reports;
 *   router.c  the routers: route computation, input buffers and VC
 *             state, the RC and VA stage queues, switch traversal onto
 *             links and out of the ejection port, credits upstream, and
 *             the arrivals of a cycle's flits and credits;
 *   alloc.c   the allocators: VC allocation (VA) and separable switch
 *             allocation (SA), each with its single-bidder fast path;
 *             they decide and keep their pointers, the router moves the
 *             flits SA grants.
 *
 * Invariants (noc.c's header comment gives the network's):
 *  - a router's candidate masks follow its VC states: vq/vqmc hold the
 *    heads in IVC_VA past their RC, act_m the VCs in IVC_ACTIVE past
 *    their VA stage, ne_m the VCs holding a flit, free_m the output VCs
 *    without an owner; rcq and saq hold the VCs still in a stage;
 *  - a router's act bit is set exactly while it holds flits (n_buf > 0);
 *  - within a tick, routers touch only their own state: what one sends
 *    another lands in the network's calendar at least one cycle later,
 *    so neither their visiting order nor the split between allocation
 *    and traversal can change a result.
 */
#ifndef NPU_NOC_INT_H
#define NPU_NOC_INT_H

#include <stdint.h>

#include "noc.h"
#include "../engine/calendar.h"
#include "../engine/unit.h"

/* Input VC states: idle (no head at the front), a head in RC or VA, a
 * packet holding an output VC. */
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

/* A router: input VCs and their buffers, output VCs' credits, the
 * allocators' candidate sets and pointers, and its statistics. */
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
	int *cred;               /* credits per output VC (in noc.cred) */
	uint8_t *tail_wait;      /* per output VC: its tail left, its credit
				    has not come back */
	int n_buf;               /* flits held in all input VCs */
	int n_va;                /* input VCs in IVC_VA (alloc_va's work) */
	/* Bit v of [port]: the allocators' candidates, kept in step with the
	 * VC states so that VA and SA visit only them (8 VCs x 5 ports were
	 * 40 visits per router cycle, nearly all to idle VCs). */
	/* Heads in IVC_VA past their RC, bit k = input VC k (two words:
	 * up to 128 VCs): unicast ones by the output port they ask for,
	 * multicast ones apart (they go first). */
	uint64_t vq[NOC_N_PORTS][2]; /* unicast, by output port */
	uint64_t vqmc[2];             /* multicast */
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
	uint32_t rcq_h, rcq_n, saq_h, saq_n; /* their fronts and counts */
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
	uint32_t n_w, cap_w;     /* used, allocated */
	struct waiter *w2;       /* the other list noc_space swaps in while
				    it calls the refused (no malloc per
				    space event) */
	uint32_t cap_w2;         /* its allocated entries */
	int space_ev;            /* a NOC_EV_SPACE is scheduled */
};

/* A VC whose stage ends at cycle 'at' (router.rcq, router.saq). */
struct due {
	cycle_t at;              /* the first cycle it is ready */
	uint32_t k;              /* input VC index */
};

/* A sender refused by a full source queue (noc_want_space). */
struct waiter {
	noc_space_fn fn;         /* called once the queue has room */
	void *ctx;               /* its context */
};

/* A packet in the network, from noc_send to its last delivery. */
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

/* Latency statistics of one packet class. */
struct cls_stat {
	uint64_t packets, flits; /* delivered */
	uint64_t lat_sum, hops_sum; /* over those packets: cycles, hops */
	uint64_t lat_max;        /* the longest latency, cycles */
	uint32_t *hist;          /* latency counts, NOC_HIST_EXACT of them
				    (noc.c), allocated on the first packet */
};

/* The network: the unit, its routers and NIs, the packets. */
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
	struct cls_stat cls[NOC_N_CLS]; /* per packet class */
	cycle_t win_lo, win_hi;  /* flits ejected in [lo, hi) count in win */
	uint64_t win_flits;      /* (noc_bench's accepted throughput) */
};

/* What the routers' step of a cycle leaves (router_step_all's flags). */
enum {
	STEP_MOVED = 1,          /* a grant or a flit crossed */
	STEP_WAITS = 2,          /* a VC waits in its RC or VA stage */
	STEP_HOLDS = 4           /* flits are still buffered */
};

/* One switch grant of a cycle: input VC k crosses to output port o. */
struct alloc_grant {
	uint8_t k;               /* input VC, port * vcs + vc */
	uint8_t o;               /* output port */
};

/* (a) mod n for 0 <= a < 2n, without a division: the round-robin pointers
 * and the flit rings of a router visit (each was an idiv per VC). */
static inline int wrap(int a, int n)
{
	return a >= n ? a - n : a;
}

static inline void bit_set(uint64_t *b, int i) { b[i >> 6] |= 1ULL << (i & 63); }
static inline void bit_clr(uint64_t *b, int i) { b[i >> 6] &= ~(1ULL << (i & 63)); }

/* Signed shortest step count from a to b on a ring of k (torus) or a
 * line (mesh); ties on an even ring go the positive way. */
static inline int dim_delta(int a, int b, int k, int torus)
{
	int d = b - a;

	if (!torus)
		return d;
	d = ((d % k) + k) % k;
	return d <= k / 2 ? d : d - k;
}

static inline int opposite(int port)
{
	static const int opp[NOC_N_PORTS] = {
		NOC_LOCAL, NOC_WEST, NOC_EAST, NOC_NORTH, NOC_SOUTH
	};

	return opp[port];
}

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

/* The network unit's event kinds (struct ev.kind): a tick of the
 * routers, a cycle's packet deliveries to their NIs, and room in an NI's
 * source queue for the senders it refused. */
enum { NOC_EV_TICK = 1, NOC_EV_DELIVER = 2, NOC_EV_SPACE = 3 };

/* ---- router.c ------------------------------------------------------------*/

/* Build router i (its neighbours, VCs, buffers, credits) and free it;
 * router_init gives 0 or NPU_ENOMEM. */
int router_init(struct noc *n, int i) NPU_WUR;
void router_fini(struct router *r);
/* The route table (noc.rt) of a network small enough for one; 0 or
 * NPU_ENOMEM.  The routers' coordinates must be set. */
int router_routes(struct noc *n) NPU_WUR;
/* Cycle c's flits into input buffers and credits to output VCs and NIs
 * (the network's calendar). */
void router_arrivals(struct noc *n, cycle_t c);
/* Cycle c of every router holding flits: its stage queues, allocation,
 * switch traversal.  Returns the STEP_* flags of all of them. */
int router_step_all(struct noc *n, cycle_t c);

/* ---- alloc.c -------------------------------------------------------------*/

/* VC allocation of router r in cycle c: the number of grants. */
int alloc_va(struct noc *n, struct router *r, cycle_t c);
/* Switch allocation of router r: the grants, in the order the flits
 * cross, into g[NOC_N_PORTS]; their number. */
int alloc_sa(struct noc *n, struct router *r, struct alloc_grant *g);

#endif
