# softmax.s - Y = softmax(X) along the rows of an R x L fp32 tensor,
# numerically stable (the row maximum subtracted before exp), on the
# vector unit, streamed in blocks of RB rows.
#
#   for every block of RB rows, buffer b (two):
#     dma0  loads the block (one contiguous copy), one block ahead
#     vec   M = rowmax(X)            vredmax          (RB x 1)
#           X = exp(X - M)           vsub (M as a column: vset bc 1), vexp
#           S = 1 / rowsum(X)        vredsum, vrcp
#           Y = X * S                vmul (S as a column), in place
#     dma1  stores it
#
# The per-row scalars are source 2 of vsub and vmul as columns (vset bc):
# no transposes, no broadcast tiles.
# Layouts: DRAM X and Y, R x L fp32 row-major.  Scratchpad: two blocks of
# RB x L fp32 (the results overwrite the inputs) and two RB-element
# columns.  Footprint: 8*RB*L + 8*RB (+ alignment) bytes; RB defaults to
# the most rows that fit (at most R, at most 1024).
# Parameters: R, L, RB.  Accuracy: docs/numerics.md (vexp, vrcp).

.ifndef R
.equ R, 64
.endif
.ifndef L
.equ L, 256
.endif
.equ NROWS, R
.equ ROWLEN, L
.equ ES, 4				# bytes per element
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - 1024) / (8*L + 8)
.include "lib/rb.inc"
.if RB < 1
.error "softmax.s: not even one row of L fp32 fits the scratchpad twice"
.endif
.equ NB, (R + RB - 1) / RB
.equ BUF, (4*RB*L + 255) & ~255
.equ COL, 2*BUF				# the row column (max, then 1/sum)
.if COL + 4*RB + 64 > CFG_CORE_SCRATCHPAD_BYTES
.error "softmax.s: two blocks of RB x L fp32 exceed the scratchpad (lower RB)"
.endif

.equ X_DRAM, 0
.equ Y_DRAM, (4*R*L + 63) & ~63
.tensor X, dram, X_DRAM, fp32, R, L
.tensor Y, dram, Y_DRAM, fp32, R, L

.equ LFULL, 0		# +b: block b loaded (dma0 -> vec)
.equ LFREE, 2		# +b: block b stored, the buffer reusable (dma1 -> dma0)
.equ SFULL, 4		# +b: block b computed (vec -> dma1)

.include "lib/rows.inc"

# Block s0 in buffer b.
.macro block b
	ahead	\b
	rows_of	s0
	wait	vec, LFULL + (\b), 1
	vset	rows, s2
	li	t0, L
	vset	len, t0
	li	a0, COL
	li	a1, (\b)*BUF
	vredmax	a0, a1				# M = rowmax(X)
	li	t0, 1
	vset	bc, t0				# source 2: one value per row
	vsub	a1, a1, a0			# X - M
	vset	bc, zero
	vexp	a1, a1
	vredsum	a0, a1				# S = rowsum
	li	t0, 1
	vset	len, t0
	vrcp	a0, a0				# 1/S
	li	t0, L
	vset	len, t0
	li	t0, 1
	vset	bc, t0
	vmul	a1, a1, a0			# Y = X * (1/S)
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
	li	t1, 1
	cdesc	t3, t4, spm, dram, 1, 1, 0, 0, t1, 0, 0
	dset	n0, t2
	dma	1
	sig	dma1, LFREE + (\b)
	add	s0, s0, s7			# this core's next block
.endm

.text
	rbeg	softmax
	li	t0, fp32
	vset	type, t0
	vset	otype, t0
	sig	ctl, LFREE + 0
	sig	ctl, LFREE + 1
	run_rows
	rend	softmax
	halt
