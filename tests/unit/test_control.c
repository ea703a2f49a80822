/*
 * test_control.c - the control unit, driven through whole programs.
 *
 * Every test assembles a program (asm_assemble_string), builds a chip
 * from the built-in defaults plus -s style overrides (arch_load), runs it
 * (chip_run) and compares registers (chip_reg), the scalar data memory
 * (chip_mem MEM_DATA), counters (chip_dump) and diagnostics with values
 * computed here from the ISA reference (docs/isa.md) and the timing rules
 * in the header of sim/core/control.c:
 *   - one issue per cycle; a result is ready alu/mul/div/mem_latency
 *     cycles after issue and a dependent instruction waits for it;
 *   - a taken branch or jump delays the next issue by branch_latency;
 *   - a queue entry becomes visible to its unit dispatch_latency cycles
 *     after it was queued;
 *   - stalls (queue full, wait ctl, fence, barrier) are counted cycle by
 *     cycle under their reason.
 * Timing tests measure with `csrr cycle` placed around the instructions
 * under test, so the expected numbers follow from those rules alone.
 */
#define _GNU_SOURCE 1 /* open_memstream is POSIX 2008; keep glibc happy */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../arch/arch.h"
#include "../../asm/asm.h"
#include "../../asm/obj.h"
#include "../../sim/chip.h"
#include "../../sim/core/control.h"
#include "../../sim/engine/counters.h"
#include "../../sim/noc/noc.h"
#include "../../trace/trace.h"
#include "testutil.h"

#include <unistd.h>
#include <zlib.h>

__extension__ typedef __int128 i128;

/* ---- harness --------------------------------------------------------------*/

/* One assembled program on one chip, with every diagnostic captured. */
struct sim {
	struct arch a;         /* defaults + overrides */
	struct diag d;         /* prints into log */
	FILE *fp;              /* memstream behind d */
	char *log;             /* every diagnostic line so far */
	size_t log_len;        /* its length */
	struct obj_prog *p;    /* the program */
	struct prog_image *img; /* its image (what the chip runs) */
	struct chip *c;        /* the chip */
	struct chip_result r;  /* outcome of chip_run */
	struct ctr_sink s;     /* counters after the run */
	int rc;                /* chip_run's return */
	int dumped;            /* s holds counters */
};

/* The image of the assembled program (made once, freed with the sim). */
static struct prog_image *sim_img(struct sim *s)
{
	if (!s->img)
		ck_assert_int_eq(obj_image(s->p, "t.s", &s->img), 0);
	return s->img;
}

/* Assemble src and build the chip (overrides are "key=value" strings). */
static void sim_build(struct sim *s, const char *src, const char *const *ov,
		      int n_ov, cycle_t max_cycles)
{
	struct chip_opts o;

	memset(s, 0, sizeof(*s));
	s->fp = open_memstream(&s->log, &s->log_len);
	ck_assert_ptr_nonnull(s->fp);
	diag_init(&s->d, s->fp);
	ck_assert_msg(arch_load(&s->a, NULL, ov, n_ov, &s->d) == 0,
		      "config: %s", s->d.last);
	ck_assert_msg(asm_assemble_string("t.s", src, strlen(src), NULL, &s->d,
					  &s->p) == 0, "asm: %s", s->d.last);
	memset(&o, 0, sizeof(o));
	o.max_cycles = max_cycles ? max_cycles : CYCLE_MAX;
	s->c = chip_new(&s->a, &o, &s->d);
	ck_assert_ptr_nonnull(s->c);
	ck_assert_int_eq(chip_load_program(s->c, sim_img(s), &s->d), 0);
}

/* Run the built chip; returns chip_run's code and collects counters. */
static int sim_go(struct sim *s)
{
	s->rc = chip_run(s->c, &s->r);
	fflush(s->fp);
	ctr_sink_init(&s->s);
	chip_dump(s->c, &s->s);
	s->dumped = 1;
	return s->rc;
}

/* Build and run; the run must succeed. */
static void sim_ok(struct sim *s, const char *src, const char *const *ov,
		   int n_ov)
{
	sim_build(s, src, ov, n_ov, 0);
	ck_assert_msg(sim_go(s) == 0, "run failed (%d): %s", s->rc,
		      s->log ? s->log : "");
}

static void sim_free(struct sim *s)
{
	if (s->dumped)
		ctr_sink_free(&s->s);
	chip_free(s->c);
	prog_free(s->img);
	obj_free(s->p);
	arch_free(&s->a);
	if (s->fp)
		fclose(s->fp);
	free(s->log);
}

static uint64_t ctr(const struct sim *s, const char *name)
{
	const struct ctr_entry *e = ctr_find(&s->s, name);

	ck_assert_msg(e != NULL, "no counter %s", name);
	return e->u;
}

static uint64_t reg(const struct sim *s, int core, int r)
{
	return chip_reg(s->c, core, r);
}

/* 64-bit little-endian word of a core's scalar memory. */
static uint64_t smem64(struct sim *s, int core, uint64_t addr)
{
	uint64_t size = 0, v = 0;
	const uint8_t *m = chip_mem(s->c, MEM_DATA, core, &size);
	int i;

	ck_assert_ptr_nonnull(m);
	ck_assert_uint_le(addr + 8, size);
	for (i = 7; i >= 0; i--)
		v = v << 8 | m[addr + (uint64_t)i];
	return v;
}

/* Growable text buffer for generated programs. */
struct sbuf {
	char *p;
	size_t n, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	for (;;) {
		va_start(ap, fmt);
		k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0,
			      fmt, ap);
		va_end(ap);
		ck_assert_int_ge(k, 0);
		if (b->p && b->n + (size_t)k < b->cap)
			break;
		b->cap = (b->cap + (size_t)k + 1) * 2;
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	b->n += (size_t)k;
}

/* Occurrences of needle in hay. */
static int count_spans(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* Registers by number (ABI names in docs/isa.md). */
enum { X_RA = 1, X_T0 = 5, X_T1 = 6, X_T2 = 7, X_S0 = 8, X_S1 = 9,
       X_A0 = 10, X_A1 = 11, X_A2 = 12, X_A3 = 13, X_A4 = 14, X_A5 = 15,
       X_T3 = 28, X_T4 = 29, X_T5 = 30 };

/* ---- scalar ALU -------------------------------------------------------------*/

static const int64_t alu_vals[] = {
	0, 1, 2, -1, -2, 7, -7, 63, 64, 65, 127, INT64_MAX, INT64_MIN,
	0xffffffffll, 0x123456789abcdef0ll, -0x123456789abcdef1ll,
};
#define N_ALU_VALS (sizeof(alu_vals) / sizeof(alu_vals[0]))

static const char *const alu_ops[] = {
	"add", "sub", "mul", "div", "divu", "rem", "remu", "and", "or", "xor",
	"sll", "srl", "sra", "slt", "sltu", "min", "max",
};
#define N_ALU_OPS (sizeof(alu_ops) / sizeof(alu_ops[0]))

/* Arithmetic shift right one bit at a time (no reliance on C's >>). */
static uint64_t ref_sra(uint64_t a, unsigned s)
{
	unsigned i;

	for (i = 0; i < s; i++)
		a = (a >> 1) | (a & 0x8000000000000000ull);
	return a;
}

/*
 * The reference: docs/isa.md's semantics.  Division goes through 128-bit
 * arithmetic, where INT64_MIN / -1 = 2^63 truncates to INT64_MIN and
 * INT64_MIN % -1 = 0 without special cases; only division by zero needs the
 * documented rule (quotient all ones, remainder the dividend).
 */
static uint64_t ref_alu(const char *op, uint64_t a, uint64_t b)
{
	int64_t sa = (int64_t)a, sb = (int64_t)b;

	if (!strcmp(op, "add")) return a + b;
	if (!strcmp(op, "sub")) return a - b;
	if (!strcmp(op, "mul")) return (uint64_t)((unsigned __int128)a * b);
	if (!strcmp(op, "div"))
		return b ? (uint64_t)(i128)((i128)sa / (i128)sb) : ~0ull;
	if (!strcmp(op, "divu")) return b ? a / b : ~0ull;
	if (!strcmp(op, "rem"))
		return b ? (uint64_t)(i128)((i128)sa % (i128)sb) : a;
	if (!strcmp(op, "remu")) return b ? a % b : a;
	if (!strcmp(op, "and")) return a & b;
	if (!strcmp(op, "or")) return a | b;
	if (!strcmp(op, "xor")) return a ^ b;
	if (!strcmp(op, "sll")) return a * (1ull << (b % 64));
	if (!strcmp(op, "srl")) return a / (1ull << (b % 64));
	if (!strcmp(op, "sra")) return ref_sra(a, (unsigned)(b % 64));
	if (!strcmp(op, "slt")) return sa < sb;
	if (!strcmp(op, "sltu")) return a < b;
	if (!strcmp(op, "min")) return (uint64_t)(sa < sb ? sa : sb);
	return (uint64_t)(sa > sb ? sa : sb); /* max */
}

START_TEST(control_alu_reg_ops)
{
	/* Every register-register op on every pair of interesting values,
	 * each result stored to the scalar memory with sd. */
	struct sbuf b = { 0 };
	struct sim s;
	size_t i, j, k, slot = 0;

	for (i = 0; i < N_ALU_VALS; i++)
		for (j = 0; j < N_ALU_VALS; j++) {
			sb_printf(&b, "\tli a0, %" PRId64 "\n\tli a1, %" PRId64 "\n",
				  alu_vals[i], alu_vals[j]);
			for (k = 0; k < N_ALU_OPS; k++)
				sb_printf(&b, "\t%s t0, a0, a1\n\tsd t0, %zu(s0)\n",
					  alu_ops[k], 8 * k);
			sb_printf(&b, "\taddi s0, s0, %zu\n", 8 * N_ALU_OPS);
		}
	sb_printf(&b, "\thalt\n");
	sim_ok(&s, b.p, NULL, 0);
	for (i = 0; i < N_ALU_VALS; i++)
		for (j = 0; j < N_ALU_VALS; j++)
			for (k = 0; k < N_ALU_OPS; k++, slot++) {
				uint64_t want = ref_alu(alu_ops[k], (uint64_t)alu_vals[i],
							(uint64_t)alu_vals[j]);
				uint64_t got = smem64(&s, 0, 8 * slot);

				ck_assert_msg(got == want,
					      "%s(%" PRId64 ", %" PRId64 ") = 0x%" PRIx64 ", want 0x%" PRIx64,
					      alu_ops[k], alu_vals[i], alu_vals[j], got, want);
			}
	sim_free(&s);
	free(b.p);
}
END_TEST

START_TEST(control_alu_div_rules)
{
	/* The documented corner cases, spelled out (RISC-V M semantics). */
	struct sim s;

	sim_ok(&s,
	       "\tli a0, 0x8000000000000000\n"
	       "\tli a1, -1\n"
	       "\tli a2, 17\n"
	       "\tdiv t0, a0, a1\n\tsd t0, 0(zero)\n"	/* INT64_MIN / -1 */
	       "\trem t0, a0, a1\n\tsd t0, 8(zero)\n"	/* INT64_MIN % -1 */
	       "\tdiv t0, a2, zero\n\tsd t0, 16(zero)\n"	/* x / 0 = -1 */
	       "\tdivu t0, a2, zero\n\tsd t0, 24(zero)\n"	/* all ones */
	       "\trem t0, a2, zero\n\tsd t0, 32(zero)\n"	/* dividend */
	       "\tremu t0, a0, zero\n\tsd t0, 40(zero)\n"	/* dividend */
	       "\tli a3, -17\n\tli a4, 5\n"
	       "\tdiv t0, a3, a4\n\tsd t0, 48(zero)\n"	/* -3: toward zero */
	       "\trem t0, a3, a4\n\tsd t0, 56(zero)\n"	/* -2: sign of dividend */
	       "\thalt\n", NULL, 0);
	ck_assert_uint_eq(smem64(&s, 0, 0), 0x8000000000000000ull);
	ck_assert_uint_eq(smem64(&s, 0, 8), 0);
	ck_assert_uint_eq(smem64(&s, 0, 16), UINT64_MAX);
	ck_assert_uint_eq(smem64(&s, 0, 24), UINT64_MAX);
	ck_assert_uint_eq(smem64(&s, 0, 32), 17);
	ck_assert_uint_eq(smem64(&s, 0, 40), 0x8000000000000000ull);
	ck_assert_int_eq((int64_t)smem64(&s, 0, 48), -3);
	ck_assert_int_eq((int64_t)smem64(&s, 0, 56), -2);
	sim_free(&s);
}
END_TEST

START_TEST(control_alu_shift_amounts)
{
	/* Register shifts use only the low 6 bits: 64 -> 0, 65 -> 1, -1 -> 63. */
	static const int64_t amt[] = { 0, 1, 63, 64, 65, 127, -1, 200 };
	struct sbuf b = { 0 };
	struct sim s;
	size_t i;
	uint64_t v = 0x8123456789abcdefull;

	sb_printf(&b, "\tli a0, 0x%" PRIx64 "\n", v);
	for (i = 0; i < 8; i++)
		sb_printf(&b, "\tli a1, %" PRId64 "\n\tsll t0, a0, a1\n\tsd t0, %zu(zero)\n"
			  "\tsrl t0, a0, a1\n\tsd t0, %zu(zero)\n"
			  "\tsra t0, a0, a1\n\tsd t0, %zu(zero)\n",
			  amt[i], 24 * i, 24 * i + 8, 24 * i + 16);
	sb_printf(&b, "\thalt\n");
	sim_ok(&s, b.p, NULL, 0);
	for (i = 0; i < 8; i++) {
		unsigned sh = (unsigned)((uint64_t)amt[i] & 63);

		ck_assert_uint_eq(smem64(&s, 0, 24 * i), v << sh);
		ck_assert_uint_eq(smem64(&s, 0, 24 * i + 8), v >> sh);
		ck_assert_uint_eq(smem64(&s, 0, 24 * i + 16), ref_sra(v, sh));
	}
	sim_free(&s);
	free(b.p);
}
END_TEST

START_TEST(control_alu_imm_ops)
{
	static const int64_t imms[] = { 0, 1, -1, 8191, -8192, 0x555, -0x555 };
	static const char *const iops[] = { "addi", "andi", "ori", "xori", "slti", "sltiu" };
	static const char *const rops[] = { "add", "and", "or", "xor", "slt", "sltu" };
	static const unsigned shamts[] = { 0, 1, 13, 31, 32, 63 };
	struct sbuf b = { 0 };
	struct sim s;
	size_t i, j, k, slot = 0;

	for (i = 0; i < N_ALU_VALS; i++) {
		sb_printf(&b, "\tli a0, %" PRId64 "\n", alu_vals[i]);
		for (j = 0; j < 7; j++)
			for (k = 0; k < 6; k++, slot++)
				sb_printf(&b, "\t%s t0, a0, %" PRId64 "\n\tsd t0, %zu(s0)\n",
					  iops[k], imms[j], 8 * (slot % 64));
		for (j = 0; j < 6; j++) {
			sb_printf(&b, "\tslli t0, a0, %u\n\tsd t0, %zu(s0)\n", shamts[j], 8 * (slot++ % 64));
			sb_printf(&b, "\tsrli t0, a0, %u\n\tsd t0, %zu(s0)\n", shamts[j], 8 * (slot++ % 64));
			sb_printf(&b, "\tsrai t0, a0, %u\n\tsd t0, %zu(s0)\n", shamts[j], 8 * (slot++ % 64));
		}
		/* 42 + 18 = 60 results per value; advance the base by 64 slots. */
		slot = (slot + 63) / 64 * 64;
		sb_printf(&b, "\taddi s0, s0, 512\n");
	}
	sb_printf(&b, "\thalt\n");
	sim_ok(&s, b.p, NULL, 0);
	for (i = 0, slot = 0; i < N_ALU_VALS; i++) {
		uint64_t a = (uint64_t)alu_vals[i];

		for (j = 0; j < 7; j++)
			for (k = 0; k < 6; k++, slot++)
				ck_assert_msg(smem64(&s, 0, 8 * slot) ==
					      ref_alu(rops[k], a, (uint64_t)imms[j]),
					      "%s %" PRId64 ", %" PRId64, iops[k],
					      alu_vals[i], imms[j]);
		for (j = 0; j < 6; j++) {
			ck_assert_uint_eq(smem64(&s, 0, 8 * slot++), a << shamts[j]);
			ck_assert_uint_eq(smem64(&s, 0, 8 * slot++), a >> shamts[j]);
			ck_assert_uint_eq(smem64(&s, 0, 8 * slot++), ref_sra(a, shamts[j]));
		}
		slot = (slot + 63) / 64 * 64;
	}
	sim_free(&s);
	free(b.p);
}
END_TEST

START_TEST(control_alu_lui_li)
{
	/* lui: sext(imm19) << 13; li: any 64-bit value. */
	static const int64_t lui_imm[] = { 0, 1, -1, 262143, -262144, 0x12345 };
	static const uint64_t li_vals[] = {
		0, 1, UINT64_MAX, 0x8000000000000000ull, 0x7fffffffffffffffull,
		0x123456789abcdef0ull, 0xfedcba9876543210ull, 0xffffffffull,
		0x100000000ull, 0x7fffffff80000000ull, 0x8000000000000001ull,
		0xdeadbeefcafef00dull, 8191, 8192, (uint64_t)-8193,
	};
	struct sbuf b = { 0 };
	struct sim s;
	size_t i;

	for (i = 0; i < 6; i++)
		sb_printf(&b, "\tlui t0, %" PRId64 "\n\tsd t0, %zu(zero)\n", lui_imm[i], 8 * i);
	for (i = 0; i < sizeof(li_vals) / sizeof(li_vals[0]); i++)
		sb_printf(&b, "\tli t1, 0x%" PRIx64 "\n\tsd t1, %zu(zero)\n", li_vals[i],
			  64 + 8 * i);
	sb_printf(&b, "\thalt\n");
	sim_ok(&s, b.p, NULL, 0);
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(smem64(&s, 0, 8 * i), (uint64_t)(lui_imm[i] * 8192));
	for (i = 0; i < sizeof(li_vals) / sizeof(li_vals[0]); i++)
		ck_assert_uint_eq(smem64(&s, 0, 64 + 8 * i), li_vals[i]);
	/* x0 stays 0 even when written. */
	sim_free(&s);
	sim_ok(&s, "\tli zero, 5\n\taddi zero, zero, 7\n\tadd t0, zero, zero\n\thalt\n",
	       NULL, 0);
	ck_assert_uint_eq(reg(&s, 0, 0), 0);
	ck_assert_uint_eq(reg(&s, 0, X_T0), 0);
	sim_free(&s);
	free(b.p);
}
END_TEST

/* ---- scalar memory ----------------------------------------------------------*/

static const uint8_t mem_pat[16] = {
	0x80, 0x01, 0xff, 0x7f, 0x00, 0x80, 0x34, 0x12,
	0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x81,
};

/* Little-endian value of n bytes of the pattern at off, optionally signed. */
static uint64_t pat_val(size_t off, int n, int sign)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | mem_pat[off + (size_t)i];
	if (sign && n < 8 && (v >> (8 * n - 1) & 1))
		v |= ~0ull << (8 * n);
	return v;
}

START_TEST(control_mem_loads)
{
	static const struct { const char *op; int n, sign; } lds[] = {
		{ "lb", 1, 1 }, { "lbu", 1, 0 }, { "lh", 2, 1 }, { "lhu", 2, 0 },
		{ "lw", 4, 1 }, { "lwu", 4, 0 }, { "ld", 8, 0 },
	};
	struct sbuf b = { 0 };
	struct sim s;
	size_t i, off, slot = 0;

	sb_printf(&b, ".data 0\n\t.byte ");
	for (i = 0; i < 16; i++)
		sb_printf(&b, "%s%u", i ? ", " : "", mem_pat[i]);
	sb_printf(&b, "\n.text\n\tli s0, 0x100\n");
	for (i = 0; i < 7; i++)
		for (off = 0; off < 16; off += (size_t)lds[i].n)
			sb_printf(&b, "\t%s t0, %zu(zero)\n\tsd t0, %zu(s0)\n", lds[i].op,
				  off, 8 * slot++);
	/* A negative offset from a base register. */
	sb_printf(&b, "\tli t1, 16\n\tlh t0, -6(t1)\n\tsd t0, %zu(s0)\n\thalt\n", 8 * slot++);
	sim_ok(&s, b.p, NULL, 0);
	for (i = 0, slot = 0; i < 7; i++)
		for (off = 0; off < 16; off += (size_t)lds[i].n, slot++)
			ck_assert_msg(smem64(&s, 0, 0x100 + 8 * slot) ==
				      pat_val(off, lds[i].n, lds[i].sign),
				      "%s at %zu: 0x%" PRIx64, lds[i].op, off,
				      smem64(&s, 0, 0x100 + 8 * slot));
	ck_assert_uint_eq(smem64(&s, 0, 0x100 + 8 * slot), pat_val(10, 2, 1));
	sim_free(&s);
	free(b.p);
}
END_TEST

START_TEST(control_mem_stores)
{
	/* Each width writes exactly its low bytes, little-endian; the bytes
	 * around stay untouched (0). */
	uint64_t v = 0xfedcba9876543210ull, size;
	const uint8_t *m;
	struct sim s;
	int i, w;

	sim_ok(&s,
	       "\tli t1, 0xfedcba9876543210\n"
	       "\tsb t1, 0x201(zero)\n"
	       "\tsh t1, 0x212(zero)\n"
	       "\tsw t1, 0x224(zero)\n"
	       "\tsd t1, 0x238(zero)\n"
	       "\tli t2, 0x260\n"
	       "\tsw t1, -4(t2)\n"
	       "\thalt\n", NULL, 0);
	m = chip_mem(s.c, MEM_DATA, 0, &size);
	ck_assert_ptr_nonnull(m);
	for (w = 0; w < 4; w++) {
		static const unsigned bases[4] = { 0x201, 0x212, 0x224, 0x238 };
		int n = 1 << w;
		unsigned base = bases[w];

		for (i = 0; i < n; i++)
			ck_assert_uint_eq(m[base + (unsigned)i], (uint8_t)(v >> (8 * i)));
		ck_assert_uint_eq(m[base - 1], 0);
		ck_assert_uint_eq(m[base + (unsigned)n], 0);
	}
	for (i = 0; i < 4; i++)
		ck_assert_uint_eq(m[0x25c + i], (uint8_t)(v >> (8 * i)));
	sim_free(&s);
}
END_TEST

/* Run src, which must fault; check the code and the message's place. */
static void expect_fault(const char *src, const char *const *ov, int n_ov,
			 int want_rc, const char *want_place, const char *want_msg)
{
	struct sim s;

	sim_build(&s, src, ov, n_ov, 0);
	ck_assert_int_eq(sim_go(&s), want_rc);
	ck_assert_msg(strstr(s.log, want_place) != NULL, "no '%s' in: %s",
		      want_place, s.log);
	ck_assert_msg(strstr(s.log, want_msg) != NULL, "no '%s' in: %s",
		      want_msg, s.log);
	sim_free(&s);
}

START_TEST(control_mem_faults)
{
	/*
	 * li t0, ADDR is one addi (small values) and the faulting access
	 * issues at cycle 1 (pc 0x4) once t0 is ready; with larger addresses
	 * li takes two instructions.
	 */
	static const struct { const char *src, *place, *msg; } cases[] = {
		{ "\tli t0, 1\n\tlh t1, 0(t0)\n\thalt\n", "core 0 pc 0x4 cycle 1:",
		  "misaligned 2-byte scalar memory access at 0x1" },
		{ "\tli t0, 2\n\tlw t1, 0(t0)\n\thalt\n", "core 0 pc 0x4 cycle 1:",
		  "misaligned 4-byte scalar memory access at 0x2" },
		{ "\tli t0, 4\n\tld t1, 0(t0)\n\thalt\n", "core 0 pc 0x4 cycle 1:",
		  "misaligned 8-byte scalar memory access at 0x4" },
		{ "\tli t0, 6\n\tlwu t1, 0(t0)\n\thalt\n", "core 0 pc 0x4 cycle 1:",
		  "misaligned 4-byte" },
		{ "\tli t0, 3\n\tlhu t1, 0(t0)\n\thalt\n", "core 0 pc 0x4 cycle 1:",
		  "misaligned 2-byte" },
		{ "\tli t0, 1\n\tsh t1, 0(t0)\n\thalt\n", "core 0 pc 0x4 cycle 1:",
		  "misaligned 2-byte" },
		{ "\tli t0, 2\n\tsw t1, 0(t0)\n\thalt\n", "core 0 pc 0x4 cycle 1:",
		  "misaligned 4-byte" },
		{ "\tli t0, 12\n\tsd t1, 0(t0)\n\thalt\n", "core 0 pc 0x4 cycle 1:",
		  "misaligned 8-byte scalar memory access at 0xc" },
		{ "\tli t0, -8\n\tld t1, 0(t0)\n\thalt\n", "core 0 pc 0x4 cycle 1:",
		  "scalar memory access [0xfffffffffffffff8, 0x0) outside [0, 0x10000)" },
		{ "\tld t1, 0x1ff8(zero)\n\tli t0, 0x10000\n\tld t1, 0(t0)\n\thalt\n",
		  "core 0 pc 0x8 cycle 2:",
		  "scalar memory access [0x10000, 0x10008) outside [0, 0x10000) (core.control.scalar_mem_bytes)" },
		{ "\tli t0, 0x10000\n\tsb t1, 0(t0)\n\thalt\n", "core 0 pc 0x4 cycle 1:",
		  "[0x10000, 0x10001) outside" },
		{ "\tli t0, 0xfffc\n\tlw t1, 4(t0)\n\thalt\n", "core 0 pc 0x8 cycle 2:",
		  "[0x10000, 0x10004) outside" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_fault(cases[i].src, NULL, 0, NPU_EFAULT, cases[i].place,
			     cases[i].msg);
}
END_TEST

START_TEST(control_mem_edges_ok)
{
	/* The last aligned word and dword of the memory are fine, with a
	 * smaller memory from the config too. */
	static const char *const ov[] = { "core.control.scalar_mem_bytes=256" };
	struct sim s;

	sim_ok(&s, "\tli t0, 0xfff8\n\tli t1, 77\n\tsd t1, 0(t0)\n\tld t2, 0(t0)\n"
	       "\tlw t3, 4(t0)\n\tlbu t4, 7(t0)\n\thalt\n", NULL, 0);
	ck_assert_uint_eq(reg(&s, 0, 7), 77);
	ck_assert_uint_eq(smem64(&s, 0, 0xfff8), 77);
	sim_free(&s);
	sim_ok(&s, "\tli t1, -3\n\tsd t1, 248(zero)\n\tld t2, 248(zero)\n\thalt\n",
	       ov, 1);
	ck_assert_int_eq((int64_t)reg(&s, 0, X_T2), -3);
	sim_free(&s);
	expect_fault("\tsd t1, 256(zero)\n\thalt\n", ov, 1, NPU_EFAULT,
		     "core 0 pc 0x0 cycle 0:", "outside [0, 0x100)");
}
END_TEST

/* ---- control flow -----------------------------------------------------------*/

START_TEST(control_branches_all_kinds)
{
	static const int64_t bv[] = { 0, 1, -1, 5, INT64_MIN, INT64_MAX };
	static const char *const bops[] = { "beq", "bne", "blt", "bge", "bltu", "bgeu" };
	struct sbuf b = { 0 };
	struct sim s;
	size_t i, j, k, slot = 0, n_taken = 0, n_br = 0;
	int label = 0;

	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++) {
			sb_printf(&b, "\tli a0, %" PRId64 "\n\tli a1, %" PRId64 "\n", bv[i], bv[j]);
			for (k = 0; k < 6; k++, label++)
				sb_printf(&b, "\tli t0, 1\n\t%s a0, a1, L%d\n\tli t0, 0\nL%d:\n"
					  "\tsd t0, %zu(s0)\n", bops[k], label, label, 8 * k);
			sb_printf(&b, "\taddi s0, s0, 48\n");
		}
	sb_printf(&b, "\thalt\n");
	sim_ok(&s, b.p, NULL, 0);
	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++)
			for (k = 0; k < 6; k++, slot++) {
				uint64_t a = (uint64_t)bv[i], c = (uint64_t)bv[j];
				int want = k == 0 ? a == c : k == 1 ? a != c :
					   k == 2 ? bv[i] < bv[j] : k == 3 ? bv[i] >= bv[j] :
					   k == 4 ? a < c : a >= c;

				ck_assert_msg(smem64(&s, 0, 8 * slot) == (uint64_t)want,
					      "%s %" PRId64 ", %" PRId64, bops[k], bv[i], bv[j]);
				n_taken += (size_t)want;
				n_br++;
			}
	ck_assert_uint_eq(ctr(&s, "core0.control.branches"), n_br);
	ck_assert_uint_eq(ctr(&s, "core0.control.branches_taken"), n_taken);
	sim_free(&s);
	free(b.p);
}
END_TEST

START_TEST(control_dbnz_loop)
{
	/* n = 5: body 5 times, counter ends at 0; n = 1: once. */
	struct sim s;

	sim_ok(&s, "\tli t0, 5\n\tli t1, 0\nL:\taddi t1, t1, 1\n\tdbnz t0, L\n"
	       "\tli a0, 1\n\tli a1, 0\nM:\taddi a1, a1, 1\n\tdbnz a0, M\n\thalt\n", NULL, 0);
	ck_assert_uint_eq(reg(&s, 0, X_T1), 5);
	ck_assert_uint_eq(reg(&s, 0, X_T0), 0);
	ck_assert_uint_eq(reg(&s, 0, X_A1), 1);
	ck_assert_uint_eq(reg(&s, 0, X_A0), 0);
	ck_assert_uint_eq(ctr(&s, "core0.control.branches"), 6);
	ck_assert_uint_eq(ctr(&s, "core0.control.branches_taken"), 4);
	sim_free(&s);
}
END_TEST

START_TEST(control_call_return)
{
	/* call/ret through jal/jalr; jalr clears the low two target bits. */
	struct sim s;

	sim_ok(&s,
	       "\tli a0, 0\n"		/* 0x00 */
	       "\tcall f\n"		/* 0x04: ra = 0x08 */
	       "\taddi a0, a0, 100\n"	/* 0x08 */
	       "\tcall f\n"		/* 0x0c: ra = 0x10 */
	       "\tmv s1, ra\n"		/* 0x10 */
	       "\tli t0, g + 3\n"	/* 0x14, 0x18 (a later label: lui + addi) */
	       "\tjalr a5, t0, 0\n"	/* 0x1c: to 0x2f & ~3 = g, a5 = 0x20 */
	       "\thalt\n"		/* 0x20 */
	       "f:\taddi a0, a0, 1\n"	/* 0x24 */
	       "\tret\n"		/* 0x28 */
	       "g:\tli a1, 9\n"		/* 0x2c */
	       "\tjalr zero, a5, 2\n"	/* 0x30: to 0x22 & ~3 = 0x20 */
	       "\tli a1, 10\n"		/* never */
	       "\thalt\n", NULL, 0);
	ck_assert_uint_eq(reg(&s, 0, X_A0), 102);
	ck_assert_uint_eq(reg(&s, 0, X_S1), 0x10);
	ck_assert_uint_eq(reg(&s, 0, X_RA), 0x10);
	ck_assert_uint_eq(reg(&s, 0, X_A5), 0x20);
	ck_assert_uint_eq(reg(&s, 0, X_A1), 9);
	/* 2 calls + 2 rets + 2 jalr, all taken. */
	ck_assert_uint_eq(ctr(&s, "core0.control.branches"), 6);
	ck_assert_uint_eq(ctr(&s, "core0.control.branches_taken"), 6);
	sim_free(&s);
}
END_TEST

START_TEST(control_csrs)
{
	/* coreid/ncores on 1 and 3 cores; instret counts retired
	 * instructions before this one (a taken jump counts once). */
	static const char *const ov3[] = { "chip.cores=3", "noc.cols=4", "noc.rows=1" };
	static const char *src =
		"\taddi t0, zero, 1\n"	/* 0 */
		"\taddi t1, zero, 2\n"	/* 1 */
		"\tj L\n"			/* 2 */
		"\taddi t2, zero, 3\n"	/* skipped */
		"L:\tcsrr a0, instret\n"	/* 3 retired before */
		"\tcsrr a1, coreid\n"
		"\tcsrr a2, ncores\n"
		"\tcsrr a3, instret\n"	/* 5 */
		"\thalt\n";
	struct sim s;
	int k;

	sim_ok(&s, src, NULL, 0);
	ck_assert_uint_eq(reg(&s, 0, X_A0), 3);
	ck_assert_uint_eq(reg(&s, 0, X_A1), 0);
	ck_assert_uint_eq(reg(&s, 0, X_A2), 1);
	ck_assert_uint_eq(reg(&s, 0, X_A3), 6);
	ck_assert_uint_eq(ctr(&s, "core0.control.insns"), 8);
	sim_free(&s);
	sim_ok(&s, src, ov3, 3);
	for (k = 0; k < 3; k++) {
		ck_assert_uint_eq(reg(&s, k, X_A1), (uint64_t)k);
		ck_assert_uint_eq(reg(&s, k, X_A2), 3);
	}
	sim_free(&s);
}
END_TEST

/* ---- faults that end a run -------------------------------------------------*/

START_TEST(control_fault_illegal_word)
{
	expect_fault("\taddi t0, zero, 1\n\t.word 0\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x4 cycle 1:", "illegal instruction word 0x00000000");
	/* A reserved bit set in an otherwise valid add (mask 0xff0001ff). */
	expect_fault("\t.word 0x01000001\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x0 cycle 0:", "illegal instruction word 0x01000001");
}
END_TEST

START_TEST(control_fault_pc_off_end)
{
	/* No halt: pc runs past the last instruction. */
	expect_fault("\taddi t0, zero, 1\n\taddi t1, zero, 2\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x8 cycle 2:", "pc 0x8 is outside the program (2 instructions)");
	/* A jump far beyond the end. */
	expect_fault("\tli t0, 0x4000\n\tjr t0\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x4000", "is outside the program (3 instructions)");
	/* jalr to a misaligned address is aligned down (to 0x8 = halt). */
	{
		struct sim s;

		sim_ok(&s, "\tli t0, 0xb\n\tjr t0\n\thalt\n", NULL, 0);
		ck_assert_uint_eq(ctr(&s, "core0.control.insns"), 3);
		sim_free(&s);
	}
}
END_TEST

START_TEST(control_fault_watchdog)
{
	struct sim s;

	sim_build(&s, "top:\tj top\n", NULL, 0, 1000);
	ck_assert_int_eq(sim_go(&s), NPU_ETIMEOUT);
	ck_assert_ptr_nonnull(strstr(s.log, "cycle limit 1000 reached"));
	sim_free(&s);
	/*
	 * Scalar code runs ahead of the engine clock, but nothing issues
	 * after the limit, so the state is that of cycle 100.  One
	 * iteration every 5 cycles (addi, csrr, sd, j, one bubble of the
	 * taken penalty 2): addi at 0, 5, ..., 100 -> t0 = 21; the last
	 * csrr at 96; the last sd at 97 stored 20.
	 */
	sim_build(&s, "top:\taddi t0, t0, 1\n\tcsrr t1, cycle\n\tsd t0, 0(zero)\n\tj top\n",
		  NULL, 0, 100);
	ck_assert_int_eq(sim_go(&s), NPU_ETIMEOUT);
	ck_assert_uint_eq(reg(&s, 0, X_T0), 21);
	ck_assert_uint_eq(reg(&s, 0, X_T1), 96);
	ck_assert_uint_eq(smem64(&s, 0, 0), 20);
	sim_free(&s);
	/* Work in flight past the limit (a 64 KiB DMA and a fence). */
	sim_build(&s, "\tli t0, 65536\n\tdset n0, t0\n\tdma 0\n\tfence all\n\thalt\n",
		  NULL, 0, 200);
	ck_assert_int_eq(sim_go(&s), NPU_ETIMEOUT);
	ck_assert_ptr_nonnull(strstr(s.log, "cycle limit 200 reached"));
	sim_free(&s);
	/* Running off the end after the limit: the limit comes first. */
	sim_build(&s, "\tli t0, 60\nL:\tdbnz t0, L\n", NULL, 0, 100);
	ck_assert_int_eq(sim_go(&s), NPU_ETIMEOUT);
	ck_assert_ptr_null(strstr(s.log, "outside the program"));
	sim_free(&s);
	/* A deadlock under a watchdog is still a deadlock (no event left). */
	sim_build(&s, "\tli t0, 0\n\trsig t0, 1\n\twait ctl, 1, 2\n\thalt\n", NULL, 0, 50);
	ck_assert_int_eq(sim_go(&s), NPU_EDEADLOCK);
	ck_assert_ptr_nonnull(strstr(s.log, "waits for semaphore 1 >= 2 (value 1)"));
	sim_free(&s);
}
END_TEST

START_TEST(control_fault_bad_units)
{
	expect_fault("\tdma 2\n\thalt\n", NULL, 0, NPU_EFAULT, "core 0 pc 0x0 cycle 0:",
		     "DMA engine 2 does not exist (core.dma.engines = 2)");
	expect_fault("\tli t0, 7\n\tdmar t0\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x4 cycle 1:", "DMA engine 7 does not exist");
	expect_fault("\tsig dma5, 0\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x0 cycle 0:", "unit dma5 does not exist on this core");
	expect_fault("\twait dma2, 0, 1\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x0", "unit dma2 does not exist");
	expect_fault("\tmmul zero, zero, zero\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x0 cycle 0:",
		     "mmul names the resident tile (x0) but no mpre came before it");
}
END_TEST

START_TEST(control_fault_config_values)
{
	/* Configuration faults name the cycle the mset/vset issued at. */
	expect_fault("\tli t0, 3\n\tmset df, t0\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x4 cycle 1:", "mset df 3: dataflow must be 0 (ws), 1 (os) or 2 (is)");
	expect_fault("\tli t0, 9\n\tmset itype, t0\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x4 cycle 1:", "mset itype 9 is not a dtype id");
	expect_fault("\tli t0, int8\n\tmset atype, t0\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x4 cycle 1:", "the accumulator type must be int32");
	expect_fault("\tli t0, 0x100000000\n\tmset m, t0\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x8 cycle 2:", "mset m 4294967296 exceeds 32 bits");
	expect_fault("\tli t0, 0\n\tvset dmem, t0\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x4 cycle 1:", "vset dmem 0: vector operands live in spm (1) or acc (2)");
	expect_fault("\tli t0, 99\n\tvset otype, t0\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x4 cycle 1:", "vset otype 99 is not a dtype id");
}
END_TEST

/* ---- timing -----------------------------------------------------------------*/

START_TEST(control_timing_single_issue)
{
	/* csrr at index 0 reads 0; ten independent instructions later the
	 * next csrr reads 11: one issue per cycle, no bubbles. */
	struct sim s;

	sim_ok(&s, "\tcsrr a0, cycle\n"
	       "\taddi t0, zero, 1\n\taddi t1, zero, 1\n\taddi t2, zero, 1\n"
	       "\taddi t3, zero, 1\n\taddi t4, zero, 1\n\taddi t5, zero, 1\n"
	       "\taddi t6, zero, 1\n\taddi s2, zero, 1\n\taddi s3, zero, 1\n"
	       "\taddi s4, zero, 1\n"
	       "\tcsrr a1, cycle\n\thalt\n", NULL, 0);
	ck_assert_uint_eq(reg(&s, 0, X_A0), 0);
	ck_assert_uint_eq(reg(&s, 0, X_A1), 11);
	/* busy = the halt's cycle + 1; a scalar-only core finishes then. */
	ck_assert_uint_eq(ctr(&s, "core0.control.busy_cycles"), 13);
	ck_assert_uint_eq(ctr(&s, "core0.cycles"), 13);
	ck_assert_uint_eq(s.r.cycles, 13);
	ck_assert_uint_eq(ctr(&s, "core0.control.insns"), 13);
	/* scalar_insns counts the ALU/CSR/memory/branch instructions; the
	 * halt is only in insns. */
	ck_assert_uint_eq(ctr(&s, "core0.control.scalar_insns"), 12);
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_cycles"), 0);
	sim_free(&s);
}
END_TEST

/* Cycles between two csrr around 'body' with the given latency overrides. */
static uint64_t span(const char *body, const char *const *ov, int n_ov)
{
	struct sbuf b = { 0 };
	struct sim s;
	uint64_t d;

	/* Four nops let the operands become ready even with alu_latency 3. */
	sb_printf(&b, "\tli t1, 7\n\tli t2, 3\n\tnop\n\tnop\n\tnop\n\tnop\n"
		  "\tcsrr a0, cycle\n%s\tcsrr a1, cycle\n\thalt\n", body);
	sim_ok(&s, b.p, ov, n_ov);
	d = reg(&s, 0, X_A1) - reg(&s, 0, X_A0);
	sim_free(&s);
	free(b.p);
	return d;
}

START_TEST(control_timing_latencies)
{
	static const char *const ov[] = {
		"core.control.alu_latency=3", "core.control.mul_latency=7",
		"core.control.div_latency=20", "core.control.mem_latency=5",
		"core.control.branch_latency=4",
	};
	const int A = 3, M = 7, D = 20, L = 5, B = 4;

	/* A dependent consumer issues 'latency' cycles after the producer;
	 * the csrr after it one cycle later.  Span = 1 + lat + 1. */
	ck_assert_uint_eq(span("\tmul t0, t1, t2\n\tadd t3, t0, zero\n", ov, 5), (uint64_t)(2 + M));
	ck_assert_uint_eq(span("\tdiv t0, t1, t2\n\tadd t3, t0, zero\n", ov, 5), (uint64_t)(2 + D));
	ck_assert_uint_eq(span("\tremu t0, t1, t2\n\tadd t3, zero, t0\n", ov, 5), (uint64_t)(2 + D));
	ck_assert_uint_eq(span("\tld t0, 0(zero)\n\tadd t3, t0, zero\n", ov, 5), (uint64_t)(2 + L));
	ck_assert_uint_eq(span("\taddi t0, t1, 1\n\tadd t3, t0, zero\n", ov, 5), (uint64_t)(2 + A));
	/* A store waits for its data register, a branch for its operands. */
	ck_assert_uint_eq(span("\tmul t0, t1, t2\n\tsd t0, 0(zero)\n", ov, 5), (uint64_t)(2 + M));
	ck_assert_uint_eq(span("\tmul t0, t1, t2\n\tbne t0, zero, X\nX:\n", ov, 5),
			  (uint64_t)(1 + M + B));
	/* Independent instructions do not wait: span 3 for two issues. */
	ck_assert_uint_eq(span("\tdiv t0, t1, t2\n\taddi t3, zero, 1\n", ov, 5), 3);
	ck_assert_uint_eq(span("\tld t0, 0(zero)\n\tsd t1, 8(zero)\n", ov, 5), 3);
	/* A chain of 10 dependent ALU ops: 9 waits of A, then the csrr. */
	ck_assert_uint_eq(span("\taddi t0, t0, 1\n\taddi t0, t0, 1\n\taddi t0, t0, 1\n"
			       "\taddi t0, t0, 1\n\taddi t0, t0, 1\n\taddi t0, t0, 1\n"
			       "\taddi t0, t0, 1\n\taddi t0, t0, 1\n\taddi t0, t0, 1\n"
			       "\taddi t0, t0, 1\n", ov, 5), (uint64_t)(2 + 9 * A));
	/* Defaults (params.def): mul 3, div 16, mem 2, alu 1. */
	ck_assert_uint_eq(span("\tmul t0, t1, t2\n\tadd t3, t0, zero\n", NULL, 0), 5);
	ck_assert_uint_eq(span("\trem t0, t1, t2\n\tadd t3, t0, zero\n", NULL, 0), 18);
	ck_assert_uint_eq(span("\tlw t0, 0(zero)\n\tadd t3, t0, zero\n", NULL, 0), 4);
}
END_TEST

/*
 * control.exec.table: the control unit has a handler for exactly the ops
 * it executes by itself, the rows of units ctl and cfg (its dispatch
 * table is expanded from isa/opcodes.def; a row without a handler does
 * not even compile, so this checks the expansion's unit selection).
 */
START_TEST(control_exec_table)
{
	int i, n = 0;

	for (i = 0; i < ISA_N_OPS; i++) {
		const struct isa_op_info *o = &isa_op_info[i];
		int local = o->unit == ISA_UNIT_CTL || o->unit == ISA_UNIT_CFG;

		ck_assert_msg(ctl_executes((enum isa_op)i) == local,
			      "%s: unit %s, handler %d", o->name,
			      isa_unit_names[o->unit], ctl_executes((enum isa_op)i));
		n += local;
	}
	ck_assert_int_gt(n, 0);
	ck_assert(!ctl_executes(ISA_N_OPS));
}
END_TEST

/*
 * control.timing.latency_classes: every op of the table that writes rd
 * (jumps aside: their next issue waits for the redirect) delays a
 * dependent add by exactly the latency of its class, with each class set
 * to a different latency.  The operands come from the op's format, so a
 * new row is timed without touching this file.
 */
START_TEST(control_timing_latency_classes)
{
	static const char *const ov[] = {
		"core.control.alu_latency=3", "core.control.mul_latency=7",
		"core.control.div_latency=20", "core.control.mem_latency=5",
	};
	int i, n = 0;

	for (i = 0; i < ISA_N_OPS; i++) {
		const struct isa_op_info *o = &isa_op_info[i];
		const char *opnds;
		uint64_t lat;
		char body[96];

		if (o->unit != ISA_UNIT_CTL || !(o->flags & ISA_WR_RD) ||
		    (o->flags & ISA_JUMP))
			continue;
		switch (o->fmt) {
		case ISA_FMT_R3: opnds = "t0, t1, t2"; break;
		case ISA_FMT_I: case ISA_FMT_ISH: opnds = "t0, t1, 1"; break;
		case ISA_FMT_U: opnds = "t0, 1"; break;
		case ISA_FMT_CSR: opnds = "t0, coreid"; break;
		case ISA_FMT_LD: opnds = "t0, 0(zero)"; break;
		default:
			ck_abort_msg("%s: format %s has no operands here; add them",
				     o->name, isa_fmt_info[o->fmt].id);
			return;
		}
		switch (o->lat) {
		case ISA_LAT_ALU: lat = 3; break;
		case ISA_LAT_MUL: lat = 7; break;
		case ISA_LAT_DIV: lat = 20; break;
		case ISA_LAT_MEM: lat = 5; break;
		default:
			ck_abort_msg("%s writes rd with latency class %s", o->name,
				     isa_lat_names[o->lat]);
			return;
		}
		snprintf(body, sizeof(body), "\t%s %s\n\tadd t3, t0, zero\n",
			 o->name, opnds);
		/* Span = the producer's issue + lat + the add's issue slot. */
		ck_assert_msg(span(body, ov, 4) == 2 + lat, "%s: span %" PRIu64
			      ", want %" PRIu64, o->name, span(body, ov, 4), 2 + lat);
		n++;
	}
	ck_assert_int_gt(n, 30);
}
END_TEST

START_TEST(control_timing_branches)
{
	static const char *const ov[] = { "core.control.branch_latency=5" };
	const uint64_t B = 5;
	struct sim s;

	/* Taken: the next issue is branch_latency after the branch. */
	ck_assert_uint_eq(span("\tbeq zero, zero, X\nX:\n", ov, 1), 1 + B);
	ck_assert_uint_eq(span("\tj X\nX:\n", ov, 1), 1 + B);
	ck_assert_uint_eq(span("\tjal ra, X\nX:\n", ov, 1), 1 + B);
	/* Not taken: one issue slot. */
	ck_assert_uint_eq(span("\tbne zero, zero, X\nX:\n", ov, 1), 2);
	ck_assert_uint_eq(span("\tblt t1, t2, X\nX:\n", ov, 1), 2);
	/*
	 * dbnz loop of N iterations: each taken iteration costs addi + dbnz
	 * + (B - 1) bubbles = 1 + B cycles; the last falls through in 2.
	 */
	sim_ok(&s, "\tli t0, 10\n\tcsrr a0, cycle\nL:\taddi t1, t1, 1\n\tdbnz t0, L\n"
	       "\tcsrr a1, cycle\n\thalt\n", ov, 1);
	ck_assert_uint_eq(reg(&s, 0, X_A1) - reg(&s, 0, X_A0), 1 + 9 * (1 + B) + 2);
	ck_assert_uint_eq(ctr(&s, "core0.control.branches"), 10);
	ck_assert_uint_eq(ctr(&s, "core0.control.branches_taken"), 9);
	sim_free(&s);
}
END_TEST

START_TEST(control_timing_long_loop)
{
	/*
	 * 3000 iterations (9000+ instructions: the control unit runs scalar
	 * code in batches between events) obey the same per-iteration cost
	 * as a short loop: addi, sw, dbnz, taken penalty B - 1.
	 */
	static const char *const ov[] = { "core.control.branch_latency=3" };
	const uint64_t B = 3, n = 3000;
	struct sim s;

	sim_ok(&s, "\tli t0, 3000\n\tcsrr a0, cycle\n"
	       "L:\taddi t1, t1, 1\n\tsw t1, 0(zero)\n\tdbnz t0, L\n"
	       "\tcsrr a1, cycle\n\thalt\n", ov, 1);
	ck_assert_uint_eq(reg(&s, 0, X_A1) - reg(&s, 0, X_A0),
			  1 + (n - 1) * (2 + B) + 3);
	ck_assert_uint_eq(reg(&s, 0, X_T1), n);
	ck_assert_uint_eq(smem64(&s, 0, 0), n);
	ck_assert_uint_eq(ctr(&s, "core0.control.insns"), 3 * n + 4);
	ck_assert_uint_eq(ctr(&s, "core0.control.branches_taken"), n - 1);
	ck_assert_uint_eq(s.r.cycles, reg(&s, 0, X_A1) + 2);
	sim_free(&s);
}
END_TEST

START_TEST(control_timing_dispatch_latency)
{
	/*
	 * sig mtx at cycle 1 becomes visible to the (idle) matrix engine at
	 * 1 + D and fires then; wait ctl at cycle 2 stalls until 1 + D and
	 * issues then; the csrr after it reads 2 + D.  Stall: D - 1 cycles.
	 */
	static const char *const ov[] = { "core.control.dispatch_latency=10" };
	const uint64_t D = 10;
	struct sim s;

	sim_ok(&s, "\tcsrr a0, cycle\n\tsig mtx, 0\n\twait ctl, 0, 1\n\tcsrr a1, cycle\n\thalt\n",
	       ov, 1);
	ck_assert_uint_eq(reg(&s, 0, X_A0), 0);
	ck_assert_uint_eq(reg(&s, 0, X_A1), 2 + D);
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_sem_wait_cycles"), D - 1);
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_cycles"), D - 1);
	/* The halt at 3 + D ends the run: busy = 4 + D. */
	ck_assert_uint_eq(ctr(&s, "core0.control.busy_cycles"), 4 + D);
	ck_assert_uint_eq(s.r.cycles, 4 + D);
	sim_free(&s);
	/* Default dispatch latency is 1: no stall at all. */
	sim_ok(&s, "\tcsrr a0, cycle\n\tsig mtx, 0\n\twait ctl, 0, 1\n\tcsrr a1, cycle\n\thalt\n",
	       NULL, 0);
	ck_assert_uint_eq(reg(&s, 0, X_A1), 3);
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_sem_wait_cycles"), 0);
	sim_free(&s);
}
END_TEST

START_TEST(control_timing_queue_full_exact)
{
	/*
	 * queue_depth 1: sig mtx,0 (cycle 1) occupies the queue until it
	 * fires at 1 + D; sig mtx,1 at cycle 2 finds it full and stalls
	 * D - 1 cycles, then queues at 1 + D; csrr reads 2 + D.
	 */
	static const char *const ov[] = { "core.control.dispatch_latency=10",
					  "core.control.queue_depth=1" };
	const uint64_t D = 10;
	struct sim s;

	sim_ok(&s, "\tcsrr a0, cycle\n\tsig mtx, 0\n\tsig mtx, 1\n\tcsrr a1, cycle\n"
	       "\twait ctl, 0, 1\n\twait ctl, 1, 1\n\thalt\n", ov, 2);
	ck_assert_uint_eq(reg(&s, 0, X_A1), 2 + D);
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_queue_full_cycles"), D - 1);
	/* wait ctl,1 at 4 + D stalls until sig 1 fires at (1 + D) + D. */
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_sem_wait_cycles"),
			  (1 + 2 * D) - (4 + D));
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_cycles"),
			  D - 1 + (1 + 2 * D) - (4 + D));
	sim_free(&s);
}
END_TEST

/* Matrix configuration for small int8 WS tiles (4 x 4 x 4). */
#define MTX_SETUP                                                        \
	"\tli t0, ws\n\tmset df, t0\n\tli t0, int8\n\tmset itype, t0\n"  \
	"\tli t0, int32\n\tmset atype, t0\n\tli t0, 4\n\tmset m, t0\n"   \
	"\tmset k, t0\n\tmset n, t0\n"

START_TEST(control_timing_queue_full_mmuls)
{
	/*
	 * queue_depth 1 and eight mmuls: the control unit runs ahead of the
	 * array and stalls on the full queue.  Whatever the matrix timing,
	 * the cycles between the two csrr are the nine issue slots between
	 * them plus exactly the counted stall cycles.
	 */
	static const char *const ov[] = { "core.control.queue_depth=1" };
	struct sim s;
	uint64_t spanc, stall;

	sim_ok(&s, MTX_SETUP
	       "\tli t1, 64\n\tmpre t1\n"
	       "\tcsrr a0, cycle\n"
	       "\tmmul zero, zero, zero\n\tmmul zero, zero, zero\n"
	       "\tmmul zero, zero, zero\n\tmmul zero, zero, zero\n"
	       "\tmmul zero, zero, zero\n\tmmul zero, zero, zero\n"
	       "\tmmul zero, zero, zero\n\tmmul zero, zero, zero\n"
	       "\tcsrr a1, cycle\n\tfence all\n\thalt\n", ov, 1);
	spanc = reg(&s, 0, X_A1) - reg(&s, 0, X_A0);
	stall = ctr(&s, "core0.control.stall_queue_full_cycles");
	ck_assert_uint_gt(stall, 0);
	ck_assert_uint_eq(spanc, 9 + stall);
	ck_assert_uint_eq(ctr(&s, "core0.control.dispatched"), 9);
	ck_assert_uint_eq(ctr(&s, "core0.matrix.insns"), 9);
	/* The deeper default queue takes all eight without stalling. */
	sim_free(&s);
	sim_ok(&s, MTX_SETUP
	       "\tli t1, 64\n\tmpre t1\n"
	       "\tcsrr a0, cycle\n"
	       "\tmmul zero, zero, zero\n\tmmul zero, zero, zero\n"
	       "\tmmul zero, zero, zero\n\tmmul zero, zero, zero\n"
	       "\tcsrr a1, cycle\n\tfence all\n\thalt\n", NULL, 0);
	ck_assert_uint_eq(reg(&s, 0, X_A1) - reg(&s, 0, X_A0), 5);
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_queue_full_cycles"), 0);
	sim_free(&s);
}
END_TEST

/*
 * mmulp/moutp/mprep: a loop of two instructions per tile walks four OS
 * tiles and their outputs; the registers end one step past the last tile,
 * a retried dispatch (queue depth 1) increments once, and x0 (the WS
 * resident tile) is never written.  The tiles hold (i+1) and (2i+1) in
 * every byte, so C tile i is 8 (i+1)(2i+1) everywhere (int8: saturated).
 */
#define PI_PROG(inner)                                                   \
	"\tli t0, os\n\tmset df, t0\n\tli t0, int8\n\tmset itype, t0\n"  \
	"\tmset otype, t0\n\tli t0, int32\n\tmset atype, t0\n"           \
	"\tli t0, 8\n\tmset m, t0\n\tmset k, t0\n\tmset n, t0\n"         \
	"\tli t0, int8\n\tvset type, t0\n\tli t0, 64\n\tvset len, t0\n"  \
	"\tli t1, 0\n\tli t2, 0x1000\n\tli t6, 1\n\tli s3, 1\n"          \
	"\tli s2, 4\nfill:\n\tvbcast t1, t6\n\tvbcast t2, s3\n"          \
	"\taddi t1, t1, 64\n\taddi t2, t2, 64\n\taddi t6, t6, 1\n"       \
	"\taddi s3, s3, 2\n\tdbnz s2, fill\n\tsig vec, 0\n\twait mtx, 0, 1\n" \
	"\tli t0, 64\n\tmset ia, t0\n\tmset ib, t0\n\tmset io, t0\n"     \
	"\tli t0, 256\n\tmset ic, t0\n"                                  \
	"\tli t3, 0\n\tli t5, 0x1000\n\tli t4, 0\n\tli s2, 4\n"          \
	inner                                                            \
	"\tfence all\n\thalt\n"

START_TEST(control_matrix_post_increment)
{
	static const char *const ov[] = { "core.control.queue_depth=1" };
	static const char *const pinc = PI_PROG(
		"l1:\n\tmmulp t4, t3, t5\n\tdbnz s2, l1\n"
		"\tli t4, 0\n\tli t3, 0x2000\n\tli s2, 4\n"
		"l2:\n\tmoutp t3, t4\n\tdbnz s2, l2\n");
	static const char *const plain = PI_PROG(
		"l1:\n\tmmul t4, t3, t5\n\taddi t4, t4, 256\n\taddi t3, t3, 64\n"
		"\taddi t5, t5, 64\n\tdbnz s2, l1\n"
		"\tli t4, 0\n\tli t3, 0x2000\n\tli s2, 4\n"
		"l2:\n\tmout t3, t4\n\taddi t3, t3, 64\n\taddi t4, t4, 256\n"
		"\tdbnz s2, l2\n");
	static const int want[4] = { 8, 48, 120, 127 };
	int run, i, j;

	for (run = 0; run < 3; run++) {
		struct sim s;
		uint64_t size = 0;
		const uint8_t *spm;

		sim_ok(&s, run == 1 ? plain : pinc, run == 2 ? ov : NULL,
		       run == 2);
		spm = chip_mem(s.c, MEM_SPM, 0, &size);
		ck_assert_ptr_nonnull(spm);
		for (i = 0; i < 4; i++)
			for (j = 0; j < 64; j++)
				ck_assert_msg((int8_t)spm[0x2000 + 64 * i + j] == want[i],
					      "run %d tile %d byte %d: %d", run, i, j,
					      (int8_t)spm[0x2000 + 64 * i + j]);
		ck_assert_uint_eq(reg(&s, 0, X_T3), 0x2000 + 4 * 64);
		ck_assert_uint_eq(reg(&s, 0, X_T4), 4 * 256);
		ck_assert_uint_eq(reg(&s, 0, X_T5), 0x1000 + 4 * 64);
		ck_assert_uint_eq(ctr(&s, "core0.matrix.insns"), 8);
		sim_free(&s);
	}
	/* WS: mprep steps rs1 by ib; mmulp's x0 stays the resident tile */
	{
		struct sim s;

		sim_ok(&s, MTX_SETUP
		       "\tli t0, 16\n\tmset ib, t0\n\tmset ia, t0\n\tli t0, 64\n"
		       "\tmset ic, t0\n\tli t1, 64\n\tli t2, 512\n\tli t3, 0\n"
		       "\tmprep t1\n\tmmulp t3, t2, zero\n\tmprep t1\n"
		       "\tmmaccp t3, t2, zero\n\tfence all\n\thalt\n", NULL, 0);
		ck_assert_uint_eq(reg(&s, 0, X_T1), 64 + 2 * 16);
		ck_assert_uint_eq(reg(&s, 0, X_T2), 512 + 2 * 16);
		ck_assert_uint_eq(reg(&s, 0, X_T3), 2 * 64);
		ck_assert_uint_eq(reg(&s, 0, 0), 0);
		sim_free(&s);
	}
}
END_TEST

START_TEST(control_timing_fence)
{
	/*
	 * fence mtx right after sig mtx (cycle 1, visible at 1 + D): the
	 * queue drains at 1 + D, the fence completes then and the next
	 * instruction issues at 2 + D.  Stall: D - 1.
	 */
	static const char *const ov[] = { "core.control.dispatch_latency=10" };
	const uint64_t D = 10;
	struct sim s;

	sim_ok(&s, "\tcsrr a0, cycle\n\tsig mtx, 0\n\tfence mtx\n\tcsrr a1, cycle\n"
	       "\tfence all\n\tcsrr a2, cycle\n\thalt\n", ov, 1);
	ck_assert_uint_eq(reg(&s, 0, X_A1), 2 + D);
	/* Nothing queued any more: the second fence costs one slot. */
	ck_assert_uint_eq(reg(&s, 0, X_A2), 4 + D);
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_fence_cycles"), D - 1);
	ck_assert_uint_eq(ctr(&s, "core0.control.insns"), 7);
	sim_free(&s);
}
END_TEST

START_TEST(control_timing_busy_vs_finish)
{
	/* busy_cycles ends at the halt; the core finishes when its DMA has
	 * drained, later. */
	struct sim s;

	sim_ok(&s, "\tli t0, 4096\n\tdset n0, t0\n\tdma 0\n\thalt\n", NULL, 0);
	ck_assert_uint_eq(ctr(&s, "core0.control.busy_cycles"), 4);
	ck_assert_uint_gt(ctr(&s, "core0.cycles"), 100);
	ck_assert_uint_eq(s.r.cycles, ctr(&s, "core0.cycles"));
	ck_assert_uint_eq(ctr(&s, "core0.dma0.bytes_dram_to_sram"), 4096);
	ck_assert_uint_eq(ctr(&s, "core0.dma0.transfers"), 1);
	sim_free(&s);
}
END_TEST

/* ---- synchronisation ---------------------------------------------------------*/

START_TEST(control_sync_counting_semaphore)
{
	/* Three sigs, one wait for 3: passes at once; the semaphore is then
	 * 0 again, so another wait deadlocks and says so. */
	struct sim s;

	sim_ok(&s, "\tsig ctl, 5\n\tsig ctl, 5\n\tsig ctl, 5\n\twait ctl, 5, 3\n"
	       "\tcsrr a0, cycle\n\thalt\n", NULL, 0);
	ck_assert_uint_eq(reg(&s, 0, X_A0), 4);
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_sem_wait_cycles"), 0);
	sim_free(&s);
	sim_build(&s, "\tsig ctl, 5\n\tsig ctl, 5\n\tsig ctl, 5\n\twait ctl, 5, 2\n"
		  "\twait ctl, 5, 1\n\twait ctl, 5, 1\n\thalt\n", NULL, 0, 0);
	ck_assert_int_eq(sim_go(&s), NPU_EDEADLOCK);
	ck_assert_ptr_nonnull(strstr(s.log, "core0.control: control unit at pc 0x14 (t.s:6) waits for semaphore 5 >= 1 (value 0), and no sig for it is queued on core 0"));
	sim_free(&s);
	/* Three sigs from a unit: wait 3 passes when the third fires. */
	{
		static const char *const ov[] = { "core.control.dispatch_latency=10" };

		sim_ok(&s, "\tsig mtx, 0\n\tsig mtx, 0\n\tsig mtx, 0\n\twait ctl, 0, 3\n"
		       "\tcsrr a0, cycle\n\thalt\n", ov, 1);
		/* The third sig queued at 2 fires at 12; wait (3) issues at 12. */
		ck_assert_uint_eq(reg(&s, 0, X_A0), 13);
		ck_assert_uint_eq(ctr(&s, "core0.control.stall_sem_wait_cycles"), 9);
		sim_free(&s);
	}
}
END_TEST

START_TEST(control_sync_wait_blocks_own_unit_only)
{
	/*
	 * wait mtx,7 blocks the matrix queue; sig vec,2 (queued behind
	 * nothing) still fires at its dispatch latency, and wait ctl,2
	 * passes.  Only when the control unit signals 7 does the matrix
	 * queue move and its sig 1 fire, in the same cycle.
	 */
	static const char *const ov[] = { "core.control.dispatch_latency=10" };
	const uint64_t D = 10;
	struct sim s;

	sim_ok(&s,
	       "\twait mtx, 7, 1\n"	/* 0 */
	       "\tsig mtx, 1\n"		/* 1: stuck behind the wait */
	       "\tsig vec, 2\n"		/* 2: fires at 2 + D */
	       "\twait ctl, 2, 1\n"	/* 3: stalls to 2 + D */
	       "\tcsrr a0, cycle\n"	/* 3 + D */
	       "\tsig ctl, 7\n"		/* 4 + D: mtx wait passes, sig 1 fires */
	       "\twait ctl, 1, 1\n"	/* 5 + D: no stall */
	       "\tcsrr a1, cycle\n"	/* 6 + D */
	       "\thalt\n", ov, 1);
	ck_assert_uint_eq(reg(&s, 0, X_A0), 3 + D);
	ck_assert_uint_eq(reg(&s, 0, X_A1), 6 + D);
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_sem_wait_cycles"), D - 1);
	sim_free(&s);
}
END_TEST

START_TEST(control_sync_fence_mask)
{
	/*
	 * A 64 KiB DMA on engine 0: fence mtx passes at once (the matrix
	 * engine is idle), fence dma0 waits for the transfer.
	 */
	struct sim s;
	uint64_t a1, a2, a3;

	sim_ok(&s,
	       "\tli t0, 65536\n\tdset n0, t0\n"	/* 0, 1 (li is lui) */
	       "\tdma 0\n"
	       "\tcsrr a0, cycle\n"
	       "\tfence mtx|vec|dma1\n"
	       "\tcsrr a1, cycle\n"
	       "\tfence dma0\n"
	       "\tcsrr a2, cycle\n"
	       "\tfence all\n"
	       "\tcsrr a3, cycle\n"
	       "\thalt\n", NULL, 0);
	a1 = reg(&s, 0, X_A1);
	a2 = reg(&s, 0, X_A2);
	a3 = reg(&s, 0, X_A3);
	ck_assert_uint_eq(a1, reg(&s, 0, X_A0) + 2);
	ck_assert_uint_gt(a2, a1 + 1000); /* 64 KiB at <= 64 B/cycle */
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_fence_cycles"), a2 - a1 - 2);
	ck_assert_uint_eq(a3, a2 + 2);
	/* The DMA finished before the csrr after the fence read the clock. */
	ck_assert_uint_le(ctr(&s, "core0.dma0.busy_cycles"), a2);
	sim_free(&s);
}
END_TEST

START_TEST(control_sync_fence_high_unit_ids)
{
	/*
	 * Fence bit 23 stands for every unit id >= 23 (dma20 and up): with
	 * 24 engines a transfer on dma21 (id 24) is waited for by
	 * `fence 0x800000`, not by `fence dma19` (bit 22).
	 */
	static const char *const ov[] = { "core.dma.engines=24" };
	struct sim s;

	sim_ok(&s,
	       "\tli t0, 16384\n\tdset n0, t0\n"
	       "\tdma 21\n"
	       "\tcsrr a0, cycle\n"
	       "\tfence dma19|dma0\n"
	       "\tcsrr a1, cycle\n"
	       "\tfence 0x800000\n"
	       "\tcsrr a2, cycle\n"
	       "\thalt\n", ov, 1);
	ck_assert_uint_eq(reg(&s, 0, X_A1), reg(&s, 0, X_A0) + 2);
	ck_assert_uint_gt(reg(&s, 0, X_A2), reg(&s, 0, X_A1) + 1000);
	ck_assert_uint_eq(ctr(&s, "core0.control.stall_fence_cycles"),
			  reg(&s, 0, X_A2) - reg(&s, 0, X_A1) - 2);
	ck_assert_uint_eq(ctr(&s, "core0.dma21.bytes_dram_to_sram"), 16384);
	sim_free(&s);
}
END_TEST

START_TEST(control_sync_wait_blocks_later_commands)
{
	/*
	 * A wait at the head of dma0's queue holds back the copy behind it;
	 * dma1's copy runs meanwhile (the fence on dma1 passes), and dma0's
	 * copy only starts once the control unit signals: all of its busy
	 * cycles lie after that.
	 */
	struct sim s;
	uint64_t a0, a1;

	sim_ok(&s,
	       "\tli t0, 4096\n\tdset n0, t0\n"
	       "\twait dma0, 7, 1\n"
	       "\tdma 0\n"
	       "\tli t0, 0x10000\n\tdset dst, t0\n"
	       "\tdma 1\n"
	       "\tfence dma1\n"
	       "\tcsrr a0, cycle\n"
	       "\tsig ctl, 7\n"
	       "\tfence dma0\n"
	       "\tcsrr a1, cycle\n"
	       "\thalt\n", NULL, 0);
	a0 = reg(&s, 0, X_A0);
	a1 = reg(&s, 0, X_A1);
	/* 4 KiB through one LPDDR5 channel takes well over 100 cycles. */
	ck_assert_uint_gt(a0, 100);
	ck_assert_uint_gt(ctr(&s, "core0.dma0.busy_cycles"), 100);
	ck_assert_uint_le(ctr(&s, "core0.dma0.busy_cycles"), a1 - a0);
	ck_assert_uint_eq(ctr(&s, "core0.dma0.transfers"), 1);
	ck_assert_uint_eq(ctr(&s, "core0.dma1.transfers"), 1);
	sim_free(&s);
}
END_TEST

static const char *const ov_4c[] = { "chip.cores=4", "noc.cols=4", "noc.rows=2" };
static const char *const ov_2c[] = { "chip.cores=2", "noc.cols=3", "noc.rows=1" };

/* Each core spins coreid * 37 + 1 loop iterations, then meets the others. */
static const char barrier_src[] =
	"\tcsrr s0, coreid\n"
	"\tcsrr s1, ncores\n"
	"\tli t1, 37\n"
	"\tmul t0, s0, t1\n"
	"\taddi t0, t0, 1\n"
	"L:\tdbnz t0, L\n"
	"\tcsrr a0, cycle\n"		/* the barrier issues one cycle later */
	"\tbarrier\n"
	"\tcsrr a1, cycle\n"
	"\tbarrier\n"			/* everyone is there already... */
	"\tcsrr a2, cycle\n"
	"\tsd s0, 0(zero)\n"
	"\tsd s1, 8(zero)\n"
	"\thalt\n";

/*
 * Barriers travel as one-flit packets (sim/chip.c): each arrival to core
 * 0's node, the releases back from it.  At zero load core 0 is released
 * when the last arrival packet lands, rel = max(a_0, a_j + T(j -> 0)),
 * and resumes at rel + 1; core k resumes at rel + T(0 -> k) + 1 + (k - 1),
 * T being the zero-load latency of one flit (noc_zero_load) and k - 1 the
 * cycles its release waits behind the earlier ones in core 0's NI.  'at' holds each
 * core's arrival cycle, 'out' receives its resume cycle.
 */
static void barrier_expect(struct sim *s, int n, const uint64_t *at,
			   uint64_t *out)
{
	struct noc_params p;
	uint64_t rel = at[0];
	int k;

	noc_params_from_arch(&s->a, &p);
	for (k = 1; k < n; k++) {
		uint64_t t = at[k] + noc_zero_load(&p, noc_hops(&p, s->a.d.core_node[k],
								   s->a.d.core_node[0]), 1);
		if (t > rel)
			rel = t;
	}
	out[0] = rel + 1;
	for (k = 1; k < n; k++)
		out[k] = rel + 1 + (uint64_t)(k - 1) +
			 noc_zero_load(&p, noc_hops(&p, s->a.d.core_node[0],
						    s->a.d.core_node[k]), 1);
}

static void check_barrier(const char *const *ov, int n_ov, int n, int exact)
{
	struct sim s;
	uint64_t at[8], res[8], at2[8], res2[8];
	int k;
	char name[64];

	sim_ok(&s, barrier_src, ov, n_ov);
	for (k = 0; k < n; k++) {
		at[k] = reg(&s, k, X_A0) + 1;  /* barrier arrival */
		at2[k] = reg(&s, k, X_A1) + 1; /* second barrier's */
	}
	barrier_expect(&s, n, at, res);
	barrier_expect(&s, n, at2, res2);
	/* exact with two cores; with more, releases that share links may
	 * also wait for a VC (at most a few cycles each) */
	for (k = 0; k < n; k++) {
		uint64_t slack = exact ? 0 : 2 * (uint64_t)n;

		ck_assert_msg(reg(&s, k, X_A1) >= res[k] &&
			      reg(&s, k, X_A1) <= res[k] + slack,
			      "core %d resumed at %" PRIu64 ", want %" PRIu64,
			      k, reg(&s, k, X_A1), res[k]);
		ck_assert_msg(reg(&s, k, X_A2) >= res2[k] &&
			      reg(&s, k, X_A2) <= res2[k] + slack,
			      "core %d resumed from the second at %" PRIu64 ", want %" PRIu64,
			      k, reg(&s, k, X_A2), res2[k]);
		snprintf(name, sizeof(name), "core%d.control.stall_barrier_cycles", k);
		ck_assert_uint_eq(ctr(&s, name), (reg(&s, k, X_A1) - 1 - at[k]) +
				  (reg(&s, k, X_A2) - 1 - at2[k]));
		ck_assert_uint_eq(smem64(&s, k, 0), (uint64_t)k);
		ck_assert_uint_eq(smem64(&s, k, 8), (uint64_t)n);
	}
	/* Core 0 arrived first. */
	ck_assert_uint_lt(reg(&s, 0, X_A0), reg(&s, n - 1, X_A0));
	sim_free(&s);
}

START_TEST(control_sync_barrier_2_and_4)
{
	check_barrier(ov_2c, 3, 2, 1);
	check_barrier(ov_4c, 3, 4, 0);
	/* One core: the barrier costs one slot. */
	{
		struct sim s;

		sim_ok(&s, barrier_src, NULL, 0);
		ck_assert_uint_eq(reg(&s, 0, X_A1), reg(&s, 0, X_A0) + 2);
		ck_assert_uint_eq(ctr(&s, "core0.control.stall_barrier_cycles"), 0);
		sim_free(&s);
	}
}
END_TEST

START_TEST(control_sync_barrier_trace_span)
{
	/*
	 * The trace shows each waiting core's barrier stall as a span from
	 * its arrival to the release, naming the barrier's own pc (the
	 * control unit has already moved past it), then the barrier's
	 * instruction slice, and an instant on every core at each release.
	 */
	char dir[] = "/tmp/npu_ctl_XXXXXX", path[64], buf[65536], want[96];
	struct sim s;
	struct chip_opts o;
	struct trc *t;
	gzFile gz;
	int n;
	uint64_t pc_barrier = 0;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.json.gz", dir);
	memset(&s, 0, sizeof(s));
	s.fp = open_memstream(&s.log, &s.log_len);
	diag_init(&s.d, s.fp);
	ck_assert_int_eq(arch_load(&s.a, NULL, ov_2c, 3, &s.d), 0);
	ck_assert_int_eq(asm_assemble_string("t.s", barrier_src, strlen(barrier_src),
					     NULL, &s.d, &s.p), 0);
	t = trc_open(path, 1.0, &s.d);
	ck_assert_ptr_nonnull(t);
	memset(&o, 0, sizeof(o));
	o.max_cycles = CYCLE_MAX;
	o.trace = t;
	s.c = chip_new(&s.a, &o, &s.d);
	ck_assert_ptr_nonnull(s.c);
	ck_assert_int_eq(chip_load_program(s.c, sim_img(&s), &s.d), 0);
	ck_assert_int_eq(sim_go(&s), 0);
	ck_assert_int_eq(trc_close(t, &s.d), 0);
	for (i = 0; i < s.p->n_code; i++)
		if (s.p->code[i] >> 24 == 0x53 && !pc_barrier) /* barrier */
			pc_barrier = 4 * i;
	gz = gzopen(path, "rb");
	ck_assert_ptr_nonnull(gz);
	n = gzread(gz, buf, sizeof(buf) - 1);
	gzclose(gz);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	/* Core 0 arrives first and waits for core 1 at the first barrier
	 * (the second costs it a round trip too: see check_barrier). */
	snprintf(want, sizeof(want), "\"name\":\"stall: barrier\",\"args\":{\"cycle\":%" PRIu64
		 ",\"cycles\":%" PRIu64 ",\"pc\":\"0x%" PRIx64 "\"}",
		 reg(&s, 0, X_A0) + 1, reg(&s, 0, X_A1) - 1 - (reg(&s, 0, X_A0) + 1),
		 pc_barrier);
	ck_assert_msg(strstr(buf, want) != NULL, "no %s in the trace", want);
	/* every core now waits at both barriers: at least the round trip */
	ck_assert_int_eq(count_spans(buf, "\"name\":\"stall: barrier\""), 4);
	/* Each barrier instruction is a one-cycle slice when it completes:
	 * core 0's first right after its stall, at the release. */
	ck_assert_int_eq(count_spans(buf, "\"name\":\"barrier\",\"args\""), 4);
	snprintf(want, sizeof(want), "\"name\":\"barrier\",\"args\":{\"cycle\":%" PRIu64
		 ",\"cycles\":1,\"pc\":\"0x%" PRIx64 "\",\"src\":\"t.s:8\"",
		 reg(&s, 0, X_A1) - 1, pc_barrier);
	ck_assert_msg(strstr(buf, want) != NULL, "no %s in the trace", want);
	/* Two barriers, each released on both cores: four instants. */
	ck_assert_int_eq(count_spans(buf, "\"name\":\"barrier release\""), 4);
	unlink(path);
	rmdir(dir);
	sim_free(&s);
}
END_TEST

START_TEST(control_sync_barrier_deadlock)
{
	/* Core 1 halts without meeting core 0 at the barrier. */
	struct sim s;

	sim_build(&s, "\tcsrr t0, coreid\n\tbnez t0, out\n\tbarrier\nout:\thalt\n",
		  ov_2c, 3, 0);
	ck_assert_int_eq(sim_go(&s), NPU_EDEADLOCK);
	ck_assert_ptr_nonnull(strstr(s.log, "core0.control: control unit at pc 0x8 (t.s:3) waits in a barrier for the other cores"));
	ck_assert_ptr_null(strstr(s.log, "core1.control"));
	sim_free(&s);
}
END_TEST

/*
 * rsig from core 0 to core 1: delivered at the zero-load latency of a
 * one-flit NoC packet (sim/noc/noc.h: 1 + (hops + 1) x router + hops x
 * link + 1, router = the sum of the four stage delays) after it issues.  Core 1 waits from cycle 0, so
 * its wait issues at delivery and its csrr reads delivery + 1.
 */
static const char rsig_src[] =
	"\tcsrr s0, coreid\n"		/* 0 */
	"\tbnez s0, recv\n"		/* 1 */
	"\tli t0, 1\n"			/* 2 */
	"\tcsrr a0, cycle\n"		/* 3 */
	"\trsig t0, 4\n"			/* 4 */
	"\thalt\n"
	"recv:\twait ctl, 4, 1\n"
	"\tcsrr a1, cycle\n"
	"\thalt\n";

static void check_rsig(const char *const *ov, int n_ov, uint64_t hops,
		       uint64_t router, uint64_t link)
{
	struct sim s;
	uint64_t lat = 1 + (hops + 1) * router + hops * link + 1;

	sim_ok(&s, rsig_src, ov, n_ov);
	ck_assert_uint_eq(reg(&s, 0, X_A0), 3);
	ck_assert_msg(reg(&s, 1, X_A1) == 3 + 1 + lat + 1,
		      "delivery: csrr read %" PRIu64 ", want %" PRIu64,
		      reg(&s, 1, X_A1), 3 + 1 + lat + 1);
	sim_free(&s);
}

START_TEST(control_sync_rsig_latency)
{
	/* Mesh 4 x 2, core 1 at node 7 = (3, 1): 4 hops. */
	static const char *const mesh[] = {
		"chip.cores=2", "noc.cols=4", "noc.rows=2", "noc.core_nodes=[0,7]",
		"noc.dram_nodes=[1]", "noc.routing_delay=0", "noc.link_latency=2",
	};
	/* Torus 4 x 3: the x distance 3 wraps to 1: 2 hops. */
	static const char *const torus[] = {
		"chip.cores=2", "noc.cols=4", "noc.rows=3", "noc.core_nodes=[0,7]",
		"noc.dram_nodes=[1]", "noc.routing_delay=0", "noc.link_latency=2",
		"noc.topology=torus",
	};
	/* Neighbours with the default NoC timing (four 1-cycle stages, link 1). */
	static const char *const near[] = { "chip.cores=2", "noc.cols=3", "noc.rows=1" };

	check_rsig(mesh, 7, 4, 3, 2);
	check_rsig(torus, 8, 2, 3, 2);
	check_rsig(near, 3, 1, 4, 1);
}
END_TEST

START_TEST(control_sync_rsig_self_and_bad_core)
{
	struct sim s;

	/* A core may signal itself: one cycle, without the network. */
	sim_ok(&s, "\tcsrr t0, coreid\n\trsig t0, 2\n\twait ctl, 2, 1\n\tcsrr a0, cycle\n\thalt\n",
	       NULL, 0);
	/* rsig at 1 arrives at 2; the wait at 2 passes, csrr at 3. */
	ck_assert_uint_eq(reg(&s, 0, X_A0), 3);
	sim_free(&s);
	expect_fault("\tli t0, 2\n\trsig t0, 0\n\thalt\n", ov_2c, 3, NPU_EFAULT,
		     "core 0 pc 0x4 cycle 1:", "rsig to core 2: the chip has 2 cores");
	expect_fault("\tli t0, -1\n\trsig t0, 0\n\thalt\n", NULL, 0, NPU_EFAULT,
		     "core 0 pc 0x4", "rsig to core 18446744073709551615: the chip has 1 cores");
}
END_TEST

/* ---- deadlock -----------------------------------------------------------------*/

START_TEST(control_deadlock_diag)
{
	struct sim s;

	/* The control unit itself. */
	sim_build(&s, "\taddi t0, zero, 1\n\twait ctl, 3, 1\n\thalt\n", NULL, 0, 0);
	ck_assert_int_eq(sim_go(&s), NPU_EDEADLOCK);
	ck_assert_ptr_nonnull(strstr(s.log, "error: deadlock at cycle 1"));
	ck_assert_ptr_nonnull(strstr(s.log, "core0.control: control unit at pc 0x4 (t.s:2) waits for semaphore 3 >= 1 (value 0)"));
	ck_assert_int_eq(s.d.n_errors, 1);
	sim_free(&s);
	/* A queue head after halt. */
	sim_build(&s, "\tsig ctl, 5\n\twait mtx, 5, 2\n\thalt\n", NULL, 0, 0);
	ck_assert_int_eq(sim_go(&s), NPU_EDEADLOCK);
	ck_assert_ptr_nonnull(strstr(s.log, "core0.control: halted; root cause: the mtx queue head (wait from pc 0x4 (t.s:2)), which waits for semaphore 5 >= 2 (value 1)"));
	sim_free(&s);
	/* A full queue behind a blocked head. */
	{
		static const char *const ov[] = { "core.control.queue_depth=2" };

		sim_build(&s, "\twait dma1, 9, 1\n\tsig dma1, 0\n\tsig dma1, 1\n\thalt\n",
			  ov, 1, 0);
		ck_assert_int_eq(sim_go(&s), NPU_EDEADLOCK);
		ck_assert_ptr_nonnull(strstr(s.log, "core0.control: control unit at pc 0x8 (t.s:3) waits for space in the dma1 queue; root cause: the dma1 queue head (wait from pc 0x0 (t.s:1)), which waits for semaphore 9 >= 1 (value 0), and no sig for it is queued on core 0"));
		sim_free(&s);
	}
	/* A fence on a unit blocked by a wait nobody signals. */
	sim_build(&s, "\twait vec, 1, 1\n\tfence vec\n\thalt\n", NULL, 0, 0);
	ck_assert_int_eq(sim_go(&s), NPU_EDEADLOCK);
	ck_assert_ptr_nonnull(strstr(s.log, "core0.control: control unit at pc 0x4 (t.s:2) waits in a fence for vec to drain; root cause: the vec queue head (wait from pc 0x0 (t.s:1)), which waits for semaphore 1 >= 1 (value 0), and no sig for it is queued on core 0"));
	sim_free(&s);
}
END_TEST

START_TEST(control_chip_reload_program)
{
	/* Loading a second program replaces the first (and frees it: the
	 * ASan build checks for leaks). */
	struct sim s;
	struct obj_prog *p2 = NULL;
	struct prog_image *i2 = NULL;
	static const char second[] = "\tli a0, 22\n\tli a1, 33\n\thalt\n";

	sim_build(&s, "\tli a0, 11\n\thalt\n", NULL, 0, 0);
	ck_assert_int_eq(asm_assemble_string("u.s", second, strlen(second), NULL,
					     &s.d, &p2), 0);
	ck_assert_int_eq(obj_image(p2, "u.s", &i2), 0);
	ck_assert_int_eq(chip_load_program(s.c, i2, &s.d), 0);
	ck_assert_int_eq(sim_go(&s), 0);
	ck_assert_uint_eq(reg(&s, 0, X_A0), 22);
	ck_assert_uint_eq(reg(&s, 0, X_A1), 33);
	ck_assert_uint_eq(ctr(&s, "core0.control.insns"), 3);
	sim_free(&s);
	prog_free(i2);
	obj_free(p2);
}
END_TEST

static Suite *suite_control(void)
{
	Suite *s = suite_create("control");

	TEST_ADD(s, control_alu_reg_ops);
	TEST_ADD(s, control_alu_div_rules);
	TEST_ADD(s, control_alu_shift_amounts);
	TEST_ADD(s, control_alu_imm_ops);
	TEST_ADD(s, control_alu_lui_li);
	TEST_ADD(s, control_mem_loads);
	TEST_ADD(s, control_mem_stores);
	TEST_ADD(s, control_mem_faults);
	TEST_ADD(s, control_mem_edges_ok);
	TEST_ADD(s, control_branches_all_kinds);
	TEST_ADD(s, control_dbnz_loop);
	TEST_ADD(s, control_call_return);
	TEST_ADD(s, control_csrs);
	TEST_ADD(s, control_exec_table);
	TEST_ADD(s, control_fault_illegal_word);
	TEST_ADD(s, control_fault_pc_off_end);
	TEST_ADD(s, control_fault_watchdog);
	TEST_ADD(s, control_fault_bad_units);
	TEST_ADD(s, control_fault_config_values);
	TEST_ADD(s, control_timing_single_issue);
	TEST_ADD(s, control_timing_latencies);
	TEST_ADD(s, control_timing_latency_classes);
	TEST_ADD(s, control_timing_branches);
	TEST_ADD(s, control_timing_long_loop);
	TEST_ADD(s, control_timing_dispatch_latency);
	TEST_ADD(s, control_timing_queue_full_exact);
	TEST_ADD(s, control_timing_queue_full_mmuls);
	TEST_ADD(s, control_matrix_post_increment);
	TEST_ADD(s, control_timing_fence);
	TEST_ADD(s, control_timing_busy_vs_finish);
	TEST_ADD(s, control_sync_counting_semaphore);
	TEST_ADD(s, control_sync_wait_blocks_own_unit_only);
	TEST_ADD(s, control_sync_fence_mask);
	TEST_ADD(s, control_sync_fence_high_unit_ids);
	TEST_ADD(s, control_sync_wait_blocks_later_commands);
	TEST_ADD(s, control_sync_barrier_2_and_4);
	TEST_ADD(s, control_sync_barrier_trace_span);
	TEST_ADD(s, control_sync_barrier_deadlock);
	TEST_ADD(s, control_sync_rsig_latency);
	TEST_ADD(s, control_sync_rsig_self_and_bad_core);
	TEST_ADD(s, control_deadlock_diag);
	TEST_ADD(s, control_chip_reload_program);
	return s;
}

TEST_MAIN(suite_control)
