# batchnorm.s - inference batch normalisation over an NHWC tensor:
#
#   Y = (X - mean_c) * gamma_c / sqrt(var_c + EPS) + beta_c  (then relu
#                                                              if RELU)
#
# X and Y are R x C (R = N*H*W rows of C channels: channels last) of TYPE
# fp32 or bf16; GAMMA, BETA, MEAN, VAR are C fp32 each.  Per core:
#
#   once    dma1 loads the four parameter vectors; vec folds them:
#           scale_c = gamma_c * rsqrt(var_c + EPS)     vadds, vrsqrt, vmul
#           shift_c = beta_c - mean_c * scale_c        vmul, vsub
#   for every block of RB rows of the core's rows, buffer b (two):
#     dma0  loads the block, one block ahead
#     vec   Y = X * scale + shift (+ relu)  vmul, vadd (scale and shift
#           as row operands: vset bc 2), vmaxs; bf16: converted to fp32
#           first and back after (vcvt), so the arithmetic is fp32
#     dma1  stores it
#
# SPMD: the blocks are dealt to the cores in turn (core c of n takes
# blocks c, c + n, c + 2n, ...), so at any time the cores stream through
# one neighbourhood of X and Y - the same DRAM pages - rather than n
# separate ones that would need n open rows per bank.  RB defaults to the
# rows whose blocks over all cores span 64 KiB (at least 1, at most what
# fits): on datacenter.cfg's 16 cores that reaches 55 % of the DRAM peak
# against 45-49 % with one contiguous slice of rows per core.
# Memory-bound: 2 (bf16: 4) element operations per 8 (4) DRAM bytes.
# Layouts: DRAM X, Y row-major R x C (bases X_DRAM, Y_DRAM; GAMMA, BETA,
# MEAN, VAR at G_DRAM, B_DRAM, M_DRAM, V_DRAM, by default adjacent, each
# PV bytes: lib/dram.inc); scratchpad: the parameters (4 x C
# fp32), two blocks of RB x C of TYPE and, for bf16, one fp32 work block.
# Footprint: 16*C + 2*RB*C*size (+ 4*RB*C for bf16) bytes (+ alignment).
# Parameters: R, C, TYPE (fp32), EPS (fp32 bits, default 1e-5), RELU (0),
# RB.  Accuracy: docs/numerics.md ("Operator tolerances").

.include "lib/cdesc.inc"

.ifndef R
.equ R, 64
.endif
.ifndef C
.equ C, 64
.endif
.ifndef TYPE
.equ TYPE, fp32
.endif
.if TYPE != fp32 && TYPE != bf16
.error "batchnorm.s: TYPE is fp32 or bf16"
.endif
.ifndef EPS
.equ EPS, f32(0.00001)
.endif
.ifndef RELU
.equ RELU, 0
.endif
.if R < 1 || C < 1
.error "batchnorm.s: R and C must be at least 1"
.endif
.equ ES, TYPE == fp32 ? 4 : 2
.equ WB, TYPE == fp32 ? 0 : 4		# bytes per element of the work block
.equ PV, (4*C + 255) & ~255		# one parameter vector
.ifndef RB
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - 4*PV - 2048) / (C*(2*ES + WB))
.equ RB_W, 65536 / (CFG_CHIP_CORES*C*ES)	# the chip's blocks span 64 KiB
.equ RB_C, RB_S < RB_W ? RB_S : RB_W
.equ RB_1, RB_C < R ? RB_C : R
.equ RB, RB_1 > 0 ? RB_1 : 1
.endif
.if RB < 1 || RB*C*(2*ES + WB) + 4*PV + 2048 > CFG_CORE_SCRATCHPAD_BYTES
.error "batchnorm.s: two blocks of RB rows of C channels do not fit the scratchpad"
.endif
.equ NBLK, (R + RB - 1) / RB		# blocks, dealt to the cores in turn
.equ BUF, (RB*C*ES + 255) & ~255
.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
# The row operands sit half a bank period off the blocks' alignment, so a
# lane group's reads of the block and of the parameters use other banks.
.equ PG, 2*BUF + PERIOD/2		# gamma, then scale
.equ PB, PG + PV			# beta, then shift
.equ PM, PB + PV			# mean, then mean * scale
.equ PVAR, PM + PV			# var, then rsqrt(var + EPS)
.equ WORK, (PVAR + PV + PERIOD - 1) / PERIOD * PERIOD	# bf16: the block in fp32
.if WORK + RB*C*WB > CFG_CORE_SCRATCHPAD_BYTES
.error "batchnorm.s: the blocks exceed the scratchpad (lower RB)"
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base X_DRAM, 0
	dram_base Y_DRAM, (R*C*ES + 63) & ~63
	dram_base G_DRAM, (Y_DRAM + R*C*ES + 63) & ~63
	dram_base B_DRAM, G_DRAM + PV
	dram_base M_DRAM, B_DRAM + PV
	dram_base V_DRAM, M_DRAM + PV
# adjacent parameter vectors (the default) load in one copy
.equ PADJ, B_DRAM == G_DRAM + PV && M_DRAM == B_DRAM + PV && V_DRAM == M_DRAM + PV
.tensor X, dram, X_DRAM, TYPE, R, C
.tensor Y, dram, Y_DRAM, TYPE, R, C
.tensor GAMMA, dram, G_DRAM, fp32, C
.tensor BETA, dram, B_DRAM, fp32, C
.tensor MEAN, dram, M_DRAM, fp32, C
.tensor VAR, dram, V_DRAM, fp32, C

.equ LFULL, 0		# +b: block b loaded (dma0 -> vec)
.equ LFREE, 2		# +b: block b stored, the buffer reusable (dma1 -> dma0)
.equ SFULL, 4		# +b: block b computed (vec -> dma1)
.equ PFULL, 6		# the parameters loaded (dma1 -> vec)

# Rows of this core's block REG: s1 = its first row, s2 = its rows (RB,
# fewer for the last block of X).  s6 = coreid, s7 = ncores.
.macro rows_of reg
	mul	t2, \reg, s7
	add	t2, t2, s6			# block reg * ncores + coreid
	li	t1, RB
	mul	s1, t2, t1
	li	t2, R
	sub	s2, t2, s1
	min	s2, s2, t1
.endm

# One contiguous copy of NREG (a register) bytes from SRC to DST on E.
.macro copy src, dst, nreg, e, sm=dram, dm=spm
	li	t1, 1
	cdesc	\src, \dst, \sm, \dm, 1, 1, 0, 0, t1, 0, 0
	dset	n0, \nreg
	dma	\e
.endm

# Load block REG into buffer b (dma0), once the buffer is free.
.macro load reg, b
	rows_of	\reg
	wait	dma0, LFREE + (\b), 1
	li	t1, C*ES
	mul	t4, s1, t1
	mul	t2, s2, t1
	li	t1, X_DRAM
	add	t4, t4, t1
	li	t3, (\b)*BUF
	copy	t4, t3, t2, 0
	sig	dma0, LFULL + (\b)
.endm

# Block s0 from buffer b.
.macro block b
	addi	t6, s0, 1
	bge	t6, s5, nl\@
	load	t6, 1 - (\b)
nl\@:
	rows_of	s0
	wait	vec, LFULL + (\b), 1
	vset	rows, s2
	li	a1, (\b)*BUF
	li	a2, PG
	li	a3, PB
.if TYPE == bf16
	li	a0, WORK
	li	t0, bf16
	vset	type, t0
	li	t0, fp32
	vset	otype, t0
	vcvt	a0, a1				# X in fp32
	vset	type, t0
.else
	mv	a0, a1
.endif
	li	t0, 2
	vset	bc, t0				# source 2: one row for all rows
	vmul	a0, a0, a2			# X * scale
	vadd	a0, a0, a3			# + shift
	vset	bc, zero
.if TYPE == bf16
	li	t0, bf16
	vset	otype, t0
	vcvt	a1, a0				# Y in bf16, rounded once
	vset	type, t0
.endif
.if RELU
	vmaxs	a1, a1, zero			# bf16: on the rounded result (the
.endif						# same, rounding is monotonic), half the bytes
	sig	vec, SFULL + (\b)
	wait	dma1, SFULL + (\b), 1
	li	t1, C*ES
	mul	t4, s1, t1
	mul	t2, s2, t1
	li	t1, Y_DRAM
	add	t4, t4, t1
	copy	a1, t4, t2, 1, spm, dram
	sig	dma1, LFREE + (\b)
	addi	s0, s0, 1
.endm

.text
	rbeg	batchnorm
	csrr	s6, coreid
	csrr	s7, ncores
	li	t0, NBLK			# this core's blocks: ceil((NBLK - c) / n)
	sub	t0, t0, s6
	blez	t0, done			# more cores than blocks
	add	t0, t0, s7
	addi	t0, t0, -1
	divu	s5, t0, s7
	# the four parameter vectors: one copy when they are adjacent in
	# DRAM (the default layout), else one each
.if PADJ
	li	t4, G_DRAM
	li	t3, PG
	li	t2, 4*PV
	copy	t4, t3, t2, 1
.else
	li	t2, 4*C
	li	t4, G_DRAM
	li	t3, PG
	copy	t4, t3, t2, 1
	li	t4, B_DRAM
	li	t3, PB
	copy	t4, t3, t2, 1
	li	t4, M_DRAM
	li	t3, PM
	copy	t4, t3, t2, 1
	li	t4, V_DRAM
	li	t3, PVAR
	copy	t4, t3, t2, 1
.endif
	sig	dma1, PFULL
	li	t0, fp32
	vset	type, t0
	vset	otype, t0
	li	t0, 1
	vset	rows, t0
	li	t0, C
	vset	len, t0
	wait	vec, PFULL, 1
	li	a0, PVAR
	li	a1, PG
	li	a2, PB
	li	a3, PM
	li	t0, EPS
	vadds	a0, a0, t0			# var + EPS
	vrsqrt	a0, a0				# 1 / sqrt
	vmul	a1, a1, a0			# scale = gamma * rsqrt
	vmul	a3, a3, a1			# mean * scale
	vsub	a2, a2, a3			# shift = beta - mean * scale
	sig	ctl, LFREE + 0
	sig	ctl, LFREE + 1
	li	s0, 0
	load	s0, 0
loop:
	block	0
	bge	s0, s5, drain
	block	1
	blt	s0, s5, loop
drain:
	fence	all
done:
	barrier
	rend	batchnorm
	halt
