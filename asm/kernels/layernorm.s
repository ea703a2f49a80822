# layernorm.s - Y = (X - mean(X)) / sqrt(var(X) + eps), per row, fp32.
#
# X is R rows of L = 64 fp32 values in DRAM.  The vector unit does all the
# math; DMA engine 0 moves X in and Y out.  A per-row scalar (mean, 1/std)
# is source 2 of the vsub/vmul as a column (vset bc 1: one value per row).
#
#   S    = rowsum(X)            vredsum             (R x 1)
#   mean = S * (1/L)            vmuls
#   XC   = X - mean             vsub, mean as a column (vset bc)
#   V    = rowsum(XC * XC)/L    vmul, vredsum, vmuls
#   rstd = rsqrt(V + eps)       vadds, vrsqrt
#   Y    = XC * rstd            vmul, rstd as a column
#
# -D R=rows (default 16, at most 64).

.ifndef R
.equ R, 16
.endif
.equ L, 64
.equ ROWB, L*4

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base X_DRAM, 0
	dram_base Y_DRAM, (R*ROWB + 63) & ~63
.tensor X, dram, X_DRAM, fp32, R, L
.tensor Y, dram, Y_DRAM, fp32, R, L

# Scratchpad buffers (bytes).
.equ SX,  0			# X        R x L
.equ SXC, SX + R*ROWB		# X - mean R x L
.equ SQ,  SXC + R*ROWB		# squares  R x L
.equ SY,  SQ + R*ROWB		# Y        R x L
.equ SS,  SY + R*ROWB		# a column R x 1

.data
inv_l:	.float	0.015625	# 1 / L
eps:	.float	0.00001

# Set the tile shape to R x L.
.macro full
	li	t0, R
	vset	rows, t0
	li	t0, L
	vset	len, t0
.endm

.text
	rbeg	layernorm		# the whole kernel (zero-cost marker)
	# X: DRAM -> scratchpad
	li	t0, dram
	dset	smem, t0
	li	t0, spm
	dset	dmem, t0
	li	t0, 4
	dset	esize, t0
	li	t0, X_DRAM
	dset	src, t0
	li	t0, SX
	dset	dst, t0
	li	t0, R*L
	dset	n0, t0
	dma	0
	sig	dma0, 0
	wait	vec, 0, 1

	li	t0, fp32
	vset	type, t0
	vset	otype, t0
	lw	s0, inv_l(zero)		# fp32 bits of 1/L
	lw	s1, eps(zero)		# fp32 bits of eps

	# mean
	full
	li	a0, SS
	li	a1, SX
	vredsum	a0, a1			# S = rowsum(X)
	li	t0, 1
	vset	len, t0
	vmuls	a0, a0, s0		# mean = S / L
	full
	li	t0, 1
	vset	bc, t0			# source 2: one value per row
	li	a0, SXC
	li	a1, SX
	li	a2, SS
	vsub	a0, a1, a2		# XC = X - mean
	vset	bc, zero

	# variance and 1/std
	li	a0, SQ
	li	a1, SXC
	vmul	a0, a1, a1		# XC * XC
	li	a0, SS
	li	a1, SQ
	vredsum	a0, a1
	li	t0, 1
	vset	len, t0
	vmuls	a0, a0, s0		# V = rowsum / L
	vadds	a0, a0, s1		# V + eps
	vrsqrt	a0, a0			# rstd
	full
	li	t0, 1
	vset	bc, t0
	li	a0, SY
	li	a1, SXC
	li	a2, SS
	vmul	a0, a1, a2		# Y = XC * rstd
	vset	bc, zero

	# Y: scratchpad -> DRAM
	sig	vec, 1
	wait	dma0, 1, 1
	li	t0, spm
	dset	smem, t0
	li	t0, dram
	dset	dmem, t0
	li	t0, SY
	dset	src, t0
	li	t0, Y_DRAM
	dset	dst, t0
	dma	0
	fence	all
	rend	layernorm
	halt
