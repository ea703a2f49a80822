/*
 * asm_doc.c - the assembly-language chapter of docs/isa.md: syntax,
 * expressions, predefined names, pseudo-instructions (from pseudo.def, with
 * each expansion printed from its columns) and directives (directives.def).
 */
#include <inttypes.h>
#include <string.h>

#include "../util/dtype.h"
#include "asm.h"
#include "asm_int.h"

/*
 * Name of a pseudo operand source inside the expansion text.  P_NONE is
 * never asked for: pseudo.def gives a source for every field of the
 * target instruction's format (P_NONE only where the format has no such
 * field); "?" would show a table error on the page instead of a crash.
 */
static const char *src_text(enum asm_psrc s, const char *imm_word,
			    int64_t value, char *buf, size_t n)
{
	switch (s) {
	case P_RD: return "rd";
	case P_RS1: return "rs1";
	case P_RS2: return "rs2";
	case P_X0: return "zero";
	case P_RA: return "ra";
	case P_IMM: return imm_word;
	case P_CONST:
		snprintf(buf, n, "%" PRId64, value);
		return buf;
	case P_NONE: break;
	}
	return "?";
}

/*
 * The real instruction a pseudo becomes, e.g. "addi rd, rs1, 0".
 * Printed from the target instruction's own syntax string, each field
 * replaced by the pseudo.def column that feeds it (by struct isa_insn
 * member), so the table shows exactly what encode_pseudo builds.  Fields
 * that are not registers (imm, target) take the IMM column.
 */
static void write_expansion(FILE *fp, const struct asm_pseudo *ps)
{
	const struct isa_op_info *o = &isa_op_info[ps->op];
	const char *p = isa_fmt_info[o->fmt].syntax;
	const char *imm_word = strstr(ps->syntax, "target") ? "target" : "imm";
	char buf[32];

	fprintf(fp, "`%s", o->name);
	if (*p)
		fputc(' ', fp);
	while (*p) {
		size_t len = 0;
		enum isa_field f;
		enum asm_psrc src = P_NONE;

		while ((p[len] >= 'a' && p[len] <= 'z') ||
		       (p[len] >= '0' && p[len] <= '9'))
			len++;
		if (!len) {
			fputc(*p++, fp);
			continue;
		}
		f = isa_fmt_field(o->fmt, p, len);
		switch (isa_field_info[f].member) {
		case ISA_M_RD: src = ps->rd; break;
		case ISA_M_RS1: src = ps->rs1; break;
		case ISA_M_RS2: src = ps->rs2; break;
		default: src = ps->imm; break;
		}
		fputs(src_text(src, imm_word, ps->value, buf, sizeof(buf)), fp);
		p += len;
	}
	fputc('`', fp);
}

/*
 * The limits paragraph prints the ASM_MAX_* constants themselves, so the
 * documentation changes with them (and `make test` notices a stale
 * docs/isa.md).  Literal '%' in the prose is written %% (printf).
 */
void asm_write_doc(FILE *fp)
{
	size_t i;

	fprintf(fp,
		"## Assembly language\n\n"
		"`npusim as [-o out.npo] [-D NAME=VALUE] [-I DIR] file.s` "
		"assembles a file; `npusim run` accepts the `.s` file directly "
		"(with the same -D and -I). The assembler makes two passes: the "
		"first reads the source (expanding `.include`, macros and `.if`) "
		"and gives every label its address, the second evaluates "
		"expressions and encodes.\n\n"
		"### Lines\n\n"
		"    [label:]... [mnemonic-or-directive [operands]] [comment]\n\n"
		"Comments start with `#`, `;` or `//`. A label is a name followed "
		"by `:`; names are `[A-Za-z_.][A-Za-z0-9_.]*`. Register names "
		"cannot be symbols. Operands are separated by commas; memory "
		"operands are written `imm(rs1)` (or `(rs1)` for an offset of "
		"0); branch and jump operands are target addresses (usually "
		"labels), which the assembler turns into pc-relative offsets.\n\n"
		"### Expressions\n\n"
		"64-bit integer expressions with C's operators and precedence "
		"(lowest first): `?:`, `||`, `&&`, `|`, `^`, `&`, `== !=`, "
		"`< <= > >=`, `<< >>`, `+ -`, `* / %%`, and unary `- + ~ !`, "
		"with parentheses. Arithmetic wraps modulo 2^64; `/` and `%%` "
		"truncate toward zero; division by zero and shift counts outside "
		"0..63 are errors; `>>` is arithmetic. Literals: decimal, `0x` "
		"hex, `0b` binary, `0o` octal (a leading 0 alone does not mean "
		"octal), and character literals such as `'a'` or `'\\n'`. `.` is "
		"the address of the current statement. `f32(1.5)` is the fp32 "
		"bit pattern of a number (for `oscale`, `scale` and scalar "
		"vector operands).\n\n"
		"A value needed to lay out the program (a `.zero` count, a "
		"section address, an `.if` condition, `.align`) must be defined "
		"above its use. Everything else may refer to labels defined "
		"later. `li` with a later-defined value uses the fixed "
		"`lui`+`addi` pair, so that value must fit in 32 bits.\n\n"
		"### Predefined names\n\n"
		"| name | value | meaning |\n| --- | ---: | --- |\n");
	/* Predefined names in define_builtins order: dtype ids, memory
	 * spaces a register can name, then names.def CONSTV rows. */
	for (i = 0; i < DT_N; i++)
		fprintf(fp, "| `%s` | %zu | dtype id |\n",
			dtype_name((enum npu_dtype)i), i);
	for (i = 0; i < ISA_N_MEMS; i++) {
		unsigned f = isa_mem_info[i].flags;

		if (!(f & (ISA_MS_DMA | ISA_MS_VEC)))
			continue;
		fprintf(fp, "| `%s` | %zu | memory space id: %s (%s%s%s "
			    "smem/dmem) |\n", isa_mem_info[i].name, i,
			isa_mem_info[i].noun, f & ISA_MS_DMA ? "dset" : "",
			(f & ISA_MS_DMA) && (f & ISA_MS_VEC) ? ", " : "",
			f & ISA_MS_VEC ? "vset" : "");
	}
	for (i = 0; i < isa_n_consts; i++)
		fprintf(fp, "| `%s` | %" PRId64 " | %s |\n", isa_consts[i].name,
			isa_consts[i].value, isa_consts[i].doc);
	fprintf(fp,
		"\nIn operand positions that take a name, these are recognised "
		"too: CSR names (`csrr`), mset/vset/dset field names, and unit "
		"names `ctl`, `mtx`, `vec`, `dma0`, `dma1`, ... (`sig`, `wait`, "
		"`fence`). Any of these operands may also be an integer "
		"expression instead of a single name.\n\n"
		"### The chip's settings: `CFG_*`\n\n"
		"`npusim run -c CONFIG` and `npusim as -c CONFIG` (built-in "
		"defaults without `-c`; `-s key=value` applies) define one symbol "
		"per integer, boolean and enum config key before the first line "
		"and before any `-D`: the key upper-cased with `.` as `_` behind "
		"`CFG_`, e.g. `core.matrix.rows` is `CFG_CORE_MATRIX_ROWS`, "
		"`core.scratchpad.bytes` is `CFG_CORE_SCRATCHPAD_BYTES`. Booleans "
		"are 0/1; a data-type key is the dtype id (`CFG_CORE_MATRIX_IN_TYPE "
		"== int8`); another enum key is its value's index in the key's "
		"list (docs/config.md), so `CFG_CORE_MATRIX_DATAFLOW` compares "
		"with `ws`, `os`, `is`. `CFG_CHIP_CLOCK_MHZ` is the clock rounded "
		"to MHz; other float, string and list keys have no symbol. "
		"Kernels default their tile parameters to these (`.ifndef ROWS` / "
		"`.equ ROWS, CFG_CORE_MATRIX_ROWS`), so `-s core.matrix.rows=16` "
		"needs no matching `-D ROWS=16`, and check their SRAM footprint "
		"against `CFG_CORE_SCRATCHPAD_BYTES` with `.error`.\n\n"
		"### Pseudo-instructions\n\n"
		"| pseudo-instruction | becomes | meaning |\n| --- | --- | --- |\n");
	for (i = 0; i < ASM_N_PSEUDOS; i++) {
		const struct asm_pseudo *ps = &asm_pseudos[i];

		fprintf(fp, "| `%s%s%s` | ", ps->name, *ps->syntax ? " " : "",
			ps->syntax);
		/* li (op -1) expands to a value-dependent sequence. */
		if (ps->op < 0)
			fprintf(fp, "`lui`/`addi`/`slli`/`srli` sequence");
		else
			write_expansion(fp, ps);
		fprintf(fp, " | %s |\n", ps->doc);
	}
	fprintf(fp, "\n### Directives\n\n| directive | meaning |\n"
		    "| --- | --- |\n");
	for (i = 0; i < ASM_N_DIRS; i++)
		fprintf(fp, "| `%s%s%s` | %s |\n", asm_directives[i].name,
			*asm_directives[i].operands ? " " : "",
			asm_directives[i].operands, asm_directives[i].doc);
	fprintf(fp,
		"\n### Errors\n\n"
		"Every error is reported as `file:line:col: error: message`, "
		"followed by the source line and a caret under the column; an "
		"error inside a macro expansion adds `note: in expansion of "
		"macro` lines pointing at the call. All errors of a file are "
		"reported (each statement stops at its first; see Limits), the "
		"exit status "
		"is 1, and no output file is written. Unknown mnemonics, "
		"directives, registers, symbols and field names get a "
		"did-you-mean suggestion; out-of-range values name the legal "
		"range, e.g. `immediate 9000 out of range [-8192, 8191]` or "
		"`branch target too far: offset 40000 bytes, reachable range "
		"[-32768, 32764]`.\n\n"
		"### Limits\n\n"
		"So that a runaway input fails fast instead of exhausting the "
		"machine, an assembly stops with an error beyond: %d errors, "
		"%d source lines (macro expansions included), %u MiB of text "
		"produced by macros, %d nested "
		"`.include`/macro levels, %d macro expansions, %u instructions, "
		"%u MiB of initialised data (use `.tensor` and `npusim run "
		"--input` for large tensors), and %d levels of parentheses or "
		"%d operators in an expression.\n", ASM_MAX_ERRORS, ASM_MAX_LINES,
		ASM_MAX_EXPANDED_BYTES >> 20, ASM_MAX_DEPTH,
		ASM_MAX_EXPANSIONS, ASM_MAX_CODE_WORDS, ASM_MAX_DATA_BYTES >> 20,
		ASM_MAX_EXPR_DEPTH, ASM_MAX_EXPR_OPS);
}
