# dwconv2d.s - Y = depthwise conv2d(X, W) (+ bias, relu), int8 NHWC, on the
# vector unit.
#
# Computes Y[oy][ox][c] = sat8(rne(act(bias[c] + sum over ky, kx of
# X[oy*S + ky - PAD][ox*S + kx - PAD][c] * W[ky*K + kx][c]) / 2^SHIFT))
# (taps outside X are zeros): every channel convolved with its own K x K
# filter - MobileNet's and EfficientNet's depthwise layers, groups = C.
# The systolic array would use one column of one row per channel (a K*K x
# 1 weight tile per channel), so the vector unit, which applies a filter
# tap to a row of pixels x all channels in one instruction, does it.
#
#   dma1  W (K*K x C) and the bias once; vec widens them to int32 and
#         broadcasts each tap's row over WC pixels (vbrow), once
#   for every block of RB output rows, slab b:
#     dma0  the padded input rows the block needs (one strided copy; rows
#           outside X zero-filled on chip) - one block ahead
#     vec   the slab widened to int32 (vcvt); per output row and chunk of
#           WC pixels: the accumulator from the bias tile, then per tap a
#           vmul (tap's weight tile x the tap's pixels, read in place, S*C
#           elements apart) and a vadd; relu (vmaxs 0); vquant by 2^SHIFT
#     dma1  stores the block's rows of Y (contiguous in NHWC)
#
# Layouts.  DRAM: X (H x W x C int8), WGT (K*K x C int8: row ky*K + kx has
# every channel's weight of that tap), BIAS (C int32, WITH_BIAS=1), Y (HO x
# WO x C int8).  Scratchpad: a zero row, two padded slabs (IR = (RB-1)*S +
# K rows of (W + 2*PAD)*C bytes) and one int32 copy, the int32 weight
# tiles (K*K x WC x C) and bias tile, accumulator and product tiles (WC x
# C int32), two Y buffers (RB*WO*C bytes).
# Footprint: (1 + 2*IR + 4*IR)*(W+2*PAD)*C + 4*C*(K*K*(WC + 1) + 3*WC + 1)
# + 2*RB*WO*C bytes (+ alignment); RB and WC default to what fits.
# Parameters: H, W, C, K (3), S (1), PAD (K/2), SHIFT (8), WITH_BIAS,
# RELU, RB, WC.

.ifndef H
.equ H, 16
.endif
.ifndef W
.equ W, 16
.endif
.ifndef C
.equ C, 32
.endif
.ifndef K
.equ K, 3
.endif
.ifndef S
.equ S, 1
.endif
.ifndef PAD
.equ PAD, K / 2
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
.equ HO, (H + 2*PAD - K) / S + 1
.equ WO, (W + 2*PAD - K) / S + 1
# (tested on the sizes: the assembler's / truncates toward zero)
.if H + 2*PAD < K || W + 2*PAD < K || PAD >= K
.error "dwconv2d.s: the window does not fit the padded input (or PAD >= K)"
.endif
.equ KK, K*K
.equ VW, W + 2*PAD
.equ SR, VW*C				# bytes per padded slab row

.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
.equ ALN, PERIOD > 64 ? PERIOD : 64
# WC: pixels per vector chunk - the weight tiles (KK of WC x C int32) take
# at most an eighth of the scratchpad
.ifndef WC
.equ WC_S, CFG_CORE_SCRATCHPAD_BYTES / 8 / (4*C*(KK + 3))
.equ WC, WC_S < WO ? WC_S : WO
.endif
.if WC < 1
.error "dwconv2d.s: C too large for one pixel's weight tiles in the scratchpad"
.endif
.equ SPM_FIX, 12*ALN + SR + 4*C*(KK*(WC + 1) + 3*WC + 1) + 6*(K - S > 0 ? K - S : 0)*SR
.equ SPM_ROW, 6*S*SR + 2*WO*C
.ifndef RB
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX) / SPM_ROW
.equ RB, RB_S < HO ? RB_S : HO
.endif
.if RB < 1 || RB > HO
.error "dwconv2d.s: not even one output row fits the scratchpad"
.endif
.equ IR, (RB - 1)*S + K
.equ NB, (HO + RB - 1) / RB
.equ SPM_FILLROW, 0
.equ SLAB, (SR + ALN - 1) / ALN * ALN	# slab 0; slab 1 at +XBUF_SZ
.equ XBUF_SZ, (IR*SR + ALN - 1) / ALN * ALN
.equ SPM_WIDE, SLAB + 2*XBUF_SZ		# the slab as int32
.equ SPM_WT, SPM_WIDE + (4*IR*SR + ALN - 1) / ALN * ALN	# KK x C int8
.equ SPM_WT32, SPM_WT + (KK*C + ALN - 1) / ALN * ALN	# KK x C int32
.equ SPM_WB, SPM_WT32 + (4*KK*C + ALN - 1) / ALN * ALN	# KK tiles WC x C
.equ WB_SZ, 4*WC*C
.equ SPM_BIAS, SPM_WB + KK*WB_SZ	# C int32
.equ SPM_BB, SPM_BIAS + (4*C + ALN - 1) / ALN * ALN	# bias tile WC x C
.equ SPM_ACC, SPM_BB + (WB_SZ + ALN - 1) / ALN * ALN
.equ SPM_TMP, SPM_ACC + (WB_SZ + ALN - 1) / ALN * ALN
.equ SPM_O, SPM_TMP + (WB_SZ + ALN - 1) / ALN * ALN
.equ OBUF_SZ, (RB*WO*C + ALN - 1) / ALN * ALN
.if SPM_O + 2*OBUF_SZ > CFG_CORE_SCRATCHPAD_BYTES
.error "dwconv2d.s: the blocks do not fit core.scratchpad.bytes (lower RB or WC)"
.endif

.equ X_DRAM, 0
.equ W_DRAM, (H*W*C + 63) & ~63
.equ BIAS_DRAM, (W_DRAM + KK*C + 63) & ~63
.equ Y_DRAM, (BIAS_DRAM + 4*C + 63) & ~63
.tensor X, dram, X_DRAM, int8, H, W, C
.tensor WGT, dram, W_DRAM, int8, KK, C
.if WITH_BIAS
.tensor BIAS, dram, BIAS_DRAM, int32, C
.endif
.tensor Y, dram, Y_DRAM, int8, HO, WO, C

.spm SPM_FILLROW
.zero SR

.equ AFULL, 0		# +b: slab b landed (dma0 -> vec)
.equ AFREE, 2		# +b: the vector unit is done with slab b
.equ OFULL, 4		# +b: Y buffer b holds the block
.equ OFREE, 6		# +b: its store is done
.equ WFULL, 8		# the weights and bias landed (dma1 -> vec)

.include "lib/slab2d.inc"


# One tap (ky, kx) of the chunk: TMP = weight tile * pixels (every S-th
# pixel of slab row a0*S + ky from pixel s4*S + kx), ACC += TMP.
.macro tap ky, kx
	li	t1, S*SR*4
	mul	t4, a0, t1
	li	t1, S*C*4
	mul	t5, s4, t1
	add	t4, t4, t5
	li	t1, SPM_WIDE + ((\ky)*SR + (\kx)*C)*4
	add	t4, t4, t1
	li	t3, SPM_WB + ((\ky)*K + (\kx))*WB_SZ
.if S > 1
	li	t0, S*C*4
	vset	ss2, t0
.endif
	vmul	a4, t3, t4
.if S > 1
	li	t0, C*4
	vset	ss2, t0
.endif
	vadd	a5, a5, a4
.if (\kx) + 1 < K
	tap	\ky, (\kx) + 1
.elif (\ky) + 1 < K
	tap	(\ky) + 1, 0
.endif
.endm

.macro block b
	addi	t6, s0, 1
	li	t1, NB
	bge	t6, t1, nl\@
	slab_load t6, 1 - (\b)
nl\@:
	blk_rows s0
	wait	vec, AFULL + (\b), 1
	wait	vec, OFREE + (\b), 1
	# the slab widened to int32 once: the taps then read it in place
	li	t0, int8
	vset	type, t0
	li	t0, int32
	vset	otype, t0
	li	t0, IR
	vset	rows, t0
	li	t0, SR
	vset	len, t0
	vset	ss1, zero
	vset	ss2, zero
	vset	sd, zero
	li	t3, SPM_WIDE
	li	t4, SLAB + (\b)*XBUF_SZ
	vcvt	t3, t4
	li	t0, int32
	vset	type, t0
	li	t0, C
	vset	len, t0
	li	t0, C*4
	vset	sd, t0
	vset	ss1, t0
	vset	ss2, t0
	li	a4, SPM_TMP
	li	a5, SPM_ACC
	sub	s2, s3, s1			# output rows
	li	a0, 0
rw\@:
	li	s4, 0				# first pixel of the chunk
ck\@:
	li	t1, WO
	sub	t2, t1, s4
	li	t1, WC
	bge	t1, t2, cn\@
	mv	t2, t1
cn\@:
	vset	rows, t2			# this chunk's pixels
	mv	s5, t2
	li	t3, SPM_BB
	vmov	a5, t3				# ACC = bias
	tap	0, 0
.if RELU
	vmaxs	a5, a5, zero
.endif
	li	t0, int8
	vset	otype, t0
	li	t0, (127 + SHIFT) << 23		# 2^SHIFT as fp32 bits
	vset	scale, t0
	li	t0, C
	vset	sd, t0
	li	t1, WO*C
	mul	t2, a0, t1
	li	t1, C
	mul	t3, s4, t1
	add	t2, t2, t3
	li	t1, SPM_O + (\b)*OBUF_SZ
	add	t2, t2, t1
	vquant	t2, a5				# sat8(rne(ACC / 2^SHIFT))
	li	t0, C*4
	vset	sd, t0
	add	s4, s4, s5
	li	t1, WO
	blt	s4, t1, ck\@
	addi	a0, a0, 1
	blt	a0, s2, rw\@
	sig	vec, AFREE + (\b)
	sig	vec, OFULL + (\b)
	wait	dma1, OFULL + (\b), 1
	sub	t2, s3, s1
	li	t1, WO*C
	mul	t2, t2, t1
	mul	t4, s1, t1
	li	t1, Y_DRAM
	add	t4, t4, t1
	li	t3, SPM_O + (\b)*OBUF_SZ
	li	t1, 1
	cdesc	t3, t4, spm, dram, 1, 1, 0, 0, t1, 0, 0
	dset	n0, t2
	dma	1
	sig	dma1, OFREE + (\b)
	addi	s0, s0, 1
.endm

.text
	rbeg	dwconv2d
	# weights (and bias) on dma1, widened and broadcast by vec, once
	li	t3, W_DRAM
	li	t4, SPM_WT
	li	t1, 1
	cdesc	t3, t4, dram, spm, KK*C, 1, 0, 0, t1, 0, 0
	dma	1
.if WITH_BIAS
	li	t3, BIAS_DRAM
	li	t4, SPM_BIAS
	cdesc	t3, t4, dram, spm, 4*C, 1, 0, 0, t1, 0, 0
	dma	1
.endif
	sig	dma1, WFULL
	wait	vec, WFULL, 1
	li	t0, int8
	vset	type, t0
	li	t0, int32
	vset	otype, t0
	li	t0, KK
	vset	rows, t0
	li	t0, C
	vset	len, t0
	li	t3, SPM_WT32
	li	t4, SPM_WT
	vcvt	t3, t4				# KK x C int32
	li	t0, int32
	vset	type, t0
	li	t0, WC
	vset	rows, t0
	li	t0, C*4
	vset	sd, t0
	li	s2, KK
	li	t3, SPM_WB
	li	t4, SPM_WT32
wb:
	vbrow	t3, t4				# tap t's row over WC pixels
	li	t1, WB_SZ
	add	t3, t3, t1
	addi	t4, t4, C*4
	dbnz	s2, wb
	li	t3, SPM_BB
.if WITH_BIAS
	li	t4, SPM_BIAS
	vbrow	t3, t4
.else
	vbcast	t3, zero
.endif
	run_blocks
	rend	dwconv2d
	halt
