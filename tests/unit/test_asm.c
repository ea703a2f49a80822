/*
 * test_asm.c - the assembler and the as/objdump commands.
 *
 *   asm.roundtrip.all_ops   every op, many operand values: encode ->
 *                           disassemble -> assemble gives the same words
 *   asm.golden.*            tests/asm/NAME.s against NAME.expected: the
 *                           objdump listing, or for err_*.s the exact
 *                           diagnostics (NPU_UPDATE_GOLDEN=1 rewrites them)
 *   asm.li.*                li sequences checked by an independent
 *                           interpreter, lengths of known cases
 *   asm.errors.*            exact message text, line/col, did-you-mean,
 *                           ranges, several errors per file
 *   asm.expr/.macro/.data   behaviour checked against values computed here
 *   asm.cli.*               npusim as/objdump: exit codes, no output file
 *                           on error (the command sources are compiled in)
 *   asm.fuzz_regress        every input in fuzz/regress/asm assembles or
 *                           fails cleanly
 *   asm.regions.names       region ids by first use, one per name, apart
 *                           from labels; numbers fill the table with
 *                           generated names; bad names and ids refused
 *   asm.regions.roundtrip   a listing with region names (quoted where
 *                           needed) assembles back to the same words and
 *                           the same region table
 *   asm.abi.up_to_date      every asm/kernels/lib/<file>_abi.inc is what
 *                           asm/kernels/abi.def makes of it (make abi)
 *
 * Tests run from the top directory (make test does), where tests/asm is.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../asm/asm.h"
#include "../../asm/kabi.h"
#include "../../asm/obj.h"
#include "../../isa/isa.h"
#include "testutil.h"

/*
 * The CLI commands are not in the library; compile them in, with their
 * option tables and parser, to test the exit codes and the "no output
 * file on error" rule end to end.
 */
#include "../../cli/opts.c"
#include "../../cli/cmds.c"
#include "../../cli/cmd_as.c"
#include "../../cli/cmd_objdump.c"

/* ---- helpers ----------------------------------------------------------------*/

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Assemble src; diagnostics (if any) into *msgs (malloc'd, may be NULL). */
static int assemble(const char *src, const struct asm_opts *o,
		    struct obj_prog **p, char **msgs)
{
	size_t n = 0;
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, &n);
	struct diag d;
	int r;

	diag_init(&d, fp);
	r = asm_assemble_string("t.s", src, strlen(src), o, &d, p);
	fclose(fp);
	if (msgs)
		*msgs = buf;
	else
		free(buf);
	return r;
}

/* Assemble src, which must succeed; returns the program. */
static struct obj_prog *must(const char *src)
{
	struct obj_prog *p = NULL;
	char *msgs = NULL;
	int r = assemble(src, NULL, &p, &msgs);

	ck_assert_msg(r == 0, "assembly failed:\n%s", msgs);
	free(msgs);
	return p;
}

/* Assemble src, which must fail; returns the diagnostics text. */
static char *fails(const char *src)
{
	struct obj_prog *p = NULL;
	char *msgs = NULL;

	ck_assert_msg(assemble(src, NULL, &p, &msgs) == NPU_EASM,
		      "assembled without error:\n%s", src);
	ck_assert_ptr_null(p);
	return msgs;
}

/* ---- round trip over the whole table ------------------------------------------*/

static int64_t field_value(enum isa_field f)
{
	const struct isa_field_info *fi = &isa_field_info[f];
	int64_t step = (int64_t)1 << fi->shift;
	uint64_t count = (uint64_t)((fi->max - fi->min) / step) + 1;

	switch (rng() % 4) {
	case 0: return fi->min;
	case 1: return fi->max;
	default: return fi->min + (int64_t)(rng() % count) * step;
	}
}

/*
 * For every op: 64 encodings with random legal operands, disassembled at
 * their own pc (so branch targets print as absolute addresses), glued into
 * one source, assembled: the words must come back identical.
 */
START_TEST(asm_roundtrip_all_ops)
{
	int op, k;

	for (op = 0; op < ISA_N_OPS; op++) {
		enum { N = 64 };
		const struct isa_fmt_info *fi = &isa_fmt_info[isa_op_info[op].fmt];
		uint32_t words[N];
		char *src = malloc(N * 96 + 1);
		size_t len = 0;
		struct obj_prog *p;

		src[0] = '\0';
		for (k = 0; k < N; k++) {
			struct isa_insn in;
			char err[128], text[96];
			int f;

			memset(&in, 0, sizeof(in));
			in.op = (enum isa_op)op;
			for (f = 0; f < fi->n_fields; f++)
				isa_insn_set(&in, isa_field_info[fi->fields[f]].member,
					     field_value(fi->fields[f]));
			ck_assert_int_eq(isa_encode(&in, &words[k], err,
						    sizeof(err)), 0);
			ck_assert_int_eq(isa_disasm(words[k], 4 * (uint64_t)k,
						    text, sizeof(text), NULL,
						    NULL), 0);
			len += (size_t)sprintf(src + len, "\t%s\n", text);
		}
		p = must(src);
		ck_assert_uint_eq(p->n_code, N);
		for (k = 0; k < N; k++)
			ck_assert_msg(p->code[k] == words[k],
				      "%s: line %d: %08x != %08x",
				      isa_op_info[op].name, k + 1, p->code[k],
				      words[k]);
		obj_free(p);
		free(src);
	}
}
END_TEST

/* ---- li -----------------------------------------------------------------------*/

/* Run a li sequence on an independent model of the four instructions. */
static uint64_t run_li(const struct isa_insn *seq, int n)
{
	uint64_t x[32] = { 0 };
	int k;

	for (k = 0; k < n; k++) {
		const struct isa_insn *in = &seq[k];
		uint64_t a = x[in->rs1], r = 0;

		switch (in->op) {
		case ISA_OP_ADDI: r = a + (uint64_t)in->imm; break;
		case ISA_OP_LUI: r = (uint64_t)in->imm * 8192; break;
		case ISA_OP_SLLI: r = a << in->imm; break;
		case ISA_OP_SRLI: r = a >> in->imm; break;
		default: ck_abort_msg("li used %s", isa_op_info[in->op].name);
		}
		if (in->rd)
			x[in->rd] = r;
		/* Every instruction must be encodable. */
		{
			uint32_t w;
			char err[128];

			ck_assert_msg(isa_encode(in, &w, err, sizeof(err)) == 0,
				      "%s", err);
		}
	}
	return x[seq[n - 1].rd];
}

START_TEST(asm_li_known_lengths)
{
	static const struct {
		int64_t v;
		int n;
	} cases[] = {
		{ 0, 1 }, { 1, 1 }, { -1, 1 }, { 8191, 1 }, { -8192, 1 },
		{ 8192, 1 },                       /* lui 1 */
		{ 8193, 2 },                       /* lui 1; addi 1 */
		{ 0x12345678, 2 },
		{ -0x80000000LL, 1 },              /* lui -0x40000 */
		{ 0x7fffe000, 1 },                 /* lui 0x3ffff */
		{ 0x7fffffff, 2 },                 /* lui 0x40000 is out: lui+addi */
		{ 0xffffffffLL, 2 },               /* addi -1; srli 32 */
		{ 1LL << 40, 2 },                  /* addi 1; slli 40 */
		{ INT64_MIN, 2 },                  /* addi 1; slli 63 */
		{ INT64_MAX, 2 },                  /* addi -1; srli 1 */
		{ 0x123456789abcdef0LL, 7 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct isa_insn seq[ASM_LI_MAX];
		int n = asm_li_sequence(cases[i].v, 10, seq);

		ck_assert_msg(n == cases[i].n, "li %" PRId64 ": %d instructions, "
					       "expected %d", cases[i].v, n,
			      cases[i].n);
		ck_assert_uint_eq(run_li(seq, n), (uint64_t)cases[i].v);
	}
}
END_TEST

START_TEST(asm_li_random_values)
{
	int k, hist[ASM_LI_MAX + 1] = { 0 };

	for (k = 0; k < 20000; k++) {
		struct isa_insn seq[ASM_LI_MAX];
		uint64_t v = rng();
		int n;

		/* Mix full-width values with short ones and sparse bit runs. */
		switch (k % 4) {
		case 1: v >>= rng() % 64; break;
		case 2: v = (uint64_t)-(int64_t)(v >> (rng() % 64)); break;
		case 3: v &= rng() & rng(); break;
		}
		n = asm_li_sequence((int64_t)v, 5, seq);
		ck_assert_int_ge(n, 1);
		ck_assert_int_le(n, ASM_LI_MAX);
		ck_assert_uint_eq(run_li(seq, n), v);
		hist[n]++;
	}
	/* Full 64-bit random values do need long sequences sometimes. */
	ck_assert_int_gt(hist[1], 0);
	ck_assert_int_gt(hist[2], 0);
}
END_TEST

/*
 * Optimality where it can be checked: a value computed by a random program
 * of k <= 3 instructions (lui, addi, slli, srli) gets a li of at most k
 * instructions.  (Longer programs: within one instruction, not asserted.)
 */
START_TEST(asm_li_short_programs_are_optimal)
{
	int it;

	for (it = 0; it < 300000; it++) {
		struct isa_insn seq[ASM_LI_MAX];
		int k = 1 + (int)(rng() % 3), j, n;
		uint64_t x = 0;

		for (j = 0; j < k; j++) {
			int op = (int)(rng() % 4);

			if (j == 0)
				op %= 2; /* start from a constant */
			switch (op) {
			case 0: x = (j ? x : 0) + (uint64_t)((int64_t)(rng() % 16384)
							     - 8192); break;
			case 1: x = (uint64_t)((int64_t)(rng() % 524288) - 262144)
				    * 8192; break;
			case 2: x <<= 1 + rng() % 63; break;
			case 3: x >>= 1 + rng() % 63; break;
			}
		}
		n = asm_li_sequence((int64_t)x, 7, seq);
		ck_assert_msg(n <= k, "0x%" PRIx64 ": %d instructions, a %d-"
			      "instruction program exists", x, n, k);
		ck_assert_uint_eq(run_li(seq, n), x);
	}
}
END_TEST

/* li in a program: the expansion writes only rd and sizes the labels. */
START_TEST(asm_li_in_program)
{
	struct obj_prog *p = must("\tli t0, 1 << 40\nl:\tli t1, fwd\n"
				  "\tbeq t0, t1, l\n\t.equ fwd, 100\n");
	const struct obj_sym *l = obj_find_sym(p, "l");

	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(l->value, 8);      /* after addi + slli */
	ck_assert_uint_eq(p->n_code, 2 + 2 + 1);
	/* Forward reference: the fixed lui+addi pair, even for 100. */
	ck_assert_uint_eq(p->code[2] >> 24, isa_op_info[ISA_OP_LUI].opcode);
	ck_assert_uint_eq(p->code[3], 0x20000000u | 6u << 19 | 6u << 14 | 100u);
	/* beq at 16 back to 8: offset -8 = -2 words. */
	ck_assert_uint_eq(p->code[4] & 0x3fff, 0x3ffe);
	obj_free(p);
}
END_TEST

/* ---- goldens --------------------------------------------------------------------*/

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Options from "# asm-args: -D N=V -I dir" comments in the source. */
static void golden_opts(const char *src, struct asm_opts *o, char **defs,
			char **incs, char *store)
{
	const char *p = strstr(src, "# asm-args:");

	memset(o, 0, sizeof(*o));
	if (!p)
		return;
	p += strlen("# asm-args:");
	while (*p && *p != '\n') {
		char flag;
		size_t n = 0;

		while (*p == ' ')
			p++;
		if (p[0] != '-' || (p[1] != 'D' && p[1] != 'I'))
			break;
		flag = p[1];
		p += 2;
		while (*p == ' ')
			p++;
		while (p[n] && p[n] != ' ' && p[n] != '\n')
			n++;
		memcpy(store, p, n);
		store[n] = '\0';
		if (flag == 'D')
			defs[o->n_defines++] = store;
		else
			incs[o->n_include_dirs++] = store;
		store += n + 1;
		p += n;
	}
	o->defines = (const char *const *)defs;
	o->include_dirs = (const char *const *)incs;
}

/* Output for one golden: the listing, or the diagnostics of a failure. */
static char *golden_output(const char *path, const char *name, int *failed)
{
	char *src = test_read_file(path, NULL), *defs[8], *incs[8], store[512];
	char *out = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&out, &n);
	struct asm_opts o;
	struct obj_prog *p = NULL;
	struct diag d;
	int r;

	ck_assert_ptr_nonnull(src);
	golden_opts(src, &o, defs, incs, store);
	diag_init(&d, fp);
	r = asm_assemble_string(name, src, strlen(src), &o, &d, &p);
	if (r == 0)
		obj_print(fp, p, name, OBJ_PRINT_DEFAULT | OBJ_PRINT_DATA);
	else
		fprintf(fp, "(%d errors)\n", d.n_errors);
	fclose(fp);
	obj_free(p);
	free(src);
	*failed = r != 0;
	return out;
}

START_TEST(asm_golden_all)
{
	DIR *dir = opendir("tests/asm");
	struct dirent *e;
	char *names[256];
	int n = 0, k, update = getenv("NPU_UPDATE_GOLDEN") != NULL;

	ck_assert_msg(dir != NULL, "tests/asm not found (run from the top "
				   "directory)");
	while ((e = readdir(dir)) && n < 256) {
		size_t len = strlen(e->d_name);

		if (len > 2 && !strcmp(e->d_name + len - 2, ".s"))
			names[n++] = strdup(e->d_name);
	}
	closedir(dir);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	ck_assert_int_ge(n, 9);
	for (k = 0; k < n; k++) {
		char path[512], exp_path[512];
		int failed, is_err = !strncmp(names[k], "err_", 4);
		char *got, *want;

		snprintf(path, sizeof(path), "tests/asm/%s", names[k]);
		snprintf(exp_path, sizeof(exp_path), "tests/asm/%.*s.expected",
			 (int)strlen(names[k]) - 2, names[k]);
		got = golden_output(path, names[k], &failed);
		ck_assert_msg(failed == is_err, "%s: assembly %s", names[k],
			      failed ? "failed" : "succeeded");
		if (update) {
			FILE *fp = fopen(exp_path, "wb");

			fputs(got, fp);
			fclose(fp);
		}
		want = test_read_file(exp_path, NULL);
		ck_assert_msg(want != NULL, "%s missing", exp_path);
		if (strcmp(got, want)) {
			FILE *fp = fopen("/tmp/npusim_golden_got.txt", "wb");

			if (fp) {
				fputs(got, fp);
				fclose(fp);
			}
			ck_abort_msg("%s differs from %s (got output in "
				     "/tmp/npusim_golden_got.txt)", names[k],
				     exp_path);
		}
		free(got);
		free(want);
		free(names[k]);
	}
}
END_TEST

/* Listings of objects loaded from files equal those of in-memory programs. */
START_TEST(asm_golden_objdump_of_object)
{
	struct obj_prog *p = NULL, *q = NULL;
	uint8_t *buf;
	size_t n, ln = 0, lm = 0;
	char *a = NULL, *b = NULL;
	FILE *fa, *fb;
	struct diag d;
	char *src = test_read_file("tests/asm/data.s", NULL);

	ck_assert_ptr_nonnull(src);
	p = must(src);
	ck_assert_int_eq(obj_serialize(p, &buf, &n), 0);
	diag_init(&d, NULL);
	ck_assert_int_eq(obj_load_mem(buf, n, "x", &d, &q), 0);
	fa = open_memstream(&a, &ln);
	fb = open_memstream(&b, &lm);
	obj_print(fa, p, "x", ~0u);
	obj_print(fb, q, "x", ~0u);
	fclose(fa);
	fclose(fb);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	free(buf);
	free(src);
	obj_free(p);
	obj_free(q);
}
END_TEST

/* ---- error messages ---------------------------------------------------------------*/

START_TEST(asm_errors_exact_text)
{
	char *m = fails("start:\n\tadd a0, a1, a2\n\tad a0, a1, a2\n");

	ck_assert_str_eq(m, "t.s:3:2: error: unknown instruction 'ad' (did you "
			    "mean 'add'?)\n \tad a0, a1, a2\n \t^\n");
	free(m);
	m = fails("  addi a0, a1, 9000\n");
	ck_assert_str_eq(m, "t.s:1:16: error: immediate 9000 out of range "
			    "[-8192, 8191]\n   addi a0, a1, 9000\n"
			    "                ^\n");
	free(m);
}
END_TEST

START_TEST(asm_errors_every_error_in_order)
{
	/* Pass-1 and pass-2 errors interleave in source order. */
	char *m = fails("addi a0, a0, 1 << 20\n"   /* pass 2: range */
			"foo a0\n"                 /* pass 1: unknown */
			"li a0, nope\n"            /* pass 2: undefined */
			"add a0, a1\n"             /* pass 1: operands */
			".byte 1\n");              /* pass 1: .byte in .text */
	const char *want[] = {
		"t.s:1:14: error: immediate 1048576 out of range [-8192, 8191]",
		"t.s:2:1: error: unknown instruction 'foo'",
		"t.s:3:8: error: undefined symbol 'nope'",
		"t.s:4:11: error: 'add' expects 3 operands: add rd, rs1, rs2",
		("t.s:5:1: error: .byte in .text: code is 32-bit words (use .word, "
		 "or switch to a data section)"),
	};
	const char *p = m;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *at = strstr(p, want[i]);

		ck_assert_msg(at != NULL, "missing or out of order: %s\nin:\n%s",
			      want[i], m);
		p = at + strlen(want[i]);
	}
	free(m);
}
END_TEST

START_TEST(asm_errors_suggestions)
{
	static const struct {
		const char *src, *msg;
	} cases[] = {
		{ "vadds a0, a1, a2\nvaddd a0, a1, a2\n",
		  "unknown instruction 'vaddd' (did you mean 'vadd'?)" },
		{ "bnezz a0, x\nx:\n", "unknown instruction 'bnezz' (did you "
				       "mean 'bnez'?)" },
		{ ".macro mymac\n.endm\nmymak\n",
		  "unknown instruction 'mymak' (did you mean 'mymac'?)" },
		{ ".dwrd 1\n", "unknown directive '.dwrd' (did you mean "
			       "'.dword'?)" },
		{ "add a0, a1, s12\n", "'s12' is not a register (did you mean "
				       "'s1'?)" },
		{ "counter: .equ limit, 1\nli a0, limti\n",
		  "undefined symbol 'limti' (did you mean 'limit'?)" },
		{ "vset lenn, t0\n", "unknown vset field 'lenn' (did you mean "
				     "'len'?)" },
		{ "dset esiz, t0\n", "unknown dset field 'esiz' (did you mean "
				     "'esize'?)" },
		{ "wait vecc, 1, 1\n", "unknown unit 'vecc' (did you mean "
				       "'vec'?)" },
		{ "li a0, a1\n", "register 'a1' used in an expression" },
		{ "jal ra, 0x200000\n", "jump target too far: offset 2097152 "
					"bytes, reachable range [-1048576, "
					"1048572]" },
		{ "beq a0, a0, 6\n", "branch target is not 4-byte aligned: "
				     "offset 6 bytes" },
		{ "wait mtx, 0, 4096\n", "wait count 4096 out of range [1, "
					 "4095]" },
		{ "fence dma20\n", "unit dma20 has no bit of its own in a fence "
				   "mask" },
		{ ".equ a, b\n.equ b, a\n", "circular definition: 'b' depends on "
					    "itself" },
		{ ".dram 0\n.byte 1,2\n.dram 1\n.byte 3\n",
		  "dram bytes at 0x1..0x1 overlap those placed at 0x0..0x1 from "
		  "t.s:2" },
		/* A long section covering two later ones: both reported. */
		{ ".dram 0\n.zero 100\n.dram 10\n.byte 1\n.dram 50\n.byte 2\n",
		  "dram bytes at 0x32..0x32 overlap those placed at 0x0..0x63" },
		{ ".data\n.zero n\n.equ n, 4\n", "the count must be known here, but 'n' "
					  "is not defined before this line" },
		{ ".if 1\n", "unterminated .if (missing .endif)" },
		{ ".macro m\nnop\n", "unterminated .macro 'm' (missing .endm)" },
		{ "x: nop\nx: nop\n", "redefinition of 'x' (a label defined at "
				      "t.s:1)" },
		{ "fp32: nop\n", "'fp32' is already a predefined constant" },
		{ "sp: nop\n", "'sp' is a register name and cannot be a symbol" },
		{ "li a0, 1 <<\n", "expected an expression, found end of line" },
		{ "li a0, 0x\n", "invalid number '0x'" },
		{ "li a0, 09z\n", "invalid digit 'z' in number '09z'" },
		{ "li a0, \"s\"\n", "expected an expression, found '\"s\"'" },
		{ "nop ; ok\n@\n", "unexpected character '@'" },
		{ "\t.include \"missing.inc\"\n", "cannot find include file "
						 "'missing.inc' (searched next to "
						 "t.s; add a directory with -I)" },
		{ ".data\nadd a0, a0, a0\n", "instruction in a .data section; "
					     "instructions go in .text" },
		{ "li a0, f32(x)\n", "f32() takes a number, found 'x'" },
		{ ".tensor t, dram, 0, int8, 0\n", "dimension 0 out of range [1, "
						  "2^40]" },
		{ ".tensor t, dram, 0, 99, 4\n", "dtype 99 is not a dtype id" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *m = fails(cases[i].src);

		ck_assert_msg(strstr(m, cases[i].msg) != NULL,
			      "case %zu: want '%s'\ngot:\n%s", i, cases[i].msg, m);
		free(m);
	}
}
END_TEST

/* Errors in macro bodies point into the body and note the call site. */
START_TEST(asm_errors_in_macro_expansion)
{
	char *m = fails(".macro m r\n\taddi \\r, \\r, 70000\n.endm\n"
			"\tnop\n\tm a0\n");

	ck_assert_str_eq(m, "t.s:2:15: error: immediate 70000 out of range "
			    "[-8192, 8191]\n \taddi a0, a0, 70000\n"
			    " \t             ^\n"
			    "t.s:5:2: note: in expansion of macro 'm'\n");
	free(m);
}
END_TEST

/* ---- behaviour --------------------------------------------------------------------*/

/* The value of .equ NAME after assembling src. */
static int64_t equ(const char *src, const char *name)
{
	struct obj_prog *p = must(src);
	const struct obj_sym *s = obj_find_sym(p, name);
	int64_t v;

	ck_assert_msg(s != NULL, "%s undefined", name);
	v = s->value;
	obj_free(p);
	return v;
}


START_TEST(asm_tunable)
{
	/* the default is the first value; the object lists every one */
	struct obj_prog *p = must(".tunable TM, 64, 16, 2*16\n.equ X, TM + 1\n.tunable B, 1\nhalt\n");
	struct asm_opts o;
	const char *defs[] = { "TM=32" }, *bad[] = { "TM=48" };
	char *msgs;

	ck_assert_int_eq(obj_find_sym(p, "X")->value, 65);
	ck_assert_uint_eq(p->n_tunables, 2);
	ck_assert_str_eq(p->tunables[0].name, "TM");
	ck_assert_uint_eq(p->tunables[0].n_values, 3);
	ck_assert_int_eq(p->tunables[0].values[2], 32);
	ck_assert_str_eq(p->tunables[1].name, "B");
	obj_free(p);
	/* -D picks one of the values; another is an error naming them */
	memset(&o, 0, sizeof(o));
	o.defines = defs;
	o.n_defines = 1;
	ck_assert_int_eq(assemble(".tunable TM, 64, 16, 32\n.equ X, TM\nhalt\n", &o, &p, NULL), 0);
	ck_assert_int_eq(obj_find_sym(p, "X")->value, 32);
	obj_free(p);
	o.defines = bad;
	ck_assert_int_eq(assemble(".tunable TM, 64, 16, 32\nhalt\n", &o, &p, &msgs), NPU_EASM);
	ck_assert_msg(strstr(msgs, "t.s:1:10: error: TM = 48 is not one of its .tunable values (64, 16, 32)"),
		      "%s", msgs);
	free(msgs);
	msgs = fails(".tunable TM, 1\n.tunable TM, 2\nhalt\n");
	ck_assert_msg(strstr(msgs, "'TM' is already a .tunable"), "%s", msgs);
	free(msgs);
	msgs = fails(".tunable TM, LATER\nhalt\n.equ LATER, 3\n");
	ck_assert_msg(strstr(msgs, ".tunable values must be known here"), "%s", msgs);
	free(msgs);
}
END_TEST

START_TEST(asm_expr_c_semantics)
{
	static const struct {
		const char *e;
		int64_t v;
	} cases[] = {
		{ "1 + 2 * 3", 7 },           { "(1 + 2) * 3", 9 },
		{ "1 << 2 + 1", 8 },          { "7 & 3 | 8 ^ 1", 3 | (8 ^ 1) },
		{ "-7 / 2", -3 },             { "-7 % 2", -1 },
		{ "-16 >> 2", -4 },           { "~0 == -1", 1 },
		{ "!0 && 1 || 0", 1 },        { "0 || 0", 0 },
		{ "3 > 2 ? 10 : 20", 10 },    { "0 ? 1 : 0 ? 2 : 3", 3 },
		{ "2 <= 1", 0 },              { "2 >= 2", 1 },
		{ "1 != 1", 0 },              { "'z' - 'a'", 25 },
		{ "'\\n'", 10 },              { "0b1010 + 0o17 + 0x10", 10 + 15 + 16 },
		{ "0xffffffffffffffff", -1 }, { "0x8000000000000000 / -1", INT64_MIN },
		{ "0x7fffffffffffffff + 1", INT64_MIN },
		{ "- - 5", 5 },               { "+5", 5 },
		{ "int4 + int8 + fp32", 0 + 1 + 8 },
		{ "spm + acc + rspm + dram", 1 + 2 + 3 },
		{ "ws + os + is + relu", 0 + 1 + 2 + 1 },
		{ "f32(1.0)", 0x3f800000 },   { "f32(-2)", (int64_t)0xc0000000u },
		{ "f32(0.1)", 0x3dcccccd },   { "f32(inf)", 0x7f800000 },
		{ "1 ? 2 : 1 / 0", 2 },       { "0 && 1 / 0", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[256];

		snprintf(src, sizeof(src), ".equ v, %s\n", cases[i].e);
		ck_assert_msg(equ(src, "v") == cases[i].v, "%s = %" PRId64
			      ", expected %" PRId64, cases[i].e, equ(src, "v"),
			      cases[i].v);
	}
	/* `.` is the address of the statement; forward references work. */
	ck_assert_int_eq(equ("nop\nnop\n.equ here, .\n", "here"), 8);
	ck_assert_int_eq(equ(".equ d, end - start\nstart: nop\nnop\nend:\n",
			     "d"), 8);
}
END_TEST

START_TEST(asm_defines_and_includes)
{
	char dir[] = "/tmp/npusim_asm_XXXXXX", path[256], sub[300];
	const char *defs[] = { "N=3*4", "FLAG", "T=bf16" };
	const char *incs[1];
	struct asm_opts o = { defs, 3, incs, 1 };
	struct obj_prog *p = NULL;
	struct diag d;
	FILE *fp;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/inc", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	incs[0] = sub;
	snprintf(path, sizeof(path), "%s/inc/lib.inc", dir);
	fp = fopen(path, "w");
	fputs(".equ FROM_LIB, N + 1\n.include \"near.inc\"\n", fp);
	fclose(fp);
	/* Found next to lib.inc (its own directory), not via -I. */
	snprintf(path, sizeof(path), "%s/inc/near.inc", dir);
	fp = fopen(path, "w");
	fputs(".equ NEAR, 7\n", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/main.s", dir);
	fp = fopen(path, "w");
	fputs(".include \"lib.inc\"\n.ifdef FLAG\n.equ F, FLAG\n.endif\n"
	      ".equ TT, T\nhalt\n", fp);
	fclose(fp);
	diag_init(&d, NULL);
	ck_assert_int_eq(asm_assemble_file(path, &o, &d, &p), 0);
	ck_assert_int_eq(obj_find_sym(p, "N")->value, 12);
	ck_assert_int_eq(obj_find_sym(p, "FROM_LIB")->value, 13);
	ck_assert_int_eq(obj_find_sym(p, "NEAR")->value, 7);
	ck_assert_int_eq(obj_find_sym(p, "F")->value, 1);
	ck_assert_int_eq(obj_find_sym(p, "TT")->value, 7);
	obj_free(p);
	/* Without -I the include is not found; the message says where. */
	o.n_include_dirs = 0;
	ck_assert_int_eq(asm_assemble_file(path, &o, &d, &p), NPU_EASM);
	ck_assert_msg(strstr(d.last, "cannot find include file 'lib.inc'"),
		      "%s", d.last);
	/* A bad -D is reported against the command line. */
	{
		const char *bad[] = { "N=1", "9x=1", "T=1" };
		struct asm_opts ob = { bad, 3, incs, 1 };

		ck_assert_int_eq(asm_assemble_file(path, &ob, &d, &p), NPU_EASM);
		ck_assert_msg(strstr(d.last, "<command line>:1:1: error: -D "
					     "needs NAME or NAME=VALUE"),
			      "%s", d.last);
	}
	/* Recursive include stops at the depth limit. */
	snprintf(path, sizeof(path), "%s/self.s", dir);
	fp = fopen(path, "w");
	fputs(".include \"self.s\"\n", fp);
	fclose(fp);
	ck_assert_int_eq(asm_assemble_file(path, NULL, &d, &p), NPU_EASM);
	ck_assert_msg(strstr(d.last, "nested more than 64 deep"), "%s", d.last);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

START_TEST(asm_macro_arguments)
{
	struct obj_prog *p = must(
		".macro put r, v=5, w=1\n"
		"\taddi \\r, zero, \\v + \\w\n"
		".endm\n"
		".macro loop n\n"
		"\tli t0, \\n\n"
		"l\\@:\tdbnz t0, l\\@\n"
		".endm\n"
		"\tput a0\n"              /* defaults: 6 */
		"\tput a1, 10\n"          /* 11 */
		"\tput w=3, r=a2\n"       /* 8 */
		"\tloop 2\n"
		"\tloop 3\n");
	struct isa_insn in;

	ck_assert_int_eq(isa_decode(p->code[0], &in), 0);
	ck_assert_int_eq(in.rd, 10);
	ck_assert_int_eq(in.imm, 6);
	ck_assert_int_eq(isa_decode(p->code[1], &in), 0);
	ck_assert_int_eq(in.imm, 11);
	ck_assert_int_eq(isa_decode(p->code[2], &in), 0);
	ck_assert_int_eq(in.rd, 12);
	ck_assert_int_eq(in.imm, 8);
	/* Each expansion has its own label: both dbnz branch to themselves. */
	/* \@ counts every expansion: put took 0..2. */
	ck_assert_ptr_nonnull(obj_find_sym(p, "l3"));
	ck_assert_ptr_nonnull(obj_find_sym(p, "l4"));
	ck_assert_int_eq(isa_decode(p->code[4], &in), 0);
	ck_assert_int_eq((int)in.op, ISA_OP_DBNZ);
	ck_assert_int_eq(in.imm, 0);
	ck_assert_int_eq(isa_decode(p->code[6], &in), 0);
	ck_assert_int_eq((int)in.op, ISA_OP_DBNZ);
	ck_assert_int_eq(in.imm, 0);
	obj_free(p);
}
END_TEST

/* Regression: .float rounds a decimal literal once to binary32.  The first
 * literal lies just above the midpoint of 1 and 1 + 2^-23; rounding it to
 * double first lands exactly on the midpoint and then ties down to 1. */
START_TEST(asm_float_single_rounding)
{
	static const uint32_t want[] = { 0x3f800001u, 0x4b800000u, 0x3dcccccdu,
					 0xc0200000u };
	struct obj_prog *p = must(".data\n.float 1.00000005960464477550, "
				  "16777217, 0.1, -2.5\n.text\nhalt\n");
	size_t i;

	ck_assert_uint_eq(p->n_sects, 1);
	ck_assert_uint_eq(p->sects[0].size, 16);
	for (i = 0; i < 4; i++) {
		uint32_t got;

		memcpy(&got, p->sects[0].bytes + 4 * i, 4);
		ck_assert_uint_eq(got, want[i]);
	}
	obj_free(p);
}
END_TEST

/*
 * Memory-space names from isa/memspaces.def: a space a register can name
 * (dset or vset smem/dmem) is a predefined constant with its number; the
 * others (data) are free for a program's own symbols.  .tensor accepts
 * exactly the spaces a program may initialise.
 */
START_TEST(asm_memspace_names)
{
	char src[160], *msgs;
	int m;

	for (m = 0; m < ISA_N_MEMS; m++) {
		const char *n = isa_mem_info[m].name;
		unsigned f = isa_mem_info[m].flags;

		snprintf(src, sizeof(src), ".equ X, %s\nhalt\n", n);
		if (f & (ISA_MS_DMA | ISA_MS_VEC)) {
			ck_assert_int_eq(equ(src, "X"), m);
		} else {
			snprintf(src, sizeof(src), ".equ %s, 7\n.equ X, %s\nhalt\n",
				 n, n);
			ck_assert_int_eq(equ(src, "X"), 7);
		}
		snprintf(src, sizeof(src), ".tensor T, %s, 0, int8, 4\nhalt\n", n);
		if (f & ISA_MS_INIT) {
			struct obj_prog *p = must(src);

			ck_assert_int_eq(p->tensors[0].mem, m);
			obj_free(p);
		} else {
			msgs = fails(src);
			ck_assert_msg(strstr(msgs, "expected a memory (dram, spm, "
						   "acc or data), found") != NULL,
				      "%s", msgs);
			free(msgs);
		}
	}
}
END_TEST

START_TEST(asm_data_sections_and_tensors)
{
	struct obj_prog *p = must(
		".data\n.byte 1\n.align 4\n.word -1\n"
		".dram 0x100\n.half 0x1234\n.spm 8\n.float 1.5\n"
		".dram\n.byte 0xee\n"
		".acc 0\n.fill 2, 4, 7\n"
		".tensor A, dram, 0x100, int16, 1\n"
		".tensor B, spm, 8, fp32, 2, 1\n"
		".text\nhalt\n");
	const struct obj_tensor *t;

	ck_assert_uint_eq(p->n_sects, 4);
	/* Sorted by memory, then address. */
	ck_assert_int_eq(p->sects[0].mem, OBJ_MEM_DRAM);
	ck_assert_uint_eq(p->sects[0].addr, 0x100);
	ck_assert_uint_eq(p->sects[0].size, 3);
	ck_assert_uint_eq(p->sects[0].bytes[0], 0x34);
	ck_assert_uint_eq(p->sects[0].bytes[1], 0x12);
	ck_assert_uint_eq(p->sects[0].bytes[2], 0xee);
	ck_assert_int_eq(p->sects[1].mem, OBJ_MEM_SPM);
	ck_assert_uint_eq(p->sects[1].bytes[3], 0x3f);  /* 1.5f = 0x3fc00000 */
	ck_assert_uint_eq(p->sects[1].bytes[2], 0xc0);
	ck_assert_int_eq(p->sects[2].mem, OBJ_MEM_ACC);
	ck_assert_uint_eq(p->sects[2].size, 8);
	ck_assert_uint_eq(p->sects[2].bytes[4], 7);
	ck_assert_int_eq(p->sects[3].mem, OBJ_MEM_DATA);
	ck_assert_uint_eq(p->sects[3].size, 8);
	ck_assert_uint_eq(p->sects[3].bytes[1], 0);     /* .align padding */
	ck_assert_uint_eq(p->sects[3].bytes[7], 0xff);
	t = obj_find_tensor(p, "B");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->mem, OBJ_MEM_SPM);
	ck_assert_int_eq(t->dtype, DT_FP32);
	ck_assert_int_eq(t->rank, 2);
	ck_assert_uint_eq(t->shape[0], 2);
	ck_assert_uint_eq(t->shape[1], 1);
	ck_assert_int_eq(obj_find_sym(p, "A")->kind, OBJ_SYM_TENSOR);
	ck_assert_int_eq(obj_find_sym(p, "A")->value, 0x100);
	obj_free(p);
}
END_TEST

/* Lines, CRLF endings, comments of every kind, empty input. */
START_TEST(asm_lexical_details)
{
	struct obj_prog *p = must("a: b: nop # one\r\n\tnop ; two\r\n"
				  "\tnop // three\n\n   \n");
	const char *f;
	int line;

	ck_assert_uint_eq(p->n_code, 3);
	ck_assert_int_eq(obj_find_sym(p, "a")->value, 0);
	ck_assert_int_eq(obj_find_sym(p, "b")->value, 0);
	ck_assert_int_eq(obj_src_line(p, 8, &f, &line), 0);
	ck_assert_str_eq(f, "t.s");
	ck_assert_int_eq(line, 3);
	obj_free(p);
	p = must("");
	ck_assert_uint_eq(p->n_code, 0);
	obj_free(p);
}
END_TEST

/* ---- the commands -------------------------------------------------------------------*/

static int run(int (*fn)(int, char **), const char *a0, const char *a1,
	       const char *a2, const char *a3, const char *a4)
{
	char *argv[6] = { (char *)a0, (char *)a1, (char *)a2, (char *)a3,
			  (char *)a4, NULL };
	int argc = 0;

	while (argc < 5 && argv[argc])
		argc++;
	return fn(argc, argv);
}

START_TEST(asm_cli_as_and_objdump)
{
	char dir[] = "/tmp/npusim_cli_XXXXXX", good[256], bad[256], out[256];
	char cmd[300];
	struct stat st;
	FILE *fp;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(good, sizeof(good), "%s/good.s", dir);
	snprintf(bad, sizeof(bad), "%s/bad.s", dir);
	snprintf(out, sizeof(out), "%s/out.npo", dir);
	fp = fopen(good, "w");
	fputs("start: li a0, 1\nhalt\n", fp);
	fclose(fp);
	fp = fopen(bad, "w");
	fputs("start: li a0, 1\nbogus\nadd a0\n", fp);
	fclose(fp);
	ck_assert_int_eq(run(cmd_as, "as", good, "-o", out, NULL), 0);
	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_int_eq(run(cmd_objdump, "objdump", "-d", out, NULL, NULL), 0);
	ck_assert_int_eq(run(cmd_objdump, "objdump", good, NULL, NULL, NULL), 0);
	ck_assert_int_eq(remove(out), 0);
	/* Errors: status 1 and no file (not even a temporary one). */
	ck_assert_int_eq(run(cmd_as, "as", bad, "-o", out, NULL), 1);
	ck_assert_int_ne(stat(out, &st), 0);
	ck_assert_int_eq(run(cmd_objdump, "objdump", bad, NULL, NULL, NULL), 1);
	/* An existing output is not replaced by a failed assembly. */
	fp = fopen(out, "w");
	fputs("old", fp);
	fclose(fp);
	ck_assert_int_eq(run(cmd_as, "as", bad, "-o", out, NULL), 1);
	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_int_eq(st.st_size, 3);
	/* A damaged object: objdump reports it and fails. */
	ck_assert_int_eq(run(cmd_as, "as", good, "-o", out, NULL), 0);
	ck_assert_int_eq(truncate(out, 40), 0);
	ck_assert_int_eq(run(cmd_objdump, "objdump", out, NULL, NULL, NULL), 1);
	/* Usage errors. */
	ck_assert_int_eq(run(cmd_as, "as", NULL, NULL, NULL, NULL), 2);
	ck_assert_int_eq(run(cmd_as, "as", "-x", good, NULL, NULL), 2);
	ck_assert_int_eq(run(cmd_as, "as", good, good, NULL, NULL), 2);
	ck_assert_int_eq(run(cmd_objdump, "objdump", "-q", good, NULL, NULL), 2);
	ck_assert_int_eq(run(cmd_as, "as", "--help", NULL, NULL, NULL), 0);
	ck_assert_int_eq(run(cmd_objdump, "objdump", "-h", NULL, NULL, NULL), 0);
	ck_assert_int_eq(run(cmd_as, "as", "/nonexistent/x.s", "-o", out, NULL),
			 1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Inputs that once crashed or hung the assembler (fuzz/regress/asm). */
static void asm_regress_one(const char *path, void *ctx)
{
	const char *name = strrchr(path, '/') + 1;
	struct obj_prog *p = NULL;
	struct diag d;
	size_t len;
	char *text = test_read_file(path, &len);
	int r;

	(void)ctx;
	ck_assert_ptr_nonnull(text);
	diag_init(&d, NULL);
	r = asm_assemble_string(name, text, len, NULL, &d, &p);
	/* Success, or failure with at least one message. */
	ck_assert_msg(r == 0 || (p == NULL && d.n_errors > 0), "%s: %d", path, r);
	if (r == 0) {
		uint8_t *buf;
		size_t n2;
		struct obj_prog *q = NULL;

		ck_assert_int_eq(obj_serialize(p, &buf, &n2), 0);
		ck_assert_int_eq(obj_load_mem(buf, n2, "x", &d, &q), 0);
		obj_free(q);
		free(buf);
	}
	obj_free(p);
	free(text);
}

START_TEST(asm_fuzz_regress)
{
	ck_assert_int_gt(test_each_file("fuzz/regress/asm", asm_regress_one,
					NULL), 0);
}
END_TEST

START_TEST(asm_regions_names)
{
	static const char src[] =
		"a:\trbeg a\n\trbeg \"b c\"\n\trend \"b c\"\n\trend a\n"
		"\tbeq zero, zero, a\n\trbeg (3)\n\trend 3\n\thalt\n";
	struct obj_prog *p = must(src);
	char *m;

	ck_assert_uint_eq(p->n_regions, 4);
	ck_assert_str_eq(p->regions[0], "a");
	ck_assert_str_eq(p->regions[1], "b c");
	ck_assert_str_eq(p->regions[2], "region2");
	ck_assert_str_eq(p->regions[3], "region3");
	ck_assert_uint_eq(p->code[0], 0xc0000000u);
	ck_assert_uint_eq(p->code[1], 0xc0000001u);
	ck_assert_uint_eq(p->code[2], 0xc1000001u);
	ck_assert_uint_eq(p->code[3], 0xc1000000u);
	ck_assert_uint_eq(p->code[5], 0xc0000003u);
	/* The label a is still a code address. */
	ck_assert_int_eq(obj_find_sym(p, "a")->value, 0);
	obj_free(p);

	m = fails("\trbeg \"\"\n\trbeg \"tab\\there\"\n\trbeg\n"
		  "\trbeg (16384)\n\trend a, b\n\thalt\n");
	ck_assert_ptr_nonnull(strstr(m, "t.s:1:7: error: a region name is 1 to 255 printable characters"));
	ck_assert_ptr_nonnull(strstr(m, "t.s:2:7: error: a region name is 1 to 255"));
	ck_assert_ptr_nonnull(strstr(m, "t.s:3:6: error: 'rbeg' expects 1 operand: rbeg region"));
	ck_assert_ptr_nonnull(strstr(m, "t.s:4:7: error: region id 16384 out of range [0, 16383]"));
	ck_assert_ptr_nonnull(strstr(m, "t.s:5:8: error: unexpected ','"));
	free(m);
}
END_TEST

START_TEST(asm_regions_roundtrip)
{
	static const char src[] =
		"\trbeg kernel\n\trbeg \"q\\\"uote\\\\\"\n\tnop\n"
		"\trend \"q\\\"uote\\\\\"\n\trbeg .x_1\n\trend .x_1\n"
		"\trend kernel\n\thalt\n";
	struct obj_prog *p = must(src), *q;
	struct isa_names nm = { NULL, NULL, obj_region_name, NULL };
	char text[4096];
	size_t len = 0, k;

	nm.region_ctx = p;
	ck_assert_str_eq(p->regions[1], "q\"uote\\");
	for (k = 0; k < p->n_code; k++) {
		char line[128];

		(void)isa_disasm_names(p->code[k], 4 * k, line, sizeof(line), &nm);
		len += (size_t)snprintf(text + len, sizeof(text) - len, "\t%s\n",
					line);
	}
	ck_assert_ptr_nonnull(strstr(text, "\trbeg    \"q\\\"uote\\\\\"\n"));
	ck_assert_ptr_nonnull(strstr(text, "\trbeg    .x_1\n"));
	q = must(text);
	ck_assert_uint_eq(q->n_code, p->n_code);
	ck_assert_mem_eq(q->code, p->code, p->n_code * sizeof(*p->code));
	ck_assert_uint_eq(q->n_regions, p->n_regions);
	for (k = 0; k < p->n_regions; k++)
		ck_assert_str_eq(q->regions[k], p->regions[k]);
	obj_free(q);
	obj_free(p);
}
END_TEST

/* The kernels' ABI includes against the table they are made from, and no
 * include of a group the table no longer has. */
START_TEST(asm_abi_up_to_date)
{
	DIR *dir = opendir("asm/kernels/lib");
	struct dirent *de;
	size_t k;

	for (k = 0; k < kabi_n_files; k++) {
		char path[256], *gen = NULL, *disk;
		size_t gen_n = 0, disk_n;
		FILE *fp = open_memstream(&gen, &gen_n), *df;

		ck_assert_ptr_nonnull(fp);
		ck_assert_int_eq(kabi_write_inc(fp, kabi_files[k]), 0);
		fclose(fp);
		snprintf(path, sizeof(path), "asm/kernels/lib/%s_abi.inc",
			 kabi_files[k]);
		df = fopen(path, "rb");
		ck_assert_msg(df != NULL, "%s missing: run 'make abi'", path);
		disk = malloc(gen_n + 2);
		disk_n = fread(disk, 1, gen_n + 1, df);
		fclose(df);
		ck_assert_msg(disk_n == gen_n && memcmp(disk, gen, gen_n) == 0,
			      "%s is out of date: run 'make abi'", path);
		free(disk);
		free(gen);
	}
	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		int known = 0;

		if (n < 8 || strcmp(de->d_name + n - 8, "_abi.inc"))
			continue;
		for (k = 0; k < kabi_n_files; k++)
			known |= strlen(kabi_files[k]) == n - 8 &&
				 !strncmp(de->d_name, kabi_files[k], n - 8);
		ck_assert_msg(known, "asm/kernels/lib/%s: no group of "
			      "asm/kernels/abi.def makes it", de->d_name);
	}
	closedir(dir);
}
END_TEST

static Suite *suite_asm(void)
{
	Suite *s = suite_create("asm");

	TEST_ADD(s, asm_roundtrip_all_ops);
	TEST_ADD(s, asm_li_known_lengths);
	TEST_ADD(s, asm_li_random_values);
	TEST_ADD(s, asm_li_short_programs_are_optimal);
	TEST_ADD(s, asm_li_in_program);
	TEST_ADD(s, asm_golden_all);
	TEST_ADD(s, asm_golden_objdump_of_object);
	TEST_ADD(s, asm_errors_exact_text);
	TEST_ADD(s, asm_errors_every_error_in_order);
	TEST_ADD(s, asm_errors_suggestions);
	TEST_ADD(s, asm_errors_in_macro_expansion);
	TEST_ADD(s, asm_expr_c_semantics);
	TEST_ADD(s, asm_tunable);
	TEST_ADD(s, asm_defines_and_includes);
	TEST_ADD(s, asm_macro_arguments);
	TEST_ADD(s, asm_memspace_names);
	TEST_ADD(s, asm_data_sections_and_tensors);
	TEST_ADD(s, asm_float_single_rounding);
	TEST_ADD(s, asm_lexical_details);
	TEST_ADD(s, asm_cli_as_and_objdump);
	TEST_ADD(s, asm_fuzz_regress);
	TEST_ADD(s, asm_regions_names);
	TEST_ADD(s, asm_regions_roundtrip);
	TEST_ADD(s, asm_abi_up_to_date);
	return s;
}

TEST_MAIN(suite_asm)
