# dwconv2d.s - Y = depthwise conv2d(X, W) (+ bias, relu / relu6), int8 or
# bf16 NHWC, on the vector unit, SPMD over the cores.
#
# Computes Y[oy][ox][c] = out(act(bias[c] + sum over ky, kx of
# X[oy*S + ky - PAD][ox*S + kx - PAD][c] * W[ky*K + kx][c])) (taps outside
# X are zeros): every channel convolved with its own K x K filter -
# MobileNet's and EfficientNet's depthwise layers, groups = C.  int8: the
# sum in int32, out = sat8(rne(v / 2^SHIFT)); bf16: the products (exact)
# and the sum in fp32, an fp32 bias, out = v rounded once into bf16.
# The systolic array would use one column of one row per channel (a K*K x
# 1 weight tile per channel), so the vector unit, which applies a filter
# tap to a row of pixels x all channels in one instruction, does it.
#
#   dma1  W (K*K x C) and the bias once; vec widens them to int32 / fp32
#         and broadcasts each tap's row over WC pixels (vbrow), once (per
#         channel slice, below)
#   for every block of RB output rows, slab b:
#     dma0  the padded input rows the block needs (one strided copy; rows
#           outside X zero-filled on chip) - one block ahead
#     vec   the slab widened to int32 / fp32 (vcvt); per output row and
#           chunk of WC pixels (stride 1 and fewer channels than lanes: as
#           one row of WC*C elements): the accumulator from the bias tile, then
#           per tap a vmul (tap's weight tile x the tap's pixels, read in
#           place, S*C elements apart) and a vadd; relu (vmaxs 0), relu6
#           (vmins); int8 vquant by 2^SHIFT, bf16 vcvt
#     dma1  stores the block's rows of Y (contiguous in NHWC)
#
# RELU: 0 none, 1 relu, 2 relu6 - relu, then min with 6.0 (bf16; exact:
# min commutes with the final rounding) or, int8, with CLIP in Y's units
# (the quantised 6, rne(6/s_Y)): the accumulator is clipped at CLIP *
# 2^SHIFT before the requantisation, which equals min(Y, CLIP); CLIP's
# default 127 is the saturation itself (no extra operation).
#
# Cores (csrr coreid; lib/slab2d.inc): blocks of output rows dealt round
# the cores (block-cyclic); when the output has fewer rows than cores the
# channels are split too, into PC slices of C/PC, each core loading its
# slice of W and the bias (SPLIT=1 rows only, SPLIT=2 channels only, or
# -D PC); `barrier` at the end.  One core: the single-core schedule.
#
# Channel slices over time: when the weight tiles of one pixel (an eighth
# of the scratchpad at most) or one output row of a core's CS = C/PC
# channels do not fit (MobileNet-v2's 960-channel layers on 256 KiB), the
# core walks its channels CT at a time, as few slices as fit (CT a
# multiple of the vector lanes where possible, the last slice the rest),
# every slice running all the core's row blocks.  A slice's weights and
# bias come on dma0 with the slab of its first block (one block ahead, as
# the slabs) and its first block builds their tiles.  When all CS
# channels fit, CT = CS: the schedule above.  -D CT forces a width.
#
# Layouts.  DRAM: X (H x W x C), WGT (K*K x C: row ky*K + kx has every
# channel's weight of that tap), Y (HO x WO x C), all of ITYPE; BIAS (C
# int32 / fp32, WITH_BIAS=1).  X_DRAM, W_DRAM, BIAS_DRAM, Y_DRAM can be
# given (-D, 64-byte aligned).  Scratchpad (per core, CT channels a slab,
# E = element bytes, 1 or 2): a zero row, two padded slabs (IR = (RB-1)*S
# + K rows of (W + 2*PAD)*CT elements) and one 4-byte copy, the weights
# (K*K x CT) and their 4-byte tiles (K*K x WC x CT) and bias tile,
# accumulator and product tiles (WC x CT 4-byte), two Y buffers (RB*WO*CT
# elements).
# Footprint: E*(1 + 2*IR)*(W+2*PAD)*CT + 4*IR*(W+2*PAD)*CT + E*K*K*CT +
# 4*CT*(K*K*(WC + 1) + 3*WC + 1) + 2*E*RB*WO*CT bytes (+ alignment); RB
# and WC default to what fits (several cores: RB at most half a core
# row's share).  Parameters: H, W, C, K (3), S (1), PAD (K/2), ITYPE
# (int8, bf16), SHIFT (8), WITH_BIAS, RELU, CLIP, SPLIT, PC, CT, RB, WC,
# and the DRAM bases.
.include "lib/conv_abi.inc"
.include "lib/slab2d.inc"
	slab_params dwconv2d.s, 1, K / 2	# H, W, C, K, S, PAD, ITYPE; HO, WO
.ifndef SHIFT
.equ SHIFT, 8
.endif
.ifndef WITH_BIAS
.equ WITH_BIAS, 0
.endif
.ifndef RELU
.equ RELU, CONV_RELU_NONE
.endif
.if RELU < 0 || RELU > CONV_RELU_RELU6
.error "dwconv2d.s: RELU is 0 (none), 1 (relu) or 2 (relu6)"
.endif
.equ FLT, ITYPE == bf16
.equ EB, FLT ? 2 : 1			# bytes per element of X, W and Y
.equ WTYPE, FLT ? fp32 : int32		# the type of the sums
.ifndef CLIP
.equ CLIP, 127
.endif
.if !FLT && CLIP < 0
.error "dwconv2d.s: CLIP is an int8 bound, >= 0 (127 and above: the saturation)"
.endif
.equ CLIPV, RELU == CONV_RELU_RELU6 && (FLT || CLIP < 127)	# relu6 needs a vmins
.equ CLIPBITS, FLT ? f32(6.0) : CLIP << SHIFT
.equ KK, K*K
	core_grid dwconv2d.s

# Channel slices over time (lib/slab2d.inc's ct_grid): all CS channels in
# one slab when the weight tiles and one output row fit as below (WC_S >=
# 1, RB_S >= 1); otherwise slabs of CT channels, at most CT_FIT: the
# footprint is 12*ALN + CT*(DW_CH + WC*DW_WC) bytes (SPM_FIX + SPM_ROW
# with RB = 1), WC*CT*DW_WC bytes of it the pixel chunk's tiles (at most
# an eighth of the scratchpad when WC is chosen here).
.equ DW_SR, VW*EB*(2 + 4/EB)		# per channel: a slab row, narrow and wide
.equ DW_CH, VW*EB + EB*KK + 4*(KK + 1) + DW_SR*((K > S ? K - S : 0) + S) + 2*WO*EB
.equ DW_WC, 4*(KK + 3)
.ifdef WC
.equ DW_WCF, WC
.equ CT_FIT, (CFG_CORE_SCRATCHPAD_BYTES - 12*ALN) / (DW_CH + WC*DW_WC)
.else
.equ DW_WC0, CFG_CORE_SCRATCHPAD_BYTES / 8 / (DW_WC*CS)
.equ DW_WCF, DW_WC0 < WO ? DW_WC0 : WO
.equ CT_FW, CFG_CORE_SCRATCHPAD_BYTES / 8 / DW_WC
.equ CT_FR, (CFG_CORE_SCRATCHPAD_BYTES - CFG_CORE_SCRATCHPAD_BYTES / 8 - 12*ALN) / DW_CH
.equ CT_FIT, CT_FW < CT_FR ? CT_FW : CT_FR
.endif
	ct_grid dwconv2d.s, DW_WCF >= 1 && 12*ALN + CS*(DW_CH + DW_WCF*DW_WC) <= CFG_CORE_SCRATCHPAD_BYTES, CT_FIT

.equ SR, VW*CT*EB			# bytes per padded slab row
.equ SRE, VW*CT				# its elements
# LONG: with stride 1 every operand of a chunk (its pixels of the slab,
# the weight and bias tiles, the accumulator, the output) is one
# contiguous run of WC*CT elements, so when a pixel's CT channels fill
# less than the vector unit's lanes the chunk runs as one row of WC*CT
# elements instead of WC rows of CT (a 32-channel layer on 128 lanes:
# 4x fewer lane groups).
.equ LONG, S == 1 && CT < CFG_CORE_VECTOR_LANES
# WC: pixels per vector chunk - the weight tiles (KK of WC x CT 4-byte)
# take at most an eighth of the scratchpad
.ifndef WC
.equ WC_S, CFG_CORE_SCRATCHPAD_BYTES / 8 / (4*CT*(KK + 3))
.equ WC, WC_S < WO ? WC_S : WO
.endif
.if WC < 1
.error "dwconv2d.s: C too large for one pixel's weight tiles in the scratchpad"
.endif
.equ SPM_FIX, 12*ALN + SR + EB*KK*CT + 4*CT*(KK*(WC + 1) + 3*WC + 1) + (2 + 4/EB)*(K - S > 0 ? K - S : 0)*SR
.equ SPM_ROW, (2 + 4/EB)*S*SR + 2*WO*CT*EB
	slab_blocks dwconv2d.s
.equ SPM_WT, SPM_WIDE + (4*IR*SRE + ALN - 1) / ALN * ALN	# KK x CT
.equ SPM_WT32, SPM_WT + (KK*CT*EB + ALN - 1) / ALN * ALN	# KK x CT 4-byte
.equ SPM_WB, SPM_WT32 + (4*KK*CT + ALN - 1) / ALN * ALN	# KK tiles WC x CT
.equ WB_SZ, 4*WC*CT
.equ SPM_BIAS, SPM_WB + KK*WB_SZ	# CT int32 / fp32
.equ SPM_BB, SPM_BIAS + (4*CT + ALN - 1) / ALN * ALN	# bias tile WC x CT
.equ SPM_ACC, SPM_BB + (WB_SZ + ALN - 1) / ALN * ALN
.equ SPM_TMP, SPM_ACC + (WB_SZ + ALN - 1) / ALN * ALN
.equ SPM_O, SPM_TMP + (WB_SZ + ALN - 1) / ALN * ALN
.equ OBUF_SZ, (RB*WO*CT*EB + ALN - 1) / ALN * ALN
.if SPM_O + 2*OBUF_SZ > CFG_CORE_SCRATCHPAD_BYTES
.error "dwconv2d.s: the blocks do not fit core.scratchpad.bytes (lower RB or WC)"
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one); by default X,
# WGT, BIAS and Y follow each other from 0.  Overlaps are refused.
.include "lib/dram.inc"
	dram_base X_DRAM, 0
	dram_base W_DRAM, (X_DRAM + H*W*C*EB + 63) & ~63
	dram_base BIAS_DRAM, (W_DRAM + KK*C*EB + 63) & ~63
	dram_base Y_DRAM, (BIAS_DRAM + 4*C + 63) & ~63
.equ Y_END, Y_DRAM + HO*WO*C*EB
.if (Y_DRAM < X_DRAM + H*W*C*EB && X_DRAM < Y_END) || (Y_DRAM < W_DRAM + KK*C*EB && W_DRAM < Y_END) || (WITH_BIAS && Y_DRAM < BIAS_DRAM + 4*C && BIAS_DRAM < Y_END)
.error "dwconv2d.s: Y overlaps an input in DRAM"
.endif
.if (X_DRAM < W_DRAM + KK*C*EB && W_DRAM < X_DRAM + H*W*C*EB) || (WITH_BIAS && ((BIAS_DRAM < W_DRAM + KK*C*EB && W_DRAM < BIAS_DRAM + 4*C) || (BIAS_DRAM < X_DRAM + H*W*C*EB && X_DRAM < BIAS_DRAM + 4*C)))
.error "dwconv2d.s: the inputs X, WGT, BIAS overlap in DRAM"
.endif
.tensor X, dram, X_DRAM, ITYPE, H, W, C
.tensor WGT, dram, W_DRAM, ITYPE, KK, C
.if WITH_BIAS
.tensor BIAS, dram, BIAS_DRAM, WTYPE, C
.endif
.tensor Y, dram, Y_DRAM, ITYPE, HO, WO, C

.spm SPM_FILLROW
.zero SR

# (semaphores 0 .. 7: lib/slab2d.inc's)
.equ WFULL, 8		# the weights and bias landed (dma1 / dma0 -> vec)
.equ WFREE, 9		# several slices: the vector unit is done with them


# One tap (ky, kx) of the chunk: TMP = weight tile * pixels (every S-th
# pixel of slab row a0*S + ky from pixel s4*S + kx), ACC += TMP.
.macro tap ky, kx
	li	t1, S*SRE*4
	mul	t4, a0, t1
	li	t1, S*CT*4
	mul	t5, s4, t1
	add	t4, t4, t5
	li	t1, SPM_WIDE + ((\ky)*SRE + (\kx)*CT)*4
	add	t4, t4, t1
	li	t3, SPM_WB + ((\ky)*K + (\kx))*WB_SZ
.if S > 1
	li	t0, S*CT*4
	vset	ss2, t0
.endif
	vmul	a4, t3, t4
.if S > 1
	li	t0, CT*4
	vset	ss2, t0
.endif
	vadd	a5, a5, a4
.if (\kx) + 1 < K
	tap	\ky, (\kx) + 1
.elif (\ky) + 1 < K
	tap	(\ky) + 1, 0
.endif
.endm

# Block s0 (slice s8) from slab b: a slice's first block builds its weight
# tiles; load the core's next slab (and, with it, the next slice's
# weights), convolve, store.
.macro block b
.if NT > 1
	bne	s0, s11, wt\@
	wt_build
wt\@:
.endif
	blk_prefetch \b
.if NT > 1
	beq	s6, s8, wn\@
	li	t1, NT
	bge	s6, t1, wn\@
	wt_fetch s6, 0
wn\@:
.endif
	blk_rows s0
	wait	vec, AFULL + (\b), 1
	wait	vec, OFREE + (\b), 1
	slab_widen \b, 1
	li	t0, CT
	vset	len, t0
	li	t0, CT*4
	vset	sd, t0
	vset	ss1, t0
	vset	ss2, t0
.if LONG
	li	t0, 1
	vset	rows, t0
.endif
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
.if LONG
	li	t1, CT
	mul	t1, t2, t1
	vset	len, t1				# the chunk as one row
.else
	vset	rows, t2			# this chunk's pixels
.endif
	mv	s5, t2
	li	t3, SPM_BB
	vmov	a5, t3				# ACC = bias
	tap	0, 0
.if RELU
	vmaxs	a5, a5, zero
.endif
.if CLIPV
	li	t0, CLIPBITS
	vmins	a5, a5, t0			# relu6
.endif
.if FLT
	li	t0, bf16
	vset	otype, t0
	li	t0, CT*2
	vset	sd, t0
.else
	li	t0, int8
	vset	otype, t0
	li	t0, (127 + SHIFT) << 23		# 2^SHIFT as fp32 bits
	vset	scale, t0
	li	t0, CT
	vset	sd, t0
.endif
	li	t1, WO*CT*EB
	mul	t2, a0, t1
	li	t1, CT*EB
	mul	t3, s4, t1
	add	t2, t2, t3
	li	t1, SPM_O + (\b)*OBUF_SZ
	add	t2, t2, t1
.if FLT
	vcvt	t2, a5				# rounded once into bf16
.else
	vquant	t2, a5				# sat8(rne(ACC / 2^SHIFT))
.endif
	li	t0, CT*4
	vset	sd, t0
	add	s4, s4, s5
	li	t1, WO
	blt	s4, t1, ck\@
	addi	a0, a0, 1
	blt	a0, s2, rw\@
	blk_done \b
.endm

# The weights (and bias) of channel slice CT (a register) on dma0: KK
# rows of CT (CL) channels and CT (CL) biases (several slices: the next
# slice's, fetched with the block before its first, once the vector unit
# has built this slice's tiles from them).
.macro wt_fetch ct, first
.if !(\first)
	wait	dma0, WFREE, 1
.endif
	li	t3, W_DRAM
.if PC > 1
	add	t3, t3, s10			# this core's channels
.endif
	li	t1, CT*EB
	mul	t5, \ct, t1
	add	t3, t3, t5			# the slice's channels
	li	t4, SPM_WT
	li	t1, 1
	cdesc	t3, t4, dram, spm, CT*EB, KK, C*EB, CT*EB, t1, 0, 0
	ct_last	\ct, CL*EB, n0
	dma	0
.if WITH_BIAS
	li	t3, BIAS_DRAM
.if PC > 1
	li	t0, 4 / EB
	mul	t0, s10, t0
	add	t3, t3, t0
.endif
	li	t1, CT*4
	mul	t5, \ct, t1
	add	t3, t3, t5
	li	t4, SPM_BIAS
	li	t1, 1
	cdesc	t3, t4, dram, spm, 4*CT, 1, 0, 0, t1, 0, 0
	ct_last	\ct, CL*4, n0
	dma	0
.endif
	sig	dma0, WFULL
.endm

# The vector unit's tiles of the weights landed in SPM_WT (and the bias):
# KK x CT widened to int32 / fp32, each tap's row broadcast over WC pixels
# (vbrow), the bias tile; several slices: SPM_WT is then free again.
.macro wt_build
	wait	vec, WFULL, 1
	li	t0, ITYPE
	vset	type, t0
	li	t0, WTYPE
	vset	otype, t0
	li	t0, KK
	vset	rows, t0
	li	t0, CT
	vset	len, t0
.if NT > 1
	vset	ss1, zero			# dense (the blocks set strides)
	vset	sd, zero
.endif
	li	t3, SPM_WT32
	li	t4, SPM_WT
	vcvt	t3, t4				# KK x CT int32 / fp32
	li	t0, WTYPE
	vset	type, t0
	li	t0, WC
	vset	rows, t0
	li	t0, CT*4
	vset	sd, t0
	li	s2, KK
	li	t3, SPM_WB
	li	t4, SPM_WT32
wb\@:
	vbrow	t3, t4				# tap t's row over WC pixels
	li	t1, WB_SZ
	add	t3, t3, t1
.if CT*4 < 8192
	addi	t4, t4, CT*4
.else
	li	t1, CT*4
	add	t4, t4, t1
.endif
	dbnz	s2, wb\@
	li	t3, SPM_BB
.if WITH_BIAS
	li	t4, SPM_BIAS
	vbrow	t3, t4
.else
	vbcast	t3, zero
.endif
.if NT > 1
	sig	vec, WFREE
.endif
.endm

.text
	rbeg	dwconv2d
.if PC > 1
	csrr	t0, coreid
	li	t1, PC
	remu	t0, t0, t1
	li	t1, CS*EB
	mul	s10, t0, t1			# this core's channels, in bytes
.endif
.if NT > 1
	wt_fetch zero, 1			# slice 0's; built by its first block
.else
	# weights (and bias) on dma1, widened and broadcast by vec, once
	li	t3, W_DRAM
	li	t4, SPM_WT
	li	t1, 1
.if PC > 1
	add	t3, t3, s10
	cdesc	t3, t4, dram, spm, CT*EB, KK, C*EB, CT*EB, t1, 0, 0
.else
	cdesc	t3, t4, dram, spm, KK*C*EB, 1, 0, 0, t1, 0, 0
.endif
	dma	1
.if WITH_BIAS
	li	t3, BIAS_DRAM
	li	t4, SPM_BIAS
.if PC > 1
	li	t0, 4 / EB
	mul	t0, s10, t0
	add	t3, t3, t0			# CT 4-byte biases
.endif
	cdesc	t3, t4, dram, spm, 4*CT, 1, 0, 0, t1, 0, 0
	dma	1
.endif
	sig	dma1, WFULL
	wt_build
.endif
	run_blocks
	rend	dwconv2d
	halt
