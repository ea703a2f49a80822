# transpose.s - Y = X with its axes permuted: a 2-D transpose of any R x C,
# or any permutation of a tensor of rank 2, 3 or 4 (NCHW <-> NHWC, ...),
# for elements of 1, 2 or 4 bytes; values are copied bit for bit.
#
# Parameters (-D):
#   DT      element type (default fp32): int8, fp8*, int16, fp16, bf16,
#           int32 or fp32 (int4 is refused)
#   R, C    a 2-D transpose of X (R x C) into Y (C x R); or
#   RANK    2, 3 or 4 (default 4) with X's shape D0 .. D(RANK-1) and
#   P0 ..   the permutation: Y's axis k is X's axis Pk (numpy.transpose(X,
#           P)); or PERM, the Pk as decimal digits (PERM=231 is 0,2,3,1:
#           NCHW -> NHWC; PERM=312 is NHWC -> NCHW).  Default: the last two
#           axes swapped.
#   TR, TC  a transpose's tile (rows x columns of elements; default: at
#           most 64 KiB and a quarter of the scratchpad, square unless one
#           side of the matrix is shorter)
#   NE      DMA engines per core (default: every engine, at most 4)
#   DMAONLY 1: the baseline - the transpose by element-strided DMA
#           descriptors alone, DRAM to DRAM (no tiles, no vector unit)
# Layouts: DRAM X (the given shape, row-major), Y (the permuted shape,
# row-major) 4 KiB after it.
#
# How (the assembler computes the plan from the parameters):
#  1. The permutation is put in Y's order - Y's axis k has extent Fk and
#     X stride Sk - axes of extent 1 are dropped, and neighbours that stay
#     neighbours (Sk = F(k+1) * S(k+1)) are merged: NCHW -> NHWC is
#     (N, HW, C) with X strides (CHW, 1, HW), a batch of N transposes of
#     C x HW.
#  2. If Y's innermost axis is X's innermost too (X stride 1), every Y row
#     is a contiguous run of X: a strided copy, no vector work - rows of
#     Y's axis 2, batches of its axes 0 and 1, in tiles of whole runs
#     through the scratchpad (lib/tiles.inc, TRANS = 0).
#  3. Else it is a batch of 2-D transposes between X's contiguous axis
#     (NC elements: the columns) and Y's contiguous axis (NR elements: the
#     rows), in tiles of TR x TC (several whole matrices per tile when one
#     is smaller than a tile) through lib/tiles.inc (TRANS = 1): a tile's
#     TR rows of TC contiguous elements are loaded (runs of TC*e bytes:
#     whole DRAM bursts), transposed on chip by vtrans (on the integer
#     type of the element's width: bits move, nothing is converted), and
#     stored as TC rows of TR contiguous elements of Y; two input and two
#     output buffers, so the next tile loads while this one is transposed
#     and stored; each tile split over the DMA engines, the tiles dealt
#     over the cores.  An element-strided DMA transpose (DMAONLY) costs a
#     DRAM burst per element; here both sides move whole runs.
# Footprint: 4 tile buffers (transposes) or 2 of up to 128 KiB (copies),
# each rounded up to 256 bytes.
# A reshape of a contiguous tensor moves no byte (same data, new shape);
# as a copy into a new buffer it is the identity permutation here, one
# contiguous copy.

.ifndef DT
.equ DT, fp32
.endif
.equ ESZ, (DT == int8 || DT == fp8e4m3 || DT == fp8e5m2) ? 1 : (DT == int16 || DT == fp16 || DT == bf16) ? 2 : (DT == int32 || DT == fp32) ? 4 : 0
.if ESZ == 0
.error "transpose.s: DT must be a type of 1, 2 or 4 bytes (not int4)"
.endif
.equ VT, ESZ == 1 ? int8 : ESZ == 2 ? int16 : int32	# vtrans moves bits

# ---- the shape and the permutation ----
.ifdef R
.ifndef C
.error "transpose.s: R needs C (a 2-D transpose of R x C)"
.endif
.equ RANK, 2
.equ D0, R
.equ D1, C
.equ P0, 1
.equ P1, 0
.endif
.ifndef RANK
.equ RANK, 4
.endif
.if RANK < 2 || RANK > 4
.error "transpose.s: RANK is 2, 3 or 4"
.endif
.ifdef PERM
.if RANK == 4
.equ P0, PERM / 1000 % 10
.equ P1, PERM / 100 % 10
.equ P2, PERM / 10 % 10
.equ P3, PERM % 10
.elif RANK == 3
.equ P0, PERM / 100 % 10
.equ P1, PERM / 10 % 10
.equ P2, PERM % 10
.else
.equ P0, PERM / 10 % 10
.equ P1, PERM % 10
.endif
.endif
# defaults: a small tensor with its last two axes swapped
.ifndef D0
.equ D0, 2
.endif
.ifndef D1
.equ D1, 3
.endif
.ifndef D2
.equ D2, RANK > 2 ? 40 : 1
.endif
.ifndef D3
.equ D3, RANK > 3 ? 50 : 1
.endif
.ifndef P0
.equ P0, RANK == 2 ? 1 : 0
.endif
.ifndef P1
.equ P1, RANK == 2 ? 0 : RANK == 3 ? 2 : 1
.endif
.ifndef P2
.equ P2, RANK == 3 ? 1 : RANK == 4 ? 3 : 2
.endif
.ifndef P3
.equ P3, RANK == 4 ? 2 : 3
.endif
.if D0 < 1 || D1 < 1 || D2 < 1 || D3 < 1
.error "transpose.s: every extent must be at least 1"
.endif
.if P0 < 0 || P0 >= RANK || P1 < 0 || P1 >= RANK || (RANK > 2 && (P2 < 0 || P2 >= RANK)) || (RANK > 3 && (P3 < 0 || P3 >= RANK))
.error "transpose.s: every Pk must be an axis of X (0 .. RANK-1)"
.endif
.if (1 << P0) + (1 << P1) + (RANK > 2 ? 1 << P2 : 0) + (RANK > 3 ? 1 << P3 : 0) != (1 << RANK) - 1
.error "transpose.s: P0 .. P(RANK-1) must be a permutation (each axis once)"
.endif

# X as a 4-D tensor E0..E3 (leading axes of extent 1), Y's axis k is X's Qk
.equ E0, RANK == 4 ? D0 : 1
.equ E1, RANK == 4 ? D1 : RANK == 3 ? D0 : 1
.equ E2, RANK == 4 ? D2 : RANK == 3 ? D1 : D0
.equ E3, RANK == 4 ? D3 : RANK == 3 ? D2 : D1
.equ Q0, RANK == 4 ? P0 : 0
.equ Q1, RANK == 4 ? P1 : RANK == 3 ? P0 + 1 : 1
.equ Q2, RANK == 4 ? P2 : RANK == 3 ? P1 + 1 : P0 + 2
.equ Q3, RANK == 4 ? P3 : RANK == 3 ? P2 + 1 : P1 + 2
.equ SX3, 1					# X strides, elements
.equ SX2, E3
.equ SX1, E2 * E3
.equ SX0, E1 * E2 * E3
.equ NEL, E0 * E1 * E2 * E3

# Y's order: extents F, X strides S
.macro yaxis k
.equ F\k, Q\k == 0 ? E0 : Q\k == 1 ? E1 : Q\k == 2 ? E2 : E3
.equ S\k, Q\k == 0 ? SX0 : Q\k == 1 ? SX1 : Q\k == 2 ? SX2 : SX3
.endm
	yaxis 0
	yaxis 1
	yaxis 2
	yaxis 3

# Axes of extent 1 dropped: the others keep their order at the back (A).
.equ NZ0, F0 != 1
.equ NZ1, F1 != 1
.equ NZ2, F2 != 1
.equ NZ3, F3 != 1
.equ K3, 3
.equ K2, 3 - NZ3
.equ K1, K2 - NZ2
.equ K0, K1 - NZ1
.macro squeeze m
.equ AF\m, NZ3 && K3 == \m ? F3 : NZ2 && K2 == \m ? F2 : NZ1 && K1 == \m ? F1 : NZ0 && K0 == \m ? F0 : 1
.equ AS\m, NZ3 && K3 == \m ? S3 : NZ2 && K2 == \m ? S2 : NZ1 && K1 == \m ? S1 : NZ0 && K0 == \m ? S0 : 0
.endm
	squeeze 0
	squeeze 1
	squeeze 2
	squeeze 3

# Neighbours merged, outermost pair first (B: pair 0-1, C: 1-2, G: 2-3);
# a merge puts the pair in the inner slot and shifts the outer slots in.
.equ MB, AF0 != 1 && AS0 == AF1 * AS1
.equ BF0, MB ? 1 : AF0
.equ BS0, MB ? 0 : AS0
.equ BF1, MB ? AF0 * AF1 : AF1
.equ BS1, AS1
.equ BF2, AF2
.equ BS2, AS2
.equ BF3, AF3
.equ BS3, AS3
.equ MC, BF1 != 1 && BS1 == BF2 * BS2
.equ CF0, MC ? 1 : BF0
.equ CS0, MC ? 0 : BS0
.equ CF1, MC ? BF0 : BF1
.equ CS1, MC ? BS0 : BS1
.equ CF2, MC ? BF1 * BF2 : BF2
.equ CS2, BS2
.equ CF3, BF3
.equ CS3, BS3
.equ MG, CF2 != 1 && CS2 == CF3 * CS3
.equ GF0, MG ? 1 : CF0
.equ GS0, MG ? 0 : CS0
.equ GF1, MG ? CF0 : CF1
.equ GS1, MG ? CS0 : CS1
.equ GF2, MG ? CF1 : CF2
.equ GS2, MG ? CS1 : CS2
.equ GF3, MG ? CF2 * CF3 : CF3
.equ GS3, CS3
.equ GU3, 1					# Y strides, elements
.equ GU2, GF3
.equ GU1, GF2 * GF3
.equ GU0, GF1 * GF2 * GF3

.equ COPY, GS3 == 1 || GF3 == 1		# Y rows are runs of X

# ---- DRAM (bases: lib/dram.inc, -D NAME_DRAM=ADDR moves one) ----
.include "lib/dram.inc"
	dram_base X_DRAM, 0
	dram_base Y_DRAM, (NEL * ESZ + 4095) & ~4095
.if RANK == 2
.tensor X, dram, X_DRAM, DT, D0, D1
.elif RANK == 3
.tensor X, dram, X_DRAM, DT, D0, D1, D2
.else
.tensor X, dram, X_DRAM, DT, D0, D1, D2, D3
.endif
.if RANK == 2
.tensor Y, dram, Y_DRAM, DT, F2, F3
.elif RANK == 3
.tensor Y, dram, Y_DRAM, DT, F1, F2, F3
.else
.tensor Y, dram, Y_DRAM, DT, F0, F1, F2, F3
.endif

.ifndef NE
.equ NE, CFG_CORE_DMA_ENGINES < 4 ? CFG_CORE_DMA_ENGINES : 4
.endif
.if NE < 1 || NE > 4 || NE > CFG_CORE_DMA_ENGINES
.error "transpose.s: NE is 1 .. 4 DMA engines, at most core.dma.engines"
.endif
.ifndef EMODE
.equ EMODE, 0
.endif

.if COPY
# ---- runs of X: a strided copy through the scratchpad ----
# Rows: Y's axis 2 (X stride GS2), columns: the runs (axis 3), batch: Y's
# axes 0 and 1.  Tiles of whole runs, as many rows as fit half the
# scratchpad (at most 128 KiB).
.equ TRANS, 0
.equ NJOB, 1
.equ J0_X, X_DRAM
.equ J0_Y, Y_DRAM
.equ J0_NR, GF2
.equ J0_NC, GF3
.equ J0_XRS, GS2 * ESZ
.equ J0_YS, GU2 * ESZ
.equ J0_NB1, GF0
.equ J0_XB1, GS0 * ESZ
.equ J0_YB1, GU0 * ESZ
.equ J0_NB2, GF1
.equ J0_XB2, GS1 * ESZ
.equ J0_YB2, GU1 * ESZ
.equ TMAXB_S, (CFG_CORE_SCRATCHPAD_BYTES / 2) & ~255
.equ TMAXB, TMAXB_S < 131072 ? TMAXB_S : 131072
.include "lib/tiles.inc"
	tile_pick J0, TMAXB
	tiles_plan
.else

# ---- the batch of 2-D transposes ----
.equ J, GF2 != 1 && GS2 == 1 ? 2 : GF1 != 1 && GS1 == 1 ? 1 : 0	# X's contiguous axis
.equ NR, GF3					# rows: Y's contiguous axis
.equ NC, J == 2 ? GF2 : J == 1 ? GF1 : GF0	# columns: X's contiguous axis
.if (J == 2 ? GS2 : J == 1 ? GS1 : GS0) != 1 || NC == 1
.error "transpose.s: internal: no contiguous X axis found"
.endif
.equ BA, J == 0 ? 1 : 0				# batch axes: outer,
.equ BB, J == 2 ? 1 : 2				# inner
.equ TRANS, 1
.equ NJOB, 1
.equ J0_X, X_DRAM
.equ J0_Y, Y_DRAM
.equ J0_NR, NR
.equ J0_NC, NC
.equ J0_XRS, GS3 * ESZ				# X stride of the rows
.equ J0_YS, ESZ * (J == 2 ? GU2 : J == 1 ? GU1 : GU0)	# Y stride of the columns
.equ J0_NB1, BA == 0 ? GF0 : GF1
.equ J0_XB1, ESZ * (BA == 0 ? GS0 : GS1)
.equ J0_YB1, ESZ * (BA == 0 ? GU0 : GU1)
.equ J0_NB2, BB == 1 ? GF1 : GF2
.equ J0_XB2, ESZ * (BB == 1 ? GS1 : GS2)
.equ J0_YB2, ESZ * (BB == 1 ? GU1 : GU2)

# The tile: at most TMAXB bytes (a quarter of the scratchpad, at most
# 64 KiB), square (TSQ a side) unless one side of the transpose is
# shorter: then that side whole and the other as long as fits.
.equ TMAXB_S, (CFG_CORE_SCRATCHPAD_BYTES / 4) & ~255
.equ TMAXB, TMAXB_S < 65536 ? TMAXB_S : 65536
.equ TE, TMAXB / ESZ
.equ TSQ, TE >= 65536 ? 256 : TE >= 16384 ? 128 : TE >= 4096 ? 64 : TE >= 1024 ? 32 : TE >= 256 ? 16 : 8
.ifndef TR
.equ TR_W, NR <= TSQ ? NR : NC <= TSQ ? TE / NC : TSQ
.equ TR, TR_W < NR ? TR_W : NR
.endif
.ifndef TC
.equ TC_W, TE / TR
.equ TC, TC_W < NC ? TC_W : NC
.endif
.equ J0_TR, TR
.equ J0_TC, TC
.include "lib/tiles.inc"
	tiles_plan
.endif

.ifndef DMAONLY
.equ DMAONLY, 0
.endif
.if DMAONLY && COPY
.error "transpose.s: DMAONLY is the baseline of a transpose; this permutation keeps the last axis"
.endif

# DMAONLY=1, the baseline: no tiles and no vector unit - every element
# moved DRAM -> DRAM by an element-strided descriptor (Y's rows written
# in order, X read down its columns), the columns split over the cores
# and engines.  Every element is a DRAM burst of its own on both sides.
.macro dma_part e
	li	t0, NE
	mul	t1, s10, t0
	addi	t1, t1, \e			# part p = core*NE + e
	mul	t2, s11, t0			# of P = ncores*NE
	li	t0, NC
	mul	t3, t1, t0
	divu	t3, t3, t2			# first column p*NC/P
	addi	t1, t1, 1
	mul	t4, t1, t0
	divu	t4, t4, t2
	sub	t4, t4, t3			# columns
	bge	zero, t4, dp\@
	dreset
	li	t0, dram
	dset	smem, t0
	dset	dmem, t0
	li	t0, ESZ
	dset	esize, t0
	mul	t1, t3, t0
	li	t0, X_DRAM
	add	t1, t1, t0
	dset	src, t1				# X + c0 elements
	li	t0, J0_YS
	mul	t1, t3, t0
	li	t0, Y_DRAM
	add	t1, t1, t0
	dset	dst, t1				# Y + c0 rows
	li	t0, NR
	dset	n0, t0				# down a column of X
	li	t0, J0_XRS
	dset	ss0, t0
	dset	n1, t4
	li	t0, ESZ
	dset	ss1, t0
	li	t0, J0_YS
	dset	ds1, t0
	li	t0, J0_NB2
	dset	n2, t0
	li	t0, J0_XB2
	dset	ss2, t0
	li	t0, J0_YB2
	dset	ds2, t0
	li	t0, J0_NB1
	dset	n3, t0
	li	t0, J0_XB1
	dset	ss3, t0
	li	t0, J0_YB1
	dset	ds3, t0
	dma	\e
dp\@:
.endm

.text
	rbeg	transpose
	csrr	s10, coreid
	csrr	s11, ncores
.if DMAONLY
	dma_part 0
.if NE > 1
	dma_part 1
.endif
.if NE > 2
	dma_part 2
.endif
.if NE > 3
	dma_part 3
.endif
.else
	tiles_run
.endif
	fence	all
	barrier
	rend	transpose
	halt
