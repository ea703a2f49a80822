# softmax.s - Y = softmax(X) along the rows of an R x L tensor of fp32,
# bf16 or fp16 (DT), numerically stable (the row maximum subtracted
# before exp), computed in fp32 on the vector unit, streamed in blocks of
# RB rows dealt round the cores (lib/rows.inc).
#
#   for every block of RB rows, buffer b (two):
#     dma0  loads the block (one contiguous copy), one block ahead
#     vec   (bf16/fp16) X = fp32(X) into a work tile       vcvt
#           M = rowmax(X)            vredmax          (RB x 1)
#           X = exp(X - M)           vsub (M as a column: vset bc 1), vexp
#           S = 1 / rowsum(X)        vredsum, vrcp
#           Y = X * S                vmul (S as a column), in place
#           (bf16/fp16) Y = DT(Y), one rounding, into the block  vcvt
#     dma1  stores it
#
# The per-row scalars are source 2 of vsub and vmul as columns (vset bc):
# no transposes, no broadcast tiles.
# Layouts: DRAM X and Y, R x L of DT row-major.  Scratchpad: two blocks of
# RB x L of DT (the results overwrite the inputs), an fp32 work tile
# (bf16/fp16) and an RB-element column.  Footprint: (2*ES + WT)*RB*L +
# 4*RB (+ alignment) bytes, ES the bytes of DT, WT 4 for bf16/fp16;
# RB from lib/rb.inc.
# Parameters: R, L, DT, RB (RBSEL).  Accuracy: docs/numerics.md.

.ifndef R
.equ R, 64
.endif
.ifndef L
.equ L, 256
.endif
.ifndef DT
.equ DT, fp32
.endif
.if DT != fp32 && DT != bf16 && DT != fp16
.error "softmax.s: DT is fp32, bf16 or fp16"
.endif
.equ NROWS, R
.equ ROWLEN, L
.equ ES, DT == fp32 ? 4 : 2		# bytes per element
.equ WT, DT == fp32 ? 0 : 4		# bytes per element of the work tile
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - 1536) / ((2*ES + WT)*L + 4)
.include "lib/rb.inc"
.if RB < 1
.error "softmax.s: not even one row of L elements fits the scratchpad's tiles"
.endif
.equ NB, (R + RB - 1) / RB
.equ BUF, (ES*RB*L + 255) & ~255	# a block of DT
.equ SW, 2*BUF				# the fp32 work tile (bf16/fp16)
.equ COL, SW + (WT ? (4*RB*L + 255) & ~255 : 0)	# the row column (max, then 1/sum)
.if COL + 4*RB + 64 > CFG_CORE_SCRATCHPAD_BYTES
.error "softmax.s: the blocks exceed the scratchpad (lower RB)"
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base X_DRAM, 0
	dram_base Y_DRAM, (ES*R*L + 63) & ~63
.tensor X, dram, X_DRAM, DT, R, L
.tensor Y, dram, Y_DRAM, DT, R, L

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
.if WT
	li	t0, DT
	vset	type, t0
	li	t0, fp32
	vset	otype, t0
	li	a2, SW
	vcvt	a2, a1				# X in fp32
	vset	type, t0
	mv	a1, a2
.endif
	vredmax	a0, a1				# M = rowmax(X)
	li	t0, 1
	vset	bc, t0				# source 2: one value per row
	vsub	a1, a1, a0			# X - M
	vset	bc, zero
	vexp	a1, a1
	vredsum	a0, a1				# S = rowsum
	li	t0, 1
	vset	rows, t0
	vset	len, s2				# the column as one row: every lane
	vrcp	a0, a0				# 1/S
	vset	rows, s2
	li	t0, L
	vset	len, t0
	li	t0, 1
	vset	bc, t0
	vmul	a1, a1, a0			# Y = X * (1/S)
	vset	bc, zero
.if WT
	li	t0, DT
	vset	otype, t0
	li	a2, (\b)*BUF
	vcvt	a2, a1				# Y = DT(Y)
	li	t0, fp32
	vset	otype, t0
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
