/*
 * model_int.h - what the model runners share (compiler/model.c runs the
 * layers one after another on the whole chip, compiler/pipeline.c runs
 * them as a pipeline of partitions).  Not an interface for anyone else.
 */
#ifndef NPU_MODEL_INT_H
#define NPU_MODEL_INT_H

#include "model.h"
#include "../report/ceiling.h"

/* The region of layer l: "L<index> <name>" (printable, no quotes). */
void model_region_name(const struct map_layer *L, int l, char *buf, size_t n);
/* Step s's source with the layer's region opened before the kernel (it
 * closes when the core halts); malloc'd, NULL if out of memory. */
char *model_step_source(const struct map_layer *L, int l, int s, size_t *len);
/* --emit-asm: the step's source as DIR/L<i>_<name>.<s>.s. */
int model_write_asm(const char *dir, const struct map_layer *L, int l, int s,
		    const char *text, size_t len, struct diag *d) NPU_WUR;
/* The regions named rn merged into out: each core's own counters, and the
 * chip-level ones (DRAM, NoC) once unless own_only.  0 or NPU_ENOMEM. */
int model_merge_regions(const struct ctr_region *v, size_t n, const char *rn,
			int own_only, struct ctr_sink *out) NPU_WUR;
/* A layer's statistics from st->s and its cycles.  share 0: the layer
 * had the chip to itself; else the fraction of the cores it ran on, while
 * other layers ran on the rest (DRAM bytes from its own DMA engines,
 * static energy its share). */
void model_layer_stats(struct model_layer_stats *st, const struct arch *a,
		       uint64_t cycles, double share);
/* Layer l's work as the ceiling sees it (report/ceiling.h): the op's
 * MACs and GEMM shape, or its vector operations, and its compulsory DRAM
 * bytes, over 'images' images (a pipeline's; the weights once).  cores
 * is left 0. */
void model_layer_work(const struct graph *g, const struct map_plan *p, int l,
		      int images, struct ceil_work *w);
/* st's ceiling fields from that work on 'cores' cores and st's cycles
 * and counters (st->s).  The caller has run model_layer_stats. */
void model_layer_ceiling(struct model_layer_stats *st, const struct arch *a,
			 const struct graph *g, const struct map_plan *p,
			 int l, int cores, int images);

#endif
