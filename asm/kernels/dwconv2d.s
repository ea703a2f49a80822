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
#         and broadcasts each tap's row over WC pixels (vbrow), once
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
# Layouts.  DRAM: X (H x W x C), WGT (K*K x C: row ky*K + kx has every
# channel's weight of that tap), Y (HO x WO x C), all of ITYPE; BIAS (C
# int32 / fp32, WITH_BIAS=1).  X_DRAM, W_DRAM, BIAS_DRAM, Y_DRAM can be
# given (-D, 64-byte aligned).  Scratchpad (per core, CS = C/PC channels,
# E = element bytes, 1 or 2): a zero row, two padded slabs (IR = (RB-1)*S
# + K rows of (W + 2*PAD)*CS elements) and one 4-byte copy, the weights
# (K*K x CS) and their 4-byte tiles (K*K x WC x CS) and bias tile,
# accumulator and product tiles (WC x CS 4-byte), two Y buffers (RB*WO*CS
# elements).
# Footprint: E*(1 + 2*IR)*(W+2*PAD)*CS + 4*IR*(W+2*PAD)*CS + E*K*K*CS +
# 4*CS*(K*K*(WC + 1) + 3*WC + 1) + 2*E*RB*WO*CS bytes (+ alignment); RB
# and WC default to what fits (several cores: RB at most half a core
# row's share).  Parameters: H, W, C, K (3), S (1), PAD (K/2), ITYPE
# (int8, bf16), SHIFT (8), WITH_BIAS, RELU, CLIP, SPLIT, PC, RB, WC, and
# the DRAM bases.

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
.if RELU < 0 || RELU > 2
.error "dwconv2d.s: RELU is 0 (none), 1 (relu) or 2 (relu6)"
.endif
.ifndef ITYPE
.equ ITYPE, int8
.endif
.if ITYPE != int8 && ITYPE != bf16
.error "dwconv2d.s: ITYPE must be int8 or bf16"
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
.equ CLIPV, RELU == 2 && (FLT || CLIP < 127)	# relu6 needs a vmins
.equ CLIPBITS, FLT ? f32(6.0) : CLIP << SHIFT
.equ HO, (H + 2*PAD - K) / S + 1
.equ WO, (W + 2*PAD - K) / S + 1
# (tested on the sizes: the assembler's / truncates toward zero)
.if H + 2*PAD < K || W + 2*PAD < K || PAD >= K
.error "dwconv2d.s: the window does not fit the padded input (or PAD >= K)"
.endif
.equ KK, K*K
.equ VW, W + 2*PAD

.include "lib/slab2d.inc"
	core_grid dwconv2d.s

.equ SR, VW*CS*EB			# bytes per padded slab row
.equ SRE, VW*CS				# its elements
# LONG: with stride 1 every operand of a chunk (its pixels of the slab,
# the weight and bias tiles, the accumulator, the output) is one
# contiguous run of WC*CS elements, so when a pixel's CS channels fill
# less than the vector unit's lanes the chunk runs as one row of WC*CS
# elements instead of WC rows of CS (a 32-channel layer on 128 lanes:
# 4x fewer lane groups).
.equ LONG, S == 1 && CS < CFG_CORE_VECTOR_LANES
.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
.equ ALN, PERIOD > 64 ? PERIOD : 64
# WC: pixels per vector chunk - the weight tiles (KK of WC x CS 4-byte)
# take at most an eighth of the scratchpad
.ifndef WC
.equ WC_S, CFG_CORE_SCRATCHPAD_BYTES / 8 / (4*CS*(KK + 3))
.equ WC, WC_S < WO ? WC_S : WO
.endif
.if WC < 1
.error "dwconv2d.s: C too large for one pixel's weight tiles in the scratchpad"
.endif
.equ SPM_FIX, 12*ALN + SR + EB*KK*CS + 4*CS*(KK*(WC + 1) + 3*WC + 1) + (2 + 4/EB)*(K - S > 0 ? K - S : 0)*SR
.equ SPM_ROW, (2 + 4/EB)*S*SR + 2*WO*CS*EB
.ifndef RB
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX) / SPM_ROW
.equ RB_MC, ((HO + PR - 1) / PR + 1) / 2	# half a core row's share
.equ RB_C, MC && RB_MC < HO ? RB_MC : HO
.equ RB, RB_S < RB_C ? RB_S : RB_C
.endif
.if RB < 1 || RB > HO
.error "dwconv2d.s: not even one output row fits the scratchpad"
.endif
.equ IR, (RB - 1)*S + K
.equ NB, (HO + RB - 1) / RB
.equ SPM_FILLROW, 0
.equ SLAB, (SR + ALN - 1) / ALN * ALN	# slab 0; slab 1 at +XBUF_SZ
.equ XBUF_SZ, (IR*SR + ALN - 1) / ALN * ALN
.equ SPM_WIDE, SLAB + 2*XBUF_SZ		# the slab as int32 / fp32
.equ SPM_WT, SPM_WIDE + (4*IR*SRE + ALN - 1) / ALN * ALN	# KK x CS
.equ SPM_WT32, SPM_WT + (KK*CS*EB + ALN - 1) / ALN * ALN	# KK x CS 4-byte
.equ SPM_WB, SPM_WT32 + (4*KK*CS + ALN - 1) / ALN * ALN	# KK tiles WC x CS
.equ WB_SZ, 4*WC*CS
.equ SPM_BIAS, SPM_WB + KK*WB_SZ	# CS int32 / fp32
.equ SPM_BB, SPM_BIAS + (4*CS + ALN - 1) / ALN * ALN	# bias tile WC x CS
.equ SPM_ACC, SPM_BB + (WB_SZ + ALN - 1) / ALN * ALN
.equ SPM_TMP, SPM_ACC + (WB_SZ + ALN - 1) / ALN * ALN
.equ SPM_O, SPM_TMP + (WB_SZ + ALN - 1) / ALN * ALN
.equ OBUF_SZ, (RB*WO*CS*EB + ALN - 1) / ALN * ALN
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

.equ AFULL, 0		# +b: slab b landed (dma0 -> vec)
.equ AFREE, 2		# +b: the vector unit is done with slab b
.equ OFULL, 4		# +b: Y buffer b holds the block
.equ OFREE, 6		# +b: its store is done
.equ WFULL, 8		# the weights and bias landed (dma1 -> vec)


# One tap (ky, kx) of the chunk: TMP = weight tile * pixels (every S-th
# pixel of slab row a0*S + ky from pixel s4*S + kx), ACC += TMP.
.macro tap ky, kx
	li	t1, S*SRE*4
	mul	t4, a0, t1
	li	t1, S*CS*4
	mul	t5, s4, t1
	add	t4, t4, t5
	li	t1, SPM_WIDE + ((\ky)*SRE + (\kx)*CS)*4
	add	t4, t4, t1
	li	t3, SPM_WB + ((\ky)*K + (\kx))*WB_SZ
.if S > 1
	li	t0, S*CS*4
	vset	ss2, t0
.endif
	vmul	a4, t3, t4
.if S > 1
	li	t0, CS*4
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
	addi	t6, s0, PR
	li	t1, NB
	bge	t6, t1, nl\@
	slab_load t6, 1 - (\b)
nl\@:
	blk_rows s0
	wait	vec, AFULL + (\b), 1
	wait	vec, OFREE + (\b), 1
	# the slab widened to int32 / fp32 once: the taps then read it in place
	li	t0, ITYPE
	vset	type, t0
	li	t0, WTYPE
	vset	otype, t0
	li	t0, IR
	vset	rows, t0
	li	t0, SRE
	vset	len, t0
	vset	ss1, zero
	vset	ss2, zero
	vset	sd, zero
	li	t3, SPM_WIDE
	li	t4, SLAB + (\b)*XBUF_SZ
	vcvt	t3, t4
	li	t0, WTYPE
	vset	type, t0
	li	t0, CS
	vset	len, t0
	li	t0, CS*4
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
	li	t1, CS
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
	li	t0, CS*2
	vset	sd, t0
.else
	li	t0, int8
	vset	otype, t0
	li	t0, (127 + SHIFT) << 23		# 2^SHIFT as fp32 bits
	vset	scale, t0
	li	t0, CS
	vset	sd, t0
.endif
	li	t1, WO*CS*EB
	mul	t2, a0, t1
	li	t1, CS*EB
	mul	t3, s4, t1
	add	t2, t2, t3
	li	t1, SPM_O + (\b)*OBUF_SZ
	add	t2, t2, t1
.if FLT
	vcvt	t2, a5				# rounded once into bf16
.else
	vquant	t2, a5				# sat8(rne(ACC / 2^SHIFT))
.endif
	li	t0, CS*4
	vset	sd, t0
	add	s4, s4, s5
	li	t1, WO
	blt	s4, t1, ck\@
	addi	a0, a0, 1
	blt	a0, s2, rw\@
	sig	vec, AFREE + (\b)
	sig	vec, OFULL + (\b)
	wait	dma1, OFULL + (\b), 1
	slab_store SPM_O + (\b)*OBUF_SZ
	sig	dma1, OFREE + (\b)
	addi	s0, s0, PR
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
	# weights (and bias) on dma1, widened and broadcast by vec, once
	li	t3, W_DRAM
	li	t4, SPM_WT
	li	t1, 1
.if PC > 1
	add	t3, t3, s10
	cdesc	t3, t4, dram, spm, CS*EB, KK, C*EB, CS*EB, t1, 0, 0
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
	add	t3, t3, t0			# CS 4-byte biases
.endif
	cdesc	t3, t4, dram, spm, 4*CS, 1, 0, 0, t1, 0, 0
	dma	1
.endif
	sig	dma1, WFULL
	wait	vec, WFULL, 1
	li	t0, ITYPE
	vset	type, t0
	li	t0, WTYPE
	vset	otype, t0
	li	t0, KK
	vset	rows, t0
	li	t0, CS
	vset	len, t0
	li	t3, SPM_WT32
	li	t4, SPM_WT
	vcvt	t3, t4				# KK x CS int32 / fp32
	li	t0, WTYPE
	vset	type, t0
	li	t0, WC
	vset	rows, t0
	li	t0, CS*4
	vset	sd, t0
	li	s2, KK
	li	t3, SPM_WB
	li	t4, SPM_WT32
wb:
	vbrow	t3, t4				# tap t's row over WC pixels
	li	t1, WB_SZ
	add	t3, t3, t1
.if CS*4 < 8192
	addi	t4, t4, CS*4
.else
	li	t1, CS*4
	add	t4, t4, t1
.endif
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
