# norm.s - Y = norm(X) * gamma (+ beta) along the rows of an R x L fp32
# tensor, any L: layernorm (MODE 0) or rmsnorm (MODE 1), on the vector
# unit, streamed in blocks of RB rows.
#
#   layernorm  Y = (X - mean) / sqrt(var + EPS) * gamma + beta
#   rmsnorm    Y = X / sqrt(mean(X^2) + EPS) * gamma
#
#   once:      dma1 loads gamma and beta (1 x L rows); vec makes L an fp32
#              element (the means divide by it: vdiv, correctly rounded)
#   for every block of RB rows, buffer b (two):
#     dma0  loads the block, one block ahead
#     vec   (layernorm) M = rowsum(X) / L, X = X - M    vredsum, vdiv, vsub
#           V = rowsum(X * X) / L + EPS, S = 1/sqrt(V)  vmul, vredsum, vdiv,
#                                                       vadds, vrsqrt
#           X = X * S * gamma (+ beta)                  vmul, vmul, vadd
#     dma1  stores it
# The per-row statistics are column operands (vset bc 1), gamma and beta
# row operands (vset bc 2): no transposes, no broadcast tiles.
# Layouts: DRAM X and Y (R x L fp32), G and B (1 x L fp32).  Scratchpad:
# two blocks of RB x L, a squares tile of RB x L, gamma, beta, a column.
# Footprint: 12*RB*L + 8*L + 4*RB (+ alignment) bytes; RB defaults to the
# most rows that fit (at most R, at most 1024).
# Parameters: R, L, MODE (0 layernorm, 1 rmsnorm), EPS (as fp32 bits,
# default 1e-5), RB.  Statistics in fp32; accuracy in docs/numerics.md.

.ifndef R
.equ R, 64
.endif
.ifndef L
.equ L, 256
.endif
.ifndef MODE
.equ MODE, 0
.endif
.if MODE != 0 && MODE != 1
.error "norm.s: MODE is 0 (layernorm) or 1 (rmsnorm)"
.endif
.ifndef EPS
.equ EPS, f32(0.00001)
.endif
.ifndef RB
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - 8*L - 2048) / (12*L + 4)
.equ RB_C, RB_S < 1024 ? RB_S : 1024
.equ RB, RB_C < R ? RB_C : R
.endif
.if RB < 1
.error "norm.s: not even one row of L fp32 fits the scratchpad three times"
.endif
.equ NB, (R + RB - 1) / RB
.equ BUF, (4*RB*L + 255) & ~255
.equ SQ, 2*BUF				# squares, RB x L
.equ SG, SQ + BUF			# gamma, 1 x L
.equ SBETA, SG + ((4*L + 255) & ~255)	# beta, 1 x L
.equ COL, SBETA + ((4*L + 255) & ~255)	# the row column
.equ SLF, COL + ((4*RB + 255) & ~255)	# L as fp32 (one element)
.if SLF + 64 > CFG_CORE_SCRATCHPAD_BYTES
.error "norm.s: the blocks exceed the scratchpad (lower RB)"
.endif

.equ X_DRAM, 0
.equ Y_DRAM, (4*R*L + 63) & ~63
.equ G_DRAM, (Y_DRAM + 4*R*L + 63) & ~63
.equ B_DRAM, (G_DRAM + 4*L + 63) & ~63
.tensor X, dram, X_DRAM, fp32, R, L
.tensor Y, dram, Y_DRAM, fp32, R, L
.tensor G, dram, G_DRAM, fp32, 1, L
.if MODE == 0
.tensor B, dram, B_DRAM, fp32, 1, L
.endif

.equ LFULL, 0		# +b: block b loaded (dma0 -> vec)
.equ LFREE, 2		# +b: block b stored (dma1 -> dma0)
.equ SFULL, 4		# +b: block b computed (vec -> dma1)
.equ PFULL, 6		# gamma and beta loaded (dma1 -> vec)

.include "lib/rows.inc"

.text

.macro block b
	addi	t6, s0, 1
	li	t1, NB
	bge	t6, t1, nl\@
	load	t6, 1 - (\b)
nl\@:
	rows_of	s0
	wait	vec, LFULL + (\b), 1
	vset	rows, s2
	li	t0, L
	vset	len, t0
	li	a0, COL
	li	a1, (\b)*BUF
	li	a2, SQ
	li	t0, 1
.if MODE == 0
	vredsum	a0, a1				# rowsum(X)
	vset	len, t0
	li	t0, 2
	vset	bc, t0
	vdiv	a0, a0, s10			# mean = sum / L (L as a row)
	vset	bc, zero
	li	t0, L
	vset	len, t0
	li	t0, 1
	vset	bc, t0				# source 2: one value per row
	vsub	a1, a1, a0			# X - mean
	vset	bc, zero
.endif
	vmul	a2, a1, a1			# squares
	vredsum	a0, a2
	li	t0, 1
	vset	len, t0
	li	t0, 2
	vset	bc, t0
	vdiv	a0, a0, s10			# mean of the squares
	vset	bc, zero
	vadds	a0, a0, s9			# + EPS
	vrsqrt	a0, a0				# 1/sqrt
	li	t0, L
	vset	len, t0
	li	t0, 1
	vset	bc, t0
	vmul	a1, a1, a0			# normalised
	li	t0, 2
	vset	bc, t0				# source 2: one row for all rows
	li	a3, SG
	vmul	a1, a1, a3			# * gamma
.if MODE == 0
	li	a3, SBETA
	vadd	a1, a1, a3			# + beta
.endif
	vset	bc, zero
	sig	vec, SFULL + (\b)
	wait	dma1, SFULL + (\b), 1
	li	t1, 4*L
	mul	t4, s1, t1
	li	t1, Y_DRAM
	add	t4, t4, t1
	li	t3, (\b)*BUF
	li	t1, 4*L
	mul	t2, s2, t1
	copy	t3, t4, t2, 1, spm, dram
	sig	dma1, LFREE + (\b)
	addi	s0, s0, 1
.endm

	rbeg	norm
	li	t0, fp32
	vset	type, t0
	vset	otype, t0
	li	s9, EPS
	# L as one fp32 element (the divisor of the means): an int32 L
	# converted by the vector unit, so any L is exact
	li	t0, 1
	vset	rows, t0
	vset	len, t0
	li	t0, int32
	vset	type, t0
	li	s10, SLF
	li	t0, L
	vbcast	s10, t0
	li	t0, fp32
	vset	otype, t0
	vcvt	s10, s10
	vset	type, t0
	li	t4, G_DRAM
	li	t3, SG
	li	t2, 4*L
	copy	t4, t3, t2, 1
.if MODE == 0
	li	t4, B_DRAM
	li	t3, SBETA
	copy	t4, t3, t2, 1
.endif
	sig	dma1, PFULL
	wait	vec, PFULL, 1
	sig	ctl, LFREE + 0
	sig	ctl, LFREE + 1
	run_rows
	rend	norm
	halt
