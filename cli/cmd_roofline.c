/*
 * cmd_roofline.c - `npusim roofline`: counters files placed on the
 * roofline of a chip, as an SVG plot and a CSV table (options:
 * opts_roofline.def).
 *
 * The ceilings come from CONFIG (its derived peaks, as `npusim config`
 * prints them), the points from the files (report/ctrread.h reads both
 * today's layout and schema 2); report/roofline.h does the rest.  Peaks per
 * data type: one ceiling per type named by the config (core.matrix.in_type),
 * by --dtype or by a file's peaks.macs_per_s_by_type; a type's peak is the
 * first file's value for it, else the config's (R x C x clock x
 * core.matrix.macs_per_pe.<type>); types with the same peak share a line.
 *
 * Exit status: 0 ok, 1 a counters file that cannot be read or is not one,
 * 2 usage or configuration error.  Outputs are written atomically.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/arch.h"
#include "../report/ctrread.h"
#include "../report/roofline.h"
#include "../util/diag.h"
#include "../util/fsout.h"
#include "../util/strutil.h"
#include "cli.h"
#include "cmds.h"

/* Option indices of cmds_roofline, in opts_roofline.def order. */
enum {
#define OPT(id, sh, lng, meta, kind, help) ROOFLINE_OPT_##id,
#include "opts_roofline.def"
#undef OPT
};

/* One data type's peak and where it came from. */
struct tpeak {
	const char *type;    /* borrowed from argv, the config or a file */
	double macs_per_s;
};

/* Everything the command owns, freed in one place. */
struct job {
	struct arch a;
	int have_arch;
	struct ctrread_file *files;
	int n_files;
	struct tpeak *types;
	int n_types;
	struct roofline_ceiling *ceil;
	char **labels;       /* owned ceiling labels */
	int n_ceil;
	struct roofline_point *pts;
	int n_pts;
};

static void job_free(struct job *j)
{
	int i;

	for (i = 0; i < j->n_files; i++)
		ctrread_free(&j->files[i]);
	for (i = 0; i < j->n_ceil; i++)
		free(j->labels[i]);
	free(j->files);
	free(j->types);
	free(j->ceil);
	free(j->labels);
	free(j->pts);
	if (j->have_arch)
		arch_free(&j->a);
}

/* Index of type t in j->types, or -1. */
static int find_type(const struct job *j, const char *t)
{
	int i;

	for (i = 0; i < j->n_types; i++)
		if (strcmp(j->types[i].type, t) == 0)
			return i;
	return -1;
}

/* Relative difference above 0.1%: a file from another config. */
static int differs(double file, double cfg)
{
	return file > 0 && cfg > 0 && fabs(file - cfg) > 1e-3 * cfg;
}

/* Warn about peaks and clock of file f that are not CONFIG's. */
static void check_file_peaks(const struct job *j, const char *path,
			     const struct ctrread_file *f, struct diag *d)
{
	const struct arch_derived *dv = &j->a.d;
	double clk = ARCH_F(&j->a, CHIP_CLOCK_GHZ);

	if (differs(f->clock_ghz, clk))
		diag_report(d, DIAG_WARNING, diag_at_file(path, 0, 0), 0,
			    "clock_ghz %g differs from the config's %g: the run "
			    "used another config or -s; its seconds use the file's clock",
			    f->clock_ghz, clk);
	if (!f->peaks.present)
		return;
	if (differs(f->peaks.peak[ARCH_PEAK_MACS_PER_S_CHIP],
		    dv->peak[ARCH_PEAK_MACS_PER_S_CHIP]) ||
	    differs(f->peaks.peak[ARCH_PEAK_DRAM_BYTES_PER_S],
		    dv->peak[ARCH_PEAK_DRAM_BYTES_PER_S]) ||
	    differs(f->peaks.peak[ARCH_PEAK_SPM_BYTES_PER_S],
		    dv->peak[ARCH_PEAK_SPM_BYTES_PER_S]))
		diag_report(d, DIAG_WARNING, diag_at_file(path, 0, 0), 0,
			    "its peaks differ from the config's (another config "
			    "or -s?); the ceilings are drawn from the config");
}

/* The config's peak for a type name (a name it does not know: 1 MAC/PE). */
static double type_peak(const struct job *j, const char *t)
{
	int k = arch_enum_find(P_MTX_IN_TYPE, t);

	return k < 0 ? ARCH_PEAK(&j->a, MACS_PER_S_CHIP) : j->a.d.macs_per_s_type[k];
}

/*
 * The type list: the config's input type, --dtype, then every type a file
 * names, each with its peak; then one ceiling per distinct peak, labelled
 * with its types in that order.
 */
static int build_ceilings(struct job *j, const char *dtype)
{
	const char *cfg_type = arch_enum_name(&j->a, P_MTX_IN_TYPE);
	const char *sel = dtype ? dtype : cfg_type;
	int i, k, cap = 2, c, known = 0;

	for (i = 0; i < j->n_files; i++) {
		cap += j->files[i].peaks.n_types;
		for (k = 0; k < j->files[i].peaks.n_types; k++)
			known |= dtype &&
				 strcmp(j->files[i].peaks.types[k].type, dtype) == 0;
	}
	/* --dtype names a type of params.def or of a file's peaks */
	if (dtype && !known && arch_enum_find(P_MTX_IN_TYPE, dtype) < 0) {
		fprintf(stderr, "npusim roofline: --dtype %s is not a data type "
				"(int4, int8, int16, fp8e4m3, fp8e5m2, fp16, bf16, "
				"fp32, or one a file's peaks name)\n", dtype);
		return NPU_EUSAGE;
	}
	j->types = calloc((size_t)cap, sizeof(*j->types));
	j->ceil = calloc((size_t)cap, sizeof(*j->ceil));
	j->labels = calloc((size_t)cap, sizeof(*j->labels));
	if (!j->types || !j->ceil || !j->labels)
		return NPU_ENOMEM;
	j->types[j->n_types++] = (struct tpeak){ cfg_type, type_peak(j, cfg_type) };
	if (dtype && find_type(j, dtype) < 0)
		j->types[j->n_types++] = (struct tpeak){ dtype, type_peak(j, dtype) };
	/* a file's own per-type peak wins over the config's; the
	 * first file naming a type decides */
	{
		char *from_file = calloc((size_t)cap, 1);

		if (!from_file)
			return NPU_ENOMEM;
		for (i = 0; i < j->n_files; i++)
			for (k = 0; k < j->files[i].peaks.n_types; k++) {
				const struct ctrread_type_peak *tp =
					&j->files[i].peaks.types[k];
				int t = find_type(j, tp->type);

				if (t < 0) {
					t = j->n_types++;
					j->types[t].type = tp->type;
				} else if (from_file[t]) {
					continue;
				}
				from_file[t] = 1;
				if (tp->macs_per_s > 0)
					j->types[t].macs_per_s = tp->macs_per_s;
			}
		free(from_file);
	}
	for (i = 0; i < j->n_types; i++) {
		double ops = 2.0 * j->types[i].macs_per_s;
		size_t n;
		char *l;

		for (c = 0; c < j->n_ceil; c++)
			if (j->ceil[c].ops_per_s == ops)
				break;
		if (c == j->n_ceil) {
			j->ceil[c].ops_per_s = ops;
			j->labels[c] = str_dup(j->types[i].type);
			if (!j->labels[c])
				return NPU_ENOMEM;
			j->n_ceil++;
		} else {
			n = strlen(j->labels[c]) + strlen(j->types[i].type) + 3;
			if (!(l = malloc(n)))
				return NPU_ENOMEM;
			snprintf(l, n, "%s, %s", j->labels[c], j->types[i].type);
			free(j->labels[c]);
			j->labels[c] = l;
		}
		if (strcmp(j->types[i].type, sel) == 0)
			j->ceil[c].selected = 1;
		j->ceil[c].label = j->labels[c];
	}
	return 0;
}

/* One point per file, then one per region of that file. */
static int build_points(struct job *j, const char **paths)
{
	double cfg_clk = ARCH_F(&j->a, CHIP_CLOCK_GHZ);
	int i, k, n = 0;

	for (i = 0; i < j->n_files; i++)
		n += 1 + j->files[i].n_regions;
	j->pts = calloc((size_t)n + 1, sizeof(*j->pts));
	if (!j->pts)
		return NPU_ENOMEM;
	for (i = 0; i < j->n_files; i++) {
		const struct ctrread_file *f = &j->files[i];
		double hz = (f->clock_ghz > 0 ? f->clock_ghz : cfg_clk) * 1e9;

		for (k = -1; k < f->n_regions; k++) {
			struct roofline_point *p = &j->pts[j->n_pts++];
			const struct ctrread_sums *s = k < 0 ? &f->sums : &f->regions[k].sums;
			const struct ctrread_energy *e =
				k < 0 ? &f->energy : &f->regions[k].energy;

			p->file = paths[i];
			p->region = k < 0 ? NULL : f->regions[k].name;
			p->series = i;
			p->cycles = k < 0 ? f->cycles : f->regions[k].cycles;
			p->seconds = (double)p->cycles / hz;
			p->macs = s->macs;
			p->dram_bytes = s->dram_bytes;
			p->sram_bytes = s->sram_bytes;
			p->has_energy = e->present;
			p->energy_pj = e->total_pj;
			p->power_w = e->avg_power_w;
		}
	}
	return 0;
}

/* Write one output through fsout (atomic); fn is the writer. */
static int write_out(const char *path, const struct roofline_chart *c,
		     int (*fn)(const struct roofline_chart *, FILE *), struct diag *d)
{
	struct fsout o;
	int rc;

	if ((rc = fsout_open(&o, path, d)))
		return rc;
	if ((rc = fn(c, o.fp))) {
		fsout_abort(&o);
		return diag_error(d, diag_at_file(path, 0, 0), rc, "cannot write: %s",
				  npu_strerror(rc));
	}
	return fsout_commit(&o, d);
}

int cmd_roofline(int argc, char **argv)
{
	const char *cfg = NULL, *out = NULL, *csv = NULL, *dtype = NULL;
	const char **sets = NULL;
	const char **paths = NULL;
	int n_sets = 0, n_paths = 0, i, k, rc, status = NPU_EXIT_USAGE;
	struct job j;
	struct diag d;
	struct roofline_chart c;
	struct opts op;

	memset(&j, 0, sizeof(j));
	if (opts_begin(&op, &cmds_roofline, argc, argv))
		return NPU_EXIT_OK;
	sets = calloc((size_t)argc, sizeof(*sets));
	paths = calloc((size_t)argc, sizeof(*paths));
	if (!sets || !paths) {
		fputs("npusim roofline: out of memory\n", stderr);
		goto done;
	}
	while ((k = opts_next(&op)) != OPTS_END) {
		switch (k) {
		case OPTS_ERR:
			goto done;
		case OPTS_ARG:
			paths[n_paths++] = op.val;
			break;
		case ROOFLINE_OPT_CONFIG:
			cfg = op.val;
			break;
		case ROOFLINE_OPT_SET:
			sets[n_sets++] = op.val;
			break;
		case ROOFLINE_OPT_OUTPUT:
			out = op.val;
			break;
		case ROOFLINE_OPT_CSV:
			csv = op.val;
			break;
		case ROOFLINE_OPT_DTYPE:
			dtype = op.val;
			break;
		}
	}
	if (!cfg || !out || !n_paths || (csv && !*csv) || !*out || (dtype && !*dtype)) {
		fprintf(stderr, "npusim roofline: %s (see 'npusim roofline --help')\n",
			!cfg ? "-c CONFIG is required: the ceilings come from it" :
			!n_paths ? "no counters file given" :
			!out || !*out ? "-o OUT.svg is required" :
			csv && !*csv ? "--csv needs a file name" : "--dtype needs a type");
		goto done;
	}
	if (csv && strcmp(csv, out) == 0) {
		fputs("npusim roofline: --csv and -o name the same file\n", stderr);
		goto done;
	}

	diag_init(&d, stderr);
	rc = arch_load(&j.a, cfg, sets, n_sets, &d);
	if (rc) {
		if (d.n_errors)
			fprintf(stderr, "%s: %d error%s\n", cfg, d.n_errors,
				d.n_errors == 1 ? "" : "s");
		else
			fprintf(stderr, "npusim roofline: %s\n", npu_strerror(rc));
		status = npu_exit_status(rc);
		goto done;
	}
	j.have_arch = 1;
	/* every file is read, so one run reports every bad one */
	j.files = calloc((size_t)n_paths, sizeof(*j.files));
	if (!j.files) {
		fputs("npusim roofline: out of memory\n", stderr);
		goto done;
	}
	j.n_files = n_paths;
	status = NPU_EXIT_OK;
	for (i = 0; i < n_paths; i++) {
		rc = ctrread_load(&j.files[i], paths[i], &d);
		if (rc)
			status = NPU_EXIT_PROGRAM;
		else
			check_file_peaks(&j, paths[i], &j.files[i], &d);
	}
	if (status)
		goto done;
	rc = build_ceilings(&j, dtype);
	if (!rc)
		rc = build_points(&j, paths);
	if (rc) {
		if (rc == NPU_ENOMEM)
			fputs("npusim roofline: out of memory\n", stderr);
		status = npu_exit_status(rc);
		goto done;
	}
	memset(&c, 0, sizeof(c));
	c.chip = ARCH_S(&j.a, CHIP_NAME);
	c.config = cfg;
	c.n_cores = (int)ARCH_I(&j.a, CHIP_CORES);
	c.clock_ghz = ARCH_F(&j.a, CHIP_CLOCK_GHZ);
	c.ceilings = j.ceil;
	c.n_ceilings = j.n_ceil;
	c.core_ops_per_s = 2.0 * ARCH_PEAK(&j.a, MACS_PER_S_CORE);
	c.dram_bytes_per_s = ARCH_PEAK(&j.a, DRAM_BYTES_PER_S);
	c.sram_bytes_per_s = ARCH_PEAK(&j.a, SPM_BYTES_PER_S) * (double)c.n_cores;
	c.points = j.pts;
	c.n_points = j.n_pts;
	rc = write_out(out, &c, roofline_write_svg, &d);
	if (!rc && csv)
		rc = write_out(csv, &c, roofline_write_csv, &d);
	/* an output that could not be written is a usage-level failure, as
	 * in the other commands */
	status = rc ? NPU_EXIT_USAGE : NPU_EXIT_OK;
done:
	job_free(&j);
	free(sets);
	free(paths);
	return status;
}
