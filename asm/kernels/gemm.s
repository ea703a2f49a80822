# gemm.s - C[M x N] (int32) = A[M x K] (int8) * B[K x N] (int8)
#
# Weight-stationary tiled GEMM, single-buffered: the whole of A and B is
# moved DRAM -> scratchpad by DMA engine 0, the matrix engine walks the
# (n, k) tiles of B (one fold each: mpre the B tile, then stream all M rows
# of A through it, accumulating over k in the accumulator), and DMA engine 0
# writes C back to DRAM.  Semaphore 0 orders "inputs landed" -> matrix,
# semaphore 1 orders "matrix done" -> write-back.
#
# Parameters (-D NAME=VALUE): M, K, N (problem), ROWS, COLS (the array of
# the config this runs on; the kernel tiles K by ROWS and N by COLS).
# The whole problem must fit on chip: M*K + K*N bytes of scratchpad and
# M*N*4 bytes of accumulator.
#
# With ideal memory the matrix engine is busy for ceil(K/ROWS)*ceil(N/COLS)
# folds of 2*ROWS + COLS + M - 2 cycles (docs/timing.md).

.ifndef M
.equ M, 64
.endif
.ifndef K
.equ K, 64
.endif
.ifndef N
.equ N, 64
.endif
.ifndef ROWS
.equ ROWS, 32
.endif
.ifndef COLS
.equ COLS, 32
.endif

# DRAM layout: A, then B, then C (64-byte aligned).
.equ A_DRAM, 0
.equ B_DRAM, (A_DRAM + M*K + 63) & ~63
.equ C_DRAM, (B_DRAM + K*N + 63) & ~63
.tensor A, dram, A_DRAM, int8, M, K
.tensor B, dram, B_DRAM, int8, K, N
.tensor C, dram, C_DRAM, int32, M, N

# On-chip layout.
.equ SPM_A, 0
.equ SPM_B, (M*K + 63) & ~63
.equ ACC_C, 0

.text
	# ---- inputs: DRAM -> scratchpad (1-D contiguous copies) ----
	li	t0, dram
	dset	smem, t0
	li	t0, spm
	dset	dmem, t0
	li	t0, 1
	dset	esize, t0
	li	t0, A_DRAM
	dset	src, t0
	li	t0, SPM_A
	dset	dst, t0
	li	t0, M*K
	dset	n0, t0
	dma	0
	li	t0, B_DRAM
	dset	src, t0
	li	t0, SPM_B
	dset	dst, t0
	li	t0, K*N
	dset	n0, t0
	dma	0
	sig	dma0, 0			# sem0 += 1 once both copies landed
	wait	mtx, 0, 1		# the matrix engine waits for them

	# ---- matrix configuration ----
	li	t0, ws
	mset	df, t0
	li	t0, int8
	mset	itype, t0
	li	t0, int32
	mset	atype, t0
	li	t0, M
	mset	m, t0
	li	t0, K			# A rows are K bytes apart
	mset	sa, t0
	li	t0, N			# B rows are N bytes apart
	mset	sb, t0
	li	t0, N*4			# C rows are N int32 apart
	mset	sc, t0

	# ---- for n0 in 0..N step COLS, k0 in 0..K step ROWS ----
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
	li	t1, N			# B tile at SPM_B + k0*N + n0
	mul	t2, s1, t1
	add	t2, t2, s0
	li	t1, SPM_B
	add	t2, t2, t1
	mpre	t2
	li	t1, SPM_A		# A columns k0.. at SPM_A + k0
	add	t3, t1, s1
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
	sig	mtx, 1			# sem1 += 1 when the matrix engine is done

	# ---- output: accumulator -> DRAM ----
	wait	dma0, 1, 1
	li	t0, acc
	dset	smem, t0
	li	t0, dram
	dset	dmem, t0
	li	t0, 4
	dset	esize, t0
	li	t0, ACC_C
	dset	src, t0
	li	t0, C_DRAM
	dset	dst, t0
	li	t0, M*N
	dset	n0, t0
	dma	0
	fence	all
	halt
