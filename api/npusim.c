/*
 * npusim.c - the public C API (include/npusim.h) over the run library.
 *
 * A thin layer: it owns the diag of each run (an open_memstream, so the
 * messages are exactly the text the CLI prints on stderr), turns the
 * internal NPU_E* codes into the public NPUSIM_E* ones and keeps the
 * internal structs (struct arch, struct run, ctr_sink) out of the
 * installed header.  No global state: every handle owns what it uses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_int.h"
#include "../report/ctrout.h"
#include "../util/dtype.h"
#include "../util/num.h"
#include "../util/strutil.h"

const char *npusim_version(void)
{
	return "0.1.0";
}

void npusim_free(void *p)
{
	free(p);
}

/* The public element types are util/dtype.h's, in the same order: the
 * library hands dtype ids through unchanged.  A type added on one side
 * only is a build error here. */
#define DT_SAME(id, name, bits, fl)                                        \
	_Static_assert((int)NPUSIM_##id == (int)DT_##id,                    \
		       "enum npusim_dtype differs from util/dtype.h at " name);
NPU_DTYPES(DT_SAME)
#undef DT_SAME
_Static_assert((int)NPUSIM_FP32 + 1 == (int)DT_N,
	       "enum npusim_dtype has as many types as util/dtype.h");

/* The public error codes' messages, by -code (include/npusim.h). */
static const char *const pub_msgs[] = {
	[-NPUSIM_OK] = "success",
	[-NPUSIM_EINVAL] = "invalid argument",
	[-NPUSIM_ECONFIG] = "configuration error",
	[-NPUSIM_EASM] = "assembly error",
	[-NPUSIM_ETENSOR] = "tensor error",
	[-NPUSIM_ERUN] = "run error",
	[-NPUSIM_ENOMEM] = "out of memory",
	[-NPUSIM_EIO] = "I/O error",
};

const char *npusim_strerror(int code)
{
	if (code > 0 || -code >= (int)(sizeof(pub_msgs) / sizeof(pub_msgs[0])) ||
	    !pub_msgs[-code])
		return "unknown error";
	return pub_msgs[-code];
}

const char *npusim_dtype_name(int dtype)
{
	return dtype >= 0 && dtype < DT_N ? dtype_name((enum npu_dtype)dtype)
					  : NULL;
}

/* NPU_E* -> NPUSIM_E*. */
int api_pub(int rc)
{
	switch (rc) {
	case 0:
		return NPUSIM_OK;
	case NPU_ENOMEM:
		return NPUSIM_ENOMEM;
	case NPU_EIO:
		return NPUSIM_EIO;
	case NPU_ECONFIG:
		return NPUSIM_ECONFIG;
	case NPU_EASM:
	case NPU_EOBJ:
		return NPUSIM_EASM;
	case NPU_ETENSOR:
	case NPU_ERANGE:
		return NPUSIM_ETENSOR;
	case NPU_EFAULT:
	case NPU_EDEADLOCK:
	case NPU_ETIMEOUT:
	case NPU_EINTR:
	case NPU_EINTERNAL:
		return NPUSIM_ERUN;
	default:
		return NPUSIM_EINVAL;
	}
}

/* ---- message capture -------------------------------------------------- */

/* A diag printing into a fresh memory stream (*fp, over *buf). */
int api_cap_open(struct diag *d, FILE **fp, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	if (!(*fp = open_memstream(buf, len)))
		return NPU_ENOMEM;
	diag_init(d, *fp);
	return 0;
}

/* The captured text as a malloc'ed string (closes the stream). */
char *api_cap_close(FILE *fp, char **buf)
{
	char *s;

	fclose(fp);
	s = *buf ? *buf : str_dup("");
	*buf = NULL;
	return s;
}

/* Start an API call on r: forget the last call's messages. */
void api_call_begin(npusim_run *r)
{
	fflush(r->fp);
	fseek(r->fp, 0, SEEK_SET);
	free(r->err);
	r->err = NULL;
}

/* End it: a failure keeps the messages written since call_begin. */
int api_call_end(npusim_run *r, int rc)
{
	if (rc) {
		fflush(r->fp);
		r->err = malloc(r->mlen + 1);
		if (r->err) {
			memcpy(r->err, r->mbuf ? r->mbuf : "", r->mlen);
			r->err[r->mlen] = 0;
		}
	}
	return api_pub(rc);
}

/* An API misuse, reported like any other error. */
int api_misuse(npusim_run *r, const char *what)
{
	return diag_error(&r->d, diag_nowhere(), NPU_EUSAGE, "%s", what);
}

const char *npusim_error(const npusim_run *r)
{
	return r && r->err ? r->err : "";
}

/* ---- configs ---------------------------------------------------------- */

static int config_load(const char *path, const char *const *ov, size_t n, npusim_config **out,
		       char **err, const char *from, const char *to)
{
	npusim_config *c = calloc(1, sizeof(*c));
	struct diag d;
	FILE *fp;
	char *buf, *msg;
	size_t len;
	int rc;

	*out = NULL;
	if (!c)
		return NPUSIM_ENOMEM;
	if ((rc = api_cap_open(&d, &fp, &buf, &len))) {
		free(c);
		return api_pub(rc);
	}
	rc = arch_load(&c->a, path, (const char *const *)ov, (int)n, &d);
	msg = api_cap_close(fp, &buf);
	if (rc) {
		free(c);
		c = NULL;
	}
	if (err && rc && msg) {
		/* a parsed string is named as the caller asked, not by the
		 * temporary file it went through */
		size_t lf = from ? strlen(from) : 0, lt = to ? strlen(to) : 0;
		char *p, *o;

		if (lf && (o = malloc(strlen(msg) / lf * lt + strlen(msg) + 1))) {
			char *q = o;

			for (p = msg; *p;) {
				if (strncmp(p, from, lf) == 0) {
					memcpy(q, to, lt);
					q += lt;
					p += lf;
				} else {
					*q++ = *p++;
				}
			}
			*q = 0;
			free(msg);
			msg = o;
		}
		*err = msg;
		msg = NULL;
	}
	free(msg);
	*out = c;
	return api_pub(rc);
}

int npusim_config_load(const char *path, const char *const *overrides, size_t n_overrides,
		       npusim_config **out, char **err)
{
	if (err)
		*err = NULL;
	if (!out)
		return NPUSIM_EINVAL;
	return config_load(path, overrides, n_overrides, out, err, NULL, NULL);
}

int npusim_config_parse(const char *text, const char *name, const char *const *overrides,
			size_t n_overrides, npusim_config **out, char **err)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], path[4200];
	FILE *fp;
	int rc;

	if (err)
		*err = NULL;
	if (!out || !text)
		return NPUSIM_EINVAL;
	*out = NULL;
	/* libconfig and the loader's checks read a file (includes, the
	 * literal audit): the text goes through a private temporary one */
	/* $TMPDIR (else /tmp), as every mkdtemp user should */
	if ((size_t)snprintf(dir, sizeof(dir), "%s/npusim-cfg-XXXXXX",
			     tmp && *tmp ? tmp : "/tmp") >= sizeof(dir) || !mkdtemp(dir))
		return NPUSIM_EIO;
	snprintf(path, sizeof(path), "%s/config.cfg", dir);
	rc = NPUSIM_EIO;
	if ((fp = fopen(path, "w"))) {
		int ok = fputs(text, fp) >= 0;

		if (fclose(fp) == 0 && ok)
			rc = config_load(path, overrides, n_overrides, out, err, path,
					 name ? name : "<string>");
	}
	unlink(path);
	rmdir(dir);
	if (rc == 0) {
		/* the file is gone: the config keeps no path */
		free((*out)->a.path);
		(*out)->a.path = NULL;
	}
	return rc;
}

void npusim_config_free(npusim_config *cfg)
{
	if (!cfg)
		return;
	arch_free(&cfg->a);
	free(cfg);
}

/* clock_ghz and cores come first: config values that every ratio of the
 * peaks needs, listed with them. */
int npusim_config_peak(const npusim_config *cfg, const char *name, double *value)
{
	if (!cfg || !name || !value)
		return NPUSIM_EINVAL;
	if (strcmp(name, "clock_ghz") == 0)
		*value = ARCH_F(&cfg->a, CHIP_CLOCK_GHZ);
	else if (strcmp(name, "cores") == 0)
		*value = (double)ARCH_I(&cfg->a, CHIP_CORES);
	else if (arch_peak_find(&cfg->a, name, value))
		return NPUSIM_EINVAL;
	return NPUSIM_OK;
}

const char *npusim_peak_name(int k)
{
	if (k == 0)
		return "clock_ghz";
	if (k == 1)
		return "cores";
	return k < 0 ? NULL : arch_peak_name(k - 2);
}

int npusim_config_dump(const npusim_config *cfg, char **text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int rc;

	if (!cfg || !text)
		return NPUSIM_EINVAL;
	*text = NULL;
	if (!(fp = open_memstream(&buf, &len)))
		return NPUSIM_ENOMEM;
	rc = arch_dump(&cfg->a, fp);
	fclose(fp);
	if (rc) {
		free(buf);
		return api_pub(rc);
	}
	*text = buf;
	return NPUSIM_OK;
}

/* ---- runs ------------------------------------------------------------- */

void api_drop_results(npusim_run *r)
{
	if (r->have_sink)
		ctr_sink_free(&r->sink);
	r->have_sink = 0;
	run_regions_free(r->rgn, r->n_rgn);
	r->rgn = NULL;
	r->n_rgn = 0;
}

npusim_run *npusim_run_new(const npusim_config *cfg, const struct npusim_run_opts *opts,
			   char **err)
{
	npusim_run *r;
	struct run_params p;

	if (err)
		*err = NULL;
	if (!cfg || !(r = calloc(1, sizeof(*r))))
		return NULL;
	r->cfg = cfg;
	if (api_cap_open(&r->d, &r->fp, &r->mbuf, &r->mlen)) {
		free(r);
		return NULL;
	}
	memset(&p, 0, sizeof(p));
	p.max_cycles = opts && opts->max_cycles ? (cycle_t)opts->max_cycles : CYCLE_MAX;
	p.check_hazards = opts ? opts->check_hazards : 0;
	p.timing_only = opts ? opts->timing_only : 0;
	if (!(r->r = run_new(&cfg->a, &p, &r->d))) {
		char *msg = api_cap_close(r->fp, &r->mbuf);

		if (err)
			*err = msg;
		else
			free(msg);
		free(r);
		return NULL;
	}
	return r;
}

void npusim_run_free(npusim_run *r)
{
	if (!r)
		return;
	api_drop_results(r);
	run_free(r->r);
	fclose(r->fp);
	free(r->mbuf);
	free(r->err);
	free(r);
}

/* Load TEXT (or, when NULL, the file at PATH) into every core. */
static int load(npusim_run *r, const char *path, const char *name, const char *text,
		const char *const *defines, size_t n_defines, const char *const *includes,
		size_t n_includes)
{
	struct asm_opts ao;

	if (!r)
		return NPUSIM_EINVAL;
	api_call_begin(r);
	if (!text && !path)
		return api_call_end(r, api_misuse(r, "npusim_load: no program text or path"));
	memset(&ao, 0, sizeof(ao));
	ao.defines = defines;
	ao.n_defines = n_defines;
	ao.include_dirs = includes;
	ao.n_include_dirs = n_includes;
	if (text)
		return api_call_end(r, run_load_source(r->r, name ? name : "<source>", text,
						   strlen(text), &ao, RUN_ALL_CORES));
	return api_call_end(r, run_load_file(r->r, path, &ao, RUN_ALL_CORES));
}

int npusim_load_source(npusim_run *r, const char *name, const char *text,
		       const char *const *defines, size_t n_defines,
		       const char *const *includes, size_t n_includes)
{
	if (!text)
		return r ? load(r, NULL, name, NULL, NULL, 0, NULL, 0) : NPUSIM_EINVAL;
	return load(r, NULL, name, text, defines, n_defines, includes, n_includes);
}

int npusim_load_file(npusim_run *r, const char *path, const char *const *defines,
		     size_t n_defines, const char *const *includes, size_t n_includes)
{
	if (!path)
		return r ? load(r, NULL, NULL, NULL, NULL, 0, NULL, 0) : NPUSIM_EINVAL;
	return load(r, path, NULL, NULL, defines, n_defines, includes, n_includes);
}

/* The tensor NAME on CORE, or an error in r's messages. */
static const struct prog_tensor *tensor(npusim_run *r, const char *name, int core)
{
	const struct prog_tensor *t = name ? run_tensor(r->r, name, core) : NULL;

	if (!t)
		(void)diag_error(&r->d, diag_nowhere(), NPU_ETENSOR,
				 "no tensor '%s' on core %d (is a program loaded?)",
				 name ? name : "(null)", core);
	return t;
}

int npusim_tensor_info(npusim_run *r, const char *name, int core, struct npusim_tensor *out)
{
	const struct prog_tensor *t;
	int k;

	if (!r || !out)
		return NPUSIM_EINVAL;
	api_call_begin(r);
	if (!(t = tensor(r, name, core)))
		return api_call_end(r, NPU_ETENSOR);
	memset(out, 0, sizeof(*out));
	out->dtype = (int)t->dtype;
	out->ndim = t->rank;
	for (k = 0; k < t->rank && k < 8; k++)
		out->shape[k] = t->shape[k];
	out->bytes = prog_tensor_bytes(t);
	out->space = t->mem;
	out->addr = t->addr;
	return api_call_end(r, 0);
}

int npusim_tensor_count(npusim_run *r, int core)
{
	const struct prog_image *p;

	if (!r || core < 0 || core >= chip_n_cores(run_chip(r->r)))
		return 0;
	p = chip_program(run_chip(r->r), core);
	return p ? (int)p->n_tensors : 0;
}

const char *npusim_tensor_name(npusim_run *r, int core, int i)
{
	const struct prog_image *p;

	if (!r || core < 0 || core >= chip_n_cores(run_chip(r->r)))
		return NULL;
	p = chip_program(run_chip(r->r), core);
	if (!p || i < 0 || (size_t)i >= p->n_tensors)
		return NULL;
	return p->tensors[i].name;
}

int npusim_write(npusim_run *r, const char *name, int core, const void *data, size_t bytes)
{
	if (!r)
		return NPUSIM_EINVAL;
	api_call_begin(r);
	if (!data && bytes)
		return api_call_end(r, api_misuse(r, "npusim_write: no data"));
	if (!tensor(r, name, core))
		return api_call_end(r, NPU_ETENSOR);
	return api_call_end(r, run_write(r->r, name, core, data, bytes));
}

int npusim_read(npusim_run *r, const char *name, int core, void *data, size_t bytes)
{
	if (!r)
		return NPUSIM_EINVAL;
	api_call_begin(r);
	if (!data && bytes)
		return api_call_end(r, api_misuse(r, "npusim_read: no buffer"));
	if (!tensor(r, name, core))
		return api_call_end(r, NPU_ETENSOR);
	return api_call_end(r, run_read(r->r, name, core, data, bytes));
}

int npusim_write_npy(npusim_run *r, const char *name, int core, const void *npy, size_t bytes)
{
	char label[300];

	if (!r)
		return NPUSIM_EINVAL;
	api_call_begin(r);
	if (!npy)
		return api_call_end(r, api_misuse(r, "npusim_write_npy: no data"));
	if (!tensor(r, name, core))
		return api_call_end(r, NPU_ETENSOR);
	snprintf(label, sizeof(label), "%s (array)", name);
	return api_call_end(r, run_bind_npy_mem(r->r, name, core, npy, bytes, label));
}

int npusim_zero(npusim_run *r, const char *name, int core)
{
	if (!r)
		return NPUSIM_EINVAL;
	api_call_begin(r);
	if (!tensor(r, name, core))
		return api_call_end(r, NPU_ETENSOR);
	return api_call_end(r, run_zero(r->r, name, core));
}

/* The raw bytes of tensor t and its element count; *raw malloc'ed. */
static int read_raw(npusim_run *r, const char *name, int core, size_t n, uint8_t **raw,
		    const struct prog_tensor **tp)
{
	const struct prog_tensor *t = tensor(r, name, core);
	uint64_t cnt = 1, bytes;
	int k;

	*raw = NULL;
	if (!t)
		return NPU_ETENSOR;
	for (k = 0; k < t->rank; k++)
		cnt *= t->shape[k];
	if (cnt != n)
		return diag_error(&r->d, diag_nowhere(), NPU_EUSAGE,
				  "tensor '%s' has %llu elements, not %zu", name,
				  (unsigned long long)cnt, n);
	bytes = prog_tensor_bytes(t);
	if (!(*raw = malloc(bytes ? bytes : 1)))
		return NPU_ENOMEM;
	*tp = t;
	return run_read(r->r, name, core, *raw, bytes);
}

/*
 * The tensor widened into out: as float (AS_F32: floats exactly, small
 * integers too) or as int8_t (int4/int8).  Anything else is refused: it
 * reads raw (npusim_read).
 */
static int read_wide(npusim_run *r, const char *name, int core, void *out, size_t n,
		     int as_f32)
{
	const struct prog_tensor *t = NULL;
	uint8_t *raw;
	size_t i;
	int rc, ok;

	if (!r || !out)
		return NPUSIM_EINVAL;
	api_call_begin(r);
	if ((rc = read_raw(r, name, core, n, &raw, &t)) == 0) {
		ok = t->dtype == DT_INT4 || t->dtype == DT_INT8 ||
		     (as_f32 && (dtype_is_float(t->dtype) || t->dtype == DT_INT16));
		if (!ok)
			rc = diag_error(&r->d, diag_nowhere(), NPU_EUSAGE,
					"tensor '%s' is %s: read it raw, not as %s", name,
					dtype_name(t->dtype), as_f32 ? "float" : "int8");
		for (i = 0; !rc && i < n; i++) {
			uint32_t bits = num_get_bits(t->dtype, raw, i);

			if (as_f32)
				((float *)out)[i] = num_decode_f32(t->dtype, bits);
			else
				((int8_t *)out)[i] = (int8_t)num_sext(bits, dtype_bits(t->dtype));
		}
	}
	free(raw);
	return api_call_end(r, rc);
}

int npusim_read_f32(npusim_run *r, const char *name, int core, float *out, size_t n)
{
	return read_wide(r, name, core, out, n, 1);
}

int npusim_read_i8(npusim_run *r, const char *name, int core, int8_t *out, size_t n)
{
	return read_wide(r, name, core, out, n, 0);
}

int api_collect(npusim_run *r, uint64_t cycles)
{
	ctr_sink_init(&r->sink);
	r->have_sink = 1;
	/* first, as in the counters file: the run's cycles */
	ctr_emit_u64(&r->sink, NULL, "cycles", cycles);
	if (r->sink.oom)
		return NPU_ENOMEM;
	return run_counters(r->r, &r->sink) ||
	       run_regions(r->r, &r->rgn, &r->n_rgn) ? NPU_ENOMEM : 0;
}

int npusim_go(npusim_run *r, struct npusim_result *res)
{
	return npusim_go_until(r, UINT64_MAX, res);
}

int npusim_go_until(npusim_run *r, uint64_t cycle, struct npusim_result *res)
{
	struct chip_result cr;
	int rc, rc2;

	if (!r)
		return NPUSIM_EINVAL;
	api_call_begin(r);
	api_drop_results(r);
	memset(&cr, 0, sizeof(cr));
	rc = run_go(r->r, cycle >= CYCLE_MAX ? CYCLE_MAX : (cycle_t)cycle, &cr);
	if (res) {
		res->cycles = cr.cycles;
		res->events = cr.n_events;
		res->hazards = cr.n_hazards;
		res->paused = cr.paused;
	}
	/* counters and regions stay readable after a fault (the CLI writes
	 * them too) */
	rc2 = api_collect(r, cr.cycles);
	if (!rc && cr.n_hazards)
		rc = diag_error(&r->d, diag_nowhere(), NPU_EFAULT, "%d hazard%s found",
				cr.n_hazards, cr.n_hazards == 1 ? "" : "s");
	return api_call_end(r, rc ? rc : rc2);
}

int npusim_counter(npusim_run *r, const char *name, double *value)
{
	const struct ctr_entry *e;

	if (!r || !name || !value || !r->have_sink)
		return NPUSIM_EINVAL;
	if (!(e = ctr_find(&r->sink, name)))
		return NPUSIM_EINVAL;
	*value = e->is_float ? e->f : (double)e->u;
	return NPUSIM_OK;
}

int npusim_counter_count(npusim_run *r)
{
	return r && r->have_sink ? (int)r->sink.n : 0;
}

int npusim_counter_get(npusim_run *r, int i, const char **name, double *value,
		       const char **unit)
{
	const struct ctr_entry *e;

	if (!r || !r->have_sink || i < 0 || (size_t)i >= r->sink.n)
		return NPUSIM_EINVAL;
	e = &r->sink.v[i];
	if (name)
		*name = e->name;
	if (value)
		*value = e->is_float ? e->f : (double)e->u;
	if (unit)
		*unit = ctrout_unit(e->name);
	return NPUSIM_OK;
}

int npusim_region_count(npusim_run *r)
{
	return r ? (int)r->n_rgn : 0;
}

int npusim_region_get(npusim_run *r, int i, const char **name, int *core, uint64_t *entries,
		      uint64_t *cycles)
{
	const struct ctr_region *g;

	if (!r || i < 0 || (size_t)i >= r->n_rgn)
		return NPUSIM_EINVAL;
	g = &r->rgn[i];
	if (name)
		*name = g->name;
	if (core)
		*core = g->core;
	if (entries)
		*entries = g->entries;
	if (cycles)
		*cycles = g->cycles;
	return NPUSIM_OK;
}
