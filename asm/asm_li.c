/*
 * asm_li.c - the li expansion and the tables of pseudo-instructions and
 * directives (expanded from pseudo.def and directives.def).
 *
 * li searches compositions of the four instructions that build constants:
 *   addi rd, zero, v          v in [-8192, 8191]                     (1)
 *   lui rd, hi [; addi lo]    v = hi * 8192 + lo, |v| < about 2^31    (1-2)
 *   X ; slli rd, rd, s        v = X << s            (v has s trailing zeros)
 *   X ; addi rd, rd, lo       v = X + lo            (lo = low 14 bits, signed)
 *   X ; srli rd, rd, s        v = X >> s (logical)  (v has s leading zeros)
 * recursively, and keeps the shortest; ties go to the first candidate in
 * the order above, so the output is a pure function of v.  Each level
 * removes at least 14 significant bits or all trailing zeros, so the depth
 * is small and the worst case is 8 instructions (lui, addi, then three
 * slli/addi pairs for the remaining 32 bits).  All arithmetic is on
 * uint64_t, matching the machine's wrapping 64-bit registers.
 */
#include <string.h>

#include "asm_int.h"

int asm_li_lui_addi(int64_t v, int64_t *hi, int64_t *lo)
{
	/* floor(v / 8192) without implementation-defined shifts. */
	int64_t h = v >= 0 ? v / 8192 : -((-(v + 1)) / 8192) - 1;

	/* lo = v - h*8192 is in [0, 8191]; h+1 gives lo in [-8192, -1]. */
	if (h >= -262144 && h <= 262143) {
		*hi = h;
		*lo = v - h * 8192;
		return 1;
	}
	if (h + 1 >= -262144 && h + 1 <= 262143) {
		*hi = h + 1;
		*lo = v - (h + 1) * 8192;
		return 1;
	}
	return 0;
}

/* A candidate sequence under construction. */
struct liseq {
	int n;                          /* instructions */
	struct isa_insn v[ASM_LI_MAX + 1];
};

static void emit(struct liseq *s, enum isa_op op, unsigned rd, unsigned rs1,
		 int64_t imm)
{
	struct isa_insn *in = &s->v[s->n++];

	memset(in, 0, sizeof(*in));
	in->op = op;
	in->rd = (uint8_t)rd;
	in->rs1 = (uint8_t)rs1;
	in->imm = imm;
}

static int ctz64(uint64_t x)
{
	int n = 0;

	while (!(x & 1)) {
		x >>= 1;
		n++;
	}
	return n;
}

static int clz64(uint64_t x)
{
	int n = 0;

	while (!(x >> 63)) {
		x <<= 1;
		n++;
	}
	return n;
}

/* Sign-extend the low 14 bits (addi's immediate). */
static int64_t sext14(uint64_t v)
{
	int64_t lo = (int64_t)(v & 0x3fff);

	return lo >= 8192 ? lo - 16384 : lo;
}

/*
 * Best sequence for v into *out; depth bounds the recursion (a sequence
 * longer than ASM_LI_MAX is never needed, so deeper searches stop).
 */
static void li_search(uint64_t v, unsigned rd, struct liseq *out, int budget)
{
	struct liseq best, cand;
	int64_t hi, lo;

	best.n = ASM_LI_MAX + 1;
	out->n = ASM_LI_MAX + 1;
	if (budget <= 0)
		return;
	if ((int64_t)v >= -8192 && (int64_t)v <= 8191) {
		out->n = 0;
		emit(out, ISA_OP_ADDI, rd, 0, (int64_t)v);
		return;
	}
	if (asm_li_lui_addi((int64_t)v, &hi, &lo)) {
		out->n = 0;
		emit(out, ISA_OP_LUI, rd, 0, hi);
		if (lo)
			emit(out, ISA_OP_ADDI, rd, rd, lo);
		return;
	}
	/* X << s: strip the trailing zeros. */
	if (!(v & 1)) {
		int s = ctz64(v);

		li_search((uint64_t)((int64_t)v >> s), rd, &cand, budget - 1);
		/* Arithmetic shift keeps the sign for the recursive value. */
		if (cand.n < best.n - 1) {
			best = cand;
			emit(&best, ISA_OP_SLLI, rd, rd, s);
		}
	}
	/* X + lo: clear the low 14 bits with an addi at the end. */
	lo = sext14(v);
	if (lo) {
		li_search(v - (uint64_t)lo, rd, &cand, budget - 1);
		if (cand.n < best.n - 1) {
			best = cand;
			emit(&best, ISA_OP_ADDI, rd, rd, lo);
		}
	}
	/*
	 * X >> s (logical) for positive values with leading zeros: shift
	 * left, filling with zeros or with ones (whichever is cheaper, e.g.
	 * 0x00000000ffffffff = (-1) >> 32).
	 */
	if ((int64_t)v > 0) {
		int s = clz64(v);
		uint64_t shifted = v << s;

		li_search(shifted, rd, &cand, budget - 1);
		if (cand.n < best.n - 1) {
			best = cand;
			emit(&best, ISA_OP_SRLI, rd, rd, s);
		}
		li_search(shifted | ((1ull << s) - 1), rd, &cand, budget - 1);
		if (cand.n < best.n - 1) {
			best = cand;
			emit(&best, ISA_OP_SRLI, rd, rd, s);
		}
	}
	*out = best;
}

int asm_li_sequence(int64_t value, unsigned rd, struct isa_insn *seq)
{
	struct liseq s;
	int budget;

	/*
	 * Iterative deepening on the recursion depth: the first depth that
	 * finds any sequence bounds the search cheaply; the search at that
	 * depth already minimises length among the candidates it explores.
	 */
	for (budget = 1; budget <= ASM_LI_MAX; budget++) {
		li_search((uint64_t)value, rd, &s, budget);
		if (s.n <= ASM_LI_MAX)
			break;
	}
	/* Any 64-bit value is reachable within ASM_LI_MAX (see the top). */
	memcpy(seq, s.v, (size_t)s.n * sizeof(*seq));
	return s.n;
}

/* ---- tables ---------------------------------------------------------------*/

/* pseudo.def writes NONE for li, which has no single instruction. */
#define ISA_OP_NONE (-1)

const struct asm_pseudo asm_pseudos[ASM_N_PSEUDOS] = {
#define PSEUDO(id_, name_, syn_, op_, rd_, rs1_, rs2_, imm_, value_, doc_)    \
	[ASM_PS_##id_] = {                                                    \
		.name = name_,                                                \
		.syntax = syn_,                                               \
		.op = ISA_OP_##op_,                                           \
		.rd = rd_,                                                    \
		.rs1 = rs1_,                                                  \
		.rs2 = rs2_,                                                  \
		.imm = imm_,                                                  \
		.value = value_,                                              \
		.doc = doc_,                                                  \
	},
#include "pseudo.def"
};

const struct asm_directive asm_directives[ASM_N_DIRS] = {
#define DIRECTIVE(id_, name_, ops_, doc_) \
	[ASM_DIR_##id_] = { .name = name_, .operands = ops_, .doc = doc_ },
#include "directives.def"
};
