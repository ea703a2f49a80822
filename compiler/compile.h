/*
 * compile.h - a model from its file to a run and its results: what
 * `npusim model`, the C API (npusim_model_*) and the Python package share
 * (docs/models.md).
 *
 *   struct compiled c;
 *   compile_import(&c, "resnet50.onnx", &opts, &d);  // import, infer, fuse
 *   compile_inputs(&c, files, n, &in, &d);           // values of the inputs
 *   compile_plans(&c, &arch, in, &d);                // map, schedules, int8
 *   compile_run(&c, run, &arch, &mopts, &res, &d);   // layers as phases
 *   compile_save_outputs(&c, &res, specs, n, dir, &d);
 *   compile_free(&c);
 *
 * The steps and their order are the command's; nothing here prints
 * (messages go to the diag) or exits.  Schedules of tunable kernels come
 * from the caller (compile_opts.schedule): the tuner lives above the
 * compiler (dse/), and a library caller may want only its cache.
 */
#ifndef NPU_COMPILE_H
#define NPU_COMPILE_H

#include <limits.h>

#include "graph.h"
#include "map.h"
#include "model.h"

/*
 * The schedule of one layer step whose kernel declares .tunable
 * parameters: "NAME=VALUE\n" lines into best (n bytes).  kernel is the
 * kernel file, defines the step's fixed parameters ("NAME=VALUE", its
 * DRAM bases left out: the tuner's key for the layer's shape), layer the
 * layer's name for messages.  1 when best holds one, 0 for the kernel's
 * defaults, a negative NPU_E* to stop (with the reason in d).
 */
typedef int (*compile_schedule_fn)(void *ctx, const char *kernel,
				   const char *const *defines, int n_defines,
				   const char *layer, char *best, size_t n,
				   struct diag *d);

/* How to compile (the options of `npusim model`, docs/cli.md). */
struct compile_opts {
	enum npu_dtype dtype;      /* DT_INT8, DT_BF16; DT_N: by the chip's
				      core.matrix.in_type */
	enum map_split split;      /* how a multi-core chip shares a layer */
	int batch;                 /* inputs at once; 0: the model's one */
	int pipeline;              /* stages of a pipelined run; 0: none */
	const int *starts;         /* first layer of stages 2..S, or NULL */
	int n_starts;
	int no_fuse;               /* activations and adds stay layers */
	int per_image;             /* a conv over a batch: a step per image */
	int keep_all;              /* every activation kept in DRAM to the
				      end (to read each layer's output) */
	int calibrate;             /* int8 formats from a bf16 run */
	const char *kernels;       /* the kernel library; NULL: found by
				      compile_kernel_dir */
	compile_schedule_fn schedule;  /* NULL: the kernels' defaults */
	void *schedule_ctx;
};

/* A model being compiled and run. */
struct compiled {
	struct graph g;            /* imported, shapes inferred, simplified */
	struct compile_opts o;     /* as given (pointers borrowed) */
	int images;                /* a pipelined batch's images, else 1 */
	struct map_plan *plans;    /* one plan, or a pipeline's per image */
	int n_plans;               /* plans built (to free) */
	float *amax;               /* --calibrate's ranges by tensor, or NULL */
	char kdir[PATH_MAX];       /* the kernel library in use */
};

/*
 * Import a model (ONNX, or a SCALE-Sim topology CSV by its .csv name),
 * set the batch, infer shapes and simplify the graph.  c is ready for
 * compile_free whatever the outcome.  0 or NPU_E*.
 */
int compile_import(struct compiled *c, const char *path,
		   const struct compile_opts *o, struct diag *d) NPU_WUR;

/*
 * The values of the graph inputs, fp32 in the model's layout, every
 * image of a pipelined batch one after another: from the "NAME=FILE.npy"
 * specs (the model's shapes), the rest uniform in [-1, 1) from a fixed
 * seed.  *in (one array per graph input) is for compile_inputs_free.
 */
int compile_inputs(const struct compiled *c, const char *const *specs,
		   int n_specs, float ***in, struct diag *d) NPU_WUR;
void compile_inputs_free(const struct compiled *c, float **in);

/*
 * Map every layer onto the kernel library for chip a (one plan, or one
 * per image of a pipeline), with each tunable step's schedule from
 * o.schedule; with o.calibrate and int8, once more with the ranges of a
 * bf16 run on inputs 'in' (a note says so if that run fails: every
 * activation then stays Q3.4).  0 or NPU_E*; may be called again after
 * a failure.
 */
int compile_plans(struct compiled *c, const struct arch *a, float *const *in,
		  struct diag *d) NPU_WUR;

/* Run the plans on r (layer by layer, or pipelined); model_run's rules. */
int compile_run(struct compiled *c, struct run *r, const struct arch *a,
		const struct model_opts *mo, struct model_result *res,
		struct diag *d) NPU_WUR;

/*
 * Write graph outputs as .npy (fp32, the model's layout; a pipeline's
 * images along the batch dimension): the "NAME=FILE.npy" specs, and every
 * output as DIR/NAME.npy when dir is not NULL.
 */
int compile_save_outputs(const struct compiled *c,
			 const struct model_result *res,
			 const char *const *specs, int n_specs,
			 const char *dir, struct diag *d) NPU_WUR;
/* Every output of the first n_layers layers as DIR/<tensor>.npy (fp32;
 * needs o.keep_all).  '/' and ' ' in names become '_'. */
int compile_dump_layers(const struct compiled *c, struct run *r,
			const char *dir, int n_layers, struct diag *d) NPU_WUR;
/* The per-layer CSV into path, atomically. */
int compile_write_layers(const struct compiled *c, const char *path,
			 const struct model_result *res, const struct arch *a,
			 struct diag *d) NPU_WUR;

/*
 * The kernel library: given (--kernels), else $NPUSIM_KERNELS, else next
 * to the running binary (the source tree's asm/kernels or
 * PREFIX/share/npusim/kernels), else "asm/kernels".  buf holds the
 * result when it is not 'given' or the environment's.
 */
const char *compile_kernel_dir(const char *given, char *buf, size_t n);

void compile_free(struct compiled *c);

#endif
