/*
 * isa.c - the ISA tables expanded from names.def, formats.def,
 * opcodes.def and memspaces.def, and the generic encoder, decoder and
 * disassembler.
 *
 * All bit work goes through isa_get_field/isa_set_field.  Encoding, decoding
 * and printing are driven by the format of the op: they loop over the
 * format's fields, so adding an instruction is one row in opcodes.def and
 * adding a format is one row in formats.def.
 *
 * Invariants: isa_op_info[op].match has only the opcode bits set; .mask has
 * the opcode bits and every reserved bit of the format, so two ops with
 * different opcodes never overlap.  The decoder's opcode map is built with
 * designated initialisers: a duplicate opcode is a compile error
 * (-Woverride-init / -Winitializer-overrides under -Werror).
 */
#include "isa.h"

#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- tables ---------------------------------------------------------------*/

/*
 * The flag column of opcodes.def uses short names (RD_RS1|WR_RD).  They are
 * enum constants private to this file, so no short name leaks into the rest
 * of the program.  E.g. RD_RS1 = ISA_RD_RS1 = 1 << ISA_FLAGBIT_RD_RS1,
 * the bit number being the row's position in names.def.
 */
enum {
#define FLAG(id, doc) id = ISA_##id,
#include "names.def"
};

/*
 * mask = every bit outside the format's fields: the 8 opcode bits plus the
 * reserved bits, which must read 0.  match = the opcode alone.  Example:
 * add (R3, fields [23:9]) has mask 0xff0001ff, match 0x01000000; lui (U,
 * fields [23:0]) has mask 0xff000000.  Both values appear in docs/isa.md.
 */
const struct isa_op_info isa_op_info[ISA_N_OPS] = {
#define OP(id_, mn, opc, fmt_, unit_, flags_, lat_, vk_, base_, sem_, doc_) \
	[ISA_OP_##id_] = {                                                 \
		.name = mn,                                                \
		.id = #id_,                                                \
		.opcode = opc,                                             \
		.fmt = ISA_##fmt_,                                         \
		.unit = ISA_##unit_,                                       \
		.flags = (uint32_t)(flags_),                               \
		.lat = ISA_##lat_,                                         \
		.vkind = ISA_##vk_,                                        \
		.base = ISA_OP_##base_,                                    \
		.mask = ~(uint32_t)ISA_FUSED_##fmt_,                       \
		.match = (uint32_t)(opc) << 24,                            \
		.sem = sem_,                                               \
		.doc = doc_,                                               \
	},
#include "opcodes.def"
};

/*
 * One row per formats.def FIELD.  .min/.max bound both directions: the
 * encoder refuses a value outside them and the decoder calls a word that
 * holds one illegal (e.g. CNT 0: a wait for nothing).
 */
const struct isa_field_info isa_field_info[ISA_N_FIELDS] = {
#define FIELD(id_, name_, mem_, lo_, w_, sh_, mn_, mx_, kind_, noun_)      \
	[ISA_FIELD_##id_] = {                                              \
		.id = #id_,                                                \
		.name = name_,                                             \
		.member = ISA_M_##mem_,                                    \
		.lo = lo_,                                                 \
		.width = w_,                                               \
		.shift = sh_,                                              \
		.kind = ISA_FK_##kind_,                                    \
		.min = mn_,                                                \
		.max = mx_,                                                \
		.noun = noun_,                                             \
	},
#include "formats.def"
};

/* 1 for a real field, 0 for the NONE padding. */
#define ISA_IS_FIELD(f) (ISA_FIELD_##f != ISA_FIELD_NONE)

/*
 * .n_fields counts the non-NONE entries; NONE is always trailing padding,
 * so fields[0 .. n_fields-1] are exactly the format's operands in syntax
 * order (the loops below rely on that).
 */
const struct isa_fmt_info isa_fmt_info[ISA_N_FMTS] = {
#define FORMAT(id_, syn_, f1, f2, f3, f4, doc_)                            \
	[ISA_FMT_##id_] = {                                                \
		.id = #id_,                                                \
		.syntax = syn_,                                            \
		.fields = { ISA_FIELD_##f1, ISA_FIELD_##f2,                \
			    ISA_FIELD_##f3, ISA_FIELD_##f4 },              \
		.n_fields = ISA_IS_FIELD(f1) + ISA_IS_FIELD(f2) +          \
			    ISA_IS_FIELD(f3) + ISA_IS_FIELD(f4),           \
		.used = ISA_FUSED_FMT_##id_,                               \
		.doc = doc_,                                               \
	},
#include "formats.def"
};

/*
 * The operand slots of names.def VKIND rows.  The shape macros exist only
 * here, while the table expands: UNUSED, TILE(TYPE), COL(OTYPE) ...
 */
#define UNUSED { ISA_VSH_NONE, ISA_VET_TYPE }
#define TILE(t) { ISA_VSH_TILE, ISA_VET_##t }
#define ROW(t) { ISA_VSH_ROW, ISA_VET_##t }
#define COL(t) { ISA_VSH_COL, ISA_VET_##t }
#define TRANS(t) { ISA_VSH_TRANS, ISA_VET_##t }
#define INDEXED(t) { ISA_VSH_INDEXED, ISA_VET_##t }
const struct isa_vkind_info isa_vkind_info[ISA_N_VKINDS] = {
#define VKIND(id_, name_, s1, s2, s3, d, doc_)                             \
	[ISA_VK_##id_] = { .name = name_, .opnd = { s1, s2, s3, d },       \
			   .doc = doc_ },
#include "names.def"
};
#undef UNUSED
#undef TILE
#undef ROW
#undef COL
#undef TRANS
#undef INDEXED

/*
 * Major opcode -> op + 1 (0 = no such opcode).  Two rows with the same
 * opcode initialise the same element twice, which the compiler rejects.
 * uint16_t, not uint8_t: op + 1 reaches 256 if every opcode is ever used.
 */
static const uint16_t op_of_opcode[256] = {
#define OP(id_, mn, opc, fmt_, unit_, flags_, lat_, vk_, base_, sem_, doc_) \
	[opc] = ISA_OP_##id_ + 1,
#include "opcodes.def"
};

/*
 * The BASE column: handlers are named after a row's base, so a base must
 * be a row of its own (no chains), executed by the same unit with the
 * same latency class as its variants.  Each row's unit, latency class and
 * base as constants, then one check per row at compile time.
 */
enum {
#define OP(id_, mn, opc, fmt_, unit_, flags_, lat_, vk_, base_, sem_, doc_) \
	ISA_UNIT_OF_##id_ = ISA_##unit_, ISA_LAT_OF_##id_ = ISA_##lat_,     \
	ISA_BASE_OF_##id_ = ISA_OP_##base_,
#include "opcodes.def"
};
#define OP(id_, mn, opc, fmt_, unit_, flags_, lat_, vk_, base_, sem_, doc_) \
	_Static_assert(ISA_BASE_OF_##base_ == (int)ISA_OP_##base_,          \
		       #id_ ": its base " #base_ " is a variant itself");   \
	_Static_assert(ISA_UNIT_OF_##base_ == ISA_UNIT_OF_##id_ &&          \
		       ISA_LAT_OF_##base_ == ISA_LAT_OF_##id_,              \
		       #id_ ": unit or latency class differs from its base " #base_);
#include "opcodes.def"

/*
 * Name and doc tables, index = enum value.  Designated initialisers keep
 * each entry at its id whatever order names.def lists them in.
 */
const char *const isa_unit_names[ISA_N_UNITS] = {
#define OPUNIT(id, name, doc) [ISA_UNIT_##id] = name,
#include "names.def"
};
const char *const isa_unit_docs[ISA_N_UNITS] = {
#define OPUNIT(id, name, doc) [ISA_UNIT_##id] = doc,
#include "names.def"
};
const char *const isa_flag_names[ISA_N_FLAGS] = {
#define FLAG(id, doc) [ISA_FLAGBIT_##id] = #id,
#include "names.def"
};
const char *const isa_flag_docs[ISA_N_FLAGS] = {
#define FLAG(id, doc) [ISA_FLAGBIT_##id] = doc,
#include "names.def"
};
const char *const isa_lat_names[ISA_N_LATS] = {
#define LATCLASS(id, name, doc) [ISA_LAT_##id] = name,
#include "names.def"
};
const char *const isa_lat_docs[ISA_N_LATS] = {
#define LATCLASS(id, name, doc) [ISA_LAT_##id] = doc,
#include "names.def"
};
const char *const isa_csr_names[ISA_N_CSRS] = {
#define CSR(id, name, doc) [ISA_CSR_##id] = name,
#include "names.def"
};
const char *const isa_csr_docs[ISA_N_CSRS] = {
#define CSR(id, name, doc) [ISA_CSR_##id] = doc,
#include "names.def"
};
const char *const isa_mfield_names[ISA_N_MFIELDS] = {
#define MFIELD(id, name, doc) [ISA_MF_##id] = name,
#include "names.def"
};
const char *const isa_mfield_docs[ISA_N_MFIELDS] = {
#define MFIELD(id, name, doc) [ISA_MF_##id] = doc,
#include "names.def"
};
const char *const isa_vfield_names[ISA_N_VFIELDS] = {
#define VFIELD(id, name, doc) [ISA_VF_##id] = name,
#include "names.def"
};
const char *const isa_vfield_docs[ISA_N_VFIELDS] = {
#define VFIELD(id, name, doc) [ISA_VF_##id] = doc,
#include "names.def"
};
const char *const isa_dfield_names[ISA_N_DFIELDS] = {
#define DFIELD(id, name, doc) [ISA_DF_##id] = name,
#include "names.def"
};
const char *const isa_dfield_docs[ISA_N_DFIELDS] = {
#define DFIELD(id, name, doc) [ISA_DF_##id] = doc,
#include "names.def"
};

/*
 * The flag column of memspaces.def uses short names (CORE|DMA), private to
 * this file like the opcode flags above.
 */
enum {
#define MSFLAG(id, name, doc) id = ISA_MS_##id,
#include "memspaces.def"
};

/*
 * A space's value is its row position, so that isa_mem_info[] and every
 * other table indexed by a space has no holes.  A row moved without its
 * value (or a value skipped) fails here; a row renumbered together with
 * its position would change the object format, which test_isa.c pins.
 */
#define MEMSPACE(id, name, value, flags, noun, doc)                        \
	_Static_assert((int)ISA_MEM_##id == (int)ISA_MEMROW_##id,          \
		       "memspaces.def: " #id "'s value must equal its row " \
		       "position (0, 1, 2, ...)");
#include "memspaces.def"

const struct isa_mem_info isa_mem_info[ISA_N_MEMS] = {
#define MEMSPACE(id, name_, value, flags_, noun_, doc_)                    \
	[ISA_MEM_##id] = {                                                 \
		.name = name_,                                             \
		.flags = (unsigned)(flags_),                               \
		.noun = noun_,                                             \
		.doc = doc_,                                               \
	},
#include "memspaces.def"
};
const char *const isa_msflag_names[ISA_N_MSFLAGS] = {
#define MSFLAG(id, name, doc) [ISA_MSBIT_##id] = name,
#include "memspaces.def"
};
const char *const isa_msflag_docs[ISA_N_MSFLAGS] = {
#define MSFLAG(id, name, doc) [ISA_MSBIT_##id] = doc,
#include "memspaces.def"
};

/* Positional on purpose: isa_consts is a list, not indexed by an enum. */
const struct isa_const isa_consts[] = {
#define CONSTV(id, name, value, doc) { name, value, doc },
#include "names.def"
};
const size_t isa_n_consts = sizeof(isa_consts) / sizeof(isa_consts[0]);

/* Each constant's name as an object of its own, so a table indexed by
 * value can take names from names.def instead of repeating them. */
#define CONSTV(id, name, value, doc) static const char const_name_##id[] = name;
#include "names.def"
#undef CONSTV

const char *const isa_dataflow_names[ISA_N_DATAFLOWS] = {
	[ISA_CONST_WS] = const_name_WS,
	[ISA_CONST_OS] = const_name_OS,
	[ISA_CONST_IS] = const_name_IS,
};

const char *isa_dataflow_list(char *buf, size_t n)
{
	size_t len = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < ISA_N_DATAFLOWS && len < n; k++)
		len += (size_t)snprintf(buf + len, n - len, "%s%d (%s)",
					k == 0 ? "" : k == ISA_N_DATAFLOWS - 1
							  ? " or " : ", ",
					k, isa_dataflow_names[k]);
	return buf;
}

/* RISC-V's ABI names, which kernel writers already know. */
const char *const isa_reg_names[32] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2",
	"s0",   "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6",   "a7", "s2", "s3", "s4", "s5", "s6", "s7",
	"s8",   "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

/* ---- fields ---------------------------------------------------------------*/

/* 1 if f is one of fmt's fields (the debug-build operand check). */
int isa_fmt_has_field(enum isa_fmt fmt, enum isa_field f)
{
	int i;

	for (i = 0; i < isa_fmt_info[fmt].n_fields; i++)
		if (isa_fmt_info[fmt].fields[i] == f)
			return 1;
	return 0;
}

/* The field's bits, right-aligned (width <= 24). */
/* (1ull, not 1u: well-defined even for a 32-bit field, which no FIELD has) */
static uint32_t field_mask(const struct isa_field_info *fi)
{
	return (uint32_t)((1ull << fi->width) - 1);
}

/*
 * Example: OFF14 holding 0x3fff is -1 after sign extension and -4 after
 * the shift of 2, i.e. a branch to the previous instruction.
 */
int64_t isa_get_field(uint32_t word, enum isa_fmt fmt, enum isa_field f)
{
	const struct isa_field_info *fi = &isa_field_info[f];
	uint32_t bits;
	int64_t v;

#ifdef NPU_DEBUG
	assert(isa_fmt_has_field(fmt, f));
#else
	(void)fmt;
#endif
	bits = (word >> fi->lo) & field_mask(fi);
	v = (int64_t)bits;
	/* Sign-extend fields that hold negative values (min < 0). */
	if (fi->min < 0 && ((bits >> (fi->width - 1)) & 1))
		v -= (int64_t)1 << fi->width;
	/* Multiply rather than shift: left-shifting a negative value is UB. */
	return v * ((int64_t)1 << fi->shift);
}

/*
 * Checks in this order: range (branch and jump targets get their own
 * wording, since the user wrote an address, not an offset), then
 * alignment of shifted fields, then the insertion itself.  The error text
 * goes to err; the assembler prefixes it with file:line:col.
 */
int isa_set_field(uint32_t *word, enum isa_fmt fmt, enum isa_field f,
		  int64_t v, char *err, size_t errlen)
{
	const struct isa_field_info *fi = &isa_field_info[f];
	uint32_t bits;

#ifdef NPU_DEBUG
	assert(isa_fmt_has_field(fmt, f));
#else
	(void)fmt;
#endif
	if (fi->kind == ISA_FK_PCREL && (v < fi->min || v > fi->max)) {
		snprintf(err, errlen,
			 "%s too far: offset %" PRId64
			 " bytes, reachable range [%" PRId64 ", %" PRId64 "]",
			 fi->noun, v, fi->min, fi->max);
		return NPU_ERANGE;
	}
	if (v < fi->min || v > fi->max) {
		/* Fields the disassembler prints in hex speak hex here too. */
		if (fi->kind == ISA_FK_MASK || fi->kind == ISA_FK_HEX)
			snprintf(err, errlen,
				 "%s %s0x%" PRIx64 " out of range [%s0x%" PRIx64
				 ", 0x%" PRIx64 "]", fi->noun, v < 0 ? "-" : "",
				 v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v,
				 fi->min < 0 ? "-" : "",
				 fi->min < 0 ? (uint64_t)0 - (uint64_t)fi->min
					     : (uint64_t)fi->min,
				 (uint64_t)fi->max);
		else
			snprintf(err, errlen,
				 "%s %" PRId64 " out of range [%" PRId64
				 ", %" PRId64 "]",
				 fi->noun, v, fi->min, fi->max);
		return NPU_ERANGE;
	}
	/*
	 * Only OFF14/OFF19 have a shift (2): instructions are 4 bytes, so a
	 * target offset that is not a multiple of 4 cannot be encoded.
	 */
	if (fi->shift && ((uint64_t)v & ((1u << fi->shift) - 1))) {
		snprintf(err, errlen,
			 "%s is not %d-byte aligned: offset %" PRId64 " bytes",
			 fi->noun, 1 << fi->shift, v);
		return NPU_ERANGE;
	}
	/*
	 * Two's complement truncation: shifting the unsigned image right keeps
	 * the low bits of the (exact) quotient v / 2^shift.
	 */
	bits = (uint32_t)((uint64_t)v >> fi->shift) & field_mask(fi);
	*word = (*word & ~(field_mask(fi) << fi->lo)) | (bits << fi->lo);
	return 0;
}

/*
 * Generic access to struct isa_insn members, so that encoding, decoding and
 * printing can loop over a format's fields (formats.def names the member).
 */
int64_t isa_insn_get(const struct isa_insn *in, enum isa_member m)
{
	switch (m) {
	case ISA_M_RD: return in->rd;
	case ISA_M_RS1: return in->rs1;
	case ISA_M_RS2: return in->rs2;
	case ISA_M_RS3: return in->rs3;
	case ISA_M_FN: return in->fn;
	case ISA_M_UNIT: return in->unit;
	case ISA_M_SEM: return in->sem;
	case ISA_M_CFG: return in->cfg;
	case ISA_M_IMM: return in->imm;
	}
	return 0;
}

void isa_insn_set(struct isa_insn *in, enum isa_member m, int64_t v)
{
	/* Callers store field values, which fit the narrower members. */
	switch (m) {
	case ISA_M_RD: in->rd = (uint8_t)v; break;
	case ISA_M_RS1: in->rs1 = (uint8_t)v; break;
	case ISA_M_RS2: in->rs2 = (uint8_t)v; break;
	case ISA_M_RS3: in->rs3 = (uint8_t)v; break;
	case ISA_M_FN: in->fn = (uint8_t)v; break;
	case ISA_M_UNIT: in->unit = (uint8_t)v; break;
	case ISA_M_SEM: in->sem = (uint8_t)v; break;
	case ISA_M_CFG: in->cfg = (uint8_t)v; break;
	case ISA_M_IMM: in->imm = v; break;
	}
}

/* ---- encode / decode ------------------------------------------------------*/

/*
 * One table lookup by major opcode, then the mask check (reserved bits must
 * be 0) and a range check of every field: a word decodes only if encoding
 * the result gives the word back.  Cost: one array index and at most 4
 * field extractions, no search.  On failure *out is all zero, so a caller
 * that prints it regardless never shows stale fields.
 */
int isa_decode(uint32_t word, struct isa_insn *out)
{
	const struct isa_op_info *oi;
	const struct isa_fmt_info *fi;
	unsigned e = op_of_opcode[word >> 24];
	int i;

	memset(out, 0, sizeof(*out));
	/* Unassigned opcode, including 0x00: an all-zero word never decodes. */
	if (!e)
		return NPU_EOBJ;
	oi = &isa_op_info[e - 1];
	/* A reserved bit set: not this instruction (nor any other). */
	if ((word & oi->mask) != oi->match)
		return NPU_EOBJ;
	fi = &isa_fmt_info[oi->fmt];
	for (i = 0; i < fi->n_fields; i++) {
		enum isa_field f = fi->fields[i];
		int64_t v = isa_get_field(word, oi->fmt, f);

		/* Values the bits can hold but the ISA does not define. */
		if (v < isa_field_info[f].min || v > isa_field_info[f].max) {
			memset(out, 0, sizeof(*out));
			return NPU_EOBJ;
		}
		isa_insn_set(out, isa_field_info[f].member, v);
	}
	/* Set last: a partially decoded word is never returned as an op. */
	out->op = (enum isa_op)(e - 1);
	return 0;
}

/*
 * Encode through isa_set_field, field by field; members the format does
 * not use are ignored.  *out is written only on success.
 */
int isa_encode(const struct isa_insn *in, uint32_t *out, char *err,
	       size_t errlen)
{
	const struct isa_fmt_info *fi;
	uint32_t w;
	int i;

	if ((unsigned)in->op >= ISA_N_OPS) {
		snprintf(err, errlen, "no instruction with id %d", (int)in->op);
		return NPU_ERANGE;
	}
	/* Start from the opcode with every reserved bit 0 (they stay 0). */
	w = isa_op_info[in->op].match;
	fi = &isa_fmt_info[isa_op_info[in->op].fmt];
	for (i = 0; i < fi->n_fields; i++) {
		enum isa_field f = fi->fields[i];
		int r = isa_set_field(&w, isa_op_info[in->op].fmt, f,
				      isa_insn_get(in, isa_field_info[f].member),
				      err, errlen);
		if (r)
			return r;
	}
	*out = w;
	return 0;
}

/* ---- disassembly ----------------------------------------------------------*/

/* A bounded string builder: appends never overflow and always terminate. */
struct sbuf {
	char *buf;   /* destination */
	size_t n;    /* its size */
	size_t len;  /* characters written so far (may exceed n - 1) */
};

/* A separate prototype: GCC takes the format attribute only there. */
static void sb_printf(struct sbuf *s, const char *fmt, ...) NPU_PRINTF(2, 3);

/* Append formatted text; past the end only the length grows. */
static void sb_printf(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	if (s->len < s->n)
		r = vsnprintf(s->buf + s->len, s->n - s->len, fmt, ap);
	else
		r = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (r > 0)
		s->len += (size_t)r;
}

/* The unit ids' names (names.def SUNIT rows), by id; the last row is
 * dma0, the first of the numbered DMA engines. */
static const char *const fixed_unit_names[ISA_UID_DMA0 + 1] = {
#define SUNIT(id, name, value, doc) [ISA_UID_##id] = name,
#include "names.def"
#undef SUNIT
};

/* Unit ids from dma0 on are DMA engines: id ISA_UID_DMA0+k is dma<k>. */
const char *isa_unit_id_name(unsigned u, char *buf, size_t n)
{
	if (u < ISA_UID_DMA0)
		snprintf(buf, n, "%s", fixed_unit_names[u]);
	else
		snprintf(buf, n, "dma%u", u - ISA_UID_DMA0);
	return buf;
}

/* Print one field value in the syntax the assembler reads back. */
/*
 * v must be a legal value of f (from isa_decode or a successful encode):
 * the name tables are indexed by it without a bound check.
 */
static void print_field(struct sbuf *s, enum isa_field f, int64_t v,
			uint64_t pc, const struct isa_names *nm)
{
	isa_symbolize_fn symbolize = nm ? nm->label : NULL;
	void *ctx = nm ? nm->label_ctx : NULL;
	char tmp[16];

	switch (isa_field_info[f].kind) {
	case ISA_FK_REG:
		/* & 31: a stray value still indexes inside the 32 names. */
		sb_printf(s, "%s", isa_reg_names[v & 31]);
		break;
	case ISA_FK_IMM:
		sb_printf(s, "%" PRId64, v);
		break;
	case ISA_FK_HEX:
		if (v < 0)
			sb_printf(s, "-0x%" PRIx64, (uint64_t)0 - (uint64_t)v);
		else
			sb_printf(s, "0x%" PRIx64, (uint64_t)v);
		break;
	case ISA_FK_PCREL: {
		/* Unsigned add: pc + a negative offset wraps instead of overflowing. */
		uint64_t target = pc + (uint64_t)v;
		const char *name = symbolize ? symbolize(ctx, target) : NULL;

		if (name)
			sb_printf(s, "%s", name);
		else
			sb_printf(s, "0x%" PRIx64, target);
		break;
	}
	case ISA_FK_CSR:
		sb_printf(s, "%s", isa_csr_names[v]);
		break;
	case ISA_FK_MFIELD:
		sb_printf(s, "%s", isa_mfield_names[v]);
		break;
	case ISA_FK_VFIELD:
		sb_printf(s, "%s", isa_vfield_names[v]);
		break;
	case ISA_FK_DFIELD:
		sb_printf(s, "%s", isa_dfield_names[v]);
		break;
	case ISA_FK_UNIT:
		sb_printf(s, "%s", isa_unit_id_name((unsigned)v, tmp,
						    sizeof(tmp)));
		break;
	case ISA_FK_MASK: {
		uint32_t m = (uint32_t)v;
		unsigned u;
		int first = 1;

		/* 0xffffff; the assembler maps both "all" and -1 to it. */
		if (m == ISA_FENCE_ALL) {
			sb_printf(s, "all");
			break;
		}
		/*
		 * Bit 23 stands for "every unit from id 23 on": it has no
		 * name, so such masks (and the empty one) print as numbers.
		 */
		if (m == 0 || (m >> 23)) {
			sb_printf(s, "0x%x", m);
			break;
		}
		for (u = 0; u < 23; u++) {
			if (!(m >> u & 1))
				continue;
			sb_printf(s, "%s%s", first ? "" : "|",
				  isa_unit_id_name(u, tmp, sizeof(tmp)));
			first = 0;
		}
		break;
	}
	case ISA_FK_REGION: {
		const char *name = nm && nm->region
			? nm->region(nm->region_ctx, (uint64_t)v) : NULL;
		const char *p;

		if (!name) {
			sb_printf(s, "%" PRId64, v);
			break;
		}
		if (isa_is_ident(name)) {
			sb_printf(s, "%s", name);
			break;
		}
		/* A string literal, escaped as the assembler's lexer reads
		 * it back (names are printable: only " and \ need it). */
		sb_printf(s, "\"");
		for (p = name; *p; p++)
			sb_printf(s, "%s%c", *p == '"' || *p == '\\' ? "\\" : "",
				  *p);
		sb_printf(s, "\"");
		break;
	}
	}
}

int isa_is_ident(const char *s)
{
	const char *p;

	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '.'))
			return 0;
	return 1;
}

/*
 * Print by walking the format's syntax string: words are replaced by field
 * values, everything else is copied.  This is the assembler's own syntax,
 * which is why every listing line assembles back to the same word.
 */
void isa_format_insn(const struct isa_insn *in, uint64_t pc, char *buf,
		     size_t n, isa_symbolize_fn symbolize, void *ctx)
{
	struct isa_names nm = { symbolize, ctx, NULL, NULL };

	isa_format_insn_names(in, pc, buf, n, &nm);
}

void isa_format_insn_names(const struct isa_insn *in, uint64_t pc,
			   char *buf, size_t n, const struct isa_names *nm)
{
	struct sbuf s = { buf, n, 0 };
	const struct isa_op_info *oi;
	const char *p;
	enum isa_fmt fmt;

	if (n)
		buf[0] = '\0';
	if ((unsigned)in->op >= ISA_N_OPS) {
		sb_printf(&s, "<bad op %d>", (int)in->op);
		return;
	}
	oi = &isa_op_info[in->op];
	fmt = oi->fmt;
	p = isa_fmt_info[fmt].syntax;
	if (!*p) {
		sb_printf(&s, "%s", oi->name);
		return;
	}
	/* Mnemonic padded to a column so operands line up in listings. */
	sb_printf(&s, "%-7s ", oi->name);
	while (*p) {
		size_t len = 0;
		enum isa_field f;

		while ((p[len] >= 'a' && p[len] <= 'z') ||
		       (p[len] >= '0' && p[len] <= '9'))
			len++;
		if (!len) {
			sb_printf(&s, "%c", *p++);
			continue;
		}
		/* A word of lowercase letters and digits: "rd", "rs1", "imm", ... */
		f = isa_fmt_field(fmt, p, len);
		/* formats.def syntax words name the format's fields (tested). */
		if (f != ISA_FIELD_NONE)
			print_field(&s, f,
				    isa_insn_get(in, isa_field_info[f].member),
				    pc, nm);
		p += len;
	}
}

/* Decode and print; an illegal word prints as data. */
int isa_disasm(uint32_t word, uint64_t pc, char *buf, size_t n,
	       isa_symbolize_fn symbolize, void *ctx)
{
	struct isa_names nm = { symbolize, ctx, NULL, NULL };

	return isa_disasm_names(word, pc, buf, n, &nm);
}

int isa_disasm_names(uint32_t word, uint64_t pc, char *buf, size_t n,
		     const struct isa_names *nm)
{
	struct isa_insn in;

	/* objdump shows words that do not decode this way (docs/formats.md). */
	if (isa_decode(word, &in)) {
		/* Printed so that it assembles back to the same word. */
		snprintf(buf, n, ".word   0x%08x", word);
		return NPU_EOBJ;
	}
	isa_format_insn_names(&in, pc, buf, n, nm);
	return 0;
}

/* ---- lookups --------------------------------------------------------------*/

/* Map a syntax word to the format's field (len: the word is not terminated). */
enum isa_field isa_fmt_field(enum isa_fmt fmt, const char *name, size_t len)
{
	const struct isa_fmt_info *fi = &isa_fmt_info[fmt];
	int i;

	for (i = 0; i < fi->n_fields; i++) {
		const char *fn = isa_field_info[fi->fields[i]].name;

		if (strlen(fn) == len && memcmp(fn, name, len) == 0)
			return fi->fields[i];
	}
	return ISA_FIELD_NONE;
}

/* Index of name in a table of n names, or -1. */
static int find_name(const char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/* Mnemonic -> op (about 100 ops: a linear scan per statement is cheap). */
int isa_op_by_name(const char *mnemonic)
{
	int i;

	/* First character before strcmp: a scan costs ~ISA_N_OPS compares. */
	for (i = 0; i < ISA_N_OPS; i++)
		if (isa_op_info[i].name[0] == mnemonic[0] &&
		    strcmp(isa_op_info[i].name, mnemonic) == 0)
			return i;
	return -1;
}

/* Parse a decimal number without sign or leading zeros; -1 if not one. */
/*
 * Leading zeros are refused so each register and unit has one spelling
 * ("x01", "dma007" stay unknown names and get a did-you-mean), which keeps
 * disassembly -> assembly a one-to-one mapping.  max bounds the value as
 * digits accumulate, so a long digit string cannot overflow long.
 */
static long parse_index(const char *s, long max)
{
	long v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > max)
			return -1;
	}
	return v;
}

/* x0..x31, the ABI names and fp (= s0). */
int isa_reg_by_name(const char *name)
{
	if (name[0] == 'x')
		return (int)parse_index(name + 1, 31);
	if (strcmp(name, "fp") == 0)
		return 8; /* frame pointer = s0, as in RISC-V */
	/* every ABI name is 2-4 characters: other identifiers (most of the
	 * ones an assembler asks about) are not scanned for */
	if (!name[0] || !name[1] || (name[2] && name[3] && name[4]))
		return -1;
	return find_name(isa_reg_names, 32, name);
}

/* ctl, mtx, vec and dma<k> for k up to 124 (7-bit unit field). */
int isa_unit_id_by_name(const char *name)
{
	long k;
	int u = find_name(fixed_unit_names, ISA_UID_DMA0, name);

	if (u >= 0)
		return u;
	if (strncmp(name, "dma", 3) != 0)
		return -1;
	/* 127 - 3 = 124: the largest engine number the 7-bit unit field holds. */
	k = parse_index(name + 3, ISA_UID_MAX - ISA_UID_DMA0);
	return k < 0 ? -1 : (int)(ISA_UID_DMA0 + k);
}

int isa_csr_by_name(const char *name)
{
	return find_name(isa_csr_names, ISA_N_CSRS, name);
}

int isa_mfield_by_name(const char *name)
{
	return find_name(isa_mfield_names, ISA_N_MFIELDS, name);
}

int isa_vfield_by_name(const char *name)
{
	return find_name(isa_vfield_names, ISA_N_VFIELDS, name);
}

int isa_dfield_by_name(const char *name)
{
	return find_name(isa_dfield_names, ISA_N_DFIELDS, name);
}

/* ---- memory spaces ----------------------------------------------------------*/

const char *isa_mem_name(uint64_t mem)
{
	return mem < ISA_N_MEMS ? isa_mem_info[mem].name : NULL;
}

unsigned isa_mem_flags(uint64_t mem)
{
	return mem < ISA_N_MEMS ? isa_mem_info[mem].flags : 0;
}

int isa_mem_by_name(const char *name)
{
	int m;

	for (m = 0; m < ISA_N_MEMS; m++)
		if (strcmp(isa_mem_info[m].name, name) == 0)
			return m;
	return -1;
}

/* "a", "a or b", "a, b or c": the separator before the last name is " or ". */
const char *isa_mem_list(unsigned flags, char *buf, size_t n)
{
	size_t used = 0;
	int m, k = 0, total = 0;

	for (m = 0; m < ISA_N_MEMS; m++)
		total += (isa_mem_info[m].flags & flags) == flags;
	if (n)
		buf[0] = '\0';
	for (m = 0; m < ISA_N_MEMS; m++) {
		if ((isa_mem_info[m].flags & flags) != flags)
			continue;
		/* A cut list stays NUL-terminated: snprintf never writes past
		 * n - used, and nothing is written once used reaches n. */
		if (used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s",
						 k == 0 ? "" : k == total - 1 ? " or " : ", ",
						 isa_mem_info[m].name);
		k++;
	}
	return buf;
}
