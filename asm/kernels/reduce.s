# reduce.s - Y = OP over one axis of an fp32 tensor X: sum, max, min,
# mean or argmax (the first index of the maximum), on the vector unit,
# streamed, SPMD over the cores.  X is 2-D (R x L, AXIS 1 the default or
# 0) or 4-D (D0 x D1 x D2 x D3, AXIS 0..3); Y is X without that axis.
# The tensor is viewed as OUTER x A x INNER, A the reduced axis:
#
# The last axis (INNER = 1): rows of A, blocks of RB rows, buffer b:
#     dma0  loads the block, one block ahead
#     vec   sum/max/min: one vredsum/vredmax/vredmin into a column
#           mean: vredsum, then vdiv by A (A as one fp32 element, a row
#           operand: vset bc 2)
#           argmax: M = vredmax; E = (X == M) (vcmpeq, M a column
#           operand: vset bc 1); I = E * (iota - A) + A (rows of viota
#           and A as row operands: vset bc 2); Y = vredmin(I), as fp32
#     dma1  stores the block's column of results
#   Scratchpad: two blocks of RB x A, a work tile, the iota - A and A
#   rows, two result columns: 12*RB*A + 8*A + 8*RB (+ alignment) bytes.
#
# Another axis (INNER > 1): items (o, column chunk of CW of the INNER
# columns) go round the cores; an item walks A in chunks of RC rows
# (each a 2-D copy of RC rows of cw elements, INNER apart), one chunk
# ahead, and reduces each chunk in place by pairs - row k*2st takes row
# k*2st + st, st = 1, 2, 4, ... until row 0 holds all: one element
# operation per element - then folds that row into the item's result row
# (argmax: running values and int32 indices; a later row replaces an
# earlier one only where strictly greater, vcmplt and vsel, so the first
# index wins); mean divides by A at the end; dma1 stores the row.
#   Scratchpad: two chunks of RC x CW, two result rows (argmax: an index
#   tile, a row-index tile and a mask of RC x CW, two index rows):
#   (8 + argmax 12)*RC*CW + 16*CW (+ alignment) bytes; CW is
#   INNER up to 1024 columns, RC the rows that fit (at most A).
#
# Layouts: DRAM X row-major; Y row-major (argmax: the index as fp32,
# exact below 2^24).  Parameters: R, L or D0..D3, AXIS, OP (0 sum, 1 max,
# 2 min, 3 mean, 4 argmax), RB (last axis) or RC, CW (other axes).

.ifndef OP
.equ OP, 0
.endif
.if OP < 0 || OP > 4
.error "reduce.s: OP is 0 sum, 1 max, 2 min, 3 mean or 4 argmax"
.endif
.ifdef D0
.ifndef AXIS
.equ AXIS, 3
.endif
.if AXIS < 0 || AXIS > 3
.error "reduce.s: AXIS of a 4-D tensor is 0..3"
.endif
.equ OUTER, AXIS == 0 ? 1 : AXIS == 1 ? D0 : AXIS == 2 ? D0*D1 : D0*D1*D2
.equ A, AXIS == 0 ? D0 : AXIS == 1 ? D1 : AXIS == 2 ? D2 : D3
.equ INNER, AXIS == 0 ? D1*D2*D3 : AXIS == 1 ? D2*D3 : AXIS == 2 ? D3 : 1
.else
.ifndef R
.equ R, 64
.endif
.ifndef L
.equ L, 256
.endif
.ifndef AXIS
.equ AXIS, 1
.endif
.if AXIS != 0 && AXIS != 1
.error "reduce.s: AXIS of a 2-D tensor is 0 or 1"
.endif
.equ OUTER, AXIS == 0 ? 1 : R
.equ A, AXIS == 0 ? R : L
.equ INNER, AXIS == 0 ? L : 1
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base X_DRAM, 0
	dram_base Y_DRAM, (4*OUTER*A*INNER + 63) & ~63
.ifdef D0
.tensor X, dram, X_DRAM, fp32, D0, D1, D2, D3
.if AXIS == 0
.tensor Y, dram, Y_DRAM, fp32, D1, D2, D3
.elif AXIS == 1
.tensor Y, dram, Y_DRAM, fp32, D0, D2, D3
.elif AXIS == 2
.tensor Y, dram, Y_DRAM, fp32, D0, D1, D3
.else
.tensor Y, dram, Y_DRAM, fp32, D0, D1, D2
.endif
.else
.tensor X, dram, X_DRAM, fp32, R, L
.tensor Y, dram, Y_DRAM, fp32, OUTER*INNER
.endif

.if INNER == 1
.equ NROWS, OUTER
.equ ROWLEN, A
.equ ES, 4				# bytes per element
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - 8*A - 4096) / (12*A + 8)
.include "lib/rb.inc"
.if RB < 1
.error "reduce.s: not even one row of the reduced axis (A fp32) fits the scratchpad three times"
.endif
.equ NB, (OUTER + RB - 1) / RB
.equ BUF, (4*RB*A + 255) & ~255
.equ WORK, 2*BUF			# RB x A
.equ SIOTA, WORK + BUF			# 0 .. A-1, one row
.equ SLROW, SIOTA + ((4*A + 255) & ~255)	# A, A, ..., one row
.equ COLS0, SLROW + ((4*A + 255) & ~255)	# result column of buffer 0
.equ COL_SZ, (4*RB + 255) & ~255
.if COLS0 + 2*COL_SZ > CFG_CORE_SCRATCHPAD_BYTES
.error "reduce.s: the blocks exceed the scratchpad (lower RB)"
.endif


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
	li	t0, A
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
	vset	bc, t0				# A as a row: one element
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
	vset	bc, t0				# rows: iota - A, and A
	li	a3, SIOTA
	li	a4, SLROW
	vmul	a2, a2, a3			# E * (i - A)
	vadd	a2, a2, a4			# the index where E, else A
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
	# the rows argmax and mean need: 0 .. A-1 and A, as fp32
	li	t0, fp32
	vset	type, t0
	li	t0, 1
	vset	rows, t0
	li	t0, A
	vset	len, t0
	li	a3, SIOTA
	viota	a3, zero			# 0, 1, ..., A-1
	li	t0, int32
	vset	type, t0
	li	a4, SLROW
	li	t0, A
	vbcast	a4, t0				# A (int32), converted below
	li	t0, fp32
	vset	otype, t0
	vcvt	a4, a4
	li	t0, fp32
	vset	type, t0
	vsub	a3, a3, a4			# iota - A (argmax's row)
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
.else
# ---- another axis: chunks of RC rows x CW columns, reduced by halving

.ifndef CW
.equ CW, INNER < 1024 ? INNER : 1024
.endif
.equ NCC, (INNER + CW - 1) / CW		# column chunks
.equ ARG, OP == 4
.equ CB, (4*CW + 255) & ~255		# a row of CW fp32 / int32
.ifndef RC
.equ RC_S, (CFG_CORE_SCRATCHPAD_BYTES - (4 + 2*ARG)*CB - 4096) / ((8 + 12*ARG)*CW)
.equ RC_A, RC_S < A ? RC_S : A
.equ RC, RC_A < 1024 ? RC_A : 1024
.endif
.if RC < 1
.error "reduce.s: not even one row of CW columns fits the scratchpad (lower CW)"
.endif
.equ NRC, (A + RC - 1) / RC		# row chunks of an item
.equ NITEMS, OUTER*NCC
.equ TB, (4*RC*CW + 255) & ~255		# a chunk tile
.equ SP_B, 0				# two chunk buffers
.equ SP_ACC, 2*TB			# two result rows
.equ SP_AROW, SP_ACC + 2*CB		# A, A, ... (mean)
.equ SP_IDX, SP_AROW + CB		# argmax: the chunk's indices, RC x CW
.equ SP_T, SP_IDX + TB			# argmax: T[r][i] = r, RC x CW int32
.equ SP_M, SP_T + TB			# argmax: the mask (rows as the pairs')
.equ SP_AI, SP_M + TB			# two index rows
.equ SP_END, SP_AI + 2*CB
.if (ARG ? SP_END : SP_IDX) > CFG_CORE_SCRATCHPAD_BYTES
.error "reduce.s: the chunks exceed the scratchpad (lower RC or CW)"
.endif

# Counting semaphores: loads and results go in order.
.equ LFULL, 0		# chunk loaded (dma0 -> vec)
.equ LFREE, 1		# chunk reduced (vec -> dma0), 2 credits
.equ SFULL, 2		# result row ready (vec -> dma1)
.equ SFREE, 3		# result row stored (dma1 -> vec), 2 credits

.include "lib/cdesc.inc"

# Step T (register) of this core: t1 = item, t2 = row chunk, t3 = o,
# t4 = first column, t5 = cw (its columns), t6 = rc (its rows), a7 = its
# first row.
.macro chunk t
	li	t0, NRC
	divu	t1, \t, t0
	remu	t2, \t, t0
	mul	t1, t1, s3
	add	t1, t1, s4			# item = core + (t / NRC) * ncores
	li	t0, NCC
	divu	t3, t1, t0
	remu	t4, t1, t0
	li	t0, CW
	mul	t4, t4, t0
	li	t5, INNER
	sub	t5, t5, t4
	bge	t0, t5, ck1\@
	mv	t5, t0
ck1\@:
	li	t0, RC
	mul	a7, t2, t0
	li	t6, A
	sub	t6, t6, a7
	bge	t0, t6, ck2\@
	mv	t6, t0
ck2\@:
.endm

# Load step T (register) into buffer T & 1, if the core has it.
.macro load t
	bge	\t, s5, ld\@
	chunk	\t
	# X[o][a7 ..][t4 ..]: rc rows of cw elements, INNER apart
	li	t0, A
	mul	a0, t3, t0
	add	a0, a0, a7
	li	t0, INNER
	mul	a0, a0, t0
	add	a0, a0, t4
	slli	a0, a0, 2
	andi	a1, \t, 1
	li	t0, TB
	mul	a1, a1, t0			# SP_B = 0
	wait	dma0, LFREE, 1
	li	a6, 1
	cdesc	a0, a1, dram, spm, 4, 1, INNER*4, CW*4, a6, 0, 0
	slli	t0, t5, 2
	dset	n0, t0
	dset	n1, t6
	dma	0
	sig	dma0, LFULL
ld\@:
.endm

# OP on rows: d = op(s1, s2), the current geometry.
.macro vop d, s1, s2
.if OP == 0 || OP == 3
	vadd	\d, \s1, \s2
.elif OP == 2
	vmin	\d, \s1, \s2
.else
	vmax	\d, \s1, \s2
.endif
.endm

# Reduce step T (register): halve the chunk to one row, fold it into
# result row K & 1 (K: this core's item count), store at the item's end.
.macro step t
	chunk	\t
	andi	a1, \t, 1
	li	t0, TB
	mul	a1, a1, t0			# the chunk
	andi	a2, s6, 1
	li	t0, CB
	mul	a2, a2, t0
	li	t0, SP_AI
	add	a3, a2, t0			# its index row (argmax)
	li	t0, SP_ACC
	add	a2, a2, t0			# the result row
	wait	vec, LFULL, 1
	vset	len, t5
	li	t0, CW*4
	vset	ss1, t0
	vset	ss2, t0
	vset	sd, t0
.if ARG
	# indices of the chunk's rows: T + first row (int32)
	li	t0, int32
	vset	type, t0
	vset	rows, t6
	li	a4, SP_IDX
	li	a5, SP_T
	vadds	a4, a5, a7
	li	t0, fp32
	vset	type, t0
.endif
	# pairs of rows st apart (st = 1, 2, 4, ...): row k*2st takes row
	# k*2st + st, so every row keeps a contiguous range of the chunk's
	# rows in order - the lower row always holds the later indices
	li	a0, 1				# st
sh\@:
	bge	a0, t6, shd\@
	sub	t1, t6, a0
	slli	a5, a0, 1			# 2st
	add	t1, t1, a5
	addi	t1, t1, -1
	divu	t1, t1, a5			# pairs: ceil((rc - st) / 2st)
	vset	rows, t1
	li	t0, CW*4
	mul	a5, a5, t0
	vset	ss1, a5
	vset	ss2, a5
	vset	sd, a5
	mul	a5, a0, t0			# st rows, in bytes
	add	a6, a5, a1			# the lower rows
.if ARG
	li	a4, SP_M
	vcmplt	a4, a1, a6			# 1 where the lower row is greater
	vmax	a1, a1, a6
	li	t0, SP_IDX
	add	a6, a5, t0
	vsel	t0, a4, a6, t0			# its index there (bit copies)
.else
	vop	a1, a1, a6
.endif
	slli	a0, a0, 1
	j	sh\@
shd\@:
	li	t0, 1
	vset	rows, t0
	vset	ss1, zero
	vset	ss2, zero
	vset	sd, zero
	bnez	t2, sf\@
	wait	vec, SFREE, 1			# the item's first chunk
	vmov	a2, a1
.if ARG
	li	t0, SP_IDX
	vmov	a3, t0
.endif
	j	sg\@
sf\@:
.if ARG
	li	a4, SP_M
	vcmplt	a4, a2, a1
	vmax	a2, a2, a1
	li	t0, SP_IDX
	vsel	a3, a4, t0, a3
.else
	vop	a2, a2, a1
.endif
sg\@:
	sig	vec, LFREE
	li	t0, NRC - 1
	bne	t2, t0, sn\@
	# the item's end: mean divides, argmax converts; dma1 stores
.if OP == 3
	li	t0, 2
	vset	bc, t0
	li	t0, SP_AROW
	vdiv	a2, a2, t0
	vset	bc, zero
.endif
.if ARG
	li	t0, int32
	vset	type, t0
	li	t0, fp32
	vset	otype, t0
	vcvt	a2, a3				# the indices, as fp32
	vset	type, t0
.endif
	sig	vec, SFULL
	li	t0, INNER
	mul	a0, t3, t0
	add	a0, a0, t4
	slli	a0, a0, 2
	li	t0, Y_DRAM
	add	a0, a0, t0
	wait	dma1, SFULL, 1
	li	a6, 1
	cdesc	a2, a0, spm, dram, 4, 1, 0, 0, a6, 0, 0
	slli	t0, t5, 2
	dset	n0, t0
	dma	1
	sig	dma1, SFREE
	addi	s6, s6, 1
sn\@:
.endm

.text
	rbeg	reduce
	csrr	s4, coreid
	csrr	s3, ncores
	# s5 = this core's steps: its items (core, core + n, ...) x NRC
	li	t0, NITEMS
	sub	t0, t0, s4
	add	t0, t0, s3
	addi	t0, t0, -1
	divu	s5, t0, s3
	li	t0, NRC
	mul	s5, s5, t0
	li	t0, spm
	vset	smem, t0
	vset	dmem, t0
	li	t0, fp32
	vset	type, t0
	vset	otype, t0
.if OP == 3
	# A as an fp32 row (the divisor of the means)
	li	t0, 1
	vset	rows, t0
	li	t0, CW
	vset	len, t0
	li	t0, int32
	vset	type, t0
	li	a0, SP_AROW
	li	t0, A
	vbcast	a0, t0
	vcvt	a0, a0
	li	t0, fp32
	vset	type, t0
.endif
.if ARG
	# T[r][i] = r (int32): i + r from viota, minus the row 0 .. CW-1
	li	t0, int32
	vset	type, t0
	li	t0, RC
	vset	rows, t0
	li	t0, CW
	vset	len, t0
	li	a0, SP_T
	li	t0, 1
	viota	a0, t0
	li	t0, 1
	vset	rows, t0
	li	a1, SP_M
	viota	a1, zero
	li	t0, RC
	vset	rows, t0
	li	t0, 2
	vset	bc, t0
	vsub	a0, a0, a1
	vset	bc, zero
	li	t0, fp32
	vset	type, t0
.endif
	sig	ctl, LFREE
	sig	ctl, LFREE
	sig	ctl, SFREE
	sig	ctl, SFREE
	li	s0, 0				# step
	li	s6, 0				# this core's item count
	beqz	s5, done
	load	s0
loop:
	addi	t0, s0, 1
	mv	s1, t0
	load	s1
	step	s0
	addi	s0, s0, 1
	blt	s0, s5, loop
done:
	fence	all
	barrier
	rend	reduce
	halt
.endif
