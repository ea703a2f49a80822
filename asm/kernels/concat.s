# concat.s - Y = concat(A, B) along axis AXIS (numpy.concatenate), or with
# SPLIT=1 its inverse: X split along AXIS into A (its first DA elements
# along the axis) and B (the rest).  Tensors of rank 2, 3 or 4 with
# elements of 1, 2 or 4 bytes; values are copied bit for bit, with no
# vector work: strided DMA copies through the scratchpad.
#
# Parameters (-D):
#   DT      element type (default fp32): 1, 2 or 4 bytes (not int4)
#   RANK    2, 3 or 4 (default 4)
#   D0 ..   A's shape (D0 .. D(RANK-1)); B has the same shape except BK
#           elements along AXIS (default: as many as A)
#   AXIS    the axis (default 1: channels of NCHW)
#   BK      B's extent along AXIS
#   SPLIT   0 concat (A, B -> Y), 1 split (X -> A, B)
#   NE      DMA engines per core (default: every engine, at most 4)
# Layouts (DRAM, row-major, 4 KiB aligned by default; bases A_DRAM,
# B_DRAM and W_DRAM for Y or X: lib/dram.inc): A, B, then Y (concat) or X
# (split), the whole tensor (AXIS extent DA + BK).
#
# How: along AXIS, A's part of every "row" of the whole tensor is one
# contiguous run: with OUTER = the product of the extents before AXIS and
# INNER the product after it, A is OUTER rows of DA*INNER elements, and
# those rows sit (DA + BK)*INNER elements apart in the whole tensor (B's
# rows likewise, DA*INNER elements further on).  So concat and split are
# two jobs of lib/tiles.inc's copy pipeline (rows of whole runs, loaded
# and stored in tiles of up to 128 KiB, double-buffered over the DMA
# engines, tiles split over the cores): A's rows, then B's.  Every DMA run
# is as long as a row of A or B, so the copy moves whole bursts unless
# DA*INNER*e is small (concat along the last axis of narrow tensors).
# Footprint: two tiles of up to min(128 KiB, scratchpad / 2).
# Reshape needs no kernel: a contiguous tensor reshaped is the same bytes
# (a new .tensor shape over the same address); a copy of it into another
# buffer is transpose.s with the identity permutation (one contiguous
# copy).

.ifndef DT
.equ DT, fp32
.endif
.equ ESZ, (DT == int8 || DT == fp8e4m3 || DT == fp8e5m2) ? 1 : (DT == int16 || DT == fp16 || DT == bf16) ? 2 : (DT == int32 || DT == fp32) ? 4 : 0
.if ESZ == 0
.error "concat.s: DT must be a type of 1, 2 or 4 bytes (not int4)"
.endif
.ifndef RANK
.equ RANK, 4
.endif
.if RANK < 2 || RANK > 4
.error "concat.s: RANK is 2, 3 or 4"
.endif
.ifndef D0
.equ D0, 2
.endif
.ifndef D1
.equ D1, 24
.endif
.ifndef D2
.equ D2, RANK > 2 ? 10 : 1
.endif
.ifndef D3
.equ D3, RANK > 3 ? 12 : 1
.endif
.ifndef AXIS
.equ AXIS, 1
.endif
.if AXIS < 0 || AXIS >= RANK
.error "concat.s: AXIS must be an axis of the tensors (0 .. RANK-1)"
.endif
.equ DA, AXIS == 0 ? D0 : AXIS == 1 ? D1 : AXIS == 2 ? D2 : D3
.ifndef BK
.equ BK, DA
.endif
.ifndef SPLIT
.equ SPLIT, 0
.endif
.if D0 < 1 || D1 < 1 || D2 < 1 || D3 < 1 || BK < 1
.error "concat.s: every extent must be at least 1"
.endif

# extents before and after AXIS (axes past RANK-1 have extent 1)
.equ OUTER, (AXIS > 0 ? D0 : 1) * (AXIS > 1 ? D1 : 1) * (AXIS > 2 ? D2 : 1)
.equ INNER, (AXIS < 1 && RANK > 1 ? D1 : 1) * (AXIS < 2 && RANK > 2 ? D2 : 1) * (AXIS < 3 && RANK > 3 ? D3 : 1)
.equ WK, DA + BK			# the whole tensor's extent along AXIS
.equ RA, DA * INNER			# elements per row: A,
.equ RB, BK * INNER			# B,
.equ RW, WK * INNER			# the whole tensor

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base A_DRAM, 0
	dram_base B_DRAM, (A_DRAM + OUTER * RA * ESZ + 4095) & ~4095
	dram_base W_DRAM, (B_DRAM + OUTER * RB * ESZ + 4095) & ~4095

# The tensors' shapes: A's with BK (B) or WK (the whole) along AXIS.
.macro shape_of name, addr, k
.equ \name\()_S0, AXIS == 0 ? (\k) : D0
.equ \name\()_S1, AXIS == 1 ? (\k) : D1
.equ \name\()_S2, AXIS == 2 ? (\k) : D2
.equ \name\()_S3, AXIS == 3 ? (\k) : D3
.if RANK == 2
.tensor \name, dram, \addr, DT, \name\()_S0, \name\()_S1
.elif RANK == 3
.tensor \name, dram, \addr, DT, \name\()_S0, \name\()_S1, \name\()_S2
.else
.tensor \name, dram, \addr, DT, \name\()_S0, \name\()_S1, \name\()_S2, \name\()_S3
.endif
.endm
	shape_of A, A_DRAM, DA
	shape_of B, B_DRAM, BK
.if SPLIT
	shape_of X, W_DRAM, WK
.else
	shape_of Y, W_DRAM, WK
.endif

.ifndef NE
.equ NE, CFG_CORE_DMA_ENGINES < 4 ? CFG_CORE_DMA_ENGINES : 4
.endif
.if NE < 1 || NE > 4 || NE > CFG_CORE_DMA_ENGINES
.error "concat.s: NE is 1 .. 4 DMA engines, at most core.dma.engines"
.endif
.ifndef EMODE
.equ EMODE, 0
.endif

# Job 0 moves A's rows, job 1 B's: OUTER rows each, the whole tensor's
# rows RW elements apart.
.equ TRANS, 0
.equ NJOB, 2
.macro part_job p, part, row, off
.if SPLIT
.equ \p\()_X, W_DRAM + (\off) * ESZ
.equ \p\()_Y, \part
.equ \p\()_XRS, RW * ESZ
.equ \p\()_YS, (\row) * ESZ
.else
.equ \p\()_X, \part
.equ \p\()_Y, W_DRAM + (\off) * ESZ
.equ \p\()_XRS, (\row) * ESZ
.equ \p\()_YS, RW * ESZ
.endif
.equ \p\()_NR, OUTER
.equ \p\()_NC, \row
.equ \p\()_NB1, 1
.equ \p\()_XB1, 0
.equ \p\()_YB1, 0
.equ \p\()_NB2, 1
.equ \p\()_XB2, 0
.equ \p\()_YB2, 0
.endm
	part_job J0, A_DRAM, RA, 0
	part_job J1, B_DRAM, RB, RA
.equ TMAXB_S, (CFG_CORE_SCRATCHPAD_BYTES / 2) & ~255
.equ TMAXB, TMAXB_S < 131072 ? TMAXB_S : 131072
.include "lib/tiles.inc"
	tile_pick J0, TMAXB
	tile_pick J1, TMAXB
	tiles_plan

.text
	rbeg	concat
	csrr	s10, coreid
	csrr	s11, ncores
	tiles_run
	fence	all
	barrier
	rend	concat
	halt
