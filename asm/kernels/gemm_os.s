# gemm_os.s - C[M x N] (int32 or int8) = A[M x K] (int8) * B[K x N] (int8),
# output stationary, B resident, A streamed double-buffered over two DMA
# engines and software-pipelined.
#
# Each fold is one 32x32 (ROWS x COLS) tile of C over the whole of K
# (K + R + C - 2 cycles: long folds, so fill and drain cost little), and
# the accumulator only holds finished tiles, never partial sums: the shape
# this kernel is for is a deep K with a B (K x N) that fits the scratchpad
# - a linear layer's weights - against many rows of A.
#
#   dma1  B once, into NP = N / COLS column panels of K x COLS bytes,
#         while dma0 loads the first A tile; the first tile's fold j waits
#         only for panel j
#   for every tile i of ROWS rows of A (T = M / ROWS tiles), buffer b = i % 2:
#     dma0, dma1  load tile i+1 into the other buffer, half each -
#           dispatched BEFORE tile i's matrix instructions, so it runs
#           while tile i computes
#     mtx   NP folds: C[i rows, panel j] = A_i^T (K x ROWS) x B panel j
#     dma1  stores tile i's ROWS x N int32 rows of C
#   Semaphores per buffer b: AFULL+b dma0 -> mtx, AFREE+b mtx -> dma0,
#   CFULL+b mtx -> dma1, CFREE+b dma1 -> mtx.
#
# Layouts.  DRAM: A is given transposed and tiled, as the array's OS input
# edge consumes it: tensor AT of T x K x ROWS int8, AT[t][k][r] = A[t*ROWS
# + r][k] (`gemmref tilet A.npy ROWS AT.npy` converts; each tile is one
# contiguous DMA); B row-major K x N; C row-major M x N int32.
# Scratchpad: the two A tiles at 0 and K*ROWS, the B panels from SPM_B,
# each starting half a bank period (banks x bank width) past a period
# boundary: the array reads an A row and a B row in the same cycle
# (ROWS and COLS bytes), and with both advancing by the same amount per
# row their banks stay half the banks apart - on default.cfg 4 of 8
# banks of 16 bytes, on gemmini.cfg 2 of 4 - so they never conflict.
# Accumulator: two C tiles of ROWS x N int32.
#
# Footprint: scratchpad 2*K*ROWS + NP*K*COLS (+ alignment), accumulator
# 2*ROWS*N*4 bytes; checked below against the config assembled for.
# Parameters: M (a multiple of ROWS), K (any), N (a multiple of COLS);
# OUT = int32 (default) or int8: mout requantises each tile to
# sat_int8(round_even(C * 2^-SHIFT)) in the scratchpad (two more buffers
# of ROWS x N bytes) and dma1 stores that, a quarter of the bytes;
# ROWS, COLS default to the config's array.  docs/kernels.md has measured
# utilisation.

.ifndef M
.equ M, 256
.endif
.ifndef K
.equ K, 256
.endif
.ifndef N
.equ N, 128
.endif
.ifndef OUT
.equ OUT, int32
.endif
.ifndef SHIFT
.equ SHIFT, 8
.endif
.if OUT != int32 && OUT != int8
.error "gemm_os.s: OUT must be int32 or int8"
.endif
.ifndef ROWS
.equ ROWS, CFG_CORE_MATRIX_ROWS
.endif
.ifndef COLS
.equ COLS, CFG_CORE_MATRIX_COLS
.endif
.if M % ROWS || N % COLS
.error "gemm_os.s needs M a multiple of ROWS and N a multiple of COLS"
.endif
.equ T, M / ROWS			# tiles of A
.equ NP, N / COLS			# panels of B

.equ AT_DRAM, 0
.equ B_DRAM, (AT_DRAM + M*K + 63) & ~63
.equ C_DRAM, (B_DRAM + K*N + 63) & ~63
.tensor AT, dram, AT_DRAM, int8, T, K, ROWS
.tensor B, dram, B_DRAM, int8, K, N
.tensor C, dram, C_DRAM, OUT, M, N
.if OUT == int8
.equ CB, 1				# bytes per element of C in DRAM
.else
.equ CB, 4
.endif

# Banks repeat every PERIOD bytes; buffers start on a PERIOD boundary and
# the B panels half a period later (see Layouts).
.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
.equ A_BUF, (K*ROWS + PERIOD - 1) / PERIOD * PERIOD
.equ PANEL, (K*COLS + PERIOD - 1) / PERIOD * PERIOD
.equ SPM_B, 2*A_BUF + PERIOD / 2
.equ C_BUF, ROWS*N*4
.equ SPM_O, SPM_B + NP*PANEL		# OUT=int8: two requantised C tiles
.if OUT == int8
.equ SPM_END, SPM_O + 2*ROWS*N
.else
.equ SPM_END, SPM_O
.endif
.if SPM_END > CFG_CORE_SCRATCHPAD_BYTES
.error "gemm_os.s keeps B and two A tiles on chip: 2*K*ROWS + K*N (+ 2*ROWS*N for OUT=int8) bytes exceed core.scratchpad.bytes"
.endif
.if 2*C_BUF > CFG_CORE_ACCUMULATOR_BYTES
.error "gemm_os.s needs 2*ROWS*N*4 bytes of accumulator, more than core.accumulator.bytes"
.endif

.equ AFULL, 0
.equ AFREE, 2
.equ CFULL, 4
.equ CFREE, 6
.equ BFULL, 8

# A copy on the staging registers: N0 elements of ESZ bytes, N1 rows,
# N2 planes, with explicit strides (every field set: they persist).
.macro desc src, dst, smem, dmem, esz, n0, n1, ss1, ds1, n2, ss2, ds2
	li	t0, \smem
	dset	smem, t0
	li	t0, \dmem
	dset	dmem, t0
	li	t0, \esz
	dset	esize, t0
	dset	ss0, t0
	dset	ds0, t0
	dset	src, \src
	dset	dst, \dst
	li	t0, \n0
	dset	n0, t0
	li	t0, \n1
	dset	n1, t0
	li	t0, \ss1
	dset	ss1, t0
	li	t0, \ds1
	dset	ds1, t0
	li	t0, \n2
	dset	n2, t0
	li	t0, \ss2
	dset	ss2, t0
	li	t0, \ds2
	dset	ds2, t0
.endm

# A tile in register TI into buffer B (TI < T), in two halves on dma0
# and dma1: one engine's outstanding bursts cover too little of the DRAM's
# loaded latency to stream at its peak (docs/kernels.md); each half waits
# for the buffer's release and signals its arrival (the folds wait for 2).
.equ AH0, (K*ROWS / 2 + 63) & ~63	# bytes in the first half
.macro load_a ti, b
	li	t1, K*ROWS
	mul	t2, \ti, t1
	li	t1, AT_DRAM
	add	t2, t2, t1
	li	t3, (\b) * A_BUF
	wait	dma0, AFREE + (\b), 1
	desc	t2, t3, dram, spm, 1, AH0, 1, AH0, AH0, 1, AH0, AH0
	dma	0
	sig	dma0, AFULL + (\b)
	li	t1, AH0
	add	t2, t2, t1
	add	t3, t3, t1
	wait	dma1, AFREE + (\b), 1
	desc	t2, t3, dram, spm, 1, K*ROWS - AH0, 1, K*ROWS, K*ROWS, 1, K*ROWS, K*ROWS
	dma	1
	sig	dma1, AFULL + (\b)
.endm

# Tile s0 in buffer B: load the next tile into the other buffer first,
# then the folds, then the store.
.macro tile b, first=0
	addi	s1, s0, 1
	li	t1, T
	bge	s1, t1, nold\@
	load_a	s1, 1 - \b
nold\@:
	wait	mtx, AFULL + (\b), 2		# both halves
	wait	mtx, CFREE + (\b), 1
	li	t3, (\b) * A_BUF
	li	t4, (\b) * C_BUF			# C panel j at + j*COLS*4
	li	t5, SPM_B			# B panel j at + j*PANEL
	li	s2, NP
fold\@:
.if \first
	wait	mtx, BFULL, 1			# panel j has landed
.endif
	mmulp	t4, t3, t5			# then C += COLS*4, B += PANEL
	dbnz	s2, fold\@
	sig	mtx, AFREE + (\b)		# once for each half's engine
	sig	mtx, AFREE + (\b)
.if OUT == int8
	# requantise the whole ROWS x N tile into the SPM staging buffer with
	# one mout (the array idles during a mout: one costs ROWS + 1 cycles,
	# NP of them would cost NP times that)
	li	t0, N
	mset	n, t0
	li	t4, (\b) * C_BUF
	li	t3, SPM_O + (\b) * ROWS*N
	mout	t3, t4
	li	t0, COLS
	mset	n, t0
.endif
	sig	mtx, CFULL + (\b)

	wait	dma1, CFULL + (\b), 1
	li	t1, ROWS*N*CB
	mul	t2, s0, t1
	li	t1, C_DRAM
	add	t2, t2, t1
.if OUT == int8
	li	t3, SPM_O + (\b) * ROWS*N
	desc	t3, t2, spm, dram, 1, ROWS*N, 1, ROWS*N, ROWS*N, 1, ROWS*N, ROWS*N
.else
	li	t3, (\b) * C_BUF
	desc	t3, t2, acc, dram, 4, ROWS*N, 1, ROWS*N*4, ROWS*N*4, 1, ROWS*N*4, ROWS*N*4
.endif
	dma	1
	sig	dma1, CFREE + (\b)
	addi	s0, s0, 1
.endm

.text
	rbeg	gemm_os
	# OS, int8 x int8 -> int32, ROWS x COLS output tiles over all of K.
	li	t0, os
	mset	df, t0
	li	t0, int8
	mset	itype, t0
	li	t0, int32
	mset	atype, t0
	li	t0, ROWS
	mset	m, t0
	mset	sa, t0				# A tile rows: ROWS bytes
	li	t0, K
	mset	k, t0
	li	t0, COLS
	mset	n, t0
	mset	sb, t0				# B panel rows: COLS bytes
	li	t0, N*4
	mset	sc, t0				# C rows: N int32
	li	t0, COLS*4
	mset	ic, t0				# mmulp: next C panel
	li	t0, PANEL
	mset	ib, t0				# mmulp: next B panel
.if OUT == int8
	# mout: sat_int8(round_even(C * 2^-SHIFT)), rows N bytes apart
	li	t0, int8
	mset	otype, t0
	li	t0, (127 - SHIFT) << 23		# 2^-SHIFT as fp32 bits
	mset	oscale, t0
	li	t0, N
	mset	so, t0
.endif

	sig	ctl, AFREE + 0			# two waiters per A buffer
	sig	ctl, AFREE + 0
	sig	ctl, AFREE + 1
	sig	ctl, AFREE + 1
	sig	ctl, CFREE + 0
	sig	ctl, CFREE + 1
	li	s0, 0
	load_a	s0, 0				# tile 0; every later one is
						# loaded one tile ahead
	# B on dma1 meanwhile, panel by panel (K rows x COLS bytes from the
	# row-major K x N), each signalled: tile 0's fold j starts as soon
	# as panel j has landed
	li	t2, B_DRAM
	li	t3, SPM_B
	li	s2, NP
bpanel:
	desc	t2, t3, dram, spm, 1, COLS, K, N, COLS, 1, COLS, PANEL
	dma	1
	sig	dma1, BFULL
	addi	t2, t2, COLS
	li	t1, PANEL
	add	t3, t3, t1
	dbnz	s2, bpanel
	tile	0, 1
	li	t1, T
	bge	s0, t1, done
	j	odd
loop:
	tile	0
	li	t1, T
	bge	s0, t1, done
odd:
	li	t1, T
	bge	s0, t1, done
	tile	1
	li	t1, T
	blt	s0, t1, loop
done:
	fence	all
	rend	gemm_os
	halt
