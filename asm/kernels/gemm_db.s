# gemm_db.s - C[M x N] (int32) = A[M x K] (int8) * B[K x N] (int8), streaming A
#
# Weight-stationary GEMM that streams A through the chip in tiles of TM rows,
# with NBUF = 2 (double-buffered, the default) or NBUF = 1 (single-buffered)
# scratchpad buffers for A and accumulator buffers for C:
#
#   dma0  loads A tile i into buffer i % NBUF      (after that buffer is free)
#   mtx   computes C tile i from it                (after it is full and the
#                                                   C buffer is free)
#   dma1  writes C tile i back to DRAM             (after it is complete)
#
# With two buffers the load of tile i+1 and the write-back of tile i-1
# overlap the computation of tile i; with one, every step waits for the
# previous one.  Outputs are identical either way.
#
# Semaphores (per buffer b): AFULL+b dma0 -> mtx, AFREE+b mtx -> dma0,
# CFULL+b mtx -> dma1, CFREE+b dma1 -> mtx.  The FREE semaphores start at 1
# (signalled by the control unit before the loop).
#
# -D BUG=1 leaves out the matrix engine's wait for its A tile: the schedule
# then races DMA against the array, which `--check-hazards` reports.
#
# Parameters: M (a multiple of NBUF*TM), K <= ROWS*?, N, TM, ROWS, COLS
# (ROWS, COLS default to the config's array: CFG_CORE_MATRIX_ROWS/_COLS).

.ifndef M
.equ M, 256
.endif
.ifndef K
.equ K, 64
.endif
.ifndef N
.equ N, 64
.endif
# The schedule: TM rows of A per tile, NBUF buffers.  npusim tune
# searches these values (the first is the default); the checks below
# reject schedules that do not divide M or do not fit the SRAM before
# anything is simulated (docs/dse.md).
.tunable TM, 64, 16, 32, 128, 256
.tunable NBUF, 2, 1
.ifndef ROWS
.equ ROWS, CFG_CORE_MATRIX_ROWS	# the config's array (npusim run -c, as -c)
.endif
.ifndef COLS
.equ COLS, CFG_CORE_MATRIX_COLS
.endif
.ifndef BUG
.equ BUG, 0
.endif
.if M % (TM * NBUF)
.error "M must be a multiple of TM * NBUF"
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base A_DRAM, 0
	dram_base B_DRAM, (A_DRAM + M*K + 63) & ~63
	dram_base C_DRAM, (B_DRAM + K*N + 63) & ~63
.tensor A, dram, A_DRAM, int8, M, K
.tensor B, dram, B_DRAM, int8, K, N
.tensor C, dram, C_DRAM, int32, M, N

.equ SPM_B, 0
.equ SPM_A, (K*N + 63) & ~63		# NBUF buffers of TM*K bytes
.equ A_BUF, (TM*K + 63) & ~63
.equ C_BUF, TM*N*4			# accumulator buffers of TM rows of C

# The footprint, checked against the config assembled for (CFG_*).
.if SPM_A + NBUF*A_BUF > CFG_CORE_SCRATCHPAD_BYTES
.error "gemm_db.s needs K*N + NBUF*TM*K bytes of scratchpad, more than core.scratchpad.bytes; lower TM or NBUF"
.endif
.if NBUF*C_BUF > CFG_CORE_ACCUMULATOR_BYTES
.error "gemm_db.s needs NBUF*TM*N*4 bytes of accumulator, more than core.accumulator.bytes; lower TM or NBUF"
.endif

.equ AFULL, 0
.equ AFREE, 2
.equ CFULL, 4
.equ CFREE, 6

# Stage a 1-D copy of COUNT bytes on the DMA staging registers.
.macro stage src, dst, smem, dmem, count
	li	t0, \smem
	dset	smem, t0
	li	t0, \dmem
	dset	dmem, t0
	dset	src, \src
	dset	dst, \dst
	li	t0, \count
	dset	n0, t0
.endm

# One tile of TM rows through buffer B; s0 = tile index.
.macro tile b
	# dma0: A rows [s0*TM, s0*TM + TM) -> A buffer b
	wait	dma0, AFREE + \b, 1
	li	t1, TM*K
	mul	t2, s0, t1
	li	t1, A_DRAM
	add	t2, t2, t1
	li	t3, SPM_A + \b * A_BUF
	stage	t2, t3, dram, spm, TM*K
	dma	0
	sig	dma0, AFULL + \b

	# mtx: C buffer b = A buffer b * B, folds over (n, k)
.if !BUG
	wait	mtx, AFULL + \b, 1
.endif
	wait	mtx, CFREE + \b, 1
	li	s4, 0				# n0
ntile\@:
	li	s5, 0				# k0
ktile\@:
	li	t1, N				# B tile at SPM_B + k0*N + n0
	mul	t2, s5, t1
	add	t2, t2, s4
	mpre	t2
	li	t3, SPM_A + \b * A_BUF		# A columns k0..
	add	t3, t3, s5
	slli	t4, s4, 2			# C columns n0..
	li	t1, \b * C_BUF
	add	t4, t4, t1
	bnez	s5, kacc\@
	mmul	t4, t3, zero
	j	knext\@
kacc\@:
	mmacc	t4, t3, zero
knext\@:
	addi	s5, s5, ROWS
	li	t1, K
	blt	s5, t1, ktile\@
	addi	s4, s4, COLS
	li	t1, N
	blt	s4, t1, ntile\@
	sig	mtx, AFREE + \b
	sig	mtx, CFULL + \b

	# dma1: C buffer b -> C rows [s0*TM, ...)
	wait	dma1, CFULL + \b, 1
	li	t1, TM*N*4
	mul	t2, s0, t1
	li	t1, C_DRAM
	add	t2, t2, t1
	li	t3, \b * C_BUF
	li	t0, acc
	dset	smem, t0
	li	t0, dram
	dset	dmem, t0
	dset	src, t3
	dset	dst, t2
	li	t0, TM*N
	dset	n0, t0
	li	t0, 4
	dset	esize, t0
	dma	1
	sig	dma1, CFREE + \b
	li	t0, 1
	dset	esize, t0
	addi	s0, s0, 1
.endm

.text
	rbeg	gemm_db			# the whole kernel (zero-cost marker)
	# Constant matrix configuration: WS, int8 x int8 -> int32, all fold
	# tiles ROWS x COLS (K and N are multiples), TM rows streamed.
	li	t0, ws
	mset	df, t0
	li	t0, int8
	mset	itype, t0
	li	t0, int32
	mset	atype, t0
	li	t0, TM
	mset	m, t0
	li	t0, ROWS
	mset	k, t0
	li	t0, COLS
	mset	n, t0
	li	t0, K
	mset	sa, t0
	li	t0, N
	mset	sb, t0
	li	t0, N*4
	mset	sc, t0
	li	t0, 1
	dset	esize, t0

	# B once, on dma0, before any A tile; the matrix engine waits for it.
	li	t2, B_DRAM
	li	t3, SPM_B
	stage	t2, t3, dram, spm, K*N
	dma	0
	sig	dma0, 8
	wait	mtx, 8, 1

	# Every buffer starts free.
	sig	ctl, AFREE + 0
	sig	ctl, CFREE + 0
.if NBUF == 2
	sig	ctl, AFREE + 1
	sig	ctl, CFREE + 1
.endif

	li	s0, 0				# tile index
loop:
	tile	0
.if NBUF == 2
	tile	1
.endif
	li	t1, M / TM
	blt	s0, t1, loop
	fence	all
	rend	gemm_db
	halt
