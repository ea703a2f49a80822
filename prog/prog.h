/*
 * prog.h - program images: what the simulator runs.
 *
 * An image is code words, initialised data sections, a tensor table (names
 * the run library binds inputs and outputs to), a region table (the names
 * of the program regions that rbeg/rend number) and a symbolizer for labels
 * and source lines.  The assembler produces images (asm/obj.c obj_image),
 * and so can any code generator (the model compiler) without going through
 * an object file; the simulator depends on this header only, never on the
 * assembler's object format.
 *
 * Memory spaces are numbered as in the ISA's memory-space table (isa.h,
 * enum mem_space) and stored in object files the same way: 0 DRAM,
 * 1 scratchpad, 2 accumulator, 4 the control unit's scalar data memory.
 *
 * Ownership: an image owns every array in it (prog_free frees them); the
 * symbolizer's context belongs to whoever set it and must outlive the image.
 */
#ifndef NPU_PROG_H
#define NPU_PROG_H

#include <stddef.h>
#include <stdint.h>

#include "../util/diag.h"
#include "../util/dtype.h"

/* Most dimensions a tensor may have (equals the object format's). */
#define PROG_MAX_RANK 8

/* Initialised bytes at one address of one memory space. */
struct prog_section {
	int mem;            /* memory space id */
	uint64_t addr;      /* byte address of bytes[0] */
	uint64_t size;      /* number of bytes */
	uint8_t *bytes;     /* contents (owned) */
};

/* A row-major tensor the run library can bind by name. */
struct prog_tensor {
	char *name;                      /* owned */
	int mem;                         /* memory space id */
	enum npu_dtype dtype;            /* element type */
	int rank;                        /* 1..PROG_MAX_RANK */
	uint64_t addr;                   /* byte address of element 0 */
	uint64_t shape[PROG_MAX_RANK];   /* dims, outermost first */
};

/*
 * Labels and source lines for messages and --trace-insn, supplied by the
 * producer of the image (the assembler's object, a compiler's own tables).
 * Either function may be NULL.
 */
struct prog_symbolizer {
	/* Name of a code label at pc, or NULL (isa_symbolize_fn shape). */
	const char *(*label)(void *ctx, uint64_t pc);
	/* Source file and line of the word at pc: 0, or -1 if unknown. */
	int (*src_line)(void *ctx, uint64_t pc, const char **file, int *line);
	void *ctx;
};

struct prog_image {
	char *name;                      /* for messages ("gemm.s"); owned */
	uint32_t *code;                  /* instruction words, pc = 4 x index */
	size_t n_code;                   /* number of words */
	struct prog_section *sects;      /* data sections */
	size_t n_sects;                  /* entries */
	struct prog_tensor *tensors;     /* tensor table, in definition order */
	size_t n_tensors;                /* entries */
	char **regions;                  /* region names, index = the id
					    rbeg/rend carry (owned) */
	size_t n_regions;                /* entries */
	struct prog_symbolizer sym;      /* labels and lines (not owned) */
};

/* Most regions a program may name: the 14-bit id of rbeg/rend. */
#define PROG_MAX_REGIONS 16384
/* Longest region name in bytes (the object format's name limit). */
#define PROG_MAX_REGION_NAME 255

/* An empty image named name (NULL when out of memory). */
struct prog_image *prog_new(const char *name);
void prog_free(struct prog_image *p);

/* Append n code words; 0 or NPU_ENOMEM. */
int prog_add_code(struct prog_image *p, const uint32_t *words,
		  size_t n) NPU_WUR;
/* Append a data section (bytes copied); 0 or NPU_ENOMEM. */
int prog_add_section(struct prog_image *p, int mem, uint64_t addr,
		     const void *bytes, uint64_t size) NPU_WUR;
/* Append a tensor (name and shape copied); 0, NPU_ENOMEM or NPU_ERANGE
 * for a rank outside 1..PROG_MAX_RANK. */
int prog_add_tensor(struct prog_image *p, const char *name, int mem,
		    enum npu_dtype dtype, int rank, uint64_t addr,
		    const uint64_t *shape) NPU_WUR;

/*
 * Append a region named name (copied) as id n_regions; *id gets the id.
 * 0, NPU_ENOMEM, or NPU_ERANGE when the table is full (PROG_MAX_REGIONS)
 * or the name is not 1..PROG_MAX_REGION_NAME printable ASCII bytes.  Names
 * need not be unique here; producers keep them so (the assembler does).
 */
int prog_add_region(struct prog_image *p, const char *name,
		    size_t *id) NPU_WUR;
/* Name of region id, or NULL when the table has no such entry. */
const char *prog_region_name(const struct prog_image *p, uint64_t id);
/* 1 if name is a valid region name (1..255 bytes of 0x20..0x7e). */
int prog_region_name_ok(const char *name);

const struct prog_tensor *prog_find_tensor(const struct prog_image *p,
					   const char *name);
/* Bytes of a tensor's elements (dtype_bytes of the shape's product). */
uint64_t prog_tensor_bytes(const struct prog_tensor *t);
/* 1 if a data section of p covers any byte of t (the program gives the
 * tensor initial contents), else 0. */
int prog_tensor_initialised(const struct prog_image *p,
			    const struct prog_tensor *t);
/* Source file:line of pc through the symbolizer: 0, or -1 if unknown. */
int prog_src_line(const struct prog_image *p, uint64_t pc,
		  const char **file, int *line);

#endif
