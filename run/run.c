/*
 * run.c - the run library (run.h).  Programs the run loaded itself are
 * kept as (object, image) pairs: the image's symbolizer points into the
 * object, so both live until run_free.
 */
#include "run.h"

#include <stdlib.h>
#include <string.h>

#include "../asm/obj.h"
#include "../sim/core/control.h"
#include "../sim/engine/unit.h"
#include "../util/npy.h"

/* A program the run owns. */
struct owned {
	struct obj_prog *obj;      /* assembled or loaded object */
	struct prog_image *img;    /* its image (symbolizer -> obj) */
};

struct run {
	const struct arch *a;      /* configuration (not owned) */
	struct diag *d;            /* where errors go (not owned) */
	struct chip *chip;         /* the chip (owned) */
	struct owned *progs;       /* programs loaded from files / text */
	size_t n_progs;            /* entries */
	struct unit **ctls;        /* control unit of each core (run_status) */
	int (*interrupted)(void);  /* run_params.interrupted */
	void (*progress)(void *, struct run *); /* run_params.progress */
	void *progress_ctx;        /* its context */
};

/* The engine's poll hook: stop on an interrupt, else show progress. */
static int run_poll(void *ctx, cycle_t now)
{
	struct run *r = ctx;

	(void)now;
	if (r->interrupted && r->interrupted())
		return NPU_EINTR;
	if (r->progress)
		r->progress(r->progress_ctx, r);
	return 0;
}

struct run *run_new(const struct arch *a, const struct run_params *o,
		    struct diag *d)
{
	struct run *r = calloc(1, sizeof(*r));
	struct chip_opts co;

	if (!r) {
		(void)diag_error(d, diag_nowhere(), NPU_ENOMEM,
				 "out of memory building the chip");
		return NULL;
	}
	r->a = a;
	r->d = d;
	memset(&co, 0, sizeof(co));
	co.max_cycles = o ? o->max_cycles : CYCLE_MAX;
	co.check_hazards = o ? o->check_hazards : 0;
	co.timing_only = o ? o->timing_only : 0;
	co.no_fast_forward = o ? o->no_fast_forward : 0;
	co.trace_insns = o ? o->trace_insns : 0;
	co.trace = o ? o->trace : NULL;
	co.trace_interval = o ? o->trace_interval : 0;
	r->chip = chip_new(a, &co, d);   /* reports its own errors */
	if (!r->chip) {
		free(r);
		return NULL;
	}
	/* The control units, found by kind among the engine's units. */
	r->ctls = calloc((size_t)chip_n_cores(r->chip), sizeof(*r->ctls));
	if (!r->ctls) {
		(void)diag_error(d, diag_nowhere(), NPU_ENOMEM,
				 "out of memory building the chip");
		run_free(r);
		return NULL;
	}
	{
		eng *e = chip_eng(r->chip);
		size_t i;

		for (i = 0; i < eng_n_units(e); i++) {
			struct unit *u = eng_unit(e, i);

			if (u->ops->kind == UNIT_CONTROL && u->core >= 0 &&
			    u->core < chip_n_cores(r->chip))
				r->ctls[u->core] = u;
		}
		if (o && (o->interrupted || o->progress)) {
			r->interrupted = o->interrupted;
			r->progress = o->progress;
			r->progress_ctx = o->progress_ctx;
			eng_set_poll(e, run_poll, r);
		}
	}
	return r;
}

void run_free(struct run *r)
{
	size_t i;

	if (!r)
		return;
	chip_free(r->chip);     /* first: it refers to the images */
	for (i = 0; i < r->n_progs; i++) {
		prog_free(r->progs[i].img);
		obj_free(r->progs[i].obj);
	}
	free(r->progs);
	free(r->ctls);
	free(r);
}

struct chip *run_chip(struct run *r) { return r->chip; }

int run_load_image(struct run *r, const struct prog_image *img, int lo,
		   int hi)
{
	if (hi < 0)
		hi = chip_n_cores(r->chip) - 1;
	return chip_load_program_cores(r->chip, img, lo, hi, r->d);
}

/* Keep obj (taken over) with its image; *out is the image. */
static int keep_obj(struct run *r, struct obj_prog *obj, const char *name,
		    const struct prog_image **out)
{
	struct owned *v;
	struct prog_image *img = NULL;

	v = realloc(r->progs, (r->n_progs + 1) * sizeof(*v));
	if (!v || obj_image(obj, name, &img)) {
		if (v)
			r->progs = v;
		obj_free(obj);
		return diag_error(r->d, diag_nowhere(), NPU_ENOMEM,
				  "out of memory loading %s", name);
	}
	r->progs = v;
	v[r->n_progs].obj = obj;
	v[r->n_progs].img = img;
	r->n_progs++;
	*out = img;
	return 0;
}

/* Keep obj (taken over) with its image and load it. */
static int load_obj(struct run *r, struct obj_prog *obj, const char *name,
		    int lo, int hi)
{
	const struct prog_image *img;
	int rc = keep_obj(r, obj, name, &img);

	return rc ? rc : run_load_image(r, img, lo, hi);
}

int run_asm_begin(const struct arch *a, const struct asm_opts *user,
		  struct run_asm *ra)
{
	size_t k, nu = user ? user->n_defines : 0;

	memset(ra, 0, sizeof(*ra));
	if (user)
		ra->opts = *user;
	if (arch_asm_defines(a, &ra->cfg))
		return NPU_ENOMEM;
	if (!(ra->all = malloc((ra->cfg.n + nu + 1) * sizeof(*ra->all)))) {
		arch_defs_free(&ra->cfg);
		return NPU_ENOMEM;
	}
	for (k = 0; k < ra->cfg.n; k++)
		ra->all[k] = ra->cfg.v[k];
	for (k = 0; k < nu; k++)
		ra->all[ra->cfg.n + k] = user->defines[k];
	ra->opts.defines = ra->all;
	ra->opts.n_defines = ra->cfg.n + nu;
	return 0;
}

void run_asm_end(struct run_asm *ra)
{
	arch_defs_free(&ra->cfg);
	free(ra->all);
	ra->all = NULL;
}

/* Assemble path, or text when text != NULL, for the run's config. */
static int assemble(struct run *r, const char *path, const char *text,
		    size_t n, const struct asm_opts *ao, struct obj_prog **obj)
{
	struct run_asm ra;
	int rc;

	if (run_asm_begin(r->a, ao, &ra))
		return diag_error(r->d, diag_nowhere(), NPU_ENOMEM,
				  "out of memory for the assembler's config symbols");
	rc = text ? asm_assemble_string(path, text, n, &ra.opts, r->d, obj)
		  : asm_assemble_file(path, &ra.opts, r->d, obj);
	run_asm_end(&ra);
	return rc;
}

/*
 * Files that are clearly not programs - a tensor or a counters file given
 * where the program goes - are named as what they are, instead of being
 * assembled into a page of "unknown instruction" errors.
 */
static int not_a_program(struct run *r, const char *path)
{
	char head[64] = { 0 };
	FILE *fp = fopen(path, "rb");
	size_t n;

	if (!fp)
		return 0;              /* the assembler reports it */
	n = fread(head, 1, sizeof(head) - 1, fp);
	fclose(fp);
	if (n >= 6 && !memcmp(head, "\x93NUMPY", 6))
		return diag_error(r->d, diag_nowhere(), NPU_EUSAGE,
				  "%s is a .npy tensor, not a program: bind it to a tensor of the program with --input NAME=%s",
				  path, path);
	if (!strncmp(head, "# npusim counters", 17) ||
	    (head[0] == '{' && strstr(head, "\"schema\"")))
		return diag_error(r->d, diag_nowhere(), NPU_EUSAGE,
				  "%s is a counters file, not a program: run and stat take a program (.s or .npo); npusim roofline plots counters files",
				  path);
	return 0;
}

int run_load_file(struct run *r, const char *path, const struct asm_opts *ao,
		  int lo, int hi)
{
	struct obj_prog *obj = NULL;
	int rc;

	if ((rc = not_a_program(r, path)))
		return rc;
	if (obj_sniff(path))
		rc = obj_load(path, r->d, &obj);
	else
		rc = assemble(r, path, NULL, 0, ao, &obj);
	if (rc)
		return rc;
	return load_obj(r, obj, path, lo, hi);
}

int run_load_source(struct run *r, const char *name, const char *text,
		    size_t n, const struct asm_opts *ao, int lo, int hi)
{
	struct obj_prog *obj = NULL;
	int rc;

	if ((rc = assemble(r, name, text, n, ao, &obj)))
		return rc;
	return load_obj(r, obj, name, lo, hi);
}

int run_assemble_source(struct run *r, const char *name, const char *text,
			size_t n, const struct asm_opts *ao, int cores,
			const struct prog_image **img)
{
	struct obj_prog *obj = NULL;
	struct run_asm ra;
	int rc;

	if (run_asm_begin(r->a, ao, &ra))
		return diag_error(r->d, diag_nowhere(), NPU_ENOMEM,
				  "out of memory for the assembler's config symbols");
	/* a partition's program: its partition is its chip */
	for (size_t k = 0; cores > 0 && k < ra.cfg.n; k++) {
		char *v;
		if (strncmp(ra.cfg.v[k], "CFG_CHIP_CORES=", 15) ||
		    !(v = malloc(32)))
			continue;
		snprintf(v, 32, "CFG_CHIP_CORES=%d", cores);
		free(ra.cfg.v[k]);
		ra.cfg.v[k] = v;
		ra.all[k] = v;
	}
	rc = asm_assemble_string(name, text, n, &ra.opts, r->d, &obj);
	run_asm_end(&ra);
	return rc ? rc : keep_obj(r, obj, name, img);
}

/* ---- tensors ---------------------------------------------------------------*/

/*
 * The tensor called name in the program of core, or an error naming what
 * the program declares.  Messages start with 'what': the binding as a user
 * writes it on the command line ("A=a.npy", "A@1=a.npy"), or the name.
 */
static const struct prog_tensor *find_as(struct run *r, const char *name,
					 int core, const char *what)
{
	const struct prog_image *p;
	const struct prog_tensor *t;
	size_t i;

	if (core < 0 || core >= chip_n_cores(r->chip)) {
		(void)diag_error(r->d, diag_nowhere(), NPU_EUSAGE,
				 "%s: core %d does not exist (the chip has %d)",
				 what, core, chip_n_cores(r->chip));
		return NULL;
	}
	p = chip_program(r->chip, core);
	if (!p) {
		(void)diag_error(r->d, diag_nowhere(), NPU_ETENSOR,
				 "%s: core %d has no program loaded", what,
				 core);
		return NULL;
	}
	if ((t = prog_find_tensor(p, name)))
		return t;
	if (p->n_tensors == 0) {
		(void)diag_error(r->d, diag_nowhere(), NPU_ETENSOR,
				 "%s: the program declares no tensors (use .tensor NAME, MEM, ADDR, DTYPE, SHAPE...)",
				 what);
		return NULL;
	}
	(void)diag_error(r->d, diag_nowhere(), NPU_ETENSOR,
			 "%s: the program has no tensor '%s'", what, name);
	for (i = 0; i < p->n_tensors; i++)
		diag_note(r->d, diag_nowhere(), "tensor '%s' is declared",
			  p->tensors[i].name);
	return NULL;
}

static const struct prog_tensor *find(struct run *r, const char *name,
				      int core)
{
	return find_as(r, name, core, name);
}

/* find_as with the binding NAME[@CORE]=PATH as the label. */
static const struct prog_tensor *find_file(struct run *r, const char *name,
					   int core, const char *path)
{
	char what[512];

	if (core == 0)
		snprintf(what, sizeof(what), "%s=%s", name, path);
	else
		snprintf(what, sizeof(what), "%s@%d=%s", name, core, path);
	return find_as(r, name, core, what);
}

const struct prog_tensor *run_tensor(struct run *r, const char *name,
				     int core)
{
	if (core < 0 || core >= chip_n_cores(r->chip) ||
	    !chip_program(r->chip, core))
		return NULL;
	return prog_find_tensor(chip_program(r->chip, core), name);
}

/*
 * Host bytes of a tensor on a core, checked to fit.  The tensor table
 * comes from the program, the memory sizes from the config, so a tensor
 * that assembled fine can still miss with a smaller memory.  The fit test
 * avoids addr + bytes (object files are user input).
 */
static int tensor_mem(struct run *r, const struct prog_tensor *t, int core,
		      uint8_t **out, uint64_t *nbytes)
{
	uint64_t size = 0;
	uint8_t *base = chip_mem(r->chip, t->mem, core, &size);

	*nbytes = prog_tensor_bytes(t);
	if (!base || t->addr > size || size - t->addr < *nbytes)
		return diag_error(r->d, diag_nowhere(), NPU_ETENSOR,
				  "tensor '%s' (%llu bytes at %s 0x%llx) does not fit in that memory with this config (%llu bytes)",
				  t->name, (unsigned long long)*nbytes,
				  isa_mem_name(t->mem),
				  (unsigned long long)t->addr,
				  (unsigned long long)size);
	*out = base + t->addr;
	return 0;
}

/* Copy a loaded array x (already in t's dtype) into tensor t: the shape
 * must match exactly, there is no broadcasting or reshaping.  'label'
 * names the source in messages.  Frees x. */
static int bind_loaded(struct run *r, const struct prog_tensor *t, int core,
		       struct npy *x, const char *label)
{
	uint64_t nbytes;
	uint8_t *dst;
	int k, same, rc;

	same = x->ndim == t->rank;
	for (k = 0; same && k < t->rank; k++)
		same = x->shape[k] == t->shape[k];
	if (!same) {
		char want[128] = "", got[128] = "";
		size_t n = 0;

		for (k = 0; k < t->rank; k++)
			n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%llu",
					      k ? ", " : "", (unsigned long long)t->shape[k]);
		n = 0;
		for (k = 0; k < x->ndim; k++)
			n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%llu",
					      k ? ", " : "", (unsigned long long)x->shape[k]);
		npy_free(x);
		return diag_error(r->d, diag_at_file(label, 0, 0), NPU_ETENSOR,
				  "shape (%s) does not match tensor '%s' (%s)",
				  got, t->name, want);
	}
	if ((rc = tensor_mem(r, t, core, &dst, &nbytes))) {
		npy_free(x);
		return rc;
	}
	/* Same dtype and shape, so x->data holds exactly nbytes. */
	memcpy(dst, x->data, nbytes);
	npy_free(x);
	return 0;
}

int run_bind_npy(struct run *r, const char *name, int core, const char *path)
{
	const struct prog_tensor *t = find_file(r, name, core, path);
	struct npy x;

	if (!t)
		return NPU_ETENSOR;
	/* Converted to the tensor's dtype on load (npy.h: integers must be
	 * integral and in range, floats round to nearest even, overflow is
	 * an error). */
	if (npy_load_as(path, t->dtype, &x, r->d))
		return NPU_ETENSOR;
	return bind_loaded(r, t, core, &x, path);
}

int run_bind_npy_mem(struct run *r, const char *name, int core, const void *buf,
		     size_t n, const char *label)
{
	const struct prog_tensor *t = find_file(r, name, core, label);
	struct npy x;

	if (!t)
		return NPU_ETENSOR;
	if (npy_load_mem(buf, n, label, t->dtype, &x, r->d))
		return NPU_ETENSOR;
	return bind_loaded(r, t, core, &x, label);
}

/* Raw bytes in or out: the size must be the tensor's, exactly. */
static int raw(struct run *r, const char *name, int core, void *data,
	       size_t bytes, int write)
{
	const struct prog_tensor *t = find(r, name, core);
	uint64_t nbytes;
	uint8_t *p;
	int rc;

	if (!t)
		return NPU_ETENSOR;
	if ((rc = tensor_mem(r, t, core, &p, &nbytes)))
		return rc;
	if (bytes != nbytes)
		return diag_error(r->d, diag_nowhere(), NPU_ETENSOR,
				  "tensor '%s' holds %llu bytes, not %llu",
				  t->name, (unsigned long long)nbytes,
				  (unsigned long long)bytes);
	if (!data)
		memset(p, 0, bytes);
	else if (write)
		memcpy(p, data, bytes);
	else
		memcpy(data, p, bytes);
	return 0;
}

int run_zero(struct run *r, const char *name, int core)
{
	const struct prog_tensor *t = find(r, name, core);

	if (!t)
		return NPU_ETENSOR;
	return raw(r, name, core, NULL, (size_t)prog_tensor_bytes(t), 1);
}

int run_write(struct run *r, const char *name, int core, const void *data,
	      size_t bytes)
{
	return raw(r, name, core, (void *)data, bytes, 1);
}

int run_read(struct run *r, const char *name, int core, void *buf,
	     size_t bytes)
{
	return raw(r, name, core, buf, bytes, 0);
}

/* A .npy of the tensor's declared dtype and shape; written atomically. */
int run_save_npy(struct run *r, const char *name, int core, const char *path)
{
	const struct prog_tensor *t = find_file(r, name, core, path);
	struct npy x;
	uint64_t nbytes;
	uint8_t *src;
	int rc;

	if (!t)
		return NPU_ETENSOR;
	if ((rc = tensor_mem(r, t, core, &src, &nbytes)))
		return rc;
	/* written straight from the simulated memory: a copy first cost a
	 * page fault per 4 KiB of a fresh buffer (a 4 MiB GEMM output) */
	if (npy_view(&x, t->dtype, t->rank, t->shape, src, nbytes))
		return diag_error(r->d, diag_nowhere(), NPU_EINTERNAL,
				  "tensor '%s': %llu bytes for its shape",
				  t->name, (unsigned long long)nbytes);
	return npy_write(path, &x, r->d);
}

/* ---- running ---------------------------------------------------------------*/

void run_status(struct run *r, struct run_status *st)
{
	int i;

	memset(st, 0, sizeof(*st));
	st->cycle = chip_now(r->chip);
	for (i = 0; i < chip_n_cores(r->chip); i++) {
		uint64_t pc;

		if (!r->ctls[i])
			continue;
		st->insns += r->ctls[i]->ctr[CTR_CONTROL_INSNS];
		switch (ctl_where(r->ctls[i], &pc)) {
		case CTL_RUNNING: st->n_running++; break;
		case CTL_WAITING: st->n_waiting++; break;
		case CTL_DONE: st->n_done++; break;
		}
	}
}

/* Most cores named after a cycle limit or an interrupt; the rest are
 * counted in one line. */
#define RUN_MAX_WHERE 8

/*
 * After the watchdog or an interrupt: where each unfinished core was, as
 * a note at the source line of its pc ("spin.s:2: note: core 0 was
 * running at pc 0x4"), so a runaway loop is found without a trace.
 */
static void where_notes(struct run *r)
{
	int i, shown = 0, more = 0;

	for (i = 0; i < chip_n_cores(r->chip); i++) {
		const struct prog_image *p = chip_program(r->chip, i);
		enum ctl_where w;
		const char *file = NULL;
		uint64_t pc;
		int line = 0;

		if (!r->ctls[i] || (w = ctl_where(r->ctls[i], &pc)) == CTL_DONE)
			continue;
		if (shown == RUN_MAX_WHERE) {
			more++;
			continue;
		}
		shown++;
		if (!p || prog_src_line(p, pc, &file, &line) != 0)
			file = NULL;
		diag_note(r->d, file ? diag_at_file(file, line, 0) : diag_nowhere(),
			  "core %d was %s at pc 0x%llx", i,
			  w == CTL_RUNNING ? "running" : "waiting",
			  (unsigned long long)pc);
	}
	if (more)
		diag_note(r->d, diag_nowhere(), "and %d more core%s", more,
			  more == 1 ? "" : "s");
}

int run_go(struct run *r, cycle_t until, struct chip_result *res)
{
	int rc = chip_run_until(r->chip, until, res);

	if (rc == NPU_EINTR)
		(void)diag_error(r->d, diag_nowhere(), rc,
				 "interrupted at cycle %llu",
				 (unsigned long long)chip_now(r->chip));
	if (rc == NPU_EINTR || rc == NPU_ETIMEOUT)
		where_notes(r);

	if (rc && r->d->last_run.core >= 0) {
		/* Point at the source line of the faulting instruction, in
		 * the program of the core that faulted. */
		const struct prog_image *p = chip_program(r->chip,
							  r->d->last_run.core);
		const char *file;
		int line;

		if (p && prog_src_line(p, r->d->last_run.pc, &file, &line) == 0)
			diag_note(r->d, diag_at_file(file, line, 0),
				  "the instruction at pc 0x%llx (core %d)",
				  (unsigned long long)r->d->last_run.pc,
				  r->d->last_run.core);
	}
	if (rc == NPU_EINTERNAL)
		(void)diag_error(r->d, diag_nowhere(), rc,
				 "internal simulator error (please report it with the config and program)");
	return rc;
}

int run_counters(struct run *r, struct ctr_sink *s)
{
	chip_dump(r->chip, s);
	return s->oom ? NPU_ENOMEM : 0;
}

int run_regions(struct run *r, struct ctr_region **v, size_t *n)
{
	int nc = chip_n_cores(r->chip), i, k;
	size_t total = 0, j = 0;
	struct ctr_region *out;
	uint64_t *buf = NULL;

	*v = NULL;
	*n = 0;
	for (i = 0; i < nc; i++)
		total += (size_t)ctl_n_regions(r->ctls[i]);
	if (!total)
		return 0;
	if (!(out = calloc(total, sizeof(*out))))
		return NPU_ENOMEM;
	for (i = 0; i < nc; i++) {
		const struct ctr_scope *sc = ctl_region_scope(r->ctls[i]);
		uint64_t *nb;

		if (!ctl_n_regions(r->ctls[i]))
			continue;
		if (!(nb = realloc(buf, (sc->n + 1) * sizeof(*buf))))
			goto oom;
		buf = nb;
		for (k = 0; k < ctl_n_regions(r->ctls[i]); k++) {
			struct ctr_region *g = &out[j++];
			struct ctl_region_info ri;

			ctl_region(r->ctls[i], k, &ri, buf);
			g->name = ri.name;
			g->core = i;
			g->entries = ri.entries;
			g->cycles = ri.cycles;
			ctr_sink_init(&g->s);
			ctr_scope_emit(sc, buf, &g->s);
			if (g->s.oom)
				goto oom;
		}
	}
	free(buf);
	*v = out;
	*n = total;
	return 0;
oom:
	free(buf);
	/* Entries past j are still zeroed: freeing them is a no-op. */
	run_regions_free(out, total);
	return NPU_ENOMEM;
}

void run_regions_free(struct ctr_region *v, size_t n)
{
	size_t k;

	if (!v)
		return;
	for (k = 0; k < n; k++)
		ctr_sink_free(&v[k].s);
	free(v);
}
