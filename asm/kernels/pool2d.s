# pool2d.s - Y = max or average pooling of X, int8 NHWC, on the vector unit.
#
# Computes, by default, Y[oy][ox][c] = max over the K x K window of
# X[oy*S + ky - PAD][ox*S + kx - PAD][c] (taps outside X do not count: the
# padding is -128, the int8 minimum); with AVG=1, Y = rne(sum / (K*K))
# with the padding counted as zeros (PyTorch's count_include_pad, ONNX's
# AveragePool default).  Global average pooling is K = H = W, S = 1.
#
#   for every block of RB output rows, slab b:
#     dma0  the padded input rows the block needs (one strided copy; rows
#           outside X filled from a fill row on chip) - dispatched one
#           block ahead, so it overlaps the vector work
#     vec   avg: the slab widened to int32 once (vcvt); then per output row
#           an accumulator row (WO x C) set to the fill value (vbcast) and
#           one vmax / vadd per tap, the taps read in place from the slab
#           (rows S*C bytes apart); avg: vquant by K*K into int8
#     dma1  stores the block's rows of Y (contiguous in NHWC)
#
# Layouts.  DRAM: X (H x W x C int8), Y (HO x WO x C int8).  Scratchpad: the
# fill row, two padded slabs (IR = (RB-1)*S + K rows of (W + 2*PAD)*C
# bytes), (avg) one int32 copy of a slab, one accumulator row (WO*C int32
# or int8), two Y buffers of RB*WO*C bytes.
# Footprint: (W+2*PAD)*C + 2*IR*(W+2*PAD)*C [+ 4*IR*(W+2*PAD)*C] + 4*WO*C +
# 2*RB*WO*C bytes of scratchpad (+ alignment); RB defaults to the most
# output rows that fit (or -D RB).  Parameters: H, W, C, K (3), S (K), PAD
# (0), AVG (0: max pooling, 1: average pooling).

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
.equ S, K
.endif
.ifndef PAD
.equ PAD, 0
.endif
.ifndef AVG
.equ AVG, 0
.endif
.equ MAXP, !AVG
.equ HO, (H + 2*PAD - K) / S + 1
.equ WO, (W + 2*PAD - K) / S + 1
# (tested on the sizes: the assembler's / truncates toward zero)
.if H + 2*PAD < K || W + 2*PAD < K || PAD >= K
.error "pool2d.s: the window does not fit the padded input (or PAD >= K)"
.endif
.equ VW, W + 2*PAD
# K*K as fp32 bits (f32() takes literals only): exponent floor(log2 NN)
.equ NN, K*K
.if NN > 65535
.error "pool2d.s: K at most 255"
.endif
.equ LG, NN >= 32768 ? 15 : NN >= 16384 ? 14 : NN >= 8192 ? 13 : NN >= 4096 ? 12 : NN >= 2048 ? 11 : NN >= 1024 ? 10 : NN >= 512 ? 9 : NN >= 256 ? 8 : NN >= 128 ? 7 : NN >= 64 ? 6 : NN >= 32 ? 5 : NN >= 16 ? 4 : NN >= 8 ? 3 : NN >= 4 ? 2 : NN >= 2 ? 1 : 0
.equ NN_F32, ((127 + LG) << 23) | ((NN << (23 - LG)) & 0x7fffff)
.equ SR, VW*C				# bytes per padded slab row
.if MAXP
.equ FILL, -128
.equ EB, 1				# accumulator element bytes
.equ WIDE, 0
.else
.equ FILL, 0
.equ EB, 4
.equ WIDE, 4				# the int32 slab copy, per byte
.endif

.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
.equ ALN, PERIOD > 64 ? PERIOD : 64
.equ SPM_FIX, 8*ALN + SR + 4*WO*C + (2 + WIDE)*(K - S > 0 ? K - S : 0)*SR
.equ SPM_ROW, (2 + WIDE)*S*SR + 2*WO*C
.ifndef RB
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX) / SPM_ROW
.equ RB, RB_S < HO ? RB_S : HO
.endif
.if RB < 1 || RB > HO
.error "pool2d.s: not even one output row fits the scratchpad"
.endif
.equ IR, (RB - 1)*S + K			# slab rows
.equ NB, (HO + RB - 1) / RB
.equ SPM_FILLROW, 0
.equ SLAB, (SR + ALN - 1) / ALN * ALN	# slab 0; slab 1 at +XBUF_SZ
.equ XBUF_SZ, (IR*SR + ALN - 1) / ALN * ALN
.equ SPM_WIDE, SLAB + 2*XBUF_SZ		# avg: the slab as int32
.equ SPM_ACC, SPM_WIDE + (WIDE*IR*SR + ALN - 1) / ALN * ALN
.equ SPM_O, SPM_ACC + (4*WO*C + ALN - 1) / ALN * ALN
.equ OBUF_SZ, (RB*WO*C + ALN - 1) / ALN * ALN
.if SPM_O + 2*OBUF_SZ > CFG_CORE_SCRATCHPAD_BYTES
.error "pool2d.s: the blocks do not fit core.scratchpad.bytes (lower RB)"
.endif

.equ X_DRAM, 0
.equ Y_DRAM, (H*W*C + 63) & ~63
.tensor X, dram, X_DRAM, int8, H, W, C
.tensor Y, dram, Y_DRAM, int8, HO, WO, C

.spm SPM_FILLROW
.fill SR, 1, FILL

.equ AFULL, 0		# +b: slab b landed (dma0 -> vec)
.equ AFREE, 2		# +b: the vector unit is done with slab b
.equ OFULL, 4		# +b: Y buffer b holds the block
.equ OFREE, 6		# +b: its store is done

.include "lib/slab2d.inc"


# Tap (ky, kx) of output row a0 (register, block-relative) into the
# accumulator row: src = slab (SRC, element bytes EB) + ((a0*S + ky)*SR +
# kx*C) elements.
.macro tap ky, kx, src
	li	t1, S*SR*EB
	mul	t4, a0, t1
	li	t1, (\src) + ((\ky)*SR + (\kx)*C)*EB
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

# Block s0 from slab b: load the next slab, pool, store.
.macro block b
	addi	t6, s0, 1
	li	t1, NB
	bge	t6, t1, nl\@
	slab_load t6, 1 - (\b)
nl\@:
	blk_rows s0
	wait	vec, AFULL + (\b), 1
	wait	vec, OFREE + (\b), 1
.if MAXP
	li	t0, int8
	vset	type, t0
.else
	# the slab widened to int32 once: taps then add in place
	li	t0, int8
	vset	type, t0
	li	t0, int32
	vset	otype, t0
	li	t0, IR
	vset	rows, t0
	li	t0, SR
	vset	len, t0
	vset	ss1, zero
	vset	sd, zero
	li	t3, SPM_WIDE
	li	t4, SLAB + (\b)*XBUF_SZ
	vcvt	t3, t4
	li	t0, int32
	vset	type, t0
.endif
	li	t0, WO
	vset	rows, t0
	li	t0, C
	vset	len, t0
	li	t0, C*EB
	vset	sd, t0				# accumulator rows: one pixel
	vset	ss1, t0
	li	t0, S*C*EB
	vset	ss2, t0				# taps: every S-th pixel
	sub	s2, s3, s1			# output rows
	li	a0, 0
rw\@:
	li	t3, SPM_ACC
	li	t0, FILL
	vbcast	t3, t0
.if MAXP
	tap	0, 0, SLAB + (\b)*XBUF_SZ
	li	t1, WO*C
	mul	t2, a0, t1
	li	t1, SPM_O + (\b)*OBUF_SZ
	add	t2, t2, t1
	li	t0, C
	vset	ss1, t0
	vset	sd, t0
	vmov	t2, t3
.else
	tap	0, 0, SPM_WIDE
	li	t1, WO*C
	mul	t2, a0, t1
	li	t1, SPM_O + (\b)*OBUF_SZ
	add	t2, t2, t1
	li	t0, int8
	vset	otype, t0
	li	t0, NN_F32
	vset	scale, t0
	li	t0, C
	vset	sd, t0
	vquant	t2, t3				# rne(sum / (K*K)), saturated
	li	t0, C*4
	vset	sd, t0
.endif
.if MAXP
	li	t0, C
	vset	sd, t0
	vset	ss1, t0
.endif
	addi	a0, a0, 1
	blt	a0, s2, rw\@
	sig	vec, AFREE + (\b)
	sig	vec, OFULL + (\b)
	wait	dma1, OFULL + (\b), 1
	sub	t2, s3, s1
	li	t1, WO*C
	mul	t2, t2, t1			# bytes
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
	rbeg	pool2d
	run_blocks
	rend	pool2d
	halt
