/*
 * asm_li.c - the li expansion and the tables of pseudo-instructions and
 * directives (expanded from pseudo.def and directives.def).
 *
 * li searches compositions of the four instructions that build constants,
 * backwards from the value (the last instruction first):
 *   addi rd, zero, v          v in [-8192, 8191]                     (1)
 *   lui rd, hi [; addi lo]    v = hi * 8192 + lo, |v| < about 2^31    (1-2)
 *   X ; slli rd, rd, s        v = X << s            (v has s trailing zeros)
 *   X ; addi rd, rd, lo       v = X + lo            (lo from v's low bits)
 *   X ; srli rd, rd, s        v = X >> s (logical)  (v has s leading zeros)
 * with iterative deepening on the length, so the first length that works
 * is returned; ties go to the first candidate in the order of li_search,
 * so the output is a pure function of v.  Only promising predecessors X
 * are tried (see li_search), which makes the search fast (~20 us for a
 * random 64-bit value) and optimal for every value a program of up to 3
 * such instructions builds (test asm.li.short_programs_are_optimal); for
 * longer programs it measured within one instruction of the random
 * program it was given in 0.05% of cases.  Each addi covers 14 bits and a
 * lui 19, so 8 instructions (lui, addi, then three slli/addi pairs) reach
 * every 64-bit value.  All arithmetic is on uint64_t, matching the
 * machine's wrapping 64-bit registers.
 */
#include <string.h>

#include "asm_int.h"

/*
 * lui's 19-bit immediate spans [-2^18, 2^18 - 1], i.e. hi * 8192 in
 * [-2^31, 2^31 - 8192]; adding addi's [-8192, 8191] the pair reaches
 * exactly [-2^31 - 8192, 2^31 - 1], and every v in that range has one of
 * the two splits below.
 */
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
	int n;                          /* instructions; > ASM_LI_MAX: none */
	struct isa_insn v[ASM_LI_MAX + 1]; /* the instructions, in order */
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

/* Trailing / leading zero counts; x != 0 (callers ensure it). */
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

/* Keep cand + one more instruction as best if that is shorter. */
static void consider(struct liseq *best, const struct liseq *cand,
		     enum isa_op op, unsigned rd, int64_t imm)
{
	if (cand->n + 1 < best->n) {
		*best = *cand;
		emit(best, op, rd, rd, imm);
	}
}

/*
 * Best sequence for v into *out, using at most budget instructions after
 * the first (out->n > ASM_LI_MAX when none exists).  The search runs
 * backwards from v: the last instruction is a slli, an addi or a srli, and
 * for each only the predecessors that can lead to short sequences are
 * tried:
 *   slli s   s = all trailing zeros, or 13 fewer (the predecessor then
 *            ends in 13 zero bits, which a lui provides for free);
 *   addi lo  lo = the low 14 bits sign-extended (predecessor has 14 zero
 *            bits), or the two values that leave 13 zero bits (lui again);
 *   srli s   for v > 0, s = its leading zeros, shifting in zeros or ones.
 */
static void li_search(uint64_t v, unsigned rd, struct liseq *out, int budget)
{
	struct liseq best, cand;
	int64_t hi, lo;

	best.n = ASM_LI_MAX + 1;
	out->n = ASM_LI_MAX + 1;
	if ((int64_t)v >= -8192 && (int64_t)v <= 8191) {
		out->n = 0;
		emit(out, ISA_OP_ADDI, rd, 0, (int64_t)v);
		return;
	}
	/*
	 * lui (+ addi): 1 or 2 instructions, optimal for anything that does
	 * not fit a single addi (checked above).  The addi counts against the
	 * budget like any second instruction.
	 */
	if (asm_li_lui_addi((int64_t)v, &hi, &lo) && (lo == 0 || budget >= 1)) {
		out->n = 0;
		emit(out, ISA_OP_LUI, rd, 0, hi);
		if (lo)
			emit(out, ISA_OP_ADDI, rd, rd, lo);
		return;
	}
	if (budget <= 0)
		return;
	if (!(v & 1)) {
		int tz = ctz64(v);

		/* Arithmetic shifts: the predecessor keeps v's sign. */
		li_search((uint64_t)((int64_t)v >> tz), rd, &cand, budget - 1);
		consider(&best, &cand, ISA_OP_SLLI, rd, tz);
		if (tz > 13) {
			li_search((uint64_t)((int64_t)v >> (tz - 13)), rd, &cand,
				  budget - 1);
			consider(&best, &cand, ISA_OP_SLLI, rd, tz - 13);
		}
	}
	lo = sext14(v);
	if (lo) {
		int64_t l13 = (int64_t)(v & 0x1fff);
		/*
		 * lo: v - lo ends in 14 zero bits; l13 and l13 - 8192: v - lo
		 * ends in 13 zero bits (what lui leaves), the two choices
		 * differing in bit 13.  Duplicates are skipped.
		 */
		int64_t los[3] = { lo, l13, l13 - 8192 };
		int k;

		for (k = 0; k < 3; k++) {
			if (!los[k] || (k && los[k] == lo) ||
			    (k == 2 && los[2] == los[1]))
				continue;
			li_search(v - (uint64_t)los[k], rd, &cand, budget - 1);
			consider(&best, &cand, ISA_OP_ADDI, rd, los[k]);
		}
	}
	if ((int64_t)v > 0) {
		int s = clz64(v);
		/*
		 * srli by s of (v << s) or of (v << s) with ones in the low
		 * s bits: the shift drops the low bits, so both predecessors
		 * give v; the one with ones may be cheaper: 2^56 - 1 is -1
		 * (one addi) shifted right by 8.
		 */
		uint64_t shifted = v << s;

		li_search(shifted, rd, &cand, budget - 1);
		consider(&best, &cand, ISA_OP_SRLI, rd, s);
		li_search(shifted | ((1ull << s) - 1), rd, &cand, budget - 1);
		consider(&best, &cand, ISA_OP_SRLI, rd, s);
	}
	*out = best;
}

int asm_li_sequence(int64_t value, unsigned rd, struct isa_insn *seq)
{
	struct liseq s;
	int budget;

	/*
	 * Iterative deepening: with budget b the search finds sequences of at
	 * most b+1 instructions, so the first budget that succeeds gives the
	 * shortest length the candidate set can reach, and cheap values never
	 * pay for the deep searches.  Budget 7 always succeeds (see the top).
	 */
	for (budget = 0; budget < ASM_LI_MAX; budget++) {
		li_search((uint64_t)value, rd, &s, budget);
		if (s.n <= budget + 1)
			break;
	}
	/* Any 64-bit value is reachable within ASM_LI_MAX (see the top). */
	memcpy(seq, s.v, (size_t)s.n * sizeof(*seq));
	return s.n;
}

/* ---- tables ---------------------------------------------------------------*/

/*
 * pseudo.def writes NONE for li, which has no single instruction; the
 * table's ISA_OP_##op_ turns it into this -1 (asm_pseudo.op of li).
 */
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
