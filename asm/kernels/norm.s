# norm.s - Y = norm(X) * gamma (+ beta) along the rows of an R x L
# tensor of fp32, bf16 or fp16 (DT), any L: layernorm (MODE 0) or rmsnorm
# (MODE 1), on the vector unit, streamed in blocks of RB rows, statistics
# in fp32 whatever DT is.
#
#   layernorm  Y = (X - mean) / sqrt(var + EPS) * gamma + beta
#   rmsnorm    Y = X / sqrt(mean(X^2) + EPS) * gamma
#
#   once:      dma1 loads gamma and beta (1 x L fp32 rows); vec makes L an
#              fp32 element (the means divide by it: vdiv, correctly rounded)
#   for every block of RB rows, buffer b (two):
#     dma0  loads the block, one block ahead
#     vec   (bf16/fp16) W = fp32(X)                     vcvt
#           (layernorm) M = rowsum(W) / L, W = W - M    vredsum, vdiv, vsub
#           V = rowsum(W * W) / L + EPS, S = 1/sqrt(V)  vmul, vredsum, vdiv,
#                                                       vadds, vrsqrt
#           W = W * S * gamma (+ beta)                  vmul, vmul, vadd
#           (bf16/fp16) X = DT(W), one rounding        vcvt
#     dma1  stores it
# The per-row statistics are column operands (vset bc 1), gamma and beta
# row operands (vset bc 2): no transposes, no broadcast tiles.  SPMD: the
# blocks are split between the cores (lib/rows.inc).
# Layouts: DRAM X and Y (R x L of DT), G and B (1 x L fp32).  Scratchpad:
# two blocks of RB x L of DT, an fp32 work tile (bf16/fp16 only; fp32
# works in place), a squares tile of RB x L fp32, gamma, beta, a column.
# Footprint: (2*ES + 4)*RB*L (+ 4*RB*L for bf16/fp16) + 8*L + 4*RB
# (+ alignment) bytes, ES the bytes of DT; RB defaults to the most rows
# that fit (at most the rows of a core, at most 1024).
# Parameters: R, L, DT (fp32, bf16, fp16), MODE (0 layernorm, 1 rmsnorm),
# EPS (as fp32 bits, default 1e-5), RB.  Accuracy: docs/numerics.md.
.include "lib/norm_abi.inc"
.ifndef R
.equ R, 64
.endif
.ifndef L
.equ L, 256
.endif
.ifndef MODE
.equ MODE, NORM_MODE_LAYERNORM
.endif
.if MODE != NORM_MODE_LAYERNORM && MODE != NORM_MODE_RMSNORM
.error "norm.s: MODE is 0 (layernorm) or 1 (rmsnorm)"
.endif
.ifndef DT
.equ DT, fp32
.endif
.if DT != fp32 && DT != bf16 && DT != fp16
.error "norm.s: DT is fp32, bf16 or fp16"
.endif
.equ ES, DT == fp32 ? 4 : 2		# bytes of an element of X and Y
.equ WT, DT == fp32 ? 0 : 4		# bytes per element of the fp32 work tile
.ifndef EPS
.equ EPS, f32(0.00001)
.endif
.equ NROWS, R
.equ ROWLEN, L
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - 8*L - 3072) / ((2*ES + 4 + WT)*L + 4)
.include "lib/rb.inc"
.if RB < 1
.error "norm.s: not even one row of L elements fits the scratchpad's tiles"
.endif
.equ NB, (R + RB - 1) / RB
.equ BUF, (ES*RB*L + 255) & ~255	# a block of X (then Y) of DT
.equ TILE, (4*RB*L + 255) & ~255	# an fp32 tile of the block's shape
.equ SW, 2*BUF				# the fp32 work tile (bf16/fp16)
.equ SQ, SW + (WT ? TILE : 0)		# squares, RB x L fp32
.equ SG, SQ + TILE			# gamma, 1 x L
.equ SBETA, SG + ((4*L + 255) & ~255)	# beta, 1 x L
.equ COL, SBETA + ((4*L + 255) & ~255)	# the row column
.equ SLF, COL + ((4*RB + 255) & ~255)	# L as fp32, RB times (a row)
.if SLF + 4*RB + 64 > CFG_CORE_SCRATCHPAD_BYTES
.error "norm.s: the blocks exceed the scratchpad (lower RB)"
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base X_DRAM, 0
	dram_base Y_DRAM, (ES*R*L + 63) & ~63
	dram_base G_DRAM, (Y_DRAM + ES*R*L + 63) & ~63
	dram_base B_DRAM, (G_DRAM + 4*L + 63) & ~63
.tensor X, dram, X_DRAM, DT, R, L
.tensor Y, dram, Y_DRAM, DT, R, L
.tensor G, dram, G_DRAM, fp32, 1, L
.if MODE == NORM_MODE_LAYERNORM
.tensor B, dram, B_DRAM, fp32, 1, L
.endif

.equ LFULL, 0		# +b: block b loaded (dma0 -> vec)
.equ LFREE, 2		# +b: block b stored (dma1 -> dma0)
.equ SFULL, 4		# +b: block b computed (vec -> dma1)
.equ PFULL, 6		# gamma and beta loaded (dma1 -> vec)

.include "lib/rows.inc"

.text

.macro block b
	ahead	\b
	rows_of	s0
	wait	vec, LFULL + (\b), 1
	vset	rows, s2
	li	t0, L
	vset	len, t0
	li	a0, COL
	li	a1, (\b)*BUF
	li	a2, SQ
.if WT
	li	t0, DT
	vset	type, t0
	li	t0, fp32
	vset	otype, t0
	li	a4, SW
	vcvt	a4, a1				# W = fp32(X)
	vset	type, t0
	mv	a1, a4
.endif
	li	t0, 1
.if MODE == NORM_MODE_LAYERNORM
	vredsum	a0, a1				# rowsum(X)
	vset	rows, t0
	vset	len, s2				# the column as one row: every lane
	vdiv	a0, a0, s10			# mean = sum / L
	vset	rows, s2
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
	vset	rows, t0
	vset	len, s2				# the column as one row
	vdiv	a0, a0, s10			# mean of the squares
	vadds	a0, a0, s9			# + EPS
	vrsqrt	a0, a0				# 1/sqrt
	vset	rows, s2
	li	t0, L
	vset	len, t0
	li	t0, 1
	vset	bc, t0
	vmul	a1, a1, a0			# normalised
	li	t0, 2
	vset	bc, t0				# source 2: one row for all rows
	li	a3, SG
	vmul	a1, a1, a3			# * gamma
.if MODE == NORM_MODE_LAYERNORM
	li	a3, SBETA
	vadd	a1, a1, a3			# + beta
.endif
	vset	bc, zero
.if WT
	li	t0, DT
	vset	otype, t0
	li	a4, (\b)*BUF
	vcvt	a4, a1				# Y = DT(W)
.endif
	sig	vec, SFULL + (\b)
	wait	dma1, SFULL + (\b), 1
	li	t1, ES*L
	mul	t4, s1, t1
	li	t1, Y_DRAM
	add	t4, t4, t1
	li	t3, (\b)*BUF
	li	t1, ES*L
	mul	t2, s2, t1
	copy	t3, t4, t2, 1, spm, dram
	sig	dma1, LFREE + (\b)
	add	s0, s0, s7			# this core's next block
.endm

	rbeg	norm
	li	t0, fp32
	vset	type, t0
	vset	otype, t0
	li	s9, EPS
	# L as fp32, a row of RB (the divisor of the means, elementwise on
	# the statistics as one row): an int32 L converted by the vector
	# unit, so any L is exact
	li	t0, 1
	vset	rows, t0
	li	t0, RB
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
.if MODE == NORM_MODE_LAYERNORM
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
