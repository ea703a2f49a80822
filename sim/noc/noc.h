/*
 * noc.h - the network-on-chip: a mesh or torus of input-buffered routers
 * with virtual channels, credit-based flow control and dimension-order
 * routing, modelled flit by flit (docs/noc.md).
 *
 *   noc_new(e, params)          one network, registered on the engine as a
 *                               unit of kind UNIT_NOC (the engine frees it)
 *   noc_send(n, &msg)           a packet from node src to node dst; its
 *                               deliver callback runs at EV_PRI_COMPLETE of
 *                               the cycle its tail flit reaches dst
 *
 * Each node has a network interface (NI): a source queue of packets and an
 * injection channel into its router's local input port (1 cycle), and an
 * ejection channel (1 cycle) out of the router's local output port that
 * always sinks (as BookSim's).  Routers have five ports (local, east,
 * west, south, north: +x, -x, +y, -y; node = y * cols + x) and a pipeline
 * of named stages, each with its own delay: route computation (RC),
 * virtual-channel allocation (VA), switch allocation (SA), switch
 * traversal (ST); then the link.  A head flit that arrives in cycle a can
 * win VA in cycle a + rc, SA t_va cycles after that (max(t_va, t_sa) -
 * t_sa with speculation) and reaches the next router's buffer
 * t_sa + t_st + t_link cycles after winning SA.  Body and tail flits only
 * go through SA and ST, one per cycle per input and output port.
 *
 * Zero-load latency of a P-flit packet over H router-to-router hops, from
 * the cycle noc_send is called to the cycle the tail reaches the
 * destination NI (noc_zero_load; exact, tested):
 *
 *   T = 1 + (H + 1) * (t_rc + t_va' + t_sa + t_st) + H * t_link + 1 + (P - 1)
 *
 * with t_va' = t_va, or max(t_va, t_sa) - t_sa when speculative; it holds
 * whenever the buffers do not throttle the packet (P <= noc.buffer_depth,
 * or a buffer covering the credit round trip, docs/noc.md).
 *
 * Cost follows flits: the network schedules itself one event per cycle
 * only while flits are buffered in routers or waiting in an NI, jumps to
 * the next in-flight arrival otherwise, and does nothing at all when
 * empty.  Per tick it visits only routers that hold flits.
 */
#ifndef NPU_NOC_H
#define NPU_NOC_H

#include <stdint.h>

#include "../../arch/arch.h"
#include "../../util/diag.h"
#include "../engine/engine.h"

struct unit;
typedef struct noc noc;

/*
 * Packet classes, for latency statistics: CLS(NAME, "json_name", "doc").
 * Class statistics are dumped as noc.<json_name>.* for every class that
 * carried a packet.
 */
#define NOC_CLASSES(CLS) \
	CLS(DRAM_READ,  "dram_read",  "DMA read requests to DRAM and their data responses") \
	CLS(DRAM_WRITE, "dram_write", "DMA write data to DRAM and their acknowledgements") \
	CLS(C2C,        "core_to_core", "DMA between scratchpads of two cores") \
	CLS(MCAST,      "multicast",  "multicast DMA writes") \
	CLS(SYNC,       "sync",       "remote signals and barrier messages") \
	CLS(SYNTH,      "synthetic",  "synthetic traffic (npusim noc)")

enum noc_class {
#define NOC_CLS_ENUM(n, json, doc) NOC_CLS_##n,
	NOC_CLASSES(NOC_CLS_ENUM)
#undef NOC_CLS_ENUM
	NOC_N_CLS
};
extern const char *const noc_class_names[NOC_N_CLS];

/* Largest noc.vcs (params.def range). */
#define NOC_MAX_VCS 16

/* Router ports; port p of router r links to the opposite port of the
 * neighbour in direction p. */
enum noc_port { NOC_LOCAL, NOC_EAST, NOC_WEST, NOC_SOUTH, NOC_NORTH,
		NOC_N_PORTS };
extern const char *const noc_port_names[NOC_N_PORTS];

/* The noc.* keys as plain numbers, so tests and benches can build a
 * network without a config file (noc_params_from_arch fills it). */
struct noc_params {
	int cols, rows;          /* nodes along x and y */
	int torus;               /* wraparound links (dateline VCs) */
	int yx;                  /* route y first (noc.routing = "yx") */
	int vcs;                 /* virtual channels per port */
	int buf_depth;           /* flit buffers per VC */
	int flit_bytes;          /* bytes per flit (noc.link_bytes) */
	int t_rc, t_va, t_sa, t_st; /* stage delays, cycles */
	int t_link;              /* link latency, >= 1 */
	int t_credit;            /* credit delay, >= 1 */
	int speculative;         /* VA and SA in parallel */
	int wait_tail;           /* an output VC is reallocated only once the
				    previous packet's tail credit returns */
	int age;                 /* allocators prefer the oldest packet
				    (noc.priority = "age"); else round robin */
	int inject_queue;        /* packets an NI's source queue holds before
				    noc_send refuses (0 = unbounded) */
	int head_flit;           /* a payload-free head flit per packet
				    (noc.head_flit) */
};

void noc_params_from_arch(const struct arch *a, struct noc_params *p);

/* Called when the tail flit reaches a destination NI ('node': the
 * destination, one call per destination of a multicast). */
typedef int (*noc_deliver_fn)(void *ctx, uint64_t tag, int node,
			      cycle_t when);

/* One packet to send. */
struct noc_msg {
	int src, dst;            /* nodes */
	uint32_t flits;          /* >= 1 (head; the tail is the last one) */
	enum noc_class cls;      /* statistics class */
	noc_deliver_fn deliver;  /* may be NULL */
	void *ctx;               /* its context */
	uint64_t tag;            /* passed back */
	int response;            /* a response (read data, write ack, sync
				    release): never refused and not counted
				    in noc.inject_queue, so a target that has
				    accepted a request can always answer it
				    (no request-response deadlock) */
	int force;               /* the sender already checked noc_room for
				    a group of packets: never refused,
				    counted */
	const uint64_t *dsts;    /* multicast: bitmap of destination nodes
				    (noc_words(n) words; dst is ignored),
				    replicated by the routers along the
				    dimension-order tree; NULL = unicast */
};

/* noc_send result beyond 0 and NPU_E*: the source queue is full. */
#define NOC_FULL 1

/* Build the network; NULL when out of memory (parameters are trusted:
 * the config loader validated them). */
noc *noc_new(eng *e, const struct noc_params *p, const char *name);
struct unit *noc_unit(noc *n);
const struct noc_params *noc_params(const noc *n);
int noc_nodes(const noc *n);
/* 64-bit words of a node bitmap (noc_msg.dsts). */
int noc_words(const noc *n);

/* Send a packet now: 0, NOC_FULL (nothing kept) or NPU_E*. */
int noc_send(noc *n, const struct noc_msg *m) NPU_WUR;

/* Packets node's source queue can still take (INT32_MAX: unbounded). */
int noc_room(const noc *n, int node);
/* Called once (EV_PRI_WAKE) after node's source queue gives up a packet
 * following a NOC_FULL: the sender may try again.  One waiter per call;
 * 0 or NPU_ENOMEM. */
typedef int (*noc_space_fn)(void *ctx, cycle_t when);
int noc_want_space(noc *n, int node, noc_space_fn fn, void *ctx) NPU_WUR;

/* Links for trace counters: every output port that exists, by router
 * then port (link = router * NOC_N_PORTS + port); flits sent so far. */
int noc_link_exists(const noc *n, int link);
uint64_t noc_link_flits(const noc *n, int link);

/* Router-to-router hops of the dimension-order route from src to dst. */
int noc_hops(const struct noc_params *p, int src, int dst);
/* The zero-load formula above, in cycles. */
cycle_t noc_zero_load(const struct noc_params *p, int hops, uint32_t flits);
/* Flits of a packet carrying 'bytes' of payload: behind one head flit,
 * or (head_flit 0) the payload's flits alone, at least one. */
uint32_t noc_flits_for(const struct noc_params *p, uint64_t bytes);

/* Whole-network statistics (also in the unit's counters). */
struct noc_stats {
	uint64_t packets_sent;   /* accepted by noc_send */
	uint64_t packets;        /* delivered (a multicast once per
				    destination) */
	uint64_t flits_injected; /* entered a router from an NI */
	uint64_t flits;          /* reached their destination NI */
	uint64_t flits_replicated; /* multicast copies made by routers
				    (flits_injected + this = flits) */
	uint64_t hops;           /* flit-hops */
	uint64_t latency_sum;    /* cycles, per delivered packet */
	uint64_t in_flight;      /* packets sent but not delivered */
	uint64_t ticks;          /* network cycles simulated (cost) */
	uint64_t router_visits;  /* router-cycles simulated (cost) */
};
void noc_get_stats(const noc *n, struct noc_stats *s);
/* Count flits that reach their NI in cycles [lo, hi) (accepted
 * throughput of a measurement window); noc_window_flits reads it. */
void noc_set_window(noc *n, cycle_t lo, cycle_t hi);
uint64_t noc_window_flits(const noc *n);
/* Latency of class c at fraction q (0.99 = p99), exact up to 65535
 * cycles; 0 when the class carried nothing. */
uint64_t noc_class_quantile(const noc *n, enum noc_class c, double q);

/* ---- synthetic traffic (noc_bench.c, `npusim noc`) --------------------*/

#define NOC_PATTERNS(PAT) \
	PAT(UNIFORM,   "uniform",   "each packet to a uniformly random node (the source included, as BookSim)") \
	PAT(TRANSPOSE, "transpose", "(x, y) -> (y, x); square networks") \
	PAT(BITCOMP,   "bitcomp",   "node -> its bitwise complement; power-of-two node counts") \
	PAT(BITREV,    "bitrev",    "node -> its bits reversed; power-of-two node counts") \
	PAT(SHUFFLE,   "shuffle",   "node -> its bits rotated left by one; power-of-two node counts") \
	PAT(TORNADO,   "tornado",   "x -> x + ceil(k/2) - 1 mod k in each dimension") \
	PAT(NEIGHBOR,  "neighbor",  "x -> x + 1 mod k in each dimension") \
	PAT(HOTSPOT,   "hotspot",   "every packet to one node (--hotspot, default 0)")

enum noc_pattern {
#define NOC_PAT_ENUM(n, name, doc) NOC_PAT_##n,
	NOC_PATTERNS(NOC_PAT_ENUM)
#undef NOC_PAT_ENUM
	NOC_N_PAT
};
extern const char *const noc_pattern_names[NOC_N_PAT];

struct noc_bench_cfg {
	enum noc_pattern pattern;
	double rate;             /* offered flits per node per cycle */
	uint32_t packet_flits;   /* flits per packet */
	cycle_t warmup;          /* cycles before measuring */
	cycle_t cycles;          /* measurement window */
	cycle_t drain_limit;     /* give up draining after this many cycles */
	int hotspot;             /* hotspot node */
	uint64_t seed;
};

struct noc_bench_res {
	uint64_t measured;       /* packets created in the window */
	uint64_t delivered;      /* of those, delivered */
	double lat_avg;          /* cycles, creation to tail ejection */
	uint64_t lat_p99, lat_max, lat_min;
	double zero_load_avg;    /* formula, averaged over measured packets */
	double hops_avg;         /* per measured packet */
	double offered;          /* flits/node/cycle created in the window */
	double accepted;         /* flits/node/cycle ejected in the window */
	int saturated;           /* not every measured packet drained */
	uint64_t stall_credit;   /* flit-cycles blocked on credits */
	cycle_t end;             /* last simulated cycle */
	struct noc_stats st;     /* network totals */
};

/* Check that the pattern fits the network; 0 or NPU_EUSAGE with a message
 * in d. */
int noc_pattern_check(const struct noc_params *p, enum noc_pattern pat,
		      int hotspot, struct diag *d) NPU_WUR;
/* Destination of a packet from src (r: a random draw for uniform). */
int noc_pattern_dest(const struct noc_params *p, enum noc_pattern pat,
		     int hotspot, int src, uint64_t r);
/* Run synthetic traffic on a fresh network; 0 or NPU_E*. */
int noc_bench_run(const struct noc_params *p, const struct noc_bench_cfg *c,
		  struct noc_bench_res *r, struct diag *d) NPU_WUR;

#endif
