/*
 * obj.c - the .npo object file: serialise, load (checking everything), and
 * the objdump listing.
 *
 * Layout (versions 1 and 2, all integers little-endian; docs/formats.md):
 *
 *   offset 0   header (32 bytes)
 *              u8  magic[4]   7f 'N' 'P' 'O'
 *              u16 version    1, or 2 when the file has a REGIONS section
 *              u16 hdr_size   32
 *              u32 flags      0
 *              u32 n_sects    entries in the section table
 *              u64 sect_off   offset of the section table
 *              u64 file_size  total bytes (detects truncation)
 *   sect_off   section table, n_sects entries of 32 bytes
 *              u32 type, u32 mem, u64 addr, u64 offset, u64 size
 *   ...        section contents (8-byte aligned, zero padding between)
 *
 * Section types: CODE (u32 words), DATA (bytes for mem at addr), STRTAB
 * (NUL-terminated names, starting with an empty string), SYMTAB (16-byte
 * entries), TENSORS (80-byte entries), FILES (u32 name offsets), LINES
 * (u32 file, u32 line per code word), REGIONS (u32 name offsets, index =
 * the region id of rbeg/rend; version 2 only).
 *
 * Versions: the writer stamps the lowest version that holds the program,
 * so a program without regions is a version-1 file that older npusims
 * still read; a version-1 file with a REGIONS section is refused, and a
 * version-2 file is refused by older readers with "unsupported version".
 *
 * The loader never trusts a number before checking it against what it
 * bounds, computes every end offset without overflow, and reports the
 * first problem with the byte offset where it was found.
 */
#include "obj.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/isa.h"
#include "../util/fsout.h"
#include "../util/strutil.h"

/*
 * Format constants (docs/formats.md).  A tensor entry is 16 bytes of
 * fixed fields (name u32, mem/dtype/rank/reserved u8, addr u64) plus 8
 * dims of u64: 80.  2^20 sections and 255-byte names bound what a
 * hostile header can make the loader allocate or scan.
 */
#define OBJ_VERSION 1         /* programs without regions */
#define OBJ_VERSION_REGIONS 2 /* adds the REGIONS section */
#define OBJ_HDR_SIZE 32
#define OBJ_SECT_SIZE 32
#define OBJ_SYM_SIZE 16
#define OBJ_TENSOR_SIZE (16 + 8 * OBJ_MAX_RANK)
#define OBJ_LINE_SIZE 8
#define OBJ_MAX_SECTS (1u << 20)
#define OBJ_MAX_NAME 255

static const uint8_t obj_magic[4] = { 0x7f, 'N', 'P', 'O' };

/* Section types (values are part of the file format). */
enum obj_sect_type {
	OBJ_ST_CODE = 1,
	OBJ_ST_DATA = 2,
	OBJ_ST_STRTAB = 3,
	OBJ_ST_SYMTAB = 4,
	OBJ_ST_TENSORS = 5,
	OBJ_ST_FILES = 6,
	OBJ_ST_LINES = 7,
	OBJ_ST_REGIONS = 8,
};

/* For messages; indexed by type, which load_table checks first. */
static const char *const sect_type_names[] = {
	[OBJ_ST_CODE] = "code",     [OBJ_ST_DATA] = "data",
	[OBJ_ST_STRTAB] = "strtab", [OBJ_ST_SYMTAB] = "symtab",
	[OBJ_ST_TENSORS] = "tensors", [OBJ_ST_FILES] = "files",
	[OBJ_ST_LINES] = "lines", [OBJ_ST_REGIONS] = "regions",
};

static const char *const sym_kind_names[OBJ_N_SYM_KINDS] = {
	[OBJ_SYM_CODE] = "code", [OBJ_SYM_DATA] = "data",
	[OBJ_SYM_CONST] = "const", [OBJ_SYM_TENSOR] = "tensor",
};

/* The memspaces.def rows with INIT; rspm (another core's scratchpad) is
 * not one: no program initialises it. */
const char *obj_mem_name(int mem)
{
	return mem >= 0 && (isa_mem_flags((uint64_t)mem) & ISA_MS_INIT)
		       ? isa_mem_name((uint64_t)mem) : NULL;
}

int obj_mem_by_name(const char *name)
{
	int m = isa_mem_by_name(name);

	return m >= 0 && obj_mem_name(m) ? m : -1;
}

/* ---- the in-memory program -------------------------------------------------*/

struct obj_prog *obj_new(void)
{
	return calloc(1, sizeof(struct obj_prog));
}

void obj_free(struct obj_prog *p)
{
	size_t k;

	if (!p)
		return;
	for (k = 0; k < p->n_sects; k++)
		free(p->sects[k].bytes);
	for (k = 0; k < p->n_syms; k++)
		free(p->syms[k].name);
	for (k = 0; k < p->n_tensors; k++)
		free(p->tensors[k].name);
	for (k = 0; k < p->n_files; k++)
		free(p->files[k]);
	for (k = 0; k < p->n_regions; k++)
		free(p->regions[k]);
	free(p->regions);
	for (k = 0; k < p->n_tunables; k++) {
		free(p->tunables[k].name);
		free(p->tunables[k].values);
	}
	free(p->tunables);
	free(p->code);
	free(p->sects);
	free(p->syms);
	free(p->tensors);
	free(p->lines);
	free(p->files);
	free(p);
}

/*
 * Canonical symbol order: kind, value, name (code labels first).
 * A total order whenever names are unique (check_prog refuses
 * duplicates), so qsort's instability cannot show in the output.
 */
static int sym_cmp(const void *pa, const void *pb)
{
	const struct obj_sym *a = pa, *b = pb;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * Canonical section order: memory, then address.
 * Equal (mem, addr) only for overlapping sections, an error anyway.
 */
static int sect_cmp(const void *pa, const void *pb)
{
	const struct obj_section *a = pa, *b = pb;

	if (a->mem != b->mem)
		return a->mem < b->mem ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return 0;
}

/*
 * Sort into the canonical order that makes serialisation deterministic and
 * obj_symbolize's binary search valid.
 */
void obj_canonicalize(struct obj_prog *p)
{
	if (p->n_syms)
		qsort(p->syms, p->n_syms, sizeof(*p->syms), sym_cmp);
	if (p->n_sects)
		qsort(p->sects, p->n_sects, sizeof(*p->sects), sect_cmp);
}

/* ---- lookups ---------------------------------------------------------------*/

/* Linear lookups: called a few times per run (--input/--output names). */
const struct obj_tensor *obj_find_tensor(const struct obj_prog *p,
					 const char *name)
{
	size_t k;

	for (k = 0; k < p->n_tensors; k++)
		if (!strcmp(p->tensors[k].name, name))
			return &p->tensors[k];
	return NULL;
}

const struct obj_sym *obj_find_sym(const struct obj_prog *p, const char *name)
{
	size_t k;

	for (k = 0; k < p->n_syms; k++)
		if (!strcmp(p->syms[k].name, name))
			return &p->syms[k];
	return NULL;
}

const char *obj_symbolize(void *ctx, uint64_t addr)
{
	const struct obj_prog *p = ctx;
	size_t lo = 0, hi = p->n_syms;

	/*
	 * Code symbols come first, sorted by value: binary search.
	 * Lower bound of addr among the CODE prefix: non-code entries sort
	 * after every code entry and are treated as "not below addr".
	 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct obj_sym *s = &p->syms[mid];

		if (s->kind == OBJ_SYM_CODE && (uint64_t)s->value < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->n_syms && p->syms[lo].kind == OBJ_SYM_CODE &&
	    (uint64_t)p->syms[lo].value == addr)
		return p->syms[lo].name;
	return NULL;
}

const char *obj_region_name(void *ctx, uint64_t id)
{
	const struct obj_prog *p = ctx;

	return id < p->n_regions ? p->regions[id] : NULL;
}

/*
 * Used after a runtime fault: `npusim run` adds "FILE:LINE: note: the
 * instruction at pc 0x.. (core N)".
 */
int obj_src_line(const struct obj_prog *p, uint64_t pc, const char **file,
		 int *line)
{
	uint64_t k = pc / 4;

	if (!p->lines || pc % 4 || k >= p->n_code ||
	    p->lines[k].file >= p->n_files)
		return -1;
	*file = p->files[p->lines[k].file];
	*line = (int)p->lines[k].line;
	return 0;
}

/* ---- serialising -----------------------------------------------------------*/

/* A growable byte buffer. */
struct bbuf {
	uint8_t *b;     /* contents */
	size_t n, cap;  /* bytes used / allocated */
	int oom;        /* an allocation failed (sticky) */
};

/*
 * Make room for more bytes (doubling).  A failed allocation is sticky:
 * later appends do nothing and the serialiser checks oom once at the end.
 */
static void bb_reserve(struct bbuf *bb, size_t more)
{
	uint8_t *nb;
	size_t cap;

	if (bb->oom || bb->cap - bb->n >= more)
		return;
	cap = bb->cap ? bb->cap : 4096;
	while (cap - bb->n < more)
		cap *= 2;
	nb = realloc(bb->b, cap);
	if (!nb) {
		bb->oom = 1;
		return;
	}
	bb->b = nb;
	bb->cap = cap;
}

static void bb_put(struct bbuf *bb, const void *p, size_t n)
{
	if (!n)
		return;
	bb_reserve(bb, n);
	if (bb->oom)
		return;
	memcpy(bb->b + bb->n, p, n);
	bb->n += n;
}

static void bb_u8(struct bbuf *bb, unsigned v)
{
	uint8_t b = (uint8_t)v;

	bb_put(bb, &b, 1);
}

/* Append v as a little-endian integer of the given width. */
static void bb_le(struct bbuf *bb, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		bb_u8(bb, (unsigned)(v >> (8 * i)) & 0xff);
}

/* Pad with zeros to the 8-byte alignment of section contents. */
static void bb_align8(struct bbuf *bb)
{
	while (bb->n % 8 && !bb->oom)
		bb_u8(bb, 0);
}

/* Store v little-endian at p (patching the section table). */
static void put_le_at(uint8_t *p, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * String table: offsets of appended names (0 is the empty string).
 * No deduplication: a name used twice (symbol and tensor) is stored
 * twice.  Offsets fit 32 bits: names are at most 255 bytes each.
 */
static uint32_t strtab_add(struct bbuf *st, const char *s)
{
	uint32_t off = (uint32_t)st->n;

	bb_put(st, s, strlen(s) + 1);
	return off;
}

/*
 * Serialise: the name-bearing tables are built first (they share one
 * string table), then the header and section table are reserved and the
 * contents appended, each section patching its table entry.  Empty tables
 * are omitted; a program without line information has no FILES/LINES.
 */
int obj_serialize(const struct obj_prog *p, uint8_t **buf, size_t *n)
{
	struct bbuf out = { 0 }, st = { 0 }, syms = { 0 }, tens = { 0 },
		    files = { 0 }, rgns = { 0 };
	/*
	 * Plan: si = next section-table index; table = offset of the
	 * table (right after the header).  Every section's contents start
	 * 8-byte aligned (bb_align8), as docs/formats.md specifies, so u64
	 * fields sit at naturally aligned file offsets.
	 */
	size_t n_sects = 0, k, si = 0, table;
	int r = 0;

	*buf = NULL;
	*n = 0;
	/*
	 * Build the name-bearing sections first; they share the strtab.
	 * Offset 0 of the string table is the empty name (docs/formats.md).
	 */
	bb_u8(&st, 0);
	for (k = 0; k < p->n_syms; k++) {
		/* Symbol, 16 bytes: name@0 u32, kind@4, mem@5, 0@6 u16, value@8. */
		bb_le(&syms, strtab_add(&st, p->syms[k].name), 4);
		bb_u8(&syms, p->syms[k].kind);
		bb_u8(&syms, p->syms[k].mem);
		bb_le(&syms, 0, 2);
		bb_le(&syms, (uint64_t)p->syms[k].value, 8);
	}
	for (k = 0; k < p->n_tensors; k++) {
		const struct obj_tensor *t = &p->tensors[k];
		int d;

		/*
		 * Tensor, 80 bytes: name@0, mem@4, dtype@5, rank@6, 0@7,
		 * addr@8 u64, shape@16 8 x u64 (zero past rank).
		 */
		bb_le(&tens, strtab_add(&st, t->name), 4);
		bb_u8(&tens, t->mem);
		bb_u8(&tens, t->dtype);
		bb_u8(&tens, (unsigned)t->rank);
		bb_u8(&tens, 0);
		bb_le(&tens, t->addr, 8);
		for (d = 0; d < OBJ_MAX_RANK; d++)
			bb_le(&tens, d < t->rank ? t->shape[d] : 0, 8);
	}
	for (k = 0; k < p->n_files; k++)
		bb_le(&files, strtab_add(&st, p->files[k]), 4);
	for (k = 0; k < p->n_regions; k++)
		bb_le(&rgns, strtab_add(&st, p->regions[k]), 4);

	/*
	 * Which sections exist, in file order.
	 * Must match the ADD_SECT calls below one for one: the table is
	 * sized here and filled as contents are appended.  st.n > 1: the
	 * string table always starts with its empty name.
	 */
	n_sects = (p->n_code > 0) + p->n_sects + (st.n > 1) + (syms.n > 0) +
		  (tens.n > 0) + (p->lines && p->n_code ? 2 : 0) +
		  (rgns.n > 0);
	bb_reserve(&out, OBJ_HDR_SIZE + n_sects * OBJ_SECT_SIZE);
	if (out.oom)
		goto oom;
	memset(out.b, 0, OBJ_HDR_SIZE + n_sects * OBJ_SECT_SIZE);
	out.n = OBJ_HDR_SIZE + n_sects * OBJ_SECT_SIZE;
	table = OBJ_HDR_SIZE;

/*
 * Append one section's contents (aligned) and patch its 32-byte table
 * entry: type @0, mem @4, addr @8, offset @16, size @24.
 */
#define ADD_SECT(type_, mem_, addr_, data_, size_)                          \
	do {                                                                \
		size_t off_;                                                \
		bb_align8(&out);                                            \
		off_ = out.n;                                               \
		bb_put(&out, (data_), (size_t)(size_));                     \
		if (out.oom)                                                \
			goto oom;                                           \
		put_le_at(out.b + table + si * OBJ_SECT_SIZE, (type_), 4);  \
		put_le_at(out.b + table + si * OBJ_SECT_SIZE + 4, (mem_), 4); \
		put_le_at(out.b + table + si * OBJ_SECT_SIZE + 8, (addr_), 8); \
		put_le_at(out.b + table + si * OBJ_SECT_SIZE + 16, off_, 8); \
		put_le_at(out.b + table + si * OBJ_SECT_SIZE + 24, (size_), 8); \
		si++;                                                       \
	} while (0)

	if (p->n_code) {
		struct bbuf code = { 0 };

		for (k = 0; k < p->n_code; k++)
			bb_le(&code, p->code[k], 4);
		if (code.oom)
			goto oom;
		ADD_SECT(OBJ_ST_CODE, 0, 0, code.b, code.n);
		free(code.b);
	}
	for (k = 0; k < p->n_sects; k++)
		ADD_SECT(OBJ_ST_DATA, p->sects[k].mem, p->sects[k].addr,
			 p->sects[k].bytes, p->sects[k].size);
	if (st.n > 1)
		ADD_SECT(OBJ_ST_STRTAB, 0, 0, st.b, st.n);
	if (syms.n)
		ADD_SECT(OBJ_ST_SYMTAB, 0, 0, syms.b, syms.n);
	if (tens.n)
		ADD_SECT(OBJ_ST_TENSORS, 0, 0, tens.b, tens.n);
	if (p->lines && p->n_code) {
		struct bbuf lines = { 0 };

		ADD_SECT(OBJ_ST_FILES, 0, 0, files.b, files.n);
		for (k = 0; k < p->n_code; k++) {
			bb_le(&lines, p->lines[k].file, 4);
			bb_le(&lines, p->lines[k].line, 4);
		}
		if (lines.oom)
			goto oom;
		ADD_SECT(OBJ_ST_LINES, 0, 0, lines.b, lines.n);
		free(lines.b);
	}
	if (rgns.n)
		ADD_SECT(OBJ_ST_REGIONS, 0, 0, rgns.b, rgns.n);
#undef ADD_SECT
	if (st.oom || syms.oom || tens.oom || files.oom || rgns.oom)
		goto oom;
	memcpy(out.b, obj_magic, 4);
	put_le_at(out.b + 4, rgns.n ? OBJ_VERSION_REGIONS : OBJ_VERSION, 2);
	put_le_at(out.b + 6, OBJ_HDR_SIZE, 2);
	put_le_at(out.b + 8, 0, 4);
	put_le_at(out.b + 12, n_sects, 4);
	put_le_at(out.b + 16, table, 8);
	/* file_size last: only now is the total known. */
	put_le_at(out.b + 24, out.n, 8);
	*buf = out.b;
	*n = out.n;
	out.b = NULL;
	goto done;
oom:
	r = NPU_ENOMEM;
done:
	free(out.b);
	free(st.b);
	free(syms.b);
	free(tens.b);
	free(files.b);
	free(rgns.b);
	return r;
}

/*
 * Serialise, then write through fsout (temporary file + rename).
 * A failed write removes the temporary file (fsout_abort), so the
 * previous object at path, if any, survives unchanged.
 */
int obj_write(const struct obj_prog *p, const char *path, struct diag *d)
{
	struct fsout o;
	uint8_t *buf;
	size_t n;
	int r = obj_serialize(p, &buf, &n);

	if (r)
		return diag_error(d, diag_at_file(path, 0, 0), r,
				  "out of memory writing the object");
	r = fsout_open(&o, path, d);
	if (r) {
		free(buf);
		return r;
	}
	if (fwrite(buf, 1, n, o.fp) != n) {
		/* Said as every other failed write is (fsout): the reason,
		 * e.g. "No space left on device" for /dev/full. */
		int err = errno ? errno : EIO;

		fsout_abort(&o);
		free(buf);
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "cannot write: %s", strerror(err));
	}
	free(buf);
	return fsout_commit(&o, d);
}

/* ---- loading ---------------------------------------------------------------*/

/* Loader state: the image and where to report. */
struct ld {
	const uint8_t *b;    /* file image */
	size_t n;            /* its size */
	const char *name;    /* for messages */
	struct diag *d;      /* where the error goes */
	const uint8_t *str;  /* string table (or NULL) */
	uint64_t str_n;      /* size of the string table */
	unsigned version;    /* header version (1 or 2) */
};

/*
 * Read a little-endian integer (the caller checked the bounds).
 * Byte by byte: independent of host endianness and alignment.
 */
static uint64_t le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	int i;

	for (i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * Report the first problem: "FILE: error: invalid object file: WHAT (at
 * byte offset 0x..)"; returns NPU_EOBJ.  off is the byte offset of the
 * field at fault, so a hex dump of the file shows it directly.
 */
static int bad(struct ld *L, uint64_t off, const char *fmt, ...)
	NPU_PRINTF(3, 4);

static int bad(struct ld *L, uint64_t off, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_error(L->d, diag_at_file(L->name, 0, 0), NPU_EOBJ,
			  "invalid object file: %s (at byte offset 0x%" PRIx64
			  ")", msg, off);
}

/*
 * A name at strtab offset off: non-empty, terminated, printable.  Region
 * names (space = 1) may hold spaces: they are labels in counter files,
 * never parsed back from a listing without quotes.
 */
static int get_name_sp(struct ld *L, uint64_t where, uint64_t off, char **out,
		       int space)
{
	uint64_t k;

	if (!L->str)
		return bad(L, where, "name offset %" PRIu64 " but no string "
				     "table", off);
	if (off == 0 || off >= L->str_n)
		return bad(L, where, "name offset %" PRIu64 " outside the "
				     "string table (%" PRIu64 " bytes)",
			   off, L->str_n);
	/*
	 * Bytes 0x21..0x7e only: names are printed raw in listings and
	 * messages, so spaces and control characters are refused.
	 */
	for (k = off; k < L->str_n && L->str[k]; k++)
		if (L->str[k] < (space ? ' ' : ' ' + 1) || L->str[k] >= 0x7f)
			return bad(L, where, "name at string offset %" PRIu64
					     " has a non-printable byte", off);
	if (k - off > OBJ_MAX_NAME)
		return bad(L, where, "name at string offset %" PRIu64
				     " longer than %d bytes", off, OBJ_MAX_NAME);
	/* The table ends in NUL (checked), so the name is terminated. */
	*out = str_dup((const char *)L->str + off);
	return *out ? 0 : NPU_ENOMEM;
}

static int get_name(struct ld *L, uint64_t where, uint64_t off, char **out)
{
	return get_name_sp(L, where, off, out, 0);
}

struct sect_ent {
	uint32_t type, mem; /* table fields at offsets 0 and 4 */
	uint64_t addr, off, size; /* ... at 8, 16 and 24 */
	uint64_t at;   /* offset of the table entry (for messages) */
};

/*
 * Section entries by file offset, for the overlap check.  Ties by size,
 * so an empty section sorts before a non-empty one at the same offset.
 */
static int ent_off_cmp(const void *pa, const void *pb)
{
	const struct sect_ent *a = pa, *b = pb;

	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->size < b->size ? -1 : a->size > b->size;
}

/* Is m one of the memories a section or tensor may name? */
static int valid_mem(uint64_t m)
{
	return (isa_mem_flags(m) & ISA_MS_INIT) != 0;
}

/* Parse and check the section table into ents (n_sects entries). */
static int load_table(struct ld *L, struct sect_ent **ents_out,
		      uint32_t *n_out)
{
	uint64_t n_sects, sect_off, fsize, k;
	struct sect_ent *ents, *sorted;
	int r = 0;

	if (L->n < OBJ_HDR_SIZE)
		return bad(L, L->n, "truncated: the header needs %d bytes, the "
				    "file has %zu", OBJ_HDR_SIZE, L->n);
	if (memcmp(L->b, obj_magic, 4))
		return bad(L, 0, "not an npusim object (bad magic; expected "
				 "7f 4e 50 4f)");
	L->version = (unsigned)le(L->b + 4, 2);
	if (L->version != OBJ_VERSION && L->version != OBJ_VERSION_REGIONS)
		return bad(L, 4, "unsupported version %u (this npusim reads "
				 "versions %d and %d)", L->version,
			   OBJ_VERSION, OBJ_VERSION_REGIONS);
	if (le(L->b + 6, 2) != OBJ_HDR_SIZE)
		return bad(L, 6, "header size %u, expected %d",
			   (unsigned)le(L->b + 6, 2), OBJ_HDR_SIZE);
	if (le(L->b + 8, 4) != 0)
		return bad(L, 8, "unknown flags 0x%x",
			   (unsigned)le(L->b + 8, 4));
	n_sects = le(L->b + 12, 4);
	sect_off = le(L->b + 16, 8);
	fsize = le(L->b + 24, 8);
	if (fsize != L->n)
		return bad(L, 24, "the header says the file has %" PRIu64
				  " bytes but it has %zu (truncated or "
				  "damaged)", fsize, L->n);
	if (n_sects > OBJ_MAX_SECTS)
		return bad(L, 12, "%" PRIu64 " sections (at most %u)", n_sects,
			   OBJ_MAX_SECTS);
	/*
	 * n_sects <= 2^20, so n_sects * 32 cannot overflow; sect_off <= n
	 * first, so L->n - sect_off cannot wrap.
	 */
	if (sect_off < OBJ_HDR_SIZE || sect_off > L->n ||
	    n_sects * OBJ_SECT_SIZE > L->n - sect_off)
		return bad(L, 16, "section table (%" PRIu64 " entries at "
				  "0x%" PRIx64 ") outside the file",
			   n_sects, sect_off);
	/* + 1: a file with no sections is valid (an empty program). */
	ents = calloc((size_t)n_sects + 1, sizeof(*ents));
	sorted = calloc((size_t)n_sects + 1, sizeof(*sorted));
	if (!ents || !sorted) {
		free(ents);
		free(sorted);
		return NPU_ENOMEM;
	}
	for (k = 0; k < n_sects; k++) {
		const uint8_t *e = L->b + sect_off + k * OBJ_SECT_SIZE;
		struct sect_ent *s = &ents[k];

		s->at = sect_off + k * OBJ_SECT_SIZE;
		s->type = (uint32_t)le(e, 4);
		s->mem = (uint32_t)le(e + 4, 4);
		s->addr = le(e + 8, 8);
		s->off = le(e + 16, 8);
		s->size = le(e + 24, 8);
		/*
		 * Type first: later checks and messages index
		 * sect_type_names by it.
		 */
		if (s->type < OBJ_ST_CODE || s->type > OBJ_ST_REGIONS) {
			r = bad(L, s->at, "section %" PRIu64 " has unknown type "
					  "%u", k, s->type);
			goto out;
		}
		/* Contents lie after the header, inside the file. */
		if (s->off < OBJ_HDR_SIZE || s->off > L->n ||
		    s->size > L->n - s->off) {
			r = bad(L, s->at + 16, "%s section %" PRIu64 " (0x%" PRIx64
					       " bytes at 0x%" PRIx64 ") lies "
					       "outside the file",
				sect_type_names[s->type], k, s->size, s->off);
			goto out;
		}
		if (s->type == OBJ_ST_DATA) {
			if (!valid_mem(s->mem)) {
				r = bad(L, s->at + 4, "data section %" PRIu64
						      " has unknown memory %u",
					k, s->mem);
				goto out;
			}
			/*
			 * addr + size - 1 must not wrap: the last byte's
			 * address is representable.
			 */
			if (s->size == 0 || s->addr > UINT64_MAX - (s->size - 1)) {
				r = bad(L, s->at + 24, "data section %" PRIu64
						       " is empty or wraps "
						       "around the address space",
					k);
				goto out;
			}
		} else if (s->mem || s->addr) {
			r = bad(L, s->at + 4, "%s section %" PRIu64 " has nonzero "
					      "reserved fields",
				sect_type_names[s->type], k);
			goto out;
		}
	}
	/* No section may overlap another or the section table. */
	memcpy(sorted, ents, (size_t)n_sects * sizeof(*sorted));
	qsort(sorted, (size_t)n_sects, sizeof(*sorted), ent_off_cmp);
	for (k = 0; k < n_sects; k++) {
		const struct sect_ent *s = &sorted[k];
		/* tab_end <= n (checked above). */
		uint64_t tab_end = sect_off + n_sects * OBJ_SECT_SIZE;

		if (s->size && s->off < tab_end && sect_off < s->off + s->size) {
			r = bad(L, s->at + 16, "section contents overlap the "
					       "section table");
			goto out;
		}
		/*
		 * Sorted by offset, comparing neighbours finds the first
		 * overlap; each end is <= n, so off + size cannot wrap.  A
		 * zero-size entry (SYMTAB, FILES ...) between two sections is
		 * skipped and hides an overlap of its neighbours; harmless,
		 * since every section is bounds-checked on its own.
		 */
		if (k && s->size && sorted[k - 1].off + sorted[k - 1].size > s->off) {
			r = bad(L, s->at + 16, "sections overlap in the file");
			goto out;
		}
	}
	*ents_out = ents;
	*n_out = (uint32_t)n_sects;
	free(sorted);
	return 0;
out:
	free(ents);
	free(sorted);
	return r;
}

/* At most one section of each non-DATA type. */
static const struct sect_ent *find_unique(struct ld *L,
					  const struct sect_ent *ents,
					  uint32_t n, uint32_t type, int *err)
{
	const struct sect_ent *found = NULL;
	uint32_t k;

	for (k = 0; k < n; k++) {
		if (ents[k].type != type)
			continue;
		if (found) {
			*err = bad(L, ents[k].at, "more than one %s section",
				   sect_type_names[type]);
			return NULL;
		}
		found = &ents[k];
	}
	return found;
}

/*
 * Section contents into p, checking each field as it is read.  The string
 * table is loaded first because symbols, tensors and files refer to it.
 * Counts are added only after an entry is complete, so obj_free of a
 * half-loaded program frees exactly what was allocated.
 */
static int load_parts(struct ld *L, const struct sect_ent *ents, uint32_t n,
		      struct obj_prog *p)
{
	const struct sect_ent *code, *str, *sym, *ten, *fil, *lin, *rgn;
	uint64_t k, cnt;
	int r = 0;
	size_t nd = 0;

	code = find_unique(L, ents, n, OBJ_ST_CODE, &r);
	if (r) return r;
	str = find_unique(L, ents, n, OBJ_ST_STRTAB, &r);
	if (r) return r;
	sym = find_unique(L, ents, n, OBJ_ST_SYMTAB, &r);
	if (r) return r;
	ten = find_unique(L, ents, n, OBJ_ST_TENSORS, &r);
	if (r) return r;
	fil = find_unique(L, ents, n, OBJ_ST_FILES, &r);
	if (r) return r;
	lin = find_unique(L, ents, n, OBJ_ST_LINES, &r);
	if (r) return r;
	rgn = find_unique(L, ents, n, OBJ_ST_REGIONS, &r);
	if (r) return r;

	/*
	 * STRTAB first: every later name lookup (get_name) indexes it.  A
	 * NUL first byte makes offset 0 "no name"; a NUL last byte ends
	 * every name inside the table.
	 */
	if (str) {
		const uint8_t *s = L->b + str->off;

		if (str->size == 0 || s[0] != 0 || s[str->size - 1] != 0)
			return bad(L, str->off, "string table must start and end "
						"with a NUL byte");
		L->str = s;
		L->str_n = str->size;
	}
	if (code) {
		/* Words are read byte by byte (le), so no alignment is needed. */
		if (code->size % 4)
			return bad(L, code->at + 24, "code size %" PRIu64 " is not "
						     "a multiple of 4", code->size);
		p->n_code = (size_t)(code->size / 4);
		p->code = calloc(p->n_code + 1, sizeof(*p->code));
		if (!p->code)
			return NPU_ENOMEM;
		for (k = 0; k < p->n_code; k++)
			p->code[k] = (uint32_t)le(L->b + code->off + 4 * k, 4);
	}
	for (k = 0; k < n; k++)
		nd += ents[k].type == OBJ_ST_DATA;
	/* DATA contents are copied: the image may be freed after loading. */
	p->sects = calloc(nd + 1, sizeof(*p->sects));
	if (!p->sects)
		return NPU_ENOMEM;
	for (k = 0; k < n; k++) {
		struct obj_section *s;

		if (ents[k].type != OBJ_ST_DATA)
			continue;
		s = &p->sects[p->n_sects];
		s->bytes = malloc((size_t)ents[k].size);
		if (!s->bytes)
			return NPU_ENOMEM;
		memcpy(s->bytes, L->b + ents[k].off, (size_t)ents[k].size);
		s->mem = (enum obj_mem)ents[k].mem;
		s->addr = ents[k].addr;
		s->size = ents[k].size;
		p->n_sects++;
	}
	if (sym) {
		if (sym->size % OBJ_SYM_SIZE)
			return bad(L, sym->at + 24, "symbol table size %" PRIu64
						    " is not a multiple of %d",
				   sym->size, OBJ_SYM_SIZE);
		cnt = sym->size / OBJ_SYM_SIZE;
		p->syms = calloc((size_t)cnt + 1, sizeof(*p->syms));
		if (!p->syms)
			return NPU_ENOMEM;
		for (k = 0; k < cnt; k++) {
			/* e: the 16-byte entry; fields as written by obj_serialize. */
			const uint8_t *e = L->b + sym->off + k * OBJ_SYM_SIZE;
			struct obj_sym *s = &p->syms[p->n_syms];
			uint64_t at = sym->off + k * OBJ_SYM_SIZE;
			unsigned kind = e[4], mem = e[5];

			if (kind >= OBJ_N_SYM_KINDS)
				return bad(L, at + 4, "symbol %" PRIu64 " has "
						      "unknown kind %u", k, kind);
			if ((kind == OBJ_SYM_DATA || kind == OBJ_SYM_TENSOR)
				    ? !valid_mem(mem) : mem != 0)
				return bad(L, at + 5, "symbol %" PRIu64 " has "
						      "invalid memory %u", k, mem);
			if (le(e + 6, 2))
				return bad(L, at + 6, "symbol %" PRIu64 " has "
						      "nonzero reserved bytes", k);
			/*
			 * A code label is a word address within the code (or
			 * just past its end): the disassembler and the run
			 * loader rely on it.
			 */
			if (kind == OBJ_SYM_CODE &&
			    (le(e + 8, 8) % 4 || le(e + 8, 8) / 4 > p->n_code))
				return bad(L, at + 8, "code symbol %" PRIu64 " has "
						      "address 0x%" PRIx64 " outside "
						      "the code", k, le(e + 8, 8));
			if ((r = get_name(L, at, le(e, 4), &s->name)))
				return r;
			p->n_syms++;
			s->kind = (enum obj_sym_kind)kind;
			s->mem = (enum obj_mem)mem;
			s->value = (int64_t)le(e + 8, 8);
		}
	}
	if (ten) {
		if (ten->size % OBJ_TENSOR_SIZE)
			return bad(L, ten->at + 24, "tensor table size %" PRIu64
						    " is not a multiple of %d",
				   ten->size, OBJ_TENSOR_SIZE);
		cnt = ten->size / OBJ_TENSOR_SIZE;
		p->tensors = calloc((size_t)cnt + 1, sizeof(*p->tensors));
		if (!p->tensors)
			return NPU_ENOMEM;
		for (k = 0; k < cnt; k++) {
			/*
			 * e: the 80-byte entry.  The dimension checks mirror the
			 * assembler's (encode_tensor: 1..2^40 per dimension, at
			 * most 2^60 elements), so what `npusim as` writes loads.
			 */
			const uint8_t *e = L->b + ten->off + k * OBJ_TENSOR_SIZE;
			struct obj_tensor *t = &p->tensors[p->n_tensors];
			uint64_t at = ten->off + k * OBJ_TENSOR_SIZE, elems = 1;
			unsigned mem = e[4], dt = e[5], rank = e[6];
			int d;

			if (!valid_mem(mem))
				return bad(L, at + 4, "tensor %" PRIu64 " has "
						      "unknown memory %u", k, mem);
			if (dt >= DT_N)
				return bad(L, at + 5, "tensor %" PRIu64 " has "
						      "unknown dtype %u", k, dt);
			if (rank < 1 || rank > OBJ_MAX_RANK)
				return bad(L, at + 6, "tensor %" PRIu64 " has rank "
						      "%u (1..%d)", k, rank,
					   OBJ_MAX_RANK);
			if (e[7])
				return bad(L, at + 7, "tensor %" PRIu64 " has a "
						      "nonzero reserved byte", k);
			t->addr = le(e + 8, 8);
			for (d = 0; d < OBJ_MAX_RANK; d++) {
				uint64_t dim = le(e + 16 + 8 * d, 8);

				if ((unsigned)d < rank &&
				    (dim < 1 || dim > (1ull << 40) ||
				     elems > (UINT64_MAX >> 4) / dim))
					return bad(L, at + 16 + 8 * (uint64_t)d,
						   "tensor %" PRIu64 " dimension "
						   "%d is %" PRIu64 " (1..2^40, "
						   "at most 2^60 elements)",
						   k, d, dim);
				if ((unsigned)d >= rank && dim)
					return bad(L, at + 16 + 8 * (uint64_t)d,
						   "tensor %" PRIu64 " has a "
						   "dimension beyond its rank", k);
				if ((unsigned)d < rank)
					elems *= dim;
				t->shape[d] = dim;
			}
			if (dtype_bytes((enum npu_dtype)dt, elems) >
			    UINT64_MAX - t->addr)
				return bad(L, at + 8, "tensor %" PRIu64 " ends "
						      "beyond the address space", k);
			if ((r = get_name(L, at, le(e, 4), &t->name)))
				return r;
			p->n_tensors++;
			t->mem = (enum obj_mem)mem;
			t->dtype = (enum npu_dtype)dt;
			t->rank = (int)rank;
		}
	}
	/*
	 * Line information is all or nothing: LINES has one 8-byte entry
	 * per code word and FILES the names its file indexes refer to.
	 */
	if (!fil != !lin)
		return bad(L, (fil ? fil : lin)->at, "a files section needs a "
						     "lines section and back");
	if (fil) {
		if (fil->size % 4)
			return bad(L, fil->at + 24, "files section size is not a "
						    "multiple of 4");
		cnt = fil->size / 4;
		p->files = calloc((size_t)cnt + 1, sizeof(*p->files));
		if (!p->files)
			return NPU_ENOMEM;
		for (k = 0; k < cnt; k++) {
			if ((r = get_name(L, fil->off + 4 * k,
					  le(L->b + fil->off + 4 * k, 4),
					  &p->files[k])))
				return r;
			p->n_files++;
		}
		if (lin->size != (uint64_t)p->n_code * OBJ_LINE_SIZE)
			return bad(L, lin->at + 24, "lines section has %" PRIu64
						    " bytes, expected %zu (8 per "
						    "code word)", lin->size,
				   p->n_code * OBJ_LINE_SIZE);
		p->lines = calloc(p->n_code + 1, sizeof(*p->lines));
		if (!p->lines)
			return NPU_ENOMEM;
		for (k = 0; k < p->n_code; k++) {
			const uint8_t *e = L->b + lin->off + 8 * k;

			p->lines[k].file = (uint32_t)le(e, 4);
			p->lines[k].line = (uint32_t)le(e + 4, 4);
			if (p->lines[k].file >= p->n_files)
				return bad(L, lin->off + 8 * k, "line entry %" PRIu64
						" names file %u of %zu", k,
					   p->lines[k].file, p->n_files);
		}
	}
	/*
	 * REGIONS: one u32 name offset per region, index = the id rbeg and
	 * rend carry.  Version 2 introduced it: a version-1 file with one
	 * was not written by any npusim.
	 */
	if (rgn) {
		if (L->version < OBJ_VERSION_REGIONS)
			return bad(L, rgn->at, "regions section in a version %u "
					       "file (regions need version %d)",
				   L->version, OBJ_VERSION_REGIONS);
		if (rgn->size % 4 || rgn->size / 4 > PROG_MAX_REGIONS)
			return bad(L, rgn->at + 24, "regions section size %" PRIu64
						    " is not 4 x (0..%d regions)",
				   rgn->size, PROG_MAX_REGIONS);
		cnt = rgn->size / 4;
		p->regions = calloc((size_t)cnt + 1, sizeof(*p->regions));
		if (!p->regions)
			return NPU_ENOMEM;
		for (k = 0; k < cnt; k++) {
			if ((r = get_name_sp(L, rgn->off + 4 * k,
					     le(L->b + rgn->off + 4 * k, 4),
					     &p->regions[k], 1)))
				return r;
			p->n_regions++;
		}
	}
	return 0;
}

/* strcmp for qsort over an array of names. */
static int name_cmp(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/*
 * The first name that occurs twice among n names, or NULL (n log n).
 * Symbols and tensors are separate namespaces here (a tensor's symbol
 * and its table entry share a name by design).
 */
static const char *dup_name(const char **names, size_t n)
{
	size_t k;

	qsort(names, n, sizeof(*names), name_cmp);
	for (k = 1; k < n; k++)
		if (!strcmp(names[k - 1], names[k]))
			return names[k];
	return NULL;
}

/*
 * Semantic checks once everything is parsed.
 * Sorting first (obj_canonicalize) makes the overlap check linear and
 * gives the loaded program the invariants of obj.h whatever order the
 * file listed things in.  Offsets of these errors are 0: they concern
 * the program, not one field.
 */
static int check_prog(struct ld *L, struct obj_prog *p)
{
	const struct obj_section *far = NULL;
	const char **names, *dup;
	/* One name array serves both duplicate checks (max of the counts). */
	size_t k, n = p->n_syms > p->n_tensors ? p->n_syms : p->n_tensors;

	obj_canonicalize(p);
	/*
	 * Sorted by (mem, addr): a section overlaps an earlier one iff it
	 * starts before the furthest end so far in its memory.
	 */
	for (k = 1; k < p->n_sects; k++) {
		const struct obj_section *a = &p->sects[k - 1], *b = &p->sects[k];

		if (a->mem != b->mem) {
			far = b;
			continue;
		}
		if (!far || far->mem != b->mem)
			far = a;
		if (b->addr - far->addr < far->size)
			return bad(L, 0, "data sections overlap: %s 0x%" PRIx64
					 " (0x%" PRIx64 " bytes) and 0x%" PRIx64,
				   obj_mem_name((int)b->mem), far->addr, far->size,
				   b->addr);
		if (b->addr + (b->size - 1) > far->addr + (far->size - 1))
			far = b;
	}
	names = malloc((n + 1) * sizeof(*names));
	if (!names)
		return NPU_ENOMEM;
	for (k = 0; k < p->n_syms; k++)
		names[k] = p->syms[k].name;
	dup = dup_name(names, p->n_syms);
	if (dup) {
		int r = bad(L, 0, "duplicate symbol '%s'", dup);

		free(names);
		return r;
	}
	for (k = 0; k < p->n_tensors; k++)
		names[k] = p->tensors[k].name;
	dup = dup_name(names, p->n_tensors);
	free(names);
	if (dup)
		return bad(L, 0, "duplicate tensor '%s'", dup);
	return 0;
}

/*
 * Load a file image: table, contents, then whole-program checks.  On any
 * failure exactly one error has been reported and nothing is returned.
 */
int obj_load_mem(const uint8_t *buf, size_t n, const char *name,
		 struct diag *d, struct obj_prog **out)
{
	struct ld L = { buf, n, name, d, NULL, 0 };
	struct sect_ent *ents = NULL;
	struct obj_prog *p;
	uint32_t ns = 0;
	int r;

	*out = NULL;
	r = load_table(&L, &ents, &ns);
	if (r)
		goto fail_nomem;
	p = obj_new();
	if (!p) {
		free(ents);
		r = NPU_ENOMEM;
		goto fail_nomem;
	}
	r = load_parts(&L, ents, ns, p);
	free(ents);
	if (!r)
		r = check_prog(&L, p);
	if (r) {
		obj_free(p);
		goto fail_nomem;
	}
	*out = p;
	return 0;
fail_nomem:
	if (r == NPU_ENOMEM)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ENOMEM,
				  "out of memory loading the object");
	return r;
}

/*
 * Read the whole file (bounded by OBJ_MAX_FILE_BYTES), then load it.
 * The buffer doubles from 64 KiB up to 1 GiB; a file that needs more is
 * refused.  The loop grows the buffer before it can see EOF, so a file
 * of exactly 1 GiB is refused too (the message says "larger than").
 */
int obj_load(const char *path, struct diag *d, struct obj_prog **out)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	int r;

	*out = NULL;
	if (!fp)
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "cannot open: %s", strerror(errno));
	for (;;) {
		size_t got;

		if (n == cap) {
			uint8_t *nb;

			/* A full buffer of OBJ_MAX_FILE_BYTES + 1 bytes means the
			 * file is larger than the limit; a file of exactly the
			 * limit fits. */
			if (cap > OBJ_MAX_FILE_BYTES) {
				free(buf);
				fclose(fp);
				return diag_error(d, diag_at_file(path, 0, 0),
						  NPU_EOBJ, "invalid object file: "
						  "larger than 1 GiB");
			}
			cap = cap ? 2 * cap : 65536;
			if (cap > OBJ_MAX_FILE_BYTES + 1)
				cap = OBJ_MAX_FILE_BYTES + 1;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(fp);
				return diag_error(d, diag_at_file(path, 0, 0),
						  NPU_ENOMEM, "out of memory");
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, fp);
		n += got;
		if (!got)
			break;
	}
	r = ferror(fp);
	fclose(fp);
	if (r) {
		free(buf);
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "read error");
	}
	/* An empty file (buf NULL) is reported as truncated, not crashed on. */
	r = obj_load_mem(buf ? buf : (const uint8_t *)"", n, path, d, out);
	free(buf);
	return r;
}

/*
 * Object or not, by the magic number (so the file name does not matter).
 * `npusim run` and `objdump` accept either an object or assembly: the
 * four magic bytes decide, whatever the file is called.
 */
int obj_sniff(const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t m[4];
	int r;

	if (!fp)
		return 0;
	r = fread(m, 1, 4, fp) == 4 && !memcmp(m, obj_magic, 4);
	fclose(fp);
	return r;
}

/* ---- listing ---------------------------------------------------------------*/

/*
 * objdump -s: 16 bytes per line with their ASCII rendering.
 * Format per line: address, 16 bytes as hex (gap after 8), then ASCII.
 */
static void print_hex(FILE *fp, const struct obj_section *s)
{
	uint64_t off;

	fprintf(fp, "\nContents of %s 0x%" PRIx64 " (%" PRIu64 " bytes):\n",
		obj_mem_name((int)s->mem), s->addr, s->size);
	for (off = 0; off < s->size; off += 16) {
		uint64_t k;

		fprintf(fp, "  %10" PRIx64 " ", s->addr + off);
		for (k = 0; k < 16; k++) {
			if (k == 8)
				fputc(' ', fp);
			if (off + k < s->size)
				fprintf(fp, " %02x", s->bytes[off + k]);
			else
				fputs("   ", fp);
		}
		fputs("  ", fp);
		for (k = 0; k < 16 && off + k < s->size; k++) {
			int c = s->bytes[off + k];

			fputc(c >= 0x20 && c < 0x7f ? c : '.', fp);
		}
		fputc('\n', fp);
	}
}

/*
 * The objdump listing.  The disassembly prints each code label as an
 * "ADDR <name>:" line before its instruction, and branch targets by label
 * through obj_symbolize; each line shows pc, encoding and instruction.
 */
void obj_print(FILE *fp, const struct obj_prog *p, const char *title,
	       unsigned flags)
{
	size_t k;

	struct isa_names nm = { obj_symbolize, (void *)p, obj_region_name,
				(void *)p };

	/* (nm drops const for the isa_symbolize_fn signature; both
	 * callbacks only read.) */
	fprintf(fp, "%s: npusim object: %zu instruction%s, %zu data section%s, "
		    "%zu symbol%s, %zu tensor%s", title, p->n_code,
		p->n_code == 1 ? "" : "s", p->n_sects, p->n_sects == 1 ? "" : "s",
		p->n_syms, p->n_syms == 1 ? "" : "s", p->n_tensors,
		p->n_tensors == 1 ? "" : "s");
	/* Only programs with regions say so: older listings stay as they
	 * were. */
	if (p->n_regions)
		fprintf(fp, ", %zu region%s", p->n_regions,
			p->n_regions == 1 ? "" : "s");
	fputc('\n', fp);
	if (flags & OBJ_PRINT_HEADERS) {
		fprintf(fp, "\nSections:\n  %-5s %-5s %-18s %s\n", "kind", "mem",
			"address", "size");
		/* Code always starts at pc 0 and takes 4 bytes a word. */
		fprintf(fp, "  %-5s %-5s 0x%-16x 0x%zx\n", "code", "-", 0u,
			4 * p->n_code);
		for (k = 0; k < p->n_sects; k++)
			fprintf(fp, "  %-5s %-5s 0x%-16" PRIx64 " 0x%" PRIx64 "\n",
				"data", obj_mem_name((int)p->sects[k].mem),
				p->sects[k].addr, p->sects[k].size);
	}
	if ((flags & OBJ_PRINT_SYMS) && p->n_syms) {
		fprintf(fp, "\nSymbols:\n  %-18s %-6s %-5s %s\n", "value", "kind",
			"mem", "name");
		for (k = 0; k < p->n_syms; k++) {
			const struct obj_sym *s = &p->syms[k];
			int has_mem = s->kind == OBJ_SYM_DATA ||
				      s->kind == OBJ_SYM_TENSOR;

			fprintf(fp, "  0x%016" PRIx64 " %-6s %-5s %s\n",
				(uint64_t)s->value, sym_kind_names[s->kind],
				has_mem ? obj_mem_name((int)s->mem) : "-", s->name);
		}
	}
	if ((flags & OBJ_PRINT_TENSORS) && p->n_tensors) {
		fprintf(fp, "\nTensors:\n  %-16s %-5s %-18s %-8s %s\n", "name",
			"mem", "address", "dtype", "shape");
		for (k = 0; k < p->n_tensors; k++) {
			const struct obj_tensor *t = &p->tensors[k];
			int d;

			fprintf(fp, "  %-16s %-5s 0x%-16" PRIx64 " %-8s [", t->name,
				obj_mem_name((int)t->mem), t->addr, dtype_name(t->dtype));
			for (d = 0; d < t->rank; d++)
				fprintf(fp, "%s%" PRIu64, d ? ", " : "",
					t->shape[d]);
			fprintf(fp, "]\n");
		}
	}
	if ((flags & OBJ_PRINT_REGIONS) && p->n_regions) {
		fprintf(fp, "\nRegions:\n  %-5s %s\n", "id", "name");
		for (k = 0; k < p->n_regions; k++)
			fprintf(fp, "  %-5zu %s\n", k, p->regions[k]);
	}
	if (flags & OBJ_PRINT_DATA)
		for (k = 0; k < p->n_sects; k++)
			print_hex(fp, &p->sects[k]);
	/*
	 * Listing line: "  pc:  word  instruction"; a label line
	 * "ADDR <name>:" precedes its instruction, and with
	 * OBJ_PRINT_LINES a "file:line" whenever the source line changes.
	 */
	if ((flags & OBJ_PRINT_CODE) && p->n_code) {
		const char *last_file = NULL;
		int last_line = -1;

		fprintf(fp, "\nDisassembly of .text:\n");
		for (k = 0; k < p->n_code; k++) {
			uint64_t pc = 4 * (uint64_t)k;
			/*
			 * The cast drops const for the isa_symbolize_fn
			 * signature; obj_symbolize only reads.
			 */
			const char *label = obj_symbolize((void *)p, pc);
			const char *file;
			int line;
			char text[160];
			size_t j;

			if (label) {
				fprintf(fp, "\n%08" PRIx64 " <%s>:\n", pc, label);
				/* Further labels at the same address. */
				for (j = 0; j < p->n_syms; j++)
					if (p->syms[j].kind == OBJ_SYM_CODE &&
					    (uint64_t)p->syms[j].value == pc &&
					    strcmp(p->syms[j].name, label))
						fprintf(fp, "%08" PRIx64 " <%s>:\n",
							pc, p->syms[j].name);
			}
			if ((flags & OBJ_PRINT_LINES) &&
			    obj_src_line(p, pc, &file, &line) == 0 &&
			    (file != last_file || line != last_line)) {
				fprintf(fp, "%s:%d\n", file, line);
				last_file = file;
				last_line = line;
			}
			(void)isa_disasm_names(p->code[k], pc, text,
					       sizeof(text), &nm);
			fprintf(fp, "  %6" PRIx64 ":  %08x  %s\n", pc, p->code[k],
				text);
		}
	}
}

/* ---- program images (prog/prog.h) -------------------------------------------*/

/* prog_symbolizer.src_line over an object (ctx is the obj_prog). */
static int obj_image_line(void *ctx, uint64_t pc, const char **file,
			  int *line)
{
	return obj_src_line(ctx, pc, file, line);
}

int obj_image(const struct obj_prog *p, const char *name,
	      struct prog_image **out)
{
	struct prog_image *img = prog_new(name);
	size_t i;
	int rc = NPU_ENOMEM;

	*out = NULL;
	if (!img)
		return NPU_ENOMEM;
	if ((rc = prog_add_code(img, p->code, p->n_code)))
		goto fail;
	/* enum obj_mem values are the ISA's memory-space ids (obj.h), so
	 * sections and tensors keep their numbers. */
	for (i = 0; i < p->n_sects; i++)
		if ((rc = prog_add_section(img, (int)p->sects[i].mem,
					   p->sects[i].addr, p->sects[i].bytes,
					   p->sects[i].size)))
			goto fail;
	for (i = 0; i < p->n_tensors; i++) {
		const struct obj_tensor *t = &p->tensors[i];

		if ((rc = prog_add_tensor(img, t->name, (int)t->mem, t->dtype,
					  t->rank, t->addr, t->shape)))
			goto fail;
	}
	/* The loader and the assembler admit only names prog_add_region
	 * takes, so NPU_ERANGE cannot happen here. */
	for (i = 0; i < p->n_regions; i++) {
		size_t id;

		if ((rc = prog_add_region(img, p->regions[i], &id)))
			goto fail;
	}
	img->sym.label = obj_symbolize;
	img->sym.src_line = obj_image_line;
	img->sym.ctx = (void *)p;
	*out = img;
	return 0;
fail:
	prog_free(img);
	return rc;
}
