/*
 * nocport.c - memory-port interfaces over the NoC (nocport.h): a DMA
 * engine's DRAM and remote-scratchpad requests become request packets to
 * the target's node, a transaction there, and response packets back.
 *
 * Objects, all indexed (pools grow by realloc, so nothing keeps pointers
 * into them across a callback):
 *   view    one per (core, DRAM | RSPM): the mem_target a requester binds;
 *   parent  one accepted request: the requester's mem_req, pieces left;
 *   piece   one part going to one target (a DRAM channel, or one core's
 *           scratchpad): request packets still to arrive, then response
 *           packets still to arrive;
 *   chan    the NI side of a DRAM channel: a port on the DRAM and a FIFO
 *           of pieces the channel refused, retried in order.
 *
 * The DRAM is a memory target like any other: which channel an address
 * lies in, and on which node, come from its channel_of op
 * (mem_channel_of), not from the DRAM module.
 *
 * Invariants: every accepted request completes exactly once, at the
 * arrival of its last response packet (an event of the network's own:
 * never inside recv); a refused request leaves nothing behind; responses
 * are never refused by the network (noc_msg.response), and the DRAM drains
 * its queue without the network, so requests waiting at a DRAM node
 * always move on.
 */
#include "nocport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/unit.h"

enum { NV_DRAM, NV_RSPM, NV_N };

struct view {
	struct nocport *np;
	int core;                /* requesting core */
	int kind;                /* NV_* */
	struct mem_port **w;     /* ports refused, waiting for room */
	int n_w, cap_w;
	struct mem_port **w2;    /* the other list v_space swaps in while it
				    calls them (no malloc per retry) */
	int cap_w2;
	int asked;               /* noc_want_space pending */
};

struct parent {
	struct mem_req r;        /* the requester's request */
	int core;                /* its core */
	int left;                /* pieces not completed */
	uint32_t mc_first;       /* router multicast: its pieces' chain,
				    freed together at the end (a late
				    request packet still walks it) */
	uint32_t next_free;
};

struct piece {
	uint32_t parent;         /* its request */
	uint64_t addr;           /* in the target: DRAM address, SPM offset */
	uint32_t bytes;
	uint8_t write;
	uint8_t cls;             /* enum noc_class */
	int target;              /* DRAM channel or core */
	int node;                /* the target's node */
	int home;                /* the requester's node (its response
				    goes there; kept here, not looked up
				    through the parent, a cache miss) */
	int req_left;            /* request packets not yet arrived */
	int resp_left;           /* response packets not yet arrived */
	uint32_t next_mc;        /* router multicast: the next destination's
				    piece (UINT32_MAX: the last) */
	uint32_t next_free;
};

struct chan {
	struct nocport *np;
	struct mem_port port;    /* on the DRAM */
	uint32_t *fifo;          /* pieces refused, in arrival order */
	uint32_t head, n, cap;
	int asked;               /* mem_want_retry pending */
};

struct nocport {
	noc *n;
	struct mem_port dram;    /* the DRAM, for what the views ask of it:
				    channels, contents, range checks */
	int n_cores;
	int *core_node;          /* copy */
	uint32_t pkt_bytes;      /* noc.packet_bytes */
	int mc_router;           /* noc.multicast = "router" */
	uint64_t *dsts;          /* node bitmap for a multicast send */
	struct view *views;      /* n_cores x NV_N */
	struct parent *pa;
	uint32_t pa_cap, pa_free;
	struct piece *pc;
	uint32_t pc_cap, pc_free;
	struct chan *ch;         /* per DRAM channel */
	int n_ch;
	struct mem_port *spm;    /* per core: its scratchpad, for remote
				    requests arriving at its node */
	struct mem_info *spm_info;
	uint64_t spm_bytes;      /* core.scratchpad.bytes */
	uint64_t pending;        /* parents in flight */
};

/* ---- pools ------------------------------------------------------------------*/

static int pa_alloc(struct nocport *np, uint32_t *out)
{
	if (np->pa_free == UINT32_MAX) {
		uint32_t cap = np->pa_cap ? np->pa_cap * 2 : 64, i;
		struct parent *v = realloc(np->pa, cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		np->pa = v;
		for (i = cap; i-- > np->pa_cap;) {
			v[i].next_free = np->pa_free;
			np->pa_free = i;
		}
		np->pa_cap = cap;
	}
	*out = np->pa_free;
	np->pa_free = np->pa[*out].next_free;
	return 0;
}

static int pc_alloc(struct nocport *np, uint32_t *out)
{
	if (np->pc_free == UINT32_MAX) {
		uint32_t cap = np->pc_cap ? np->pc_cap * 2 : 64, i;
		struct piece *v = realloc(np->pc, cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		np->pc = v;
		for (i = cap; i-- > np->pc_cap;) {
			v[i].next_free = np->pc_free;
			np->pc_free = i;
		}
		np->pc_cap = cap;
	}
	*out = np->pc_free;
	np->pc_free = np->pc[*out].next_free;
	return 0;
}

/* Packets a piece's request takes: one head flit for a read (it carries
 * the address), the bytes in packet_bytes parts for a write. */
static int req_packets(const struct nocport *np, uint8_t write, uint32_t bytes)
{
	return write ? (int)((bytes + np->pkt_bytes - 1) / np->pkt_bytes) : 1;
}

static int resp_packets(const struct nocport *np, uint8_t write, uint32_t bytes)
{
	return write ? 1 : (int)((bytes + np->pkt_bytes - 1) / np->pkt_bytes);
}

/*
 * Send the 'count' packets carrying 'bytes' (0: a one-flit packet each)
 * from src to dst, or to the nodes of the bitmap dsts (router multicast)
 * when it is not NULL, as requests (forced: room was checked for the
 * whole request) or responses.
 */
static int send_packets(struct nocport *np, int src, int dst,
			const uint64_t *dsts, uint32_t bytes, int count,
			enum noc_class cls, noc_deliver_fn fn, uint32_t tag,
			int response)
{
	struct noc_msg m;
	int k, rc;

	memset(&m, 0, sizeof(m));
	m.src = src;
	m.dst = dst;
	m.dsts = dsts;
	m.cls = cls;
	m.deliver = fn;
	m.ctx = np;
	m.tag = tag;
	m.response = response;
	m.force = !response;
	for (k = 0; k < count; k++) {
		uint32_t part = bytes > np->pkt_bytes ? np->pkt_bytes : bytes;

		m.flits = part ? noc_flits_for(noc_params(np->n), part) : 1;
		bytes -= part;
		if ((rc = noc_send(np->n, &m)))
			return rc > 0 ? NPU_EINTERNAL : rc;
	}
	return 0;
}

/* ---- the target side --------------------------------------------------------*/

static int mem_done(void *ctx, uint64_t tag, cycle_t when);

/* Send piece k's transaction to its DRAM channel: 0, MEM_RETRY, NPU_E*. */
static int chan_send(struct nocport *np, uint32_t k)
{
	struct piece *p = &np->pc[k];
	struct mem_req r;

	memset(&r, 0, sizeof(r));
	r.addr = p->addr;
	r.bytes = p->bytes;
	r.write = p->write;
	r.when = eng_now(noc_unit(np->n)->eng);
	r.done = mem_done;
	r.ctx = np;
	r.tag = k;
	return mem_send(&np->ch[p->target].port, &r);
}

static int chan_push(struct chan *c, uint32_t k)
{
	if (c->n == c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 16, i;
		uint32_t *v = malloc(cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		for (i = 0; i < c->n; i++)
			v[i] = c->fifo[(c->head + i) % c->cap];
		free(c->fifo);
		c->fifo = v;
		c->head = 0;
		c->cap = cap;
	}
	c->fifo[(c->head + c->n) % c->cap] = k;
	c->n++;
	return 0;
}

/* Send what the channel refused, in order, until it refuses again. */
static int chan_drain(struct chan *c)
{
	int rc;

	while (c->n) {
		rc = chan_send(c->np, c->fifo[c->head]);
		if (rc == MEM_RETRY) {
			if (c->asked)
				return 0;
			c->asked = 1;
			return mem_want_retry(&c->port);
		}
		if (rc)
			return rc;
		c->head = (c->head + 1) % c->cap;
		c->n--;
	}
	return 0;
}

static int chan_retry(void *ctx, cycle_t when)
{
	struct chan *c = ctx;

	(void)when;
	c->asked = 0;
	return chan_drain(c);
}

/* A request packet reached the target's node; the last one starts the
 * transaction there. */
static int req_arrive(void *ctx, uint64_t tag, int node, cycle_t when)
{
	struct nocport *np = ctx;
	struct piece *p = &np->pc[tag];
	struct mem_req r;
	int rc;

	(void)node;
	(void)when;
	if (--p->req_left > 0)
		return 0;
	if (p->cls == NOC_CLS_DRAM_READ || p->cls == NOC_CLS_DRAM_WRITE) {
		struct chan *c = &np->ch[p->target];

		/* behind refused ones: keep the DRAM order */
		if (c->n)
			return chan_push(c, (uint32_t)tag);
		rc = chan_send(np, (uint32_t)tag);
		if (rc != MEM_RETRY)
			return rc;
		if ((rc = chan_push(c, (uint32_t)tag)))
			return rc;
		if (c->asked)
			return 0;
		c->asked = 1;
		return mem_want_retry(&c->port);
	}
	/* a scratchpad never refuses */
	memset(&r, 0, sizeof(r));
	r.addr = p->addr;
	r.bytes = p->bytes;
	r.write = p->write;
	r.when = eng_now(noc_unit(np->n)->eng);
	r.done = mem_done;
	r.ctx = np;
	r.tag = tag;
	rc = mem_send(&np->spm[p->target], &r);
	return rc == MEM_RETRY ? NPU_EINTERNAL : rc;
}

static int resp_arrive(void *ctx, uint64_t tag, int node, cycle_t when);

/* The target finished piece k: its response travels back. */
static int mem_done(void *ctx, uint64_t tag, cycle_t when)
{
	struct nocport *np = ctx;
	struct piece *p = &np->pc[tag];
	int src = p->node, dst = p->home;

	(void)when;
	p->resp_left = resp_packets(np, p->write, p->bytes);
	return send_packets(np, src, dst, NULL, p->write ? 0 : p->bytes,
			    p->resp_left, (enum noc_class)p->cls, resp_arrive,
			    (uint32_t)tag, 1);
}

/* A response packet reached the requester; the last one of the last
 * piece completes the request. */
static int resp_arrive(void *ctx, uint64_t tag, int node, cycle_t when)
{
	struct nocport *np = ctx;
	struct piece *p = &np->pc[tag];
	uint32_t pa = p->parent, k, next;
	struct mem_req r;

	(void)node;
	if (--p->resp_left > 0)
		return 0;
	if (np->pa[pa].mc_first == UINT32_MAX) {
		p->next_free = np->pc_free;
		np->pc_free = (uint32_t)tag;
	}
	if (--np->pa[pa].left > 0)
		return 0;
	for (k = np->pa[pa].mc_first; k != UINT32_MAX; k = next) {
		next = np->pc[k].next_mc;
		np->pc[k].next_free = np->pc_free;
		np->pc_free = k;
	}
	r = np->pa[pa].r;
	np->pa[pa].next_free = np->pa_free;
	np->pa_free = pa;
	np->pending--;
	return r.done(r.ctx, r.tag, when);
}

/* ---- the requester side (struct mem_target_ops of a view) ----------------*/

static int v_attach(void *t, const char *requester)
{
	(void)t;
	(void)requester;
	return 0;
}

/* Add one piece of request a (already allocated) without sending it. */
static int new_piece(struct nocport *np, uint32_t a, int node, int target,
		     uint64_t addr, uint32_t bytes, uint8_t write,
		     enum noc_class cls, uint32_t *out)
{
	uint32_t k;
	struct piece *p;
	int rc;

	if ((rc = pc_alloc(np, &k)))
		return rc;
	p = &np->pc[k];
	p->parent = a;
	p->addr = addr;
	p->bytes = bytes;
	p->write = write;
	p->cls = (uint8_t)cls;
	p->target = target;
	p->node = node;
	p->home = np->core_node[np->pa[a].core];
	p->req_left = req_packets(np, write, bytes);
	p->resp_left = 0;
	p->next_mc = UINT32_MAX;
	np->pa[a].left++;
	*out = k;
	return 0;
}

/* Add one piece of request a and send its request packets. */
static int add_piece(struct nocport *np, uint32_t a, int src, int node,
		     int target, uint64_t addr, uint32_t bytes, uint8_t write,
		     enum noc_class cls)
{
	uint32_t k;
	int rc;

	if ((rc = new_piece(np, a, node, target, addr, bytes, write, cls, &k)))
		return rc;
	return send_packets(np, src, node, NULL, write ? bytes : 0,
			    np->pc[k].req_left, cls, req_arrive, k, 0);
}

/* A router-replicated request packet reached one destination: it counts
 * for that destination's piece (the chain from the first one). */
static int mreq_arrive(void *ctx, uint64_t tag, int node, cycle_t when)
{
	struct nocport *np = ctx;
	uint32_t k = (uint32_t)tag;

	while (k != UINT32_MAX && np->pc[k].node != node)
		k = np->pc[k].next_mc;
	if (k == UINT32_MAX)
		return NPU_EINTERNAL; /* the tree reached a node not asked for */
	return req_arrive(np, k, node, when);
}

/*
 * A multicast write of request a replicated by the routers: one piece per
 * destination core (each does its own scratchpad write and sends its own
 * acknowledgement), and one set of request packets that the routers copy
 * along the dimension-order tree to every destination node.
 */
static int add_mcast(struct nocport *np, uint32_t a, int src, uint64_t mask,
		     uint64_t off, uint32_t bytes)
{
	uint32_t first = UINT32_MAX, prev = UINT32_MAX, k;
	int i, rc, words = noc_words(np->n);

	memset(np->dsts, 0, (size_t)words * sizeof(*np->dsts));
	for (i = 0; i < np->n_cores && i < 64; i++) {
		int node = np->core_node[i];

		if (!(mask >> i & 1))
			continue;
		if ((rc = new_piece(np, a, node, i, off, bytes, 1,
				    NOC_CLS_MCAST, &k)))
			return rc;
		/* by index: pc_alloc may move the pool */
		if (prev == UINT32_MAX)
			first = k;
		else
			np->pc[prev].next_mc = k;
		prev = k;
		np->dsts[node >> 6] |= 1ULL << (node & 63);
	}
	np->pa[a].mc_first = first;
	return send_packets(np, src, -1, np->dsts, bytes,
			    req_packets(np, 1, bytes), NOC_CLS_MCAST, mreq_arrive,
			    first, 0);
}

/* DRAM pieces: runs of interleave granules on one channel, the channel
 * (ch) and its node (node) of each. */
static int dram_pieces(const struct nocport *np, const struct mem_req *r,
		       int *ch, int *node, uint64_t *at, uint32_t *len, int max)
{
	uint64_t a = r->addr, end = r->addr + r->bytes;
	int n = 0;

	while (a < end) {
		uint64_t next;
		int nd, c = mem_channel_of(&np->dram, a, &nd, &next);

		if (next > end)
			next = end;
		if (n && ch[n - 1] == c) {
			len[n - 1] += (uint32_t)(next - a);
		} else {
			if (n == max)
				return -1;
			ch[n] = c;
			node[n] = nd;
			at[n] = a;
			len[n] = (uint32_t)(next - a);
			n++;
		}
		a = next;
	}
	return n;
}

static int v_recv(void *t, struct mem_port *port, const struct mem_req *r)
{
	struct view *v = t;
	struct nocport *np = v->np;
	int src = np->core_node[v->core], n, need = 0, i, rc;
	int ch[64], node[64];
	uint64_t at[64];
	uint32_t len[64], a;
	uint64_t mask = r->mcast;

	(void)port;
	if (v->kind == NV_DRAM) {
		n = dram_pieces(np, r, ch, node, at, len, 64);
		if (n < 0)
			return NPU_EINTERNAL; /* > 64 channel runs in one burst */
		for (i = 0; i < n; i++)
			need += req_packets(np, r->write, len[i]);
	} else {
		for (n = 0, i = 0; i < np->n_cores && i < 64; i++)
			if (mask >> i & 1)
				n++;
		need = (mask && !np->mc_router ? n : 1) *
		       req_packets(np, r->write, r->bytes);
	}
	/* the whole request or nothing: a full source queue refuses it
	 * (an empty one takes even a request larger than its limit) */
	{
		int room = noc_room(np->n, src);

		if (room < need && room < noc_params(np->n)->inject_queue)
			return MEM_RETRY;
	}
	if ((rc = pa_alloc(np, &a)))
		return rc;
	np->pa[a].r = *r;
	np->pa[a].core = v->core;
	np->pa[a].left = 0;
	np->pa[a].mc_first = UINT32_MAX;
	np->pending++;
	if (v->kind == NV_DRAM) {
		for (i = 0; i < n && !rc; i++)
			rc = add_piece(np, a, src, node[i], ch[i], at[i], len[i],
				       r->write,
				       r->write ? NOC_CLS_DRAM_WRITE
						: NOC_CLS_DRAM_READ);
		return rc;
	}
	if (!mask) {
		int k = (int)(r->addr >> MEM_CORE_SHIFT);

		if (k >= np->n_cores)
			return NPU_EINTERNAL; /* the DMA checked the core */
		return add_piece(np, a, src, np->core_node[k], k,
				 r->addr & ((1ULL << MEM_CORE_SHIFT) - 1),
				 r->bytes, r->write, NOC_CLS_C2C);
	}
	if (np->mc_router)
		return add_mcast(np, a, src, mask,
				 r->addr & ((1ULL << MEM_CORE_SHIFT) - 1), r->bytes);
	for (i = 0; i < np->n_cores && i < 64 && !rc; i++)
		if (mask >> i & 1)
			rc = add_piece(np, a, src, np->core_node[i], i,
				       r->addr & ((1ULL << MEM_CORE_SHIFT) - 1),
				       r->bytes, r->write, NOC_CLS_MCAST);
	return rc;
}

/* Room in the core's source queue: every refused port retries. */
static int v_space(void *ctx, cycle_t when)
{
	struct view *v = ctx;
	struct mem_port **w = v->w;
	int k, n = v->n_w, cap = v->cap_w, rc = 0;

	v->asked = 0;
	if (!n)
		return 0;
	/* the refused wait in w; those refused again queue in the other */
	v->w = v->w2;
	v->cap_w = v->cap_w2;
	v->n_w = 0;
	for (k = 0; k < n && !rc; k++)
		rc = w[k]->retry(w[k]->retry_ctx, when);
	v->w2 = w;
	v->cap_w2 = cap;
	return rc;
}

static int v_want_retry(void *t, struct mem_port *p)
{
	struct view *v = t;
	int k;

	for (k = 0; k < v->n_w; k++)
		if (v->w[k] == p)
			return 0;
	if (v->n_w == v->cap_w) {
		int cap = v->cap_w ? v->cap_w * 2 : 8;
		struct mem_port **w = realloc(v->w, (size_t)cap * sizeof(*w));

		if (!w)
			return NPU_ENOMEM;
		v->w = w;
		v->cap_w = cap;
	}
	v->w[v->n_w++] = p;
	if (v->asked)
		return 0;
	v->asked = 1;
	return noc_want_space(v->np->n, v->np->core_node[v->core], v_space, v);
}

static void v_info(const void *t, struct mem_info *out)
{
	const struct view *v = t;
	const struct nocport *np = v->np;

	memset(out, 0, sizeof(*out));
	if (v->kind == NV_DRAM) {
		mem_info(&np->dram, out);
		out->latency = 0;
	} else {
		out->name = "remote scratchpad";
		out->size = np->spm_bytes;
		out->copies = (uint32_t)np->n_cores;
	}
	out->network = 1;
}

static int v_check(const void *t, struct diag *d, const char *who,
		   uint64_t pc, uint64_t addr, uint64_t bytes, unsigned align)
{
	const struct view *v = t;

	return mem_check(&v->np->dram, d, who, pc, addr, bytes, align);
}

static uint8_t *v_bytes(void *t, uint64_t addr)
{
	struct view *v = t;
	struct nocport *np = v->np;
	uint64_t k = addr >> MEM_CORE_SHIFT;

	if (v->kind != NV_RSPM || k >= (uint64_t)np->n_cores ||
	    !np->spm_info[k].data)
		return NULL;
	return np->spm_info[k].data + (addr & ((1ULL << MEM_CORE_SHIFT) - 1));
}

static const struct mem_target_ops dram_view_ops = {
	.attach = v_attach,
	.recv = v_recv,
	.want_retry = v_want_retry,
	.info = v_info,
	.check = v_check,
};

static const struct mem_target_ops rspm_view_ops = {
	.attach = v_attach,
	.recv = v_recv,
	.want_retry = v_want_retry,
	.info = v_info,
	.bytes = v_bytes,
};

/* ---- construction -----------------------------------------------------------*/

nocport *nocport_new(noc *n, struct mem_target dram, const struct arch *a,
		     int n_cores, const int *core_node)
{
	struct nocport *np = calloc(1, sizeof(*np));
	int i;
	char name[24];

	if (!np)
		return NULL;
	np->n = n;
	np->n_cores = n_cores;
	np->pkt_bytes = (uint32_t)ARCH_I(a, NOC_PACKET_BYTES);
	np->mc_router = ARCH_E(a, NOC_MULTICAST) == ARCH_NOC_MULTICAST_ROUTER;
	np->spm_bytes = (uint64_t)ARCH_I(a, SPM_BYTES);
	np->pa_free = np->pc_free = UINT32_MAX;
	np->core_node = malloc((size_t)n_cores * sizeof(int));
	np->views = calloc((size_t)n_cores * NV_N, sizeof(*np->views));
	np->spm = calloc((size_t)n_cores, sizeof(*np->spm));
	np->spm_info = calloc((size_t)n_cores, sizeof(*np->spm_info));
	np->n_ch = (int)ARCH_I(a, DRAM_CHANNELS);
	np->ch = calloc((size_t)np->n_ch, sizeof(*np->ch));
	np->dsts = calloc((size_t)noc_words(n), sizeof(*np->dsts));
	if (!np->core_node || !np->views || !np->spm || !np->spm_info || !np->ch ||
	    !np->dsts)
		goto fail;
	for (i = 0; i < n_cores; i++) {
		np->core_node[i] = core_node[i];
		np->views[i * NV_N + NV_DRAM] = (struct view){ np, i, NV_DRAM, NULL, 0, 0, 0 };
		np->views[i * NV_N + NV_RSPM] = (struct view){ np, i, NV_RSPM, NULL, 0, 0, 0 };
	}
	if (mem_bind(&np->dram, dram, "noc", NULL, NULL))
		goto fail;
	for (i = 0; i < np->n_ch; i++) {
		np->ch[i].np = np;
		snprintf(name, sizeof(name), "noc.ch%d", i);
		if (mem_bind(&np->ch[i].port, dram, name, chan_retry,
			     &np->ch[i]))
			goto fail;
	}
	return np;
fail:
	nocport_free(np);
	return NULL;
}

void nocport_free(nocport *np)
{
	int i;

	if (!np)
		return;
	if (np->views)
		for (i = 0; i < np->n_cores * NV_N; i++) {
			free(np->views[i].w);
			free(np->views[i].w2);
		}
	if (np->ch)
		for (i = 0; i < np->n_ch; i++)
			free(np->ch[i].fifo);
	free(np->ch);
	free(np->views);
	free(np->spm);
	free(np->spm_info);
	free(np->core_node);
	free(np->dsts);
	free(np->pa);
	free(np->pc);
	free(np);
}

int nocport_bind_spm(nocport *np, int k, struct mem_target spm)
{
	int rc = mem_bind(&np->spm[k], spm, "noc", NULL, NULL);

	if (!rc)
		mem_info(&np->spm[k], &np->spm_info[k]);
	return rc;
}

struct mem_target nocport_dram_target(nocport *np, int core)
{
	struct mem_target t = { &dram_view_ops, &np->views[core * NV_N + NV_DRAM] };

	return t;
}

struct mem_target nocport_rspm_target(nocport *np, int core)
{
	struct mem_target t = { &rspm_view_ops, &np->views[core * NV_N + NV_RSPM] };

	return t;
}

uint64_t nocport_pending(const nocport *np)
{
	return np->pending;
}
