/*
 * asm.h - the npusim assembler (`npusim as`, and `npusim run file.s`).
 *
 * Two passes over the source.  Pass 1 reads lines (expanding .include,
 * .macro and .if as it goes), parses every statement into operands and
 * expression trees, and lays out addresses so that every label gets its
 * value.  Pass 2 evaluates the expressions (now that every symbol is known),
 * encodes instructions through isa_set_field and places data bytes.
 *
 * Errors are reported like a compiler's, "file:line:col: error: message",
 * followed by the source line and a caret, for EVERY erroneous statement in
 * the input (a statement stops at its first error).  Any error makes the
 * assembly fail with NPU_EASM and produces no program.
 */
#ifndef NPU_ASM_H
#define NPU_ASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../isa/isa.h"
#include "../util/diag.h"
#include "obj.h"

/* Command-line style options. */
struct asm_opts {
	const char *const *defines;      /* "NAME=VALUE" or "NAME" (= 1) */
	size_t n_defines;                /* entries in defines */
	const char *const *include_dirs; /* .include search path, in order */
	size_t n_include_dirs;           /* entries in include_dirs */
};

/*
 * Assemble the file at path.  On success *out is a new program (obj_free
 * it); on failure every error has been reported to d and *out is NULL.
 */
int asm_assemble_file(const char *path, const struct asm_opts *opts,
		      struct diag *d, struct obj_prog **out) NPU_WUR;
/* The same for source text in memory; name is used in messages and for
 * resolving relative .include paths (its directory). */
int asm_assemble_string(const char *name, const char *text, size_t len,
			const struct asm_opts *opts, struct diag *d,
			struct obj_prog **out) NPU_WUR;

/*
 * The li expansion: the shortest sequence of lui/addi/slli/srli that the
 * search finds for value (at most ASM_LI_MAX instructions), writing rd.
 * Returns the number of instructions stored in seq.
 */
#define ASM_LI_MAX 8
int asm_li_sequence(int64_t value, unsigned rd, struct isa_insn *seq);

/* Where a pseudo-instruction's operand comes from (pseudo.def). */
enum asm_psrc {
	P_NONE,   /* unused */
	P_RD,     /* the pseudo's rd operand */
	P_RS1,    /* the pseudo's rs1 operand */
	P_RS2,    /* the pseudo's rs2 operand */
	P_X0,     /* register zero */
	P_RA,     /* register ra */
	P_IMM,    /* the pseudo's imm / target operand */
	P_CONST,  /* the row's constant */
};

/* Pseudo-instructions (pseudo.def). */
enum asm_pseudo_id {
#define PSEUDO(id, name, syn, op, rd, rs1, rs2, imm, value, doc) ASM_PS_##id,
#include "pseudo.def"
	ASM_N_PSEUDOS
};

struct asm_pseudo {
	const char *name;        /* mnemonic (first: str_suggest strides it) */
	const char *syntax;      /* operand syntax */
	int op;                  /* enum isa_op it becomes, -1 for li */
	enum asm_psrc rd, rs1, rs2, imm; /* operand sources */
	int64_t value;           /* P_CONST immediate */
	const char *doc;         /* description */
};
extern const struct asm_pseudo asm_pseudos[ASM_N_PSEUDOS];

/* Directives (directives.def). */
enum asm_dir {
#define DIRECTIVE(id, name, operands, doc) ASM_DIR_##id,
#include "directives.def"
	ASM_N_DIRS
};

struct asm_directive {
	const char *name;        /* ".text" (first: str_suggest strides it) */
	const char *operands;    /* operand summary */
	const char *doc;         /* description */
};
extern const struct asm_directive asm_directives[ASM_N_DIRS];

/* Write the assembler-language part of docs/isa.md. */
void asm_write_doc(FILE *fp);

#endif
