# gemm_mc.s - SPMD multi-core GEMM: C[M x N] (int32) = A[M x K] (int8) * B[K x N] (int8)
#
# Every core runs this program (SPMD).  Core c of n (csrr coreid, csrr
# ncores) computes the rows [c*R, min(M, c*R + R)) of C, R = ceil(M / n),
# weight-stationary as gemm.s does for the whole problem:
#
#   dma0  loads the core's rows of A  DRAM -> scratchpad   } semaphore 0,
#   dma1  loads all of B              DRAM -> scratchpad   } count 2
#   mtx   waits for both, walks the (n, k) folds over its MT rows, signals
#         semaphore 1
#   dma0  waits for it and writes the core's rows of C back to DRAM
#
# then `fence all` (its stores have landed) and `barrier` (every core's
# have), and halt.  A core whose first row is past M (more cores than
# rows) only takes part in the barrier.
#
# All cores share one DRAM: every core reads all of B and its own rows of
# A through it, so the loads contend, and n cores finish in more than
# 1/n of the single-core time.  Rows of C are disjoint between cores, so
# `--check-hazards` reports nothing.
#
# Parameters (-D NAME=VALUE): M, K, N, and ROWS, COLS (default: the array of
# the config assembled for, CFG_CORE_MATRIX_ROWS/_COLS).  Per core, K*N + R*K bytes of scratchpad and
# R*N*4 bytes of accumulator must fit.  With ideal memory the matrix
# engine of a core with MT rows is busy ceil(K/ROWS) * ceil(N/COLS) *
# (2*ROWS + COLS + MT - 2) cycles (docs/timing.md).

.include "lib/gemm_mc.inc"	# M, K, N, ROWS, COLS; the shared macros

# DRAM layout: A, then B, then C (64-byte aligned), shared by every core
# (the bases A_DRAM, B_DRAM, C_DRAM can be moved: lib/dram.inc).
.include "lib/dram.inc"
	dram_base A_DRAM, 0
	dram_base B_DRAM, (A_DRAM + M*K + 63) & ~63
	dram_base C_DRAM, (B_DRAM + K*N + 63) & ~63
	gemm_mc_layout gemm_mc.s

.text
	rbeg	gemm_mc			# this core's part, barrier included
	csrr	s0, coreid
	csrr	s1, ncores

	# ---- inputs: my rows of A on dma0, all of B on dma1 ----
	gemm_mc_rows sync
	li	t1, B_DRAM
	li	t2, SPM_B
	li	t3, K*N
	copy	1, t1, t2, dram, spm, 1, t3
	sig	dma0, 0
	sig	dma1, 0
	wait	mtx, 0, 2		# both copies landed
	gemm_mc_matmul

sync:
	fence	all			# my stores have landed ...
	barrier				# ... and everyone else's
	rend	gemm_mc
	halt
