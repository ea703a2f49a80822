/*
 * arch.c - the chip description: the key table (params.def), loading a
 * libconfig file, -s key=value overrides, validation, DRAM presets, NoC
 * placement and derived peaks.
 *
 * Load order (arch_load):
 *   1. every key takes its params.def default;
 *   2. the file is parsed by libconfig and EVERY setting in it is walked:
 *      its dotted path must be a key or a group of keys, its type must fit
 *      the key's type, its value the key's range;
 *   3. the overrides "key=value" are applied in order;
 *   4. "0 = from preset" DRAM keys take the value of dram.preset;
 *   5. empty noc.core_nodes / noc.dram_nodes lists get the default placement;
 *   6. cross-key rules are checked;
 *   7. struct arch_derived is computed.
 * Every error goes to the diag as "file:line: error: ..." and loading goes
 * on, so one run reports all of them; the result is then NPU_ECONFIG.
 *
 * Invariants after arch_load() returns 0: every value is in its key's range,
 * every preset-backed key is non-zero, both placement lists are filled
 * (chip.cores and dram.channels entries, distinct nodes inside the NoC) and
 * a->d holds the peaks.  On failure *a is empty (arch_free is a no-op).
 *
 * libconfig 1.5 quirk handled with cfg_audit.c: an integer literal without
 * the L suffix that does not fit in 32 bits is silently truncated
 * (4294967296 reads as 0).  When the linked libconfig behaves so (probed
 * once), the loader has the file text lexed and reports such literals
 * instead of using wrong values.
 */
#include "arch.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libconfig.h>

#include "../util/dtype.h"
#include "../util/strutil.h"
#include "arch_int.h"
#include "dram_map.h"

/* ---- the key table --------------------------------------------------------*/

/*
 * ENUM value lists joined into "a|b|c": each value adds "|name", and the
 * row points at element [1], past the leading '|' (the address of an
 * element of a string literal is still a constant initialiser).
 */
#define ARCH_VAL_BAR(k, v, name) "|" name

/*
 * One row per key.  BOOL keys are stored as 0/1 with range [0, 1];
 * ENUM and STR defaults stay as text (sdef) and ENUM ones become an index
 * in set_defaults; LIST keys default to the empty list.
 */
const struct param_info param_info[P_N] = {
#define PINT(id, key, def, lo, hi, unit, doc) \
	[P_##id] = { key, PT_INT, (double)(def), NULL, lo, hi, NULL, unit, doc },
#define PFLT(id, key, def, lo, hi, unit, doc) \
	[P_##id] = { key, PT_FLT, def, NULL, lo, hi, NULL, unit, doc },
#define PBOOL(id, key, def, doc) \
	[P_##id] = { key, PT_BOOL, (def) ? 1.0 : 0.0, NULL, 0, 1, NULL, "", doc },
#define PENUM(id, key, def, doc) \
	[P_##id] = { key, PT_ENUM, 0, def, 0, 0,                              \
		     &(ARCH_VALS_##id(ARCH_VAL_BAR, id))[1], "", doc },
#define PSTR(id, key, def, doc) \
	[P_##id] = { key, PT_STR, 0, def, 0, 0, NULL, "", doc },
#define PLIST(id, key, lo, hi, unit, doc) \
	[P_##id] = { key, PT_LIST, 0, NULL, lo, hi, NULL, unit, doc },
#include "params.def"
#undef PINT
#undef PFLT
#undef PBOOL
#undef PENUM
#undef PSTR
#undef PLIST
};

/* ---- enum names and group paths, split once ------------------------------*/

/*
 * Split forms of the table, built once on first use: ENUM "a|b|c" lists
 * as arrays, and the group paths.  Built lazily with pthread_once so a
 * caller may load configs from several threads without a lock per
 * lookup; after that the table is read-only.
 */
#define ENUM_MAX 16     /* most names one ENUM key may list */
#define GROUP_MAX 64    /* most distinct group paths */

/* Every ENUM key's list fits the split table (a longer one fails here). */
#define PINT(id, key, def, lo, hi, unit, doc)
#define PFLT(id, key, def, lo, hi, unit, doc)
#define PBOOL(id, key, def, doc)
#define PENUM(id, key, def, doc)                                           \
	_Static_assert(ARCH_N_##id <= ENUM_MAX,                            \
		       #id " lists more than ENUM_MAX values");
#define PSTR(id, key, def, doc)
#define PLIST(id, key, lo, hi, unit, doc)
#include "params.def"
#undef PINT
#undef PFLT
#undef PBOOL
#undef PENUM
#undef PSTR
#undef PLIST

static struct {
	const char *enum_names[P_N][ENUM_MAX]; /* split "a|b|c" lists */
	int enum_n[P_N];                       /* names per ENUM key */
	const char *groups[GROUP_MAX];         /* group paths, first-seen order */
	int n_groups;                          /* entries in groups */
	char store[8192];                      /* NUL-terminated copies */
} tab;
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

/* Copy n bytes of s into tab.store as a string; the table is sized for
 * params.def with a wide margin, and a test checks every name survives. */
static const char *tab_keep(size_t *used, const char *s, size_t n)
{
	char *p;

	if (*used + n + 1 > sizeof(tab.store))
		return "";
	p = tab.store + *used;
	memcpy(p, s, n);
	p[n] = '\0';
	*used += n + 1;
	return p;
}

/*
 * Names beyond ENUM_MAX and groups beyond GROUP_MAX would be dropped
 * silently; the _Static_assert above refuses a longer ENUM list, and
 * tests/unit/test_arch.c checks that every name of params.def survives,
 * so growing the table past a limit fails the build or a test, not a run.
 */
static void tab_build(void)
{
	size_t used = 0;
	int i, g;

	for (i = 0; i < P_N; i++) {
		const char *s = param_info[i].names, *bar;
		const char *key = param_info[i].key, *dot;

		while (s && tab.enum_n[i] < ENUM_MAX) {
			bar = strchr(s, '|');
			tab.enum_names[i][tab.enum_n[i]++] = tab_keep(
				&used, s, bar ? (size_t)(bar - s) : strlen(s));
			s = bar ? bar + 1 : NULL;
		}
		/* every prefix ending before a '.' is a group path */
		for (dot = strchr(key, '.'); dot; dot = strchr(dot + 1, '.')) {
			size_t n = (size_t)(dot - key);

			for (g = 0; g < tab.n_groups; g++)
				if (strlen(tab.groups[g]) == n &&
				    memcmp(tab.groups[g], key, n) == 0)
					break;
			if (g == tab.n_groups && g < GROUP_MAX)
				tab.groups[tab.n_groups++] =
					tab_keep(&used, key, n);
		}
	}
}

static void tab_init(void)
{
	(void)pthread_once(&tab_once, tab_build);
}

/* Number of names of an ENUM key (0 for other types). */
int arch_enum_count(enum param_id id)
{
	tab_init();
	return (unsigned)id < P_N ? tab.enum_n[id] : 0;
}

const char *arch_enum_at(enum param_id id, int k)
{
	tab_init();
	if ((unsigned)id >= P_N || k < 0 || k >= tab.enum_n[id])
		return NULL;
	return tab.enum_names[id][k];
}

/* Index of name in an ENUM key's list (case-sensitive), -1 if absent. */
int arch_enum_find(enum param_id id, const char *name)
{
	int k;

	for (k = 0; k < arch_enum_count(id); k++)
		if (strcmp(tab.enum_names[id][k], name) == 0)
			return k;
	return -1;
}

/* "?" only for a corrupt index; a loaded arch always has a valid one. */
const char *arch_enum_name(const struct arch *a, enum param_id id)
{
	const char *s = arch_enum_at(id, (int)a->v[id].i);

	return s ? s : "?";
}

int arch_n_groups(void)
{
	tab_init();
	return tab.n_groups;
}

const char *arch_group(int i)
{
	tab_init();
	return i >= 0 && i < tab.n_groups ? tab.groups[i] : NULL;
}

int arch_find_group(const char *path)
{
	int g;

	tab_init();
	for (g = 0; g < tab.n_groups; g++)
		if (strcmp(tab.groups[g], path) == 0)
			return g;
	return -1;
}

/* Linear over the 94 keys: once per setting while loading, off any hot path. */
int arch_find_key(const char *key)
{
	int i;

	for (i = 0; i < P_N; i++)
		if (strcmp(param_info[i].key, key) == 0)
			return i;
	return -1;
}

/* A LIST value: *n elements (NULL and 0 for the empty list). */
const int64_t *arch_list(const struct arch *a, enum param_id id, int *n)
{
	*n = a->v[id].l.n;
	return a->v[id].l.v;
}

/*
 * Bits of an element of the k-th core.matrix.in_type name (int4 -> 4),
 * via util/dtype.h, so the two spellings of a type cannot drift apart.
 */
int arch_dtype_bits(int in_type_index)
{
	const char *name = arch_enum_at(P_MTX_IN_TYPE, in_type_index);
	int t = name ? dtype_from_name(name) : -1;

	return t < 0 ? 0 : dtype_bits((enum npu_dtype)t);
}

/* ---- DRAM presets -----------------------------------------------------------*/

/* Preset fields in dram_presets.def column order, and the keys they fill. */
enum { PF_N = 28 };
static const enum param_id preset_keys[PF_N] = {
	P_DRAM_TCK, P_DRAM_BEATS_PER_TCK, P_DRAM_RANKS, P_DRAM_BANK_GROUPS,
	P_DRAM_BANKS, P_DRAM_ROWS, P_DRAM_ROW_BYTES, P_DRAM_BUS_BITS, P_DRAM_BL,
	P_DRAM_TRCD, P_DRAM_TCL, P_DRAM_TCWL, P_DRAM_TRP, P_DRAM_TRAS,
	P_DRAM_TWR, P_DRAM_TRTP, P_DRAM_TWTR, P_DRAM_TWTR_L, P_DRAM_TRRD,
	P_DRAM_TRRD_L, P_DRAM_TFAW, P_DRAM_TCCD, P_DRAM_TCCD_L,
	P_DRAM_TCCD_L_WR, P_DRAM_TREFI, P_DRAM_TRFC, P_DRAM_TRFC_PB,
	P_DRAM_REFPB_BANKS,
};

/*
 * The preset table, one row per dram.preset value: a designated index per
 * ID (ARCH_DRAM_PRESET_<ID>), so a row whose ID is not a value of the key
 * is a compile error, as is a second row for one ID (-Woverride-init); the
 * row count check below catches a value without a row.
 */
static const struct {
	double f[PF_N];     /* values in preset_keys order */
	const char *mapping;/* dram.mapping when the key is empty */
} presets[ARCH_N_DRAM_PRESET] = {
#define PRESET(ID, tck, beats, ranks, groups, banks, rows, rowb, bus, bl,   \
	       trcd, tcl, tcwl, trp, tras, twr, trtp, wtrs, wtrl, rrds, rrdl, \
	       tfaw, ccds, ccdl, ccdlw, trefi, trfc, trfcpb, pbb, map)        \
	[ARCH_DRAM_PRESET_##ID] = { { tck, beats, ranks, groups, banks, rows, \
				      rowb, bus, bl, trcd, tcl, tcwl, trp,    \
				      tras, twr, trtp, wtrs, wtrl, rrds,      \
				      rrdl, tfaw, ccds, ccdl, ccdlw, trefi,   \
				      trfc, trfcpb, pbb }, map },
#include "dram_presets.def"
#undef PRESET
};
enum {
#define PRESET(ID, ...) PRESET_ROW_##ID,
#include "dram_presets.def"
#undef PRESET
	N_PRESET_ROWS
};
_Static_assert((int)N_PRESET_ROWS == (int)ARCH_N_DRAM_PRESET,
	       "dram_presets.def needs one row per dram.preset value");

/* 1 for the keys a DRAM preset fills (the "0 = from preset" keys). */
int arch_is_preset_key(enum param_id id)
{
	int k;

	for (k = 0; k < PF_N; k++)
		if (preset_keys[k] == id)
			return 1;
	return 0;
}

/* The value preset 'preset_index' (a dram.preset index) gives key id; 0
 * for a key no preset fills, and for an index out of range (2 beats). */
double arch_preset_value(int preset_index, enum param_id id)
{
	int ok = preset_index >= 0 && preset_index < ARCH_N_DRAM_PRESET, k;

	if (!ok)
		return 0;
	for (k = 0; k < PF_N; k++)
		if (preset_keys[k] == id)
			return presets[preset_index].f[k];
	return 0;
}

/* dram.mapping of a preset (its default address layout). */
const char *arch_preset_mapping(int preset_index)
{
	if (preset_index < 0 || preset_index >= ARCH_N_DRAM_PRESET)
		return "";
	return presets[preset_index].mapping;
}

/* ---- values -----------------------------------------------------------------*/

/* Release the heap part of one value: only STR and LIST own memory, the
 * other types live inline in the union. */
static void val_free(struct arch *a, int id)
{
	if (param_info[id].type == PT_STR) {
		free(a->v[id].s);
		a->v[id].s = NULL;
	} else if (param_info[id].type == PT_LIST) {
		free(a->v[id].l.v);
		a->v[id].l.v = NULL;
		a->v[id].l.n = 0;
	}
}

/* Safe on a zeroed, half-loaded or already freed struct: every owned
 * pointer is NULL or valid, and the struct is zeroed again at the end. */
void arch_free(struct arch *a)
{
	int i;

	if (!a)
		return;
	for (i = 0; i < P_N; i++)
		val_free(a, i);
	for (i = 0; i < a->n_files; i++)
		free(a->files[i]);
	free(a->files);
	free(a->path);
	free(a->d.core_node);
	free(a->d.dram_node);
	memset(a, 0, sizeof(*a));
}

/*
 * Every key at its params.def default.  ENUM defaults are stored as names
 * in the table and become indices here (a test checks each default is one
 * of its names).  Placement lists start empty: resolve_placement() fills
 * them once chip.cores and dram.channels are final.
 *
 * The memset also leaves every src[].file NULL, which means "default,
 * from no file" (arch.h).
 */
static int set_defaults(struct arch *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < P_N; i++) {
		const struct param_info *p = &param_info[i];

		switch (p->type) {
		case PT_INT:
		case PT_BOOL:
			a->v[i].i = (int64_t)p->def;
			break;
		case PT_FLT:
			a->v[i].f = p->def;
			break;
		case PT_ENUM:
			a->v[i].i = arch_enum_find(i, p->sdef);
			break;
		case PT_STR:
			a->v[i].s = str_dup(p->sdef);
			if (!a->v[i].s)
				return NPU_ENOMEM;
			break;
		case PT_LIST:
			break;
		}
	}
	return 0;
}

/* ---- loader state -------------------------------------------------------------*/

/*
 * State of one arch_load() call.  Lives on the caller's stack; everything
 * it owns (incdir, the audit) is freed before arch_load returns, while
 * interned file names move into the struct arch (src[].file points there).
 */
struct ld {
	struct arch *a;          /* being filled */
	struct diag *d;          /* where errors go */
	const char *path;        /* top-level file (interned) or NULL */
	char *incdir;            /* @include directory (owned) or NULL */
	int n_err;               /* errors reported so far */
	int nomem;               /* an allocation failed */
	unsigned char bad[P_N];  /* key had an error: skip rules that use it */
	struct cfg_audit au;     /* libconfig 1.5's truncated literals */
};

static const char cmdline[] = "<command line>";

/*
 * Keep a copy of a file name for the life of *a (src[].file points here):
 * libconfig's own names die with config_destroy(), but messages about
 * cross-key rules and callers' later messages need them.  A config names
 * few files, so a linear search is fine.
 */
static const char *intern(struct ld *L, const char *name)
{
	struct arch *a = L->a;
	char **nf, *c;
	int i;

	for (i = 0; i < a->n_files; i++)
		if (strcmp(a->files[i], name) == 0)
			return a->files[i];
	c = str_dup(name);
	nf = realloc(a->files, (size_t)(a->n_files + 1) * sizeof(*nf));
	if (!c || !nf) {
		free(c);
		if (nf)
			a->files = nf;
		L->nomem = 1;
		return cmdline; /* any static name; the load fails anyway */
	}
	a->files = nf;
	a->files[a->n_files++] = c;
	return c;
}

/*
 * Name to show for a file libconfig reports.  libconfig 1.5 records an
 * included file under the name written in @include, which is relative to
 * the include directory (the top-level file's directory), not to the
 * current directory; show the path that was actually opened.
 */
static const char *disp_file(struct ld *L, const char *f)
{
	char buf[4096];
	size_t n;

	if (!f)
		return L->path ? L->path : cmdline;
	if (L->path && strcmp(f, L->path) == 0)
		return L->path;
	n = L->incdir ? strlen(L->incdir) : 0;
	if (f[0] == '/' || !L->incdir || strcmp(L->incdir, ".") == 0 ||
	    (strncmp(f, L->incdir, n) == 0 && f[n] == '/'))
		return intern(L, f);
	/*
	 * E.g. top-level configs/chip.cfg with @include "dram.cfg": libconfig
	 * reports "dram.cfg", the user sees configs/dram.cfg.
	 */
	snprintf(buf, sizeof(buf), "%s/%s", L->incdir, f);
	return intern(L, buf);
}

static void lerr(struct ld *L, const char *file, int line, const char *fmt,
		 ...) NPU_PRINTF(4, 5);

/* Report one loader error at file:line (line 0 = no line) and count it;
 * loading goes on so that one run shows every error. */
static void lerr(struct ld *L, const char *file, int line, const char *fmt,
		 ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)diag_vreport(L->d, DIAG_ERROR, diag_at_file(file, line, 0),
			   NPU_ECONFIG, fmt, ap);
	va_end(ap);
	L->n_err++;
}

/*
 * A 32-bit integer setting at file:line with value v: 1 (reported) if it
 * is a literal libconfig misread (cfg_audit.c), else 0.
 */
static int is_badlit(struct ld *L, const char *file, int line, int64_t v)
{
	const char *msg = cfg_audit_claim(&L->au, file, line, v);

	if (msg)
		lerr(L, file, line, "%s", msg);
	return msg != NULL;
}

/* ---- walking the parsed file ---------------------------------------------------*/

/* libconfig setting type, as a noun phrase for "expected X, got Y". */
static const char *type_phrase(int t)
{
	switch (t) {
	case CONFIG_TYPE_GROUP: return "a group";
	case CONFIG_TYPE_INT: return "an integer";
	case CONFIG_TYPE_INT64: return "a 64-bit integer";
	case CONFIG_TYPE_FLOAT: return "a float";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "a boolean";
	case CONFIG_TYPE_ARRAY: return "an array";
	case CONFIG_TYPE_LIST: return "a list";
	default: return "nothing";
	}
}

/*
 * "one of \"ws\", \"os\", \"is\"" into buf.
 * used can exceed n after a truncated snprintf; the loop condition
 * stops before buf + used is formed past the end.
 */
static void enum_choices(enum param_id id, char *buf, size_t n)
{
	size_t used = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < arch_enum_count(id) && used < n; k++)
		used += (size_t)snprintf(buf + used, n - used, "%s\"%s\"",
					 k ? ", " : "", arch_enum_at(id, k));
}

/* What a key wants, for type errors. */
static void expected_phrase(enum param_id id, char *buf, size_t n)
{
	const struct param_info *p = &param_info[id];
	char ch[512];

	switch (p->type) {
	case PT_INT:
		snprintf(buf, n, "an integer (%s)", p->unit);
		break;
	case PT_FLT:
		snprintf(buf, n, "a number (%s)", p->unit);
		break;
	case PT_BOOL:
		snprintf(buf, n, "true or false");
		break;
	case PT_ENUM:
		enum_choices(id, ch, sizeof(ch));
		snprintf(buf, n, "a string, one of %s", ch);
		break;
	case PT_STR:
		snprintf(buf, n, "a string");
		break;
	case PT_LIST:
		snprintf(buf, n, "a list of integers (%s) like [0, 1, 2]",
			 p->unit);
		break;
	}
}

/* Check v against an INT/LIST key's range; report at file:line.  Ranges
 * are doubles in the table; every bound is an integer below 2^53, so the
 * comparison is exact. */
static int int_in_range(struct ld *L, enum param_id id, const char *what,
			int64_t v, const char *file, int line)
{
	const struct param_info *p = &param_info[id];

	if ((double)v >= p->lo && (double)v <= p->hi)
		return 1;
	lerr(L, file, line, "%s = %lld is out of range; must be %.0f .. %.0f %s",
	     what, (long long)v, p->lo, p->hi, p->unit);
	return 0;
}

/* Float keys: the range is inclusive; NaN is never in range. */
static int flt_in_range(struct ld *L, enum param_id id, double v,
			const char *file, int line)
{
	const struct param_info *p = &param_info[id];

	if (v >= p->lo && v <= p->hi)
		return 1;
	lerr(L, file, line, "%s = %g is out of range; must be %g .. %g %s",
	     p->key, v, p->lo, p->hi, p->unit);
	return 0;
}

/* An ENUM value that is not a name: list the names and suggest one. */
static void bad_enum(struct ld *L, enum param_id id, const char *val,
		     const char *file, int line)
{
	const char *names[ENUM_MAX], *sug;
	char ch[512];
	int k, n = arch_enum_count(id);

	for (k = 0; k < n; k++)
		names[k] = arch_enum_at(id, k);
	sug = str_suggest(val, names, (size_t)n, sizeof(names[0]));
	enum_choices(id, ch, sizeof(ch));
	if (sug)
		lerr(L, file, line,
		     "%s = \"%s\" is not allowed; use one of %s (did you mean "
		     "\"%s\"?)", param_info[id].key, val, ch, sug);
	else
		lerr(L, file, line, "%s = \"%s\" is not allowed; use one of %s",
		     param_info[id].key, val, ch);
}

/* Replace a STR value (the old one is freed); 0 on out of memory. */
static int set_str(struct ld *L, enum param_id id, const char *s)
{
	char *c = str_dup(s);

	if (!c) {
		L->nomem = 1;
		return 0;
	}
	free(L->a->v[id].s);
	L->a->v[id].s = c;
	return 1;
}

/* Adopt the malloc'd array v as the LIST value, freeing the old one. */
static void set_list(struct ld *L, enum param_id id, int64_t *v, int n)
{
	val_free(L->a, id);
	L->a->v[id].l.v = v;
	L->a->v[id].l.n = n;
}

/* Read one list element from libconfig; 1 if good. */
static int take_elem(struct ld *L, enum param_id id, config_setting_t *e,
		     int k, int64_t *out)
{
	const char *file = disp_file(L, config_setting_source_file(e));
	int line = config_setting_source_line(e), t = config_setting_type(e);
	char what[ARCH_PATH_MAX + 16];

	snprintf(what, sizeof(what), "%s[%d]", param_info[id].key, k);
	if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) {
		lerr(L, file, line, "%s: expected an integer (%s), got %s", what,
		     param_info[id].unit, type_phrase(t));
		return 0;
	}
	*out = config_setting_get_int64(e);
	if (t == CONFIG_TYPE_INT && is_badlit(L, file, line, *out))
		return 0;
	return int_in_range(L, id, what, *out, file, line);
}

/*
 * Take the value of setting c for key id, checking type and range.  The
 * type rules: integer keys take libconfig INT or INT64 (an L suffix is
 * optional below 2^31), never a float (16.5 PE would be a silent
 * truncation); float keys also take integers (clock_ghz = 1); booleans,
 * enumerations and strings take exactly their libconfig type; lists take an
 * array [..] or a list (..) of integers.  A key that fails keeps its default
 * and is marked bad, so the cross-key rules do not pile on a second error.
 * Each accepted value records its file:line for later messages.
 */
static void take(struct ld *L, enum param_id id, config_setting_t *c)
{
	const struct param_info *p = &param_info[id];
	const char *file = disp_file(L, config_setting_source_file(c));
	int line = config_setting_source_line(c), t = config_setting_type(c);
	int ok = 0;
	char exp[640];

	switch (p->type) {
	case PT_INT:
		if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
			int64_t v = config_setting_get_int64(c);

			if (t == CONFIG_TYPE_INT && is_badlit(L, file, line, v)) {
				L->bad[id] = 1;
				return;
			}
			/*
			 * An out-of-range value is reported, the key keeps its
			 * default and is marked bad (xerr then skips every rule
			 * that involves it); its file:line is still recorded.
			 */
			ok = int_in_range(L, id, p->key, v, file, line);
			if (ok)
				L->a->v[id].i = v;
			else
				L->bad[id] = 1;
			goto placed;
		}
		break;
	case PT_FLT:
		if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 ||
		    t == CONFIG_TYPE_FLOAT) {
			double v = t == CONFIG_TYPE_FLOAT
					   ? config_setting_get_float(c)
					   : (double)config_setting_get_int64(c);

			if (t == CONFIG_TYPE_INT &&
			    is_badlit(L, file, line, (int64_t)v)) {
				L->bad[id] = 1;
				return;
			}
			ok = flt_in_range(L, id, v, file, line);
			if (ok)
				L->a->v[id].f = v;
			else
				L->bad[id] = 1;
			goto placed;
		}
		break;
	case PT_BOOL:
		if (t == CONFIG_TYPE_BOOL) {
			L->a->v[id].i = config_setting_get_bool(c) ? 1 : 0;
			goto placed;
		}
		break;
	case PT_ENUM:
		if (t == CONFIG_TYPE_STRING) {
			const char *s = config_setting_get_string(c);
			int k = arch_enum_find(id, s);

			if (k < 0) {
				bad_enum(L, id, s, file, line);
				L->bad[id] = 1;
			} else {
				L->a->v[id].i = k;
			}
			goto placed;
		}
		break;
	case PT_STR:
		if (t == CONFIG_TYPE_STRING) {
			(void)set_str(L, id, config_setting_get_string(c));
			goto placed;
		}
		break;
	case PT_LIST:
		if (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) {
			int n = config_setting_length(c), k, good = 1;
			/*
			 * Every element is checked (all errors reported);
			 * the list is taken only if all are good.
			 */
			int64_t *v = calloc((size_t)(n ? n : 1), sizeof(*v));

			if (!v) {
				L->nomem = 1;
				return;
			}
			for (k = 0; k < n; k++)
				good &= take_elem(L, id,
						  config_setting_get_elem(c, (unsigned)k),
						  k, &v[k]);
			if (good) {
				set_list(L, id, v, n);
			} else {
				free(v);
				L->bad[id] = 1;
			}
			goto placed;
		}
		break;
	}
	expected_phrase(id, exp, sizeof(exp));
	lerr(L, file, line, "%s: expected %s, got %s", p->key, exp,
	     type_phrase(t));
	L->bad[id] = 1;
	return;
placed:
	L->a->src[id].file = file;
	L->a->src[id].line = line;
}

/* Last dotted component of a path. */
static const char *leaf(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot ? dot + 1 : path;
}

/*
 * 1 if a and b start with the same top-level group ("dram." ...).
 * (a without a '.' has no top-level group and matches nothing.)
 */
static int same_top(const char *a, const char *b)
{
	size_t n = strcspn(a, ".");

	return a[n] == '.' && strncmp(a, b, n + 1) == 0;
}

/*
 * Did-you-mean for an unknown path, among keys (or groups, if the setting
 * is a group): first a name with the same last component in the same
 * top-level group (a level missing: 'dram.latency_ns' ->
 * 'dram.ideal.latency_ns'), then the closest by edit distance (a typo),
 * then any name with the same last component ('rows' -> 'core.matrix.rows').
 */
static const char *suggest(const char *path, int want_group)
{
	const char *names[P_N + GROUP_MAX] = { NULL }, *s = NULL;
	int i, n = 0;

	if (want_group)
		for (i = 0; i < tab.n_groups; i++)
			names[n++] = tab.groups[i];
	else
		for (i = 0; i < P_N; i++)
			names[n++] = param_info[i].key;
	for (i = 0; !s && i < n; i++)
		if (same_top(path, names[i]) &&
		    strcmp(leaf(names[i]), leaf(path)) == 0)
			s = names[i];
	if (!s)
		s = str_suggest(path, names, (size_t)n, sizeof(names[0]));
	for (i = 0; !s && i < n; i++)
		if (strcmp(leaf(names[i]), leaf(path)) == 0)
			s = names[i];
	return s;
}

/* First key under a group, for messages ("e.g. core.matrix.rows"). */
static const char *first_key_under(const char *group)
{
	size_t n = strlen(group);
	int i;

	for (i = 0; i < P_N; i++)
		if (strncmp(param_info[i].key, group, n) == 0 &&
		    param_info[i].key[n] == '.')
			return param_info[i].key;
	return group;
}

/*
 * Visit every setting under group g (whose dotted path is prefix): a key
 * is taken, a group that holds keys is descended into, anything else is
 * unknown.  Nothing in the file is ignored, which is what makes a typo an
 * error instead of a silently used default.
 *
 * Recursion depth is the nesting of groups in the file, at most the
 * depth of the longest key (a group that holds no key is an error, not
 * descended into).
 */
static void walk(struct ld *L, config_setting_t *g, const char *prefix)
{
	int n = config_setting_length(g), i;

	for (i = 0; i < n; i++) {
		config_setting_t *c = config_setting_get_elem(g, (unsigned)i);
		const char *name = config_setting_name(c);
		const char *file = disp_file(L, config_setting_source_file(c));
		int line = config_setting_source_line(c);
		int t = config_setting_type(c), id;
		char path[ARCH_PATH_MAX];

		/* Elements of an array/list have no name. */
		if (!name)
			continue; /* list elements are handled by take() */
		if ((size_t)snprintf(path, sizeof(path), "%s%s%s", prefix,
				     *prefix ? "." : "", name) >= sizeof(path)) {
			lerr(L, file, line, "unknown key '%s...' (name too long)",
			     name);
			continue;
		}
		id = arch_find_key(path);
		if (id >= 0) {
			take(L, id, c);
		} else if (arch_find_group(path) >= 0) {
			if (t == CONFIG_TYPE_GROUP)
				walk(L, c, path);
			else
				lerr(L, file, line,
				     "%s: expected a group of settings "
				     "(%s = { ... }; holding e.g. %s), got %s",
				     path, name, first_key_under(path),
				     type_phrase(t));
		} else {
			const char *s = suggest(path, t == CONFIG_TYPE_GROUP);
			const char *kind = t == CONFIG_TYPE_GROUP ? "group" : "key";

			if (s)
				lerr(L, file, line,
				     "unknown %s '%s' (did you mean '%s'?)",
				     kind, path, s);
			else
				lerr(L, file, line,
				     "unknown %s '%s' (see 'npusim config "
				     "--keys')", kind, path);
		}
	}
}

/* ---- @include targets, checked before libconfig sees them ---------------------*/

/*
 * libconfig 1.5's scanner calls exit(2) ("input in flex scanner failed",
 * no file, no line) when an @include names a directory: fopen succeeds and
 * the first read fails with EISDIR.  1.7 would let a loader vet names with
 * config_set_include_func; 1.5 (Debian 12) has no hook, so every @include
 * is checked here first, followed the way libconfig follows it: a line
 * "[ \t]*@include[ \t]+"NAME"" outside a block comment, relative to the
 * top-level file's directory, nested at most 10 deep.  A name that is not
 * closed on its line or holds a backslash is refused too (libconfig would
 * skip the first silently and echo the backslash to stdout).  Targets
 * that are directories, devices or pipes are refused (/dev/stdin and
 * /dev/tty would block, /dev/zero never ends); a missing file is left to
 * libconfig, which names it with file:line.
 */
static int check_includes(struct ld *L, const char *file, int depth)
{
	FILE *fp;
	char line[4096];
	int lineno = 0, in_comment = 0, start = 1, rc = 0;

	if (depth > 10 || !(fp = fopen(file, "r")))
		return 0;
	/* A line longer than the buffer is read in pieces; only a piece
	 * that starts a line can hold an @include, as for libconfig. */
	while (rc == 0 && fgets(line, sizeof(line), fp)) {
		const char *p = line;
		int at_start = start;

		start = strchr(line, '\n') != NULL;  /* the next piece */
		if (at_start)
			lineno++;
		if (!in_comment && at_start) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (strncmp(p, "@include", 8) == 0 &&
			    (p[8] == ' ' || p[8] == '\t')) {
				char name[1024], path[2048];
				size_t n = 0;
				struct stat st;

				for (p += 8; *p == ' ' || *p == '\t'; p++)
					;
				if (*p++ != '"')
					continue;  /* libconfig's syntax error */
				for (; *p && *p != '"' && *p != '\\' &&
				       *p != '\n' && n + 1 < sizeof(name); p++)
					name[n++] = *p;
				name[n] = '\0';
				/* libconfig 1.5 ignores an unterminated name and
				 * echoes a backslash to stdout (flex's default
				 * rule), which would corrupt `config --dump`. */
				if (*p != '"') {
					lerr(L, disp_file(L, file), lineno,
					     "@include needs a file name in double quotes on one line, without backslashes");
					rc = -1;
					continue;
				}
				if (name[0] == '/' || !L->incdir ||
				    strcmp(L->incdir, ".") == 0)
					snprintf(path, sizeof(path), "%s", name);
				else
					snprintf(path, sizeof(path), "%s/%s",
						 L->incdir, name);
				if (stat(path, &st) != 0)
					continue;  /* libconfig names it */
				if (S_ISREG(st.st_mode)) {
					rc = check_includes(L, intern(L, path),
							    depth + 1);
					continue;
				}
				lerr(L, disp_file(L, file), lineno,
				     "@include \"%s\": %s is %s, not a config file",
				     name, path, S_ISDIR(st.st_mode) ? "a directory"
				     : "a device or pipe");
				rc = -1;
				continue;
			}
		}
		/* Track block comments through the rest of the line. */
		for (; *p; p++) {
			if (in_comment) {
				if (p[0] == '*' && p[1] == '/') {
					in_comment = 0;
					p++;
				}
			} else if (*p == '"') {
				for (p++; *p && *p != '"'; p++)
					if (*p == '\\' && p[1])
						p++;
				if (!*p)
					break;
			} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
				break;
			} else if (p[0] == '/' && p[1] == '*') {
				in_comment = 1;
				p++;
			}
		}
	}
	fclose(fp);
	return rc;
}

/* Parse and walk one file.  Returns 0, or -1 if libconfig could not
 * parse it (then no cross-key rule is meaningful). */
static int load_file(struct ld *L, const char *path)
{
	config_t cf;
	const char *slash;
	FILE *fp;
	int rc = 0;

	L->path = intern(L, path);
	/* @include names are relative to the top-level file's directory
	 * ("/" for a file in the root, "." for a bare name) */
	slash = strrchr(path, '/');
	/* e.g. "configs/x.cfg" -> "configs", "/x.cfg" -> "/", "x.cfg" -> "." */
	L->incdir = slash ? strndup(path, (size_t)(slash - path + (slash == path)))
			  : str_dup(".");
	if (!L->incdir) {
		L->nomem = 1;
		return -1;
	}
	/* libconfig says only "file I/O error"; say why */
	fp = fopen(path, "r");
	if (!fp) {
		lerr(L, L->path, 0, "cannot open the config file: %s",
		     strerror(errno));
		return -1;
	}
	{
		struct stat st;

		if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
			fclose(fp);
			lerr(L, L->path, 0, "cannot read the config file: %s",
			     strerror(EISDIR));
			return -1;
		}
	}
	fclose(fp);
	if (check_includes(L, L->path, 0) != 0)
		return -1;
	config_init(&cf);
	config_set_include_dir(&cf, L->incdir);
	if (config_read_file(&cf, path) != CONFIG_TRUE) {
		lerr(L, disp_file(L, config_error_file(&cf)),
		     config_error_line(&cf), "%s", config_error_text(&cf));
		rc = -1;
	} else {
		const char *file, *msg;
		int line;

		/* audit first: the walk asks it about every 32-bit integer */
		if (cfg_audit_needed()) {
			L->au.incdir = L->incdir;
			cfg_audit_file(&L->au, L->path);
			L->nomem |= L->au.nomem;
		}
		walk(L, config_root_setting(&cf), "");
		/* literals not on the line of an integer setting (e.g. a value
		 * on its own line, or in an unknown key) */
		while (cfg_audit_unclaimed(&L->au, &file, &line, &msg))
			lerr(L, file, line, "%s", msg);
	}
	config_destroy(&cf);
	return rc;
}

/* ---- -s key=value overrides ---------------------------------------------------*/

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * Integer with an optional binary size suffix K, M, G, T (x 1024^n) and
 * 0x hex.  Returns 0 or -1 (not an integer, or overflows 64 bits).  A
 * leading zero is decimal, as in libconfig files ("010" = 10, not octal 8),
 * so the same text means the same number in a file and after -s.
 */
static int parse_int(const char *s, int64_t *out)
{
	char *end;
	long long v;
	int shift = 0, sign = 0;

	s = skip_ws(s);
	if (!*s)
		return -1;
	errno = 0;
	if (*s == '+' || *s == '-')
		sign = 1;
	if (s[sign] == '0' && (s[sign + 1] == 'x' || s[sign + 1] == 'X'))
		v = strtoll(s, &end, 16);
	else if (s[sign] >= '0' && s[sign] <= '9')
		v = strtoll(s, &end, 10);
	else
		return -1;
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*skip_ws(end))
		return -1;
	/* |v| <= LLONG_MAX >> shift, so v * 2^shift cannot overflow. */
	if (shift && (v > (LLONG_MAX >> shift) || v < -(LLONG_MAX >> shift)))
		return -1;
	*out = (int64_t)(v * (1LL << shift));
	return 0;
}

/*
 * A finite number (strtod syntax, so 1e9 and 0x1p-3 work); inf, nan and
 * values out of double's range (ERANGE) are refused.
 */
static int parse_float(const char *s, double *out)
{
	char *end;

	s = skip_ws(s);
	errno = 0;
	*out = strtod(s, &end);
	if (end == s || *skip_ws(end) || errno || !isfinite(*out))
		return -1;
	return 0;
}

/*
 * Copy s without surrounding blanks and one pair of quotes.
 * buf is at least 1 byte; a longer value is truncated to n - 1.
 */
static void unquote(const char *s, char *buf, size_t n)
{
	size_t len;

	s = skip_ws(s);
	len = strlen(s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
		s++;
		len -= 2;
	}
	if (len >= n)
		len = n - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
}

/*
 * Apply one "key=value" from the command line.  The value is parsed by the
 * key's type (never guessed from its look), so "-s chip.name=123" is the
 * string "123" and "-s chip.cores=1.5" an error.  Blanks around key and
 * value and one pair of double quotes around the value are dropped, since
 * sweep scripts quote for the shell in different ways.
 */
static void apply_override(struct ld *L, const char *text)
{
	const char *eq = strchr(text, '='), *k0 = skip_ws(text);
	char key[ARCH_PATH_MAX], val[1024];
	const struct param_info *p;
	int id;
	size_t kn;

	if (!eq) {
		lerr(L, cmdline, 0, "-s '%s': expected key=value", text);
		return;
	}
	kn = (size_t)(eq - k0);
	while (kn && (k0[kn - 1] == ' ' || k0[kn - 1] == '\t'))
		kn--;
	if (kn >= sizeof(key)) {
		lerr(L, cmdline, 0, "-s '%s': key too long", text);
		return;
	}
	/* Only the value is unquoted: keys never need quotes. */
	memcpy(key, k0, kn);
	key[kn] = '\0';
	id = arch_find_key(key);
	if (id < 0) {
		const char *s = suggest(key, 0);

		if (arch_find_group(key) >= 0)
			lerr(L, cmdline, 0,
			     "-s %s: '%s' is a group; set one of its keys "
			     "(e.g. %s=...)", text, key, first_key_under(key));
		else if (s)
			lerr(L, cmdline, 0,
			     "unknown key '%s' (did you mean '%s'?)", key, s);
		else
			lerr(L, cmdline, 0,
			     "unknown key '%s' (see 'npusim config --keys')",
			     key);
		return;
	}
	/*
	 * From here the key is known: parse by its type.  Every branch
	 * either stores the value or reports and jumps to bad, which marks
	 * the key so the cross-key rules stay quiet about it.
	 */
	p = &param_info[id];
	unquote(eq + 1, val, sizeof(val));
	switch (p->type) {
	case PT_INT: {
		int64_t v;

		if (parse_int(val, &v)) {
			lerr(L, cmdline, 0,
			     "%s: '%s' is not an integer (%s; K/M/G/T "
			     "suffixes multiply by 1024^n)", p->key, val, p->unit);
			goto bad;
		}
		if (!int_in_range(L, id, p->key, v, cmdline, 0))
			goto bad;
		L->a->v[id].i = v;
		break;
	}
	case PT_FLT: {
		double v;

		if (parse_float(val, &v)) {
			lerr(L, cmdline, 0, "%s: '%s' is not a number (%s)",
			     p->key, val, p->unit);
			goto bad;
		}
		if (!flt_in_range(L, id, v, cmdline, 0))
			goto bad;
		L->a->v[id].f = v;
		break;
	}
	case PT_BOOL:
		if (strcmp(val, "true") == 0 || strcmp(val, "1") == 0) {
			L->a->v[id].i = 1;
		} else if (strcmp(val, "false") == 0 || strcmp(val, "0") == 0) {
			L->a->v[id].i = 0;
		} else {
			lerr(L, cmdline, 0, "%s: '%s' is not true or false",
			     p->key, val);
			goto bad;
		}
		break;
	case PT_ENUM: {
		int k = arch_enum_find(id, val);

		if (k < 0) {
			bad_enum(L, id, val, cmdline, 0);
			goto bad;
		}
		L->a->v[id].i = k;
		break;
	}
	case PT_STR:
		(void)set_str(L, id, val);
		break;
	case PT_LIST: {
		/* [a, b, c] or (a, b, c) or a,b,c; [] is the empty list */
		char body[1024], *tok, *comma;
		size_t bl = strlen(val);
		int64_t *v;
		int n = 0, good = 1, items = 1;

		if (bl >= 2 && ((val[0] == '[' && val[bl - 1] == ']') ||
				(val[0] == '(' && val[bl - 1] == ')'))) {
			memcpy(body, val + 1, bl - 2);
			body[bl - 2] = '\0';
		} else {
			memcpy(body, val, bl + 1);
		}
		/* items = commas + 1: an upper bound on the elements. */
		for (tok = body; (tok = strchr(tok, ',')); tok++)
			items++;
		v = calloc((size_t)items, sizeof(*v));
		if (!v) {
			L->nomem = 1;
			return;
		}
		/* every item between commas must be an integer; only a
		 * wholly blank body is the empty list */
		for (tok = *skip_ws(body) ? body : NULL; tok;
		     tok = comma ? comma + 1 : NULL) {
			char what[ARCH_PATH_MAX + 16];

			comma = strchr(tok, ',');
			if (comma)
				*comma = '\0';
			snprintf(what, sizeof(what), "%s[%d]", p->key, n);
			if (parse_int(tok, &v[n])) {
				lerr(L, cmdline, 0,
				     "%s: '%s' is not an integer; write a list "
				     "like [0,1,2]", what, skip_ws(tok));
				good = 0;
			} else if (!int_in_range(L, id, what, v[n], cmdline, 0)) {
				good = 0;
			}
			n++;
		}
		if (!good) {
			free(v);
			goto bad;
		}
		set_list(L, id, v, n);
		break;
	}
	}
	/*
	 * The override is the value's source now: rule errors involving the
	 * key point at "<command line>".
	 */
	L->bad[id] = 0; /* a good override replaces a bad file value */
	L->a->src[id].file = cmdline;
	L->a->src[id].line = 0;
	return;
bad:
	L->bad[id] = 1;
}

/* ---- resolution: presets and placement -----------------------------------------*/

/*
 * "0 = from preset": fill every preset-backed key still at 0.  Runs after
 * the overrides, so "-s dram.preset=hbm3" changes every timing the file
 * did not set explicitly, and "-s dram.tcl=0" asks for the preset's tCL.
 *
 * Consequence: a key cannot be set to 0 to mean "zero" (no DRAM timing
 * is 0 in any preset anyway).  Float keys (dram.tck_ns) likewise.
 */
static int resolve_presets(struct arch *a)
{
	int i, pi = (int)a->v[P_DRAM_PRESET].i;

	/* the one string a preset fills: empty = the preset's layout */
	if (!a->v[P_DRAM_MAPPING].s || !a->v[P_DRAM_MAPPING].s[0]) {
		char *m = str_dup(arch_preset_mapping(pi));

		if (!m)
			return NPU_ENOMEM;
		free(a->v[P_DRAM_MAPPING].s);
		a->v[P_DRAM_MAPPING].s = m;
	}

	for (i = 0; i < P_N; i++) {
		if (!arch_is_preset_key(i))
			continue;
		if (param_info[i].type == PT_FLT) {
			if (a->v[i].f == 0)
				a->v[i].f = arch_preset_value(pi, i);
		} else if (a->v[i].i == 0) {
			a->v[i].i = (int64_t)arch_preset_value(pi, i);
		}
	}
	return 0;
}

static void xerr(struct ld *L, int i1, int i2, int i3, const char *fmt, ...)
	NPU_PRINTF(5, 6);

/*
 * A cross-key error, placed at the first of the involved keys that was set
 * in the file or on the command line (the defaults have no line).  Skipped
 * when one of the keys already had its own error: its value is a default
 * then and the rule would only confuse.
 */
static void xerr(struct ld *L, int i1, int i2, int i3, const char *fmt, ...)
{
	int ids[3] = { i1, i2, i3 }, k;
	struct param_src where = { NULL, 0 };
	va_list ap;

	for (k = 0; k < 3; k++)
		if (ids[k] >= 0 && L->bad[ids[k]])
			return;
	for (k = 0; k < 3 && !where.file; k++)
		if (ids[k] >= 0 && L->a->src[ids[k]].file)
			where = L->a->src[ids[k]];
	if (!where.file)
		where.file = L->path ? L->path : "<defaults>";
	va_start(ap, fmt);
	(void)diag_vreport(L->d, DIAG_ERROR,
			   diag_at_file(where.file, where.line, 0), NPU_ECONFIG,
			   fmt, ap);
	va_end(ap);
	L->n_err++;
}

/*
 * Check a given placement list (cores or DRAM channels) and mark its nodes
 * taken.  owner[node] = 1 + core index, or -(1 + channel index).
 *
 * owner is indexed by node (0 .. nodes - 1); list elements are >= 0 by
 * the key's range, so only the upper bound needs a check here.
 */
static int check_nodes(struct ld *L, enum param_id id, int want,
		       enum param_id want_id, int *owner, int nodes,
		       int is_dram)
{
	struct arch *a = L->a;
	const char *what = is_dram ? "DRAM channel" : "core";
	int n = a->v[id].l.n, k, ok = 1;

	if (L->bad[id])
		return 0;
	if (n != want) {
		xerr(L, id, want_id, -1,
		     "%s has %d entr%s but %s = %d; give one node per %s or "
		     "leave it empty ([]) for the default placement",
		     param_info[id].key, n, n == 1 ? "y" : "ies",
		     param_info[want_id].key, want, what);
		return 0;
	}
	for (k = 0; k < n; k++) {
		int64_t node = a->v[id].l.v[k];

		/*
		 * owner[node] = 1 + core or -(1 + channel): the sign
		 * says which kind took the node, for the message.
		 */
		if (node >= nodes) {
			xerr(L, id, P_NOC_COLS, P_NOC_ROWS,
			     "%s[%d] = %lld is outside the %lldx%lld NoC (nodes "
			     "0 .. %d; node = y * noc.cols + x)",
			     param_info[id].key, k, (long long)node,
			     (long long)ARCH_I(a, NOC_COLS),
			     (long long)ARCH_I(a, NOC_ROWS), nodes - 1);
			ok = 0;
		} else if (owner[node]) {
			int o = owner[node];

			xerr(L, id, -1, -1,
			     "%s[%d] = %lld: node %lld already holds %s %d; "
			     "each node holds one core or one DRAM channel",
			     param_info[id].key, k, (long long)node,
			     (long long)node, o > 0 ? "core" : "DRAM channel",
			     o > 0 ? o - 1 : -o - 1);
			ok = 0;
		} else {
			owner[node] = is_dram ? -(k + 1) : k + 1;
		}
	}
	return ok;
}

/* Fill an empty placement list with the lowest free nodes (deterministic:
 * the same config always gives the same placement).  Example: 2 cores and
 * 2 channels on a 2x2 NoC with no lists: cores on nodes 0 and 1, channels
 * on 2 and 3.  Returns 0 only when the nodes run out (prevented by
 * resolve_placement's count check) or on OOM. */
static int fill_nodes(struct ld *L, enum param_id id, int want, int *owner,
		      int nodes, int is_dram)
{
	int64_t *v = calloc((size_t)want, sizeof(*v));
	int k, node = 0;

	if (!v) {
		L->nomem = 1;
		return 0;
	}
	for (k = 0; k < want; k++) {
		while (node < nodes && owner[node])
			node++;
		if (node >= nodes) {
			free(v);
			return 0;
		}
		v[k] = node;
		owner[node] = is_dram ? -(k + 1) : k + 1;
	}
	set_list(L, id, v, want);
	return 1;
}

/*
 * Placement: cores and DRAM channels each need a NoC node of their own.
 * Given lists are checked; an empty list takes the lowest free nodes
 * (cores first, so by default cores sit on 0..n-1 and the channels on the
 * nodes after them).
 */
static int resolve_placement(struct ld *L)
{
	struct arch *a = L->a;
	int cols = (int)ARCH_I(a, NOC_COLS), rows = (int)ARCH_I(a, NOC_ROWS);
	int nodes = cols * rows, cores = (int)ARCH_I(a, CHIP_CORES);
	int chans = (int)ARCH_I(a, DRAM_CHANNELS), ok = 1;
	int *owner;

	if (L->bad[P_NOC_COLS] || L->bad[P_NOC_ROWS] || L->bad[P_CHIP_CORES] ||
	    L->bad[P_DRAM_CHANNELS])
		return 0;
	if (cores + chans > nodes) {
		xerr(L, P_CHIP_CORES, P_DRAM_CHANNELS, P_NOC_COLS,
		     "chip.cores = %d and dram.channels = %d need %d NoC nodes "
		     "(one each) but the %dx%d NoC has %d; enlarge noc.cols / "
		     "noc.rows", cores, chans, cores + chans, cols, rows, nodes);
		return 0;
	}
	owner = calloc((size_t)nodes, sizeof(*owner));
	if (!owner) {
		L->nomem = 1;
		return 0;
	}
	/*
	 * Given lists first (in full), so the default filler avoids their
	 * nodes; a bad list is "given" too, so it is not silently replaced.
	 */
	if (a->v[P_NOC_CORE_NODES].l.n || L->bad[P_NOC_CORE_NODES])
		ok &= check_nodes(L, P_NOC_CORE_NODES, cores, P_CHIP_CORES,
				  owner, nodes, 0);
	if (a->v[P_NOC_DRAM_NODES].l.n || L->bad[P_NOC_DRAM_NODES])
		ok &= check_nodes(L, P_NOC_DRAM_NODES, chans, P_DRAM_CHANNELS,
				  owner, nodes, 1);
	/* enough nodes in total (checked above), so filling cannot fail */
	if (ok && !a->v[P_NOC_CORE_NODES].l.n)
		ok &= fill_nodes(L, P_NOC_CORE_NODES, cores, owner, nodes, 0);
	if (ok && !a->v[P_NOC_DRAM_NODES].l.n)
		ok &= fill_nodes(L, P_NOC_DRAM_NODES, chans, owner, nodes, 1);
	free(owner);
	return ok;
}

/* ---- cross-key rules ---------------------------------------------------------------*/

/* Exact for v > 0: a power of two has a single bit set. */
static int is_pow2(int64_t v)
{
	return v > 0 && (v & (v - 1)) == 0;
}

/* Banked memory rules for scratchpad (SPM_*) or accumulator (ACC_*). */
static void check_sram(struct ld *L, const char *name, enum param_id bytes_id,
		       enum param_id banks_id, enum param_id width_id)
{
	struct arch *a = L->a;
	int64_t bytes = a->v[bytes_id].i, banks = a->v[banks_id].i;
	int64_t width = a->v[width_id].i, row = banks * width;

	/*
	 * The suggestion is the two nearest powers, 2^floor(log2 w) and the
	 * next; width >= 1 (its range), so clzll gets a non-zero value.
	 */
	if (!is_pow2(width))
		xerr(L, width_id, -1, -1,
		     "%s = %lld is not a power of two; bank interleaving "
		     "takes address bits, so use e.g. %lld or %lld",
		     param_info[width_id].key, (long long)width,
		     (long long)(1LL << (63 - __builtin_clzll((unsigned long long)width))),
		     (long long)(1LL << (64 - __builtin_clzll((unsigned long long)width))));
	if (bytes % row)
		xerr(L, bytes_id, banks_id, width_id,
		     "%s = %lld is not a multiple of %s.banks x %s.bank_width "
		     "= %lld x %lld = %lld bytes; use %lld or %lld",
		     param_info[bytes_id].key, (long long)bytes, name, name,
		     (long long)banks, (long long)width, (long long)row,
		     (long long)(bytes / row * row),
		     (long long)((bytes / row + 1) * row));
}

/*
 * The DRAM rules of bank groups, the address mapping, the write buffer and
 * per-bank refresh (timed mode only; docs/dram.md).
 */
/*
 * What a refresh interval must hold besides tRFC for a request to be
 * served in it: a REF due while rows are open waits for them to close -
 * tRAS after an ACT, or the write recovery after a write's data (tCWL +
 * the burst + tWR) - and tRP; once its tRFC has passed, the first ACT
 * needs tRCD before its column command, which must come before the next
 * REF is due (the REF goes first and closes the row).  With less, a
 * request's ACT at the end of every interval is undone every time and no
 * request is ever served (the run would not end).  Every preset has
 * hundreds of tCK to spare.
 */
static int64_t refresh_slack(const struct arch *a)
{
	int64_t beats = ARCH_I(a, DRAM_BEATS_PER_TCK);
	int64_t burst = (ARCH_I(a, DRAM_BL) + beats - 1) / beats;
	int64_t wr = ARCH_I(a, DRAM_TCWL) + burst + ARCH_I(a, DRAM_TWR);
	int64_t ras = ARCH_I(a, DRAM_TRAS);

	return (ras > wr ? ras : wr) + ARCH_I(a, DRAM_TRP) +
	       ARCH_I(a, DRAM_TRCD);
}

/* 1 if the refresh cycle time of key 'id' (dram.trfc, or trfc_pb for
 * per-bank refresh) leaves a request room in each refresh interval
 * (refresh_slack); else 0, reported. */
static int refresh_room(struct ld *L, int id, const char *name)
{
	const struct arch *a = L->a;
	int64_t rfc = a->v[id].i, slack = refresh_slack(a);

	if (rfc + slack < ARCH_I(a, DRAM_TREFI))
		return 1;
	xerr(L, id, P_DRAM_TREFI, P_DRAM_TRAS,
	     "%s = %lld leaves no room for a column command before the next "
	     "refresh of its banks: %s + %lld (a refresh's wait for open rows "
	     "and an ACT's trcd) must be below dram.trefi = %lld", name,
	     (long long)rfc, name, (long long)slack,
	     (long long)ARCH_I(a, DRAM_TREFI));
	return 0;
}

static void check_dram_rules(struct ld *L)
{
	const struct arch *a = L->a;
	int64_t banks = ARCH_I(a, DRAM_BANKS), groups = ARCH_I(a, DRAM_BANK_GROUPS);
	int64_t bus = ARCH_I(a, DRAM_BUS_BITS), bl = ARCH_I(a, DRAM_BL);
	int64_t pbb = ARCH_I(a, DRAM_REFPB_BANKS);
	uint64_t count[DRAM_F_N], radix[DRAM_MAP_MAX_PARTS];
	struct dram_map m;
	char err[160];

	if (banks % groups) {
		xerr(L, P_DRAM_BANK_GROUPS, P_DRAM_BANKS, -1,
		     "dram.bank_groups = %lld does not divide dram.banks = %lld "
		     "(banks counts every group's banks)", (long long)groups,
		     (long long)banks);
		return;
	}
	if (dram_map_parse(ARCH_S(a, DRAM_MAPPING), &m, err, sizeof(err))) {
		xerr(L, P_DRAM_MAPPING, -1, -1, "dram.mapping = \"%s\": %s",
		     ARCH_S(a, DRAM_MAPPING), err);
	} else if (bus >= 8 && bl >= 1) {
		count[DRAM_F_RO] = (uint64_t)ARCH_I(a, DRAM_ROWS);
		count[DRAM_F_RA] = (uint64_t)ARCH_I(a, DRAM_RANKS);
		count[DRAM_F_BG] = (uint64_t)groups;
		count[DRAM_F_BA] = (uint64_t)(banks / groups);
		count[DRAM_F_CH] = (uint64_t)ARCH_I(a, DRAM_CHANNELS);
		count[DRAM_F_CO] = (uint64_t)(ARCH_I(a, DRAM_ROW_BYTES) /
					      (bus / 8 * bl));
		if (count[DRAM_F_CO] < 1)
			count[DRAM_F_CO] = 1;
		if (dram_map_radices(&m, count, radix, err, sizeof(err)))
			xerr(L, P_DRAM_MAPPING, P_DRAM_PRESET, -1,
			     "dram.mapping = \"%s\": %s",
			     ARCH_S(a, DRAM_MAPPING), err);
	}
	if (ARCH_I(a, DRAM_WLOW) >= ARCH_I(a, DRAM_WHIGH))
		xerr(L, P_DRAM_WLOW, P_DRAM_WHIGH, -1,
		     "dram.write_low_pct = %lld is not below "
		     "dram.write_high_pct = %lld; a drain would never end",
		     (long long)ARCH_I(a, DRAM_WLOW),
		     (long long)ARCH_I(a, DRAM_WHIGH));
	if (ARCH_E(a, DRAM_REFRESH) != ARCH_DRAM_REFRESH_PER_BANK)
		return;
	if (ARCH_I(a, DRAM_TRFC_PB) == 0 || pbb == 0)
		xerr(L, P_DRAM_REFRESH, P_DRAM_TRFC_PB, P_DRAM_PRESET,
		     "dram.refresh = \"per_bank\" needs dram.trfc_pb and "
		     "dram.refpb_banks; preset %s has no per-bank refresh "
		     "(set both, or use all_bank)",
		     arch_enum_name(a, P_DRAM_PRESET));
	else if (banks % pbb)
		xerr(L, P_DRAM_REFPB_BANKS, P_DRAM_BANKS, -1,
		     "dram.refpb_banks = %lld does not divide dram.banks = %lld",
		     (long long)pbb, (long long)banks);
	else if (refresh_room(L, P_DRAM_TRFC_PB, "dram.trfc_pb") &&
		 ARCH_I(a, DRAM_TRFC_PB) * banks >=
		 ARCH_I(a, DRAM_TREFI) * pbb)
		/* each bank set is refreshed every tREFI x pbb / banks */
		xerr(L, P_DRAM_TRFC_PB, P_DRAM_TREFI, P_DRAM_REFPB_BANKS,
		     "dram.trfc_pb = %lld is not shorter than the per-bank "
		     "refresh interval dram.trefi x refpb_banks / banks = "
		     "%lld x %lld / %lld", (long long)ARCH_I(a, DRAM_TRFC_PB),
		     (long long)ARCH_I(a, DRAM_TREFI), (long long)pbb,
		     (long long)banks);
}

static void check_rules(struct ld *L)
{
	struct arch *a = L->a;
	int64_t R = ARCH_I(a, MTX_ROWS), C = ARCH_I(a, MTX_COLS);
	int in = ARCH_E(a, MTX_IN_TYPE), acc = ARCH_E(a, MTX_ACC_TYPE);
	int in_t = dtype_from_name(arch_enum_name(a, P_MTX_IN_TYPE));
	int acc_t = dtype_from_name(arch_enum_name(a, P_MTX_ACC_TYPE));
	int64_t tile, row;

	/* scratchpad and accumulator geometry */
	check_sram(L, "core.scratchpad", P_SPM_BYTES, P_SPM_BANKS,
		   P_SPM_BANK_WIDTH);
	check_sram(L, "core.accumulator", P_ACC_BYTES, P_ACC_BANKS,
		   P_ACC_BANK_WIDTH);

	/* input and accumulator types: integers accumulate in int32, floats
	 * in fp32 (the array's adders are of one kind) */
	if (in_t >= 0 && acc_t >= 0 &&
	    dtype_is_float((enum npu_dtype)in_t) !=
		    dtype_is_float((enum npu_dtype)acc_t))
		xerr(L, P_MTX_ACC_TYPE, P_MTX_IN_TYPE, -1,
		     "core.matrix.acc_type = \"%s\" cannot accumulate "
		     "core.matrix.in_type = \"%s\"; use acc_type = \"%s\"",
		     arch_enum_at(P_MTX_ACC_TYPE, acc),
		     arch_enum_at(P_MTX_IN_TYPE, in),
		     dtype_is_float((enum npu_dtype)in_t) ? "fp32" : "int32");

	/* the scratchpad must hold one stationary R x C tile, the
	 * accumulator one output row of C accumulators (4 bytes each); bits
	 * round up to bytes (a 3x3 int4 tile takes 5 bytes) */
	tile = (R * C * arch_dtype_bits(in) + 7) / 8;
	if (ARCH_I(a, SPM_BYTES) < tile)
		xerr(L, P_SPM_BYTES, P_MTX_ROWS, P_MTX_COLS,
		     "core.scratchpad.bytes = %lld cannot hold one %lldx%lld "
		     "%s tile of the array (%lld bytes); make it at least that",
		     (long long)ARCH_I(a, SPM_BYTES), (long long)R, (long long)C,
		     arch_enum_at(P_MTX_IN_TYPE, in), (long long)tile);
	row = C * 4;
	if (ARCH_I(a, ACC_BYTES) < row)
		xerr(L, P_ACC_BYTES, P_MTX_COLS, -1,
		     "core.accumulator.bytes = %lld cannot hold one output row "
		     "of the array (core.matrix.cols = %lld x 4 bytes = %lld)",
		     (long long)ARCH_I(a, ACC_BYTES), (long long)C,
		     (long long)row);

	/* torus rings: a ring of 2 would wire the same two routers twice,
	 * and ring deadlock freedom needs a second (dateline) VC */
	if (ARCH_E(a, NOC_TOPOLOGY) == ARCH_NOC_TOPOLOGY_TORUS) {
		if (ARCH_I(a, NOC_COLS) == 2 || ARCH_I(a, NOC_ROWS) == 2)
			xerr(L, ARCH_I(a, NOC_COLS) == 2 ? P_NOC_COLS : P_NOC_ROWS,
			     P_NOC_TOPOLOGY, -1,
			     "a torus needs 1 or at least 3 nodes per dimension "
			     "(noc.cols = %lld, noc.rows = %lld): a ring of 2 "
			     "links the same two routers twice; use noc.topology "
			     "= \"mesh\" or 3+ nodes",
			     (long long)ARCH_I(a, NOC_COLS),
			     (long long)ARCH_I(a, NOC_ROWS));
		if (ARCH_I(a, NOC_VCS) < 2)
			xerr(L, P_NOC_VCS, P_NOC_TOPOLOGY, -1,
			     "noc.topology = \"torus\" needs noc.vcs >= 2: "
			     "dimension-order routing on a ring deadlocks "
			     "without a second (dateline) virtual channel");
	}

	/* Router multicast replicates a packet held whole in one input VC
	 * (noc.c, mc_out): a multicast write packet of one DMA burst must fit
	 * in noc.buffer_depth flits, or branches of a tree would hold each
	 * other's links and trees could deadlock. */
	if (ARCH_E(a, NOC_MULTICAST) == ARCH_NOC_MULTICAST_ROUTER) {
		int64_t bytes = ARCH_I(a, DMA_BURST), link = ARCH_I(a, NOC_LINK_BYTES);
		int64_t flits;

		if (bytes > ARCH_I(a, NOC_PACKET_BYTES))
			bytes = ARCH_I(a, NOC_PACKET_BYTES);
		flits = (ARCH_B(a, NOC_HEAD_FLIT) ? 1 : 0) + (bytes + link - 1) / link;
		if (ARCH_I(a, NOC_BUF_DEPTH) < flits)
			xerr(L, P_NOC_BUF_DEPTH, P_NOC_MULTICAST, -1,
			     "noc.multicast = \"router\" needs a multicast packet "
			     "to fit in one virtual channel's buffer: noc.buffer_depth "
			     "= %lld flits, a packet of one DMA burst (%lld bytes over "
			     "%lld-byte flits, plus the head) is %lld; raise "
			     "noc.buffer_depth or use noc.multicast = \"source\"",
			     (long long)ARCH_I(a, NOC_BUF_DEPTH), (long long)bytes,
			     (long long)link, (long long)flits);
	}

	/*
	 * DRAM geometry and timing, only where the timed model uses them.
	 * geo is formed in double: the product of the five keys can exceed
	 * 2^63 (their ranges allow it), which int64_t could not hold.
	 */
	if (ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_TIMED) {
		int64_t ch = ARCH_I(a, DRAM_CHANNELS), rb = ARCH_I(a, DRAM_ROW_BYTES);
		int64_t bus = ARCH_I(a, DRAM_BUS_BITS), bl = ARCH_I(a, DRAM_BL);
		int64_t bytes = ARCH_I(a, DRAM_BYTES);
		double geo = (double)ch * (double)ARCH_I(a, DRAM_RANKS) *
			     (double)ARCH_I(a, DRAM_BANKS) *
			     (double)ARCH_I(a, DRAM_ROWS) * (double)rb;

		if (bus % 8)
			xerr(L, P_DRAM_BUS_BITS, -1, -1,
			     "dram.bus_bits = %lld is not a whole number of "
			     "bytes; use a multiple of 8", (long long)bus);
		else if (rb % (bus / 8 * bl))
			xerr(L, P_DRAM_ROW_BYTES, P_DRAM_BUS_BITS, P_DRAM_BL,
			     "dram.row_bytes = %lld is not a multiple of one "
			     "burst (dram.bus_bits / 8 x dram.burst_length = "
			     "%lld bytes)", (long long)rb,
			     (long long)(bus / 8 * bl));
		if (bytes % (ch * rb))
			xerr(L, P_DRAM_BYTES, P_DRAM_CHANNELS, P_DRAM_ROW_BYTES,
			     "dram.bytes = %lld is not a multiple of "
			     "dram.channels x dram.row_bytes = %lld x %lld = %lld; "
			     "use %lld or %lld", (long long)bytes, (long long)ch,
			     (long long)rb, (long long)(ch * rb),
			     (long long)(bytes / (ch * rb) * ch * rb),
			     (long long)((bytes / (ch * rb) + 1) * ch * rb));
		else if ((double)bytes > geo)
			xerr(L, P_DRAM_BYTES, P_DRAM_CHANNELS, P_DRAM_ROWS,
			     "dram.bytes = %lld exceeds what the devices hold: "
			     "channels x ranks x banks x rows x row_bytes = "
			     "%.0f; lower dram.bytes or add channels/rows",
			     (long long)bytes, geo);
		if (ARCH_I(a, DRAM_TRAS) < ARCH_I(a, DRAM_TRCD))
			xerr(L, P_DRAM_TRAS, P_DRAM_TRCD, -1,
			     "dram.tras = %lld is shorter than dram.trcd = %lld; "
			     "a row must stay open at least until it can be read",
			     (long long)ARCH_I(a, DRAM_TRAS),
			     (long long)ARCH_I(a, DRAM_TRCD));
		(void)refresh_room(L, P_DRAM_TRFC, "dram.trfc");
		check_dram_rules(L);
	}
}

/* ---- derived quantities ----------------------------------------------------------------*/

/*
 * The derived peaks (arch_peaks.c), and the resolved placement copied
 * into int arrays for the NoC and the chip assembly.  Only called on a
 * fully validated config.
 */
static int derive(struct arch *a)
{
	struct arch_derived *d = &a->d;
	int k, n;

	arch_derive_peaks(a);
	n = a->v[P_NOC_CORE_NODES].l.n;
	/* n >= 1 (chip.cores, dram.channels >= 1); the guard keeps calloc > 0. */
	d->core_node = calloc((size_t)(n ? n : 1), sizeof(int));
	if (!d->core_node)
		return NPU_ENOMEM;
	for (k = 0; k < n; k++)
		d->core_node[k] = (int)a->v[P_NOC_CORE_NODES].l.v[k];
	n = a->v[P_NOC_DRAM_NODES].l.n;
	d->dram_node = calloc((size_t)(n ? n : 1), sizeof(int));
	if (!d->dram_node)
		return NPU_ENOMEM;
	for (k = 0; k < n; k++)
		d->dram_node[k] = (int)a->v[P_NOC_DRAM_NODES].l.v[k];
	return 0;
}

/* ---- public entry points -------------------------------------------------------------*/

/* The load order and its invariants are at the top of this file. */
int arch_load(struct arch *a, const char *path, const char *const *overrides,
	      int n_overrides, struct diag *d)
{
	struct ld L;
	int i, parsed = 1, rc;

	memset(&L, 0, sizeof(L));
	tab_init();
	rc = set_defaults(a);
	if (rc)
		goto out;
	L.a = a;
	L.d = d;
	if (path) {
		a->path = str_dup(path);
		if (!a->path) {
			rc = NPU_ENOMEM;
			goto out;
		}
		/*
		 * An unparsable file skips the rules below, but overrides are
		 * still checked so their own mistakes show in the same run.
		 */
		parsed = load_file(&L, path) == 0;
	}
	for (i = 0; i < n_overrides; i++)
		apply_override(&L, overrides[i]);
	if (L.nomem) {
		rc = NPU_ENOMEM;
		goto out;
	}
	/* rules only make sense for a file that parsed */
	if (parsed) {
		if (resolve_presets(a))
			L.nomem = 1;
		(void)resolve_placement(&L); /* reports its own errors */
		check_rules(&L);
	}
	if (L.nomem) {
		rc = NPU_ENOMEM;
		goto out;
	}
	if (L.n_err) {
		rc = NPU_ECONFIG;
		goto out;
	}
	rc = derive(a);
out:
	free(L.incdir);
	cfg_audit_free(&L.au);
	if (rc)
		arch_free(a);
	return rc;
}

/*
 * The built-in chip: arch_load with no file and no overrides.  A config
 * error here would be a bug in params.def, hence NPU_EINTERNAL.
 */
int arch_init_defaults(struct arch *a)
{
	struct diag d;
	int rc;

	diag_init(&d, NULL);
	rc = arch_load(a, NULL, NULL, 0, &d);
	/* the shipped defaults always validate (tests/unit/test_arch.c) */
	return rc == NPU_ECONFIG ? NPU_EINTERNAL : rc;
}
