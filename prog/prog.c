/*
 * prog.c - program images (prog.h).  Arrays grow by realloc as producers
 * append; images are built once per program, so simplicity beats
 * amortised growth here.
 */
#include "prog.h"

#include <stdlib.h>
#include <string.h>

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

struct prog_image *prog_new(const char *name)
{
	struct prog_image *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (!(p->name = dup_str(name ? name : "<program>"))) {
		free(p);
		return NULL;
	}
	return p;
}

void prog_free(struct prog_image *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n_sects; i++)
		free(p->sects[i].bytes);
	for (i = 0; i < p->n_tensors; i++)
		free(p->tensors[i].name);
	for (i = 0; i < p->n_regions; i++)
		free(p->regions[i]);
	free(p->regions);
	free(p->sects);
	free(p->tensors);
	free(p->code);
	free(p->name);
	free(p);
}

int prog_add_code(struct prog_image *p, const uint32_t *words, size_t n)
{
	uint32_t *v;

	if (n == 0)
		return 0;
	if (n > SIZE_MAX / sizeof(*v) - p->n_code)
		return NPU_ENOMEM;
	v = realloc(p->code, (p->n_code + n) * sizeof(*v));
	if (!v)
		return NPU_ENOMEM;
	memcpy(v + p->n_code, words, n * sizeof(*v));
	p->code = v;
	p->n_code += n;
	return 0;
}

int prog_add_section(struct prog_image *p, int mem, uint64_t addr,
		     const void *bytes, uint64_t size)
{
	struct prog_section *v;
	uint8_t *b;

	if (size > SIZE_MAX)
		return NPU_ENOMEM;
	/* malloc(0) may return NULL: keep one byte for empty sections. */
	b = malloc(size ? (size_t)size : 1);
	if (!b)
		return NPU_ENOMEM;
	v = realloc(p->sects, (p->n_sects + 1) * sizeof(*v));
	if (!v) {
		free(b);
		return NPU_ENOMEM;
	}
	if (size)
		memcpy(b, bytes, (size_t)size);
	p->sects = v;
	v[p->n_sects].mem = mem;
	v[p->n_sects].addr = addr;
	v[p->n_sects].size = size;
	v[p->n_sects].bytes = b;
	p->n_sects++;
	return 0;
}

int prog_add_tensor(struct prog_image *p, const char *name, int mem,
		    enum npu_dtype dtype, int rank, uint64_t addr,
		    const uint64_t *shape)
{
	struct prog_tensor *v, *t;

	if (rank < 1 || rank > PROG_MAX_RANK)
		return NPU_ERANGE;
	v = realloc(p->tensors, (p->n_tensors + 1) * sizeof(*v));
	if (!v)
		return NPU_ENOMEM;
	p->tensors = v;
	t = &v[p->n_tensors];
	memset(t, 0, sizeof(*t));
	if (!(t->name = dup_str(name)))
		return NPU_ENOMEM;
	t->mem = mem;
	t->dtype = dtype;
	t->rank = rank;
	t->addr = addr;
	memcpy(t->shape, shape, (size_t)rank * sizeof(*shape));
	p->n_tensors++;
	return 0;
}

int prog_region_name_ok(const char *name)
{
	size_t n;

	for (n = 0; name[n]; n++)
		if ((unsigned char)name[n] < 0x20 || (unsigned char)name[n] > 0x7e)
			return 0;
	return n >= 1 && n <= PROG_MAX_REGION_NAME;
}

int prog_add_region(struct prog_image *p, const char *name, size_t *id)
{
	char **v, *d;

	if (p->n_regions >= PROG_MAX_REGIONS || !prog_region_name_ok(name))
		return NPU_ERANGE;
	v = realloc(p->regions, (p->n_regions + 1) * sizeof(*v));
	if (!v)
		return NPU_ENOMEM;
	p->regions = v;
	if (!(d = dup_str(name)))
		return NPU_ENOMEM;
	v[p->n_regions] = d;
	*id = p->n_regions++;
	return 0;
}

const char *prog_region_name(const struct prog_image *p, uint64_t id)
{
	return id < p->n_regions ? p->regions[id] : NULL;
}

/* Linear: tensor tables are a handful of entries, looked up per binding. */
const struct prog_tensor *prog_find_tensor(const struct prog_image *p,
					   const char *name)
{
	size_t i;

	for (i = 0; i < p->n_tensors; i++)
		if (strcmp(p->tensors[i].name, name) == 0)
			return &p->tensors[i];
	return NULL;
}

uint64_t prog_tensor_bytes(const struct prog_tensor *t)
{
	uint64_t n = 1;
	int i;

	for (i = 0; i < t->rank; i++)
		n *= t->shape[i];
	return dtype_bytes(t->dtype, n);
}

int prog_tensor_initialised(const struct prog_image *p,
			    const struct prog_tensor *t)
{
	uint64_t n = prog_tensor_bytes(t);
	size_t i;

	/* Half-open ranges [addr, addr + size); compared without adding, as
	 * object files are user input and the sums could wrap. */
	for (i = 0; i < p->n_sects; i++) {
		const struct prog_section *s = &p->sects[i];

		if (s->mem != t->mem || !s->size || !n)
			continue;
		if (s->addr <= t->addr ? t->addr - s->addr < s->size
				       : s->addr - t->addr < n)
			return 1;
	}
	return 0;
}

int prog_src_line(const struct prog_image *p, uint64_t pc, const char **file,
		  int *line)
{
	if (!p->sym.src_line)
		return -1;
	return p->sym.src_line(p->sym.ctx, pc, file, line);
}
