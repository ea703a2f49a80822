# gather.s - embedding gather (OP 0) and scatter-add (OP 1) with the
# indirect DMA (dset imode / idx), SPMD over the cores.
#
# OP 0, gather: Y[i] = E[I[i]] for i < N; E is the V x D table, I the N
# int32 indices, Y the N x D output, all of element type TYPE (any type:
# rows are copied bit for bit).  An index outside [0, V) is clamped to
# the nearest row (XLA's gather semantics): the DMA engine itself only
# faults on a row outside the DRAM, so an unchecked index would silently
# read whatever lies past the table.
#   Core c of n takes the rows [c*P, c*P + P) of Y, P = ceil(N / n)
#   rounded up to a multiple of 16 (no two cores write one word).  Per
#   block of G rows, buffer b of two:
#     dma0  loads the block's G indices, one block ahead (IDX b)
#     vec   clamps them to [0, V - 1] in place          vmaxs, vmins
#     dma0  gathers the G rows E[idx] into ROW b with ONE indirect
#           descriptor (imode 1: row i from E + idx[i] * D * size)
#     dma1  stores ROW b to the block's contiguous rows of Y
#   Scratchpad: 2 x G int32 indices and 2 x G rows of D elements;
#   footprint 2 * (4*G + G*D*size) bytes (+ alignment).
#
# OP 1, scatter-add: Y[I[i]] += U[i] for i < N, duplicates accumulated
# (embedding backward).  Y is V x D fp32 (int32 for integer updates), U
# N x D of TYPE (fp32, bf16, fp16: fp32 sums; int8, int16: exact int32
# sums, wrapping).  Indices outside [0, V) are dropped (XLA's scatter
# semantics): they are redirected to a scratch row past the end of Y.
#   An indirect scatter (imode 2) overwrites, and with duplicate indices
#   in one descriptor the rows would race.  The kernel therefore makes
#   every duplicate row carry the same, complete value: per block k of B
#   updates, with the index match matrices
#       S[i][j] = (idx_k[i] == idx_k[j])          (B x B)
#       X[i][j] = (idx_k[i] == idx_{k-1}[j])      (B x B, previous block)
#   built on the vector unit (vbrow, vcmpeq with a column operand, vcvt),
#   the matrix engine adds
#       acc = Y[idx_k] + X U_{k-1} + S U_k        (mmacc onto the rows
#                                                  gathered into acc)
#   so row i holds Y's old row plus every update of the block (and of
#   the previous block) that targets the same row - identical bits for
#   every duplicate, since duplicates have identical rows of S and X.
#   Then the block is scattered back from the accumulator.  Blocks are
#   ordered on dma1 as gather(k+1), scatter(k), gather(k+2), ...: the
#   gather of block k+1 runs before block k is written back (so the DRAM
#   stays busy while the matrix engine works) and therefore misses block
#   k's updates; the X U_{k-1} term adds exactly those, and block k+1's
#   scatter, later on the same engine, writes the final value.  (It runs
#   after scatter(k-1) on that engine, so it sees every older block.)
#   Cores split D (columns), not V: a core cannot know how many updates
#   fall into a range of V (the control unit has no path from the
#   scratchpad's data to its registers), so a split by destination rows
#   would make every core read all of U; split by columns, every core
#   reads its own columns of U once and owns its columns of Y, so cores
#   never race and the DRAM traffic is the single-core traffic.
#   Per core, in chunks of DC columns, per block k (ring of 3 slots for
#   indices and updates, 2 accumulator buffers, 2 match-matrix buffers):
#     dma0  loads idx_k (clean in place by vec) and U_k's DC columns,
#           two blocks ahead
#     vec   drops bad indices (-> V), builds S (and X)  vmaxs vmins vshrs
#                                                       vmuls vadd vbrow
#                                                       vcmpeq vcvt
#     dma1  gathers Y[idx_k] (DC columns) into acc (imode 1)
#     mtx   output stationary, per R x C tile: mmacc X U_{k-1}, S U_k
#     dma1  scatters acc back to Y[idx_k] (imode 2)
#   Updates must be finite: U rows multiplied by 0 in S U still add
#   0 * inf = NaN.  Accuracy: each output is old + the block's chain, in
#   fp32, in index order (docs/numerics.md, "Operator tolerances").
#   Scratchpad: 4 x 4*B (indices, scratch) + 3 x B*DC*size (updates) +
#   4 x B*B*size (S, X, twice) + 2 x 4*B*B (compare tiles) bytes (+
#   alignment); accumulator 2 x B*DC*4 bytes.  B defaults to the array's
#   rows, DC to the most columns both memories hold (at most the core's).
#
# Parameters: OP, V, D, N, TYPE (fp32), G (OP 0: rows per block, default
# the most that fit, at most 64), B and DC (OP 1: updates per block, at
# most the array's rows; columns per chunk).
# Layouts: DRAM E (V x D, OP 0) or Y (V x D, OP 1, one scratch row after
# it), I (N int32), Y (N x D, OP 0) or U (N x D, OP 1), row-major; their
# bases E_DRAM, I_DRAM, Y_DRAM, U_DRAM (lib/dram.inc; OP 1: Y_DRAM needs
# V + 1 rows, the last the scratch row).
.include "lib/gather_abi.inc"
.include "lib/cdesc.inc"
.include "lib/spmd.inc"
.include "lib/dram.inc"

.ifndef OP
.equ OP, GATHER_OP_GATHER
.endif
.ifndef V
.equ V, 1000
.endif
.ifndef D
.equ D, 64
.endif
.ifndef N
.equ N, 300
.endif
.ifndef TYPE
.equ TYPE, fp32
.endif
.if OP != GATHER_OP_GATHER && OP != GATHER_OP_SCATTER_ADD
.error "gather.s: OP is 0 (gather) or 1 (scatter-add)"
.endif
.if V < 1 || D < 1 || N < 1
.error "gather.s: V, D and N must be at least 1"
.endif
.if TYPE == int4
.error "gather.s: int4 rows are not whole bytes; use int8"
.endif
.equ ES, TYPE == fp32 || TYPE == int32 ? 4 : TYPE == bf16 || TYPE == fp16 || TYPE == int16 ? 2 : 1
.equ ROWB, D*ES				# bytes per row of E, Y (OP 0) or U
# rows per core (the most any core gets)
.equ PCORE, ((N + CFG_CHIP_CORES - 1) / CFG_CHIP_CORES + 15) & ~15

.if OP == GATHER_OP_GATHER
# =====================================================================
# gather
# =====================================================================
.ifndef G
.equ G_S, (CFG_CORE_SCRATCHPAD_BYTES - 1024) / (2*ROWB + 8)
.equ G_C, G_S < 64 ? G_S : 64
.equ G, G_C < PCORE ? G_C : PCORE
.endif
.if G < 1
.error "gather.s: not even two rows of D elements fit the scratchpad"
.endif
.equ IBUF, (4*G + 255) & ~255
.equ RBUF, (G*ROWB + 255) & ~255
.equ IDX0, 0
.equ ROW0, 2*IBUF
.if ROW0 + 2*RBUF > CFG_CORE_SCRATCHPAD_BYTES
.error "gather.s: two blocks of G rows exceed the scratchpad (lower G)"
.endif

	dram_base E_DRAM, 0
	dram_base I_DRAM, (V*ROWB + 63) & ~63
	dram_base Y_DRAM, (I_DRAM + 4*N + 63) & ~63
.tensor E, dram, E_DRAM, TYPE, V, D
.tensor I, dram, I_DRAM, int32, N
.tensor Y, dram, Y_DRAM, TYPE, N, D

.equ IFULL, 0		# +b: indices of buffer b loaded (dma0 -> vec)
.equ ICLEAN, 2		# +b: indices of buffer b clamped (vec -> dma0)
.equ RFULL, 4		# +b: rows of buffer b gathered (dma0 -> dma1)
.equ RFREE, 6		# +b: rows of buffer b stored (dma1 -> dma0)

# Rows of block REG: s1 = its first row of Y, s2 = its rows (G, fewer
# for the core's last block).  s3 = the core's first row, s4 its rows.
.macro rows_of reg
	li	t1, G
	mul	t2, \reg, t1
	add	s1, s3, t2
	sub	s2, s4, t2
	min	s2, s2, t1
.endm

# Load block REG's indices into IDX b (dma0) and clamp them (vec).
.macro load_idx reg, b
	rows_of	\reg
	li	t1, 4
	mul	t4, s1, t1
	li	t1, I_DRAM
	add	t4, t4, t1
	li	t3, IDX0 + (\b)*IBUF
	li	t1, 1
	cdesc	t4, t3, dram, spm, 1, 1, 0, 0, t1, 0, 0
	slli	t2, s2, 2
	dset	n0, t2
	dma	0
	sig	dma0, IFULL + (\b)
	wait	vec, IFULL + (\b), 1
	vset	len, s2
	vmaxs	t3, t3, zero			# idx < 0 -> 0
	vmins	t3, t3, s6			# idx >= V -> V - 1
	sig	vec, ICLEAN + (\b)
.endm

# Block s0 from buffer b: gather (dma0), store (dma1); the next block's
# indices first, so that dma0 reads them while this block's rows move.
.macro block b
	addi	t6, s0, 1
	bge	t6, s5, nl\@
	load_idx t6, 1 - (\b)
nl\@:
	rows_of	s0
	wait	dma0, ICLEAN + (\b), 1
	wait	dma0, RFREE + (\b), 1
	li	t4, E_DRAM
	li	t3, ROW0 + (\b)*RBUF
	li	t1, 1
	cdesc	t4, t3, dram, spm, ROWB, 1, ROWB, ROWB, t1, 0, 0
	dset	n1, s2
	li	t0, 1
	dset	imode, t0			# source row i at E + idx[i] * ROWB
	li	t0, IDX0 + (\b)*IBUF
	dset	idx, t0
	dma	0
	sig	dma0, RFULL + (\b)
	wait	dma1, RFULL + (\b), 1
	li	t1, ROWB
	mul	t4, s1, t1
	mul	t2, s2, t1
	li	t1, Y_DRAM
	add	t4, t4, t1
	li	t1, 1
	cdesc	t3, t4, spm, dram, 1, 1, 0, 0, t1, 0, 0
	dset	n0, t2
	dma	1
	sig	dma1, RFREE + (\b)
	addi	s0, s0, 1
.endm

.text
	rbeg	gather
	spmd_slice N, 16, s3, s4		# slices of 16 rows: whole words
	blez	s4, done			# no rows for this core
	li	t1, G				# blocks: ceil(rows / G)
	add	s5, s4, t1
	addi	s5, s5, -1
	divu	s5, s5, t1
	li	s6, V - 1
	li	t0, int32
	vset	type, t0
	li	t0, 1
	vset	rows, t0
	sig	ctl, RFREE + 0
	sig	ctl, RFREE + 1
	li	s0, 0
	load_idx s0, 0
loop:
	block	0
	bge	s0, s5, drain
	block	1
	blt	s0, s5, loop
drain:
	fence	all
done:
	barrier
	rend	gather
	halt

.else
# =====================================================================
# scatter-add
# =====================================================================
.equ YT, TYPE == fp32 || TYPE == bf16 || TYPE == fp16 ? fp32 : int32
.if TYPE != fp32 && TYPE != bf16 && TYPE != fp16 && TYPE != int8 && TYPE != int16
.error "gather.s: scatter-add updates are fp32, bf16, fp16, int8 or int16 (the array's inputs)"
.endif
.ifndef B
.equ B, CFG_CORE_MATRIX_ROWS < N ? CFG_CORE_MATRIX_ROWS : N
.endif
.if B < 1 || B > CFG_CORE_MATRIX_ROWS
.error "gather.s: B (updates per block) is 1 .. the array's rows"
.endif
.equ NBLK, (N + B - 1) / B		# blocks of updates (every core: all)
# columns per core, a multiple of 16 (64-byte slices of fp32 rows)
.equ PCC_1, (D + CFG_CHIP_CORES - 1) / CFG_CHIP_CORES
.equ PCC, (PCC_1 + 15) & ~15
.equ EQB, (B*B*ES + 255) & ~255		# one match matrix, B x B of TYPE
.equ TB, (4*B*B + 255) & ~255		# one int32 B x B tile
.equ IBUF, (4*B + 255) & ~255		# one index block
.equ FIXED, 3*IBUF + 4*EQB + 2*TB + IBUF
.ifndef DC
.equ DC_A, CFG_CORE_ACCUMULATOR_BYTES / (8*B)
.equ DC_S, (CFG_CORE_SCRATCHPAD_BYTES - FIXED - 1024) / (3*B*ES)
.equ DC_1, DC_A < DC_S ? DC_A : DC_S
.equ DC_2, DC_1 < PCC ? DC_1 : PCC
.equ DC, DC_2 > 16 ? DC_2 & ~15 : DC_2
.endif
.if DC < 1
.error "gather.s: not even one column of three update blocks fits (lower B)"
.endif
.equ UBUF, (B*DC*ES + 255) & ~255	# one update block, B x DC of TYPE
.equ ABUF, B*DC*4			# one accumulator block, B x DC of YT
.if 2*ABUF > CFG_CORE_ACCUMULATOR_BYTES
.error "gather.s: two B x DC accumulator blocks exceed the accumulator (lower DC or B)"
.endif
# scratchpad: index slots, update slots, match matrices, two int32 tiles
.equ IDX0, 0
.equ U0, 3*IBUF
.equ EQS0, U0 + 3*UBUF			# S of block parity e at EQS0 + e*EQB
.equ EQX0, EQS0 + 2*EQB			# X of block parity e
.equ TBC, EQX0 + 2*EQB			# T[r][c] = idx_k[c]
.equ TMP, TBC + TB			# compare results (int32)
.equ SCR, TMP + TB			# sanitising scratch (B int32)
.if SCR + IBUF > CFG_CORE_SCRATCHPAD_BYTES
.error "gather.s: the scatter-add buffers exceed the scratchpad (lower B or DC)"
.endif
.equ ACC0, 0

	dram_base Y_DRAM, 0
	dram_base I_DRAM, ((V + 1)*D*4 + 63) & ~63	# row V of Y: the drop row
	dram_base U_DRAM, (I_DRAM + 4*N + 63) & ~63
.tensor Y, dram, Y_DRAM, YT, V, D
.tensor I, dram, I_DRAM, int32, N
.tensor U, dram, U_DRAM, TYPE, N, D

# Semaphores: one per producer -> consumer pair; every pair signals and
# waits once per block in block order, so one counter each suffices.
.equ LDV, 0		# idx_k, U_k loaded (dma0 -> vec)
.equ LDM, 1		# the same (dma0 -> mtx)
.equ VG, 2		# idx_k clean (vec -> dma1: gather)
.equ VM, 3		# S_k, X_k built (vec -> mtx)
.equ GD, 4		# Y[idx_k] gathered into acc (dma1 -> mtx)
.equ MSC, 5		# acc block k final (mtx -> dma1: scatter)
.equ UFM, 6		# U_{k-1} slot free (mtx -> dma0)
.equ IFV, 7		# idx_{k-1} slot free (vec -> dma0)
.equ IFD, 8		# idx_k slot free: scattered (dma1 -> dma0)
.equ EQF, 9		# match matrices of parity k free (mtx -> vec)

# Per block REG: s1 = its first update, s2 = its updates (B, fewer last);
# a0 = its index slot, a1 its update slot, a2 / a3 the previous block's,
# a4 its accumulator block, a5 / a6 its S / X matrices.
.macro addrs reg
	li	t1, B
	mul	s1, \reg, t1
	li	t2, N
	sub	s2, t2, s1
	min	s2, s2, t1
	li	t1, 3
	remu	t2, \reg, t1			# slot k % 3
	addi	t3, \reg, 2
	remu	t3, t3, t1			# slot (k - 1) % 3
	li	t1, IBUF
	mul	a0, t2, t1
	mul	a2, t3, t1
	li	t1, UBUF
	mul	a1, t2, t1
	mul	a3, t3, t1
	li	t1, U0
	add	a1, a1, t1
	add	a3, a3, t1
	andi	t2, \reg, 1			# parity k % 2
	li	t1, ABUF
	mul	a4, t2, t1
	li	t1, EQB
	mul	a5, t2, t1
	li	t1, EQX0
	add	a6, a5, t1
	li	t1, EQS0
	add	a5, a5, t1
.endm

# dma0: block REG's indices and its updates' DC columns into slot k % 3,
# once the block three before has left the slot.
.macro load_blk reg
	addrs	\reg
	li	t1, 3
	blt	\reg, t1, lw\@
	wait	dma0, UFM, 1
	wait	dma0, IFV, 1
	wait	dma0, IFD, 1
lw\@:
	li	t1, 4
	mul	t4, s1, t1
	li	t1, I_DRAM
	add	t4, t4, t1
	li	t1, 1
	cdesc	t4, a0, dram, spm, 1, 1, 0, 0, t1, 0, 0
	slli	t2, s2, 2
	dset	n0, t2
	dma	0
	li	t1, D*ES			# U + (first * D + col) * ES
	mul	t4, s1, t1
	li	t1, ES
	mul	t2, s6, t1
	add	t4, t4, t2
	li	t1, U_DRAM
	add	t4, t4, t1
	li	t1, 1
	cdesc	t4, a1, dram, spm, 1, 1, D*ES, DC*ES, t1, 0, 0
	li	t1, ES
	mul	t2, s7, t1
	dset	n0, t2
	dset	n1, s2
	dma	0
	sig	dma0, LDV
	sig	dma0, LDM
.endm

# vec: clean block REG's indices (bad -> V) and build its match
# matrices, stored transposed as the output-stationary A operand wants
# them (K rows of M): S^T = S, and X^T[j][i] = (idx_{k-1}[j] == idx_k[i]).
.macro vec_blk reg
	addrs	\reg
	wait	vec, LDV, 1
	li	t1, 2
	blt	\reg, t1, ve\@
	wait	vec, EQF, 1			# S, X of block k - 2 consumed
ve\@:
	li	t0, int32
	vset	type, t0
	vset	sd, zero
	vset	ss1, zero
	vset	ss2, zero
	vset	bc, zero
	li	t0, 1
	vset	rows, t0
	vset	len, s2
	vmaxs	a0, a0, s8			# -1 .. 
	vmins	a0, a0, s9			#    .. V
	li	t4, SCR
	vshrs	t4, a0, s10			# -1 where idx = -1, else 0
	vmuls	t4, t4, s11			# V + 1 there
	vadd	a0, a0, t4			# every bad index is now V
	sig	vec, VG
	li	t4, TBC
	li	t5, TMP
	li	t0, B
	vset	rows, t0
	li	t0, 4*B
	vset	sd, t0
	vbrow	t4, a0				# T[r][c] = idx_k[c], B rows
	vset	ss1, t0
	li	t0, 1
	vset	bc, t0				# source 2: one index per row
	li	t0, 4
	vset	ss2, t0
	vset	rows, s2
	vcmpeq	t5, t4, a0			# S[r][c] = idx_k[c] == idx_k[r]
	vset	bc, zero
	li	t0, TYPE
	vset	otype, t0
	li	t0, B*ES
	vset	sd, t0
	vcvt	a5, t5
	beqz	\reg, vx\@
	li	t0, B
	vset	rows, t0
	li	t0, 4*B
	vset	sd, t0
	li	t0, 1
	vset	bc, t0
	vcmpeq	t5, t4, a2			# X^T[j][i] = idx_k[i] == idx_{k-1}[j]
	vset	bc, zero
	li	t0, B*ES
	vset	sd, t0
	vcvt	a6, t5
	addi	t1, \reg, 2
	bge	t1, s5, vx\@
	sig	vec, IFV			# idx_{k-1} no longer read by vec
vx\@:
	sig	vec, VM
.endm

# dma1: Y[idx_k] (the chunk's columns) into accumulator block k % 2.
.macro gather_blk reg
	addrs	\reg
	wait	dma1, VG, 1
	li	t1, 4
	mul	t4, s6, t1
	li	t1, Y_DRAM
	add	t4, t4, t1
	li	t1, 1
	cdesc	t4, a4, dram, acc, 1, 1, D*4, DC*4, t1, 0, 0
	slli	t2, s7, 2
	dset	n0, t2
	dset	n1, s2
	li	t0, 1
	dset	imode, t0			# source row i at Y + idx[i] * D * 4
	dset	idx, a0
	dma	1
	sig	dma1, GD
.endm

# dma1: accumulator block k % 2 back to Y[idx_k].
.macro scatter_blk reg
	addrs	\reg
	wait	dma1, MSC, 1
	li	t1, 4
	mul	t4, s6, t1
	li	t1, Y_DRAM
	add	t4, t4, t1
	li	t1, 1
	cdesc	a4, t4, acc, dram, 1, 1, DC*4, D*4, t1, 0, 0
	slli	t2, s7, 2
	dset	n0, t2
	dset	n1, s2
	li	t0, 2
	dset	imode, t0			# destination row i at Y + idx[i] * D * 4
	dset	idx, a0
	dma	1
	addi	t1, \reg, 3
	bge	t1, s5, sx\@
	sig	dma1, IFD
sx\@:
.endm

# mtx: acc block += X_k U_{k-1} + S_k U_k, output stationary, one
# R x C tile (M = the block's updates, N = up to C columns) at a time.
.macro mtx_blk reg
	addrs	\reg
	wait	mtx, GD, 1
	wait	mtx, VM, 1
	wait	mtx, LDM, 1
	mset	m, s2
	li	t5, 0				# column of the tile
mt\@:
	sub	t1, s7, t5
	li	t0, CFG_CORE_MATRIX_COLS
	min	t1, t1, t0
	mset	n, t1
	slli	t2, t5, 2
	add	t2, t2, a4			# C: acc block + col * 4
	li	t0, ES
	mul	t3, t5, t0			# B operands: slot + col * ES
	beqz	\reg, ms\@
	li	t0, B
	mset	k, t0
	add	t4, a3, t3
	mmacc	t2, a6, t4			# += X U_{k-1}
ms\@:
	mset	k, s2
	add	t4, a1, t3
	mmacc	t2, a5, t4			# += S U_k
	li	t0, CFG_CORE_MATRIX_COLS
	add	t5, t5, t0
	blt	t5, s7, mt\@
	sig	mtx, MSC
	beqz	\reg, mf\@
	addi	t1, \reg, 2
	bge	t1, s5, mf\@
	sig	mtx, UFM			# U_{k-1} no longer read
mf\@:
	addi	t1, \reg, 2
	bge	t1, s5, me\@
	sig	mtx, EQF			# S_k, X_k no longer read
me\@:
.endm

.text
	rbeg	scatter_add
	spmd_slice D, 16, s3, s4		# this core's columns
	blez	s4, done
	li	s5, NBLK
	li	s8, -1
	li	s9, V
	li	s10, 31
	li	s11, -(V + 1)
	li	t0, os
	mset	df, t0
	li	t0, TYPE
	mset	itype, t0
	li	t0, YT
	mset	atype, t0
	li	t0, B*ES
	mset	sa, t0				# rows of S^T, X^T
	li	t0, DC*ES
	mset	sb, t0				# rows of an update block
	li	t0, DC*4
	mset	sc, t0				# rows of an accumulator block
	mv	s6, s3				# chunk: columns [s6, s6 + s7)
chunk:
	add	t0, s3, s4
	sub	s7, t0, s6
	li	t0, DC
	min	s7, s7, t0
	li	s0, 0
	load_blk s0
	li	t6, 1
	bge	t6, s5, p1
	load_blk t6
p1:
	vec_blk	s0
	gather_blk s0
blk:
	mtx_blk	s0
	addi	t6, s0, 2
	bge	t6, s5, nl
	load_blk t6
nl:
	addi	t6, s0, 1
	bge	t6, s5, nv
	vec_blk	t6
	addi	t6, s0, 1
	gather_blk t6
nv:
	scatter_blk s0
	addi	s0, s0, 1
	blt	s0, s5, blk
	fence	all				# the next chunk reuses every slot
	li	t0, DC
	add	s6, s6, t0
	add	t0, s3, s4
	blt	s6, t0, chunk
done:
	barrier
	rend	scatter_add
	halt
.endif
