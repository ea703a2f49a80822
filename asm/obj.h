/*
 * obj.h - an assembled npusim program, in memory and as a .npo file.
 *
 * struct obj_prog is what `npusim run` loads: the code (32-bit words loaded
 * at pc 0), initialised data sections (each in one memory space at one
 * address), the symbol table, the tensor table that names tensors for
 * --input/--output, the region table (names of the program regions whose
 * index rbeg/rend carry), and a line table (source file and line of each
 * code word) for fault messages and traces.
 *
 * The file format (little-endian, versioned) is documented in
 * docs/formats.md, section "Object file (.npo)".  obj_load checks every
 * field and size before it trusts it: a bad magic, an unknown version, a
 * truncated file, an offset or count out of range, a name that is not
 * NUL-terminated ... each gives a message naming the file and the byte
 * offset, never a crash.
 *
 * Invariants of a struct obj_prog (established by the assembler and by
 * obj_load): syms is sorted by (kind, value, name); sections are sorted by
 * (mem, addr) and do not overlap; lines is NULL or has n_code entries
 * whose file indexes are < n_files; names are non-empty C strings.
 */
#ifndef NPU_OBJ_H
#define NPU_OBJ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../isa/isa.h"
#include "../util/diag.h"
#include "../util/dtype.h"
#include "../prog/prog.h"

/*
 * Memory spaces of data sections, labels and tensors: the rows of
 * isa/memspaces.def, with their values (OBJ_MEM_DRAM = ISA_MEM_DRAM = 0 ...
 * OBJ_MEM_DATA = 4), which the file stores.  enum mem_space of the
 * simulator aliases the same rows, so a loader passes the number through.
 * Only spaces with ISA_MS_INIT may appear in a file: OBJ_MEM_RSPM exists
 * but obj_mem_name() refuses it and obj_load rejects it.
 */
enum obj_mem {
#define MEMSPACE(id, name, value, flags, noun, doc) OBJ_MEM_##id = ISA_MEM_##id,
#include "../isa/memspaces.def"
	OBJ_N_MEMS = ISA_N_MEMS  /* bound for tables indexed by obj_mem */
};

/* The name of a space a program may initialise ("dram", "spm", "acc",
 * "data"), or NULL for any other value. */
const char *obj_mem_name(int mem);
/* The space called name if a program may initialise it, or -1. */
int obj_mem_by_name(const char *name);

/* Kinds of symbols. */
enum obj_sym_kind {
	OBJ_SYM_CODE = 0,   /* label in .text: a code address */
	OBJ_SYM_DATA = 1,   /* label in a data section: an address in mem */
	OBJ_SYM_CONST = 2,  /* .equ or -D constant */
	OBJ_SYM_TENSOR = 3, /* a .tensor's name: its address in mem */
	OBJ_N_SYM_KINDS     /* number of kinds (bound for loaders) */
};

/* Initialised bytes at one address of one memory. */
struct obj_section {
	enum obj_mem mem;   /* where they go */
	uint64_t addr;      /* byte address of bytes[0] */
	uint64_t size;      /* number of bytes */
	uint8_t *bytes;     /* contents (malloc'd) */
};

/*
 * One symbol.  value is a byte address for CODE/DATA/TENSOR (a pc for
 * CODE: a multiple of 4 within the code), any 64-bit value for CONST.
 */
struct obj_sym {
	char *name;              /* symbol name (malloc'd) */
	int64_t value;           /* address or constant */
	enum obj_sym_kind kind;  /* what the value is */
	enum obj_mem mem;        /* DATA / TENSOR: the memory (else 0) */
};

/* Most dimensions a tensor may have. */
#define OBJ_MAX_RANK 8

/*
 * A row-major tensor of dtype at addr in mem, as written by .tensor.
 * Loader bounds: dims 1..2^40, at most 2^60 elements in all, and the
 * last byte inside the 64-bit address space; whether it fits the
 * configured memory is checked by `npusim run`.
 */
struct obj_tensor {
	char *name;                      /* name used by --input/--output */
	enum obj_mem mem;                /* memory space */
	enum npu_dtype dtype;            /* element type */
	int rank;                        /* 1..OBJ_MAX_RANK */
	uint64_t addr;                   /* byte address of element 0 */
	uint64_t shape[OBJ_MAX_RANK];    /* dims, outermost first; rest 0 */
};

/* Source position of one code word. */
struct obj_line {
	uint32_t file;  /* index into obj_prog.files */
	uint32_t line;  /* 1-based line */
};

/*
 * A whole program.  Every array is malloc'd and owned (obj_free frees
 * it all); counts may be 0 with non-NULL arrays.
 */
/* A schedule parameter of a kernel (.tunable). */
struct obj_tunable {
	char *name;
	int64_t *values;             /* legal values; values[0] the default */
	size_t n_values;
};

struct obj_prog {
	uint32_t *code;              /* instruction words, pc = 4 * index */
	size_t n_code;               /* number of words */
	struct obj_section *sects;   /* data sections */
	size_t n_sects;              /* entries in sects */
	struct obj_sym *syms;        /* symbols, sorted by (kind, value, name) */
	size_t n_syms;               /* entries in syms */
	struct obj_tensor *tensors;  /* tensor table, in definition order */
	size_t n_tensors;            /* entries in tensors */
	struct obj_line *lines;      /* n_code entries, or NULL */
	char **files;                /* source file names for lines */
	size_t n_files;              /* entries in files */
	char **regions;              /* region names, index = rbeg/rend id
					(prog_region_name_ok names) */
	size_t n_regions;            /* entries in regions */
	struct obj_tunable *tunables; /* .tunable parameters, in order; from
					assembly only (object files do not
					store them: npusim tune reads .s) */
	size_t n_tunables;
};

/*
 * Largest values the loader accepts (guards against absurd allocations).
 * 1 GiB: obj_load reads the whole file into memory before checking it;
 * this caps that buffer.
 */
#define OBJ_MAX_FILE_BYTES (1ull << 30)

/* An empty program (NULL when out of memory). */
struct obj_prog *obj_new(void);
void obj_free(struct obj_prog *p);
/* Sort syms and sections into the canonical order (see invariants). */
void obj_canonicalize(struct obj_prog *p);

/*
 * Serialise into a malloc'd buffer.  A pure function of *p: call
 * obj_canonicalize first (the assembler does) for byte-identical files
 * from identical sources.  Returns 0 or NPU_ENOMEM.
 */
int obj_serialize(const struct obj_prog *p, uint8_t **buf, size_t *n) NPU_WUR;
/* Write path atomically (util/fsout.h); "-" is stdout. */
int obj_write(const struct obj_prog *p, const char *path,
	      struct diag *d) NPU_WUR;
/*
 * Parse and check a whole file image; name is used in messages.  On
 * failure one error naming name and the byte offset has been reported,
 * *out is NULL and nothing is leaked.
 */
int obj_load_mem(const uint8_t *buf, size_t n, const char *name,
		 struct diag *d, struct obj_prog **out) NPU_WUR;
int obj_load(const char *path, struct diag *d, struct obj_prog **out) NPU_WUR;
/* 1 if the file at path starts with the object magic, 0 if not or unreadable. */
int obj_sniff(const char *path);

/* Lookups. */
const struct obj_tensor *obj_find_tensor(const struct obj_prog *p,
					 const char *name);
const struct obj_sym *obj_find_sym(const struct obj_prog *p, const char *name);
/*
 * isa_symbolize_fn for the disassembler: the name of a code label at addr
 * (the first by name when several share it), or NULL.  ctx is the prog.
 *
 * (Binary search: relies on the canonical symbol order.)
 */
const char *obj_symbolize(void *ctx, uint64_t addr);
/* isa_names.region for the disassembler: the name of region id, or
 * NULL.  ctx is the prog. */
const char *obj_region_name(void *ctx, uint64_t id);
/* Source file and line of the word at pc; 0, or -1 if unknown. */
int obj_src_line(const struct obj_prog *p, uint64_t pc, const char **file,
		 int *line);

/*
 * The program image of p (prog/prog.h) named name: code, sections and
 * tensors copied; labels and source lines through p, which must outlive
 * the image.  0 or NPU_ENOMEM.
 */
int obj_image(const struct obj_prog *p, const char *name,
	      struct prog_image **out) NPU_WUR;
_Static_assert(OBJ_MAX_RANK == PROG_MAX_RANK,
	       "object tensors and image tensors have one rank limit");

/* What obj_print shows (OR of the flags). */
enum obj_print_flag {
	OBJ_PRINT_HEADERS = 1 << 0,  /* section table */
	OBJ_PRINT_SYMS = 1 << 1,     /* symbol table */
	OBJ_PRINT_TENSORS = 1 << 2,  /* tensor table */
	OBJ_PRINT_CODE = 1 << 3,     /* disassembly */
	OBJ_PRINT_DATA = 1 << 4,     /* hex dump of data sections */
	OBJ_PRINT_LINES = 1 << 5,    /* source file:line before each word */
	OBJ_PRINT_REGIONS = 1 << 6,  /* region table */
	OBJ_PRINT_DEFAULT = OBJ_PRINT_HEADERS | OBJ_PRINT_SYMS |
			    OBJ_PRINT_TENSORS | OBJ_PRINT_REGIONS |
			    OBJ_PRINT_CODE
};
/* The objdump listing of p (title names the input). */
void obj_print(FILE *fp, const struct obj_prog *p, const char *title,
	       unsigned flags);

#endif
