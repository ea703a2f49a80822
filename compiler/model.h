/*
 * model.h - the model runner: a mapped model (compiler/map.h) run as
 * phases on one chip through the run library, layer by layer, each layer
 * a program region; per-layer statistics out.
 *
 *   struct run *r = run_new(&arch, &params, &d);
 *   struct model_result res;
 *   model_run(r, &arch, &g, &plan, &opts, &res, &d);   // values in/out: opts
 *   ... res.layers[i] ...
 *   model_result_free(&res);
 */
#ifndef NPU_MODEL_H
#define NPU_MODEL_H

#include <stdint.h>

#include "../run/run.h"
#include "map.h"

struct model_opts {
	const char *kernel_dir;   /* where the library's kernels are */
	int one_core;             /* every layer on core 0, the others idle */
	int values;               /* write constants and inputs, read outputs
				     (a run with values: run_params) */
	/* Graph inputs' values, fp32 in NCHW order, by input index (NULL:
	   zeros); set by the caller when values is on. */
	float *const *inputs;
	const char *emit_asm_dir; /* write every step's source here, or NULL */
	int upto;                 /* run the first upto layers only (0: all);
				     the graph outputs are then not read */
};

/* What one layer did, from its region's counters (all cores). */
struct model_layer_stats {
	uint64_t cycles;          /* from its first step's start to the end of
				     its last step */
	uint64_t compute_cycles;  /* matrix busy cycles, the busiest core (or
				     the vector unit's, for layers without
				     MACs) */
	uint64_t macs;            /* MACs of the layer's math (the plan's) */
	uint64_t array_macs;      /* MACs the arrays did: more when a kernel
				     computes padding (conv2d.s's wrapped
				     columns, partial tiles) */
	uint64_t dram_read, dram_write;   /* bytes */
	uint64_t stall_dram, stall_sram, stall_noc, stall_sync; /* cycles,
				     summed over units: DMA waiting for DRAM,
				     any unit for SRAM banks, DMA for the
				     NoC, control units for semaphores,
				     fences and barriers */
	double energy_pj;
	double mac_util;          /* macs / (cycles x peak MACs per cycle) */
	double map_eff;           /* macs / (matrix busy x R x C), busy
				     summed over cores: the useful fill of the
				     array while it works */
	double dram_gbps;
	/* Its roofline ceiling (compiler/explain.c; docs/models.md
	 * "Reading --explain"): */
	uint64_t model_macs;      /* the op's MACs from the graph (M x K x N,
				     padding never counted): macs */
	uint64_t compulsory_bytes;/* inputs, weights, outputs moved once */
	double ceiling;           /* cycles: max(compute at peak x quant,
				     compulsory bytes at the DRAM peak) */
	double pct_ceiling;       /* 100 x ceiling / cycles */
	double quant;             /* the array's tile quantisation (1 off
				     the array) */
	const char *bound;        /* what sets the ceiling: "array",
				     "vector", "dram" (static) */
	char why[112];            /* the largest shortfall the counters
				     show ("dram: 2.10x the compulsory
				     bytes; array shape 0.75") */
	const struct ctr_sink *s; /* the region's counters (merged over the
				     cores), owned by the result */
};

/* A pipelined run's stage: layers first..last on a partition. */
struct model_stage {
	int first, last;          /* plan layers */
	int base, cores;          /* its partition: cores base .. + cores-1 */
	double est;               /* the cost model's cycles per image
				     (what the cut balanced) */
	uint64_t busy;            /* cycles its programs ran, all images */
	uint64_t start, end;      /* its first launch, its last finish */
};

struct model_result {
	int n_layers;
	struct model_layer_stats *layers;  /* per plan layer */
	struct ctr_sink *sinks;            /* their counters (owned) */
	uint64_t cycles;                   /* the whole model */
	int batch;                         /* inferences per run (the caller's
					      --batch; 0 = 1): throughput and
					      energy per inference divide by it */
	uint64_t macs;
	double energy_pj;
	int n_outputs;
	float **outputs;                   /* with values: per graph output,
					      fp32 NCHW (owned); pipelined:
					      the images one after another */
	int n_stages;                      /* pipelined: stages, else 0 */
	struct model_stage *stages;        /* (owned) */
	uint64_t first_latency;            /* pipelined: image 0's cycles from
					      its first launch to its end */
	uint64_t mean_latency;             /* ... the mean over the images */
};

int model_run(struct run *r, const struct arch *a, const struct graph *g,
	      const struct map_plan *p, const struct model_opts *o,
	      struct model_result *res, struct diag *d) NPU_WUR;

/*
 * A pipelined run (docs/models.md, "Pipelining"): the layers cut into
 * n_stages stages (starts[i]: the first layer of stage i + 1, from the
 * user; NULL: cut by the cost model to balance them), each on a partition
 * of the cores (sim/chip.h), and 'images' images flowing through in one
 * phase: a stage starts image b when it has finished image b - 1 and the
 * stage before has signalled b over the NoC.  plans[b] is image b's plan
 * (map_opts.images/image: its own activation arena).  Values as
 * model_run's, o->inputs holding every image's one after another.
 */
struct model_pipe_opts {
	int n_stages;
	const int *starts;        /* n_stages - 1 layer indices, or NULL */
};
int model_run_pipeline(struct run *r, const struct arch *a,
		       const struct graph *g, const struct map_plan *plans,
		       int images, const struct model_opts *o,
		       const struct model_pipe_opts *po,
		       struct model_result *res, struct diag *d) NPU_WUR;
void model_result_free(struct model_result *res);

/*
 * int8 calibration (docs/models.md "int8"): run graph g in bf16 with
 * values on a chip of config a (inputs as model_opts.inputs, every
 * activation kept to the end), then put each tensor's max|x| in amax (by
 * graph tensor index; 0 for constants and integer tensors), for
 * map_opts.amax.  0, or NPU_E* with the reason in d.
 */
int model_calibrate(const struct arch *a, const struct graph *g,
		    float *const *inputs, const char *kernel_dir, float *amax,
		    struct diag *d) NPU_WUR;

/* The per-layer CSV (docs/formats.md "Per-layer CSV"); 0 or NPU_EIO. */
int model_write_csv(FILE *f, const struct graph *g, const struct map_plan *p,
		    const struct model_result *res, const struct arch *a);
/* The whole-model summary and the layer table, as `npusim model` prints. */
void model_print(FILE *f, const struct graph *g, const struct map_plan *p,
		 const struct model_result *res, const struct arch *a);
/* `npusim model --explain`: per layer its ceiling, cycles, % of the
 * ceiling, bound and why; the model's total. */
void model_print_explain(FILE *f, const struct graph *g,
			 const struct map_plan *p,
			 const struct model_result *res);

#endif
