# quant.s - quantize, dequantize and pack an R x C tensor on the vector
# unit: int8 / int4 / fp8 against fp32 / bf16 / fp16, with one scale and
# zero point for the whole tensor (GRAN 0), one per channel = column = the
# last axis, as for NHWC activations and weights (GRAN 1), or one per row
# (GRAN 2); streamed in double-buffered blocks, SPMD over the cores.
#
# Operators (semantics and rounding: docs/numerics.md, "Quantization
# operators"; every output checked bit for bit by tests/tools/quantref.c):
#   OP 0  quantize    X (IT: fp32, bf16, fp16) -> Y (OT: int4, int8, int16,
#                     fp8e4m3, fp8e5m2), t = fp32(x / s) correctly rounded
#                     (ONNX QuantizeLinear's x / y_scale), or with RCP = 1
#                     t = fp32(x * fp32(1 / s)) (PyTorch's quantize_val)
#           integer OT  y = sat_OT(rne(t) + z)       (a NaN t: sat_OT(z))
#           fp8 OT      y = fp8(t), rounded to nearest even, saturating or
#                       not as core.vector.fp8_saturate says (no z)
#   OP 1  dequantize  X (IT: int4, int8, int16, fp8e4m3, fp8e5m2) -> Y (OT:
#                     fp32, bf16, fp16),  y = OT(fp32(fp32(x - z) * s))
#   OP 2  convert     Y = vcvt(X), IT -> OT: int8 -> int4 packs two values
#                     a byte, saturating to -8..7; int4 -> int8 unpacks
# s and z: SCALE (fp32 bits) and ZP for the tensor, or per column / row
# the tables S (fp32) and Z (int32) in DRAM; z must lie in the quantized
# type's range (ONNX gives it that type).  int4 storage: element 2k in the
# low nibble of byte k, element 2k+1 in the high nibble (the ISA's).
#
# The elements stream as virtual rows of W elements: the tensor flattened
# (per tensor), KV whole rows of C with the S/Z row replicated KV times on
# chip (per channel: short rows still fill the lanes), or the rows (per
# row).  Blocks of RB virtual rows go to the cores round robin (block k to
# core k mod ncores; csrr coreid, ncores), each core's blocks through two
# buffers b:
#   dma0  loads the block's X bytes (per row also its slices of S and Z),
#         one block ahead
#   vec   per tensor, integer quantize: vquant                    1 pass
#         per tensor dequantize: vdequant                         1 pass
#         other quantize: [vcvt to fp32], vdiv by S (RCP: vmul by
#           1/S, made once by vdiv), then with Z vcvt to int32,
#           vadd Z, vcvt to OT, else vcvt to OT                   2-5 passes
#         per channel/row dequantize: vcvt to fp32, [vsub Z],
#           vmul S, [vcvt to OT]                                  2-4 passes
#         convert: vcvt                                           1 pass
#       S and Z are source 2 as a row (per channel: vset bc 2) or a column
#       (per row: vset bc 1) - no broadcast tiles
#   dma1  stores the block's Y bytes
# then `fence all` and `barrier`.  A block (so a core's share) starts on
# a multiple of G virtual rows, 8 elements: cores' bytes never share a
# 4-byte granule (the hazard checker's), even for int4.
#
# Layouts: DRAM X (R x C, IT), Y (R x C, OT), S (fp32: C per channel, R
# per row), Z (int32, likewise; only with ZPT = 1).  An int4 X or Y has a
# second view XB / YB (int8, R x C/2: the packed bytes) at its address.
# Scratchpad: the S and Z rows of W (per channel; per-tensor fp8: SCALE
# as a row), then two buffers of an input tile (RB x W of IT), a work tile
# (RB x W fp32 when IT is narrower), an output tile (RB x W of OT) and,
# per row, RB-element slices of S and Z.  Footprint: 8*W + 2*RB*W*(IT +
# work + OT bytes) (+ 8*RB per row, + the RCP ones, + alignment); .error
# when it exceeds core.scratchpad.bytes.  Per channel the tables and two
# virtual rows must fit: C up to ~14000 for fp32 -> int8 with zero points
# on 256 KiB; per tensor any size.
#
# Parameters (-D): R, C, OP (0 quantize, 1 dequantize, 2 convert), IT, OT
# (dtype ids; defaults fp32 -> int8, int8 -> fp32, int8 -> int4), GRAN
# (0 tensor, 1 channel, 2 row), SCALE (fp32 bits; default 1.0), ZP
# (default 0), ZPT (1: the Z table exists; default 1 for an integer type
# per channel or row), RCP (0 exact division, 1 multiply by reciprocals:
# quantize per channel/row or to fp8), WT (target virtual row, default
# 1024 elements), RB.  int4 needs an even C.
.include "lib/quant_abi.inc"
.ifndef R
.equ R, 64
.endif
.ifndef C
.equ C, 256
.endif
.ifndef OP
.equ OP, QUANT_OP_QUANTIZE
.endif
.if R < 1 || C < 1
.error "quant.s: R and C are at least 1"
.endif
.if OP < 0 || OP > QUANT_OP_CONVERT
.error "quant.s: OP is 0 (quantize), 1 (dequantize) or 2 (convert)"
.endif
.ifndef IT
.if OP == QUANT_OP_QUANTIZE
.equ IT, fp32
.else
.equ IT, int8
.endif
.endif
.ifndef OT
.if OP == QUANT_OP_QUANTIZE
.equ OT, int8
.elif OP == QUANT_OP_DEQUANTIZE
.equ OT, fp32
.else
.equ OT, int4
.endif
.endif
.ifndef GRAN
.equ GRAN, QUANT_GRAN_TENSOR
.endif
.if GRAN < 0 || GRAN > QUANT_GRAN_ROW
.error "quant.s: GRAN is 0 (per tensor), 1 (per channel: the last axis) or 2 (per row)"
.endif
.ifndef SCALE
.equ SCALE, f32(1.0)
.endif
.ifndef ZP
.equ ZP, 0
.endif

# The quantized side's type (QT) and whether it is fp8.
.equ QT, OP == QUANT_OP_DEQUANTIZE ? IT : OT
.equ QFP8, QT == fp8e4m3 || QT == fp8e5m2
.ifndef ZPT
.equ ZPT, GRAN != QUANT_GRAN_TENSOR && OP != QUANT_OP_CONVERT && !QFP8
.endif
.ifndef RCP
.equ RCP, 0
.endif
.if OP == QUANT_OP_QUANTIZE && IT != fp32 && IT != bf16 && IT != fp16
.error "quant.s: quantize reads fp32, bf16 or fp16 (IT)"
.endif
.if OP == QUANT_OP_QUANTIZE && (OT > fp8e5m2 || OT == int32)
.error "quant.s: quantize writes int4, int8, int16, fp8e4m3 or fp8e5m2 (OT)"
.endif
.if OP == QUANT_OP_DEQUANTIZE && (IT > fp8e5m2 || IT == int32)
.error "quant.s: dequantize reads int4, int8, int16, fp8e4m3 or fp8e5m2 (IT)"
.endif
.if OP == QUANT_OP_DEQUANTIZE && OT != fp32 && OT != bf16 && OT != fp16
.error "quant.s: dequantize writes fp32, bf16 or fp16 (OT)"
.endif
.if OP != QUANT_OP_CONVERT && QFP8 && (ZP != 0 || ZPT != 0)
.error "quant.s: fp8 has no zero point (ZP 0, ZPT 0)"
.endif
.if OP == QUANT_OP_CONVERT && (GRAN != QUANT_GRAN_TENSOR || ZPT != 0)
.error "quant.s: convert (OP 2) has no scale or zero point: GRAN 0"
.endif
.if (IT == int4 || OT == int4) && C % 2 != 0
.error "quant.s: an int4 tensor needs an even C (its rows are whole bytes)"
.endif

.equ IBITS, IT == int4 ? 4 : IT == int8 || IT == fp8e4m3 || IT == fp8e5m2 ? 8 : IT == int32 || IT == fp32 ? 32 : 16
.equ OBITS, OT == int4 ? 4 : OT == int8 || OT == fp8e4m3 || OT == fp8e5m2 ? 8 : OT == int32 || OT == fp32 ? 32 : 16

# Which computation (one of five).
.equ P_VQ, OP == QUANT_OP_QUANTIZE && GRAN == QUANT_GRAN_TENSOR && !QFP8	# vquant
.equ P_VDQ, OP == QUANT_OP_DEQUANTIZE && GRAN == QUANT_GRAN_TENSOR	# vdequant
.equ P_CVT, OP == QUANT_OP_CONVERT			# vcvt
.equ P_DIV, OP == QUANT_OP_QUANTIZE && !P_VQ		# vdiv by S ...
.equ P_MUL, OP == QUANT_OP_DEQUANTIZE && GRAN != QUANT_GRAN_TENSOR	# vmul by S ...
.if RCP && !P_DIV
.error "quant.s: RCP applies to quantization per channel or row, or to fp8 (per tensor, vquant divides at full speed)"
.endif
# A work tile of fp32/int32 separate from the input (the input is
# narrower); the output tile separate from the work tile (always but for
# an fp32 dequantization per channel, which ends in the work tile).
.equ WKSEP, (P_DIV && IT != fp32) || (P_MUL && IBITS != 32)
.equ OUTSEP, !(P_MUL && OT == fp32)
# The replicated S (and Z) row: per channel, and per-tensor fp8's
# constant S row.
.equ TBLW, GRAN == QUANT_GRAN_COLUMN || (P_DIV && GRAN == QUANT_GRAN_TENSOR)

# Virtual rows: N elements in NV rows of W (the last may be partial).
.equ N, R*C
.ifndef WT
.equ WT, 1024
.endif
.if GRAN == QUANT_GRAN_COLUMN
.equ KV_T, C >= WT ? 1 : WT / C
.equ KV, KV_T < R ? KV_T : R
.equ W, KV*C
.elif GRAN == QUANT_GRAN_ROW
.equ W, C
.else
.equ W, N < WT ? (N + 7) & ~7 : (WT + 7) & ~7
.endif
.equ NV, (N + W - 1) / W
# Blocks are multiples of G virtual rows: G*W elements, a multiple of 8.
.equ G, W % 8 == 0 ? 1 : W % 4 == 0 ? 2 : W % 2 == 0 ? 4 : 8

# Scratchpad: tiles aligned to the bank period; the tables half a period
# off, so a lane group's tile segment and table segment use other banks.
.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
.equ AL, PERIOD > 256 ? PERIOD : 256
.equ TS, PERIOD / 2
.equ TROW, (4*W + AL - 1) & ~(AL - 1)
.equ TZ, TS + TROW
.equ TONE, ZPT ? TZ + TROW : TZ		# RCP: a row of ones
.equ TBL_END, TBLW ? (RCP ? TONE + TROW : TONE) : 0
.equ BUF0, (TBL_END + AL - 1) & ~(AL - 1)
# Bytes of one virtual row in every tile of a buffer, and per row the
# slices of S and Z.
.equ ROWB, (W*IBITS + 7)/8 + (WKSEP ? 4*W : 0) + (OUTSEP ? (W*OBITS + 7)/8 : 0)
.equ SLB, GRAN == QUANT_GRAN_ROW ? 4 + 4*ZPT + 4*RCP : 0
.ifndef RB
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - BUF0 - 12*AL) / (2*(ROWB + SLB))
.if CFG_CHIP_CORES > 1
# Several cores: blocks of about 32 KiB of input, dealt out round robin,
# so the cores stream through a narrow window of DRAM rows together (16
# cores of datacenter.cfg, 4096 x 1024 fp32 -> int8 per channel: 70 % of
# the DRAM peak with 32 KiB blocks, 55 % with 64 KiB, 50 % with 128 KiB,
# 33 % with each core's rows as one contiguous range: the cores' streams
# then conflict in the DRAM banks' rows).
.equ RB_W, (32768*8 + W*IBITS - 1) / (W*IBITS)
.else
# One core: the largest blocks that fit, but at least 8 blocks where the
# tensor allows (the pipeline's first load and last store are exposed).
.equ RB_W, (NV + 7) / 8 > 1 ? (NV + 7) / 8 : 1
.endif
.equ RB_C, RB_S < RB_W ? RB_S : RB_W
.equ RB_N, RB_C < NV ? RB_C : NV
# a multiple of G virtual rows (G*W elements are a multiple of 8): every
# block, so every core's part, starts on a 4-byte granule
.equ RB_G, G < NV ? G : NV
.equ RB, RB_N >= G ? RB_N / G * G : RB_S >= RB_G ? RB_G : RB_N
.endif
.if RB < 1
.error "quant.s: the tables and two virtual rows exceed the scratchpad (lower WT, or C per channel/row)"
.endif
.equ NB, (NV + RB - 1) / RB
.if NB > 1 && RB % G != 0
.error "quant.s: RB must be a multiple of G = 8 / gcd(W, 8) (blocks of a multiple of 8 elements)"
.endif
.equ T_IN, (RB*W*IBITS/8 + AL - 1) & ~(AL - 1)
.equ T_WK, WKSEP ? (4*RB*W + AL - 1) & ~(AL - 1) : 0
.equ T_OUT, OUTSEP ? (RB*W*OBITS/8 + AL - 1) & ~(AL - 1) : 0
.equ T_SL, GRAN == QUANT_GRAN_ROW ? (4*RB + AL - 1) & ~(AL - 1) : 0
.equ O_IN, 0
.equ O_WK, WKSEP ? T_IN : 0
.equ O_OUT, OUTSEP ? T_IN + T_WK : O_WK
.equ O_RS, T_IN + T_WK + T_OUT
.equ O_RZ, O_RS + T_SL
.equ O_R1, O_RZ + (ZPT ? T_SL : 0)		# RCP: a column of ones
.equ BUF, O_R1 + (RCP ? T_SL : 0)
.if BUF0 + 2*BUF > CFG_CORE_SCRATCHPAD_BYTES
.error "quant.s: the blocks exceed the scratchpad (lower RB)"
.endif

# DRAM: X, Y, S, Z, 64-byte aligned (bases X_DRAM .. Z_DRAM: lib/dram.inc,
# -D NAME_DRAM=ADDR moves one).
.include "lib/dram.inc"
	dram_base X_DRAM, 0
	dram_base Y_DRAM, (X_DRAM + (N*IBITS + 7)/8 + 63) & ~63
	dram_base S_DRAM, (Y_DRAM + (N*OBITS + 7)/8 + 63) & ~63
.equ NTAB, GRAN == QUANT_GRAN_ROW ? R : C
	dram_base Z_DRAM, (S_DRAM + 4*NTAB + 63) & ~63
.tensor X, dram, X_DRAM, IT, R, C
.tensor Y, dram, Y_DRAM, OT, R, C
.if IT == int4
.tensor XB, dram, X_DRAM, int8, R, C/2
.endif
.if OT == int4
.tensor YB, dram, Y_DRAM, int8, R, C/2
.endif
.if GRAN != QUANT_GRAN_TENSOR
.tensor S, dram, S_DRAM, fp32, NTAB
.if ZPT
.tensor Z, dram, Z_DRAM, int32, NTAB
.endif
.endif

.equ LFULL, 0		# +b: buffer b loaded (dma0 -> vec)
.equ LFREE, 2		# +b: buffer b stored (dma1 -> dma0)
.equ SFULL, 4		# +b: buffer b computed (vec -> dma1)
.equ PFULL, 6		# the S/Z rows loaded (dma1 -> vec)

.include "lib/cdesc.inc"

# One contiguous copy of NREG (a register) bytes from SRC to DST
# (registers), memories SM -> DM, on engine E.
.macro copy src, dst, nreg, e, sm, dm
	li	t1, 1
	cdesc	\src, \dst, \sm, \dm, 1, 1, 0, 0, t1, 0, 0
	dset	n0, \nreg
	dma	\e
.endm

# Virtual rows of this core's block REG, the tensor's block s6 + REG*s5
# (s6 = coreid, s5 = ncores): s1 = the block's first, s2 = its rows, s3
# = its elements (the last virtual row of the tensor may be partial),
# t2 = s1*W.
.macro blk_rows reg
	mul	s1, \reg, s5
	add	s1, s1, s6
	li	t1, RB
	mul	s1, s1, t1
	li	t1, NV
	sub	s2, t1, s1
	li	t1, RB
	min	s2, s2, t1
	li	t1, W
	mul	t2, s1, t1
	mul	s3, s2, t1
	li	t1, N
	sub	t1, t1, t2
	min	s3, s3, t1
.endm

# t4 = BASE + (element count in ereg) * BITS / 8: a byte address.
.macro eaddr ereg, bits, base
	li	t1, \bits
	mul	t4, \ereg, t1
	srli	t4, t4, 3
	li	t1, \base
	add	t4, t4, t1
.endm

# Load block REG into buffer b (dma0), once the buffer is free.
.macro load reg, b
	blk_rows \reg
	wait	dma0, LFREE + (\b), 1
	eaddr	t2, IBITS, X_DRAM
	li	t3, BUF0 + (\b)*BUF + O_IN
	li	t1, IBITS
	mul	t2, s3, t1
	addi	t2, t2, 7
	srli	t2, t2, 3
	copy	t4, t3, t2, 0, dram, spm
.if GRAN == QUANT_GRAN_ROW
	slli	t4, s1, 2
	li	t1, S_DRAM
	add	t4, t4, t1
	li	t3, BUF0 + (\b)*BUF + O_RS
	slli	t2, s2, 2
	copy	t4, t3, t2, 0, dram, spm
.if ZPT
	slli	t4, s1, 2
	li	t1, Z_DRAM
	add	t4, t4, t1
	li	t3, BUF0 + (\b)*BUF + O_RZ
	copy	t4, t3, t2, 0, dram, spm
.endif
.endif
	sig	dma0, LFULL + (\b)
.endm

# vset FIELD to the value V (t0).
.macro vsetv field, v
	li	t0, \v
	vset	\field, t0
.endm

# The type of the zero points on chip: int32 for the quantizer's sums
# rne(t) + z (vcvt fp32 -> int32 saturates at 2^31, far beyond OT's
# range, so the sum saturates OT exactly when rne(t) + z would), fp32 for
# the dequantizer's x - z (exact: both in int16 range).  (An int16 sum
# would halve the bytes but costs more: an fp32 -> int16 vcvt moves 64
# bytes in and 32 out per lane group, which collide in the banks - 1.5
# cycles a group on default.cfg against 1.0 for fp32 -> int32.)
.equ ZCT, P_MUL ? fp32 : int32

# The broadcast of S and Z: a row (per channel, per-tensor fp8) or a
# column (per row).
.equ BCM, GRAN == QUANT_GRAN_ROW ? 1 : 2

# Compute block s0 in buffer b (rows s2 of W), store it, and load block
# s0 + 1 into the other buffer first.
.macro block b
	addi	t6, s0, 1
	bge	t6, s8, nl\@
	load	t6, 1 - (\b)
nl\@:
	blk_rows s0
	wait	vec, LFULL + (\b), 1
	li	a0, BUF0 + (\b)*BUF + O_IN
	li	a1, BUF0 + (\b)*BUF + O_WK
	li	a2, BUF0 + (\b)*BUF + O_OUT
.if GRAN == QUANT_GRAN_ROW
	li	a3, BUF0 + (\b)*BUF + O_RS
	li	a4, BUF0 + (\b)*BUF + O_RZ
.else
	li	a3, TS
	li	a4, TZ
.endif
.if GRAN == QUANT_GRAN_ROW && ZPT && ZCT != int32
	# this block's zero points in their on-chip type
	li	t0, 1
	vset	rows, t0
	vset	len, s2
	vsetv	type, int32
	vsetv	otype, ZCT
	vcvt	a4, a4
.endif
.if GRAN == QUANT_GRAN_ROW && RCP
	# this block's reciprocal scales, correctly rounded
	li	t0, 1
	vset	rows, t0
	vset	len, s2
	vsetv	type, fp32
	li	a5, BUF0 + (\b)*BUF + O_R1
	vdiv	a3, a5, a3
.endif
	vset	rows, s2
	vsetv	len, W
.if P_VQ || P_VDQ || P_CVT
	vsetv	type, IT
	vsetv	otype, OT
.if P_VQ
	vquant	a2, a0
.elif P_VDQ
	vdequant a2, a0
.else
	vcvt	a2, a0
.endif
.elif P_DIV
.if IT != fp32
	vsetv	type, IT
	vsetv	otype, fp32
	vcvt	a1, a0				# exact
.endif
	vsetv	type, fp32
	vsetv	bc, BCM
.if RCP
	vmul	a1, a1, a3			# x * fp32(1 / s)
.else
	vdiv	a1, a1, a3			# x / s, correctly rounded
.endif
	vset	bc, zero
.if ZPT
	vsetv	otype, int32
	vcvt	a1, a1				# rne, saturating, NaN -> 0
	vsetv	type, int32
	vsetv	bc, BCM
	vadd	a1, a1, a4			# + z, saturating
	vset	bc, zero
.endif
	vsetv	otype, OT
	vcvt	a2, a1				# saturating to OT
.else
	vsetv	type, IT
	vsetv	otype, fp32
	vcvt	a1, a0				# exact
	vsetv	type, fp32
	vsetv	bc, BCM
.if ZPT
	vsub	a1, a1, a4			# x - z, exact
.endif
	vmul	a1, a1, a3			# * s, rounded to fp32
	vset	bc, zero
.if OT != fp32
	vsetv	otype, OT
	vcvt	a2, a1
.endif
.endif
	sig	vec, SFULL + (\b)
	wait	dma1, SFULL + (\b), 1
	eaddr	t2, OBITS, Y_DRAM
	li	t3, BUF0 + (\b)*BUF + O_OUT
	li	t1, OBITS
	mul	t2, s3, t1
	addi	t2, t2, 7
	srli	t2, t2, 3
	copy	t3, t4, t2, 1, spm, dram
	sig	dma1, LFREE + (\b)
	addi	s0, s0, 1
.endm

.text
	rbeg	quant
	# this core's blocks: s6, s6 + s5, ... of the NB blocks; s8 of them
	csrr	s6, coreid
	csrr	s5, ncores
	li	t0, NB
	bge	s6, t0, idle
	sub	t0, t0, s6
	add	t0, t0, s5
	addi	t0, t0, -1
	divu	s8, t0, s5
	li	t0, SCALE
	vset	scale, t0
	li	t0, ZP
	vset	zp, t0
.if GRAN == QUANT_GRAN_COLUMN
	# S (and Z) rows: the table replicated KV times (source stride 0)
	li	t4, S_DRAM
	li	t3, TS
	li	t2, 1
	cdesc	t4, t3, dram, spm, 4*C, KV, 0, 4*C, t2, 0, 0
	dma	1
.if ZPT
	li	t4, Z_DRAM
	dset	src, t4
	li	t3, TZ
	dset	dst, t3
	dma	1
.endif
	sig	dma1, PFULL
	wait	vec, PFULL, 1
.if ZPT && ZCT != int32
	# the zero points in their on-chip type, once
	li	t0, 1
	vset	rows, t0
	vsetv	len, W
	vsetv	type, int32
	vsetv	otype, ZCT
	li	a4, TZ
	vcvt	a4, a4
.endif
.elif TBLW
	# per-tensor fp8: SCALE as a constant row, the divisor of vdiv
	li	t0, 1
	vset	rows, t0
	vsetv	len, W
	vsetv	type, fp32
	li	a3, TS
	li	t0, SCALE
	vbcast	a3, t0
.endif
.if RCP && TBLW
	# the divisor row replaced by its reciprocals, correctly rounded
	li	t0, 1
	vset	rows, t0
	vsetv	len, W
	vsetv	type, fp32
	vset	bc, zero
	li	a3, TS
	li	a5, TONE
	li	t0, f32(1.0)
	vbcast	a5, t0
	vdiv	a3, a5, a3
.elif RCP
	# per row: columns of ones in both buffers
	li	t0, 1
	vset	rows, t0
	vsetv	len, RB
	vsetv	type, fp32
	li	t0, f32(1.0)
	li	a5, BUF0 + O_R1
	vbcast	a5, t0
	li	a5, BUF0 + BUF + O_R1
	vbcast	a5, t0
.endif
	sig	ctl, LFREE + 0
	sig	ctl, LFREE + 1
	li	s0, 0
	load	s0, 0
loop:
	block	0
	bge	s0, s8, done
	block	1
	blt	s0, s8, loop
done:
	fence	all				# my stores have landed ...
idle:
	barrier					# ... and every core's
	rend	quant
	halt
