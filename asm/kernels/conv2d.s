# conv2d.s - Y = conv2d(X, W) (+ bias, relu), int8 or bf16 NHWC, weight
# stationary, with the im2col matrix built block by block on chip (it never
# exists in DRAM).
#
# Computes Y[oy][ox][co] = sum over ky, kx, ci of
#     X[oy*S + ky*DIL - PAD][ox*S + kx*DIL - PAD][ci] * W[ky][kx][ci][co]
# (taps outside X are zeros), as the GEMM Y (HO*WO x COUT) = A (HO*WO x K)
# x B (K x COUT) with K = KH*KW*CIN: A row p is output pixel p's receptive
# field, (ky, kx, ci) in that order - exactly CIN contiguous bytes of the
# NHWC input per tap, so each tap of a whole block is one 3-D DMA (CIN
# bytes x the output columns whose tap is inside X x the block's rows).
# The taps read a slab of input rows already in the scratchpad: DRAM sees
# each input byte once (plus the halo rows two blocks share), not KH*KW
# times.
#
#   dma1   W once (K x COUT, resident), the bias table
#   for every block i of RB output rows (MB = RB*WO pixels), buffer b,
#   dispatched in this order so that the in-order control unit never waits
#   behind a slow copy while the array could start:
#     dma1  the input rows block i+2 needs (one contiguous DRAM copy)
#     dma0  gathers block i+1's A from its slab into the other A buffer
#           (on-chip copies: quick; they wait only for block i-1's folds)
#     mtx   for each COLS-wide tile of COUT, for each ROWS-deep tile of K:
#           mprep the weight tile, mmulp/mmaccp the MB rows of A
#     mtx   OUT=int8: one mout of the block (bias, relu, 2^-SHIFT, sat8)
#     dma1  stores the block's HO rows of Y (contiguous in NHWC)
#
# Padding: a tap column outside X (left/right) is a fixed set of (pixel,
# tap) entries - the DMA never writes them and they stay zero from the
# initial clear; a tap row outside X (top/bottom blocks) is zeroed per
# block by a DMA from a zero row in the scratchpad (source strides 0).
#
# Layouts.  DRAM: X (H x W x CIN int8, NHWC, batch 1); WGT (K x COUT int8,
# HWIO flattened: row (ky*KW + kx)*CIN + ci - pre-arranged weights, as
# deployed models store them); BIAS (COUT int32, with WITH_BIAS=1); Y (HO x
# WO x COUT, int8 or int32).  Scratchpad: the zero row, two A buffers (MB
# rows of K bytes), two input slabs (IR = (RB-1)*S + (KH-1)*DIL + 1 rows of
# W*CIN bytes), W (K rows of COUT bytes), two int8 Y buffers (MB x COUT),
# the bias table.  Accumulator: one MB x COUT int32 block (OUT=int8: mout
# frees it at once) or two (OUT=int32, stored from the accumulator).
#
# Footprint: scratchpad K + 2*MB*K + 2*IR*W*CIN + K*COUT + 2*MB*COUT (int8)
# + 4*COUT
# (+ alignment), accumulator MB*COUT*4 (int8) or 2*MB*COUT*4 (int32);
# RB defaults to the most output rows that fit, checked with .error.
# Grouped convolution (GROUPS = G): output channel co reads only input
# channels co/(COUT/G)*CIN/G ..; the weights are K x COUT with K =
# KH*KW*CIN/G (each column its group's taps), the slab of a block holds its
# group's CIN/G channels (a 3-D copy), and the output channel groups of NG
# never straddle two convolution groups.  Depthwise is G = CIN = COUT (on
# the array one column per channel: dwconv2d.s does it on the vector unit).
# Parameters: H, W, CIN, COUT, KH (3), KW (= KH), S (1), PAD (0), DIL (1),
# GROUPS (1),
# ITYPE = int8 (default) or bf16 (with OUT = bf16 or fp32, an fp32 bias),
# OUT = int8 (default) or int32, SHIFT (8): int8 Y = sat8(rne((acc + bias)
# / 2^SHIFT)), WITH_BIAS (0/1: tensor BIAS), RELU (0/1), RB; ROWS, COLS
# from the config.
# Limits: KH, KW <= 7 (the taps are unrolled).  docs/kernels.md has the
# measured utilisation, ResNet-50's layers among them.

.ifndef H
.equ H, 16
.endif
.ifndef W
.equ W, 16
.endif
.ifndef CIN
.equ CIN, 32
.endif
.ifndef COUT
.equ COUT, 32
.endif
.ifndef KH
.equ KH, 3
.endif
.ifndef KW
.equ KW, KH
.endif
.ifndef S
.equ S, 1
.endif
.ifndef PAD
.equ PAD, 0
.endif
.ifndef DIL
.equ DIL, 1
.endif
.ifndef ITYPE
.equ ITYPE, int8
.endif
.if ITYPE != int8 && ITYPE != bf16
.error "conv2d.s: ITYPE must be int8 or bf16"
.endif
.equ FLT, ITYPE == bf16
.ifndef OUT
.if FLT
.equ OUT, bf16
.else
.equ OUT, int8
.endif
.endif
.ifndef SHIFT
.equ SHIFT, 8
.endif
.ifndef WITH_BIAS
.equ WITH_BIAS, 0
.endif
.ifndef RELU
.equ RELU, 0
.endif
.ifndef ROWS
.equ ROWS, CFG_CORE_MATRIX_ROWS
.endif
.ifndef COLS
.equ COLS, CFG_CORE_MATRIX_COLS
.endif
.if !FLT && OUT != int8 && OUT != int32
.error "conv2d.s: int8 inputs give OUT = int8 or int32"
.endif
.if FLT && OUT != bf16 && OUT != fp32
.error "conv2d.s: bf16 inputs give OUT = bf16 or fp32"
.endif
.equ XB, FLT ? 2 : 1			# input element bytes
.if FLT
.equ ATYPE, fp32
.else
.equ ATYPE, int32
.endif
.if KH > 7 || KW > 7 || KH < 1 || KW < 1
.error "conv2d.s: KH and KW must be 1..7"
.endif

.ifndef GROUPS
.equ GROUPS, 1
.endif
.if GROUPS < 1 || CIN % GROUPS || COUT % GROUPS
.error "conv2d.s: GROUPS must divide CIN and COUT"
.endif
.equ CING, CIN / GROUPS			# input channels per group
.equ COUTG, COUT / GROUPS		# output channels per group
# Schedule parameters for `npusim tune` (the first value is the default):
# DIRECT (stride 1: feed the slab itself; else gather), RBSEL (output rows
# per block, 0 = as many as fit), NGDIV (output channel groups NG/NGDIV).
.equ DIRECT_DEF, S == 1 && DIL == 1
.tunable DIRECT, DIRECT_DEF, 1 - DIRECT_DEF
.if DIRECT && (S != 1 || DIL != 1)
.error "conv2d.s: DIRECT=1 needs S=1 and DIL=1"
.endif
.equ HO, (H + 2*PAD - DIL*(KH - 1) - 1) / S + 1
.equ WO, (W + 2*PAD - DIL*(KW - 1) - 1) / S + 1
# (tested on the sizes: the assembler's / truncates toward zero, so a
# window larger than the padded input would otherwise give HO = 1)
.if H + 2*PAD < DIL*(KH - 1) + 1 || W + 2*PAD < DIL*(KW - 1) + 1
.error "conv2d.s: the window does not fit the padded input"
.endif
.equ K, KH*KW*CING			# a group's GEMM depth
.equ KT, (K + ROWS - 1) / ROWS		# k tiles; the last has KL rows
.equ KL, K - (KT - 1)*ROWS
# Output channels in groups of NG: the weights of one group (K x NG) are
# resident while every block of the output is computed for it; the next
# group's load waits for the last fold of the group before.  NG = COUT
# when the weights fit half the scratchpad, else the largest COUT/2^j
# that does.
.ifndef NG
.equ WBUD, CFG_CORE_SCRATCHPAD_BYTES / 2
.if GROUPS > 1 && K*COUTG*XB <= WBUD
.equ NG_FIT, COUTG				# one convolution group at a time
.elif K*COUT*XB <= WBUD && GROUPS == 1
.equ NG_FIT, COUT
.elif COUT % 2 == 0 && K*(COUT/2)*XB <= WBUD
.equ NG_FIT, COUT/2
.elif COUT % 4 == 0 && K*(COUT/4)*XB <= WBUD
.equ NG_FIT, COUT/4
.elif COUT % 8 == 0 && K*(COUT/8)*XB <= WBUD
.equ NG_FIT, COUT/8
.elif COUT % 16 == 0 && K*(COUT/16)*XB <= WBUD
.equ NG_FIT, COUT/16
.elif COUT % 32 == 0 && K*(COUT/32)*XB <= WBUD
.equ NG_FIT, COUT/32
.else
.equ NG_FIT, COUT/64
.endif
.tunable NGDIV, 1, 2, 4
.if NG_FIT % NGDIV
.error "conv2d.s: NGDIV does not divide the channel group"
.endif
.equ NG, NG_FIT / NGDIV
.endif
.if NG < 1 || COUT % NG || (GROUPS > 1 && COUTG % NG)
.error "conv2d.s: the weights do not fit the scratchpad in COUT/2^j groups (give -D NG, a divisor of COUT and, with GROUPS, of COUT/GROUPS)"
.endif
.equ NGRP, COUT / NG
.equ NT, (NG + COLS - 1) / COLS		# n tiles; the last has NL columns
.equ NL, NG - (NT - 1)*COLS
.if OUT == int8
.equ CB, 1
.elif OUT == bf16
.equ CB, 2
.else
.equ CB, 4
.endif
# The output stage (mout) for narrow outputs, a bias or relu; else the
# accumulator is stored directly.
.equ STAGE, CB != 4 || WITH_BIAS || RELU
.if STAGE
.equ NCBUF, 1				# accumulator blocks: mout frees them
.else
.equ NCBUF, 2
.endif

# Scratchpad layout; buffers start on a bank period.
.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
.equ ALN, PERIOD > 64 ? PERIOD : 64
.equ SPM_ZERO, 0
.if DIRECT
# Direct: the slab is A.  Output (oy, ox) is virtual row oy*VW + ox of
# the block's GEMM, VW = W + 2*PAD: its tap row ky reads KW*CIN contiguous
# bytes of the padded slab from pixel (oy + ky)*VW + ox on, and virtual
# row + 1 is CIN bytes further (sa = CIN: the rows overlap).  The KW - 1
# virtual columns past WO wrap into the next row: computed, never stored.
.equ VW, W + 2*PAD
.equ SR, VW*CING*XB			# bytes per padded slab row
.equ KG, KW*CING			# K of one tap row
.equ KGT, (KG + ROWS - 1) / ROWS	# its k tiles; the last has KGL rows
.equ KGL, KG - (KGT - 1)*ROWS
# Per output row of a block: two slab rows, two Y rows (int8); a slab
# holds RB + KH - 1 rows plus one for the wrapped columns' reads.
.if STAGE
.equ SPM_ROW, 2*SR + 2*VW*NG*CB
.else
.equ SPM_ROW, 2*SR
.endif
.equ SPM_FIX, 6*ALN + SR + K*NG*XB + 4*COUT + 2*KH*SR
.ifndef RB
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX) / SPM_ROW
.equ RB_A, CFG_CORE_ACCUMULATOR_BYTES / (NCBUF*VW*NG*4)
.equ RB_SA, RB_S < RB_A ? RB_S : RB_A
.equ RB_FIT, RB_SA < HO ? RB_SA : HO
.tunable RBSEL, 0, 1, 2, 4, 8, 16, 32, 64
.if RBSEL > RB_FIT
.error "conv2d.s: RBSEL output rows do not fit (or exceed the output)"
.endif
.equ RB, RBSEL ? RBSEL : RB_FIT
.endif
.if RB < 1 || RB > HO
.error "conv2d.s: not even one output row fits: the scratchpad needs 2*(KH+1)*(W+2*PAD)*CIN + K*NG (+ 2*(W+2*PAD)*NG) bytes, the accumulator (W+2*PAD)*NG*4 per block"
.endif
.equ MB, RB*VW				# virtual rows per block
.equ NB, (HO + RB - 1) / RB		# blocks
.equ ZB, SR				# zero row bytes
.equ ABUF, (ZB + ALN - 1) / ALN * ALN	# slab 0; slab 1 at +XBUF_SZ
.equ IR, RB + KH			# slab rows, one for the wrapped reads
.equ XBUF_SZ, (IR*SR + ALN - 1) / ALN * ALN
.equ SPM_B, ABUF + 2*XBUF_SZ
.equ SPM_O, SPM_B + (K*NG*XB + ALN - 1) / ALN * ALN
.equ OBUF_SZ, (MB*NG*CB + ALN - 1) / ALN * ALN
.if STAGE
.equ SPM_PAR, SPM_O + 2*OBUF_SZ
.else
.equ SPM_PAR, SPM_O
.endif
.if SPM_PAR + 4*COUT > CFG_CORE_SCRATCHPAD_BYTES
.error "conv2d.s: the blocks do not fit core.scratchpad.bytes (lower RB)"
.endif
.equ C_SZ, MB*NG*4
.if NCBUF*C_SZ > CFG_CORE_ACCUMULATOR_BYTES
.error "conv2d.s: the blocks do not fit core.accumulator.bytes (lower RB)"
.endif
.else
# Gather: A buffers of MB pixel rows of K bytes, gathered from padded
# input slabs of IR rows of VW = W + 2*PAD pixels.
.equ VW, W + 2*PAD
.equ SR, VW*CING*XB			# bytes per padded slab row
.if STAGE
.equ SPM_ROW, 2*WO*K*XB + 2*WO*NG*CB + 2*S*SR
.else
.equ SPM_ROW, 2*WO*K*XB + 2*S*SR
.endif
.equ SLAB_FIX, (KH - 1)*DIL + 1 - S > 0 ? (KH - 1)*DIL + 1 - S : 0
.equ SPM_FIX, 7*ALN + SR + K*NG*XB + 4*COUT + 2*SLAB_FIX*SR
.ifndef RB
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX) / SPM_ROW
.equ RB_A, CFG_CORE_ACCUMULATOR_BYTES / (NCBUF*WO*NG*4)
.equ RB_SA, RB_S < RB_A ? RB_S : RB_A
.equ RB_FIT, RB_SA < HO ? RB_SA : HO
.tunable RBSEL, 0, 1, 2, 4, 8, 16, 32, 64
.if RBSEL > RB_FIT
.error "conv2d.s: RBSEL output rows do not fit (or exceed the output)"
.endif
.equ RB, RBSEL ? RBSEL : RB_FIT
.endif
.if RB < 1 || RB > HO
.error "conv2d.s: not even one output row fits: the scratchpad needs 2*WO*K + 2*((KH-1)*DIL+1)*(W+2*PAD)*CIN + K*NG (+ 2*WO*NG) bytes, the accumulator WO*NG*4 per block"
.endif
.equ MB, RB*WO				# pixels (A rows) per block
.equ NB, (HO + RB - 1) / RB		# blocks
.equ ZB, SR				# zero row bytes
.equ ABUF, (ZB + ALN - 1) / ALN * ALN	# A buffer 0; buffer 1 at +ABUF_SZ
.equ ABUF_SZ, (MB*K*XB + ALN - 1) / ALN * ALN
.equ IR, (RB - 1)*S + (KH - 1)*DIL + 1	# slab rows a block reads
.equ XBUF, ABUF + 2*ABUF_SZ		# slab 0; slab 1 at +XBUF_SZ
.equ XBUF_SZ, (IR*SR + ALN - 1) / ALN * ALN
.equ SPM_B, XBUF + 2*XBUF_SZ
.equ SPM_O, SPM_B + (K*NG*XB + ALN - 1) / ALN * ALN
.equ OBUF_SZ, (MB*NG*CB + ALN - 1) / ALN * ALN
.if STAGE
.equ SPM_PAR, SPM_O + 2*OBUF_SZ
.else
.equ SPM_PAR, SPM_O
.endif
.if SPM_PAR + 4*COUT > CFG_CORE_SCRATCHPAD_BYTES
.error "conv2d.s: the blocks do not fit core.scratchpad.bytes (lower RB)"
.endif
.equ C_SZ, MB*NG*4
.if NCBUF*C_SZ > CFG_CORE_ACCUMULATOR_BYTES
.error "conv2d.s: the blocks do not fit core.accumulator.bytes (lower RB)"
.endif
.endif

.equ X_DRAM, 0
.equ W_DRAM, (X_DRAM + H*W*CIN*XB + 63) & ~63
.equ BIAS_DRAM, (W_DRAM + K*COUT*XB + 63) & ~63
.equ Y_DRAM, (BIAS_DRAM + 4*COUT + 63) & ~63
.tensor X, dram, X_DRAM, ITYPE, H, W, CIN
.tensor WGT, dram, W_DRAM, ITYPE, K, COUT
.if WITH_BIAS
.tensor BIAS, dram, BIAS_DRAM, ATYPE, COUT
.endif
.tensor Y, dram, Y_DRAM, OUT, HO, WO, COUT

# The zero row the padding copies come from.
.spm SPM_ZERO
.zero ZB

.equ AFULL, 0		# +b: the gather of A buffer b landed
.equ AFREE, 2		# +b: mtx is done with A buffer b
.equ OFULL, 4		# +b: block in Y buffer b (int8) / C buffer b (int32)
.equ OFREE, 6		# +b: the store of buffer b is done
.equ BFULL, 8		# W and the bias table are resident
.equ XFULL, 9		# +b: slab b landed (dma1 -> dma0)
.equ XFREE, 11		# +b: the taps no longer read slab b (dma0 -> dma1)
.equ WFREE, 13		# the folds of a channel group are done (mtx -> dma1)
.equ NBT, NB*NGRP	# flat blocks: every row block of every group
# Who loads the slabs, where, and their semaphores: direct - dma0 into the
# A buffers themselves; gather - dma1 into the slabs the gathers read.
.if DIRECT
.equ SLAB, ABUF
.equ SL_ENG, 0
.equ SL_FREE, AFREE
.equ SL_FULL, AFULL
.else
.equ SLAB, XBUF
.equ SL_ENG, 1
.equ SL_FREE, XFREE
.equ SL_FULL, XFULL
.endif
.equ SL_UNIT, 3 + SL_ENG		# its unit id for sig/wait (dma0 = 3)

.include "lib/cdesc.inc"

# The store of output rows s1 .. s3, channel group s8, from Y buffer b
# (int8) or C buffer b (int32) whose rows are PW pixels of NG channels
# apart: NG channels of each of WO pixels of each row, into Y's COUT.
.macro store b, pw
	wait	dma1, OFULL + (\b), 1
	sub	t2, s3, s1
	li	t1, WO*COUT*CB
	mul	t4, s1, t1
	li	t1, NG*CB
	mul	t3, s8, t1
	add	t4, t4, t3
	li	t1, Y_DRAM
	add	t4, t4, t1
.if STAGE
	li	t3, SPM_O + (\b)*OBUF_SZ
	cdesc	t3, t4, spm, dram, NG*CB, WO, NG*CB, COUT*CB, t2, (\pw)*NG*CB, WO*COUT*CB
.else
	li	t3, (\b)*C_SZ
	cdesc	t3, t4, acc, dram, NG*CB, WO, NG*CB, COUT*CB, t2, (\pw)*NG*CB, WO*COUT*CB
.endif
.endm

# The end of block s0 in buffer b, after its folds: release the A
# buffer, the output stage (one mout of the block's NG channels), release
# the weights after a group's last block, store rows s1 .. s3 of Y (group
# s8; the buffer's rows PW pixels apart), load the next group's weights.
.macro block_end b, pw
.if NL != COLS
	li	t0, COLS
	mset	n, t0
.endif
	sig	mtx, AFREE + (\b)
.if STAGE
	li	t0, NG
	mset	n, t0
	li	t3, SPM_O + (\b)*OBUF_SZ
	li	t4, 0
	mout	t3, t4
	li	t0, COLS
	mset	n, t0
.endif
	sig	mtx, OFULL + (\b)
	groupend wg\@
	store	\b, \pw
	dma	1
	sig	dma1, OFREE + (\b)
	groupnext wn\@
	addi	s0, s0, 1
.endm

# Weights of channel group REG (K rows of NG of the K x COUT matrix), on
# dma1, once the folds of the group before are done.
.macro wload reg
	wait	dma1, WFREE, 1
	li	t1, NG*XB
	mul	t3, \reg, t1
	li	t1, W_DRAM
	add	t3, t3, t1
	li	t4, SPM_B
	li	t1, K
	cdesc	t3, t4, dram, spm, NG*XB, 1, 0, 0, t1, COUT*XB, NG*XB
	dma	1
	sig	dma1, BFULL
.endm

# After the last block of a channel group (s8, s9) with another group to
# come: the folds release the weights (mtx), then dma1 loads the next.
.macro groupend lbl
.if NGRP > 1
	li	t1, NB - 1
	bne	s9, t1, \lbl
	li	t1, NGRP - 1
	bge	s8, t1, \lbl
	sig	mtx, WFREE
\lbl:
.endif
.endm
.macro groupnext lbl
.if NGRP > 1
	li	t1, NB - 1
	bne	s9, t1, \lbl
	li	t1, NGRP - 1
	bge	s8, t1, \lbl
	addi	t6, s8, 1
	wload	t6
\lbl:
.endif
.endm

# Split flat block index REG into s8 = its channel group and s9 = its
# block of output rows.
.macro grp_blk reg
	li	t1, NB
	divu	s8, \reg, t1
	remu	s9, \reg, t1
.endm

# Rows of block REG (a register): s1 = first output row, s3 = one past
# its last; its slab holds padded input rows s1*S .. (s3-1)*S +
# (KH-1)*DIL, of which s7 .. a2 (input rows) lie inside X.
.macro blk_rows reg
	li	t1, RB
	mul	s1, \reg, t1
	add	s3, s1, t1
	li	t1, HO
	bge	t1, s3, br1\@
	mv	s3, t1				# the last block is shorter
br1\@:
	li	t1, S
	mul	s7, s1, t1
	addi	s7, s7, -PAD
	bge	s7, zero, br2\@
	li	s7, 0
br2\@:
	addi	a2, s3, -1
	mul	a2, a2, t1
	addi	a2, a2, (KH - 1)*DIL + 1 - PAD
	li	t1, H
	bge	t1, a2, br3\@
	mv	a2, t1
br3\@:
.endm

# Slab rows r0 .. r1 (registers, slab row numbers) of slab b: zeros.
.macro zero_slab b, r0, r1
	bge	\r0, \r1, zs\@
	sub	t2, \r1, \r0
	li	t1, SR
	mul	t3, \r0, t1
	li	t1, SLAB + (\b)*XBUF_SZ
	add	t3, t3, t1
	li	t4, SPM_ZERO
	cdesc	t4, t3, spm, spm, SR, 1, 0, 0, t2, 0, SR
	dma	SL_ENG
zs\@:
.endm

# The padded slab of flat block REG into slab b, on engine SL_ENG, once
# slab b is free: rows outside X zeroed, the rows inside one strided copy
# (W*CIN bytes each, PAD*CIN bytes into a padded row: the pad columns stay
# zero from the initial clear).
.macro slab_load reg, b
	grp_blk	\reg
	blk_rows s9
	wait	(SL_UNIT), SL_FREE + (\b), 1
	li	t1, S
	mul	a3, s1, t1			# padded row of slab row 0
	addi	a0, s7, PAD
	sub	a0, a0, a3			# first slab row inside X
	zero_slab \b, zero, a0
	addi	a1, a2, PAD
	sub	a1, a1, a3			# one past the last inside X
	addi	t6, s3, -1
	li	t1, S
	mul	t6, t6, t1
	addi	t6, t6, (KH - 1)*DIL + 1
	sub	a3, t6, a3			# slab rows in use
	zero_slab \b, a1, a3
	sub	t2, a2, s7			# rows inside X
	li	t1, W*CIN*XB
	mul	t4, s7, t1
	li	t1, X_DRAM
	add	t4, t4, t1
.if GROUPS > 1
	li	t1, NG
	mul	t1, s8, t1			# the block's first output channel
	li	t0, COUTG
	divu	t1, t1, t0			# its group
	li	t0, CING*XB
	mul	t1, t1, t0
	add	t4, t4, t1			# the group's input channels
.endif
	li	t1, SR
	mul	t3, a0, t1
	li	t1, SLAB + (\b)*XBUF_SZ + PAD*CING*XB
	add	t3, t3, t1
	cdesc	t4, t3, dram, spm, CING*XB, W, CIN*XB, CING*XB, t2, W*CIN*XB, SR
	dma	SL_ENG
	sig	(SL_UNIT), SL_FULL + (\b)
.endm

# Zero the pad columns of both slabs (the slab loads never write them)
# on SL_ENG, then release the slabs to the loads.
.macro clear_pad off
	li	t4, SLAB + (\off)
	dset	dst, t4
	dma	SL_ENG
.endm
.macro clear_slabs
.if PAD
	li	t1, IR
	li	t3, SPM_ZERO
	li	t4, SLAB
	cdesc	t3, t4, spm, spm, PAD*CING*XB, 1, 0, 0, t1, 0, SR
	dma	SL_ENG
	clear_pad (PAD + W)*CING*XB
	clear_pad XBUF_SZ
	clear_pad XBUF_SZ + (PAD + W)*CING*XB
.endif
	sig	(SL_UNIT), SL_FREE + 0
	sig	(SL_UNIT), SL_FREE + 1
.endm

.if DIRECT
# Tap row ky of the n tile at s6 (weights) into C at t4, from slab b: its
# KG rows of W in k tiles (mprep/mmulp step A by ROWS bytes and W by ROWS
# rows); the very first fold of a tile overwrites C, the rest add.
.macro kgroup ky, b
	li	t3, ABUF + (\b)*XBUF_SZ + (\ky)*SR
	li	t1, (\ky)*KG*NG*XB
	add	t5, s6, t1
.if KGT > 1 && KGL != ROWS
	li	t0, ROWS
	mset	k, t0
.endif
	mprep	t5
.if (\ky) == 0
	mmulp	t4, t3, zero
.else
	mmaccp	t4, t3, zero
.endif
.if KGT > 2
	li	s2, KGT - 2
kg\@:
	mprep	t5
	mmaccp	t4, t3, zero
	dbnz	s2, kg\@
.endif
.if KGT > 1
.if KGL != ROWS
	li	t0, KGL
	mset	k, t0
.endif
	mprep	t5
	mmaccp	t4, t3, zero
.endif
.if (\ky) + 1 < KH
	kgroup	(\ky) + 1, \b
.endif
.endm

# Block s0 from slab b: load the next block's slab first, then compute,
# then store the WO valid columns of each output row.
.macro block b
	addi	t6, s0, 1
	li	t1, NBT
	bge	t6, t1, nl\@
	slab_load t6, 1 - (\b)
nl\@:
	grp_blk	s0
	blk_rows s9
	sub	t1, s3, s1
	li	t0, VW
	mul	t1, t1, t0
	mset	m, t1				# MB, or fewer in the last block
	wait	mtx, AFULL + (\b), 1
	bne	s9, zero, wb\@			# a group's first block waits
	wait	mtx, BFULL, 1			# for its weights
wb\@:
.if WITH_BIAS && STAGE
	li	t1, NG*4
	mul	t1, s8, t1
	li	t0, SPM_PAR
	add	t1, t1, t0
	mset	opar, t1			# the group's biases
.endif
	wait	mtx, OFREE + (\b), 1
.if STAGE
	li	t4, 0
.else
	li	t4, (\b)*C_SZ
.endif
	li	s6, SPM_B
	li	s4, NT
nt\@:
.if NL != COLS
	li	t1, 1
	bne	s4, t1, nf\@
	li	t0, NL
	mset	n, t0
nf\@:
.endif
	mv	s5, t4
	kgroup	0, \b
	addi	t4, s5, COLS*4
	addi	s6, s6, COLS*XB
	dbnz	s4, nt\@
	block_end \b, VW			# Y rows: WO of every VW virtual columns
.endm
.else
# Gather flat block REG's A into buffer b from slab b, on dma0 (on-chip
# copies): per tap row one 3-D copy of KW*CIN contiguous bytes per output
# pixel (per tap and CIN bytes with a dilation), every pixel of every row.
.macro gtap ky, kx, b
	li	t4, XBUF + (\b)*XBUF_SZ + (\ky)*DIL*SR + (\kx)*DIL*CING*XB
	li	t3, ABUF + (\b)*ABUF_SZ + ((\ky)*KW + (\kx))*CING*XB
.if DIL == 1
	cdesc	t4, t3, spm, spm, KW*CING*XB, WO, S*CING*XB, K*XB, t2, S*SR, WO*K*XB
	dma	0
.else
	cdesc	t4, t3, spm, spm, CING*XB, WO, S*CING*XB, K*XB, t2, S*SR, WO*K*XB
	dma	0
.if (\kx) + 1 < KW
	gtap	\ky, (\kx) + 1, \b
.endif
.endif
.if (\kx) == 0 && (\ky) + 1 < KH
	gtap	(\ky) + 1, 0, \b
.endif
.endm
.macro gather reg, b
	grp_blk	\reg
	blk_rows s9
	wait	dma0, AFREE + (\b), 1
	wait	dma0, XFULL + (\b), 1
	sub	t2, s3, s1			# output rows
	gtap	0, 0, \b
	sig	dma0, AFULL + (\b)
	sig	dma0, XFREE + (\b)
.endm

.macro ntile
	mprep	t5
.if KT == 1
	mmulp	t4, t3, zero
.else
	mmulp	t4, t3, zero
.if KT > 2
	li	s2, KT - 2
nk\@:
	mprep	t5
	mmaccp	t4, t3, zero
	dbnz	s2, nk\@
.endif
.if KL != ROWS
	li	t0, KL
	mset	k, t0
.endif
	mprep	t5
	mmaccp	t4, t3, zero
.if KL != ROWS
	li	t0, ROWS
	mset	k, t0
.endif
.endif
.endm

# Block s0 in buffer b: gather the next block first, then compute, then
# store.
.macro block b
	addi	t6, s0, 2
	li	t1, NBT
	bge	t6, t1, ns\@
	slab_load t6, \b			# block s0+2 reuses slab b
ns\@:
	addi	t6, s0, 1
	li	t1, NBT
	bge	t6, t1, nl\@
	gather	t6, 1 - (\b)
nl\@:
	grp_blk	s0
	li	t1, RB
	mul	s1, s9, t1			# this block's first row
	add	s3, s1, t1
	li	t1, HO
	bge	t1, s3, rb\@
	mv	s3, t1
rb\@:
	sub	t1, s3, s1
	li	t0, WO
	mul	t1, t1, t0
	mset	m, t1				# MB, or fewer in the last block
	wait	mtx, AFULL + (\b), 1
	bne	s9, zero, wb\@			# a group's first block waits
	wait	mtx, BFULL, 1			# for its weights
wb\@:
.if WITH_BIAS && STAGE
	li	t1, NG*4
	mul	t1, s8, t1
	li	t0, SPM_PAR
	add	t1, t1, t0
	mset	opar, t1			# the group's biases
.endif
.if STAGE
	wait	mtx, OFREE + (\b), 1
	li	t4, 0
.else
	wait	mtx, OFREE + (\b), 1
	li	t4, (\b)*C_SZ
.endif
	li	t5, SPM_B
	li	s4, NT
nt\@:
	li	t3, ABUF + (\b)*ABUF_SZ
.if NL != COLS
	li	t1, 1
	bne	s4, t1, nf\@
	li	t0, NL
	mset	n, t0
nf\@:
.endif
	mv	s5, t4
	mv	s6, t5
	ntile
	addi	t4, s5, COLS*4
	addi	t5, s6, COLS*XB
	dbnz	s4, nt\@
	block_end \b, WO
.endm

.endif

.text
	rbeg	conv2d
	li	t0, ws
	mset	df, t0
	li	t0, ITYPE
	mset	itype, t0
	li	t0, ATYPE
	mset	atype, t0
	li	t0, ROWS
	mset	k, t0
	li	t0, ROWS*XB
	mset	ia, t0				# next k tile: ROWS elements along A rows
	li	t0, COLS
	mset	n, t0
.if DIRECT
	li	t0, CING*XB
	mset	sa, t0				# virtual rows: CING elements apart
.if KGT == 1
	li	t0, KG
	mset	k, t0				# one k tile per tap row
.endif
.else
	li	t0, K*XB
	mset	sa, t0				# A rows: K elements
.endif
	li	t0, NG*XB
	mset	sb, t0				# W rows: a group's NG elements
	li	t0, ROWS*NG*XB
	mset	ib, t0				# next k tile: ROWS rows of W
	li	t0, NG*4
	mset	sc, t0				# C rows: NG int32
.if STAGE
	li	t0, OUT
	mset	otype, t0
.if OUT == int8
	li	t0, (127 - SHIFT) << 23		# 2^-SHIFT as fp32 bits
.else
	li	t0, f32(1.0)
.endif
	mset	oscale, t0
	li	t0, NG*CB
	mset	so, t0
.if RELU
	li	t0, relu
	mset	oact, t0
.endif
.if WITH_BIAS
	li	t0, obias
	mset	ofuse, t0
	li	t0, SPM_PAR
	mset	opar, t0
.endif
.endif

	# The bias table, then the first group's weights, on dma1 (BFULL
	# covers both); the slabs cleared by their loader.
.if WITH_BIAS
	li	t1, 1
	li	t3, BIAS_DRAM
	li	t4, SPM_PAR
	cdesc	t3, t4, dram, spm, 4*COUT, 1, 0, 0, t1, 0, 0
	dma	1
.endif
	sig	ctl, WFREE
	li	t6, 0
	wload	t6
	clear_slabs
	sig	ctl, OFREE + 0
	sig	ctl, OFREE + 1
	li	s0, 0
	slab_load s0, 0
.if !DIRECT
	sig	ctl, AFREE + 0			# the A buffers: every byte
	sig	ctl, AFREE + 1			# is gathered each block
.if NBT > 1
	li	s0, 1
	slab_load s0, 1
.endif
	li	s0, 0
	gather	s0, 0
.endif
	block	0
	li	t1, NBT
	bge	s0, t1, done
loop:
	block	1
	li	t1, NBT
	bge	s0, t1, done
	block	0
	li	t1, NBT
	blt	s0, t1, loop
done:
	fence	all
	rend	conv2d
	halt
