/*
 * port.c - binding and the optional parts of the memory protocol
 * (port.h).  mem_send is inline: it is on every access's path and costs
 * one indirect call over the direct call it replaced.
 */
#include "port.h"

#include <string.h>

int mem_bind(struct mem_port *p, struct mem_target t, const char *name,
	     mem_retry_fn retry, void *retry_ctx)
{
	int id = 0;

	memset(p, 0, sizeof(*p));
	p->id = -1;
	if (!t.ops)
		return 0;            /* nothing there: stays unbound */
	if (t.ops->attach && (id = t.ops->attach(t.obj, name)) < 0)
		return id;
	p->t = t;
	p->id = id;
	p->retry = retry;
	p->retry_ctx = retry_ctx;
	return 0;
}

int mem_want_retry(struct mem_port *p)
{
	/* A target that never refuses never owes a retry: asking one for it
	 * is a requester bug that would otherwise hang the requester. */
	if (!p->t.ops->want_retry || !p->retry)
		return NPU_EINTERNAL;
	return p->t.ops->want_retry(p->t.obj, p);
}

void mem_info(const struct mem_port *p, struct mem_info *out)
{
	memset(out, 0, sizeof(*out));
	if (p->t.ops && p->t.ops->info)
		p->t.ops->info(p->t.obj, out);
}

int mem_check(const struct mem_port *p, struct diag *d, const char *who,
	      uint64_t pc, uint64_t addr, uint64_t bytes, unsigned align)
{
	struct mem_info mi;

	if (p->t.ops && p->t.ops->check)
		return p->t.ops->check(p->t.obj, d, who, pc, addr, bytes,
				       align);
	/* Without the target's own message: the bare code (the caller's
	 * fault names the instruction). */
	mem_info(p, &mi);
	if (addr > mi.size || bytes > mi.size - addr ||
	    (align > 1 && (addr & (align - 1))))
		return NPU_EFAULT;
	return 0;
}

uint32_t mem_alone_cycles(const struct mem_port *p, uint64_t addr,
			  uint32_t bytes)
{
	if (p->t.ops && p->t.ops->alone_cycles)
		return p->t.ops->alone_cycles(p->t.obj, addr, bytes);
	return 1;
}

uint64_t mem_conflicts(const struct mem_port *p)
{
	if (p->t.ops && p->t.ops->conflicts)
		return p->t.ops->conflicts(p->t.obj, p->id);
	return 0;
}

uint8_t *mem_bytes(const struct mem_port *p, const struct mem_info *info,
		   uint64_t addr)
{
	if (info->data)
		return info->data + addr;
	return p->t.ops && p->t.ops->bytes ? p->t.ops->bytes(p->t.obj, addr)
					   : NULL;
}
