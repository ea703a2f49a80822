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

.ifndef M
.equ M, 128
.endif
.ifndef K
.equ K, 64
.endif
.ifndef N
.equ N, 64
.endif
.ifndef ROWS
.equ ROWS, CFG_CORE_MATRIX_ROWS	# the config's array (npusim run -c, as -c)
.endif
.ifndef COLS
.equ COLS, CFG_CORE_MATRIX_COLS
.endif

# DRAM layout: A, then B, then C (64-byte aligned), shared by every core
# (the bases A_DRAM, B_DRAM, C_DRAM can be moved: lib/dram.inc).
.include "lib/dram.inc"
	dram_base A_DRAM, 0
	dram_base B_DRAM, (A_DRAM + M*K + 63) & ~63
	dram_base C_DRAM, (B_DRAM + K*N + 63) & ~63
.tensor A, dram, A_DRAM, int8, M, K
.tensor B, dram, B_DRAM, int8, K, N
.tensor C, dram, C_DRAM, int32, M, N

# On-chip layout of each core: B (K x N), then its rows of A (MT x K);
# its rows of C (MT x N int32) at the bottom of the accumulator.
.equ SPM_B, 0
.equ SPM_A, (K*N + 127) & ~127
.equ ACC_C, 0

# The footprint of the core with the most rows (ceil(M / cores)), checked
# against the config assembled for (CFG_*).
.equ MT_MAX, (M + CFG_CHIP_CORES - 1) / CFG_CHIP_CORES
.if SPM_A + MT_MAX*K > CFG_CORE_SCRATCHPAD_BYTES
.error "gemm_mc.s needs K*N + ceil(M/cores)*K bytes of scratchpad per core, more than core.scratchpad.bytes"
.endif
.if MT_MAX*N*4 > CFG_CORE_ACCUMULATOR_BYTES
.error "gemm_mc.s needs ceil(M/cores)*N*4 bytes of accumulator per core, more than core.accumulator.bytes"
.endif

# 1-D copy of the byte/element count in register CNT from register SRC
# (memory SMEM) to register DST (memory DMEM), elements of ESIZE bytes, on
# DMA engine ENG.  Dimensions 1-3 are never set, so they stay 1.
.macro copy eng, src, dst, smem, dmem, esize, cnt
	li	t0, \smem
	dset	smem, t0
	li	t0, \dmem
	dset	dmem, t0
	li	t0, \esize
	dset	esize, t0
	dset	src, \src
	dset	dst, \dst
	dset	n0, \cnt
	dma	\eng
.endm

.text
	rbeg	gemm_mc			# this core's part, barrier included
	csrr	s0, coreid
	csrr	s1, ncores
	li	t0, M			# R = ceil(M / ncores)
	add	t0, t0, s1
	addi	t0, t0, -1
	divu	s2, t0, s1
	mul	s3, s0, s2		# m0 = coreid * R
	li	t0, M
	bge	s3, t0, sync		# no rows left for this core
	sub	t1, t0, s3
	min	s4, s2, t1		# MT = min(R, M - m0)

	# ---- inputs: my rows of A on dma0, all of B on dma1 ----
	li	t0, K
	mul	t1, s3, t0		# A + m0*K
	li	t0, A_DRAM
	add	t1, t1, t0
	li	t2, SPM_A
	li	t0, K
	mul	t3, s4, t0		# MT*K bytes
	copy	0, t1, t2, dram, spm, 1, t3
	li	t1, B_DRAM
	li	t2, SPM_B
	li	t3, K*N
	copy	1, t1, t2, dram, spm, 1, t3
	sig	dma0, 0
	sig	dma1, 0
	wait	mtx, 0, 2		# both copies landed

	# ---- matrix configuration: WS, int8 x int8 -> int32, MT rows ----
	li	t0, ws
	mset	df, t0
	li	t0, int8
	mset	itype, t0
	li	t0, int32
	mset	atype, t0
	li	t0, K			# A: MT rows, K bytes apart
	mset	sa, t0
	li	t0, N			# B: K rows, N bytes apart
	mset	sb, t0
	li	t0, N*4			# C: MT rows, N int32 apart
	mset	sc, t0
	mset	m, s4

	# ---- folds: for n0 step COLS, k0 step ROWS ----
	li	s5, 0			# n0
ntile:
	li	t1, N
	sub	t2, t1, s5
	li	t1, COLS
	min	s7, t2, t1		# nt = min(COLS, N - n0)
	mset	n, s7
	li	s6, 0			# k0
ktile:
	li	t1, K
	sub	t2, t1, s6
	li	t1, ROWS
	min	s8, t2, t1		# kt = min(ROWS, K - k0)
	mset	k, s8
	li	t1, N			# B tile at SPM_B + k0*N + n0
	mul	t2, s6, t1
	add	t2, t2, s5
	li	t1, SPM_B
	add	t2, t2, t1
	mpre	t2
	li	t1, SPM_A		# A columns k0.. at SPM_A + k0
	add	t3, t1, s6
	slli	t4, s5, 2		# C columns n0.. at ACC_C + 4*n0
	li	t1, ACC_C
	add	t4, t4, t1
	bnez	s6, kacc
	mmul	t4, t3, zero		# first k tile overwrites C
	j	knext
kacc:
	mmacc	t4, t3, zero		# later k tiles accumulate
knext:
	addi	s6, s6, ROWS
	li	t1, K
	blt	s6, t1, ktile
	addi	s5, s5, COLS
	li	t1, N
	blt	s5, t1, ntile
	sig	mtx, 1			# my rows of C are complete

	# ---- output: my rows of C, accumulator -> DRAM ----
	wait	dma0, 1, 1
	li	t0, N*4
	mul	t1, s3, t0		# C + m0*N*4
	li	t0, C_DRAM
	add	t1, t1, t0
	li	t2, ACC_C
	li	t0, N
	mul	t3, s4, t0		# MT*N elements of 4 bytes
	copy	0, t2, t1, acc, dram, 4, t3

sync:
	fence	all			# my stores have landed ...
	barrier				# ... and everyone else's
	rend	gemm_mc
	halt
