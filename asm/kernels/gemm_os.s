# gemm_os.s - C[M x N] = act(A[M x K] * B[K x N] + bias), output stationary:
# B resident in column blocks, A streamed double-buffered over two DMA
# engines and software-pipelined.  Any M, K, N; inputs int8, int4, fp8
# (e4m3, e5m2), fp16, bf16; outputs int32 or int8 (integer inputs), fp32,
# bf16 or fp16 (float inputs); optional fused bias and relu/gelu/silu.
#
# Each fold is one ROWS x COLS tile of C over the whole of K (K + R + C - 2
# cycles, or ceil(K/p) + R + C - 2 with p = core.matrix.macs_per_pe of the
# input type: long folds, so fill and drain cost little), and the
# accumulator only holds finished tiles, never partial sums.  B is split
# into blocks of NBK columns (all of N when it fits the scratchpad), each
# resident as COLS-wide panels while every A tile streams past it.
#
#   dma1  the first block's B panels, panel by panel; tile 0's fold j
#         waits only for panel j
#   for every (column block, A tile) pair - tile i of ROWS rows, buffer b:
#     dma0, dma1  load the next pair's A tile into the other buffer, half
#           each - dispatched BEFORE this tile's matrix instructions, so
#           it runs while this tile computes
#     mtx   one fold per panel: C[tile, panel j] = A_i^T (K x ROWS) x B_j
#     mtx   (int8, bf16, fp16 outputs, bias, activation) one mout of the
#           tile through the output stage
#     dma1  stores the tile's rows of C (the last tile: only rows < M)
#     (after a block's last tile) mtx releases B; dma1 loads the next
#     block's panels
#   Semaphores per buffer b: AFULL+b dma0/dma1 -> mtx, AFREE+b mtx ->
#   dma0/dma1, CFULL+b mtx -> dma1, CFREE+b dma1 -> mtx; BFULL per panel,
#   BFREE mtx -> dma1.
#
# Layouts.  DRAM: A is given transposed and tiled, as the array's OS input
# edge consumes it: tensor AT of T = ceil(M/ROWS) x K x ROWS, AT[t][k][r] =
# A[t*ROWS + r][k], rows past M zero (`gemmref tilet A.npy ROWS AT.npy`
# converts; each tile is one contiguous DMA); B row-major K x N; C
# row-major M x N; BIAS N values of the accumulator type (int32 or fp32).
# Scratchpad: the two A tiles at 0 and A_BUF, the B panels from SPM_B,
# each starting half a bank period (banks x bank width) past a period
# boundary: the array reads an A row and a B row in the same cycle, and
# with both advancing by the same amount per row their banks stay half the
# banks apart - on default.cfg 4 of 8 banks of 16 bytes, on gemmini.cfg 2
# of 4 - so they never conflict.  Accumulator: two C tiles of ROWS x NBK.
# A tile's and a panel's rows are dense, so a packed array (macs_per_pe >
# 1) reads p of them in one access.
#
# Footprint: scratchpad 2*K*ROWS*e + NBK/COLS*K*COLS*e (+ 2*ROWS*NBK*o with
# an output stage, + 4*N for the bias) bytes, e and o the input and output
# element sizes; accumulator 2*ROWS*NBK*4.  NBK is the largest multiple of
# COLS that fits (or -D NBK); the checks below fail at assembly time when
# not even one panel fits (K too deep for this scratchpad).
# Parameters: M, K, N; ITYPE (int8); OUT (int32 for integer, fp32 for
# float inputs); SHIFT (8): int8 C = sat8(round_even(acc * 2^-SHIFT));
# WITH_BIAS (0/1); ACT (0 none, relu, gelu, silu); ROWS, COLS default to
# the config's array.  docs/kernels.md has measured utilisation.

.ifndef M
.equ M, 256
.endif
.ifndef K
.equ K, 256
.endif
.ifndef N
.equ N, 128
.endif
.include "lib/gemm_types.inc"

.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
.equ A_BUF, (K*ARB + PERIOD - 1) / PERIOD * PERIOD
.equ PANEL, (K*BRB + PERIOD - 1) / PERIOD * PERIOD
.if STAGE
.equ OSZ, 2*ROWS*COLS*CB		# per panel: two staged C tiles
.else
.equ OSZ, 0
.endif
.equ SPM_FIX, 2*A_BUF + PERIOD + 4*N*WITH_BIAS + 64
.ifndef NBK
.equ NP_S, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX) / (PANEL + OSZ)
.equ NP_A, CFG_CORE_ACCUMULATOR_BYTES / (2*ROWS*COLS*4)
.equ NP_SA, NP_S < NP_A ? NP_S : NP_A
.equ NP_B, NP_SA < NPANELS ? NP_SA : NPANELS
# Schedule parameters for `npusim tune` (the first value is the default):
# NPSEL panels per column block (0 = as many as fit), ASPLIT engines the A
# tiles load over (2 or 1), CENG the engine that stores C (1 or 0).
.if NP_B < 1
.error "gemm_os.s: not even one B panel fits: two A tiles and a panel take 2*K*ROWS*e + K*COLS*e bytes of scratchpad (K too deep: gemm_kb.s blocks K)"
.endif
.tunable NPSEL, 0, 1, 2, 3, 4, 6, 8
.if NPSEL > NP_B
.error "gemm_os.s: NPSEL panels do not fit (or exceed N)"
.endif
.equ NBK, (NPSEL ? NPSEL : NP_B)*COLS
.endif
.tunable ASPLIT, 2, 1
.tunable CENG, 1, 0
.if NBK < COLS || NBK % COLS
.error "gemm_os.s: NBK must be a multiple of COLS"
.endif
.equ NPB, NBK / COLS			# panels per block
.equ NBLK, (N + NBK - 1) / NBK		# column blocks
.equ SPM_B, 2*A_BUF + PERIOD / 2
.equ SPM_O, SPM_B + NPB*PANEL		# two staged C tiles
.equ O_BUF, ROWS*NBK*CB
.equ SPM_PAR, (SPM_O + 2*O_BUF*STAGE + 63) & ~63
.if SPM_PAR + 4*N*WITH_BIAS > CFG_CORE_SCRATCHPAD_BYTES
.error "gemm_os.s keeps two A tiles, NBK columns of B (and two staged C tiles) on chip: they exceed core.scratchpad.bytes"
.endif
.equ C_BUF, ROWS*NBK*4
.if 2*C_BUF > CFG_CORE_ACCUMULATOR_BYTES
.error "gemm_os.s needs 2*ROWS*NBK*4 bytes of accumulator, more than core.accumulator.bytes"
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base AT_DRAM, 0
	dram_base B_DRAM, (AT_DRAM + T*K*ARB + 63) & ~63
	dram_base BIAS_DRAM, (B_DRAM + K*N*EBITS/8 + 63) & ~63
	dram_base C_DRAM, (BIAS_DRAM + 4*N + 63) & ~63
.tensor AT, dram, AT_DRAM, ITYPE, T, K, ROWS
.tensor B, dram, B_DRAM, ITYPE, K, N
.if WITH_BIAS
.tensor BIAS, dram, BIAS_DRAM, ATYPE, N
.endif
.tensor C, dram, C_DRAM, OUT, M, N

.equ AFULL, 0
.equ AFREE, 2
.equ CFULL, 4
.equ CFREE, 6
.equ BFULL, 8
.equ BFREE, 9

# A copy on the staging registers: N0 elements of ESZ bytes, N1 rows,
# N2 planes, with explicit strides (every field set: they persist).
.macro desc src, dst, smem, dmem, esz, n0, n1, ss1, ds1, n2, ss2, ds2
	dreset
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

# Flat pair index REG -> s8 = column block, s9 = A tile; s10 = the
# block's columns, s11 = its panels.
.macro pair reg
	li	t1, T
	divu	s8, \reg, t1
	remu	s9, \reg, t1
	li	t1, NBK
	mul	s10, s8, t1
	li	t1, N
	sub	s10, t1, s10
	li	t1, NBK
	bge	t1, s10, pr\@
	mv	s10, t1
pr\@:
	addi	s11, s10, COLS - 1
	li	t1, COLS
	divu	s11, s11, t1
.endm

# The A tile of pair REG into buffer B, in two halves on dma0 and dma1: one
# engine's outstanding bursts cover too little of the DRAM's loaded
# latency to stream at its peak (docs/kernels.md); each half waits for the
# buffer's release and signals its arrival (the folds wait for 2).
.if ASPLIT == 2
.equ AH0, (K*ARB / 2 + 63) & ~63	# bytes in the first half
.else
.equ AH0, K*ARB
.endif
.macro load_a reg, b
	li	t1, T
	remu	t2, \reg, t1
	li	t1, K*ARB
	mul	t2, t2, t1
	li	t1, AT_DRAM
	add	t2, t2, t1
	li	t3, (\b) * A_BUF
	wait	dma0, AFREE + (\b), 1
	desc	t2, t3, dram, spm, 1, AH0, 1, AH0, AH0, 1, AH0, AH0
	dma	0
	sig	dma0, AFULL + (\b)
.if ASPLIT == 2
	li	t1, AH0
	add	t2, t2, t1
	add	t3, t3, t1
	wait	dma1, AFREE + (\b), 1
	desc	t2, t3, dram, spm, 1, K*ARB - AH0, 1, K*ARB, K*ARB, 1, K*ARB, K*ARB
	dma	1
	sig	dma1, AFULL + (\b)
.endif
.endm

# The B panels of column block s8 (s10 columns, s11 panels), on dma1,
# once the folds of the block before are done; one BFULL per panel.
.macro load_b
	wait	dma1, BFREE, 1
	li	t1, NBK*EBITS/8
	mul	t2, s8, t1
	li	t1, B_DRAM
	add	t2, t2, t1
	li	t3, SPM_B
	mv	s2, s11
	mv	s3, s10				# columns left
bp\@:
	li	t1, COLS
	mv	s4, s3
	bge	t1, s3, bq\@
	mv	s4, t1				# this panel's columns
bq\@:
	desc	t2, t3, dram, spm, 1, BRB, K, N*EBITS/8, BRB, 1, BRB, PANEL
.if EBITS == 4
	srli	t0, s4, 1
.elif EBITS == 16
	slli	t0, s4, 1
.else
	mv	t0, s4
.endif
	dset	n0, t0				# the panel's bytes per row
	dma	1
	sig	dma1, BFULL
	addi	t2, t2, BRB
	li	t1, PANEL
	add	t3, t3, t1
	sub	s3, s3, s4
	dbnz	s2, bp\@
.endm

# Pair s0 in buffer b: load the next pair's A tile first, then the folds,
# then the store.
.macro tile b
	addi	s1, s0, 1
	li	t1, T*NBLK
	bge	s1, t1, nold\@
	load_a	s1, 1 - (\b)
nold\@:
	pair	s0
	wait	mtx, AFULL + (\b), ASPLIT	# both halves
	wait	mtx, CFREE + (\b), 1
	li	t3, (\b) * A_BUF
	li	t4, (\b) * C_BUF		# C panel j at + j*COLS*4
	li	t5, SPM_B			# B panel j at + j*PANEL
	mv	s2, s11
	li	t0, COLS
	mset	n, t0
fold\@:
	bne	s9, zero, nw\@
	wait	mtx, BFULL, 1			# a block's first tile: panel j
nw\@:					# has landed
	li	t1, 1
	bne	s2, t1, nl\@
	addi	t1, s11, -1			# the last panel: its columns
	li	t0, COLS
	mul	t1, t1, t0
	sub	t0, s10, t1
	mset	n, t0
nl\@:
	mmulp	t4, t3, t5			# then C += COLS*4, B += PANEL
	dbnz	s2, fold\@
	sig	mtx, AFREE + (\b)		# once for each half's engine
.if ASPLIT == 2
	sig	mtx, AFREE + (\b)
.endif
.if STAGE
	# the whole tile through the output stage in one mout (the array
	# idles during a mout: ROWS + 1 cycles)
	mset	n, s10
.if WITH_BIAS
	li	t1, NBK*4
	mul	t1, s8, t1
	li	t0, SPM_PAR
	add	t1, t1, t0
	mset	opar, t1
.endif
	li	t4, (\b) * C_BUF
	li	t3, SPM_O + (\b) * O_BUF
	mout	t3, t4
.endif
	sig	mtx, CFULL + (\b)
	# the last tile of a column block releases B for the next block
	li	t1, T - 1
	bne	s9, t1, nb\@
	li	t1, NBLK - 1
	bge	s8, t1, nb\@
	sig	mtx, BFREE
nb\@:
	# store rows s9*ROWS .. of C (ML in the last tile), s10 columns
	wait	(3 + CENG), CFULL + (\b), 1
	li	t1, ROWS*N*CB
	mul	t2, s9, t1
	li	t1, NBK*CB
	mul	t1, s8, t1
	add	t2, t2, t1
	li	t1, C_DRAM
	add	t2, t2, t1
	li	t6, ROWS
	li	t1, T - 1
	bne	s9, t1, full\@
	li	t6, ML
full\@:
.if STAGE
	li	t3, SPM_O + (\b) * O_BUF
	desc	t3, t2, spm, dram, 1, 1, 1, NBK*CB, N*CB, 1, 0, 0
.else
	li	t3, (\b) * C_BUF
	desc	t3, t2, acc, dram, 1, 1, 1, NBK*4, N*4, 1, 0, 0
.endif
	li	t1, CB
	mul	t0, s10, t1
	dset	n0, t0				# bytes per row
	dset	n1, t6				# rows
	dma	CENG
	sig	(3 + CENG), CFREE + (\b)
	# the next block's panels once this block's last tile is folded
	li	t1, T - 1
	bne	s9, t1, nn\@
	li	t1, NBLK - 1
	bge	s8, t1, nn\@
	addi	s1, s0, 1
	pair	s1
	load_b
nn\@:
	addi	s0, s0, 1
.endm

.text
	rbeg	gemm_os
	li	t0, os
	mset	df, t0
	li	t0, ITYPE
	mset	itype, t0
	li	t0, ATYPE
	mset	atype, t0
	li	t0, ROWS
	mset	m, t0
	li	t0, ARB
	mset	sa, t0				# A tile rows: ROWS elements
	li	t0, K
	mset	k, t0
	li	t0, COLS
	mset	n, t0
	li	t0, BRB
	mset	sb, t0				# B panel rows: COLS elements
	li	t0, NBK*4
	mset	sc, t0				# C rows: NBK int32/fp32
	li	t0, COLS*4
	mset	ic, t0				# mmulp: next C panel
	li	t0, PANEL
	mset	ib, t0				# mmulp: next B panel
.if STAGE
	gemm_ostage NBK*CB
.endif

	sig	ctl, AFREE + 0			# a waiter per engine loading A
	sig	ctl, AFREE + 1
.if ASPLIT == 2
	sig	ctl, AFREE + 0
	sig	ctl, AFREE + 1
.endif
	sig	ctl, CFREE + 0
	sig	ctl, CFREE + 1
	sig	ctl, BFREE
	li	s0, 0
	load_a	s0, 0				# tile 0; every later one is
						# loaded one pair ahead
.if WITH_BIAS
	li	t2, BIAS_DRAM
	li	t3, SPM_PAR
	desc	t2, t3, dram, spm, 1, 4*N, 1, 4*N, 4*N, 1, 4*N, 4*N
	dma	1
.endif
	pair	s0
	load_b					# the first block's panels
loop:
	tile	0
	li	t1, T*NBLK
	bge	s0, t1, done
	tile	1
	li	t1, T*NBLK
	blt	s0, t1, loop
done:
	fence	all
	rend	gemm_os
	halt
