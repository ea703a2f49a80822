# reduce.s - Y[r] = OP over the last axis of an R x L fp32 tensor X: sum,
# max, min, mean or argmax (the first index of the maximum), on the
# vector unit, streamed in blocks of RB rows.
#
#   for every block of RB rows, buffer b (two):
#     dma0  loads the block, one block ahead
#     vec   sum/max/min: one vredsum/vredmax/vredmin into a column
#           mean: vredsum, then vdiv by L (L as one fp32 element, a row
#           operand: vset bc 2)
#           argmax: M = vredmax; E = (X == M) (vcmpeq, M a column
#           operand: vset bc 1); I = E * (iota - L) + L (rows of viota
#           and L as row operands: vset bc 2); Y = vredmin(I), as fp32
#     dma1  stores the block's column of results
#
# Layouts: DRAM X (R x L fp32), Y (R fp32; argmax: the index as fp32,
# exact below 2^24).  Scratchpad: two blocks of RB x L, a work tile, the
# iota - L and L rows (mean, argmax), two result columns.
# Footprint: 12*RB*L + 8*L + 8*RB (+ alignment) bytes; RB defaults to the
# most rows that fit (at most R, at most 1024).
# Parameters: R, L, OP (0 sum, 1 max, 2 min, 3 mean, 4 argmax), RB.

.ifndef R
.equ R, 64
.endif
.ifndef L
.equ L, 256
.endif
.ifndef OP
.equ OP, 0
.endif
.if OP < 0 || OP > 4
.error "reduce.s: OP is 0 sum, 1 max, 2 min, 3 mean or 4 argmax"
.endif
.equ RB_ROWS, R
.equ ES, 4				# bytes per element
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - 8*L - 4096) / (12*L + 8)
.include "lib/rb.inc"
.if RB < 1
.error "reduce.s: not even one row of L fp32 fits the scratchpad three times"
.endif
.equ NB, (R + RB - 1) / RB
.equ BUF, (4*RB*L + 255) & ~255
.equ WORK, 2*BUF			# RB x L
.equ SIOTA, WORK + BUF			# 0 .. L-1, one row
.equ SLROW, SIOTA + ((4*L + 255) & ~255)	# L, L, ..., one row
.equ COLS0, SLROW + ((4*L + 255) & ~255)	# result column of buffer 0
.equ COL_SZ, (4*RB + 255) & ~255
.if COLS0 + 2*COL_SZ > CFG_CORE_SCRATCHPAD_BYTES
.error "reduce.s: the blocks exceed the scratchpad (lower RB)"
.endif

.equ X_DRAM, 0
.equ Y_DRAM, (4*R*L + 63) & ~63
.tensor X, dram, X_DRAM, fp32, R, L
.tensor Y, dram, Y_DRAM, fp32, R

.equ LFULL, 0		# +b: block b loaded (dma0 -> vec)
.equ LFREE, 2		# +b: block b no longer read (vec -> dma0)
.equ SFULL, 4		# +b: column b computed (vec -> dma1)
.equ SFREE, 6		# +b: column b stored (dma1 -> vec)

.include "lib/rows.inc"

.macro block b
	ahead	\b
	rows_of	s0
	wait	vec, LFULL + (\b), 1
	wait	vec, SFREE + (\b), 1
	vset	rows, s2
	li	t0, L
	vset	len, t0
	li	a0, COLS0 + (\b)*COL_SZ
	li	a1, (\b)*BUF
.if OP == 0 || OP == 3
	vredsum	a0, a1
.elif OP == 1 || OP == 4
	vredmax	a0, a1
.else
	vredmin	a0, a1
.endif
.if OP == 3
	li	t0, 1
	vset	len, t0
	li	t0, 2
	vset	bc, t0				# L as a row: one element
	li	a2, SLROW
	vdiv	a0, a0, a2			# mean
	vset	bc, zero
.endif
.if OP == 4
	li	t0, 1
	vset	bc, t0				# the max as a column
	li	a2, WORK
	vcmpeq	a2, a1, a0			# 1 where X == its row's max
	li	t0, 2
	vset	bc, t0				# rows: iota - L, and L
	li	a3, SIOTA
	li	a4, SLROW
	vmul	a2, a2, a3			# E * (i - L)
	vadd	a2, a2, a4			# the index where E, else L
	vset	bc, zero
	vredmin	a0, a2				# the first index of the max
.endif
	sig	vec, LFREE + (\b)
	sig	vec, SFULL + (\b)
	wait	dma1, SFULL + (\b), 1
	li	t1, 4
	mul	t4, s1, t1
	li	t1, Y_DRAM
	add	t4, t4, t1
	li	t3, COLS0 + (\b)*COL_SZ
	li	t1, 4
	mul	t2, s2, t1
	copy	t3, t4, t2, 1, spm, dram
	sig	dma1, SFREE + (\b)
	add	s0, s0, s7			# this core's next block
.endm

.text
	rbeg	reduce
.if OP >= 3
	# the rows argmax and mean need: 0 .. L-1 and L, as fp32
	li	t0, fp32
	vset	type, t0
	li	t0, 1
	vset	rows, t0
	li	t0, L
	vset	len, t0
	li	a3, SIOTA
	viota	a3, zero			# 0, 1, ..., L-1
	li	t0, int32
	vset	type, t0
	li	a4, SLROW
	li	t0, L
	vbcast	a4, t0				# L (int32), converted below
	li	t0, fp32
	vset	otype, t0
	vcvt	a4, a4
	li	t0, fp32
	vset	type, t0
	vsub	a3, a3, a4			# iota - L (argmax's row)
.endif
	li	t0, fp32
	vset	type, t0
	vset	otype, t0
	sig	ctl, LFREE + 0
	sig	ctl, LFREE + 1
	sig	ctl, SFREE + 0
	sig	ctl, SFREE + 1
	run_rows
	rend	reduce
	halt
