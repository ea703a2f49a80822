/*
 * isa_doc.c - docs/isa.md, written from the ISA tables (`mkdoc isa`).
 *
 * Everything below the short prose comes from names.def, formats.def,
 * opcodes.def and memspaces.def (and, for the assembler chapter,
 * asm/pseudo.def and asm/directives.def via asm_write_doc), so the
 * reference cannot drift from the encoder.  `make test` regenerates the file and fails on a difference.
 * Output is deterministic: tables are walked in their declared order.
 */
#include <inttypes.h>
#include <string.h>

#include "../asm/asm.h"
#include "../isa/isa.h"
#include "../util/dtype.h"

/*
 * Register conventions (RISC-V's), shown next to the ABI names.
 * Ranges as in the RISC-V psABI: t0-t2 = x5-x7, t3-t6 = x28-x31,
 * s0/s1 = x8/x9, s2-s11 = x18-x27, a0-a7 = x10-x17 (the fallthrough).
 */
static const char *reg_role(int r)
{
	if (r == 0) return "always reads 0; writes are ignored";
	if (r == 1) return "return address (call/ret)";
	if (r == 2) return "stack pointer (convention only)";
	if (r == 3) return "global pointer (convention only)";
	if (r == 4) return "thread pointer (convention only)";
	if ((r >= 5 && r <= 7) || r >= 28) return "temporary";
	if (r == 8) return "saved register / frame pointer (also `fp`)";
	if (r == 9 || (r >= 18 && r <= 27)) return "saved register";
	return "argument / return value";
}

/* One box of a bit diagram. */
struct seg {
	int hi, lo;           /* bit range */
	const char *label;    /* field name, "op" or "0" */
	int w;                /* width of the box in characters */
};

/*
 * Draw fmt's 32 bits as an ASCII box diagram (a Markdown code block).
 * Layout, e.g. for R3:
 *    31 24 23 19 18 14 13  9 8  0
 *   +-----+-----+-----+-----+----+
 *   | op  | rd  | rs1 | rs2 | 0  |
 *   +-----+-----+-----+-----+----+
 * A box is as wide as its label + 2, at least the "hi lo" bit numbers
 * above it and at least 4.  segs[16] suffices: op + at most 4 fields,
 * plus at most 5 reserved gaps between and around them, is 10.
 */
static void write_diagram(FILE *fp, enum isa_fmt fmt)
{
	const struct isa_fmt_info *fi = &isa_fmt_info[fmt];
	struct seg segs[16];
	int n = 0, bit = 23, k, i;

	segs[n++] = (struct seg){ 31, 24, "op", 0 };
	/*
	 * Fields from the top down, with reserved gaps shown as "0".
	 * bit walks from 23 down to 0; each step emits the field whose top bit
	 * is bit, or else the reserved run below it.  Fields of one format never
	 * overlap (test_isa.c), so every bit lands in exactly one box.
	 */
	while (bit >= 0) {
		int best = -1;

		for (k = 0; k < fi->n_fields; k++) {
			const struct isa_field_info *f =
				&isa_field_info[fi->fields[k]];

			if (f->lo + f->width - 1 == bit)
				best = k;
		}
		if (best >= 0) {
			const struct isa_field_info *f =
				&isa_field_info[fi->fields[best]];

			segs[n++] = (struct seg){ bit, f->lo, f->name, 0 };
			bit = f->lo - 1;
			continue;
		}
		/* A reserved run: down to the next field's top bit. */
		{
			int lo = 0;

			for (k = 0; k < fi->n_fields; k++) {
				const struct isa_field_info *f =
					&isa_field_info[fi->fields[k]];
				int top = f->lo + f->width - 1;

				if (top < bit && top + 1 > lo)
					lo = top + 1;
			}
			segs[n++] = (struct seg){ bit, lo, "0", 0 };
			bit = lo - 1;
		}
	}
	fprintf(fp, "```\n");
	/* Bit numbers above each box: high at the left, low at the right. */
	for (i = 0; i < n; i++) {
		char hs[8], ls[8];
		int w = (int)strlen(segs[i].label) + 2, need;

		snprintf(hs, sizeof(hs), "%d", segs[i].hi);
		snprintf(ls, sizeof(ls), "%d", segs[i].lo);
		need = segs[i].hi == segs[i].lo ? (int)strlen(hs)
						: (int)(strlen(hs) + strlen(ls) + 1);
		if (w < need)
			w = need;
		if (w < 4)
			w = 4;
		segs[i].w = w;
		/* A one-bit box shows one number, else "hi" left, "lo" right. */
		if (segs[i].hi == segs[i].lo)
			fprintf(fp, " %-*s", w, hs);
		else
			fprintf(fp, " %s%*s", hs, w - (int)strlen(hs), ls);
	}
	fprintf(fp, "\n");
	for (i = 0; i < n; i++) {
		fputc('+', fp);
		for (k = 0; k < segs[i].w; k++)
			fputc('-', fp);
	}
	fprintf(fp, "+\n");
	for (i = 0; i < n; i++) {
		int w = segs[i].w, len = (int)strlen(segs[i].label);
		int left = (w - len) / 2;

		fprintf(fp, "|%*s%s%*s", left, "", segs[i].label,
			w - len - left, "");
	}
	fprintf(fp, "|\n");
	for (i = 0; i < n; i++) {
		fputc('+', fp);
		for (k = 0; k < segs[i].w; k++)
			fputc('-', fp);
	}
	fprintf(fp, "+\n```\n\n");
}

/* "rd, rs1, rs2" with the field names in backquotes for the prose. */
static void write_syntax(FILE *fp, const char *mnemonic, const char *syntax)
{
	if (*syntax)
		fprintf(fp, "`%s %s`", mnemonic, syntax);
	else
		fprintf(fp, "`%s`", mnemonic);
}

/* The flag names set in flags, in names.def order ("none" if empty). */
static void write_flags(FILE *fp, uint32_t flags)
{
	int b, first = 1;

	for (b = 0; b < ISA_N_FLAGS; b++)
		if (flags >> b & 1) {
			fprintf(fp, "%s`%s`", first ? "" : ", ", isa_flag_names[b]);
			first = 0;
		}
	if (first)
		fprintf(fp, "none");
}

/*
 * The "operand" column of the Fields table, one entry per
 * enum isa_field_kind (designated, so each text stays with its kind
 * whatever the enum's order).
 */
static const char *const kind_desc[] = {
	[ISA_FK_REG] = "register x0..x31",
	[ISA_FK_IMM] = "integer",
	[ISA_FK_HEX] = "integer (printed in hex)",
	[ISA_FK_PCREL] = "target address; stored as (target - pc) / 4",
	[ISA_FK_CSR] = "CSR name",
	[ISA_FK_MFIELD] = "mset field name",
	[ISA_FK_VFIELD] = "vset field name",
	[ISA_FK_DFIELD] = "dset field name",
	[ISA_FK_UNIT] = "unit name",
	[ISA_FK_MASK] = "unit names joined by `|`, or `all`",
	[ISA_FK_REGION] = "region name (identifier or string), or an index",
};

/*
 * A "| id | name | meaning |" table of one names.def table (mset, vset or
 * dset fields); op, if set, is the instruction that writes them.
 */
static void write_name_table(FILE *fp, const char *title, const char *op,
			     const char *const *names, const char *const *docs,
			     int n)
{
	int i;

	fprintf(fp, "### %s\n\n", title);
	if (op)
		fprintf(fp, "Written with `%s FIELD, rs1` (the value comes from "
			    "a register).\n\n", op);
	fprintf(fp, "| id | name | meaning |\n| ---: | --- | --- |\n");
	for (i = 0; i < n; i++)
		fprintf(fp, "| %d | `%s` | %s |\n", i, names[i], docs[i]);
	fprintf(fp, "\n");
}

/* Latency classes (names.def LATCLASS), "-" (none) left out. */
static void write_lat_table(FILE *fp)
{
	int i;

	fprintf(fp, "## Latency classes\n\nWhich of its unit's latencies "
		    "(`isa_op_info[op].lat`) an instruction takes; the keys "
		    "are in docs/config.md.\n\n| class | meaning |\n"
		    "| --- | --- |\n");
	for (i = 0; i < ISA_N_LATS; i++)
		if (i != ISA_LAT_NONE)
			fprintf(fp, "| `%s` | %s |\n", isa_lat_names[i],
				isa_lat_docs[i]);
	fprintf(fp, "\n");
}

/*
 * Vector operand kinds (names.def VKIND): one cell per operand slot, its
 * shape in vset terms and its element type, e.g. "rows x len, int32".
 */
static void write_vkind_table(FILE *fp)
{
	static const char *const shape[] = {
		[ISA_VSH_NONE] = "-",
		[ISA_VSH_TILE] = "rows x len",
		[ISA_VSH_ROW] = "1 x len",
		[ISA_VSH_COL] = "rows x 1",
		[ISA_VSH_TRANS] = "len x rows",
		[ISA_VSH_INDEXED] = "by index",
	};
	static const char *const etype[] = {
		[ISA_VET_TYPE] = "type",
		[ISA_VET_OTYPE] = "otype",
		[ISA_VET_INT32] = "int32",
	};
	int i, k;

	fprintf(fp, "## Vector operand kinds\n\nWhat a vector instruction "
		    "reads and writes (`isa_op_info[op].vkind`): the tiles at "
		    "x[rs1], x[rs2], x[rs3] (s1, s2, s3) and x[rd] (d), as "
		    "rows x elements per row with the element type, from the "
		    "`vset` registers. Rows of s1 are `ss1` bytes apart, of s2 "
		    "and s3 `ss2`, of d `sd` (0 = dense). *By index*: the "
		    "elements the index tile picks, from the address to the end "
		    "of the memory. The vector unit checks bounds and interlocks "
		    "on these ranges and the hazard checker records them.\n\n"
		    "| kind | s1 | s2 | s3 | d | semantics |\n"
		    "| --- | --- | --- | --- | --- | --- |\n");
	for (i = 0; i < ISA_N_VKINDS; i++) {
		const struct isa_vkind_info *ki = &isa_vkind_info[i];

		if (i == ISA_VK_NONE)
			continue;
		fprintf(fp, "| `%s` |", ki->name);
		for (k = 0; k < ISA_N_VSLOTS; k++) {
			if (ki->opnd[k].shape == ISA_VSH_NONE)
				fprintf(fp, " - |");
			else
				fprintf(fp, " %s, %s |", shape[ki->opnd[k].shape],
					etype[ki->opnd[k].type]);
		}
		fprintf(fp, " `%s` |\n", ki->doc);
	}
	fprintf(fp, "\n");
}

/*
 * Section order of docs/isa.md: prose, Registers, Encoding (Fields,
 * Formats with diagrams), Instruction summary, Instructions (grouped by
 * unit, each with mask/match and roles), Unit ids, Status registers,
 * Configuration registers, Memory spaces, Data types, Operand roles,
 * Latency classes, Vector operand kinds, then the assembler chapter from
 * asm_write_doc.  Every byte is a function of the tables: no date or
 * version, so the staleness test compares files exactly.
 */
void isa_write_doc(FILE *fp)
{
	int i, u;

	fprintf(fp,
		"# npusim instruction set\n\n"
		"<!-- Generated by `make docs` (mkdoc isa) from isa/names.def, "
		"isa/formats.def, isa/opcodes.def, isa/memspaces.def, "
		"asm/pseudo.def and asm/directives.def. Do not edit: `make "
		"test` fails when this file is stale. -->\n\n");
	/* One opcode per op, so the used-opcode count is ISA_N_OPS too. */
	fprintf(fp,
		"Every instruction is one 32-bit little-endian word; `pc` is a "
		"byte address that advances by 4, and a program starts at pc 0. "
		"A core's **control unit** executes the instructions in order. "
		"Scalar, configuration and most synchronisation instructions "
		"execute in the control unit; matrix, vector and DMA "
		"instructions are *dispatched* into the in-order queue of their "
		"unit, together with a snapshot of that unit's configuration "
		"registers (written by `mset`, `vset`, `dset`). Units run "
		"decoupled from each other: ordering between them is only what "
		"semaphores (`sig`/`wait`) and `fence` impose.\n\n"
		"%d instructions in %d formats; %d of 256 major opcodes are "
		"used.\n\n", ISA_N_OPS, ISA_N_FMTS, ISA_N_OPS);

	fprintf(fp, "## Registers\n\n"
		    "32 scalar registers of 64 bits. The assembler accepts "
		    "`x0`..`x31` and the ABI names below (the disassembler "
		    "prints ABI names). Only `x0` is special in hardware; the "
		    "rest is convention.\n\n"
		    "| register | ABI name | role |\n| --- | --- | --- |\n");
	for (i = 0; i < 32; i++)
		fprintf(fp, "| `x%d` | `%s` | %s |\n", i, isa_reg_names[i],
			reg_role(i));

	fprintf(fp, "\n## Partitions\n\n"
		    "A chip's cores may be cut into *partitions* of consecutive "
		    "cores (the run library's `chip_set_partitions`; `npusim "
		    "model --pipeline` gives each pipeline stage one). A program "
		    "sees its partition as its chip: `csrr coreid` counts from "
		    "the partition's first core, `csrr ncores` is its size, "
		    "`barrier` meets the partition's cores only (arrivals go to "
		    "its first core's node), and core numbers in `rsig`, in a "
		    "DMA descriptor's `score`/`dcore` and in `dmask` bits are "
		    "partition indices: one beyond the partition faults, naming "
		    "it. Programs assembled for a partition see `CFG_CHIP_CORES` "
		    "as its size. Memory addresses are not partitioned: DRAM "
		    "is the chip's. Without partitions the whole chip is one, "
		    "and every rule above is the chip-wide one.\n");

	fprintf(fp, "\n## Post-increment\n\n"
		    "`mprep`, `mmulp`, `mmaccp` and `moutp` are `mpre`, `mmul`, "
		    "`mmacc` and `mout` that also step their address registers "
		    "once dispatched: each register adds the increment of the "
		    "operand it names (`mset ia`, `ib`, `ic`, `io`: A, B, the "
		    "accumulator tile C, mout's scratchpad destination; signed "
		    "byte counts, 0 at program start). The new values are "
		    "ready after the ALU latency, as if an `addi` had run; a "
		    "dispatch refused by a full queue increments nothing; `x0` "
		    "is never written, so a WS `mmulp` naming the resident tile "
		    "with `x0` keeps naming it. A tile loop is then two "
		    "instructions per tile (`mmulp t4, t3, t5` and `dbnz`) "
		    "instead of one plus three address updates.\n\n"
		    "Why post-increment rather than hardware loops or immediate "
		    "offsets: the tile instructions' 24 operand bits hold three "
		    "register fields with little room for offsets, and a tiled "
		    "kernel's inner loop walks each operand by a constant stride "
		    "- exactly what a per-operand increment register expresses, "
		    "as address generators do in DSPs and in Gemmini's "
		    "`LOOP_WS` unit. A hardware loop would remove only the "
		    "`dbnz` (one issue slot per tile) and needs a loop stack "
		    "for nesting; the increments remove the address arithmetic, "
		    "which is the larger part, and keep every loop an ordinary "
		    "branch the trace shows.\n\n");
	fprintf(fp, "\n## Encoding\n\n"
		    "Bits [31:24] hold the major opcode, one per instruction. "
		    "The other 24 bits are laid out by the instruction's format. "
		    "Bits that no field of the format covers are reserved and "
		    "must be 0: they are part of the instruction's mask, so a "
		    "word with a reserved bit set is illegal (as is any word "
		    "whose opcode is unassigned, including 0x00000000). A field "
		    "value outside its legal range (for example an unknown CSR "
		    "id or a `wait` count of 0) is illegal too.\n\n");
	fprintf(fp, "### Fields\n\n| field | bits | legal values | operand |\n"
		    "| --- | --- | --- | --- |\n");
	/* Only OFF14/OFF19 have a shift, 2: the "4" below assumes it. */
	for (i = 0; i < ISA_N_FIELDS; i++) {
		const struct isa_field_info *f = &isa_field_info[i];

		fprintf(fp, "| `%s` (%s) | [%d:%d]%s | %" PRId64 " .. %" PRId64
			    "%s | %s |\n", f->name, f->id,
			f->lo + f->width - 1, f->lo,
			f->min < 0 ? " signed" : "", f->min, f->max,
			f->shift ? " (multiple of 4; field holds value / 4)" : "",
			kind_desc[f->kind]);
	}
	fprintf(fp, "\n### Formats\n\n");
	for (i = 0; i < ISA_N_FMTS; i++) {
		const struct isa_fmt_info *fi = &isa_fmt_info[i];
		int k, first = 1;

		fprintf(fp, "#### %s: %s\n\nOperands: `%s`. Used by ", fi->id,
			fi->doc, *fi->syntax ? fi->syntax : "(none)");
		for (k = 0; k < ISA_N_OPS; k++)
			if (isa_op_info[k].fmt == (enum isa_fmt)i) {
				fprintf(fp, "%s`%s`", first ? "" : ", ",
					isa_op_info[k].name);
				first = 0;
			}
		fprintf(fp, ".\n\n");
		write_diagram(fp, (enum isa_fmt)i);
	}

	fprintf(fp, "## Instruction summary\n\n"
		    "| opcode | instruction | unit | semantics |\n"
		    "| --- | --- | --- | --- |\n");
	for (i = 0; i < ISA_N_OPS; i++) {
		const struct isa_op_info *o = &isa_op_info[i];

		fprintf(fp, "| 0x%02x | ", o->opcode);
		write_syntax(fp, o->name, isa_fmt_info[o->fmt].syntax);
		fprintf(fp, " | %s | %s |\n", isa_unit_names[o->unit], o->sem);
	}

	fprintf(fp, "\n## Instructions\n\n"
		    "Grouped by the unit that executes them. *Roles* are the "
		    "operand-role flags the control unit uses to read registers "
		    "and to check operands (see [Operand roles](#operand-roles)). "
		    "The *latency class* says which of its unit's latencies an "
		    "instruction takes ([Latency classes](#latency-classes)), "
		    "the *operand kind* which bytes a vector instruction reads "
		    "and writes ([Vector operand kinds](#vector-operand-kinds))."
		    "\n\n");
		/* Quadratic (units x ops, 6 x 99) but run once per doc build. */
	for (u = 0; u < ISA_N_UNITS; u++) {
		fprintf(fp, "### Unit `%s`\n\n%s.\n\n", isa_unit_names[u],
			isa_unit_docs[u]);
		for (i = 0; i < ISA_N_OPS; i++) {
			const struct isa_op_info *o = &isa_op_info[i];

			if (o->unit != (enum isa_unit)u)
				continue;
			fprintf(fp, "### `%s`\n\n", o->name);
			write_syntax(fp, o->name, isa_fmt_info[o->fmt].syntax);
			fprintf(fp, "  \nEncoding: opcode 0x%02x, format %s, "
				    "mask 0x%08x, match 0x%08x  \nRoles: ",
				o->opcode, isa_fmt_info[o->fmt].id, o->mask,
				o->match);
			write_flags(fp, o->flags);
			/* The columns the units time and lay out operands by. */
			if (o->lat != ISA_LAT_NONE)
				fprintf(fp, "  \nLatency class: `%s`",
					isa_lat_names[o->lat]);
			if (o->vkind != ISA_VK_NONE)
				fprintf(fp, "  \nOperand kind: `%s`",
					isa_vkind_info[o->vkind].name);
			fprintf(fp, "  \nSemantics: `%s`\n\n%s\n\n", o->sem, o->doc);
		}
	}

	fprintf(fp, "## Unit ids\n\n"
		    "The `unit` operand of `sig` and `wait`, and the bits of the "
		    "`fence` mask. There is one id per DMA engine.\n\n"
		    "| id | name | queue |\n| ---: | --- | --- |\n");
	/* names.def SUNIT rows, then one generic row for dma<k>. */
#define SUNIT(id, name, value, doc) \
	fprintf(fp, "| %d | `%s` | %s |\n", value, name, doc);
#include "../isa/names.def"
	fprintf(fp, "| 3+k | `dma<k>` | DMA engine k (k up to %d; the "
		    "configuration decides how many exist) |\n\n",
		ISA_UID_MAX - ISA_UID_DMA0);

	fprintf(fp, "## Status registers\n\nRead with `csrr rd, NAME`.\n\n"
		    "| id | name | value |\n| ---: | --- | --- |\n");
	for (i = 0; i < ISA_N_CSRS; i++)
		fprintf(fp, "| %d | `%s` | %s |\n", i, isa_csr_names[i],
			isa_csr_docs[i]);

	fprintf(fp, "\n## Configuration registers\n\n"
		    "Per-core registers that parameterise the tile instructions. "
		    "Each dispatched instruction carries a snapshot of its "
		    "unit's registers, so changing a register never affects "
		    "instructions already queued.\n\n");
	write_name_table(fp, "Matrix (`mset`)", "mset", isa_mfield_names,
			 isa_mfield_docs, ISA_N_MFIELDS);
	write_name_table(fp, "Vector (`vset`)", "vset", isa_vfield_names,
			 isa_vfield_docs, ISA_N_VFIELDS);
	write_name_table(fp, "DMA descriptor (`dset`)", "dset",
			 isa_dfield_names, isa_dfield_docs, ISA_N_DFIELDS);

	/* memspaces.def: one row per space, one column per MSFLAG. */
	fprintf(fp, "## Memory spaces\n\n"
		    "Where operands, transfers and a program's initialised data "
		    "live. The id is the value of `dset`/`vset` `smem`/`dmem` "
		    "and the number object files store. In assembly the name "
		    "of a space a register can hold (dset or vset) is a "
		    "predefined constant; `.tensor` and objdump name the spaces "
		    "a program can initialise (data).\n\n| id | name |");
	for (i = 0; i < ISA_N_MSFLAGS; i++)
		fprintf(fp, " %s |", isa_msflag_names[i]);
	fprintf(fp, " what |\n| ---: | --- |");
	for (i = 0; i < ISA_N_MSFLAGS; i++)
		fprintf(fp, " :---: |");
	fprintf(fp, " --- |\n");
	for (i = 0; i < ISA_N_MEMS; i++) {
		fprintf(fp, "| %d | `%s` |", i, isa_mem_info[i].name);
		for (u = 0; u < ISA_N_MSFLAGS; u++)
			fprintf(fp, " %s |",
				isa_mem_info[i].flags & (1u << u) ? "yes" : "");
		fprintf(fp, " %s |\n", isa_mem_info[i].doc);
	}
	fprintf(fp, "\n");
	for (i = 0; i < ISA_N_MSFLAGS; i++)
		fprintf(fp, "- *%s*: %s.\n", isa_msflag_names[i],
			isa_msflag_docs[i]);
	fprintf(fp, "\n");

	fprintf(fp, "## Data types\n\n"
		    "Element types are named the same everywhere (ISA operands, "
		    "configuration files, `.tensor`, .npy files). In assembly "
		    "the names are constants whose value is the dtype id, e.g. "
		    "`li t0, bf16`.\n\n"
		    "| id | name | bits | kind |\n| ---: | --- | ---: | --- |\n");
	for (i = 0; i < DT_N; i++)
		fprintf(fp, "| %d | `%s` | %d | %s |\n", i,
			dtype_name((enum npu_dtype)i),
			dtype_bits((enum npu_dtype)i),
			dtype_is_float((enum npu_dtype)i) ? "float" : "integer");
	/* The int4 packing of util/num.c and docs/numerics.md. */
	fprintf(fp, "\nint4 packs two elements per byte, low nibble first.\n\n");

	fprintf(fp, "## Operand roles\n\nFlags of each instruction "
		    "(`isa_op_info[op].flags`).\n\n| flag | meaning |\n"
		    "| --- | --- |\n");
	for (i = 0; i < ISA_N_FLAGS; i++)
		fprintf(fp, "| `%s` | %s |\n", isa_flag_names[i],
			isa_flag_docs[i]);
	fprintf(fp, "\n");
	write_lat_table(fp);
	write_vkind_table(fp);
	asm_write_doc(fp);
}
