/*
 * test_isa.c - table-driven tests of the ISA: they iterate opcodes.def and
 * formats.def themselves, so a new row is tested without touching this file.
 *
 *   isa.table.*      every op has a name, doc, format and unit; syntax words
 *                    match the listed fields; fields fit the word; every
 *                    op's latency class is one its unit times; every
 *                    vector op has an operand kind that agrees with its
 *                    operand-role flags
 *   isa.overlap      no two (mask, match) pairs overlap (allow-list below)
 *   isa.roundtrip.*  encode -> decode -> disassemble for every op with
 *                    boundary and pseudo-random operands
 *   isa.encode.*     hand-computed words (independent of the tables)
 *   isa.decode.*     reserved bits, undefined field values, all 2^8 opcodes
 *   isa.doc          docs/isa.md is what isa_write_doc writes
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/isa.h"
#include "testutil.h"

/* Deterministic xorshift64 (no unseeded randomness in tests). */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A legal value of field f: min, max or a random aligned value between. */
static int64_t field_value(enum isa_field f, int which)
{
	const struct isa_field_info *fi = &isa_field_info[f];
	int64_t step = (int64_t)1 << fi->shift;
	uint64_t count = (uint64_t)((fi->max - fi->min) / step) + 1;

	if (which == 0)
		return fi->min;
	if (which == 1)
		return fi->max;
	return fi->min + (int64_t)(rng() % count) * step;
}

/* Pairs of ops allowed to overlap (none today: every op has its opcode). */
static const int overlap_allow[][2] = { { -1, -1 } };

static int overlap_allowed(int a, int b)
{
	size_t i;

	for (i = 0; i < sizeof(overlap_allow) / sizeof(overlap_allow[0]); i++)
		if ((overlap_allow[i][0] == a && overlap_allow[i][1] == b) ||
		    (overlap_allow[i][0] == b && overlap_allow[i][1] == a))
			return 1;
	return 0;
}

START_TEST(isa_table_complete)
{
	int i, j;

	for (i = 0; i < ISA_N_OPS; i++) {
		const struct isa_op_info *o = &isa_op_info[i];

		ck_assert_msg(o->name && o->name[0], "op %d has no name", i);
		ck_assert_msg(o->doc && strlen(o->doc) > 10, "%s: no doc", o->name);
		ck_assert_msg(o->sem && o->sem[0], "%s: no semantics", o->name);
		ck_assert_msg((unsigned)o->fmt < ISA_N_FMTS, "%s: format", o->name);
		ck_assert_msg((unsigned)o->unit < ISA_N_UNITS, "%s: unit", o->name);
		ck_assert_msg(o->opcode != 0, "%s: opcode 0 is reserved", o->name);
		ck_assert_uint_eq(o->match, (uint32_t)o->opcode << 24);
		/* The mask covers the opcode and only bits outside the fields. */
		ck_assert_uint_eq(o->mask & 0xff000000u, 0xff000000u);
		ck_assert_uint_eq(o->mask & isa_fmt_info[o->fmt].used, 0);
		ck_assert_uint_eq(o->mask | isa_fmt_info[o->fmt].used,
				  0xffffffffu);
		ck_assert_int_eq(isa_op_by_name(o->name), i);
		for (j = 0; j < i; j++)
			ck_assert_msg(strcmp(o->name, isa_op_info[j].name) != 0,
				      "duplicate mnemonic %s", o->name);
		/* Tile ops read their address registers, never write them. */
		if (o->unit == ISA_UNIT_MTX || o->unit == ISA_UNIT_VEC ||
		    o->unit == ISA_UNIT_DMA)
			ck_assert_msg(!(o->flags & ISA_WR_RD), "%s", o->name);
	}
	for (i = 0; i < ISA_N_UNITS; i++)
		ck_assert(isa_unit_names[i] && isa_unit_docs[i]);
	for (i = 0; i < ISA_N_FLAGS; i++)
		ck_assert(isa_flag_names[i] && isa_flag_docs[i]);
}
END_TEST

/*
 * The flags say which registers an op reads and writes; they must agree
 * with the fields of its format (a flag for a field the format lacks would
 * make the control unit read a register that is not there).
 */
START_TEST(isa_table_flags_match_format)
{
	int i;

	for (i = 0; i < ISA_N_OPS; i++) {
		const struct isa_op_info *o = &isa_op_info[i];
		int has[ISA_M_IMM + 1] = { 0 }, k, nregs = 0, nrole = 0;
		const struct isa_fmt_info *fi = &isa_fmt_info[o->fmt];

		for (k = 0; k < fi->n_fields; k++)
			if (isa_field_info[fi->fields[k]].kind == ISA_FK_REG) {
				has[isa_field_info[fi->fields[k]].member] = 1;
				nregs++;
			}
		if (o->flags & (ISA_RD_RD | ISA_WR_RD))
			ck_assert_msg(has[ISA_M_RD], "%s: rd flag", o->name);
		if (o->flags & (ISA_RD_RS1 | ISA_WR_RS1))
			ck_assert_msg(has[ISA_M_RS1], "%s: rs1 flag", o->name);
		if (o->flags & ISA_RD_RS2)
			ck_assert_msg(has[ISA_M_RS2], "%s: rs2 flag", o->name);
		if (o->flags & ISA_RD_RS3)
			ck_assert_msg(has[ISA_M_RS3], "%s: rs3 flag", o->name);
		/* ... and every register field has a role. */
		nrole += !!(o->flags & (ISA_RD_RD | ISA_WR_RD));
		nrole += !!(o->flags & (ISA_RD_RS1 | ISA_WR_RS1));
		nrole += !!(o->flags & ISA_RD_RS2);
		nrole += !!(o->flags & ISA_RD_RS3);
		ck_assert_msg(nrole == nregs, "%s: %d register fields, %d roles",
			      o->name, nregs, nrole);
		if (o->flags & (ISA_BRANCH))
			ck_assert(o->fmt == ISA_FMT_B || o->fmt == ISA_FMT_B1);
	}
}
END_TEST

/*
 * isa.table.latency_classes: the LAT_x column.  Each unit times its own
 * classes (names.def LATCLASS): the control unit alu, mul, div, mem and
 * branch, the vector unit alu, mul, div, sfu and move; configuration,
 * synchronisation, matrix and DMA instructions have none.  In the
 * control unit the class follows from the operand roles: memory ops are
 * mem, branches and jumps branch, an op with no result none (halt).
 */
START_TEST(isa_table_latency_classes)
{
	int i;

	for (i = 0; i < ISA_N_LATS; i++)
		ck_assert(isa_lat_names[i] && isa_lat_docs[i] &&
			  strlen(isa_lat_docs[i]) > 10);
	for (i = 0; i < ISA_N_OPS; i++) {
		const struct isa_op_info *o = &isa_op_info[i];
		enum isa_lat l = o->lat;

		ck_assert_msg((unsigned)l < ISA_N_LATS, "%s: class", o->name);
		switch (o->unit) {
		case ISA_UNIT_CTL:
			if (o->flags & (ISA_MEM_LD | ISA_MEM_ST))
				ck_assert_msg(l == ISA_LAT_MEM, "%s", o->name);
			else if (o->flags & (ISA_BRANCH | ISA_JUMP))
				ck_assert_msg(l == ISA_LAT_BRANCH, "%s", o->name);
			else if (o->flags & (ISA_WR_RD | ISA_WR_RS1))
				ck_assert_msg(l == ISA_LAT_ALU || l == ISA_LAT_MUL ||
					      l == ISA_LAT_DIV, "%s: %s", o->name,
					      isa_lat_names[l]);
			else
				ck_assert_msg(l == ISA_LAT_NONE, "%s", o->name);
			break;
		case ISA_UNIT_VEC:
			ck_assert_msg(l == ISA_LAT_ALU || l == ISA_LAT_MUL ||
				      l == ISA_LAT_DIV || l == ISA_LAT_SFU ||
				      l == ISA_LAT_MOVE, "%s: %s", o->name,
				      isa_lat_names[l]);
			break;
		default:
			ck_assert_msg(l == ISA_LAT_NONE, "%s: %s", o->name,
				      isa_lat_names[l]);
			break;
		}
	}
}
END_TEST

/*
 * isa.table.vector_kinds: the VK_x column.  Vector ops, and only they,
 * have a kind; a kind's operand slots (names.def VKIND) are exactly the
 * address registers the op's flags say it reads: s1 iff RD_RS1 and rs1 is
 * not a scalar, s2 likewise, s3 iff RD_RS3, d iff RD_RD.  Both the vector
 * unit and the hazard checker take their byte ranges from the slots, the
 * control unit its register reads from the flags.
 */
START_TEST(isa_table_vector_kinds)
{
	int i, k;

	for (i = 0; i < ISA_N_VKINDS; i++) {
		const struct isa_vkind_info *ki = &isa_vkind_info[i];

		ck_assert(ki->name && ki->doc && ki->doc[0]);
		for (k = 0; k < ISA_N_VSLOTS; k++)
			/* INT32 is for index tiles, which are always s2. */
			ck_assert(ki->opnd[k].type != ISA_VET_INT32 ||
				  (k == ISA_VS_S2 &&
				   ki->opnd[k].shape == ISA_VSH_TILE));
		/* Every vector op writes something. */
		ck_assert_msg((i == ISA_VK_NONE) ==
			      (ki->opnd[ISA_VS_D].shape == ISA_VSH_NONE),
			      "kind %s", ki->name);
	}
	for (i = 0; i < ISA_N_OPS; i++) {
		const struct isa_op_info *o = &isa_op_info[i];
		const struct isa_vkind_info *ki = &isa_vkind_info[o->vkind];
		uint32_t f = o->flags;
		int want[ISA_N_VSLOTS];

		ck_assert_msg((unsigned)o->vkind < ISA_N_VKINDS, "%s", o->name);
		if (o->unit != ISA_UNIT_VEC) {
			ck_assert_msg(o->vkind == ISA_VK_NONE, "%s has a vector kind",
				      o->name);
			continue;
		}
		ck_assert_msg(o->vkind != ISA_VK_NONE, "%s has no vector kind",
			      o->name);
		want[ISA_VS_S1] = (f & ISA_RD_RS1) && !(f & ISA_SCL_RS1);
		want[ISA_VS_S2] = (f & ISA_RD_RS2) && !(f & ISA_SCL_RS2);
		want[ISA_VS_S3] = !!(f & ISA_RD_RS3);
		want[ISA_VS_D] = !!(f & ISA_RD_RD);
		for (k = 0; k < ISA_N_VSLOTS; k++)
			ck_assert_msg(want[k] == (ki->opnd[k].shape != ISA_VSH_NONE),
				      "%s: operand slot %d of kind %s disagrees with the flags",
				      o->name, k, ki->name);
	}
}
END_TEST

/* Syntax words are exactly the format's fields, in order. */
START_TEST(isa_table_syntax_matches_fields)
{
	int f;

	for (f = 0; f < ISA_N_FMTS; f++) {
		const struct isa_fmt_info *fi = &isa_fmt_info[f];
		const char *p = fi->syntax;
		int k = 0;

		while (*p) {
			size_t len = 0;

			while ((p[len] >= 'a' && p[len] <= 'z') ||
			       (p[len] >= '0' && p[len] <= '9'))
				len++;
			if (!len) {
				ck_assert_msg(strchr(", ()", *p) != NULL,
					      "format %s: stray '%c'", fi->id, *p);
				p++;
				continue;
			}
			ck_assert_msg(k < fi->n_fields, "format %s: extra word",
				      fi->id);
			ck_assert_msg(strlen(isa_field_info[fi->fields[k]].name) ==
						      len &&
					      !memcmp(isa_field_info[fi->fields[k]].name,
						      p, len),
				      "format %s: word %d", fi->id, k);
			k++;
			p += len;
		}
		ck_assert_int_eq(k, fi->n_fields);
		/* Fields of one format never share bits. */
		{
			uint32_t seen = 0;
			int i;

			for (i = 0; i < fi->n_fields; i++) {
				const struct isa_field_info *x =
					&isa_field_info[fi->fields[i]];
				uint32_t bits = (uint32_t)(((1ull << x->width) - 1)
							   << x->lo);

				ck_assert_msg(!(seen & bits), "format %s", fi->id);
				seen |= bits;
			}
			ck_assert_uint_eq(seen, fi->used);
			ck_assert_uint_eq(seen & 0xff000000u, 0);
		}
	}
}
END_TEST

/* Each field's range fits its bits: min and max encode and decode exactly. */
START_TEST(isa_table_field_ranges)
{
	int f;

	for (f = 0; f < ISA_N_FIELDS; f++) {
		const struct isa_field_info *fi = &isa_field_info[f];
		int64_t lim_lo, lim_hi;
		uint32_t w = 0;
		char err[128];
		enum isa_fmt fmt;

		/* Any format that holds f, for the debug-build check. */
		for (fmt = 0; fmt < ISA_N_FMTS; fmt++)
			if (isa_fmt_has_field(fmt, f))
				break;
		ck_assert_msg(fmt < ISA_N_FMTS, "field %s unused", fi->id);
		ck_assert(fi->lo + fi->width <= 24);
		if (fi->min < 0) {
			lim_lo = -((int64_t)1 << (fi->width - 1)) *
				 ((int64_t)1 << fi->shift);
			lim_hi = (((int64_t)1 << (fi->width - 1)) - 1) *
				 ((int64_t)1 << fi->shift);
		} else {
			lim_lo = 0;
			lim_hi = (((int64_t)1 << fi->width) - 1) << fi->shift;
		}
		ck_assert_msg(fi->min >= lim_lo && fi->max <= lim_hi, "%s", fi->id);
		ck_assert_int_eq(isa_set_field(&w, fmt, f, fi->min, err,
					       sizeof(err)), 0);
		ck_assert_int_eq(isa_get_field(w, fmt, f), fi->min);
		ck_assert_int_eq(isa_set_field(&w, fmt, f, fi->max, err,
					       sizeof(err)), 0);
		ck_assert_int_eq(isa_get_field(w, fmt, f), fi->max);
		/* Setting a field leaves the other bits alone. */
		ck_assert_uint_eq(w & ~(uint32_t)(((1ull << fi->width) - 1)
						  << fi->lo), 0);
		ck_assert_int_eq(isa_set_field(&w, fmt, f, fi->max + 1, err,
					       sizeof(err)), NPU_ERANGE);
		ck_assert_int_eq(isa_set_field(&w, fmt, f, fi->min - 1, err,
					       sizeof(err)), NPU_ERANGE);
	}
}
END_TEST

/* Two patterns overlap iff they agree on every bit both masks cover. */
START_TEST(isa_overlap)
{
	int a, b;

	for (a = 0; a < ISA_N_OPS; a++)
		for (b = a + 1; b < ISA_N_OPS; b++) {
			const struct isa_op_info *x = &isa_op_info[a];
			const struct isa_op_info *y = &isa_op_info[b];
			uint32_t common = x->mask & y->mask;

			if (((x->match ^ y->match) & common) == 0)
				ck_assert_msg(overlap_allowed(a, b),
					      "%s and %s overlap", x->name,
					      y->name);
		}
}
END_TEST

/* Fill the fields of op with choice 'which' (0 min, 1 max, 2+ random). */
static void make_insn(int op, int which, struct isa_insn *in)
{
	const struct isa_fmt_info *fi = &isa_fmt_info[isa_op_info[op].fmt];
	int k;

	memset(in, 0, sizeof(*in));
	in->op = (enum isa_op)op;
	for (k = 0; k < fi->n_fields; k++)
		isa_insn_set(in, isa_field_info[fi->fields[k]].member,
			     field_value(fi->fields[k], which));
}

START_TEST(isa_roundtrip_all)
{
	int op, which;

	for (op = 0; op < ISA_N_OPS; op++)
		for (which = 0; which < 40; which++) {
			struct isa_insn in, out, out2;
			uint32_t w, w2;
			char err[128], text[128];

			make_insn(op, which, &in);
			ck_assert_msg(isa_encode(&in, &w, err, sizeof(err)) == 0,
				      "%s: %s", isa_op_info[op].name, err);
			ck_assert_uint_eq(w >> 24, isa_op_info[op].opcode);
			ck_assert_uint_eq(w & isa_op_info[op].mask,
					  isa_op_info[op].match);
			ck_assert_int_eq(isa_decode(w, &out), 0);
			ck_assert_msg(memcmp(&in, &out, sizeof(in)) == 0,
				      "%s: decode(encode) differs",
				      isa_op_info[op].name);
			ck_assert_int_eq(isa_disasm(w, 0x1000, text, sizeof(text),
						    NULL, NULL), 0);
			ck_assert_msg(strncmp(text, isa_op_info[op].name,
					      strlen(isa_op_info[op].name)) == 0,
				      "%s", text);
			/* Re-encoding the decoded insn gives the same word. */
			ck_assert_int_eq(isa_encode(&out, &w2, err, sizeof(err)), 0);
			ck_assert_uint_eq(w, w2);
			ck_assert_int_eq(isa_decode(w2, &out2), 0);
		}
}
END_TEST

/* Words computed by hand from the bit diagram, not from the tables. */
START_TEST(isa_encode_known_words)
{
	static const struct {
		struct isa_insn in;
		uint32_t word;
		const char *text;
	} cases[] = {
		{ { .op = ISA_OP_ADD, .rd = 10, .rs1 = 11, .rs2 = 12 },
		  0x01u << 24 | 10u << 19 | 11u << 14 | 12u << 9,
		  "add     a0, a1, a2" },
		{ { .op = ISA_OP_ADDI, .rd = 5, .rs1 = 0, .imm = -1 },
		  0x20u << 24 | 5u << 19 | 0x3fffu, "addi    t0, zero, -1" },
		{ { .op = ISA_OP_LD, .rd = 1, .rs1 = 2, .imm = 16 },
		  0x30u << 24 | 1u << 19 | 2u << 14 | 16u, "ld      ra, 16(sp)" },
		{ { .op = ISA_OP_SW, .rs1 = 2, .rs2 = 8, .imm = -4 },
		  0x39u << 24 | 8u << 19 | 2u << 14 | 0x3ffcu,
		  "sw      s0, -4(sp)" },
		{ { .op = ISA_OP_BNE, .rs1 = 10, .rs2 = 0, .imm = -8 },
		  0x41u << 24 | 10u << 19 | 0u << 14 | 0x3ffeu,
		  "bne     a0, zero, 0xff8" },
		{ { .op = ISA_OP_JAL, .rd = 1, .imm = 0x400 },
		  0x48u << 24 | 1u << 19 | 0x100u, "jal     ra, 0x1400" },
		{ { .op = ISA_OP_LUI, .rd = 6, .imm = -2 },
		  0x29u << 24 | 6u << 19 | 0x7fffeu, "lui     t1, -0x2" },
		{ { .op = ISA_OP_SLLI, .rd = 7, .rs1 = 7, .imm = 63 },
		  0x26u << 24 | 7u << 19 | 7u << 14 | 63u, "slli    t2, t2, 63" },
		{ { .op = ISA_OP_CSRR, .rd = 10, .imm = ISA_CSR_CYCLE },
		  0x2au << 24 | 10u << 19 | 2u, "csrr    a0, cycle" },
		{ { .op = ISA_OP_WAIT, .unit = ISA_UID_DMA0 + 1, .sem = 31,
		    .imm = 4095 },
		  0x51u << 24 | 4u << 17 | 31u << 12 | 4095u,
		  "wait    dma1, 31, 4095" },
		{ { .op = ISA_OP_SIG, .unit = ISA_UID_CTL, .sem = 2 },
		  0x50u << 24 | 2u << 12, "sig     ctl, 2" },
		{ { .op = ISA_OP_FENCE, .imm = 0xffffff },
		  0x52u << 24 | 0xffffffu, "fence   all" },
		{ { .op = ISA_OP_FENCE, .imm = 0x1a },
		  0x52u << 24 | 0x1au, "fence   mtx|dma0|dma1" },
		{ { .op = ISA_OP_FENCE, .imm = 0x800001 },
		  0x52u << 24 | 0x800001u, "fence   0x800001" },
		{ { .op = ISA_OP_RSIG, .rs1 = 9, .sem = 7 },
		  0x54u << 24 | 9u << 19 | 7u << 12, "rsig    s1, 7" },
		{ { .op = ISA_OP_DSET, .cfg = ISA_DF_DS3, .rs1 = 31 },
		  0x60u << 24 | 18u << 19 | 31u << 14, "dset    ds3, t6" },
		{ { .op = ISA_OP_MSET, .cfg = ISA_MF_OSCALE, .rs1 = 12 },
		  0x70u << 24 | 10u << 19 | 12u << 14, "mset    oscale, a2" },
		{ { .op = ISA_OP_VSET, .cfg = ISA_VF_LEN, .rs1 = 13 },
		  0x80u << 24 | 2u << 19 | 13u << 14, "vset    len, a3" },
		{ { .op = ISA_OP_VSEL, .rd = 1, .rs1 = 2, .rs2 = 3, .rs3 = 4 },
		  0xa3u << 24 | 1u << 19 | 2u << 14 | 3u << 9 | 4u << 4,
		  "vsel    ra, sp, gp, tp" },
		{ { .op = ISA_OP_DMA, .imm = 3 }, 0x61u << 24 | 3u,
		  "dma     3" },
		{ { .op = ISA_OP_HALT }, 0x4fu << 24, "halt" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t w;
		char err[128], text[128];
		struct isa_insn out;

		ck_assert_int_eq(isa_encode(&cases[i].in, &w, err, sizeof(err)), 0);
		ck_assert_msg(w == cases[i].word, "case %zu: %08x != %08x", i, w,
			      cases[i].word);
		ck_assert_int_eq(isa_decode(w, &out), 0);
		ck_assert(memcmp(&out, &cases[i].in, sizeof(out)) == 0);
		ck_assert_int_eq(isa_disasm(w, 0x1000, text, sizeof(text), NULL,
					    NULL), 0);
		ck_assert_str_eq(text, cases[i].text);
	}
}
END_TEST

START_TEST(isa_encode_range_messages)
{
	struct isa_insn in = { .op = ISA_OP_ADDI, .rd = 1, .rs1 = 1,
			       .imm = 9000 };
	uint32_t w = 0xdeadbeef;
	char err[160];

	ck_assert_int_eq(isa_encode(&in, &w, err, sizeof(err)), NPU_ERANGE);
	ck_assert_str_eq(err, "immediate 9000 out of range [-8192, 8191]");
	ck_assert_uint_eq(w, 0xdeadbeef); /* untouched on failure */
	in.op = ISA_OP_BEQ;
	in.imm = 40000;
	ck_assert_int_eq(isa_encode(&in, &w, err, sizeof(err)), NPU_ERANGE);
	ck_assert_str_eq(err, "branch target too far: offset 40000 bytes, "
			      "reachable range [-32768, 32764]");
	in.imm = 6;
	ck_assert_int_eq(isa_encode(&in, &w, err, sizeof(err)), NPU_ERANGE);
	ck_assert_str_eq(err, "branch target is not 4-byte aligned: offset 6 "
			      "bytes");
	in.op = ISA_OP_SRAI;
	in.imm = 64;
	ck_assert_int_eq(isa_encode(&in, &w, err, sizeof(err)), NPU_ERANGE);
	ck_assert_str_eq(err, "shift amount 64 out of range [0, 63]");
	in.op = ISA_OP_WAIT;
	in.imm = 0;
	ck_assert_int_eq(isa_encode(&in, &w, err, sizeof(err)), NPU_ERANGE);
	ck_assert_str_eq(err, "wait count 0 out of range [1, 4095]");
	in.op = ISA_OP_JAL;
	in.imm = -1048580;
	ck_assert_int_eq(isa_encode(&in, &w, err, sizeof(err)), NPU_ERANGE);
	ck_assert_str_eq(err, "jump target too far: offset -1048580 bytes, "
			      "reachable range [-1048576, 1048572]");
}
END_TEST

/*
 * Every 32-bit word either decodes to the op its opcode names with the
 * reserved bits clear, or is rejected; sample all opcodes x bit patterns.
 */
START_TEST(isa_decode_reserved_and_unknown)
{
	unsigned opc;
	struct isa_insn in;

	ck_assert_int_eq(isa_decode(0, &in), NPU_EOBJ);
	ck_assert_int_eq(isa_decode(0xffffffffu, &in), NPU_EOBJ);
	for (opc = 0; opc < 256; opc++) {
		int op = -1, i, k;

		for (i = 0; i < ISA_N_OPS; i++)
			if (isa_op_info[i].opcode == opc)
				op = i;
		for (k = 0; k < 2000; k++) {
			uint32_t w = opc << 24 | (uint32_t)(rng() & 0xffffff);
			int r = isa_decode(w, &in);

			if (op < 0) {
				ck_assert_int_eq(r, NPU_EOBJ);
				continue;
			}
			if (w & isa_op_info[op].mask & 0xffffffu)
				ck_assert_int_eq(r, NPU_EOBJ);
			if (r == 0) {
				uint32_t w2;
				char err[128];

				ck_assert_int_eq((int)in.op, op);
				ck_assert_int_eq(isa_encode(&in, &w2, err,
							    sizeof(err)), 0);
				ck_assert_uint_eq(w, w2);
			}
		}
	}
	/* Reserved bit 0 of halt, cnt of sig, undefined CSR and cfg ids. */
	ck_assert_int_eq(isa_decode(0x4f000001u, &in), NPU_EOBJ);
	ck_assert_int_eq(isa_decode(0x50000001u, &in), NPU_EOBJ);
	ck_assert_int_eq(isa_decode(0x2a000000u | ISA_N_CSRS, &in), NPU_EOBJ);
	ck_assert_int_eq(isa_decode(0x70000000u | (uint32_t)ISA_N_MFIELDS << 19,
				    &in), NPU_EOBJ);
	ck_assert_int_eq(isa_decode(0x51000000u, &in), NPU_EOBJ); /* cnt 0 */
	ck_assert_int_eq(isa_decode(0x51000001u, &in), 0);
}
END_TEST

static const char *sym_for_test(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr == 0x40 ? "loop" : NULL;
}

START_TEST(isa_disasm_symbols_and_illegal)
{
	char text[64];
	struct isa_insn in = { .op = ISA_OP_DBNZ, .rs1 = 5, .imm = -0x20 };
	uint32_t w;
	char err[64];

	ck_assert_int_eq(isa_encode(&in, &w, err, sizeof(err)), 0);
	ck_assert_int_eq(isa_disasm(w, 0x60, text, sizeof(text), sym_for_test,
				    NULL), 0);
	ck_assert_str_eq(text, "dbnz    t0, loop");
	ck_assert_int_eq(isa_disasm(w, 0x64, text, sizeof(text), sym_for_test,
				    NULL), 0);
	ck_assert_str_eq(text, "dbnz    t0, 0x44");
	ck_assert_int_eq(isa_disasm(0x00000005u, 0, text, sizeof(text), NULL,
				    NULL), NPU_EOBJ);
	ck_assert_str_eq(text, ".word   0x00000005");
	/* Small buffers truncate, never overflow. */
	ck_assert_int_eq(isa_disasm(w, 0x60, text, 6, sym_for_test, NULL), 0);
	ck_assert_str_eq(text, "dbnz ");
}
END_TEST

START_TEST(isa_lookup_names)
{
	char buf[16];

	ck_assert_int_eq(isa_reg_by_name("x0"), 0);
	ck_assert_int_eq(isa_reg_by_name("x31"), 31);
	ck_assert_int_eq(isa_reg_by_name("x32"), -1);
	ck_assert_int_eq(isa_reg_by_name("x01"), -1);
	ck_assert_int_eq(isa_reg_by_name("zero"), 0);
	ck_assert_int_eq(isa_reg_by_name("ra"), 1);
	ck_assert_int_eq(isa_reg_by_name("sp"), 2);
	ck_assert_int_eq(isa_reg_by_name("fp"), 8);
	ck_assert_int_eq(isa_reg_by_name("s0"), 8);
	ck_assert_int_eq(isa_reg_by_name("a0"), 10);
	ck_assert_int_eq(isa_reg_by_name("a7"), 17);
	ck_assert_int_eq(isa_reg_by_name("s2"), 18);
	ck_assert_int_eq(isa_reg_by_name("s11"), 27);
	ck_assert_int_eq(isa_reg_by_name("t3"), 28);
	ck_assert_int_eq(isa_reg_by_name("t6"), 31);
	ck_assert_int_eq(isa_reg_by_name("a8"), -1);
	ck_assert_int_eq(isa_unit_id_by_name("ctl"), 0);
	ck_assert_int_eq(isa_unit_id_by_name("mtx"), 1);
	ck_assert_int_eq(isa_unit_id_by_name("vec"), 2);
	ck_assert_int_eq(isa_unit_id_by_name("dma0"), 3);
	ck_assert_int_eq(isa_unit_id_by_name("dma63"), 66);
	ck_assert_int_eq(isa_unit_id_by_name("dma124"), 127);
	ck_assert_int_eq(isa_unit_id_by_name("dma125"), -1);
	ck_assert_int_eq(isa_unit_id_by_name("dma"), -1);
	ck_assert_str_eq(isa_unit_id_name(66, buf, sizeof(buf)), "dma63");
	ck_assert_int_eq(isa_csr_by_name("instret"), ISA_CSR_INSTRET);
	ck_assert_int_eq(isa_mfield_by_name("so"), ISA_MF_SO);
	ck_assert_int_eq(isa_vfield_by_name("zp"), ISA_VF_ZP);
	ck_assert_int_eq(isa_dfield_by_name("n3"), ISA_DF_N3);
	ck_assert_int_eq(isa_dfield_by_name("n4"), -1);
	ck_assert_int_eq(isa_op_by_name("vdequant"), ISA_OP_VDEQUANT);
	ck_assert_int_eq(isa_op_by_name("li"), -1); /* a pseudo, not an op */
}
END_TEST

/*
 * The memory-space table (memspaces.def): the numbers object files store
 * are pinned; every space round-trips name <-> id; the flags are
 * consistent with each other and the lookups refuse what is not a space.
 */
START_TEST(isa_memspaces_table)
{
	static const struct {
		int id;             /* ISA_MEM_<ID> */
		int value;          /* the number .npo files hold */
	} pinned[] = {
		{ ISA_MEM_DRAM, 0 }, { ISA_MEM_SPM, 1 }, { ISA_MEM_ACC, 2 },
		{ ISA_MEM_RSPM, 3 }, { ISA_MEM_DATA, 4 },
	};
	char buf[64];
	size_t k;
	int m, j;

	ck_assert_int_eq(ISA_N_MEMS, 5);
	for (k = 0; k < sizeof(pinned) / sizeof(pinned[0]); k++)
		ck_assert_int_eq(pinned[k].id, pinned[k].value);
	for (m = 0; m < ISA_N_MEMS; m++) {
		const struct isa_mem_info *mi = &isa_mem_info[m];

		ck_assert_msg(mi->name && *mi->name && mi->noun && *mi->noun &&
				      mi->doc && *mi->doc, "space %d", m);
		ck_assert_str_eq(isa_mem_name((uint64_t)m), mi->name);
		ck_assert_int_eq(isa_mem_by_name(mi->name), m);
		ck_assert_uint_eq(isa_mem_flags((uint64_t)m), mi->flags);
		for (j = 0; j < m; j++)
			ck_assert_str_ne(isa_mem_info[j].name, mi->name);
		/* only declared flags; a remote space is nobody's own, cannot
		 * be initialised and holds no vector operand; vector operands
		 * are in the core's own memories */
		ck_assert_uint_eq(mi->flags & ~((1u << ISA_N_MSFLAGS) - 1), 0);
		if (mi->flags & ISA_MS_REMOTE)
			ck_assert_uint_eq(mi->flags & (ISA_MS_CORE | ISA_MS_INIT |
						       ISA_MS_VEC), 0);
		if (mi->flags & ISA_MS_VEC)
			ck_assert(mi->flags & ISA_MS_CORE);
		/* a register-nameable space is an assembler constant, so no
		 * CONSTV row may take its name */
		for (k = 0; k < isa_n_consts; k++)
			ck_assert_str_ne(isa_consts[k].name, mi->name);
	}
	for (m = 0; m < ISA_N_MSFLAGS; m++)
		ck_assert(isa_msflag_names[m] && *isa_msflag_docs[m]);
	ck_assert_ptr_null(isa_mem_name(ISA_N_MEMS));
	ck_assert_ptr_null(isa_mem_name((uint64_t)-1));
	ck_assert_uint_eq(isa_mem_flags(ISA_N_MEMS), 0);
	ck_assert_int_eq(isa_mem_by_name("flash"), -1);
	ck_assert_int_eq(isa_mem_by_name(""), -1);
	/* the lists messages print */
	ck_assert_str_eq(isa_mem_list(ISA_MS_DMA, buf, sizeof(buf)),
			 "dram, spm, acc or rspm");
	ck_assert_str_eq(isa_mem_list(ISA_MS_INIT, buf, sizeof(buf)),
			 "dram, spm, acc or data");
	ck_assert_str_eq(isa_mem_list(ISA_MS_VEC, buf, sizeof(buf)), "spm or acc");
	ck_assert_str_eq(isa_mem_list(ISA_MS_REMOTE, buf, sizeof(buf)), "rspm");
	ck_assert_str_eq(isa_mem_list(ISA_MS_CORE | ISA_MS_DMA, buf,
				      sizeof(buf)), "spm or acc");
	ck_assert_str_eq(isa_mem_list(ISA_MS_CORE | ISA_MS_REMOTE, buf,
				      sizeof(buf)), "");
	ck_assert_str_eq(isa_mem_list(ISA_MS_DMA, buf, 8), "dram, s");
	/* names.def constants compared in C (mset df values) */
	for (k = 0; k < isa_n_consts; k++)
		if (!strcmp(isa_consts[k].name, "ws"))
			ck_assert_int_eq(isa_consts[k].value, ISA_CONST_WS);
		else if (!strcmp(isa_consts[k].name, "is"))
			ck_assert_int_eq(isa_consts[k].value, ISA_CONST_IS);
}
END_TEST

START_TEST(isa_doc_up_to_date)
{
	char *gen = NULL, *disk;
	size_t gen_n = 0, disk_n;
	FILE *fp = open_memstream(&gen, &gen_n);
	FILE *df = fopen("docs/isa.md", "rb");

	ck_assert_ptr_nonnull(fp);
	isa_write_doc(fp);
	fclose(fp);
	ck_assert_msg(df != NULL, "docs/isa.md missing (run from the top "
				  "directory; regenerate with make docs)");
	disk = malloc(gen_n + 2);
	disk_n = fread(disk, 1, gen_n + 1, df);
	fclose(df);
	ck_assert_msg(disk_n == gen_n && memcmp(disk, gen, gen_n) == 0,
		      "docs/isa.md is out of date: run 'make docs'");
	/* Every mnemonic is documented. */
	{
		int i;
		char key[64];

		for (i = 0; i < ISA_N_OPS; i++) {
			snprintf(key, sizeof(key), "### `%s`", isa_op_info[i].name);
			ck_assert_msg(strstr(gen, key) != NULL, "%s", key);
		}
	}
	free(disk);
	free(gen);
}
END_TEST

static Suite *suite_isa(void)
{
	Suite *s = suite_create("isa");

	TEST_ADD(s, isa_table_complete);
	TEST_ADD(s, isa_table_flags_match_format);
	TEST_ADD(s, isa_table_latency_classes);
	TEST_ADD(s, isa_table_vector_kinds);
	TEST_ADD(s, isa_table_syntax_matches_fields);
	TEST_ADD(s, isa_table_field_ranges);
	TEST_ADD(s, isa_overlap);
	TEST_ADD(s, isa_roundtrip_all);
	TEST_ADD(s, isa_encode_known_words);
	TEST_ADD(s, isa_encode_range_messages);
	TEST_ADD(s, isa_decode_reserved_and_unknown);
	TEST_ADD(s, isa_disasm_symbols_and_illegal);
	TEST_ADD(s, isa_lookup_names);
	TEST_ADD(s, isa_memspaces_table);
	TEST_ADD(s, isa_doc_up_to_date);
	return s;
}

TEST_MAIN(suite_isa)
