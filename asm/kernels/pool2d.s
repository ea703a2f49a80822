# pool2d.s - Y = max or average pooling of X, int8 or bf16 NHWC, on the
# vector unit, SPMD over the cores.
#
# Computes, by default, Y[oy][ox][c] = max over the K x K window of
# X[oy*S + ky - PAD][ox*S + kx - PAD][c] (taps outside X do not count: the
# padding is the type's minimum, -128 or -inf); with AVG=1, Y = sum /
# (K*K) with the padding counted as zeros (PyTorch's default
# count_include_pad=True; ONNX AveragePool with count_include_pad=1 - the
# ONNX default, 0, divides an edge window by its pixels inside X instead:
# not done here; the same without padding): int8 rne(sum / (K*K)),
# saturated; bf16 the sum in fp32 and the mean rounded into bf16 (vdiv,
# then vcvt: the fp32 quotient is correctly rounded, so the bf16 result is
# the correctly rounded mean except when that quotient lands exactly on a
# bf16 tie).  Global average pooling is K = H = W, S = 1.
#
#   for every block of RB output rows, slab b:
#     dma0  the padded input rows the block needs (one strided copy; rows
#           outside X filled from a fill row on chip) - dispatched one
#           block ahead, so it overlaps the vector work
#     vec   avg: the slab widened to int32 / fp32 once (vcvt); then per
#           output row an accumulator row (WO x C) set to the fill value
#           (vbcast) and one vmax / vadd per tap, the taps read in place
#           from the slab (rows S*C elements apart); avg: int8 vquant by
#           K*K, bf16 vdiv by a row of K*K and vcvt
#     dma1  stores the block's rows of Y (contiguous in NHWC)
#
# Cores (csrr coreid; lib/slab2d.inc): blocks of output rows dealt round
# the cores (block-cyclic); when the output has fewer rows than cores
# (global pooling, 7x7 maps) the channels are split too, into PC slices
# of C/PC (SPLIT=1 rows only, SPLIT=2 channels only, or -D PC); `barrier`
# at the end.  One core: the single-core schedule.
#
# Channel slices over time: when not even one output row of a core's CS =
# C/PC channels fits the scratchpad (ResNet-50's global average pool,
# 7x7x2048, on 256 KiB), the core walks its channels CT at a time, as few
# slices as fit (CT a multiple of the vector lanes where possible, the
# last slice the rest), every slice running all the core's row blocks;
# the next slice's slab loads while this one pools, as between row
# blocks.  When all CS channels fit, CT = CS: the schedule above.  -D CT
# forces a width.
#
# Layouts.  DRAM: X (H x W x C), Y (HO x WO x C), of ITYPE; X_DRAM (0)
# and Y_DRAM (after X) can be given (-D, 64-byte aligned).  Scratchpad
# (per core, CT channels a slab): the fill row, two padded slabs (IR =
# (RB-1)*S + K rows of (W + 2*PAD)*CT elements), (avg) one int32/fp32
# copy of a slab, one accumulator row (WO x CT, 4-byte elements for avg),
# two Y buffers of RB*WO*CT elements, (bf16 avg) a row of CT K*K.
# Footprint: E*(W+2*PAD)*CT*(1 + 2*IR) [+ 4*IR*(W+2*PAD)*CT] + 4*WO*CT +
# 2*E*RB*WO*CT [+ 4*CT] bytes of scratchpad (E = 1 int8, 2 bf16; +
# alignment); RB defaults to the most output rows that fit (several
# cores: at most half a core row's share, so that two blocks overlap),
# or -D RB.  Parameters: H, W, C, K (3), S (K), PAD (0), AVG (0: max
# pooling, 1: average pooling), ITYPE (int8 or bf16), SPLIT, PC, CT, RB,
# X_DRAM, Y_DRAM.
.include "lib/slab2d.inc"
	slab_params pool2d.s, K, 0	# H, W, C, K, S, PAD, ITYPE; HO, WO
.ifndef AVG
.equ AVG, 0
.endif
.equ EB, ITYPE == bf16 ? 2 : 1		# bytes per element of X and Y
.equ MAXP, !AVG
# K*K as fp32 bits (f32() takes literals only): exponent floor(log2 NN)
.equ NN, K*K
.if NN > 65535
.error "pool2d.s: K at most 255"
.endif
.equ LG, NN >= 32768 ? 15 : NN >= 16384 ? 14 : NN >= 8192 ? 13 : NN >= 4096 ? 12 : NN >= 2048 ? 11 : NN >= 1024 ? 10 : NN >= 512 ? 9 : NN >= 256 ? 8 : NN >= 128 ? 7 : NN >= 64 ? 6 : NN >= 32 ? 5 : NN >= 16 ? 4 : NN >= 8 ? 3 : NN >= 4 ? 2 : NN >= 2 ? 1 : 0
.equ NN_F32, ((127 + LG) << 23) | ((NN << (23 - LG)) & 0x7fffff)
	core_grid pool2d.s

.if MAXP
.equ FILL, EB == 1 ? -128 : 0xff80	# the type's minimum (bf16: -inf)
.equ AB, EB				# accumulator element bytes
.equ WIDE, 0
.else
.equ FILL, 0
.equ AB, 4
.equ WIDE, 4 / EB			# the int32/fp32 slab copy, per slab byte
.endif
.equ WTYPE, EB == 1 ? int32 : fp32	# the type avg sums in

# The footprint of one output row (RB = 1) is FIX_0 + FIX_CH bytes per
# channel of the slab (SPM_FIX + SPM_ROW below): the channel slices over
# time (CT channels per slab, lib/slab2d.inc's ct_grid) are the widest
# that fit.
.equ FIX_0, 8*ALN + (AVG && EB == 2 ? ALN : 0)
.equ FIX_CH, VW*EB*(1 + (2 + WIDE)*((K > S ? K - S : 0) + S)) + 4*WO + 2*WO*EB + (AVG && EB == 2 ? 4 : 0)
.equ CT_FIT, (CFG_CORE_SCRATCHPAD_BYTES - FIX_0) / FIX_CH
	ct_grid pool2d.s, CS <= CT_FIT, CT_FIT

.equ SR, VW*CT*EB			# bytes per padded slab row
.equ SRE, VW*CT				# its elements
.equ KROW, AVG && EB == 2 ? ALN + 4*CT : 0	# bf16 avg: the row of K*K
.equ SPM_FIX, 8*ALN + SR + 4*WO*CT + (2 + WIDE)*(K - S > 0 ? K - S : 0)*SR + KROW
.equ SPM_ROW, (2 + WIDE)*S*SR + 2*WO*CT*EB
	slab_blocks pool2d.s
.equ SPM_ACC, SPM_WIDE + (WIDE*IR*SR + ALN - 1) / ALN * ALN
.equ SPM_O, SPM_ACC + (4*WO*CT + ALN - 1) / ALN * ALN
.equ OBUF_SZ, (RB*WO*CT*EB + ALN - 1) / ALN * ALN
.equ SPM_KK, SPM_O + 2*OBUF_SZ		# bf16 avg: CT fp32 K*K
.if SPM_O + 2*OBUF_SZ + KROW > CFG_CORE_SCRATCHPAD_BYTES
.error "pool2d.s: the blocks do not fit core.scratchpad.bytes (lower RB)"
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one); by default Y
# follows X.  Y over X is refused.
.include "lib/dram.inc"
	dram_base X_DRAM, 0
	dram_base Y_DRAM, (X_DRAM + H*W*C*EB + 63) & ~63
.if Y_DRAM < X_DRAM + H*W*C*EB && X_DRAM < Y_DRAM + HO*WO*C*EB
.error "pool2d.s: Y overlaps X in DRAM"
.endif
.tensor X, dram, X_DRAM, ITYPE, H, W, C
.tensor Y, dram, Y_DRAM, ITYPE, HO, WO, C

.spm SPM_FILLROW
.fill SR / EB, EB, FILL
.if KROW
.spm SPM_KK
.fill CT, 4, NN_F32
.endif

# Tap (ky, kx) of output row a0 (register, block-relative) into the
# accumulator row: src = slab (SRC, element bytes AB) + ((a0*S + ky)*SRE +
# kx*CT) elements.
.macro tap ky, kx, src
	li	t1, S*SRE*AB
	mul	t4, a0, t1
	li	t1, (\src) + ((\ky)*SRE + (\kx)*CT)*AB
	add	t4, t4, t1
.if MAXP
	vmax	t3, t3, t4
.else
	vadd	t3, t3, t4
.endif
.if (\kx) + 1 < K
	tap	\ky, (\kx) + 1, \src
.elif (\ky) + 1 < K
	tap	(\ky) + 1, 0, \src
.endif
.endm

# Block s0 (slice s8) from slab b: load the core's next slab, pool, store.
.macro block b
	blk_prefetch \b
	blk_rows s0
	wait	vec, AFULL + (\b), 1
	wait	vec, OFREE + (\b), 1
.if MAXP
	li	t0, ITYPE
	vset	type, t0
.else
	slab_widen \b, 0
.endif
	li	t0, WO
	vset	rows, t0
	li	t0, CT
	vset	len, t0
	li	t0, CT*AB
	vset	sd, t0				# accumulator rows: one pixel
	vset	ss1, t0
	li	t0, S*CT*AB
	vset	ss2, t0				# taps: every S-th pixel
	sub	s2, s3, s1			# output rows
	li	a0, 0
rw\@:
	li	t3, SPM_ACC
	li	t0, FILL
	vbcast	t3, t0
.if MAXP
	tap	0, 0, SLAB + (\b)*XBUF_SZ
	li	t1, WO*CT*EB
	mul	t2, a0, t1
	li	t1, SPM_O + (\b)*OBUF_SZ
	add	t2, t2, t1
	li	t0, CT*EB
	vset	ss1, t0
	vset	sd, t0
	vmov	t2, t3
.elif EB == 1
	tap	0, 0, SPM_WIDE
	li	t1, WO*CT
	mul	t2, a0, t1
	li	t1, SPM_O + (\b)*OBUF_SZ
	add	t2, t2, t1
	li	t0, int8
	vset	otype, t0
	li	t0, NN_F32
	vset	scale, t0
	li	t0, CT
	vset	sd, t0
	vquant	t2, t3				# rne(sum / (K*K)), saturated
	li	t0, CT*4
	vset	sd, t0
.else
	tap	0, 0, SPM_WIDE
	li	t0, 2
	vset	bc, t0				# the row of K*K for every row
	li	t4, SPM_KK
	vdiv	t3, t3, t4			# the fp32 mean, correctly rounded
	vset	bc, zero
	li	t1, WO*CT*2
	mul	t2, a0, t1
	li	t1, SPM_O + (\b)*OBUF_SZ
	add	t2, t2, t1
	li	t0, bf16
	vset	otype, t0
	li	t0, CT*2
	vset	sd, t0
	vcvt	t2, t3				# rounded once into bf16
	li	t0, CT*4
	vset	sd, t0
.endif
.if MAXP
	li	t0, CT*EB
	vset	sd, t0
	vset	ss1, t0
.endif
	addi	a0, a0, 1
	blt	a0, s2, rw\@
	blk_done \b
.endm

.text
	rbeg	pool2d
	run_blocks
	rend	pool2d
	halt
