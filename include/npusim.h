/*
 * npusim.h - the public C API of libnpusim: configs, programs, tensors,
 * runs, counters (docs/api.md).
 *
 *   npusim_config *cfg;
 *   npusim_run *r;
 *   char *err = NULL;
 *
 *   if (npusim_config_load("configs/default.cfg", NULL, 0, &cfg, &err)) ...
 *   r = npusim_run_new(cfg, NULL, &err);
 *   npusim_load_file(r, "gemm.s", defines, n_defines);
 *   npusim_write(r, "A", 0, a, sizeof(a));
 *   npusim_go(r, &res);
 *   npusim_read(r, "C", 0, c, sizeof(c));
 *   npusim_counter(r, "cycles", &v);
 *   npusim_run_free(r);
 *   npusim_config_free(cfg);
 *
 * Errors are values: every function that can fail returns 0 or a negative
 * NPUSIM_E* code, and the message - the same text `npusim` prints, with
 * its file:line, or core, pc and cycle, and notes - is kept in the run
 * (npusim_error) or handed back in *err (malloc'ed, free with
 * npusim_free).  Nothing is printed and nothing exits.  There is no
 * global state: any number of configs and runs may live in one process,
 * and two runs never share anything but the config (read only).
 */
#ifndef NPUSIM_H
#define NPUSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPUSIM_VERSION_MAJOR 0
#define NPUSIM_VERSION_MINOR 1
#define NPUSIM_VERSION_PATCH 0

/* Error codes (negative return values). */
enum npusim_error {
	NPUSIM_OK = 0,
	NPUSIM_EINVAL = -1,   /* bad argument (NULL, unknown name, wrong size) */
	NPUSIM_ECONFIG = -2,  /* the config does not load or validate */
	NPUSIM_EASM = -3,     /* the program does not assemble or load */
	NPUSIM_ETENSOR = -4,  /* a tensor's data does not fit its declaration */
	NPUSIM_ERUN = -5,     /* the run faulted, deadlocked or timed out */
	NPUSIM_ENOMEM = -6,   /* out of memory */
	NPUSIM_EIO = -7       /* a file could not be read or written */
};

/* The message of an error code ("out of memory"; "unknown error" for a
 * code that is not one). */
const char *npusim_strerror(int code);

/* Element types: the ids of docs/isa.md "Data types". */
enum npusim_dtype {
	NPUSIM_INT4 = 0, NPUSIM_INT8 = 1, NPUSIM_INT16 = 2, NPUSIM_INT32 = 3,
	NPUSIM_FP8E4M3 = 4, NPUSIM_FP8E5M2 = 5, NPUSIM_FP16 = 6,
	NPUSIM_BF16 = 7, NPUSIM_FP32 = 8
};

/* A type's name ("bf16"), NULL for an id that is none. */
const char *npusim_dtype_name(int dtype);

typedef struct npusim_config npusim_config;
typedef struct npusim_run npusim_run;
typedef struct npusim_model npusim_model;

/* "0.1.0". */
const char *npusim_version(void);
/* Free a string the library handed out (*err, npusim_config_dump). */
void npusim_free(void *p);

/* ---- configs --------------------------------------------------------- */

/*
 * Load a config: the built-in defaults, then the file PATH (NULL: none),
 * then the overrides "key=value" in order (as `-s`).  _parse takes the
 * config's text instead of a file; NAME labels its messages ("<string>"
 * when NULL).  On failure *err (if err is not NULL) receives the messages.
 */
int npusim_config_load(const char *path, const char *const *overrides, size_t n_overrides,
		       npusim_config **out, char **err);
int npusim_config_parse(const char *text, const char *name, const char *const *overrides,
			size_t n_overrides, npusim_config **out, char **err);
void npusim_config_free(npusim_config *cfg);
/* A derived peak of the chip by name, as the counters file's "# peak"
 * lines (arch/peaks.def: macs_per_s_chip, dram_bytes_per_s, ...;
 * macs_per_s_<type> per matrix input type), and clock_ghz and cores.
 * npusim_peak_name(k) lists every name for k = 0, 1, ... (NULL past the
 * last). */
int npusim_config_peak(const npusim_config *cfg, const char *name, double *value);
const char *npusim_peak_name(int k);
/* The resolved config as `npusim config --dump` prints it (malloc'ed). */
int npusim_config_dump(const npusim_config *cfg, char **text);

/* ---- runs ------------------------------------------------------------- */

struct npusim_run_opts {
	int timing_only;          /* compute no tensor values (docs/performance.md) */
	int check_hazards;        /* report unordered unit accesses as errors */
	uint64_t max_cycles;      /* watchdog; 0 = none */
};

/* A run owns one chip built from cfg (which must outlive it); opts NULL =
 * all zero. */
npusim_run *npusim_run_new(const npusim_config *cfg, const struct npusim_run_opts *opts,
			   char **err);
void npusim_run_free(npusim_run *r);
/* The messages of the last failed call on r ("" when none). */
const char *npusim_error(const npusim_run *r);

/*
 * Programs into every core: _source assembles TEXT (NAME labels it),
 * _file assembles a .s file or loads an object file.  DEFINES are "NAME"
 * or "NAME=VALUE" (as -D), after the config's CFG_* symbols; INCLUDES are
 * the .include search directories (as -I), searched after the including
 * file's own directory.
 */
int npusim_load_source(npusim_run *r, const char *name, const char *text,
		       const char *const *defines, size_t n_defines,
		       const char *const *includes, size_t n_includes);
int npusim_load_file(npusim_run *r, const char *path, const char *const *defines,
		     size_t n_defines, const char *const *includes, size_t n_includes);

/* A tensor of the loaded program (core: for per-core memories). */
struct npusim_tensor {
	int dtype;                /* enum npusim_dtype */
	int ndim;
	uint64_t shape[8];
	uint64_t bytes;           /* its storage size (int4: two per byte) */
	int space;                /* 0 dram, 1 spm, 2 acc, 4 data */
	uint64_t addr;
};
int npusim_tensor_info(npusim_run *r, const char *name, int core, struct npusim_tensor *t);
/* Number of tensors of core's program and the i-th one's name. */
int npusim_tensor_count(npusim_run *r, int core);
const char *npusim_tensor_name(npusim_run *r, int core, int i);

/*
 * Tensor data: _write/_read copy the raw storage bytes (little-endian
 * elements of the tensor's dtype; bytes must equal its size).  _write_npy
 * takes a whole .npy file image in memory and converts it by the rules of
 * `--input` (docs/formats.md: a float32 array into a bf16 tensor rounds to
 * nearest even, ...); _zero clears the tensor.
 */
int npusim_write(npusim_run *r, const char *name, int core, const void *data, size_t bytes);
int npusim_read(npusim_run *r, const char *name, int core, void *data, size_t bytes);
int npusim_write_npy(npusim_run *r, const char *name, int core, const void *npy, size_t bytes);
int npusim_zero(npusim_run *r, const char *name, int core);
/* The tensor widened to host types: fp8, fp16 and bf16 as float (exact),
 * int4 as int8; other types as stored.  n elements (the tensor's count). */
int npusim_read_f32(npusim_run *r, const char *name, int core, float *out, size_t n);
int npusim_read_i8(npusim_run *r, const char *name, int core, int8_t *out, size_t n);

/* The outcome of npusim_go. */
struct npusim_result {
	uint64_t cycles;          /* cycle at which the last core finished */
	uint64_t events;          /* engine events dispatched */
	int hazards;              /* hazards found (check_hazards) */
	int paused;               /* npusim_go_until stopped at its cycle */
};
/* Run the loaded programs to the end. */
int npusim_go(npusim_run *r, struct npusim_result *res);
/* Run until cycle CYCLE has been simulated (or the end, if earlier);
 * res->paused says it stopped early, and the next _go or _go_until goes
 * on from there exactly as an uninterrupted run would. */
int npusim_go_until(npusim_run *r, uint64_t cycle, struct npusim_result *res);

/*
 * Counters after a run, as the CLI's --counters file has them (docs/
 * counters.md): by name ("cycles", "core0.matrix.macs", ...), or all of
 * them by index (names valid until the next call on r).
 */
int npusim_counter(npusim_run *r, const char *name, double *value);
int npusim_counter_count(npusim_run *r);
int npusim_counter_get(npusim_run *r, int i, const char **name, double *value,
		       const char **unit);

/* Regions (rbeg/rend) after a run: count, then each one's name, core,
 * entries and cycles. */
int npusim_region_count(npusim_run *r);
int npusim_region_get(npusim_run *r, int i, const char **name, int *core, uint64_t *entries,
		      uint64_t *cycles);

/* ---- models ----------------------------------------------------------- */

/*
 * A whole model (docs/models.md), as `npusim model` runs it: an ONNX file
 * (any exporter) or a SCALE-Sim topology CSV, imported, mapped onto the
 * kernel library for the config's chip and run layer by layer (or
 * pipelined), each layer a region.
 *
 *   npusim_model *m;
 *   npusim_model_load(cfg, "resnet50.onnx", &opts, &m, &err);
 *   npusim_model_write(m, "input", x, n);       // fp32, the model's layout
 *   npusim_model_go(m, &res);
 *   npusim_model_read(m, "output", y, n);
 *   npusim_model_layer_get(m, 0, &layer);       // per-layer statistics
 *   npusim_counter(npusim_model_run(m), "cycles", &v);
 *   npusim_model_free(m);
 */
struct npusim_model_opts {
	int dtype;                /* NPUSIM_INT8 or NPUSIM_BF16; -1: by the
				     chip's core.matrix.in_type */
	int batch;                /* inputs at once; 0: the model's one */
	int pipeline;             /* stages of a pipelined run; 0: none */
	int one_core;             /* every layer on core 0 */
	int no_fuse;              /* activations and adds stay layers */
	int calibrate;            /* int8 formats from a bf16 run on the
				     inputs of the first go */
	int timing_only;          /* compute no values (identical cycles) */
	int tuned;                /* each tunable layer's schedule from the
				     tuner's cache (`npusim tune`, `npusim
				     model --tune`), else the kernels' own */
	uint64_t max_cycles;      /* watchdog per layer step; 0 = none */
	const char *kernels;      /* the kernel library; NULL: $NPUSIM_KERNELS,
				     else next to the running program */
};

/* Import and check a model for cfg's chip (which must outlive it); opts
 * NULL = all zero but dtype -1.  On failure *err gets the messages. */
int npusim_model_load(const npusim_config *cfg, const char *path,
		      const struct npusim_model_opts *opts, npusim_model **out,
		      char **err);
void npusim_model_free(npusim_model *m);
/* The messages of the last failed call on m ("" when none). */
const char *npusim_model_error(const npusim_model *m);

/*
 * The graph's inputs (output 0) or outputs (1): how many, and each one's
 * name and shape (ndim dimensions into shape[8]).  Values are fp32 in the
 * model's layout, a pipelined batch's images one after another along
 * dimension 0.
 */
int npusim_model_io_count(npusim_model *m, int output);
int npusim_model_io_get(npusim_model *m, int output, int i, const char **name, int *ndim,
			int64_t shape[8]);
/* An input's values (n: its element count); until written, uniform in
 * [-1, 1) from a fixed seed, as `npusim model` without --input. */
int npusim_model_write(npusim_model *m, const char *name, const float *v, size_t n);
/* Map (on the first go) and run the model on a new chip: res->cycles is
 * the whole model's; the run's counters and regions (one per layer) are
 * then read through npusim_model_run(m) with the run calls above. */
int npusim_model_go(npusim_model *m, struct npusim_result *res);
/* An output's values after a go with values (n: its element count). */
int npusim_model_read(npusim_model *m, const char *name, float *v, size_t n);
/* The run of the last go, for npusim_counter* and npusim_region*. */
npusim_run *npusim_model_run(npusim_model *m);

/* One layer of the last go (the columns of `npusim model --layers`). */
struct npusim_layer {
	const char *name;         /* the layer's first node */
	const char *op;           /* the fused ops, "Conv+BatchNormalization+Relu" */
	const char *kernels;      /* "conv2d.s" or "conv2d.s+eltwise.s" */
	const char *tiling;       /* the schedule's parameters */
	const char *shapes;       /* "1x3x224x224 -> 1x64x112x112" */
	uint64_t cycles;          /* its phases, first start to last end */
	uint64_t compute_cycles;  /* the busiest core's matrix (or vector) busy */
	uint64_t macs;            /* MACs of its math */
	uint64_t dram_read, dram_write;   /* bytes */
	double mac_util;          /* macs over cycles x the chip's peak */
	double map_eff;           /* macs over matrix busy x rows x cols */
	double energy_pj;
	/* its roofline ceiling (docs/models.md "Reading --explain") */
	uint64_t model_macs;      /* the op's MACs, padding never counted (=
				     macs) */
	uint64_t array_macs;      /* MACs the arrays did (padded work
				     included: matrix.macs) */
	uint64_t compulsory_bytes;/* inputs, weights, outputs moved once */
	double ceiling_cycles;    /* max(compute at peak x tile quantisation,
				     compulsory bytes at the DRAM peak) */
	double pct_of_ceiling;    /* 100 x ceiling_cycles / cycles */
	const char *bound;        /* "array", "vector" or "dram" */
	const char *why;          /* the largest shortfall, as --explain */
};
int npusim_model_layer_count(npusim_model *m);
int npusim_model_layer_get(npusim_model *m, int i, struct npusim_layer *layer);

#ifdef __cplusplus
}
#endif

#endif
