/*
 * test_obj.c - the .npo object format: round trip, and a loader that
 * rejects every damaged file with a message instead of crashing.
 *
 *   obj.roundtrip          assemble -> serialise -> load -> equal program,
 *                          and serialise again -> identical bytes
 *   obj.truncate_every     every prefix of a valid file is rejected
 *   obj.header_fields      each header field corrupted: the exact reason
 *   obj.section_fields     each section table field corrupted
 *   obj.table_contents     symbols, tensors, strings, lines corrupted
 *   obj.byte_flips         thousands of single-byte corruptions: never a
 *                          crash; whatever loads re-serialises and reloads
 *   obj.write_atomic       obj_write creates the file or leaves nothing
 *   obj.lookups            symbolize, find_tensor, src_line, sniff
 *   obj.fuzz_regress       fuzz/regress/obj inputs are rejected cleanly
 *   obj.regions.roundtrip  a program with regions is a version-2 file whose
 *                          REGIONS section loads back (names with spaces
 *                          and quotes too), re-serialises to the same
 *                          bytes, lists in objdump and reaches the image;
 *                          one without regions is still version 1
 *   obj.regions.bad        a REGIONS section in a version-1 file, a size
 *                          not a multiple of 4, a name offset outside the
 *                          string table or a control character: refused
 *
 * The byte offsets used below are those of the documented layout
 * (docs/formats.md), computed here from the header, not from obj.c.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../asm/asm.h"
#include "../../asm/obj.h"
#include "testutil.h"

static const char *const prog_src =
	"start:\tli a0, table\n"
	"loop:\taddi a0, a0, -1\n"
	"\tbnez a0, loop\n"
	"\thalt\n"
	"\t.data\n"
	"table:\t.dword 1, 2\n"
	"\t.dram 0x1000\n"
	"\t.byte 1, 2, 3\n"
	"\t.spm 0x40\n"
	"\t.half 7\n"
	"\t.equ K, 42\n"
	"\t.tensor A, dram, 0x1000, int8, 3\n"
	"\t.tensor B, spm, 0x80, bf16, 2, 4\n";

static struct obj_prog *build(void)
{
	struct obj_prog *p = NULL;
	struct diag d;

	diag_init(&d, stderr);
	ck_assert_int_eq(asm_assemble_string("p.s", prog_src, strlen(prog_src),
					     NULL, &d, &p), 0);
	return p;
}

static uint8_t *image(size_t *n)
{
	struct obj_prog *p = build();
	uint8_t *buf;

	ck_assert_int_eq(obj_serialize(p, &buf, n), 0);
	obj_free(p);
	return buf;
}

static uint64_t get_le(const uint8_t *b, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | b[n];
	return v;
}

static void put_le(uint8_t *b, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

/* Load a (modified) image; returns the error and the message in msg. */
static int try_load(const uint8_t *b, size_t n, char *msg, size_t msgn)
{
	struct obj_prog *p = NULL;
	struct diag d;
	int r;

	diag_init(&d, NULL);
	r = obj_load_mem(b, n, "f.npo", &d, &p);
	if (r == 0) {
		ck_assert_ptr_nonnull(p);
		obj_free(p);
		if (msg)
			msg[0] = '\0';
	} else {
		ck_assert_ptr_null(p);
		ck_assert_int_ge(d.n_errors, 1);
		if (msg)
			snprintf(msg, msgn, "%s", d.last);
	}
	return r;
}

/* Copy, apply one change, expect rejection with a message containing want. */
static void expect_bad(const uint8_t *orig, size_t n, size_t off, uint64_t v,
		       int bytes, const char *want)
{
	uint8_t *b = malloc(n);
	char msg[600];

	memcpy(b, orig, n);
	put_le(b + off, v, bytes);
	ck_assert_msg(try_load(b, n, msg, sizeof(msg)) == NPU_EOBJ,
		      "offset %zu = 0x%llx loaded", off, (unsigned long long)v);
	ck_assert_msg(strstr(msg, want) != NULL, "want '%s' in '%s'", want, msg);
	ck_assert_msg(strncmp(msg, "f.npo: error: invalid object file: ", 35) == 0,
		      "%s", msg);
	free(b);
}

/* Offset of the section table entry of the first section of a type. */
static size_t sect_entry(const uint8_t *b, uint32_t type)
{
	uint64_t n = get_le(b + 12, 4), off = get_le(b + 16, 8), k;

	for (k = 0; k < n; k++)
		if (get_le(b + off + 32 * k, 4) == type)
			return (size_t)(off + 32 * k);
	ck_abort_msg("no section of type %u", type);
	return 0;
}

START_TEST(obj_roundtrip)
{
	struct obj_prog *p = build(), *q = NULL;
	uint8_t *b1, *b2;
	size_t n1, n2, k;
	struct diag d;

	ck_assert_int_eq(obj_serialize(p, &b1, &n1), 0);
	diag_init(&d, stderr);
	ck_assert_int_eq(obj_load_mem(b1, n1, "x", &d, &q), 0);
	ck_assert_uint_eq(q->n_code, p->n_code);
	ck_assert(!memcmp(q->code, p->code, 4 * p->n_code));
	ck_assert_uint_eq(q->n_sects, 3);
	for (k = 0; k < p->n_sects; k++) {
		ck_assert_int_eq(q->sects[k].mem, p->sects[k].mem);
		ck_assert_uint_eq(q->sects[k].addr, p->sects[k].addr);
		ck_assert_uint_eq(q->sects[k].size, p->sects[k].size);
		ck_assert(!memcmp(q->sects[k].bytes, p->sects[k].bytes,
				  (size_t)p->sects[k].size));
	}
	ck_assert_uint_eq(q->n_syms, p->n_syms);
	for (k = 0; k < p->n_syms; k++) {
		ck_assert_str_eq(q->syms[k].name, p->syms[k].name);
		ck_assert_int_eq(q->syms[k].value, p->syms[k].value);
		ck_assert_int_eq(q->syms[k].kind, p->syms[k].kind);
		ck_assert_int_eq(q->syms[k].mem, p->syms[k].mem);
	}
	ck_assert_uint_eq(q->n_tensors, 2);
	ck_assert_str_eq(q->tensors[1].name, "B");
	ck_assert_int_eq(q->tensors[1].dtype, DT_BF16);
	ck_assert_int_eq(q->tensors[1].rank, 2);
	ck_assert_uint_eq(q->tensors[1].shape[1], 4);
	ck_assert_uint_eq(q->n_files, 1);
	ck_assert_str_eq(q->files[0], "p.s");
	for (k = 0; k < p->n_code; k++)
		ck_assert_uint_eq(q->lines[k].line, p->lines[k].line);
	ck_assert_int_eq(obj_serialize(q, &b2, &n2), 0);
	ck_assert_uint_eq(n1, n2);
	ck_assert(!memcmp(b1, b2, n1));
	/* The documented header. */
	ck_assert(!memcmp(b1, "\x7fNPO", 4));
	ck_assert_uint_eq(get_le(b1 + 4, 2), 1);
	ck_assert_uint_eq(get_le(b1 + 6, 2), 32);
	ck_assert_uint_eq(get_le(b1 + 24, 8), n1);
	free(b1);
	free(b2);
	obj_free(p);
	obj_free(q);
}
END_TEST

START_TEST(obj_truncate_every)
{
	size_t n, k;
	uint8_t *b = image(&n);

	for (k = 0; k < n; k++) {
		uint8_t *c = malloc(k ? k : 1);
		char msg[600];

		memcpy(c, b, k);
		ck_assert_msg(try_load(c, k, msg, sizeof(msg)) == NPU_EOBJ,
			      "prefix of %zu bytes loaded", k);
		ck_assert(strstr(msg, "truncated") != NULL);
		free(c);
	}
	/* A longer file is damaged too (file_size is exact). */
	{
		uint8_t *c = calloc(n + 8, 1);

		memcpy(c, b, n);
		ck_assert_int_eq(try_load(c, n + 8, NULL, 0), NPU_EOBJ);
		free(c);
	}
	free(b);
}
END_TEST

START_TEST(obj_header_fields)
{
	size_t n;
	uint8_t *b = image(&n);

	expect_bad(b, n, 0, 0x7e, 1, "bad magic");
	expect_bad(b, n, 1, 'X', 1, "bad magic");
	expect_bad(b, n, 4, 3, 2, "unsupported version 3");
	expect_bad(b, n, 4, 0, 2, "unsupported version 0");
	expect_bad(b, n, 6, 64, 2, "header size 64");
	expect_bad(b, n, 8, 1, 4, "unknown flags 0x1");
	expect_bad(b, n, 12, 0xffffffff, 4, "sections (at most");
	expect_bad(b, n, 12, n / 32, 4, "outside the file");
	expect_bad(b, n, 12, get_le(b + 12, 4) + 1, 4, "unknown type");
	expect_bad(b, n, 16, 0, 8, "outside the file");
	expect_bad(b, n, 16, n, 8, "outside the file");
	expect_bad(b, n, 16, UINT64_MAX - 7, 8, "outside the file");
	expect_bad(b, n, 24, n - 1, 8, "truncated or damaged");
	expect_bad(b, n, 24, UINT64_MAX, 8, "truncated or damaged");
	free(b);
}
END_TEST

START_TEST(obj_section_fields)
{
	size_t n;
	uint8_t *b = image(&n);
	size_t code = sect_entry(b, 1), data = sect_entry(b, 2);
	size_t sym = sect_entry(b, 4);

	expect_bad(b, n, code, 0, 4, "unknown type 0");
	expect_bad(b, n, code, 99, 4, "unknown type 99");
	expect_bad(b, n, code + 4, 1, 4, "nonzero reserved");
	expect_bad(b, n, code + 8, 4, 8, "nonzero reserved");
	expect_bad(b, n, code + 16, 8, 8, "outside the file");   /* in header */
	expect_bad(b, n, code + 16, n, 8, "outside the file");
	expect_bad(b, n, code + 16, UINT64_MAX, 8, "outside the file");
	expect_bad(b, n, code + 24, n, 8, "outside the file");
	expect_bad(b, n, code + 24, UINT64_MAX, 8, "outside the file");
	expect_bad(b, n, code + 24, 6, 8, "not a multiple of 4");
	/* Moving the code onto the section table or onto other contents. */
	expect_bad(b, n, code + 16, get_le(b + 16, 8), 8, "section table");
	expect_bad(b, n, code + 16, get_le(b + data + 16, 8), 8, "overlap");
	expect_bad(b, n, data + 4, 3, 4, "unknown memory 3");
	expect_bad(b, n, data + 4, 77, 4, "unknown memory 77");
	expect_bad(b, n, data + 8, UINT64_MAX, 8, "wraps");
	expect_bad(b, n, data + 24, 0, 8, "empty");
	expect_bad(b, n, sym + 24, 15, 8, "not a multiple of 16");
	/* A second code section (the symbol table renamed). */
	expect_bad(b, n, sym, 1, 4, "more than one code section");
	free(b);
}
END_TEST

START_TEST(obj_table_contents)
{
	size_t n;
	uint8_t *b = image(&n);
	size_t str = sect_entry(b, 3), sym = sect_entry(b, 4);
	size_t ten = sect_entry(b, 5), lin = sect_entry(b, 7);
	size_t fil = sect_entry(b, 6);
	size_t s0 = (size_t)get_le(b + sym + 16, 8);    /* first symbol */
	size_t t0 = (size_t)get_le(b + ten + 16, 8);    /* first tensor */
	size_t st = (size_t)get_le(b + str + 16, 8);
	size_t stn = (size_t)get_le(b + str + 24, 8);
	size_t l0 = (size_t)get_le(b + lin + 16, 8);

	/* Symbols: name, kind, memory, reserved. */
	expect_bad(b, n, s0, 0, 4, "name offset 0");
	expect_bad(b, n, s0, stn, 4, "outside the string table");
	expect_bad(b, n, s0, 0xffffffff, 4, "outside the string table");
	expect_bad(b, n, s0 + 4, 9, 1, "unknown kind 9");
	expect_bad(b, n, s0 + 5, 1, 1, "invalid memory 1"); /* code symbol */
	expect_bad(b, n, s0 + 6, 1, 2, "reserved");
	/* The first symbol is the code label start (at 0): move it. */
	expect_bad(b, n, s0 + 8, 2, 8, "outside the code");
	expect_bad(b, n, s0 + 8, UINT64_MAX - 3, 8, "outside the code");
	expect_bad(b, n, s0 + 8, 4 * 100, 8, "outside the code");
	/* Tensors: memory, dtype, rank, reserved, dims, name. */
	expect_bad(b, n, t0 + 4, 3, 1, "unknown memory 3");
	expect_bad(b, n, t0 + 5, DT_N, 1, "unknown dtype");
	expect_bad(b, n, t0 + 6, 0, 1, "rank 0");
	expect_bad(b, n, t0 + 6, 9, 1, "rank 9");
	expect_bad(b, n, t0 + 7, 1, 1, "reserved byte");
	expect_bad(b, n, t0 + 16, 0, 8, "dimension 0 is 0");
	expect_bad(b, n, t0 + 16, 1ull << 41, 8, "dimension 0 is");
	expect_bad(b, n, t0 + 24, 5, 8, "beyond its rank");
	expect_bad(b, n, t0 + 8, UINT64_MAX - 1, 8, "beyond the address space");
	expect_bad(b, n, t0, 0, 4, "name offset 0");
	/* Strings: must start and end with NUL; names printable. */
	expect_bad(b, n, st, 'x', 1, "start and end with a NUL");
	expect_bad(b, n, st + stn - 1, 'x', 1, "start and end with a NUL");
	expect_bad(b, n, st + 1, ' ', 1, "non-printable");
	/* Lines: file index in range, size matches the code. */
	expect_bad(b, n, l0, 5, 4, "names file 5");
	expect_bad(b, n, lin + 24, 8, 8, "expected");
	expect_bad(b, n, fil + 24, 3, 8, "multiple of 4");
	expect_bad(b, n, fil, 2, 4, "files section needs a lines");
	free(b);
}
END_TEST

/* Duplicate names and overlapping data are refused even if well-formed. */
START_TEST(obj_semantic_checks)
{
	struct obj_prog *p = build(), *q = NULL;
	uint8_t *b;
	size_t n;
	struct diag d;
	char *keep;

	diag_init(&d, NULL);
	keep = p->syms[1].name;
	p->syms[1].name = strdup(p->syms[0].name);
	ck_assert_int_eq(obj_serialize(p, &b, &n), 0);
	ck_assert_int_eq(obj_load_mem(b, n, "x", &d, &q), NPU_EOBJ);
	ck_assert_msg(strstr(d.last, "duplicate symbol"), "%s", d.last);
	free(b);
	free(p->syms[1].name);
	p->syms[1].name = keep;
	p->sects[1].mem = p->sects[0].mem;
	p->sects[1].addr = p->sects[0].addr + 1;
	ck_assert_int_eq(obj_serialize(p, &b, &n), 0);
	ck_assert_int_eq(obj_load_mem(b, n, "x", &d, &q), NPU_EOBJ);
	ck_assert_msg(strstr(d.last, "data sections overlap"), "%s", d.last);
	free(b);
	/*
	 * One long section (dram 0x1000, 0x100 bytes) covering two later
	 * ones: the first overlap is the one reported.
	 */
	p->sects[0].size = 3;
	p->sects[1].mem = OBJ_MEM_DRAM;
	p->sects[1].addr = 0x1040;
	free(p->sects[0].bytes);
	p->sects[0].bytes = calloc(0x100, 1);
	p->sects[0].size = 0x100;
	p->sects[2].mem = OBJ_MEM_DRAM;
	p->sects[2].addr = 0x1080;
	ck_assert_int_eq(obj_serialize(p, &b, &n), 0);
	ck_assert_int_eq(obj_load_mem(b, n, "x", &d, &q), NPU_EOBJ);
	ck_assert_msg(strstr(d.last, "data sections overlap: dram 0x1000 "
				     "(0x100 bytes) and 0x1040"), "%s", d.last);
	free(b);
	obj_free(p);
}
END_TEST

START_TEST(obj_byte_flips)
{
	size_t n, k;
	uint8_t *b = image(&n), *c = malloc(n);
	uint64_t x = 88172645463325252ull;
	int loaded = 0, rejected = 0;

	for (k = 0; k < 20000; k++) {
		size_t at;
		struct obj_prog *p = NULL;
		struct diag d;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(c, b, n);
		at = (size_t)(x % n);
		c[at] ^= (uint8_t)(1 + (x >> 32) % 255);
		diag_init(&d, NULL);
		if (obj_load_mem(c, n, "f", &d, &p) == 0) {
			/* Whatever loads is a consistent program. */
			uint8_t *b2;
			size_t n2;
			struct obj_prog *q = NULL;

			ck_assert_int_eq(obj_serialize(p, &b2, &n2), 0);
			ck_assert_int_eq(obj_load_mem(b2, n2, "g", &d, &q), 0);
			obj_free(q);
			free(b2);
			obj_free(p);
			loaded++;
		} else {
			ck_assert_int_eq(d.n_errors, 1);
			rejected++;
		}
	}
	/* Both outcomes occur (code and data bytes are free-form). */
	ck_assert_int_gt(loaded, 0);
	ck_assert_int_gt(rejected, 0);
	free(b);
	free(c);
}
END_TEST

START_TEST(obj_write_atomic)
{
	char dir[] = "/tmp/npusim_obj_XXXXXX", path[256], cmd[300];
	struct obj_prog *p = build(), *q = NULL;
	struct diag d;
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/a.npo", dir);
	ck_assert_int_eq(obj_write(p, path, &d), 0);
	ck_assert_int_eq(obj_sniff(path), 1);
	ck_assert_int_eq(obj_load(path, &d, &q), 0);
	ck_assert_uint_eq(q->n_code, p->n_code);
	obj_free(q);
	/* Unwritable destination: an error, and nothing left behind. */
	snprintf(path, sizeof(path), "%s/missing/a.npo", dir);
	ck_assert_int_eq(obj_write(p, path, &d), NPU_EIO);
	ck_assert_int_ne(stat(path, &st), 0);
	ck_assert_int_eq(obj_load(path, &d, &q), NPU_EIO);
	ck_assert_int_eq(obj_sniff(path), 0);
	/* A source file is not an object. */
	snprintf(path, sizeof(path), "%s/x.s", dir);
	{
		FILE *fp = fopen(path, "w");

		fputs("halt\n", fp);
		fclose(fp);
	}
	ck_assert_int_eq(obj_sniff(path), 0);
	ck_assert_int_eq(obj_load(path, &d, &q), NPU_EOBJ);
	ck_assert_msg(strstr(d.last, "bad magic") || strstr(d.last, "truncated"),
		      "%s", d.last);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	obj_free(p);
}
END_TEST

START_TEST(obj_lookups)
{
	struct obj_prog *p = build();
	const char *f;
	int line;

	ck_assert_str_eq(obj_symbolize(p, 0), "start");
	ck_assert_str_eq(obj_symbolize(p, 8), "loop");   /* li table: 2 words */
	ck_assert_ptr_null(obj_symbolize(p, 4));
	ck_assert_ptr_null(obj_symbolize(p, 0x1000));    /* data, not code */
	ck_assert_ptr_nonnull(obj_find_tensor(p, "A"));
	ck_assert_ptr_null(obj_find_tensor(p, "K"));
	ck_assert_int_eq(obj_find_sym(p, "K")->value, 42);
	ck_assert_int_eq(obj_find_sym(p, "table")->kind, OBJ_SYM_DATA);
	ck_assert_int_eq(obj_find_sym(p, "table")->mem, OBJ_MEM_DATA);
	ck_assert_int_eq(obj_src_line(p, 8, &f, &line), 0);
	ck_assert_int_eq(line, 2);
	ck_assert_int_eq(obj_src_line(p, 6, &f, &line), -1);
	ck_assert_int_eq(obj_src_line(p, 4 * p->n_code, &f, &line), -1);
	ck_assert_str_eq(obj_mem_name(OBJ_MEM_ACC), "acc");
	ck_assert_ptr_null(obj_mem_name(3));
	ck_assert_int_eq(obj_mem_by_name("data"), OBJ_MEM_DATA);
	ck_assert_int_eq(obj_mem_by_name("rspm"), -1);
	obj_free(p);
}
END_TEST

/*
 * Every memory space of isa/memspaces.def: the ones a program may
 * initialise round-trip name <-> number through the object layer with the
 * ISA's numbers; the others (rspm) have no object name.
 */
START_TEST(obj_memspaces_roundtrip)
{
	int m, n_init = 0;

	ck_assert_int_eq(OBJ_N_MEMS, ISA_N_MEMS);
	ck_assert_int_eq(OBJ_MEM_DATA, ISA_MEM_DATA);
	for (m = 0; m < ISA_N_MEMS; m++) {
		const char *n = isa_mem_info[m].name;

		if (isa_mem_info[m].flags & ISA_MS_INIT) {
			ck_assert_str_eq(obj_mem_name(m), n);
			ck_assert_int_eq(obj_mem_by_name(n), m);
			n_init++;
		} else {
			ck_assert_ptr_null(obj_mem_name(m));
			ck_assert_int_eq(obj_mem_by_name(n), -1);
		}
	}
	ck_assert_int_eq(n_init, 4);
	ck_assert_ptr_null(obj_mem_name(-1));
	ck_assert_ptr_null(obj_mem_name(ISA_N_MEMS));
	ck_assert_int_eq(obj_mem_by_name("flash"), -1);
}
END_TEST

/* Inputs found by fuzzing the loader (fuzz/regress/obj): each loads or
 * is refused with one message. */
static void obj_regress_one(const char *path, void *ctx)
{
	struct obj_prog *p = NULL;
	struct diag d;
	int r;

	(void)ctx;
	diag_init(&d, NULL);
	r = obj_load(path, &d, &p);
	ck_assert_msg(r == 0 || (p == NULL && d.n_errors == 1), "%s", path);
	obj_free(p);
}

START_TEST(obj_fuzz_regress)
{
	ck_assert_int_gt(test_each_file("fuzz/regress/obj", obj_regress_one,
					NULL), 0);
}
END_TEST

static const char *const rgn_src =
	"\trbeg all\n\trbeg \"layer 1: \\\"conv\\\"\"\n"
	"\trend \"layer 1: \\\"conv\\\"\"\n\trend all\n\thalt\n";

/* Assemble rgn_src (or src) and serialise it. */
static uint8_t *rgn_image(const char *src, size_t *n)
{
	struct obj_prog *p = NULL;
	struct diag d;
	uint8_t *buf;

	diag_init(&d, stderr);
	ck_assert_int_eq(asm_assemble_string("r.s", src, strlen(src), NULL, &d,
					     &p), 0);
	ck_assert_int_eq(obj_serialize(p, &buf, n), 0);
	obj_free(p);
	return buf;
}

START_TEST(obj_regions_roundtrip)
{
	struct obj_prog *p = NULL;
	struct prog_image *img = NULL;
	struct diag d;
	uint8_t *b, *b2, *b1;
	size_t n, n2, n1;
	uint64_t k;
	char *out = NULL;
	size_t out_n = 0;
	FILE *fp;

	b = rgn_image(rgn_src, &n);
	ck_assert_uint_eq(get_le(b + 4, 2), 2);
	(void)sect_entry(b, 8); /* there is a REGIONS section */
	diag_init(&d, stderr);
	ck_assert_int_eq(obj_load_mem(b, n, "r.npo", &d, &p), 0);
	ck_assert_uint_eq(p->n_regions, 2);
	ck_assert_str_eq(p->regions[0], "all");
	ck_assert_str_eq(p->regions[1], "layer 1: \"conv\"");
	ck_assert_str_eq(obj_region_name(p, 1), "layer 1: \"conv\"");
	ck_assert_ptr_null(obj_region_name(p, 2));
	ck_assert_int_eq(obj_serialize(p, &b2, &n2), 0);
	ck_assert_uint_eq(n2, n);
	ck_assert_mem_eq(b2, b, n);
	/* The listing: the table, and names (quoted where needed) in the
	 * disassembly, in the syntax the assembler reads back. */
	fp = open_memstream(&out, &out_n);
	obj_print(fp, p, "r.npo", OBJ_PRINT_DEFAULT);
	fclose(fp);
	ck_assert_ptr_nonnull(strstr(out, ", 2 regions\n"));
	ck_assert_ptr_nonnull(strstr(out, "Regions:\n  id    name\n  0     all\n"
					  "  1     layer 1: \"conv\"\n"));
	ck_assert_ptr_nonnull(strstr(out, "c0000000  rbeg    all\n"));
	ck_assert_ptr_nonnull(strstr(out, "c1000001  rend    \"layer 1: \\\"conv\\\"\"\n"));
	free(out);
	/* The image carries the table. */
	ck_assert_int_eq(obj_image(p, "r", &img), 0);
	ck_assert_uint_eq(img->n_regions, 2);
	ck_assert_str_eq(prog_region_name(img, 1), "layer 1: \"conv\"");
	prog_free(img);
	obj_free(p);
	/* No regions: a version-1 file, readable by earlier npusims. */
	b1 = rgn_image("\thalt\n", &n1);
	ck_assert_uint_eq(get_le(b1 + 4, 2), 1);
	for (k = 0; k < get_le(b1 + 12, 4); k++)
		ck_assert_uint_ne(get_le(b1 + get_le(b1 + 16, 8) + 32 * k, 4), 8);
	free(b1);
	free(b2);
	free(b);
}
END_TEST

START_TEST(obj_regions_bad)
{
	size_t n, e, off;
	uint8_t *b = rgn_image(rgn_src, &n);

	e = sect_entry(b, 8);
	off = get_le(b + e + 16, 8);
	expect_bad(b, n, 4, 1, 2, "regions section in a version 1 file");
	expect_bad(b, n, e + 24, 6, 8, "regions section size 6");
	expect_bad(b, n, off, 0xffffff, 4, "outside the string table");
	expect_bad(b, n, off, 0, 4, "outside the string table");
	/* A control character in a region name (its first byte). */
	expect_bad(b, n, get_le(b + sect_entry(b, 3) + 16, 8) +
			 get_le(b + off, 4), 0x07, 1, "non-printable byte");
	free(b);
}
END_TEST

static Suite *suite_obj(void)
{
	Suite *s = suite_create("obj");

	TEST_ADD(s, obj_roundtrip);
	TEST_ADD(s, obj_truncate_every);
	TEST_ADD(s, obj_header_fields);
	TEST_ADD(s, obj_section_fields);
	TEST_ADD(s, obj_table_contents);
	TEST_ADD(s, obj_semantic_checks);
	TEST_ADD(s, obj_byte_flips);
	TEST_ADD(s, obj_write_atomic);
	TEST_ADD(s, obj_lookups);
	TEST_ADD(s, obj_memspaces_roundtrip);
	TEST_ADD(s, obj_fuzz_regress);
	TEST_ADD(s, obj_regions_roundtrip);
	TEST_ADD(s, obj_regions_bad);
	return s;
}

TEST_MAIN(suite_obj)
