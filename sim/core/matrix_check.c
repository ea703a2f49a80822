/*
 * matrix_check.c - what the matrix engine knows of an instruction before
 * it is placed: the command checked against the array, the memories and
 * the program-order state (the resident stationary tile), and turned into
 * its streams of row accesses and its interval length T (matrix.c's top
 * comment and docs/timing.md give the timing each dataflow follows).
 *
 * Invariants: a command that passes mtx_insn_build touches only rows
 * inside its memories, aligned to its element size, on an array that can
 * hold its tile; every fault names the pc, the cycle, the operand and the
 * rule broken ("core N pc 0x.. cycle N: error: matrix: ...") and ends the
 * run with NPU_EFAULT.  A stream's lead (the slack of its rows) is
 * computed once here from the rows the banks will really see.
 */
#include "matrix_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/*
 * Dataflow names for messages and trace args.  control.c seeds mset df
 * with the index of core.matrix.dataflow, so the config's value list and
 * the ISA's numbering must agree.
 */
const char *const mtx_df_names[] = {
	[MTX_WS] = "ws", [MTX_OS] = "os", [MTX_IS] = "is",
};
_Static_assert((int)MTX_ACT_RELU == (int)ISA_CONST_RELU &&
		       (int)MTX_ACT_GELU == (int)ISA_CONST_GELU &&
		       (int)MTX_ACT_SILU == (int)ISA_CONST_SILU &&
		       (int)MTX_FUSE_BIAS == (int)ISA_CONST_OBIAS &&
		       (int)MTX_FUSE_CHAN == (int)ISA_CONST_OCHAN,
	       "mout's activations and fuse bits are the ISA's constants");
_Static_assert((int)ARCH_MTX_DATAFLOW_WS == MTX_WS &&
		       (int)ARCH_MTX_DATAFLOW_OS == MTX_OS &&
		       (int)ARCH_MTX_DATAFLOW_IS == MTX_IS &&
		       ARCH_N_MTX_DATAFLOW == 3,
	       "core.matrix.dataflow values must be the mset df values");
const char *const mtx_kind_names[] = {
	[MTX_PRELOAD] = "mpre", [MTX_MUL] = "mmul", [MTX_MUL_ACC] = "mmacc",
	[MTX_OUT] = "mout",
};

/*
 * SCALE-Sim's cycles per fold, for tests and reports.  This is the model
 * the engine reproduces; the engine itself never uses it: its timing comes
 * from the per-instruction intervals built in mtx_insn_build (mpre R + mmul
 * M+R+C-2 adds up to the WS figure), and in the pe model from the data.
 */
uint64_t mtx_fold_cycles(int df, uint32_t rows, uint32_t cols, uint32_t m,
			 uint32_t k, uint32_t n)
{
	uint64_t R = rows, C = cols;

	switch (df) {
	case MTX_WS:
		return 2 * R + C + m - 2;
	case MTX_IS:
		return 2 * R + C + n - 2;
	default:
		return (uint64_t)k + R + C - 2;
	}
}

static int fault(struct mtx *m, const struct tile_cmd *c, const char *fmt,
		 ...) NPU_PRINTF(3, 4);

/*
 * Report a runtime fault of this unit at the command's pc.
 * Without a diag (unit tests) the message is dropped but the fault
 * still ends the run (NPU_EFAULT, exit status 3).
 */
static int fault(struct mtx *m, const struct tile_cmd *c, const char *fmt,
		 ...)
{
	struct diag *d = eng_diag(m->u.eng);
	char msg[320];
	va_list ap;

	if (!d)
		return NPU_EFAULT;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_error(d, diag_at_run(m->u.core, c->pc, eng_now(m->u.eng)),
			  NPU_EFAULT, "matrix: %s", msg);
}

/*
 * Slack of a stream's rows: SRAM latency plus the cycles its widest row
 * needs alone, minus one.  Rows repeat their bank alignment with period
 * banks*width/gcd(stride, banks*width), so at most that many are examined.
 */
static uint32_t stream_lead(const struct mem_port *p, uint64_t addr,
			    uint64_t stride, uint32_t n, uint32_t bytes)
{
	struct mem_info mi;
	uint64_t span, a, b, period, r;
	uint32_t worst = 0;

	mem_info(p, &mi);
	/* A target without a bank period: every row may differ. */
	span = mi.period ? mi.period : UINT64_MAX;
	a = stride % span;
	b = span;

	while (a) {
		uint64_t t = b % a;

		b = a;
		a = t;
	}
	/*
	 * Example: 8 banks x 16 B (span 128), stride 64: gcd 64, period 2:
	 * row r + 2 sits in the same banks as row r (64-byte rows at 0x0
	 * alternate between banks 0-3 and 4-7), so two rows give the worst
	 * case for any n.
	 */
	period = span / b; /* b = gcd(stride, span) (gcd(0, span) = span) */
	for (r = 0; r < n && r < period; r++) {
		uint32_t c = mem_alone_cycles(p, addr + r * stride, bytes);

		if (c > worst)
			worst = c;
	}
	return (uint32_t)mi.latency + worst - 1;
}

/*
 * Describe one stream of row accesses (see struct mtx_stream).  The lead is
 * computed once per stream from the actual rows, so that the prefetch
 * distance and the write slack match what the banks can really deliver.
 */
static void stream_set(struct mtx *m, struct mtx_stream *s, int mem,
		       int write, int req, uint32_t n, int rev, int64_t first,
		       uint64_t addr, uint32_t stride, uint32_t bytes)
{
	memset(s, 0, sizeof(*s));
	s->mem = mem;
	s->write = write;
	s->req = req;
	s->n = n;
	s->rev = rev;
	s->first = first;
	s->per = 1;
	s->g = 1;
	s->nops = n;
	s->addr = addr;
	s->stride = stride ? stride : bytes; /* 0 = dense rows */
	s->bytes = bytes;
	s->lead = stream_lead(&m->port[req], addr, s->stride, n, bytes);
}

/*
 * A packed array takes p rows of an operand stream per cycle.  Dense rows
 * (stride = row bytes) are adjacent, so the p rows are one wider access;
 * strided rows stay separate accesses, p per cycle, which one requestor
 * serves one after another: the array then stalls (docs/timing.md
 * "Packed inputs").  A grouped stream issues in forward order even when
 * rev (a preload's rows all land before the tile is used).
 */
static void stream_pack(struct mtx *m, struct mtx_stream *s, uint32_t p)
{
	if (p <= 1)
		return;
	if (s->stride == s->bytes) {
		s->g = p;
		s->nops = (s->n + p - 1) / p;
		s->lead = stream_lead(&m->port[s->req], s->addr,
				      (uint64_t)s->stride * p, s->nops,
				      s->bytes * p);
	} else {
		s->per = p;
	}
}

/* Element alignment of a type in memory (int4: bytes). */
static unsigned type_align(int t)
{
	int b = dtype_bits((enum npu_dtype)t);

	return b < 8 ? 1u : (unsigned)(b / 8);
}

/*
 * Range and alignment of every row of a stream, or a fault.
 * extent covers first row start .. last row end; an accumulator stream
 * has 4-byte words, so its stride must be a multiple of 4 (align).
 */
static int stream_check(struct mtx *m, const struct tile_cmd *c,
			const struct mtx_stream *s, const char *what,
			unsigned align)
{
	uint64_t extent = (uint64_t)(s->n - 1) * s->stride + s->bytes;
	char who[96];

	if (align > 1 && s->stride % align)
		return fault(m, c, "%s %s: row stride %llu is not a multiple of the %u-byte element size",
			     mtx_kind_names[c->u.m.kind], what,
			     (unsigned long long)s->stride, align);
	snprintf(who, sizeof(who), "matrix: %s %s (%u rows of %u bytes, stride %llu)",
		 mtx_kind_names[c->u.m.kind], what, s->n, s->bytes,
		 (unsigned long long)s->stride);
	return mem_check(&m->port[s->req], eng_diag(m->u.eng), who, c->pc,
			 s->addr, extent, align);
}

/* Input types the multipliers take: every dtype except int32. */
static int type_ok_in(int t)
{
	return t >= 0 && t < DT_N && t != DT_INT32;
}

/*
 * Check a command against the array and the program-order state, and build
 * its streams and interval length.  Faults name the pc, the cycle, the
 * operand and the rule broken.
 */
int mtx_insn_build(struct mtx *m, struct mtx_insn *in)
{
	const struct tile_cmd *c = &in->cmd;
	const struct mtx_cmd *mc = &c->u.m;
	const struct mtx_cfg *f = &mc->cfg;
	uint32_t R = m->rows, C = m->cols, P = m->pipe;
	uint32_t M = f->m, K = f->k, N = f->n;
	int in_t = f->in_type, acc_t = f->acc_type, rc;
	unsigned ia, aa = 4;
	uint32_t pk, Kc;
	uint64_t KR;

	in->kind = mc->kind;
	in->df = f->dataflow;
	in->in_type = in_t;
	in->acc_type = acc_t;
	in->m = M;
	in->k = K;
	in->n = N;
	in->w_st = -1;
	if (mc->kind < MTX_PRELOAD || mc->kind > MTX_OUT)
		return fault(m, c, "unknown command kind %d", (int)mc->kind);
	if (f->dataflow < 0 || f->dataflow >= ISA_N_DATAFLOWS) {
		char dfs[64];

		return fault(m, c, "%s: dataflow %d is not %s", mtx_kind_names[mc->kind],
			     f->dataflow, isa_dataflow_list(dfs, sizeof(dfs)));
	}
	if (acc_t != DT_INT32 && acc_t != DT_FP32)
		return fault(m, c, "%s: accumulator type %d must be int32 or fp32",
			     mtx_kind_names[mc->kind], acc_t);
	if (M == 0 || N == 0 || (K == 0 && mc->kind != MTX_OUT))
		return fault(m, c, "%s: empty tile M=%u K=%u N=%u (set M, K and N with mset)",
			     mtx_kind_names[mc->kind], M, K, N);

	if (mc->kind == MTX_OUT) {
		uint32_t rows = in->df == MTX_IS ? N : M;
		uint32_t cols = in->df == MTX_IS ? M : N;
		int ot = f->out_type;

		if (ot < 0 || ot >= DT_N)
			return fault(m, c, "mout: output type %d is not a dtype id", ot);
		if (f->out_act < 0 || f->out_act >= MTX_N_ACTS)
			return fault(m, c, "mout: activation %d is not 0 (none), 1 (relu), 2 (gelu) or 3 (silu)",
				     f->out_act);
		if (f->out_fuse & ~(uint32_t)MTX_FUSE_ALL)
			return fault(m, c, "mout: ofuse %u has bits other than obias (1) and ochan (2)",
				     f->out_fuse);
		in->path = MTX_PATH_OUT;
		in->n_st = 2;
		if (f->out_fuse) {
			/*
			 * The per-column parameters (one entry per output
			 * channel n: the columns, or in IS the stored rows)
			 * are one row read into the output stage's registers
			 * alongside accumulator row 0.
			 */
			in->n_st = 3;
			stream_set(m, &in->st[2], MEM_SPM, 0, MTX_REQ_OUT, 1, 0, 0,
				   f->out_par, 0,
				   N * mtx_mout_entry_bytes(f->out_fuse));
			if ((rc = stream_check(m, c, &in->st[2],
					       "per-column parameter table", 4)))
				return rc;
		}
		stream_set(m, &in->st[0], MEM_ACC, 0, MTX_REQ_ACC, rows, 0, 0,
			   mc->c, f->c_stride, 4 * cols);
		stream_set(m, &in->st[1], MEM_SPM, 1, MTX_REQ_OUT, rows, 0, 1,
			   mc->d, f->out_stride, mtx_row_bytes(ot, cols));
		in->w_st = 1;
		/*
		 * Row r is read at r (event r, deadline r) and its requantised
		 * row written at r + 1 (stream first = 1): T = rows + 1.
		 */
		in->t = (cycle_t)rows + 1;
		if ((rc = stream_check(m, c, &in->st[0], "accumulator source", aa)))
			return rc;
		return stream_check(m, c, &in->st[1], "scratchpad destination",
				    type_align(ot));
	}

	if (!type_ok_in(in_t))
		return fault(m, c, "%s: input type %d is not one of int4, int8, int16, fp8e4m3, fp8e5m2, fp16, bf16, fp32",
			     mtx_kind_names[mc->kind], in_t);
	if (dtype_is_float((enum npu_dtype)in_t) != (acc_t == DT_FP32))
		return fault(m, c, "%s: %s inputs need a%s accumulator, not %s",
			     mtx_kind_names[mc->kind],
			     dtype_name((enum npu_dtype)in_t),
			     dtype_is_float((enum npu_dtype)in_t) ? "n fp32"
								  : "n int32",
			     dtype_name((enum npu_dtype)acc_t));
	ia = type_align(in_t);
	/*
	 * A packed array (core.matrix.macs_per_pe.<type> = pk) takes pk
	 * consecutive k per PE and cycle: a stationary tile holds K <= pk R
	 * rows, and pk operand rows enter per cycle (docs/timing.md "Packed
	 * inputs").  The per-PE reference model does one MAC per PE.
	 */
	pk = m->pack[in_t];
	KR = (uint64_t)pk * R;
	Kc = (K + pk - 1) / pk;
	if (pk > 1 && m->be != &mtx_fast_backend)
		return fault(m, c, "%s: %s packs %u MACs per PE (core.matrix.macs_per_pe.%s); the per-PE model (core.matrix.model = pe) does one: use the fast model",
			     mtx_kind_names[mc->kind],
			     dtype_name((enum npu_dtype)in_t), pk,
			     dtype_name((enum npu_dtype)in_t));

	if (mc->kind == MTX_PRELOAD) {
		/* WS holds B (K x N) and IS A^T (K x M): K on the rows */
		uint32_t cols = in->df == MTX_WS ? N : M;

		if (in->df == MTX_OS)
			return fault(m, c, "mpre in the output-stationary dataflow: OS streams both operands (no stationary operand to preload)");
		if (K > KR || cols > C)
			return fault(m, c, "mpre (%s): stationary tile of K=%u rows x %s=%u exceeds the %ux%u array (K<=%llu, %s<=%u)",
				     mtx_df_names[in->df], K,
				     in->df == MTX_WS ? "N" : "M", cols, R,
				     C, (unsigned long long)KR,
				     in->df == MTX_WS ? "N" : "M", C);
		in->path = m->db ? MTX_PATH_WEIGHT : MTX_PATH_COMPUTE;
		in->n_st = 1;
		/*
		 * Row k enters the top at R-1-k: rows issue K-1 first.
		 * rev: op i is row K-1-i at event (R-K) + i, i.e. row k at
		 * R-1-k; a tile with K < R still takes R cycles (the rows
		 * must shift down to array rows 0..K-1 from the top).
		 */
		stream_set(m, &in->st[0], MEM_SPM, 0, MTX_REQ_TOP, K, 1,
			   (int64_t)R - Kc, mc->a,
			   in->df == MTX_WS ? f->b_stride : f->a_stride,
			   mtx_row_bytes(in_t, cols));
		stream_pack(m, &in->st[0], pk);
		in->t = R;
		return stream_check(m, c, &in->st[0], "stationary operand", ia);
	}

	/*
	 * MTX_MUL / MTX_MUL_ACC.  The interval is one fold's stream phase:
	 * the preload (if any) was its own instruction, so mpre + mmul adds
	 * up to SCALE-Sim's fold.
	 */
	in->path = MTX_PATH_COMPUTE;
	switch (in->df) {
	case MTX_WS:
		/*
		 * A row m enters the left skew buffer at m; its sums leave
		 * the de-skew buffer once column C-1 has them, R-1 rows and
		 * C-1 columns later: C row m at m + R + C - 2 (+P).
		 */
		if (K > KR || N > C)
			return fault(m, c, "%s (ws): K=%u x N=%u weights exceed the %ux%u array (K<=%llu, N<=%u)",
				     mtx_kind_names[mc->kind], K, N, R, C,
				     (unsigned long long)KR, C);
		in->n_st = 2;
		stream_set(m, &in->st[0], MEM_SPM, 0, MTX_REQ_LEFT, M, 0, 0,
			   mc->a, f->a_stride, mtx_row_bytes(in_t, K));
		stream_set(m, &in->st[1], MEM_ACC, 1, MTX_REQ_ACC, M, 0,
			   (int64_t)R + C - 2 + P, mc->c, f->c_stride, 4 * N);
		in->w_st = 1;
		in->t = (cycle_t)M + R + C - 2 + P;
		break;
	case MTX_IS:
		/* WS with the roles swapped: B^T rows stream, A^T is
		 * stationary, C^T rows leave (one per column n of B). */
		if (K > KR || M > C)
			return fault(m, c, "%s (is): K=%u x M=%u stationary inputs exceed the %ux%u array (K<=%llu, M<=%u)",
				     mtx_kind_names[mc->kind], K, M, R, C,
				     (unsigned long long)KR, C);
		in->n_st = 2;
		stream_set(m, &in->st[0], MEM_SPM, 0, MTX_REQ_LEFT, N, 0, 0,
			   mc->b, f->b_stride, mtx_row_bytes(in_t, K));
		stream_set(m, &in->st[1], MEM_ACC, 1, MTX_REQ_ACC, N, 0,
			   (int64_t)R + C - 2 + P, mc->c, f->c_stride, 4 * M);
		in->w_st = 1;
		in->t = (cycle_t)N + R + C - 2 + P;
		break;
	default: /* MTX_OS */
		/*
		 * A^T row k and B row k enter at k (the skew buffers delay
		 * element i by i); PE (i, j) takes product k at k+i+j, so
		 * row i is final when PE (i, C-1) takes product K-1, at
		 * K-1+i+C-1.  With os_drain, rows instead leave through the
		 * bottom after the last product, the bottom one first
		 * (hence rev: the stream's op j is row M-1-j).
		 */
		if (M > R || N > C)
			return fault(m, c, "%s (os): output tile M=%u x N=%u exceeds the %ux%u array (M<=%u, N<=%u)",
				     mtx_kind_names[mc->kind], M, N, R, C, R, C);
		in->n_st = 3;
		stream_set(m, &in->st[0], MEM_SPM, 0, MTX_REQ_LEFT, K, 0, 0,
			   mc->a, f->a_stride, mtx_row_bytes(in_t, M));
		stream_set(m, &in->st[1], MEM_SPM, 0, MTX_REQ_TOP, K, 0, 0,
			   mc->b, f->b_stride, mtx_row_bytes(in_t, N));
		stream_pack(m, &in->st[0], pk); /* K rows in Kc cycles */
		stream_pack(m, &in->st[1], pk);
		/*
		 * rev: op j is row M-1-j at event K+2R+C-2-M+j (+P),
		 * i.e. row i at K+R+C-2+(R-1-i)+P (docs/timing.md
		 * instruction table, os_drain row).
		 */
		if (m->os_drain)
			stream_set(m, &in->st[2], MEM_ACC, 1, MTX_REQ_ACC, M, 1,
				   (int64_t)Kc + 2 * (int64_t)R + C - 2 - M + P,
				   mc->c, f->c_stride, 4 * N);
		else
			stream_set(m, &in->st[2], MEM_ACC, 1, MTX_REQ_ACC, M, 0,
				   (int64_t)Kc + C - 2 + P, mc->c, f->c_stride,
				   4 * N);
		in->w_st = 2;
		in->t = (cycle_t)Kc + R + C - 2 + P + (m->os_drain ? R : 0);
		break;
	}
	if ((rc = stream_check(m, c, &in->st[0],
			       in->df == MTX_IS ? "B^T operand" :
			       in->df == MTX_OS ? "A^T operand" : "A operand",
			       ia)))
		return rc;
	if (in->df == MTX_OS &&
	    (rc = stream_check(m, c, &in->st[1], "B operand", ia)))
		return rc;
	if ((rc = stream_check(m, c, &in->st[in->w_st],
			       in->df == MTX_IS ? "C^T result" : "C result",
			       aa)))
		return rc;

	if (in->df != MTX_OS) {
		/* The stationary operand must be the resident tile. */
		struct mtx_tile *t = m->cur_tile;
		uint64_t want = in->df == MTX_WS ? mc->b : mc->a;
		uint32_t cols = in->df == MTX_WS ? N : M;

		if (!t)
			return fault(m, c, "%s (%s) without a preceding mpre: no stationary tile is loaded",
				     mtx_kind_names[mc->kind],
				     mtx_df_names[in->df]);
		/* x0 (address 0) means "the resident tile". */
		if (want != 0 && want != t->addr)
			return fault(m, c, "%s (%s): stationary operand %s=0x%llx is not the preloaded tile at 0x%llx (missing mpre?)",
				     mtx_kind_names[mc->kind], mtx_df_names[in->df],
				     in->df == MTX_WS ? "B" : "A",
				     (unsigned long long)want,
				     (unsigned long long)t->addr);
		if (t->df != in->df || t->type != in_t || t->rows != K ||
		    t->cols != cols)
			return fault(m, c, "%s (%s, %s, K=%u, %s=%u) does not match the preloaded tile (%s, %s, K=%u, %s=%u)",
				     mtx_kind_names[mc->kind], mtx_df_names[in->df],
				     dtype_name((enum npu_dtype)in_t), K,
				     in->df == MTX_WS ? "N" : "M", cols,
				     mtx_df_names[t->df],
				     dtype_name((enum npu_dtype)t->type),
				     t->rows, t->df == MTX_WS ? "N" : "M",
				     t->cols);
	}
	return 0;
}
