/*
 * asm.c - the assembler: statements, directives, the two passes, the program.
 *
 * Pass 1 (assemble -> do_line): lines come from asm_next_line (asm_src.c:
 * the main file, .include'd files, macro expansions).  Each line first meets the
 * line-level machinery - macro body capture (.macro ... .endm) and
 * conditional assembly (.if/.elif/.else/.endif) - and, if it is live, is
 * tokenised: labels get the current location, directives act (sections,
 * .equ, data layout) and instructions are parsed against the syntax string
 * of their format into operands whose expressions are kept as trees.  Every
 * statement's size is known in pass 1 (li decides its length here), so all
 * label addresses are final at the end of pass 1.
 *
 * Pass 2 (encode_all): walk the statements in order, evaluate expressions
 * (all symbols are now known), encode through isa_set_field, and write data
 * bytes into their chunks.  Errors in pass 2 point at the operand that is
 * wrong; pass 1 errors mark their statement bad so it is not reported again.
 *
 * Invariants:
 *   - a statement's size is fixed in pass 1 and pass 2 writes exactly that
 *     many bytes at its address (li is recomputed and its length checked);
 *   - a statement that failed in pass 1 becomes ST_ALIGN with aux = -1: it
 *     keeps the bytes it had reserved (4 for a bad instruction, so later
 *     labels do not move) and emits nothing;
 *   - the data bytes of a chunk are the bytes of its obj_section: they are
 *     allocated once pass 1 has fixed every size (alloc_prog), and pass 2
 *     writes through the chunk;
 *   - errors are collected and printed at cleanup in reading order, so the
 *     output is the same whichever pass found them.
 *
 * A failed assembly returns NPU_EASM and no program; the CLI then writes no
 * output file.
 */
#include "asm.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/dtype.h"
#include "../util/strutil.h"
#include "asm_int.h"

/*
 * Where record for the command line (-D).
 * The arena zeroes the record, so seq is 0 and exp NULL: -D errors sort
 * before the first source line and have no macro notes.
 */
static struct where *cmdline_where(struct asm_ctx *A, const char *text)
{
	struct where *w = arena_alloc(&A->ar, sizeof(*w));

	if (w) {
		w->file = "<command line>";
		w->line = 1;
		w->text = text;
	}
	return w;
}

/* ---- reading files --------------------------------------------------------*/

/* ---- symbols --------------------------------------------------------------*/

/* How a symbol was defined, for "redefinition of" messages. */
static const char *sym_kind_desc(const struct sym *s)
{
	switch (s->kind) {
	case SK_BUILTIN: return "a predefined constant";
	case SK_LABEL: return "a label";
	case SK_EQU: return "a .equ constant";
	case SK_DEFINE: return "defined with -D";
	case SK_TENSOR: return "a tensor";
	}
	return "a symbol";
}

/*
 * Define a new symbol named by token t; reports redefinitions and reserved
 * names.  Returns NULL after an error.
 */
static struct sym *define_sym(struct asm_ctx *A, const struct where *w,
			      const struct tok *t, enum sym_kind kind)
{
	/* 255 characters: the longest name an object file can hold. */
	char name[256];
	struct sym *s;

	if (t->len >= (int)sizeof(name)) {
		asm_error(A, w, t->col, "name too long (%d characters)", t->len);
		return NULL;
	}
	memcpy(name, t->s, (size_t)t->len);
	name[t->len] = '\0';
	if (asm_name_reserved(name)) {
		asm_error(A, w, t->col,
			  "'%s' is a register name and cannot be a symbol", name);
		return NULL;
	}
	/* '.' lexes as an identifier (names may contain dots). */
	if (!strcmp(name, ".")) {
		asm_error(A, w, t->col, "'.' is the current address and cannot "
					"be defined");
		return NULL;
	}
	s = asm_sym_find(A, name);
	if (s) {
		if (s->w)
			asm_error(A, w, t->col,
				  "redefinition of '%s' (%s defined at %s:%d)",
				  name, sym_kind_desc(s), s->w->file,
				  s->w->line);
		else
			asm_error(A, w, t->col, "'%s' is already %s", name,
				  sym_kind_desc(s));
		return NULL;
	}
	s = asm_sym_add(A, name, (size_t)t->len);
	if (!s)
		return NULL;
	s->kind = kind;
	s->w = w;
	s->col = t->col;
	return s;
}

/*
 * The predefined names: dtype names (their dtype id), the memory spaces a
 * register can name (dset/vset smem and dmem: memspaces.def rows with DMA
 * or VEC) and names.def constants (dataflows, relu).  They live in the
 * symbol table so that redefining one is the ordinary redefinition error.
 * asm_write_doc lists them in the same order.
 */
static int define_builtins(struct asm_ctx *A)
{
	size_t i;
	struct sym *s;

	for (i = 0; i < DT_N; i++) {
		const char *n = dtype_name((enum npu_dtype)i);

		if (!(s = asm_sym_add(A, n, strlen(n))))
			return EV_ERR;
		s->kind = SK_BUILTIN;
		s->value = (int64_t)i;
	}
	for (i = 0; i < ISA_N_MEMS; i++) {
		const char *n = isa_mem_info[i].name;

		if (!(isa_mem_info[i].flags & (ISA_MS_DMA | ISA_MS_VEC)))
			continue;
		if (!(s = asm_sym_add(A, n, strlen(n))))
			return EV_ERR;
		s->kind = SK_BUILTIN;
		s->value = (int64_t)i;
	}
	for (i = 0; i < isa_n_consts; i++) {
		const char *n = isa_consts[i].name;

		if (!(s = asm_sym_add(A, n, strlen(n))))
			return EV_ERR;
		s->kind = SK_BUILTIN;
		s->value = isa_consts[i].value;
	}
	return 0;
}

/*
 * -D NAME[=VALUE]: a constant defined before the first line.
 * As with cc: "-D NAME" is 1.  The value is an expression evaluated at
 * once (dot = 0), so it may use the predefined names and earlier -D
 * names only; nothing of the source is known yet.  The identifier check
 * mirrors the lexer's [A-Za-z_.][A-Za-z0-9_.]*.
 */
static void define_cmdline(struct asm_ctx *A, const char *def)
{
	const struct where *w = cmdline_where(A, def);
	const char *eq = strchr(def, '=');
	size_t nlen = eq ? (size_t)(eq - def) : strlen(def), k;
	struct tok nt;
	struct sym *s;
	int64_t v = 1;

	if (!w) {
		asm_oom(A);
		return;
	}
	for (k = 0; k < nlen; k++)
		if (!((def[k] >= 'a' && def[k] <= 'z') ||
		      (def[k] >= 'A' && def[k] <= 'Z') || def[k] == '_' ||
		      def[k] == '.' || (k > 0 && def[k] >= '0' && def[k] <= '9')))
			break;
	if (nlen == 0 || k != nlen) {
		asm_error(A, w, (int)k + 1, "-D needs NAME or NAME=VALUE with "
					    "NAME an identifier");
		return;
	}
	if (eq) {
		int i = 0;
		struct expr *e;
		char buf[64];

		/* Columns of the value are relative to the whole argument. */
		if (asm_lex(A, eq + 1, w))
			return;
		for (k = 0; k < (size_t)A->tk.n; k++)
			A->tk.v[k].col += (int)nlen + 1;
		if (!(e = asm_parse_expr(A, w, &i)))
			return;
		if (A->tk.v[i].k != T_EOL) {
			asm_error(A, w, A->tk.v[i].col,
				  "unexpected %s in -D value",
				  asm_tok_desc(&A->tk.v[i], buf, sizeof(buf)));
			return;
		}
		if (asm_eval(A, e, 0, w, &v) != EV_OK) {
			if (A->pass == 1 && asm_first_undef(A, e))
				asm_error(A, w, (int)nlen + 2,
					  "-D value uses '%s', which is not a "
					  "predefined constant",
					  asm_first_undef(A, e));
			return;
		}
	}
	memset(&nt, 0, sizeof(nt));
	nt.s = def;
	nt.len = (int)nlen;
	nt.col = 1;
	s = define_sym(A, w, &nt, SK_DEFINE);
	if (s)
		s->value = v;
}

/* ---- statements -----------------------------------------------------------*/

/*
 * Append a statement at the current location of the current space; its
 * size is set by reserve().  n_ops operand slots are allocated zeroed.
 *
 * The list is in source order, which is the order pass 2 encodes in and
 * so the order in which a statement's errors appear relative to others
 * of the same line.
 */
static struct stmt *new_stmt(struct asm_ctx *A, enum stmt_kind k,
			     const struct where *w, int col, int n_ops)
{
	struct stmt *s = arena_alloc(&A->ar, sizeof(*s));

	if (!s || (n_ops && !(s->ops = arena_alloc(&A->ar, (size_t)n_ops *
							      sizeof(*s->ops))))) {
		asm_oom(A);
		return NULL;
	}
	s->kind = k;
	s->w = w;
	s->col = col;
	s->space = A->space;
	s->addr = A->loc[A->space];
	*A->stmt_tail = s;
	A->stmt_tail = &s->next;
	return s;
}

/* Directive name of each location counter, for messages. */
static const char *const space_names[SP_N] = {
	[SP_TEXT] = ".text", [SP_DATA] = ".data", [SP_DRAM] = ".dram",
	[SP_SPM] = ".spm",   [SP_ACC] = ".acc",
};

/*
 * The object-file memory of each data space (-1: .text is code).
 * (Label symbols of a data space carry this memory into the object.)
 */
static const int space_mem[SP_N] = {
	[SP_TEXT] = -1, [SP_DATA] = OBJ_MEM_DATA, [SP_DRAM] = OBJ_MEM_DRAM,
	[SP_SPM] = OBJ_MEM_SPM, [SP_ACC] = OBJ_MEM_ACC,
};

/*
 * Reserve size bytes at the current location of the current space; for
 * data spaces, in the open chunk (started on demand).  Checks the limits.
 */
static int reserve_(struct asm_ctx *A, struct stmt *s, uint64_t size);

/*
 * reserve_, and a statement that cannot be placed emits nothing.
 * Split in two so that every error path of reserve_ turns the statement
 * into an empty ST_ALIGN in one place: a statement that could not be
 * placed occupies no bytes and encodes nothing.
 */
static int reserve(struct asm_ctx *A, struct stmt *s, uint64_t size)
{
	int r = reserve_(A, s, size);

	if (r) {
		s->kind = ST_ALIGN;
		s->aux = -1;
		s->size = 0;
	}
	return r;
}

static int reserve_(struct asm_ctx *A, struct stmt *s, uint64_t size)
{
	int sp = A->space;
	uint64_t at = A->loc[sp];

	/* Location counters never wrap: address + size stays exact. */
	if (size > UINT64_MAX - at)
		return asm_error(A, s->w, s->col,
				 "%s location overflows 64 bits", space_names[sp]);
	if (sp == SP_TEXT) {
		/* 4 Mi words = 16 MiB of code. */
		if ((at + size) / 4 > ASM_MAX_CODE_WORDS) {
			A->fatal = 1; /* every later instruction would repeat it */
			return asm_error(A, s->w, s->col,
					 "program too large (more than %u "
					 "instructions)", ASM_MAX_CODE_WORDS);
		}
	} else if (size) {
		/*
		 * A chunk is one contiguous run: it grows while statements
		 * follow each other in the space and ends when a section
		 * directive gives a new address (open[sp] = NULL).  Padding
		 * (.align, .zero) in a data space is part of the chunk, as
		 * zero bytes, so the overlap check sees it too.
		 */
		struct chunk *c = A->open[sp];

		if (size > ASM_MAX_DATA_BYTES - A->data_bytes)
			return asm_error(A, s->w, s->col,
					 "too much initialised data (limit %u "
					 "MiB); use .tensor and npusim run "
					 "--input for large tensors",
					 ASM_MAX_DATA_BYTES >> 20);
		if (!c) {
			c = arena_alloc(&A->ar, sizeof(*c));
			if (!c)
				return asm_oom(A);
			c->space = sp;
			c->start = at;
			c->w = s->w;
			c->col = s->col;
			*A->chunk_tail = c;
			A->chunk_tail = &c->next;
			A->open[sp] = c;
		}
		c->size += size;
		s->chunk = c;
		A->data_bytes += size;
	}
	s->size = size;
	A->loc[sp] = at + size;
	return 0;
}

/* ---- operand parsing ------------------------------------------------------*/

/*
 * Count the operand words of a syntax string.
 * A word is a maximal run [a-z][a-z0-9]*, as in isa_format_insn: e.g.
 * "rd, imm(rs1)" has 3 (rd, imm, rs1), "" has 0.
 */
static int syntax_words(const char *p)
{
	int n = 0;

	while (*p) {
		if (*p >= 'a' && *p <= 'z') {
			n++;
			while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
				p++;
		} else {
			p++;
		}
	}
	return n;
}

/* "'add' expects 3 operands: add rd, rs1, rs2" */
static int operand_count_error(struct asm_ctx *A, const struct where *w,
			       int col, const char *mn, const char *syntax)
{
	int n = syntax_words(syntax);

	if (n == 0)
		return asm_error(A, w, col, "'%s' takes no operands", mn);
	return asm_error(A, w, col, "'%s' expects %d operand%s: %s %s", mn, n,
			 n == 1 ? "" : "s", mn, syntax);
}

/*
 * Kind of a syntax word of a pseudo-instruction.
 * pseudo.def syntax uses only rd/rs1/rs2 (registers), imm (an integer
 * expression) and target (an address made pc-relative in pass 2).
 */
static enum isa_field_kind pseudo_word_kind(const char *p, size_t len)
{
	if ((len == 6 && !memcmp(p, "target", 6)))
		return ISA_FK_PCREL;
	if (len == 3 && !memcmp(p, "imm", 3))
		return ISA_FK_IMM;
	return ISA_FK_REG;
}

/* Name of a namespace of operand names, for "unknown X 'y'". */
static const char *fk_noun(enum isa_field_kind k)
{
	switch (k) {
	case ISA_FK_CSR: return "CSR";
	case ISA_FK_MFIELD: return "mset field";
	case ISA_FK_VFIELD: return "vset field";
	case ISA_FK_DFIELD: return "dset field";
	case ISA_FK_UNIT: return "unit";
	default: return "name";
	}
}

/* Look name up in the namespace of kind k; -1 if absent. */
static int name_lookup(enum isa_field_kind k, const char *name)
{
	switch (k) {
	case ISA_FK_CSR: return isa_csr_by_name(name);
	case ISA_FK_MFIELD: return isa_mfield_by_name(name);
	case ISA_FK_VFIELD: return isa_vfield_by_name(name);
	case ISA_FK_DFIELD: return isa_dfield_by_name(name);
	case ISA_FK_UNIT: return isa_unit_id_by_name(name);
	default: return -1;
	}
}

/*
 * Did-you-mean within one namespace.  Units are suggested among the fixed
 * names and the first DMA engines; "dma" alone thus suggests "dma0".
 *
 * Suggesting among 125 DMA names would propose dma7 for "dma77" and
 * similar noise; four engines cover the typical configurations.
 */
static const char *name_suggest(enum isa_field_kind k, const char *name)
{
	static const char *const units[] = { "ctl", "mtx", "vec", "dma0",
					     "dma1", "dma2", "dma3" };

	switch (k) {
	case ISA_FK_CSR:
		return str_suggest(name, isa_csr_names, ISA_N_CSRS,
				   sizeof(char *));
	case ISA_FK_MFIELD:
		return str_suggest(name, isa_mfield_names, ISA_N_MFIELDS,
				   sizeof(char *));
	case ISA_FK_VFIELD:
		return str_suggest(name, isa_vfield_names, ISA_N_VFIELDS,
				   sizeof(char *));
	case ISA_FK_DFIELD:
		return str_suggest(name, isa_dfield_names, ISA_N_DFIELDS,
				   sizeof(char *));
	case ISA_FK_UNIT:
		return str_suggest(name, units, sizeof(units) / sizeof(units[0]),
				   sizeof(char *));
	case ISA_FK_REG:
		return str_suggest(name, isa_reg_names, 32, sizeof(char *));
	default:
		return NULL;
	}
}

static int is_op(const struct tok *t, int op)
{
	return t->k == T_PUNCT && t->op == op;
}

/*
 * 1 if the operand at token i is a single word (followed by ',' or EOL).
 * Name-or-expression operands (CSR, field, unit) take a lone word as a
 * name: `sig U, 0` looks up a unit called U even if U is an .equ symbol;
 * `sig (U), 0` or any longer expression is evaluated as a number.  The
 * token after i exists: every line ends in T_EOL.
 */
static int single_word(const struct tok *v, int i)
{
	return v[i].k == T_IDENT && (v[i + 1].k == T_EOL || is_op(&v[i + 1], ','));
}

/*
 * Parse a fence mask: all | unit(|unit)* | expression.
 * Bit i of the 24-bit mask is unit id i for ids 0..22 (ctl, mtx, vec,
 * dma0..dma19); bit 23 stands for every id >= 23, so naming dma20 or
 * above is refused rather than silently widened.  An expression (or
 * -1, mapped to ISA_FENCE_ALL in encode_insn) gives any mask.  A first
 * word that is not a unit name starts an expression, so symbols work.
 */
static int parse_mask(struct asm_ctx *A, const struct where *w, int *i,
		      struct opnd *o)
{
	const struct tok *v = A->tk.v;
	char name[64];
	uint32_t mask = 0;

	if (v[*i].k == T_IDENT && single_word(v, *i) &&
	    !strcmp(asm_tok_text(&v[*i], name, sizeof(name)), "all")) {
		o->kind = OPD_VAL;
		o->val = ISA_FENCE_ALL;
		(*i)++;
		return 0;
	}
	if (v[*i].k != T_IDENT ||
	    isa_unit_id_by_name(asm_tok_text(&v[*i], name, sizeof(name))) < 0) {
		o->kind = OPD_EXPR;
		o->e = asm_parse_expr(A, w, i);
		return o->e ? 0 : EV_ERR;
	}
	for (;;) {
		int u;

		if (v[*i].k != T_IDENT)
			return asm_error(A, w, v[*i].col,
					 "expected a unit name after '|'");
		u = isa_unit_id_by_name(asm_tok_text(&v[*i], name, sizeof(name)));
		if (u < 0) {
			const char *sug = name_suggest(ISA_FK_UNIT, name);

			return asm_error(A, w, v[*i].col,
					 "unknown unit '%s'%s%s%s", name,
					 sug ? " (did you mean '" : "",
					 sug ? sug : "", sug ? "'?)" : "");
		}
		if (u > 22)
			return asm_error(A, w, v[*i].col,
					 "unit %s has no bit of its own in a fence "
					 "mask (bits 0-22 are unit ids 0-22); use "
					 "'all' or 0x800000 for every unit from "
					 "id 23 on", name);
		mask |= 1u << u;
		(*i)++;
		if (!is_op(&v[*i], '|'))
			break;
		(*i)++;
	}
	o->kind = OPD_VAL;
	o->val = mask;
	return 0;
}

/*
 * A region operand: a single identifier or string names the region (its
 * id is its position among the names in order of first use, fixed in
 * pass 1 so that the disassembly of a program assembles back to the same
 * ids); anything else is an integer expression giving the id, which pass
 * 2 range-checks and build_regions covers with a generated name.
 */
static int parse_region(struct asm_ctx *A, const struct where *w, int *i,
			struct opnd *o)
{
	const struct tok *v = A->tk.v;
	int named = (v[*i].k == T_IDENT || v[*i].k == T_STR) &&
		    (v[*i + 1].k == T_EOL || is_op(&v[*i + 1], ','));
	const char *name;
	size_t k;

	if (!named) {
		o->kind = OPD_EXPR;
		o->e = asm_parse_expr(A, w, i);
		return o->e ? 0 : EV_ERR;
	}
	name = v[*i].k == T_STR ? v[*i].str
			       : arena_strndup(&A->ar, v[*i].s, (size_t)v[*i].len);
	if (!name)
		return asm_oom(A);
	if (!prog_region_name_ok(name))
		return asm_error(A, w, v[*i].col,
				 "a region name is 1 to %d printable characters "
				 "(no control characters)", PROG_MAX_REGION_NAME);
	/* Linear: a program names a handful of regions. */
	for (k = 0; k < A->n_regions; k++)
		if (!strcmp(A->regions[k], name))
			break;
	if (k == A->n_regions) {
		if (A->n_regions >= PROG_MAX_REGIONS)
			return asm_error(A, w, v[*i].col,
					 "more than %d regions in one program",
					 PROG_MAX_REGIONS);
		if (A->n_regions == A->cap_regions) {
			size_t cap = A->cap_regions ? 2 * A->cap_regions : 16;
			const char **nv = realloc(A->regions, cap * sizeof(*nv));

			if (!nv)
				return asm_oom(A);
			A->regions = nv;
			A->cap_regions = cap;
		}
		A->regions[A->n_regions++] = name;
	}
	o->kind = OPD_VAL;
	o->val = (int64_t)k;
	(*i)++;
	return 0;
}

/*
 * Parse the operands of mnemonic mn (token index *i) against syntax; fmt is
 * the format of a real instruction or -1 for a pseudo-instruction.  ops gets
 * one entry per syntax word, in order.
 *
 * ops[k].col is the column of the operand's first token: pass 2 range
 * errors (isa_set_field) put their caret there.  mn_col is unused: the
 * operand-count errors point at the token where an operand is missing.
 */
static int parse_operands(struct asm_ctx *A, const struct where *w, int *i,
			  const char *mn, int mn_col, const char *syntax,
			  int fmt, struct opnd *ops)
{
	const struct tok *v = A->tk.v;
	const char *p = syntax;
	int k = 0;
	char buf[64], name[64];

	/*
	 * Walk the syntax string: punctuation must match a token, each word
	 * consumes one operand of the word's field kind.  The same string is
	 * what the disassembler prints, so whatever it prints parses here.
	 */
	while (*p) {
		size_t len = 0;
		enum isa_field_kind kind;
		struct opnd *o;

		if (*p == ' ') {
			p++;
			continue;
		}
		if (!(*p >= 'a' && *p <= 'z')) {
			/* Literal punctuation of the syntax. */
			if (is_op(&v[*i], *p)) {
				(*i)++;
				p++;
				continue;
			}
			if (v[*i].k == T_EOL && *p == ',')
				return operand_count_error(A, w, v[*i].col, mn,
							   syntax);
			return asm_error(A, w, v[*i].col,
					 "expected '%c', found %s (%s %s)", *p,
					 asm_tok_desc(&v[*i], buf, sizeof(buf)),
					 mn, syntax);
		}
		while ((p[len] >= 'a' && p[len] <= 'z') ||
		       (p[len] >= '0' && p[len] <= '9'))
			len++;
		/* formats.def syntax words name fields (test_isa checks it). */
		if (fmt >= 0)
			kind = isa_field_info[isa_fmt_field((enum isa_fmt)fmt, p,
							    len)].kind;
		else
			kind = pseudo_word_kind(p, len);
		o = &ops[k++];
		o->col = v[*i].col;
		if (v[*i].k == T_EOL)
			return operand_count_error(A, w, v[*i].col, mn, syntax);
		switch (kind) {
		case ISA_FK_REG: {
			int r = -1;

			if (v[*i].k == T_IDENT)
				r = isa_reg_by_name(asm_tok_text(&v[*i], name,
							     sizeof(name)));
			if (r < 0) {
				const char *sug = v[*i].k == T_IDENT
					? name_suggest(ISA_FK_REG, name) : NULL;

				if (v[*i].k != T_IDENT)
					return asm_error(
						A, w, v[*i].col,
						"expected a register, found %s",
						asm_tok_desc(&v[*i], buf,
							     sizeof(buf)));
				return asm_error(A, w, v[*i].col,
						 "'%s' is not a register%s%s%s",
						 name,
						 sug ? " (did you mean '" : "",
						 sug ? sug : "",
						 sug ? "'?)" : "");
			}
			o->kind = OPD_REG;
			o->reg = r;
			(*i)++;
			break;
		}
		case ISA_FK_IMM:
		case ISA_FK_HEX:
		case ISA_FK_PCREL:
			/*
			 * "imm(rs1)" with the imm left out: (rs1) means 0(rs1).
			 * The operand is then a constant 0 and the '(' is left
			 * for the syntax string's own "(" to consume.
			 */
			if (p[len] == '(' && is_op(&v[*i], '(') &&
			    v[*i + 1].k == T_IDENT &&
			    isa_reg_by_name(asm_tok_text(&v[*i + 1], name,
						     sizeof(name))) >= 0 &&
			    is_op(&v[*i + 2], ')')) {
				o->kind = OPD_VAL;
				o->val = 0;
				break;
			}
			o->kind = OPD_EXPR;
			o->e = asm_parse_expr(A, w, i);
			if (!o->e)
				return EV_ERR;
			break;
		case ISA_FK_CSR:
		case ISA_FK_MFIELD:
		case ISA_FK_VFIELD:
		case ISA_FK_DFIELD:
		case ISA_FK_UNIT:
			/* A single word names a register/field/unit ... */
			if (single_word(v, *i)) {
				int id = name_lookup(kind, asm_tok_text(&v[*i], name,
								    sizeof(name)));

				if (id < 0) {
					const char *sug = name_suggest(kind, name);

					return asm_error(
						A, w, v[*i].col,
						"unknown %s '%s'%s%s%s",
						fk_noun(kind), name,
						sug ? " (did you mean '" : "",
						sug ? sug : "",
						sug ? "'?)" : "");
				}
				o->kind = OPD_VAL;
				o->val = id;
				(*i)++;
				break;
			}
			/* ... anything else is a numeric expression. */
			o->kind = OPD_EXPR;
			o->e = asm_parse_expr(A, w, i);
			if (!o->e)
				return EV_ERR;
			break;
		case ISA_FK_MASK:
			if (parse_mask(A, w, i, o))
				return EV_ERR;
			break;
		case ISA_FK_REGION:
			if (parse_region(A, w, i, o))
				return EV_ERR;
			break;
		}
		p += len;
	}
	/* Leftovers mean too many operands or junk after the last one. */
	if (v[*i].k != T_EOL) {
		if (!*syntax)
			return asm_error(A, w, v[*i].col,
					 "'%s' takes no operands", mn);
		return asm_error(A, w, v[*i].col,
				 "unexpected %s after the operands (%s %s)",
				 asm_tok_desc(&v[*i], buf, sizeof(buf)), mn,
				 syntax);
	}
	(void)mn_col;
	return 0;
}

/*
 * Require the current section to be .text for an instruction.
 * Code lives only in .text (pc 0 up); data spaces hold bytes only.
 */
static int need_text(struct asm_ctx *A, const struct where *w, int col,
		     const char *what)
{
	if (A->space == SP_TEXT)
		return 0;
	return asm_error(A, w, col,
			 "%s in a %s section; instructions go in .text", what,
			 space_names[A->space]);
}

/*
 * A real instruction at token *i: parse its operands by its format's syntax
 * (pass 1); pass 2 evaluates and encodes.  A statement whose operands fail
 * to parse keeps its 4 bytes (so later labels do not move, avoiding a
 * cascade of bogus branch errors) but encodes nothing.
 */
static void stmt_insn(struct asm_ctx *A, const struct where *w, int *i,
		      int op)
{
	const struct isa_op_info *oi = &isa_op_info[op];
	const struct isa_fmt_info *fi = &isa_fmt_info[oi->fmt];
	int col = A->tk.v[*i].col;
	struct stmt *s;

	if (need_text(A, w, col, "instruction"))
		return;
	(*i)++;
	/* One operand slot per format field, in syntax order. */
	s = new_stmt(A, ST_INSN, w, col, fi->n_fields);
	if (!s)
		return;
	s->id = op;
	s->n = fi->n_fields;
	if (parse_operands(A, w, i, oi->name, col, fi->syntax, (int)oi->fmt,
			   s->ops)) {
		s->kind = ST_ALIGN; /* keep the layout; encode nothing */
		s->aux = -1;
	}
	(void)reserve(A, s, 4);
}

/*
 * A pseudo-instruction: one real instruction (pseudo.def), or li, whose
 * length must be fixed here in pass 1 because labels after it depend on it.
 */
static void stmt_pseudo(struct asm_ctx *A, const struct where *w, int *i,
			int ps)
{
	const struct asm_pseudo *pi = &asm_pseudos[ps];
	int col = A->tk.v[*i].col, n = syntax_words(pi->syntax);
	struct stmt *s;
	uint64_t size = 4;

	if (need_text(A, w, col, "instruction"))
		return;
	(*i)++;
	s = new_stmt(A, ps == ASM_PS_LI ? ST_LI : ST_PSEUDO, w, col, n);
	if (!s)
		return;
	s->id = ps;
	s->n = n;
	if (parse_operands(A, w, i, pi->name, col, pi->syntax, -1, s->ops)) {
		s->kind = ST_ALIGN;
		s->aux = -1;
	} else if (ps == ASM_PS_LI) {
		/*
		 * The length of li is decided now.  A value known in pass 1
		 * gets the shortest sequence; a forward reference gets the
		 * fixed lui+addi pair, checked in pass 2.
		 */
		struct isa_insn seq[ASM_LI_MAX];
		int64_t v = 0;
		/*
		 * ops[1] is OPD_VAL only for the "(rs1)" shortcut,
		 * which li's syntax never matches: v stays 0 then.
		 */
		int r = s->ops[1].kind == OPD_VAL
			? EV_OK : asm_eval(A, s->ops[1].e, s->addr, w, &v);

		if (r == EV_OK) {
			size = 4 * (uint64_t)asm_li_sequence(v, 0, seq);
		} else if (r == EV_UNDEF) {
			/* aux = 1 marks the long form for encode_li. */
			size = 8;
			s->aux = 1;
			/* Remember who forced the long form, for pass 2. */
			s->name = asm_first_undef(A, s->ops[1].e);
		} else {
			s->kind = ST_ALIGN;
			s->aux = -1;
		}
	}
	(void)reserve(A, s, size);
}

/* ---- directives -----------------------------------------------------------*/

/* Consume the ',' between directive operands, or report what was found. */
static int expect_comma(struct asm_ctx *A, const struct where *w, int *i,
			const char *dir, const char *operands)
{
	char buf[64];

	if (is_op(&A->tk.v[*i], ',')) {
		(*i)++;
		return 0;
	}
	return asm_error(A, w, A->tk.v[*i].col,
			 "expected ',' but found %s (%s %s)",
			 asm_tok_desc(&A->tk.v[*i], buf, sizeof(buf)), dir,
			 operands);
}

/*
 * .text / .data / .dram / .spm / .acc [ADDR]
 * Without an address the space is just selected and continues at its
 * location counter (and in its open chunk), so `.dram` blocks split by
 * code pile up contiguously.  Each space starts at address 0.
 */
static void dir_section(struct asm_ctx *A, const struct where *w, int i,
			int sp, const char *dir)
{
	int64_t addr;

	if (A->tk.v[i].k == T_EOL) {
		A->space = sp;
		return;
	}
	if (sp == SP_TEXT) {
		(void)asm_error(A, w, A->tk.v[i].col,
				".text takes no address: code always starts "
				"at pc 0");
		return;
	}
	if (asm_expr_now(A, w, &i, "the section address", &addr) ||
	    asm_expect_eol(A, w, i, dir))
		return;
	A->space = sp;
	A->loc[sp] = (uint64_t)addr;
	A->open[sp] = NULL; /* the next byte starts a new chunk */
}

/* .byte/.half/.word/.dword list */
static void dir_data(struct asm_ctx *A, const struct where *w, int i, int col,
		     int width, const char *dir)
{
	int n = 1, k, j;
	struct stmt *s;

	if (A->space == SP_TEXT && width != 4) {
		(void)asm_error(A, w, col,
				"%s in .text: code is 32-bit words (use .word, "
				"or switch to a data section)", dir);
		return;
	}
	/*
	 * Unreachable today (.text only grows in whole words); kept because
	 * put_word indexes code by addr / 4.
	 */
	if (A->space == SP_TEXT && A->loc[SP_TEXT] % 4) {
		(void)asm_error(A, w, col, ".word in .text must be aligned");
		return;
	}
	/*
	 * Count the top-level commas to size the operand array.
	 * Expressions contain no commas, so commas + 1 is the exact operand
	 * count of a well-formed list (fewer are used on an error).
	 */
	for (j = i; A->tk.v[j].k != T_EOL; j++)
		n += is_op(&A->tk.v[j], ',');
	if (A->tk.v[i].k == T_EOL) {
		(void)asm_error(A, w, A->tk.v[i].col, "%s needs at least one "
						      "value", dir);
		return;
	}
	s = new_stmt(A, ST_DATA, w, col, n);
	if (!s)
		return;
	s->aux = width;
	for (k = 0; k < n; k++) {
		s->ops[k].col = A->tk.v[i].col;
		s->ops[k].kind = OPD_EXPR;
		if (!(s->ops[k].e = asm_parse_expr(A, w, &i)))
			goto bad;
		if (A->tk.v[i].k == T_EOL)
			break;
		if (expect_comma(A, w, &i, dir, "EXPR[, EXPR...]"))
			goto bad;
	}
	/* Parenthesised commas (none in expressions) cannot occur: k+1 == n. */
	s->n = k + 1;
	(void)reserve(A, s, (uint64_t)width * (uint64_t)s->n);
	return;
bad:
	s->kind = ST_ALIGN;
	s->aux = -1;
	(void)reserve(A, s, 0);
}

/*
 * .float list
 * Floats are not expressions (expressions are 64-bit integers), so the
 * list is read token by token: optional signs, then a decimal or hex
 * float, an integer, inf or nan.  The bit pattern is final in pass 1.
 */
static void dir_float(struct asm_ctx *A, const struct where *w, int i, int col)
{
	int n = 1, k, j;
	struct stmt *s;
	char buf[64];

	if (A->space == SP_TEXT) {
		(void)asm_error(A, w, col, ".float in .text: switch to a data "
					   "section first");
		return;
	}
	for (j = i; A->tk.v[j].k != T_EOL; j++)
		n += is_op(&A->tk.v[j], ',');
	s = new_stmt(A, ST_FLOAT, w, col, n);
	if (!s)
		return;
	for (k = 0; k < n; k++) {
		const struct tok *t = &A->tk.v[i];
		double sign = 1.0, v;

		while (is_op(t, '-') || is_op(t, '+')) {
			if (t->op == '-')
				sign = -sign;
			t = &A->tk.v[++i];
		}
		/* One rounding to fp32 for either kind of literal. */
		if (t->k == T_FLOAT)
			v = t->fnum32;
		else if (t->k == T_NUM)
			v = (float)t->num;
		else if (t->k == T_IDENT && t->len == 3 && !strncmp(t->s, "inf", 3))
			v = INFINITY;
		else if (t->k == T_IDENT && t->len == 3 && !strncmp(t->s, "nan", 3))
			v = NAN; /* the positive quiet NaN, 0x7fc00000 */
		else {
			(void)asm_error(A, w, t->col,
					"expected a number, found %s",
					asm_tok_desc(t, buf, sizeof(buf)));
			goto bad;
		}
		s->ops[k].kind = OPD_VAL;
		s->ops[k].val = asm_f32_bits(sign * v);
		i++;
		if (A->tk.v[i].k == T_EOL)
			break;
		if (expect_comma(A, w, &i, ".float", "NUMBER[, NUMBER...]"))
			goto bad;
	}
	s->n = k + 1;
	(void)reserve(A, s, 4 * (uint64_t)s->n);
	return;
bad:
	s->kind = ST_ALIGN;
	s->aux = -1;
	(void)reserve(A, s, 0);
}

/*
 * .zero N and .fill N, SIZE, VALUE
 * N and SIZE shape the layout and must be known in pass 1; VALUE may use
 * later labels (it is evaluated in pass 2).  .zero is an ST_ALIGN: its
 * bytes are the zeros calloc gave the section.  The count is capped at
 * the data limit (64 MiB) before any size is multiplied.
 */
static void dir_fill(struct asm_ctx *A, const struct where *w, int i, int col,
		     int is_fill)
{
	int64_t count, size = 1;
	struct stmt *s;
	const char *dir = is_fill ? ".fill" : ".zero";

	if (A->space == SP_TEXT) {
		(void)asm_error(A, w, col, "%s in .text: switch to a data section "
					   "first", dir);
		return;
	}
	if (asm_expr_now(A, w, &i, "the count", &count))
		return;
	if (count < 0 || count > (int64_t)ASM_MAX_DATA_BYTES) {
		(void)asm_error(A, w, col, "%s count %lld out of range [0, %u]",
				dir, (long long)count, ASM_MAX_DATA_BYTES);
		return;
	}
	s = new_stmt(A, is_fill ? ST_FILL : ST_ALIGN, w, col, 1);
	if (!s)
		return;
	if (is_fill) {
		int vcol;

		if (expect_comma(A, w, &i, dir, "N, SIZE, VALUE") ||
		    asm_expr_now(A, w, &i, "the element size", &size) ||
		    expect_comma(A, w, &i, dir, "N, SIZE, VALUE"))
			goto bad;
		if (size != 1 && size != 2 && size != 4 && size != 8) {
			(void)asm_error(A, w, col, ".fill size %lld must be 1, 2, "
						   "4 or 8", (long long)size);
			goto bad;
		}
		vcol = A->tk.v[i].col;
		s->ops[0].kind = OPD_EXPR;
		s->ops[0].col = vcol;
		if (!(s->ops[0].e = asm_parse_expr(A, w, &i)))
			goto bad;
		s->n = 1;
		s->aux = size;
		s->aux2 = count;
	}
	if (asm_expect_eol(A, w, i, dir))
		goto bad;
	(void)reserve(A, s, (uint64_t)count * (uint64_t)size);
	return;
bad:
	s->kind = ST_ALIGN;
	s->aux = -1;
	(void)reserve(A, s, 0);
}

/*
 * .align N pads to a multiple of N: zero bytes in data, nops in code (so
 * execution may run through the padding).
 */
static void dir_align(struct asm_ctx *A, const struct where *w, int i, int col)
{
	int64_t n;
	uint64_t pad;
	struct stmt *s;

	if (asm_expr_now(A, w, &i, "the alignment", &n) ||
	    asm_expect_eol(A, w, i, ".align"))
		return;
	/* 1 MiB: bounds the padding one .align can add. */
	if (n <= 0 || (n & (n - 1)) || n > (1 << 20)) {
		(void)asm_error(A, w, col, ".align %lld: the alignment must be a "
					   "power of two up to 1048576",
				(long long)n);
		return;
	}
	if (A->space == SP_TEXT && n % 4) {
		(void)asm_error(A, w, col, ".align %lld in .text: code needs a "
					   "multiple of 4", (long long)n);
		return;
	}
	/* Bytes to the next multiple of n; 0 when already aligned. */
	pad = ((uint64_t)n - A->loc[A->space] % (uint64_t)n) % (uint64_t)n;
	s = new_stmt(A, ST_ALIGN, w, col, 0);
	if (s)
		(void)reserve(A, s, pad);
}

/*
 * .equ NAME, EXPR
 * The value is computed now if it can be (with `.` = here); a forward
 * reference stays pending and is evaluated on first use or, at the
 * latest, by check_symbols after pass 2.  Redefinition is an error:
 * symbols have one value for the whole program.
 */
static void dir_equ(struct asm_ctx *A, const struct where *w, int i)
{
	const struct tok *nt = &A->tk.v[i];
	struct expr *e;
	struct sym *s;
	char buf[64];
	int64_t v;
	int r;

	if (nt->k != T_IDENT) {
		(void)asm_error(A, w, nt->col, "expected a name after .equ, "
					       "found %s",
				asm_tok_desc(nt, buf, sizeof(buf)));
		return;
	}
	i++;
	if (expect_comma(A, w, &i, ".equ", "NAME, EXPR"))
		return;
	e = asm_parse_expr(A, w, &i);
	if (!e || asm_expect_eol(A, w, i, ".equ"))
		return;
	s = define_sym(A, w, nt, SK_EQU);
	if (!s)
		return;
	s->dot = A->loc[A->space];
	/* While its own expression is evaluated, a use of it is a cycle. */
	s->state = SS_EVALUATING;
	r = asm_eval(A, e, s->dot, w, &v);
	if (r == EV_OK) {
		s->state = SS_VALUE;
		s->value = v;
	} else if (r == EV_UNDEF) {
		s->state = SS_PENDING; /* a forward reference: resolved later */
		s->e = e;
	} else {
		s->state = SS_BAD;
	}
}

/*
 * .tunable NAME, V1[, V2...]: a schedule parameter and its legal values.
 * Undefined, NAME becomes V1; defined (by -D or .equ), its value must be
 * in the list.  Recorded for the object (obj_prog.tunables) in pass 1.
 */
static void dir_tunable(struct asm_ctx *A, const struct where *w, int i)
{
	const struct tok *nt = &A->tk.v[i];
	struct obj_tunable t, *v;
	char name[256], buf[64];
	struct sym *s;
	size_t k;

	memset(&t, 0, sizeof(t));
	if (nt->k != T_IDENT) {
		(void)asm_error(A, w, nt->col, "expected a name after .tunable, found %s",
				asm_tok_desc(nt, buf, sizeof(buf)));
		return;
	}
	if (nt->len >= (int)sizeof(name)) {
		(void)asm_error(A, w, nt->col, "name too long (%d characters)", nt->len);
		return;
	}
	memcpy(name, nt->s, (size_t)nt->len);
	name[nt->len] = '\0';
	i++;
	do {
		const struct tok *vt;
		struct expr *e;
		int64_t x, *nv;

		if (expect_comma(A, w, &i, ".tunable", "NAME, V1[, V2...]"))
			goto fail;
		vt = &A->tk.v[i];
		e = asm_parse_expr(A, w, &i);
		if (!e)
			goto fail;
		if (asm_eval(A, e, A->loc[A->space], w, &x) != EV_OK) {
			(void)asm_error(A, w, vt->col, ".tunable values must be known here");
			goto fail;
		}
		if (!(nv = realloc(t.values, (t.n_values + 1) * sizeof(*nv)))) {
			(void)asm_oom(A);
			goto fail;
		}
		t.values = nv;
		t.values[t.n_values++] = x;
	} while (A->tk.v[i].k != T_EOL);
	for (k = 0; k < A->n_tunables; k++)
		if (!strcmp(A->tunables[k].name, name)) {
			(void)asm_error(A, w, nt->col, "'%s' is already a .tunable", name);
			goto fail;
		}
	s = asm_sym_find(A, name);
	if (s) {
		if (s->state != SS_VALUE) {
			(void)asm_error(A, w, nt->col, "'%s' must have a known value here", name);
			goto fail;
		}
		for (k = 0; k < t.n_values && t.values[k] != s->value; k++)
			;
		if (k == t.n_values) {
			char list[200];
			size_t used = 0;

			for (k = 0; k < t.n_values && used < sizeof(list) - 24; k++)
				used += (size_t)snprintf(list + used, sizeof(list) - used,
							 "%s%lld", k ? ", " : "",
							 (long long)t.values[k]);
			(void)asm_error(A, w, nt->col, "%s = %lld is not one of its "
					".tunable values (%s)", name,
					(long long)s->value, list);
			goto fail;
		}
	} else {
		s = define_sym(A, w, nt, SK_EQU);
		if (!s)
			goto fail;
		s->state = SS_VALUE;
		s->value = t.values[0];
	}
	if (!(t.name = str_dup(name)) ||
	    !(v = realloc(A->tunables, (A->n_tunables + 1) * sizeof(*v)))) {
		(void)asm_oom(A);
		goto fail;
	}
	A->tunables = v;
	A->tunables[A->n_tunables++] = t;
	return;
fail:
	free(t.name);
	free(t.values);
}

/*
 * .tensor NAME, MEM, ADDR, DTYPE, D0[, D1...]
 * Operands of the statement: ops[0] the memory (a name, known now),
 * ops[1] ADDR, ops[2] DTYPE, ops[3..] the dimensions; n counts them as
 * 3 + the commas after MEM.  The tensor's name is also a symbol whose
 * value is ADDR, pending until first use (so it may name a later label).
 */
static void dir_tensor(struct asm_ctx *A, const struct where *w, int i, int col)
{
	static const char ops[] = "NAME, MEM, ADDR, DTYPE, D0[, D1...]";
	const struct tok *nt = &A->tk.v[i], *mt;
	struct stmt *s;
	struct sym *sym;
	char name[64], mems[64];
	int n = 3, k, mem;

	if (nt->k != T_IDENT) {
		(void)asm_error(A, w, nt->col, "expected the tensor name (%s %s)",
				".tensor", ops);
		return;
	}
	i++;
	if (expect_comma(A, w, &i, ".tensor", ops))
		return;
	mt = &A->tk.v[i];
	mem = mt->k == T_IDENT ? obj_mem_by_name(asm_tok_text(mt, name, sizeof(name)))
			       : -1;
	if (mem < 0) {
		/* The spaces a program may initialise (obj_mem_by_name's). */
		(void)asm_error(A, w, mt->col, "expected a memory (%s), found %s",
				isa_mem_list(ISA_MS_INIT, mems, sizeof(mems)),
				asm_tok_desc(mt, name, sizeof(name)));
		return;
	}
	i++;
	if (expect_comma(A, w, &i, ".tensor", ops))
		return;
	{
		int j;

		for (j = i; A->tk.v[j].k != T_EOL; j++)
			n += is_op(&A->tk.v[j], ',');
	}
	s = new_stmt(A, ST_TENSOR, w, col, n + 1);
	if (!s)
		return;
	s->ops[0].kind = OPD_VAL;
	s->ops[0].val = mem;
	s->ops[0].col = mt->col;
	/* ADDR, DTYPE, dims: expressions, evaluated in pass 2. */
	for (k = 1; k <= n; k++) {
		s->ops[k].col = A->tk.v[i].col;
		s->ops[k].kind = OPD_EXPR;
		if (!(s->ops[k].e = asm_parse_expr(A, w, &i)))
			goto bad;
		if (A->tk.v[i].k == T_EOL)
			break;
		if (expect_comma(A, w, &i, ".tensor", ops))
			goto bad;
	}
	if (k < 3) {
		(void)asm_error(A, w, A->tk.v[i].col,
				".tensor needs at least one dimension (.tensor "
				"%s)", ops);
		goto bad;
	}
	s->n = k + 1;
	if (s->n - 3 > OBJ_MAX_RANK) {
		(void)asm_error(A, w, s->ops[3 + OBJ_MAX_RANK].col,
				"a tensor has at most %d dimensions", OBJ_MAX_RANK);
		goto bad;
	}
	s->name = arena_strndup(&A->ar, nt->s, (size_t)nt->len);
	sym = define_sym(A, w, nt, SK_TENSOR);
	if (!s->name || !sym)
		goto bad;
	sym->space = mem;
	sym->state = SS_PENDING;
	sym->e = s->ops[1].e;
	sym->dot = A->loc[A->space];
	A->n_tensors++;
	return;
bad:
	s->kind = ST_ALIGN;
	s->aux = -1;
}

/* ---- macros ---------------------------------------------------------------*/

/* ---- conditionals ---------------------------------------------------------*/

/* ---- lines ----------------------------------------------------------------*/

/*
 * Directive by name (directives.def order), -1 if unknown.
 * Linear: about 30 directives, one lookup per directive line.
 */
static int find_directive(const char *name)
{
	int k;

	for (k = 0; k < ASM_N_DIRS; k++)
		if (!strcmp(asm_directives[k].name, name))
			return k;
	return -1;
}

/* Pseudo-instruction by name (pseudo.def order), -1 if unknown. */
static int find_pseudo(const char *name)
{
	int k;

	for (k = 0; k < ASM_N_PSEUDOS; k++)
		if (!strcmp(asm_pseudos[k].name, name))
			return k;
	return -1;
}

/*
 * "unknown instruction 'ad' (did you mean 'add'?)" over ops, pseudos, macros.
 * "ADD" gets the lowercase hint instead of a distance-based guess (every
 * mnemonic is lowercase).  Candidates: instructions, pseudos, macros.
 */
static void unknown_mnemonic(struct asm_ctx *A, const struct where *w,
			     const struct tok *t)
{
	char name[64], low[64];
	const char **names, *sug;
	size_t n = 0, k;
	struct macro *m;

	asm_tok_text(t, name, sizeof(name));
	for (k = 0; name[k]; k++)
		low[k] = (char)((name[k] >= 'A' && name[k] <= 'Z')
					? name[k] - 'A' + 'a' : name[k]);
	low[k] = '\0';
	if (isa_op_by_name(low) >= 0 || find_pseudo(low) >= 0) {
		(void)asm_error(A, w, t->col,
				"unknown instruction '%s' (mnemonics are "
				"lowercase: '%s')", name, low);
		return;
	}
	for (m = A->macros; m; m = m->next)
		n++;
	names = malloc((ISA_N_OPS + ASM_N_PSEUDOS + n) * sizeof(*names));
	if (!names) {
		asm_oom(A);
		return;
	}
	/*
	 * Only names whose length is within str_suggest's distance limit can
	 * be suggested; skipping the others saves most distance computations
	 * (an input full of garbage words makes this a hot path).  lim =
	 * max(2, len / 3) is str_suggest's own distance limit.
	 */
	{
		size_t len = strlen(name), lim = len / 3 < 2 ? 2 : len / 3;
		const char *cand;

#define NEAR_LEN(s) (strlen(s) + lim >= len && strlen(s) <= len + lim)
		n = 0;
		for (k = 0; k < ISA_N_OPS; k++)
			if (NEAR_LEN(cand = isa_op_info[k].name))
				names[n++] = cand;
		for (k = 0; k < ASM_N_PSEUDOS; k++)
			if (NEAR_LEN(cand = asm_pseudos[k].name))
				names[n++] = cand;
		for (m = A->macros; m; m = m->next)
			if (NEAR_LEN(m->name))
				names[n++] = m->name;
#undef NEAR_LEN
	}
	sug = str_suggest(name, names, n, sizeof(*names));
	if (sug)
		(void)asm_error(A, w, t->col,
				"unknown instruction '%s' (did you mean '%s'?)",
				name, sug);
	else
		(void)asm_error(A, w, t->col, "unknown instruction '%s'", name);
	free(names);
}

/*
 * Dispatch a directive at token i.  The switch covers enum asm_dir with no
 * default, so -Wswitch flags a directive added to directives.def without a
 * handler.  Conditionals reach here only when not first on the line.
 */
static void do_directive(struct asm_ctx *A, const struct where *w, int i,
			 int dir)
{
	int col = A->tk.v[i].col;

	i++;
	switch ((enum asm_dir)dir) {
	case ASM_DIR_TEXT: dir_section(A, w, i, SP_TEXT, ".text"); break;
	case ASM_DIR_DATA: dir_section(A, w, i, SP_DATA, ".data"); break;
	case ASM_DIR_DRAM: dir_section(A, w, i, SP_DRAM, ".dram"); break;
	case ASM_DIR_SPM: dir_section(A, w, i, SP_SPM, ".spm"); break;
	case ASM_DIR_ACC: dir_section(A, w, i, SP_ACC, ".acc"); break;
	case ASM_DIR_ALIGN: dir_align(A, w, i, col); break;
	case ASM_DIR_BYTE: dir_data(A, w, i, col, 1, ".byte"); break;
	case ASM_DIR_HALF: dir_data(A, w, i, col, 2, ".half"); break;
	case ASM_DIR_WORD: dir_data(A, w, i, col, 4, ".word"); break;
	case ASM_DIR_DWORD: dir_data(A, w, i, col, 8, ".dword"); break;
	case ASM_DIR_FLOAT: dir_float(A, w, i, col); break;
	case ASM_DIR_ZERO: dir_fill(A, w, i, col, 0); break;
	case ASM_DIR_FILL: dir_fill(A, w, i, col, 1); break;
	case ASM_DIR_EQU: dir_equ(A, w, i); break;
	case ASM_DIR_TUNABLE: dir_tunable(A, w, i); break;
	case ASM_DIR_TENSOR: dir_tensor(A, w, i, col); break;
	case ASM_DIR_INCLUDE: asm_dir_include(A, w, i); break;
	case ASM_DIR_MACRO: asm_dir_macro(A, w, i, col); break;
	case ASM_DIR_ENDM:
		(void)asm_error(A, w, col, ".endm without .macro");
		break;
	case ASM_DIR_IF:
	case ASM_DIR_IFDEF:
	case ASM_DIR_IFNDEF:
	case ASM_DIR_ELIF:
	case ASM_DIR_ELSE:
	case ASM_DIR_ENDIF:
		(void)asm_error(A, w, col, "%s must be the first word of its line",
				asm_directives[dir].name);
		break;
	/* The user's own message, with the caret at the directive. */
	case ASM_DIR_ERROR: {
		const struct tok *t = &A->tk.v[i];

		if (t->k == T_STR && A->tk.v[i + 1].k == T_EOL)
			(void)asm_error(A, w, col, "%s", t->str);
		else
			(void)asm_error(A, w, t->col,
					".error takes one string in quotes");
		break;
	}
	case ASM_N_DIRS:
		break;
	}
}

/*
 * One line of pass 1, in this order:
 *   1. while a macro body is being captured, only .endm matters;
 *   2. conditional directives are seen even in false branches (to track
 *      nesting), and evaluated only where they can take effect;
 *   3. a live line is tokenised: labels, then one instruction, directive
 *      or macro call.
 * A line that has an error reports it and is dropped; the next line is
 * processed normally, which is how every error of a file gets reported.
 */
static void do_line(struct asm_ctx *A, const struct where *w)
{
	/*
	 * The first word is found without tokenising: a line inside a macro
	 * body or a false .if branch may not even lex (it may hold \params
	 * or text for another configuration).
	 */
	const char *fw;
	size_t fn = asm_first_word(w->text, &fw);
	int col = (int)(fw - w->text) + 1, i = 0, dir = -1;
	char name[64];
	const struct tok *t;

	if (A->defining) {
		/*
		 * The finished macro goes to the front of the list;
		 * names are unique (asm_dir_macro), so order is moot.
		 */
		if (asm_word_is(fw, fn, ".endm")) {
			if (asm_lex(A, w->text, w) == 0)
				(void)asm_expect_eol(A, w, 1, ".endm");
			A->defining->next = A->macros;
			A->macros = A->defining;
			A->defining = NULL;
		} else if (asm_word_is(fw, fn, ".macro")) {
			(void)asm_error(A, w, col, "nested .macro definitions are "
						   "not supported (missing "
						   ".endm for '%s'?)",
					A->defining->name);
		} else {
			asm_macro_add_line(A, w);
		}
		return;
	}
	if (fn > 1 && fw[0] == '.' && fn < sizeof(name)) {
		memcpy(name, fw, fn);
		name[fn] = '\0';
		dir = find_directive(name);
	}
	if (dir == ASM_DIR_IF || dir == ASM_DIR_IFDEF || dir == ASM_DIR_IFNDEF ||
	    dir == ASM_DIR_ELIF || dir == ASM_DIR_ELSE || dir == ASM_DIR_ENDIF) {
		/*
		 * Tokenise only when the condition may be evaluated.
		 * .if in a false region is not evaluated (only pushed, to
		 * match its .endif); .elif/.else/.endif are evaluated when the
		 * region around their .if is live.
		 */
		int live = asm_active(A) ||
			   (A->n_conds && A->conds[A->n_conds - 1].parent_active &&
			    dir != ASM_DIR_IF && dir != ASM_DIR_IFDEF &&
			    dir != ASM_DIR_IFNDEF);

		int bad = live && asm_lex(A, w->text, w) != 0;

		asm_do_cond(A, w, dir, 1, col, bad || !live);
		return;
	}
	if (!asm_active(A))
		return;
	if (asm_lex(A, w->text, w))
		return;
	/*
	 * Labels: NAME ':' (any number of them).  A label takes the current
	 * location of the current space: a code address in .text, an address
	 * in DRAM/SPM/ACC/scalar memory in a data section.
	 */
	while (A->tk.v[i].k == T_IDENT && is_op(&A->tk.v[i + 1], ':')) {
		struct sym *s = define_sym(A, w, &A->tk.v[i], SK_LABEL);

		if (s) {
			s->space = A->space;
			s->value = (int64_t)A->loc[A->space];
			/* A label in .text marks a word boundary. */
			if (A->space == SP_TEXT && A->loc[SP_TEXT] % 4)
				(void)asm_error(A, w, A->tk.v[i].col,
						"label '%s' is not 4-byte aligned",
						s->name);
		}
		i += 2;
	}
	t = &A->tk.v[i];
	if (t->k == T_EOL)
		return;
	if (t->k != T_IDENT) {
		(void)asm_error(A, w, t->col,
				"expected an instruction or directive, found %s",
				asm_tok_desc(t, name, sizeof(name)));
		return;
	}
	/* No mnemonic, directive or macro name reaches 64 characters. */
	asm_tok_text(t, name, sizeof(name));
	if ((size_t)t->len >= sizeof(name)) {
		(void)asm_error(A, w, t->col, "unknown instruction '%s...'", name);
		return;
	}
	/* Directives start with '.', which no mnemonic or macro does. */
	if (name[0] == '.') {
		int d = find_directive(name);

		if (d < 0) {
			const char *sug = str_suggest(name, asm_directives,
						      ASM_N_DIRS,
						      sizeof(asm_directives[0]));

			if (sug)
				(void)asm_error(A, w, t->col,
						"unknown directive '%s' (did you "
						"mean '%s'?)", name, sug);
			else
				(void)asm_error(A, w, t->col,
						"unknown directive '%s'", name);
			return;
		}
		do_directive(A, w, i, d);
		return;
	}
	{
		struct macro *m = asm_find_macro(A, t->s, (size_t)t->len);
		int op, ps;

		/*
		 * Macros first (a macro may reuse a pseudo-instruction's name,
		 * never an instruction's: dir_macro refuses that), then real
		 * instructions, then pseudo-instructions.
		 */
		if (m) {
			asm_expand_macro(A, w, i, m);
			return;
		}
		op = isa_op_by_name(name);
		if (op >= 0) {
			stmt_insn(A, w, &i, op);
			return;
		}
		ps = find_pseudo(name);
		if (ps >= 0) {
			stmt_pseudo(A, w, &i, ps);
			return;
		}
	}
	unknown_mnemonic(A, w, t);
}

/* ---- pass 1 checks --------------------------------------------------------*/

/*
 * Order chunks by space and start address (ties by source position).
 * A total order (space, start, line, file) so that qsort, which is not
 * stable, gives the same order, and the same overlap message, every run.
 */
static int chunk_cmp(const void *pa, const void *pb)
{
	const struct chunk *a = *(const struct chunk *const *)pa;
	const struct chunk *b = *(const struct chunk *const *)pb;

	if (a->space != b->space)
		return a->space < b->space ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	/* Equal starts: order by source position (stable, deterministic). */
	if (a->w->line != b->w->line)
		return a->w->line < b->w->line ? -1 : 1;
	return strcmp(a->w->file, b->w->file);
}

/* Data placed twice at the same address is an error (which would win?). */
static void check_overlaps(struct asm_ctx *A)
{
	struct chunk *c, **v;
	const struct chunk *far = NULL;
	size_t n = 0, k;

	for (c = A->chunks; c; c = c->next)
		n += c->size > 0;
	if (n < 2)
		return;
	v = malloc(n * sizeof(*v));
	if (!v) {
		asm_oom(A);
		return;
	}
	n = 0;
	for (c = A->chunks; c; c = c->next)
		if (c->size)
			v[n++] = c;
	qsort(v, n, sizeof(*v), chunk_cmp);
	/*
	 * Sorted by start, a chunk overlaps an earlier one iff it starts
	 * before the furthest end seen so far in its space (a long chunk may
	 * cover several later ones, so the predecessor alone is not enough).
	 */
	for (k = 1; k < n; k++) {
		const struct chunk *q = v[k];

		if (v[k - 1]->space != q->space) {
			far = v[k];
			continue;
		}
		/* far: the chunk of this space whose end is furthest so far. */
		if (k == 1 || !far)
			far = v[k - 1];
		/* Unsigned: q starts at or after far (sorted), no overflow. */
		if (q->start - far->start < far->size)
			(void)asm_error(A, q->w, q->col,
					"%s bytes at 0x%llx..0x%llx overlap those "
					"placed at 0x%llx..0x%llx from %s:%d",
					space_names[q->space] + 1,
					(unsigned long long)q->start,
					(unsigned long long)(q->start + q->size - 1),
					(unsigned long long)far->start,
					(unsigned long long)(far->start + far->size - 1),
					far->w->file, far->w->line);
		/* Keep the chunk that reaches furthest (end - 1: no overflow). */
		if (q->start + (q->size - 1) > far->start + (far->size - 1))
			far = q;
	}
	free(v);
}

/* ---- pass 2 ---------------------------------------------------------------*/

/*
 * Value of operand o of statement s (pass 2).
 * `.` in an operand is the statement's own address.
 */
static int opnd_value(struct asm_ctx *A, const struct stmt *s,
		      const struct opnd *o, int64_t *v)
{
	switch (o->kind) {
	case OPD_REG: *v = o->reg; return 0;
	case OPD_VAL: *v = o->val; return 0;
	case OPD_EXPR: return asm_eval(A, o->e, s->addr, s->w, v) ? EV_ERR : 0;
	}
	return EV_ERR;
}

/* Store a code word and the source line it came from. */
static void put_word(struct asm_ctx *A, uint64_t addr, uint32_t w,
		     const struct stmt *s)
{
	/* addr is a multiple of 4 below n_code * 4 (pass 1 layout). */
	size_t k = (size_t)(addr / 4);

	A->prog->code[k] = w;
	/* The file index of the line is filled in by build_lines. */
	A->prog->lines[k].line = (uint32_t)s->w->line;
}

/*
 * Encode a real instruction: one isa_set_field per operand, so a range
 * error points at the operand that is out of range.  Target operands are
 * addresses and become pc-relative here; fence -1 means every unit.
 */
static void encode_insn(struct asm_ctx *A, const struct stmt *s)
{
	const struct isa_op_info *oi = &isa_op_info[s->id];
	const struct isa_fmt_info *fi = &isa_fmt_info[oi->fmt];
	/* Opcode bits set, reserved bits 0; fields are ORed in below. */
	uint32_t word = oi->match;
	char err[200];
	int k;

	for (k = 0; k < fi->n_fields; k++) {
		enum isa_field f = fi->fields[k];
		const struct opnd *o = &s->ops[k];
		int64_t v;

		if (opnd_value(A, s, o, &v))
			return;
		if (isa_field_info[f].kind == ISA_FK_PCREL && o->kind == OPD_EXPR)
			v = (int64_t)((uint64_t)v - s->addr);
		if (isa_field_info[f].kind == ISA_FK_MASK && v == -1)
			v = ISA_FENCE_ALL;
		if (isa_set_field(&word, oi->fmt, f, v, err, sizeof(err))) {
			(void)asm_error(A, s->w, o->col, "%s", err);
			return;
		}
		/* A region id given as a number: the table must reach it. */
		if (isa_field_info[f].kind == ISA_FK_REGION &&
		    o->kind == OPD_EXPR && v > A->max_region)
			A->max_region = v;
	}
	put_word(A, s->addr, word, s);
}

/*
 * Register of a pseudo source (operands by syntax word).
 * The register for one source column: the k-th syntax word of the pseudo
 * is operand k, so P_RS1 is the operand whose word is "rs1".  x0/ra are
 * fixed; a column the pseudo's syntax lacks gives x0.
 */
static int psrc_reg(const struct asm_pseudo *pi, const struct stmt *s,
		    enum asm_psrc src)
{
	const char *p = pi->syntax;
	const char *want = src == P_RD ? "rd" : src == P_RS1 ? "rs1" : "rs2";
	int k = 0;

	if (src == P_X0 || src == P_NONE)
		return 0;
	if (src == P_RA)
		return 1;
	while (*p) {
		size_t len = 0;

		while ((p[len] >= 'a' && p[len] <= 'z') ||
		       (p[len] >= '0' && p[len] <= '9'))
			len++;
		if (!len) {
			p++;
			continue;
		}
		if (strlen(want) == len && !memcmp(p, want, len))
			return s->ops[k].reg;
		k++;
		p += len;
	}
	return 0;
}

/* Build the single instruction of a pseudo from pseudo.def's columns. */
static void encode_pseudo(struct asm_ctx *A, const struct stmt *s)
{
	const struct asm_pseudo *pi = &asm_pseudos[s->id];
	struct isa_insn in;
	const struct opnd *io = NULL;
	uint32_t word;
	char err[200];
	int k;

	memset(&in, 0, sizeof(in));
	in.op = (enum isa_op)pi->op;
	in.rd = (uint8_t)psrc_reg(pi, s, pi->rd);
	in.rs1 = (uint8_t)psrc_reg(pi, s, pi->rs1);
	in.rs2 = (uint8_t)psrc_reg(pi, s, pi->rs2);
	/* P_CONST (and P_NONE, value 0) use the row's constant. */
	in.imm = pi->value;
	/* The imm/target operand is the only non-register one. */
	for (k = 0; k < s->n; k++)
		if (s->ops[k].kind != OPD_REG)
			io = &s->ops[k];
	if (pi->imm == P_IMM && io) {
		int64_t v;

		if (opnd_value(A, s, io, &v))
			return;
		/* A target operand is an address: store the pc offset. */
		if (strstr(pi->syntax, "target"))
			v = (int64_t)((uint64_t)v - s->addr);
		in.imm = v;
	}
	if (isa_encode(&in, &word, err, sizeof(err))) {
		(void)asm_error(A, s->w, io ? io->col : s->col, "%s", err);
		return;
	}
	put_word(A, s->addr, word, s);
}

/*
 * li: the sequence chosen in pass 1 is recomputed from the (same) value;
 * a forward reference gets lui+addi, which reaches about +-2^31.
 *
 * asm_li_sequence is a pure function of the value, and the value of an
 * operand known in pass 1 cannot change in pass 2, so the length check
 * below guards the invariant rather than a user error.
 */
static void encode_li(struct asm_ctx *A, const struct stmt *s)
{
	struct isa_insn seq[ASM_LI_MAX];
	int64_t v;
	int n, k;
	char err[200];

	if (opnd_value(A, s, &s->ops[1], &v))
		return;
	if (s->aux == 1) {
		/* Forward reference: the fixed lui + addi pair. */
		int64_t hi, lo;

		if (!asm_li_lui_addi(v, &hi, &lo)) {
			(void)asm_error(A, s->w, s->ops[1].col,
					"li value 0x%llx does not fit in 32 bits, "
					"as the lui+addi form of a forward "
					"reference requires; define '%s' before "
					"this line", (unsigned long long)v,
					s->name ? s->name : "?");
			return;
		}
		memset(seq, 0, sizeof(seq));
		seq[0].op = ISA_OP_LUI;
		seq[0].rd = (uint8_t)s->ops[0].reg;
		seq[0].imm = hi;
		seq[1].op = ISA_OP_ADDI;
		seq[1].rd = seq[1].rs1 = (uint8_t)s->ops[0].reg;
		seq[1].imm = lo;
		n = 2;
	} else {
		n = asm_li_sequence(v, (unsigned)s->ops[0].reg, seq);
		if ((uint64_t)n * 4 != s->size) {
			(void)asm_error(A, s->w, s->col,
					"internal error: li changed length between "
					"passes");
			return;
		}
	}
	for (k = 0; k < n; k++) {
		uint32_t word;

		if (isa_encode(&seq[k], &word, err, sizeof(err))) {
			(void)asm_error(A, s->w, s->col, "internal error: %s", err);
			return;
		}
		put_word(A, s->addr + 4 * (uint64_t)k, word, s);
	}
}

/*
 * Little-endian bytes of v at address addr of statement s's space.
 * In .text only .word reaches here (width 4): it becomes a code word.
 */
static void put_bytes(struct asm_ctx *A, const struct stmt *s, uint64_t addr,
		      uint64_t v, int width)
{
	int b;

	if (s->space == SP_TEXT) {
		put_word(A, addr, (uint32_t)v, s);
		return;
	}
	for (b = 0; b < width; b++)
		s->chunk->bytes[addr - s->chunk->start + (uint64_t)b] =
			(uint8_t)(v >> (8 * b));
}

/*
 * Does v fit in width bytes as a signed or an unsigned value?
 * Width w accepts [-2^(8w-1), 2^(8w) - 1]: signed or unsigned, e.g.
 * .byte takes -128..255 and .half -32768..65535.  Eight bytes take any
 * int64_t (lo/hi are not set then: no message needs them).
 */
static int fits(int64_t v, int width, int64_t *lo, int64_t *hi)
{
	if (width >= 8)
		return 1;
	*lo = -((int64_t)1 << (8 * width - 1));
	*hi = ((int64_t)1 << (8 * width)) - 1;
	return v >= *lo && v <= *hi;
}

/*
 * .byte/.half/.word/.dword: a value fits if it fits as signed or as
 * unsigned (.byte -1 and .byte 255 are both 0xff), as in GNU as.
 *
 * Each value is checked on its own, so one bad value does not hide others.
 */
static void encode_data(struct asm_ctx *A, const struct stmt *s)
{
	static const char *const dirs[9] = { [1] = ".byte", [2] = ".half",
					     [4] = ".word", [8] = ".dword" };
	int k, width = (int)s->aux;

	for (k = 0; k < s->n; k++) {
		int64_t v, lo = 0, hi = 0;

		if (opnd_value(A, s, &s->ops[k], &v))
			continue;
		if (!fits(v, width, &lo, &hi)) {
			(void)asm_error(A, s->w, s->ops[k].col,
					"%s value %lld out of range [%lld, %lld]",
					dirs[width], (long long)v, (long long)lo,
					(long long)hi);
			continue;
		}
		put_bytes(A, s, s->addr + (uint64_t)(k * width), (uint64_t)v,
			  width);
	}
}

/* .fill: N copies of one checked value. */
static void encode_fill(struct asm_ctx *A, const struct stmt *s)
{
	int64_t v, lo = 0, hi = 0, k;

	if (opnd_value(A, s, &s->ops[0], &v))
		return;
	if (!fits(v, (int)s->aux, &lo, &hi)) {
		(void)asm_error(A, s->w, s->ops[0].col,
				".fill value %lld out of range [%lld, %lld]",
				(long long)v, (long long)lo, (long long)hi);
		return;
	}
	for (k = 0; k < s->aux2; k++)
		put_bytes(A, s, s->addr + (uint64_t)(k * s->aux), (uint64_t)v,
			  (int)s->aux);
}

/*
 * .tensor: evaluate and check the entry.  Bounds keep every later size
 * computation (elements x bytes, address + size) free of overflow; whether
 * the tensor fits the configured memory is checked by npusim run, which
 * knows the configuration.
 */
static void encode_tensor(struct asm_ctx *A, const struct stmt *s)
{
	struct obj_tensor *t = &A->prog->tensors[A->prog->n_tensors];
	int64_t addr, dt, k;
	uint64_t elems = 1;

	if (opnd_value(A, s, &s->ops[1], &addr) ||
	    opnd_value(A, s, &s->ops[2], &dt))
		return;
	if (addr < 0) {
		(void)asm_error(A, s->w, s->ops[1].col,
				"tensor address %lld is negative", (long long)addr);
		return;
	}
	if (dt < 0 || dt >= DT_N) {
		(void)asm_error(A, s->w, s->ops[2].col,
				"dtype %lld is not a dtype id (int4=0 ... fp32=%d; "
				"write the name, e.g. int8)", (long long)dt,
				DT_N - 1);
		return;
	}
	memset(t, 0, sizeof(*t));
	t->mem = (enum obj_mem)s->ops[0].val;
	t->dtype = (enum npu_dtype)dt;
	t->addr = (uint64_t)addr;
	t->rank = s->n - 3;
	for (k = 0; k < t->rank; k++) {
		int64_t d;

		if (opnd_value(A, s, &s->ops[3 + k], &d))
			return;
		/* 2^40 elements per dimension is already 1 TiB of int8. */
		if (d < 1 || d > ((int64_t)1 << 40)) {
			(void)asm_error(A, s->w, s->ops[3 + k].col,
					"dimension %lld out of range [1, 2^40]",
					(long long)d);
			return;
		}
		if (elems > (UINT64_MAX >> 4) / (uint64_t)d) {
			(void)asm_error(A, s->w, s->ops[3 + k].col,
					"tensor too large (more than 2^60 "
					"elements)");
			return;
		}
		/* elems <= 2^60, so dtype_bytes (at most 4 per element) fits. */
		elems *= (uint64_t)d;
		t->shape[k] = (uint64_t)d;
	}
	if (dtype_bytes(t->dtype, elems) > UINT64_MAX - t->addr) {
		(void)asm_error(A, s->w, s->ops[1].col,
				"tensor ends beyond the 64-bit address space");
		return;
	}
	t->name = str_dup(s->name);
	if (!t->name) {
		asm_oom(A);
		return;
	}
	A->prog->n_tensors++;
	/* The tensor's symbol is its address (known now, if not before). */
	{
		struct sym *sym = asm_sym_find(A, s->name);

		if (sym && sym->kind == SK_TENSOR) {
			sym->state = SS_VALUE;
			sym->value = addr;
		}
	}
}

/*
 * Pass 2: every statement in source order.
 * A->fatal (a limit hit) or A->oom stops the walk: nothing after it can
 * be trusted or reported usefully.
 */
static void encode_all(struct asm_ctx *A)
{
	struct stmt *s;

	for (s = A->stmts; s && !A->oom && !A->fatal; s = s->next) {
		switch (s->kind) {
		case ST_INSN: encode_insn(A, s); break;
		case ST_PSEUDO: encode_pseudo(A, s); break;
		case ST_LI: encode_li(A, s); break;
		case ST_DATA: encode_data(A, s); break;
		case ST_FLOAT: {
			int k;

			for (k = 0; k < s->n; k++)
				put_bytes(A, s, s->addr + 4 * (uint64_t)k,
					  (uint64_t)s->ops[k].val, 4);
			break;
		}
		case ST_FILL: encode_fill(A, s); break;
		case ST_ALIGN: {
			/* Padding in .text is nops (addi zero, zero, 0). */
			uint64_t a;

			if (s->space == SP_TEXT && s->aux != -1)
				for (a = 0; a < s->size; a += 4)
					put_word(A, s->addr + a,
						 isa_op_info[ISA_OP_ADDI].match, s);
			break;
		}
		case ST_TENSOR: encode_tensor(A, s); break;
		}
	}
}

/*
 * Every pending .equ is resolved now: undefined names are reported here.
 * An .equ that nothing used stays pending through pass 2.  Evaluating it
 * through a synthetic reference reports its undefined names (at their
 * columns in the .equ's expression), as an unused #define would not.
 * Tensor symbols are resolved by encode_tensor instead.
 */
static void check_symbols(struct asm_ctx *A)
{
	size_t k;

	for (k = 0; k < A->cap_syms; k++) {
		struct sym *s = A->symtab[k];
		int64_t v;

		if (s && s->state == SS_PENDING && s->kind == SK_EQU) {
			struct expr ref = { .kind = E_SYM, .name = s->name,
					    .col = s->col };

			(void)asm_eval(A, &ref, 0, s->w, &v);
		}
	}
}

/* ---- the program ----------------------------------------------------------*/

/*
 * Source files of the line table, in order of first appearance.
 * Files are few (the main file and its includes): a linear search per
 * statement is cheap.  The index order is the order of first use.
 */
static int build_lines(struct asm_ctx *A)
{
	struct obj_prog *p = A->prog;
	struct stmt *s;

	for (s = A->stmts; s; s = s->next) {
		size_t f, k;

		/* Only code has line entries; one per word of the statement. */
		if (s->space != SP_TEXT || !s->size)
			continue;
		for (f = 0; f < p->n_files; f++)
			if (!strcmp(p->files[f], s->w->file))
				break;
		if (f == p->n_files) {
			char **nf = realloc(p->files, (f + 1) * sizeof(*nf));

			if (!nf)
				return asm_oom(A);
			p->files = nf;
			if (!(p->files[f] = str_dup(s->w->file)))
				return asm_oom(A);
			p->n_files++;
		}
		for (k = 0; k < s->size / 4; k++)
			p->lines[s->addr / 4 + k].file = (uint32_t)f;
	}
	return 0;
}

/*
 * The object's symbol table: user symbols with a value (builtins are not
 * part of the program).  obj_canonicalize sorts it afterwards.
 */
static int build_syms(struct asm_ctx *A)
{
	struct obj_prog *p = A->prog;
	size_t k, n = 0;

	/* + 1: calloc(0) may return NULL, which would look like OOM. */
	p->syms = calloc(A->n_syms + 1, sizeof(*p->syms));
	if (!p->syms)
		return asm_oom(A);
	for (k = 0; k < A->cap_syms; k++) {
		struct sym *s = A->symtab[k];
		struct obj_sym *o = &p->syms[n];

		/* Error-free here: every user symbol has reached SS_VALUE. */
		if (!s || s->kind == SK_BUILTIN || s->state != SS_VALUE)
			continue;
		/*
		 * .text labels -> CODE (mem 0); data labels -> DATA with the
		 * space's memory; tensors -> TENSOR, whose memory dir_tensor
		 * kept in sym->space; .equ and -D -> CONST.
		 */
		switch (s->kind) {
		case SK_LABEL:
			o->kind = s->space == SP_TEXT ? OBJ_SYM_CODE : OBJ_SYM_DATA;
			o->mem = s->space == SP_TEXT ? 0
						     : (enum obj_mem)space_mem[s->space];
			break;
		case SK_TENSOR:
			o->kind = OBJ_SYM_TENSOR;
			o->mem = (enum obj_mem)s->space;
			break;
		default:
			o->kind = OBJ_SYM_CONST;
			break;
		}
		o->value = s->value;
		if (!(o->name = str_dup(s->name)))
			return asm_oom(A);
		p->n_syms = ++n;
	}
	return 0;
}

/*
 * The object's region table: the names in order of first use, then, up
 * to the largest id an operand gave as a number, "region<N>" for every
 * id no name took (a disassembly without names assembles back this way).
 */
static int build_regions(struct asm_ctx *A)
{
	struct obj_prog *p = A->prog;
	size_t k, n = A->n_regions;

	if (A->max_region >= 0 && (size_t)A->max_region >= n)
		n = (size_t)A->max_region + 1;
	if (!n)
		return 0;
	p->regions = calloc(n, sizeof(*p->regions));
	if (!p->regions)
		return asm_oom(A);
	for (k = 0; k < n; k++) {
		char gen[32];

		snprintf(gen, sizeof(gen), "region%zu", k);
		if (!(p->regions[k] = str_dup(k < A->n_regions ? A->regions[k]
							       : gen)))
			return asm_oom(A);
		p->n_regions = k + 1;
	}
	return 0;
}

/* Allocate the output after pass 1 (sizes are final). */
static int alloc_prog(struct asm_ctx *A)
{
	struct obj_prog *p = obj_new();
	struct chunk *c;
	size_t n_words = (size_t)(A->loc[SP_TEXT] / 4), n = 0;

	if (!p)
		return asm_oom(A);
	A->prog = p;
	/*
	 * The buffers are allocated before pass 2 and filled by it; chunks
	 * point at their section's bytes so data statements write in place.
	 */
	if (A->loc[SP_TEXT] % 4) {
		/* Only reachable through errors already reported. */
		n_words++;
	}
	/*
	 * + 1 everywhere: an empty program still gets non-NULL buffers.
	 * calloc also gives .zero/.align its zero bytes, and a bad
	 * statement's word stays 0 (an illegal encoding) if it is ever
	 * looked at.
	 */
	p->code = calloc(n_words + 1, sizeof(*p->code));
	p->lines = calloc(n_words + 1, sizeof(*p->lines));
	p->tensors = calloc(A->n_tensors + 1, sizeof(*p->tensors));
	if (!p->code || !p->lines || !p->tensors)
		return asm_oom(A);
	p->n_code = n_words;
	for (c = A->chunks; c; c = c->next)
		n += c->size > 0;
	p->sects = calloc(n + 1, sizeof(*p->sects));
	if (!p->sects)
		return asm_oom(A);
	/*
	 * Sections in chunk creation order; obj_canonicalize sorts them by
	 * (memory, address) at the end.
	 */
	for (c = A->chunks; c; c = c->next) {
		struct obj_section *s;

		if (!c->size)
			continue;
		s = &p->sects[p->n_sects++];
		s->mem = (enum obj_mem)space_mem[c->space];
		s->addr = c->start;
		s->size = c->size;
		s->bytes = calloc((size_t)c->size, 1);
		if (!s->bytes)
			return asm_oom(A);
		c->bytes = s->bytes; /* pass 2 writes through the chunk */
	}
	return 0;
}

/* ---- driver ---------------------------------------------------------------*/

/* Free everything of one assembly (after printing its errors). */
static void asm_cleanup(struct asm_ctx *A)
{
	struct src_file *f;

	asm_flush_errors(A); /* before the source text it quotes is freed */
	while ((f = A->files)) {
		A->files = f->next;
		free(f->path);
		free(f->text);
		free(f->lines);
		free(f);
	}
	free(A->symtab);
	free(A->regions);
	{
		size_t k;

		for (k = 0; k < A->n_tunables; k++) {
			free(A->tunables[k].name);
			free(A->tunables[k].values);
		}
		free(A->tunables);
	}
	free(A->conds);
	free(A->tk.v);
	arena_free(&A->ar);
	obj_free(A->prog);
}

/*
 * The driver: predefined names and -D, pass 1 over the input stack, layout
 * checks, pass 2, and the program if no error was reported.  Pass 2 runs
 * even after errors in pass 1, so range and symbol errors of the rest of
 * the file are reported in the same run.
 *
 * text becomes the main file (asm_add_file adopts it and frees it in
 * asm_cleanup).  A->n_err counts every error, including those past the
 * ASM_MAX_ERRORS that were not stored.
 */
static int assemble(struct asm_ctx *A, const char *name, char *text, size_t len,
		    struct obj_prog **out)
{
	struct src_file *f;
	const struct where *w;
	size_t k;

	A->stmt_tail = &A->stmts;
	A->chunk_tail = &A->chunks;
	A->max_region = -1;
	A->pass = 1;
	if (define_builtins(A))
		return NPU_ENOMEM;
	for (k = 0; k < A->opts->n_defines; k++)
		define_cmdline(A, A->opts->defines[k]);
	f = asm_add_file(A, name, text, len);
	if (f && asm_push_file(A, f) == 0)
		while (!A->oom && (w = asm_next_line(A)))
			do_line(A, w);
	if (A->defining)
		(void)asm_error(A, A->defining->w, A->defining->col,
				"unterminated .macro '%s' (missing .endm)",
				A->defining->name);
	/* Chunk extents are final only now, at the end of pass 1. */
	check_overlaps(A);
	if (A->oom)
		return NPU_ENOMEM;
	/* Pass 2 runs even after pass 1 errors, to report everything. */
	A->pass = 2;
	if (alloc_prog(A))
		return NPU_ENOMEM;
	encode_all(A);
	check_symbols(A);
	if (A->oom)
		return NPU_ENOMEM;
	if (A->n_err)
		return NPU_EASM;
	if (build_lines(A) || build_syms(A) || build_regions(A))
		return NPU_ENOMEM;
	/* the parameters move to the object */
	A->prog->tunables = A->tunables;
	A->prog->n_tunables = A->n_tunables;
	A->tunables = NULL;
	A->n_tunables = 0;
	obj_canonicalize(A->prog);
	*out = A->prog;
	A->prog = NULL;
	return 0;
}

/*
 * Options used when the caller passes NULL: no -D, no -I.
 * (Static storage: all-zero, NULL arrays with zero counts.)
 */
static const struct asm_opts no_opts;

int asm_assemble_string(const char *name, const char *text, size_t len,
			const struct asm_opts *opts, struct diag *d,
			struct obj_prog **out)
{
	struct asm_ctx A;
	/* The text is split into lines in place (NULs written): copy it. */
	char *copy = malloc(len + 1);
	int r;

	*out = NULL;
	if (!copy)
		return diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
	memcpy(copy, text, len);
	copy[len] = '\0';
	memset(&A, 0, sizeof(A));
	A.d = d;
	A.opts = opts ? opts : &no_opts;
	r = assemble(&A, name, copy, len, out);
	asm_cleanup(&A);
	return r;
}

int asm_assemble_file(const char *path, const struct asm_opts *opts,
		      struct diag *d, struct obj_prog **out)
{
	struct asm_ctx A;
	size_t len = 0;
	char *text;
	int r;

	*out = NULL;
	text = asm_slurp(path, &len);
	if (!text)
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "cannot read: %s", strerror(errno));
	memset(&A, 0, sizeof(A));
	A.d = d;
	A.opts = opts ? opts : &no_opts;
	r = assemble(&A, path, text, len, out);
	asm_cleanup(&A);
	return r;
}
