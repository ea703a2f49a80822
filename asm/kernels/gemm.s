# gemm.s - C[M x N] (int32) = A[M x K] (int8) * B[K x N] (int8)
#
# A tiled GEMM for each dataflow of the matrix engine, single-buffered:
# DMA engine 0 moves all of A and B DRAM -> scratchpad, the matrix engine
# walks the folds, DMA engine 0 writes C back.  Semaphore 0 orders "inputs
# landed" -> matrix, semaphore 1 orders "matrix done" -> write-back.
#
# A, B and C are row-major in DRAM.  On chip each dataflow stores its
# operands as the rows the array's edges consume per cycle (docs/timing.md,
# "Operand layout"): WS A (M x K), B (K x N), C (M x N); OS A^T (K x M);
# IS A^T (K x M), B^T (N x K), C^T (N x M).  The transposes happen in the
# DMA engine with element strides, which costs one burst per element: real
# kernels keep weights pre-transposed in DRAM.
#
#   DF=0 (ws)  for each (n, k) tile: mpre B[k.., n..], then mmul/mmacc streams
#              all M rows of A;  folds ceil(K/ROWS) * ceil(N/COLS)
#   DF=2 (is)  for each (m, k) tile: mpre A[m.., k..], then mmul/mmacc streams
#              all N columns of B;  folds ceil(K/ROWS) * ceil(M/COLS)
#   DF=1 (os)  for each (m, n) tile: mmul streams A[m.., :] and B[:, n..]
#              over all of K;  folds ceil(M/ROWS) * ceil(N/COLS)
#
# Parameters (-D NAME=VALUE): M, K, N, DF, and ROWS, COLS; DF, ROWS and COLS
# default to the config assembled for (CFG_CORE_MATRIX_DATAFLOW, _ROWS, _COLS).  IT is the input type: int8 (default, int32
# accumulator) or fp16 / bf16 (fp32 accumulator, C in fp32).  OUT=int8 requantises C on the way out: mout writes
# sat_int8(round_even(C * 2^-SHIFT)) to the scratchpad and that is copied to
# DRAM (default OUT=int32: the accumulator is copied as is).  The whole problem must fit on chip: M*K + K*N bytes
# of scratchpad and M*N*4 bytes of accumulator.  With ideal memory the
# matrix engine's busy cycles are the fold counts above times the fold
# lengths of docs/timing.md (ws 2R+C+M-2, is 2R+C+N-2, os K+R+C-2).
#
# Regions (rbeg/rend, zero cost): "gemm" is the whole kernel; inside it
# "load", "compute" and "store" are the control unit's dispatch phases.
# The units run decoupled, so a phase's counters are what was counted
# while the control unit was in it (the input DMA still runs during
# "compute", the last folds during "store"); "gemm" ends after the final
# fence and holds all of the kernel's work.

.ifndef M
.equ M, 64
.endif
.ifndef K
.equ K, 64
.endif
.ifndef N
.equ N, 64
.endif
.ifndef DF
.equ DF, CFG_CORE_MATRIX_DATAFLOW
.endif
.ifndef ROWS
.equ ROWS, CFG_CORE_MATRIX_ROWS	# the config's array (npusim run -c, as -c)
.endif
.ifndef COLS
.equ COLS, CFG_CORE_MATRIX_COLS
.endif
.ifndef IT
.equ IT, int8
.endif
.if IT == int8
.equ EBS, 0			# log2 of the element size in bytes
.equ AT, int32			# accumulator type
.elif IT == fp16 || IT == bf16
.equ EBS, 1
.equ AT, fp32
.else
.error "IT must be int8, fp16 or bf16"
.endif
.equ EB, 1 << EBS
.ifndef OUT
.equ OUT, AT
.endif
.ifndef SHIFT
.equ SHIFT, 8
.endif

# DRAM layout: A, then B, then C (64-byte aligned; the bases A_DRAM,
# B_DRAM, C_DRAM can be moved: lib/dram.inc).
.include "lib/dram.inc"
	dram_base A_DRAM, 0
	dram_base B_DRAM, (A_DRAM + M*K*EB + 63) & ~63
	dram_base C_DRAM, (B_DRAM + K*N*EB + 63) & ~63
.tensor A, dram, A_DRAM, IT, M, K
.tensor B, dram, B_DRAM, IT, K, N
.tensor C, dram, C_DRAM, OUT, M, N

# On-chip layout.  B starts SKEW bytes past a 128-byte boundary: in OS the
# array reads an A^T row and a B row in the same cycle; on the default
# scratchpad (8 banks x 16 bytes) a 64-byte skew keeps the two 32-byte rows
# in different banks for every pair of tile offsets (their bank distance is
# 4 + 2*(n0 - m0)/32 mod 8, never 0 or +-1).
.ifndef SKEW
.equ SKEW, 64
.endif
.equ SPM_A, 0
.equ SPM_B, ((M*K*EB + 127) & ~127) + SKEW
.equ ACC_C, 0
.equ SPM_O, (SPM_B + K*N*EB + 127) & ~127	# OUT=int8: the requantised C

# The footprint, checked against the config assembled for (CFG_*).
.if OUT == int8
.equ SPM_END, SPM_O + M*N
.else
.equ SPM_END, SPM_B + K*N*EB
.endif
.if SPM_END > CFG_CORE_SCRATCHPAD_BYTES
.error "gemm.s keeps A and B (and C for OUT=int8) on chip: M*K + K*N (+ M*N) bytes exceed core.scratchpad.bytes; use smaller M, K, N or gemm_db.s"
.endif
.if M*N*4 > CFG_CORE_ACCUMULATOR_BYTES
.error "gemm.s keeps all of C in the accumulator: M*N*4 bytes exceed core.accumulator.bytes"
.endif

# Stage SRC, DST, SMEM, DMEM, ESIZE and N0 (dims 1-3: 1, dense strides).
.macro stage src, dst, smem, dmem, esize, count
	li	t0, \smem
	dset	smem, t0
	li	t0, \dmem
	dset	dmem, t0
	li	t0, \esize
	dset	esize, t0
	li	t0, \src
	dset	src, t0
	li	t0, \dst
	dset	dst, t0
	li	t0, \count
	dset	n0, t0
.endm

# A 2-D copy: N0 elements (strides SS0 -> DS0) by N1 rows (SS1 -> DS1).
# A 1-D copy of COUNT elements on DMA engine 0.
.macro copy1d src, dst, smem, dmem, esize, count
	stage	\src, \dst, \smem, \dmem, \esize, \count
	li	t0, 1
	dset	n1, t0
	li	t0, \esize
	dset	ss0, t0
	dset	ds0, t0
	li	t0, \esize * \count
	dset	ss1, t0
	dset	ds1, t0
	dma	0
.endm

.macro copy2d src, dst, smem, dmem, esize, n0, n1, ss0, ss1, ds0, ds1
	stage	\src, \dst, \smem, \dmem, \esize, \n0
	li	t0, \n1
	dset	n1, t0
	li	t0, \ss0
	dset	ss0, t0
	li	t0, \ss1
	dset	ss1, t0
	li	t0, \ds0
	dset	ds0, t0
	li	t0, \ds1
	dset	ds1, t0
	dma	0
.endm

.text
	rbeg	gemm
	rbeg	load
	# ---- inputs: DRAM -> scratchpad (transposed where the dataflow wants) ----
.if DF == ws
	copy1d	A_DRAM, SPM_A, dram, spm, EB, M*K
.else
	copy2d	A_DRAM, SPM_A, dram, spm, EB, M, K, K*EB, EB, EB, M*EB	# A^T: K rows of M
.endif
.if DF == is
	copy2d	B_DRAM, SPM_B, dram, spm, EB, K, N, N*EB, EB, EB, K*EB	# B^T: N rows of K
.else
	copy1d	B_DRAM, SPM_B, dram, spm, EB, K*N
.endif
	sig	dma0, 0			# sem0 += 1 once both copies landed
	wait	mtx, 0, 1		# the matrix engine waits for them
	rend	load

	# ---- matrix configuration ----
	rbeg	compute
	li	t0, DF
	mset	df, t0
	li	t0, IT
	mset	itype, t0
	li	t0, AT
	mset	atype, t0
.if DF == ws
	li	t0, K*EB		# A: M rows of K elements
	mset	sa, t0
.else
	li	t0, M*EB		# A^T: K rows of M elements
	mset	sa, t0
.endif
.if DF == is
	li	t0, K*EB		# B^T: N rows of K elements
	mset	sb, t0
	li	t0, M*4			# C^T: N rows, M int32 apart
	mset	sc, t0
.else
	li	t0, N*EB		# B: K rows of N elements
	mset	sb, t0
	li	t0, N*4			# C: M rows, N int32 apart
	mset	sc, t0
.endif

.if DF == ws
	# ---- weight stationary: for n0 step COLS, k0 step ROWS ----
	li	t0, M
	mset	m, t0
	li	s0, 0			# n0
ntile:
	li	t1, N
	sub	t2, t1, s0
	li	t1, COLS
	min	s2, t2, t1		# nt = min(COLS, N - n0)
	mset	n, s2
	li	s1, 0			# k0
ktile:
	li	t1, K
	sub	t2, t1, s1
	li	t1, ROWS
	min	s3, t2, t1		# kt = min(ROWS, K - k0)
	mset	k, s3
	li	t1, N			# B tile at SPM_B + (k0*N + n0)*EB
	mul	t2, s1, t1
	add	t2, t2, s0
	slli	t2, t2, EBS
	li	t1, SPM_B
	add	t2, t2, t1
	mpre	t2
	slli	t3, s1, EBS		# A columns k0.. at SPM_A + k0*EB
	li	t1, SPM_A
	add	t3, t3, t1
	slli	t4, s0, 2		# C columns n0.. at ACC_C + 4*n0
	li	t1, ACC_C
	add	t4, t4, t1
	bnez	s1, kacc
	mmul	t4, t3, zero		# first k tile overwrites C
	j	knext
kacc:
	mmacc	t4, t3, zero		# later k tiles accumulate
knext:
	addi	s1, s1, ROWS
	li	t1, K
	blt	s1, t1, ktile
	addi	s0, s0, COLS
	li	t1, N
	blt	s0, t1, ntile

.elif DF == is
	# ---- input stationary: for m0 step COLS, k0 step ROWS ----
	li	t0, N
	mset	n, t0
	li	s0, 0			# m0
mtile:
	li	t1, M
	sub	t2, t1, s0
	li	t1, COLS
	min	s2, t2, t1		# mt = min(COLS, M - m0)
	mset	m, s2
	li	s1, 0			# k0
ktile:
	li	t1, K
	sub	t2, t1, s1
	li	t1, ROWS
	min	s3, t2, t1		# kt = min(ROWS, K - k0)
	mset	k, s3
	li	t1, M			# A^T tile at SPM_A + (k0*M + m0)*EB
	mul	t2, s1, t1
	add	t2, t2, s0
	slli	t2, t2, EBS
	li	t1, SPM_A
	add	t2, t2, t1
	mpre	t2
	slli	t3, s1, EBS		# B^T columns k0.. at SPM_B + k0*EB
	li	t1, SPM_B
	add	t3, t3, t1
	slli	t4, s0, 2		# C^T columns m0.. at ACC_C + 4*m0
	li	t1, ACC_C
	add	t4, t4, t1
	bnez	s1, kacc
	mmul	t4, zero, t3		# first k tile overwrites C
	j	knext
kacc:
	mmacc	t4, zero, t3		# later k tiles accumulate
knext:
	addi	s1, s1, ROWS
	li	t1, K
	blt	s1, t1, ktile
	addi	s0, s0, COLS
	li	t1, M
	blt	s0, t1, mtile

.else
	# ---- output stationary: for m0 step ROWS, n0 step COLS ----
	li	t0, K
	mset	k, t0
	li	s0, 0			# m0
mtile:
	li	t1, M
	sub	t2, t1, s0
	li	t1, ROWS
	min	s2, t2, t1		# mt = min(ROWS, M - m0)
	mset	m, s2
	li	s1, 0			# n0
ntile:
	li	t1, N
	sub	t2, t1, s1
	li	t1, COLS
	min	s3, t2, t1		# nt = min(COLS, N - n0)
	mset	n, s3
	slli	t2, s0, EBS		# A^T columns m0.. at SPM_A + m0*EB
	li	t1, SPM_A
	add	t2, t2, t1
	slli	t3, s1, EBS		# B columns n0.. at SPM_B + n0*EB
	li	t1, SPM_B
	add	t3, t3, t1
	li	t1, N*4			# C tile at ACC_C + m0*N*4 + n0*4
	mul	t4, s0, t1
	slli	t5, s1, 2
	add	t4, t4, t5
	li	t1, ACC_C
	add	t4, t4, t1
	mmul	t4, t2, t3
	addi	s1, s1, COLS
	li	t1, N
	blt	s1, t1, ntile
	addi	s0, s0, ROWS
	li	t1, M
	blt	s0, t1, mtile
.endif

.if OUT == int8
	# ---- requantise: accumulator -> int8 tile in the scratchpad ----
	li	t0, M
	mset	m, t0
	li	t0, N
	mset	n, t0
	li	t0, int8
	mset	otype, t0
	li	t0, (127 - SHIFT) << 23	# fp32 bits of 2^-SHIFT
	mset	oscale, t0
	li	t0, SPM_O
	li	t1, ACC_C
	mout	t0, t1
.endif
	sig	mtx, 1			# sem1 += 1 when the matrix engine is done
	rend	compute

	# ---- output -> DRAM ----
	rbeg	store
	wait	dma0, 1, 1
.if OUT == int8
.if DF == is
	copy2d	SPM_O, C_DRAM, spm, dram, 1, N, M, M, 1, 1, N	# C^T -> C
.else
	copy1d	SPM_O, C_DRAM, spm, dram, 1, M*N
.endif
.elif DF == is
	copy2d	ACC_C, C_DRAM, acc, dram, 4, N, M, M*4, 4, 4, N*4	# C^T -> C
.else
	copy1d	ACC_C, C_DRAM, acc, dram, 4, M*N
.endif
	fence	all
	rend	store
	rend	gemm
	halt
