/*
 * cmds.c - the option table of every npusim subcommand.
 *
 * Each command's rows are its opts_<name>.def, included here into a
 * struct opts_row array and in cmd_<name>.c into the enum of its option
 * indices: the two expansions of one file cannot disagree.  commands.def
 * gives each table its prose and the order of `npusim --help`.  A row is
 *
 *   OPT(ID, 'short', "long", "META", KIND, "help")
 *
 * with 0 for no short form, NULL for no long form, NULL META for a flag
 * (or an enum shown by its names), and KIND one of
 *
 *   FLAG            no value
 *   STR             a string the command checks itself; the last one wins
 *   LIST            a string, repeatable: the command sees each one
 *   U64(lo, hi)     an unsigned decimal, refused outside [lo, hi]
 *   ENUM(names)     one of the strings of the array names (its size known
 *                   here): the command gets the index
 *
 * Invariants (tests/unit/test_cli.c walks every table): no two options of
 * a command share a name, every option has help, an enum has names.
 */
#include <stdint.h>

#include "../arch/arch.h"
#include "../sim/noc/noc.h"
#include "cmds.h"

/* Values of the enum options that no library table names.  cmd_*.c maps
 * an index to its meaning in the same order. */
#define ARCH_NAME(k, value, name) name,
static const char *const matrix_models[] = { ARCH_VALS_MTX_MODEL(ARCH_NAME, 0) };
#undef ARCH_NAME
static const char *const tune_strategies[] = { "exhaustive", "random", "model" };
static const char *const model_dtypes[] = { "int8", "bf16" };
static const char *const model_splits[] = { "rows", "channels" };

#define FLAG            .kind = OPTS_FLAG
#define STR             .kind = OPTS_STR
#define LIST            .kind = OPTS_LIST
#define U64(l, h)       .kind = OPTS_U64, .lo = (l), .hi = (h)
#define ENUM(v)         .kind = OPTS_ENUM, .names = (v), \
			.n_names = (int)(sizeof(v) / sizeof((v)[0]))
#define OPT(id, sh, lng, mv, kd, hp) \
	{ .short_name = (sh), .long_name = (lng), .meta = (mv), kd, .help = (hp) },

static const struct opts_row rows_as[] = {
#include "opts_as.def"
};
static const struct opts_row rows_objdump[] = {
#include "opts_objdump.def"
};
static const struct opts_row rows_config[] = {
#include "opts_config.def"
};
static const struct opts_row rows_dram[] = {
#include "opts_dram.def"
};
static const struct opts_row rows_noc[] = {
#include "opts_noc.def"
};
static const struct opts_row rows_run[] = {
#include "opts_run.def"
};
/* stat's own; run's come first through its base (commands.def) */
static const struct opts_row rows_stat[] = {
#include "opts_stat.def"
};
static const struct opts_row rows_sweep[] = {
#include "opts_sweep.def"
};
static const struct opts_row rows_tune[] = {
#include "opts_tune.def"
};
static const struct opts_row rows_model[] = {
#include "opts_model.def"
};
static const struct opts_row rows_roofline[] = {
#include "opts_roofline.def"
};

#undef OPT
#undef FLAG
#undef STR
#undef LIST
#undef U64
#undef ENUM

#define CMD(nm, fn, vc, bs, ops, sum, in, out)                          \
	const struct opts_cmd cmds_##nm = {                             \
		.name = #nm, .operands = (ops), .summary = (sum),       \
		.intro = (in), .outro = (out),                          \
		.voice = OPTS_VOICE_##vc, .base = (bs),                 \
		.rows = rows_##nm,                                      \
		.n_rows = (int)(sizeof(rows_##nm) / sizeof(rows_##nm[0])), \
	};
#include "commands.def"
#undef CMD

const struct opts_cmd *const cmds_all[] = {
#define CMD(nm, fn, vc, bs, ops, sum, in, out) &cmds_##nm,
#include "commands.def"
#undef CMD
};
const int cmds_n = (int)(sizeof(cmds_all) / sizeof(cmds_all[0]));
