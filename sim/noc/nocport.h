/*
 * nocport.h - network interfaces between memory ports and the NoC: what a
 * DMA engine is bound to when its DRAM or remote-scratchpad traffic must
 * cross the network (sim/mem/port.h protocol on both sides).
 *
 *   requester --mem_send--> [view: DRAM or RSPM of core c]
 *        request packet(s) core node -> target node      (noc_send)
 *        at the target node: mem_send to the DRAM channel / core k's
 *        scratchpad (refused DRAM requests wait in order at that node)
 *        response packet(s) target node -> core node     (never refused)
 *   requester <--done-- when the last response packet arrives
 *
 * Packets: a read request is one head flit (the address); a write request
 * carries its bytes (noc_flits_for); a read response carries the bytes, a
 * write acknowledgement is one flit.  A request larger than
 * noc.packet_bytes travels as several packets.  A DRAM request is split
 * where the DRAM's channel changes (mem_channel_of: dram.mapping decides
 * the interleaving), each piece going to its channel's node, which the
 * DRAM names too: the interfaces know the DRAM only through the memory
 * protocol.  A multicast
 * write (mem_req.mcast) is replicated at the source: one write per
 * destination core, done when every acknowledgement is back.
 *
 * A refusal (MEM_RETRY) means the core's NI source queue is full
 * (noc.inject_queue); the retry comes when it has room.  Functional bytes
 * pass through: the DRAM view reports the DRAM's contents, the RSPM view
 * gives core k's scratchpad bytes through mem_bytes.
 */
#ifndef NPU_NOCPORT_H
#define NPU_NOCPORT_H

#include "../../arch/arch.h"
#include "../mem/port.h"
#include "noc.h"

typedef struct nocport nocport;

/* One set of interfaces for the chip: n_cores cores at core_node[], the
 * DRAM as the target dram (its dram.channels channels on the nodes its
 * channel_of op names).  Scratchpads are bound later (nocport_bind_spm),
 * once the cores exist.  NULL: out of memory. */
nocport *nocport_new(noc *n, struct mem_target dram, const struct arch *a,
		     int n_cores, const int *core_node);
void nocport_free(nocport *np);
/* Core k's scratchpad, reached by remote requests at its node. */
int nocport_bind_spm(nocport *np, int k, struct mem_target spm) NPU_WUR;
/* What core c's requesters bind to for DRAM and for remote scratchpads. */
struct mem_target nocport_dram_target(nocport *np, int core);
struct mem_target nocport_rspm_target(nocport *np, int core);
/* Requests accepted but not completed (deadlock reports). */
uint64_t nocport_pending(const nocport *np);

#endif
