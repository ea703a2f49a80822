# gemm_ws.s - C[M x N] = act(A[M x K] * B[K x N] + bias), weight
# stationary: B cut into weight tiles of KT x COLS (KT = p*ROWS, p =
# core.matrix.macs_per_pe of the input type), each preloaded (mprep) into
# the array's shadow registers while the tile before it streams, and A
# streamed past each tile in blocks of MB rows - one fold per (block,
# weight tile), MB rows long.  Any M, K, N; inputs int8, int4, fp8 (e4m3,
# e5m2), fp16, bf16; outputs int32 or int8 (integer inputs), fp32, bf16
# or fp16 (float inputs); optional fused bias and relu/gelu/silu (mout).
# A, B and C are plain row-major (no pre-tiling): A as the producing
# layer wrote it, which the WS left edge consumes directly (a row of A per
# cycle, the K-slice of a row at stride K).
#
# Loop nest (one M block at a time, all of N, all of K):
#   for block i (MB rows of A, resident, K-slices loading ahead):
#     for panel j (COLS columns of C; accumulator buffer c = 0, 1, 0, ...):
#       for k tile kt:  mprep B[kt, j]  (shadow; the previous tile streams)
#                       mmul (kt = 0) / mmacc  C_c[MB x COLS] += A[i, kt] B[kt, j]
#       (int8/bf16/fp16 output, bias or act) mout C_c -> staged panel c
#       store C_c (or the staged panel) to C's rows of block i, columns of j
# A weight tile serves one fold of MB rows, so B is read NMB = ceil(M/MB)
# times from DRAM and A once.  MB is as large as the accumulator (two
# panels of MB x COLS x 4 bytes) and the scratchpad (A, three weight
# tiles, staged C) allow, balanced over the blocks (MB = ceil(M / NMB)) so
# the last one is not a sliver.
#
# A is loaded in k-slices: SW weight tiles' columns of the block's rows
# (SW the fewest whose row part is >= 256 bytes: whole DRAM bursts), rows
# AROW apart on both sides.  The block's first panel waits for each slice
# just before its first fold uses it, so block 0 computes while its A
# still arrives; the last panel frees each slice after its last fold.
# NAB A buffers (NABSEL; default two unless two would cost more than a
# quarter of the block rows, one when one block holds M):
#   two   the next block's slices load into the other buffer, one every
#         NPANELS*SW tiles, spread over the whole block
#   one   each slice of the next block reloads into the same buffer as
#         soon as the last panel's fold frees it: the block rows double
#         where the scratchpad, not the accumulator, bounds them
#         (default.cfg 1024^3: 205 rows instead of 122), and the loads
#         have the last panel's time to land.
#
# Schedule.  Every unit runs decoupled; the control unit dispatches in
# program order, one iteration per weight tile t:
#   B engines  load weight tile t+2 into ring slot (t+2) mod 3 once mprep
#              of tile t-1 has taken that slot (BFREE), split by rows over
#              the B engines, each signalling BFULL
#   A engines  a k-slice of the next block, as above (AFREE per slice),
#              split by rows over the A engines, each signalling AFULL
#   mtx        (panel start) wait CFREE; wait BFULL; (first panel, slice
#              start) wait AFULL; mprep tile t; sig BFREE; mmul/mmacc;
#              (last panel, slice end) sig AFREE; (panel end) [mout];
#              sig CFULL
#   C engines  (panel end) wait CFULL, store the panel's rows (split by
#              rows over the C engines), sig CFREE
# The first tile's mprep is the only exposed preload when the weights
# keep up: every later one runs in the shadow registers during the fold
# before it (docs/timing.md, "Weight double-buffering").  Without
# core.matrix.weight_double_buffer (default.cfg, gemmini.cfg) every mprep
# occupies the array for R cycles.  Dispatch order keeps engines that
# carry two streams deadlock-free: every wait is for work dispatched
# earlier, and a slice reload (one A buffer) is dispatched right after
# the fold that frees it, behind the weight tiles that fold needs.
# Semaphores, one per (stream, engine), each waited on by one unit only,
# so a count never serves the wrong waiter: AFULL+e, AFREE+e (A engine e),
# BFULL+e, BFREE+e (B engine e), CFULL+e, CFREE+e (C engine e); rings are
# counted (BFREE starts at 3, AFREE at NAB*NSL slices, CFREE at 2).
#
# DMA engines (core.dma.engines = NE; at most 8 are used):
#   1  dma0 carries A, B and C (stores queue behind loads: unavoidable)
#   2  dma0 loads A and B, dma1 stores C
#   3  ESPLIT 1 (default): dma0, dma1 load A and B, dma2 stores;
#      ESPLIT 0: dma0 A, dma1 B, dma2 C
#   4  ESPLIT 1: dma0, dma1 load, dma2, dma3 store;
#      ESPLIT 0: dma0, dma1 A, dma2 B, dma3 C
#   8  ESPLIT 1: dma0-3 load, dma4-7 store; ESPLIT 0: dma0-2 A, dma3-4 B,
#      dma5-7 C
#   (ESPLIT 1: NE - NE/2 load engines, NE/2 store; ESPLIT 0: NEA =
#   (NE+2)/3 for A, NEB = (NE-NEA)/2 for B, the rest for C.)  A transfer
#   on several engines is cut by rows (lib/part.inc), one descriptor each.
#   With two or more engines stores never queue behind loads.
#
# Layouts.  DRAM: A row-major M x K, B row-major K x N, C row-major M x N,
# BIAS N values of the accumulator type (int32 or fp32).  Scratchpad: the
# NAB A block buffers at 0 and ABUF, MB rows of K elements, dense; three
# weight-tile slots from SPM_B (KT rows of COLS elements, a partial
# panel's rows keep that stride), half a bank period (banks x bank width)
# past a period boundary; (STAGE) two staged C panels of MB x COLS x CB
# from SPM_O; the bias at SPM_PAR.  Accumulator: two C panels of MB x COLS
# x 4 bytes.
# Footprint: scratchpad NAB*MB*K*e + 3*KT*COLS*e (+ 2*MB*COLS*o with an
# output stage, + 4*N for the bias) bytes, e and o the input and output
# element sizes; accumulator 2*MB*COLS*4.  Assembly fails when not even
# one row of A fits (K too deep for this scratchpad).
#
# Timing (docs/timing.md, "The per-fold model" and "Weight
# double-buffering"): a WS fold of m rows takes m + R + C - 2 + P array
# cycles, P = core.matrix.pipeline_latency, whatever its K (<= pR) and N
# (<= C); the blocks' rows add up to M, so
#   busy = TPB * (M + NMB * (R + C - 2 + P)) + exposed preloads + SRAM stalls
# with TPB = ceil(K/KT) * ceil(N/COLS) weight tiles per block; the exposed
# preloads are R with double-buffered weights (more only when a weight
# tile arrives late), TPB*NMB*R without.  That is the ideal K*M*N/(R*C*p)
# MACs' time (K, N multiples of pR, C) plus one fill and drain per weight
# tile and block; tests/golden/gemm_ws asserts the identity on every case.
# The utilisation bound is MB / (MB + R + C - 2 + P (+ R)): long blocks
# matter, which is why MB is as large as the accumulator allows - 1024
# rows on datacenter.cfg (80 %), 256 on default.cfg (73 % with its
# preloads exposed), 512 on gemmini.cfg (92 %), 2048 on tpu-v1.cfg (80 %).
# docs/kernels.md has the measured table and the crossover with gemm_os.s.
# Parameters: M, K, N; ITYPE (int8); OUT (int32 for integer, fp32 for
# float inputs); SHIFT (8): int8 C = sat8(round_even(acc * 2^-SHIFT));
# WITH_BIAS (0/1); ACT (0 none, relu, gelu, silu); ROWS, COLS default to
# the config's array; MBMAX caps the block rows (default: no cap);
# tunable (npusim tune): NABSEL (0 auto, 1, 2 A buffers), ESPLIT (1, 0).

.ifndef M
.equ M, 256
.endif
.ifndef K
.equ K, 256
.endif
.ifndef N
.equ N, 128
.endif
.include "lib/gemm_types.inc"
.include "lib/cdesc.inc"
.include "lib/part.inc"

# p: MACs per PE of the input type; a weight tile holds KT = p*ROWS rows.
.if ITYPE == int4
.equ PK, CFG_CORE_MATRIX_MACS_PER_PE_INT4
.if K % 2 || N % 2
.error "gemm_ws.s: int4 packs two values a byte: K and N must be even"
.endif
.elif ITYPE == int8
.equ PK, CFG_CORE_MATRIX_MACS_PER_PE_INT8
.elif ITYPE == fp8e4m3
.equ PK, CFG_CORE_MATRIX_MACS_PER_PE_FP8E4M3
.elif ITYPE == fp8e5m2
.equ PK, CFG_CORE_MATRIX_MACS_PER_PE_FP8E5M2
.elif ITYPE == fp16
.equ PK, CFG_CORE_MATRIX_MACS_PER_PE_FP16
.else
.equ PK, CFG_CORE_MATRIX_MACS_PER_PE_BF16
.endif
.equ KT, PK*ROWS			# K rows of a weight tile
.equ NKT, (K + KT - 1) / KT		# k tiles; the last has K's rest
.equ TPB, NKT*NPANELS			# weight tiles per M block
.equ AROW, K*EBITS/8			# bytes of an A row
# A loads in k-slices of SW weight tiles' columns, at least 256 bytes of
# a row (whole DRAM bursts, a few per row; one tile's 32 bytes on
# default.cfg would waste most of each burst): NSL slices per block.
.equ SW0, (256 + KT*EBITS/8 - 1) / (KT*EBITS/8)
.equ SW, SW0 < NKT ? SW0 : NKT
.equ NSL, (NKT + SW - 1) / SW
.equ BROW, N*EBITS/8			# bytes of a B row in DRAM

# On-chip sizes.
.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
.equ NBB, 3				# weight-tile ring slots
.equ BT, (KT*BRB + PERIOD - 1) / PERIOD * PERIOD
.equ SPM_FIX, NBB*BT + 4*N*WITH_BIAS + 3*PERIOD + 256
.if SPM_FIX >= CFG_CORE_SCRATCHPAD_BYTES
.error "gemm_ws.s: three weight tiles (and the bias) do not fit the scratchpad"
.endif
.equ ROWB, 2*COLS*CB*STAGE		# staged C bytes per block row
.equ MBA, CFG_CORE_ACCUMULATOR_BYTES / (2*COLS*4)
.equ MBS1, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX) / (AROW + ROWB)
.equ MBS2, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX) / (2*AROW + ROWB)
.ifndef MBMAX
.equ MBMAX, M
.endif
.equ MB1A, MBS1 < MBA ? MBS1 : MBA
.equ MB1, MB1A < MBMAX ? MB1A : MBMAX
.equ MB2A, MBS2 < MBA ? MBS2 : MBA
.equ MB2, MB2A < MBMAX ? MB2A : MBMAX
# NABSEL: A buffers, 1 or 2 (0: two unless that costs more than a
# quarter of the block rows; one when one block holds all of M).
.tunable NABSEL, 0, 1, 2
.if MB1 < 1
.error "gemm_ws.s: not even one row of A fits in the scratchpad next to three weight tiles (K too deep)"
.endif
.if NABSEL == 1 || (NABSEL == 0 && (M <= MB1 || 4*MB2 < 3*MB1))
.equ NAB, 1
.equ NMB, (M + MB1 - 1) / MB1
.else
.if MB2 < 1
.error "gemm_ws.s: not even one row of A fits twice in the scratchpad next to three weight tiles (NABSEL=1 keeps one)"
.endif
.equ NAB, 2
.equ NMB, (M + MB2 - 1) / MB2
.endif
.equ MB, (M + NMB - 1) / NMB		# balanced blocks
.equ ABUF, (MB*AROW + 63) & ~63
.equ SPM_B, (NAB*ABUF + PERIOD - 1) / PERIOD * PERIOD + PERIOD / 2
.equ SPM_BE, SPM_B + NBB*BT		# the ring's end
.equ OBUF, (MB*COLS*CB + 63) & ~63
.equ SPM_O, (SPM_BE + 63) & ~63
.equ SPM_PAR, SPM_O + 2*OBUF*STAGE
.if SPM_PAR + 4*N*WITH_BIAS > CFG_CORE_SCRATCHPAD_BYTES
.error "gemm_ws.s: the A blocks, weight tiles and staged C exceed core.scratchpad.bytes"
.endif
.equ CBUF, MB*COLS*4
.if 2*CBUF > CFG_CORE_ACCUMULATOR_BYTES
.error "gemm_ws.s needs 2*MB*COLS*4 bytes of accumulator"
.endif
# DMA engines: A on [EA0, EA0+NEA), B on [EB0, EB0+NEB), C on [EC0,
# EC0+NEC).  ESPLIT 1 (default): A and B share the load engines (the
# first NEU - NEU/2), C has the others; 0: three separate streams.  An A
# block is needed early (its first panel waits for each k-slice) and B
# all along, so an engine of its own idles for A while B's queue is the
# longest: on one datacenter.cfg core (4 engines) 1024^3 bf16 takes
# 160k cycles shared against 176k separate, 2048^3 1.11 M against
# 1.16 M.  Stores never share an engine with loads (n >= 2).
.equ NEU, CFG_CORE_DMA_ENGINES < 8 ? CFG_CORE_DMA_ENGINES : 8
.if NEU >= 3
.tunable ESPLIT, 1, 0
.else
.equ ESPLIT, 0
.endif
.if NEU == 1
.equ NEA, 1
.equ NEB, 1
.equ NEC, 1
.equ EB0, 0
.equ EC0, 0
.elif NEU == 2 || ESPLIT
.equ NEC, NEU / 2
.equ NEA, NEU - NEC
.equ NEB, NEA
.equ EB0, 0
.equ EC0, NEA
.else
.equ NEA, (NEU + 2) / 3
.equ NEB, (NEU - NEA) / 2
.equ NEC, NEU - NEA - NEB
.equ EB0, NEA
.equ EC0, NEA + NEB
.endif
.equ EA0, 0

.equ AFULL, 0				# +e, e < NEA <= 5
.equ AFREE, 5
.equ BFULL, 10				# +e, e < NEB <= 5
.equ BFREE, 15
.equ CFULL, 20				# +e, e < NEC <= 4
.equ CFREE, 24

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base A_DRAM, 0
	dram_base B_DRAM, (A_DRAM + M*AROW + 63) & ~63
	dram_base BIAS_DRAM, (B_DRAM + K*BROW + 63) & ~63
	dram_base C_DRAM, (BIAS_DRAM + 4*N + 63) & ~63
.tensor A, dram, A_DRAM, ITYPE, M, K
.tensor B, dram, B_DRAM, ITYPE, K, N
.if WITH_BIAS
.tensor BIAS, dram, BIAS_DRAM, ATYPE, N
.endif
.tensor C, dram, C_DRAM, OUT, M, N

# MAC for parts I .. N-1 on engines E0+I ..: MAC engine, part, parts.
.macro each mac, e0, n, i=0
	\mac	(\e0) + (\i), \i, \n
.if (\i) + 1 < (\n)
	each	\mac, \e0, \n, (\i) + 1
.endif
.endm

# Unit U signals SEM+i, i < N / waits for SEM+i >= CNT, i < N.
.macro sig_n u, sem, n
	sig	\u, (\sem) + (\n) - 1
.if (\n) > 1
	sig_n	\u, \sem, (\n) - 1
.endif
.endm
.macro wait_n u, sem, n, cnt
	wait	\u, (\sem) + (\n) - 1, \cnt
.if (\n) > 1
	wait_n	\u, \sem, (\n) - 1, \cnt
.endif
.endm

# REG = rows of block BREG (not t1): min(MB, M - BREG*MB).
.macro rows_of reg, breg
	li	t1, MB
	mul	\reg, \breg, t1
	li	t1, M
	sub	\reg, t1, \reg
	li	t1, MB
	min	\reg, \reg, t1
.endm

# One copy on engine E: t4 rows of t3 bytes from t5 (memory SM, rows SS1
# apart) to t6 (DM, DS1 apart); nothing when t4 is 0.
.macro rcopy e, sm, dm, ss1, ds1
	beqz	t4, rc\@
	li	t1, 1
	cdesc	t5, t6, \sm, \dm, 1, 1, \ss1, \ds1, t1, 0, 0
	dset	n0, t3
	dset	n1, t4
	dma	\e
rc\@:
.endm

# Weight tile s5 (index within the block: panel s5 / NKT, k tile
# s5 % NKT) into ring slot a2: a6 = its first DRAM byte, a7 = its rows,
# t3 = bytes per row; then each B engine's rows.
.macro ld_b_part e, i, n
	part	\i, \n, a7
	li	t1, BROW
	mul	t5, t2, t1
	add	t5, t5, a6
	li	t1, BRB
	mul	t6, t2, t1
	add	t6, t6, a2
	wait	(3 + (\e)), BFREE + (\i), 1
	rcopy	\e, dram, spm, BROW, BRB
	sig	(3 + (\e)), BFULL + (\i)
.endm
.macro ld_b
	li	t1, NKT
	divu	t5, s5, t1			# panel
	remu	t6, s5, t1			# k tile
	li	t1, KT*BROW
	mul	a6, t6, t1
	li	t1, BRB
	mul	t1, t5, t1
	add	a6, a6, t1
	li	t1, B_DRAM
	add	a6, a6, t1
	li	t1, KT
	mul	a7, t6, t1
	li	t1, K
	sub	a7, t1, a7
	li	t1, KT
	min	a7, a7, t1			# rows: KT, or K's rest
	li	t1, COLS
	mul	t3, t5, t1
	li	t1, N
	sub	t3, t1, t3
	li	t1, COLS
	min	t3, t3, t1			# columns
.if EBITS == 4
	srli	t3, t3, 1
.elif EBITS == 16
	slli	t3, t3, 1
.endif
	each	ld_b_part, EB0, NEB
	li	t1, BT
	add	a2, a2, t1			# the next slot (a ring of NBB)
	li	t1, SPM_BE
	bne	a2, t1, lb\@
	li	a2, SPM_B
lb\@:
	addi	s5, s5, 1
	li	t1, TPB
	bne	s5, t1, lc\@
	li	s5, 0
lc\@:
	addi	s6, s6, -1
.endm

# K-slice s11 (SW weight tiles' columns; fewer in the last slice) of an
# A block (a6 = the block's first DRAM byte, a7 = its rows) into the
# buffer at a5, rows AROW apart on both sides; each A engine a part of
# the rows, once its part of the slice is free (AFREE).
.macro ld_a_part e, i, n
	part	\i, \n, a7
	li	t1, AROW
	mul	t2, t2, t1
	add	t5, s10, t2
	add	t6, t6, t2
	wait	(3 + (\e)), AFREE + (\i), 1
	rcopy	\e, dram, spm, AROW, AROW
	sig	(3 + (\e)), AFULL + (\i)
	sub	t6, t6, t2
.endm
.macro ld_a
	li	t1, SW*KT*EBITS/8
	mul	t2, s11, t1
	add	s10, a6, t2			# the slice's first DRAM byte
	add	t6, a5, t2			# and its first scratchpad byte
	li	t1, SW*KT
	mul	t3, s11, t1
	li	t1, K
	sub	t3, t1, t3
	li	t1, SW*KT
	min	t3, t3, t1			# its columns
.if EBITS == 4
	srli	t3, t3, 1
.elif EBITS == 16
	slli	t3, t3, 1
.endif
	each	ld_a_part, EA0, NEA
.endm

# The C panel of block s0 (s4 rows), panel s1 (s8 columns): each C
# engine stores a part of its rows from a3 (accumulator) or a4 (staged).
.macro st_c_part e, i, n
	part	\i, \n, s4
.if STAGE
	li	t1, COLS*CB
	mul	t5, t2, t1
	add	t5, t5, a4
.else
	li	t1, COLS*4
	mul	t5, t2, t1
	add	t5, t5, a3
.endif
	li	t1, N*CB
	mul	t6, t2, t1
	add	t6, t6, a6
	li	t1, CB
	mul	t3, s8, t1			# bytes per row
	wait	(3 + (\e)), CFULL + (\i), 1
.if STAGE
	rcopy	\e, spm, dram, COLS*CB, N*CB
.else
	rcopy	\e, acc, dram, COLS*4, N*CB
.endif
	sig	(3 + (\e)), CFREE + (\i)
.endm
.macro st_c
	li	t1, MB*N*CB
	mul	a6, s0, t1
	li	t1, COLS*CB
	mul	t1, s1, t1
	add	a6, a6, t1
	li	t1, C_DRAM
	add	a6, a6, t1
	each	st_c_part, EC0, NEC
.endm

.text
	rbeg	gemm_ws
	li	t0, ws
	mset	df, t0
	li	t0, ITYPE
	mset	itype, t0
	li	t0, ATYPE
	mset	atype, t0
	li	t0, AROW
	mset	sa, t0				# A rows: the whole of K
	li	t0, BRB
	mset	sb, t0				# weight tile rows: COLS elements
	li	t0, COLS*4
	mset	sc, t0				# C panel rows: COLS int32/fp32
	li	t0, BT
	mset	ib, t0				# mprep: the next ring slot
.if STAGE
	gemm_ostage COLS*CB
.endif

	li	s11, NAB*NSL			# the A buffers' slices
af:
	sig_n	ctl, AFREE, NEA
	dbnz	s11, af
	sig_n	ctl, BFREE, NEB			# three weight-tile slots
	sig_n	ctl, BFREE, NEB
	sig_n	ctl, BFREE, NEB
	sig_n	ctl, CFREE, NEC			# two C panels
	sig_n	ctl, CFREE, NEC
.if WITH_BIAS
	# on the first B engine ahead of weight tile 0: the first mprep
	# waits for that engine's BFULL, so every mout finds the bias
	li	t5, BIAS_DRAM
	li	t6, SPM_PAR
	li	t3, 4*N
	li	t4, 1
	rcopy	EB0, dram, spm, 0, 0
.endif
	li	s5, 0				# the next weight tile to load
	li	s6, NMB*TPB			# weight tiles left to load
	li	a2, SPM_B
	ld_b					# tile 0
	li	s0, 0
	rows_of	a7, s0				# block 0's A, slice by slice
	li	a6, A_DRAM
	li	a5, 0
	li	s11, 0
	ld_a					# slice 0
	beqz	s6, p1
	ld_b					# tile 1
p1:
	li	s11, 1
	li	t1, NSL
	bge	s11, t1, p2
a0l:
	rows_of	a7, s0				# (ld_b took a6, a7)
	li	a6, A_DRAM
	ld_a					# the other slices
	addi	s11, s11, 1
	li	t1, NSL
	blt	s11, t1, a0l
p2:
	li	s1, 0				# panel
	li	s2, 0				# k tile
	li	s3, 0				# tile within the block
	rows_of	s4, s0				# rows of this block
	li	t2, 1
	rows_of	s7, t2				# and of the next
	li	a0, 0				# this block's A
	li	a5, ABUF * (NAB - 1)		# the next block's
	li	a1, SPM_B			# mprep's slot
	li	a3, 0				# the C panel in the accumulator
	li	a4, SPM_O			# and its staging buffer
tile:
	beqz	s6, nob
	ld_b					# two tiles ahead
nob:
.if NMB > 1 && NAB == 2
	li	t1, NPANELS*SW
	remu	t2, s3, t1
	bnez	t2, noa				# every NPANELS*SW tiles
	divu	s11, s3, t1
	addi	t1, s0, 1
	li	t2, NMB
	bge	t1, t2, noa
	li	t2, MB*AROW
	mul	a6, t1, t2
	li	t2, A_DRAM
	add	a6, a6, t2
	mv	a7, s7
	ld_a					# a k-slice of the next block
noa:
.endif
	li	t1, KT
	mul	s9, s2, t1
	li	t1, K
	sub	s9, t1, s9
	li	t1, KT
	min	s9, s9, t1			# this tile's K rows
	li	t1, COLS
	mul	s8, s1, t1
	li	t1, N
	sub	s8, t1, s8
	li	t1, COLS
	min	s8, s8, t1			# and columns
	bnez	s2, nc
	wait_n	mtx, CFREE, NEC, 1		# a panel's first tile
nc:
	wait_n	mtx, BFULL, NEB, 1
	bnez	s1, na
	li	t1, SW
	remu	t1, s2, t1
	bnez	t1, na
	wait_n	mtx, AFULL, NEA, 1		# the first panel: A's k-slice
na:
	mset	m, s4
	mset	k, s9
	mset	n, s8
	mprep	a1				# into the shadow registers
	sig_n	mtx, BFREE, NEB
	li	t1, SPM_BE
	bne	a1, t1, nw
	li	a1, SPM_B
nw:
	li	t1, KT*EBITS/8
	mul	t3, s2, t1
	add	t3, t3, a0			# A's k-tile columns, rows AROW apart
	bnez	s2, ac
	mmul	a3, t3, zero
	j	fd
ac:
	mmacc	a3, t3, zero
fd:
.if NMB > 1
	li	t1, NPANELS - 1
	bne	s1, t1, nf			# the block's last panel:
	addi	t2, s2, 1
	li	t1, SW
	remu	t1, t2, t1
	beqz	t1, fr
	li	t1, NKT
	bne	t2, t1, nf
fr:
	sig_n	mtx, AFREE, NEA			# A's k-slice s2/SW is free
.if NAB == 1
	addi	t1, s0, 1
	li	t2, NMB
	bge	t1, t2, nf
	li	t2, SW
	divu	s11, s2, t2
	li	t2, MB*AROW
	mul	a6, t1, t2
	li	t2, A_DRAM
	add	a6, a6, t2
	mv	a7, s7
	ld_a					# the next block's, into it
.endif
nf:
.endif
	addi	s3, s3, 1
	addi	s2, s2, 1
	li	t1, NKT
	blt	s2, t1, tile
	li	s2, 0				# the panel is done
.if STAGE
.if WITH_BIAS
	li	t1, COLS*4
	mul	t1, s1, t1
	li	t0, SPM_PAR
	add	t1, t1, t0
	mset	opar, t1
.endif
	mout	a4, a3
.endif
	sig_n	mtx, CFULL, NEC
	st_c
	li	t1, CBUF
	xor	a3, a3, t1			# 0 <-> CBUF
	beqz	a3, c0
	li	a4, SPM_O + OBUF
	j	c1
c0:
	li	a4, SPM_O
c1:
	addi	s1, s1, 1
	li	t1, NPANELS
	blt	s1, t1, tile
	li	s1, 0				# the block is done
	li	s3, 0
	addi	s0, s0, 1
	mv	s4, s7
	addi	t2, s0, 1
	rows_of	s7, t2
	mv	t1, a0
	mv	a0, a5
	mv	a5, t1
	li	t1, NMB
	blt	s0, t1, tile
	fence	all
	rend	gemm_ws
	halt
