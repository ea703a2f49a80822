# attention.s - O = softmax(Q K^T * SCALE) V for H heads, tiled in the
# flash-attention manner (online softmax: no score matrix in DRAM), with
# an optional causal mask, on one core or split over every core.
#
# Work items are (head h, query block i) of BR query rows, split over
# the cores (SPMD, csrr coreid/ncores).  An item walks its key blocks j
# of BC keys (causal: only those with a visible key) in steps, each of
# which the units run as a pipeline:
#
#   dma0  K^T tile (D x bc) of step s+2; the next item's Q tile (BR x D)
#         at the item's first step
#   dma1  V tile (bc x D) of step s+2; O tiles out
#   mtx   S = Q K^T for step s+1 into accumulator buffer (s+1) % 2
#         (weight stationary: the K^T tile is the stationary operand),
#         then O (+)= P V for step s (the V tile stationary, P streamed)
#   vec   the online softmax of step s on S in the accumulator:
#           (causal, diagonal blocks) S += mask           vadd, a window
#                                       of one precomputed 0/-1e30 tile
#           M' = max(M, rowmax(S))                        vredmax, vmax
#           A = exp(M - M'),  S = exp(S - M')             vsub, vexp
#           L = L * A + rowsum(S)                         vredsum, vmul, vadd
#           P = ITYPE(S) into the scratchpad              vcvt
#           O = O * A   (O stays in the accumulator)      vmul
#         and at the item's end O = ITYPE(O / L), stored by dma1.
# K and V: resident (RES = 1, the default when a head's key blocks all
# fit next to the other tiles) - slot j holds key block j, loaded by the
# core's first item of the head (and the blocks later items add when
# causal), the items in contiguous ranges per core so that a core keeps
# its heads; or streamed (RES = 0) - through 4 slots, (s+2) % 4, reloaded
# per query block, the items round the cores (c, c + n, ...: balanced
# under a causal mask).
# Issue order per step: the K/V loads, the softmax up to the row sums, S
# of step s+1, then P, the O rescale and O (+)= P V - so the in-order
# control unit never waits on a full matrix queue while the vector unit
# starves; a P V fold is followed by the next S's first preload, and S's
# signals by the next P V preload (a sig waits for everything before it
# on its unit, which would serialise the preloads).
# SCALE is folded into Q when exact (SCALE = 2^-k: the default for D a
# power of 4, or a given SCALE with a zero mantissa, as the compiler
# passes 1/8 for D = 64 - the vector unit scales the Q tile once,
# exactly); otherwise S is scaled
# in fp32 (one more vmuls per score).  Semaphores count (each producer
# and each consumer goes in order), so one per direction serves every
# buffer; the buffer itself follows from the step or item number.
#
# Layouts (DRAM, ITYPE = bf16 or fp16): Q (H*N) x D (head h's rows at
# h*N), KT (H*D) x NK (head h's K transposed: KT[h*D + d][k] = K_h[k][d]),
# V (H*NK) x D, O (H*N) x D.  CAUSAL = 1: query q sees the keys k <= q +
# NK - N (needs NK >= N).
# Scratchpad: Q 2 x BR*D, K^T NSLOT x D*BC, V NSLOT x BC*D (NSLOT: the key
# blocks when resident, else 4), P 2 x BR*BC and an O tile BR*D, of ITYPE.  Accumulator (fp32): O BR x D, S 2 x BR x BC, the
# row statistics 4 x BR and (causal) the mask tile MR x (2*BC + MR).  BR
# defaults to the most rows both hold (a multiple of 16, at most N rounded
# up to 16 and 2048); BC to the array's columns (at least 64).
# Parameters: H, N, NK (default N), D, CAUSAL (0), ITYPE (bf16 | fp16),
# SCALE (fp32 bits; default 1/sqrt(D) for a power-of-two D), BR, BC, RES.
# Performance and what bounds it: docs/kernels.md (the vector unit's six
# passes per score, the accumulator's banks).
# Accuracy: docs/numerics.md (attention).

.ifndef H
.equ H, 1
.endif
.ifndef N
.equ N, 256
.endif
.ifndef NK
.equ NK, N
.endif
.ifndef D
.equ D, 64
.endif
.ifndef CAUSAL
.equ CAUSAL, 0
.endif
.ifndef ITYPE
.equ ITYPE, bf16
.endif
.if ITYPE != bf16 && ITYPE != fp16
.error "attention.s: ITYPE is bf16 or fp16"
.endif
# QSEQ, VSEQ, OSEQ = 1: that tensor is stored sequence-major, as a
# projection writes it before the head split - B x N x HB x D (V: B x NK
# x HB x D), the HB heads of a row side by side, H = B*HB - so no
# transpose needs to run before or after the kernel; its tiles then move
# as D-element rows HB*D apart.
.ifndef QSEQ
.equ QSEQ, 0
.endif
.ifndef VSEQ
.equ VSEQ, 0
.endif
.ifndef OSEQ
.equ OSEQ, 0
.endif
.ifndef HB
.equ HB, H
.endif
.if H % HB
.error "attention.s: H (batch x heads) must be a multiple of HB (heads per batch)"
.endif
.if CAUSAL && NK < N
.error "attention.s: a causal mask needs NK >= N (every query sees key 0)"
.endif
.equ ES, 2				# bytes per element of ITYPE
.equ R, CFG_CORE_MATRIX_ROWS
.equ C, CFG_CORE_MATRIX_COLS

# SCALE: 1/sqrt(D) by default for a power-of-two D.  An exact power of
# two (D a power of 4, or a SCALE given with a zero mantissa whose
# exponent ITYPE holds) is folded into Q (QPRE), any other value scales S.
.ifdef SCALE
.equ QPRE, (SCALE & 0x807fffff) == 0 && ((SCALE >> 23) & 255) > 112 && ((SCALE >> 23) & 255) < 143
.else
.equ QPRE, D == 4 || D == 16 || D == 64 || D == 256 || D == 1024
.if D == 4
.equ SCALE, f32(0.5)
.elif D == 16
.equ SCALE, f32(0.25)
.elif D == 64
.equ SCALE, f32(0.125)
.elif D == 256
.equ SCALE, f32(0.0625)
.elif D == 1024
.equ SCALE, f32(0.03125)
.elif D == 8
.equ SCALE, f32(0.35355339059327373)
.elif D == 32
.equ SCALE, f32(0.17677669529663687)
.elif D == 128
.equ SCALE, f32(0.08838834764831845)
.elif D == 512
.equ SCALE, f32(0.04419417382415922)
.else
.error "attention.s: give SCALE (fp32 bits, e.g. -D SCALE=0x3e000000) for this D"
.endif
.endif

# SCALE as an ITYPE scalar (a power of two when QPRE): bf16 is fp32's
# upper half; fp16 rebiases the exponent (15 instead of 127).
.equ SCALE_Q, ITYPE == bf16 ? SCALE >> 16 : (((SCALE >> 23) & 255) - 112) << 10

.ifndef BC
.equ BC, C < 64 ? 64 : C
.endif
# MR, the rows of the causal mask tile: 64 (fewer, shorter vadds per
# diagonal block) when the tile takes at most an eighth of the
# accumulator, else 16.
.equ MR, 4*64*(2*BC + 64) <= CFG_CORE_ACCUMULATOR_BYTES / 8 ? (BC < 64 ? BC : 64) : 16
.equ WCOLS, 2*BC + MR			# its columns
.equ WBYTES, CAUSAL ? (4*MR*WCOLS + 255) & ~255 : 0
.equ KTB, (D*BC*ES + 255) & ~255	# a K^T tile
.equ VTB, (BC*D*ES + 255) & ~255	# a V tile
.ifndef BR
.equ BR_A, (CFG_CORE_ACCUMULATOR_BYTES - WBYTES - 4096) / (4*D + 8*BC + 16)
.equ BR_S, (CFG_CORE_SCRATCHPAD_BYTES - 4*KTB - 4*VTB - 4096) / (3*D*ES + 2*BC*ES)
.equ BR_AS, BR_A < BR_S ? BR_A : BR_S
.equ BR_N, ((N + 15) & ~15) < 2048 ? (N + 15) & ~15 : 2048
.equ BR, (BR_AS < BR_N ? BR_AS : BR_N) & ~15
.endif
.if BR < 1
.error "attention.s: not even 16 query rows fit the scratchpad and accumulator (lower BC)"
.endif
.equ NQB, (N + BR - 1) / BR		# query blocks per head
.equ NKB, (NK + BC - 1) / BC		# key blocks
.equ NITEMS, H*NQB

# RES = 1: a head's K^T and V tiles stay resident (slot j holds key
# block j), loaded once by the core's first item of the head (and, when
# causal, the blocks later items add), so K and V cross the DRAM once per
# head and core instead of once per query block.  The default when every
# key block fits next to the other tiles and a head has several query
# blocks - with one, each K and V block crosses the DRAM once either way,
# and streaming them through the four slots prefetches the next item's
# blocks while this one computes (BERT-base's 12 heads of 128 rows on
# tpu-v1: 32,140 cycles streamed, 50,572 resident).  With RES each core takes a
# contiguous range of items (whole heads when H >= cores); without, the
# items go round the cores (c, c + n, ...; balanced under a causal mask).
.equ RES_FIT, 2*((BR*D*ES + 255) & ~255) + NKB*(KTB + VTB) + 2*((BR*BC*ES + 255) & ~255) + ((BR*D*ES + 255) & ~255) <= CFG_CORE_SCRATCHPAD_BYTES
.equ RES_DEF, RES_FIT && NQB > 1
.tunable RES, RES_DEF, 1 - RES_DEF
.if RES && !RES_FIT
.error "attention.s: RES = 1 needs every key block of a head in the scratchpad (lower BR, BC or N)"
.endif
.equ NSLOT, RES ? NKB : 4

# Scratchpad
.equ QTB, (BR*D*ES + 255) & ~255
.equ PTB, (BR*BC*ES + 255) & ~255
.equ SP_Q, 0				# 2 Q tiles
.equ SP_K, SP_Q + 2*QTB			# NSLOT K^T slots
.equ SP_V, SP_K + NSLOT*KTB		# NSLOT V slots
.equ SP_P, SP_V + NSLOT*VTB		# 2 P tiles
.equ SP_O, SP_P + 2*PTB			# the O tile out
.if SP_O + QTB > CFG_CORE_SCRATCHPAD_BYTES
.error "attention.s: the tiles exceed the scratchpad (lower BR or BC)"
.endif
# Accumulator
.equ STB, (4*BR*BC + 255) & ~255
.equ CB, (4*BR + 255) & ~255
.equ AC_O, 0				# O, BR x D fp32
.equ AC_S, (4*BR*D + 255) & ~255	# 2 S tiles
.equ AC_M, AC_S + 2*STB			# row maxima
.equ AC_L, AC_M + CB			# row sums
.equ AC_A, AC_L + CB			# rescale factors
.equ AC_X, AC_A + CB			# scratch column
.equ AC_W, AC_X + CB			# the causal mask tile
.if AC_W + WBYTES > CFG_CORE_ACCUMULATOR_BYTES
.error "attention.s: the tiles exceed the accumulator (lower BR or BC)"
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base Q_DRAM, 0
	dram_base KT_DRAM, (Q_DRAM + H*N*D*ES + 63) & ~63
	dram_base V_DRAM, (KT_DRAM + H*D*NK*ES + 63) & ~63
	dram_base O_DRAM, (V_DRAM + H*NK*D*ES + 63) & ~63
.if QSEQ
.tensor Q, dram, Q_DRAM, ITYPE, H/HB*N, HB*D
.else
.tensor Q, dram, Q_DRAM, ITYPE, H*N, D
.endif
.tensor KT, dram, KT_DRAM, ITYPE, H*D, NK
.if VSEQ
.tensor V, dram, V_DRAM, ITYPE, H/HB*NK, HB*D
.else
.tensor V, dram, V_DRAM, ITYPE, H*NK, D
.endif
.if OSEQ
.tensor O, dram, O_DRAM, ITYPE, H/HB*N, HB*D
.else
.tensor O, dram, O_DRAM, ITYPE, H*N, D
.endif

# Counting semaphores
.equ KFULL, 0		# K^T tile loaded (dma0 -> mtx)
.equ KFREE, 1		# K^T slot read by S (mtx -> dma0), 4 credits
.equ VFULL, 2		# V tile loaded (dma1 -> mtx)
.equ VFREE, 3		# V slot read by PV (mtx -> dma1), 4 credits
.equ QLD, 4		# Q tile loaded (dma0 -> vec, QPRE)
.equ QFULL, 5		# Q tile ready (dma0 or vec -> mtx)
.equ QFREE, 6		# Q tile's last S done (mtx -> dma0), 2 credits
.equ SFULL, 7		# S computed (mtx -> vec)
.equ SFREE, 8		# S buffer read (vec -> mtx), 2 credits
.equ PFULL, 9		# P and the rescaled O ready (vec -> mtx)
.equ PFREE, 10		# P tile read (mtx -> vec), 2 credits
.equ PVDONE, 11		# O += P V done (mtx -> vec)
.equ OFULL, 12		# O tile converted (vec -> dma1)
.equ OFREE, 13		# O tile stored (dma1 -> vec), 1 credit

.include "lib/cdesc.inc"

# The item W (register): t1 = h, t2 = i, t3 = i*BR, t4 = br (its rows).
.macro item w
	li	t0, NQB
	divu	t1, \w, t0
	remu	t2, \w, t0
	li	t0, BR
	mul	t3, t2, t0
	li	t4, N
	sub	t4, t4, t3
	bge	t0, t4, it\@
	mv	t4, t0
it\@:
.endm

# a0 = BASE + the byte address of row R (register) of head t1's matrix of
# NR rows in a sequence-major tensor (B x NR x HB x D): ((b*NR + R)*HB +
# h)*D elements, b = t1 / HB, h = t1 % HB.  Clobbers t0 and a7.
.macro hrow base, r, nr
	li	t0, HB
	remu	a0, t1, t0
	divu	a7, t1, t0
	li	t0, \nr
	mul	a7, a7, t0
	add	a7, a7, \r
	li	t0, HB
	mul	a7, a7, t0
	add	a0, a0, a7
	li	t0, D*ES
	mul	a0, a0, t0
	li	t0, \base
	add	a0, a0, t0
.endm

# t5 = the last key block of the item in t3/t4 (causal: the block of its
# last row's last visible key).
.macro jlast
.if CAUSAL
	add	t5, t3, t4
	addi	t5, t5, NK - N - 1
	li	t0, BC
	divu	t5, t5, t0
	li	t0, NKB - 1
	bge	t0, t5, jl\@
	mv	t5, t0
jl\@:
.else
	li	t5, NKB - 1
.endif
.endm

# t6 = bc, the keys of block J (register).
.macro keys j
	li	t0, BC
	mul	t6, \j, t0
	li	t0, NK
	sub	t6, t0, t6
	li	t0, BC
	bge	t0, t6, ky\@
	mv	t6, t0
ky\@:
.endm

# (W, J) <- the step after (W, J): the next key block, or the core's next
# item at block 0.
.macro advance w, j
	item	\w
	jlast
	bge	\j, t5, av\@
	addi	\j, \j, 1
	j	avd\@
av\@:
	add	\w, \w, s3			# the core's next item
	li	\j, 0
avd\@:
.endm

# a6 = 1 when step (W, J) needs its K^T and V tiles loaded (and waited
# for): always streamed; resident, at the core's first item of the head
# and for the key blocks past those of the core's previous item (causal).
.macro needload w, j
.if RES
	sub	a6, \w, s3			# the core's previous item
	blt	a6, gp, nl1\@
	item	a6
	jlast
	mv	a6, t1
	item	\w
	bne	a6, t1, nl1\@			# another head
	slt	a6, t5, \j			# a key block it did not load
	j	nld\@
nl1\@:
	li	a6, 1
nld\@:
.else
	li	a6, 1
.endif
.endm

# a6 = 1 when items WA and WB (registers) are of the same head (always 1
# when streaming: the tiles do not care).
.macro hsame wa, wb
.if RES
	li	t0, NQB
	divu	a6, \wa, t0
	divu	t0, \wb, t0
	sub	a6, a6, t0
	sltiu	a6, a6, 1
.else
	li	a6, 1
.endif
.endm

# Load the K^T and V tiles of step (W, J) into slot SLOT (register; RES:
# slot J), if W is one of the core's items and the step needs them.
.macro load_kv w, j, slot
	bge	\w, tp, lk\@
	needload \w, \j
	beqz	a6, lk\@
	item	\w
	keys	\j
	# K^T rows d of head h, keys j*BC ..: D rows of bc elements
	li	t0, D*NK
	mul	a0, t1, t0
	li	t0, BC
	mul	t0, \j, t0
	add	a0, a0, t0
	slli	a0, a0, 1
	li	t0, KT_DRAM
	add	a0, a0, t0
	li	t0, KTB
.if RES
	mul	a1, \j, t0
.else
	mul	a1, \slot, t0
	wait	dma0, KFREE, 1
.endif
	li	t0, SP_K
	add	a1, a1, t0
	li	a7, 1
	cdesc	a0, a1, dram, spm, 2, D, NK*ES, BC*ES, a7, 0, 0
	slli	t0, t6, 1
	dset	n0, t0
	dma	0
	sig	dma0, KFULL
	# V rows j*BC .. of head h: bc rows of D, contiguous (VSEQ: HB*D
	# elements apart)
.if VSEQ
	li	t0, BC
	mul	a1, \j, t0
	hrow	V_DRAM, a1, NK
.else
	li	t0, NK
	mul	a0, t1, t0
	li	t0, BC
	mul	t0, \j, t0
	add	a0, a0, t0
	li	t0, D*ES
	mul	a0, a0, t0
	li	t0, V_DRAM
	add	a0, a0, t0
.endif
	li	t0, VTB
.if RES
	mul	a1, \j, t0
.else
	mul	a1, \slot, t0
	wait	dma1, VFREE, 1
.endif
	li	t0, SP_V
	add	a1, a1, t0
	li	a7, 1
.if VSEQ
	cdesc	a0, a1, dram, spm, D*ES, 1, HB*D*ES, D*ES, a7, 0, 0
	dset	n1, t6
.else
	cdesc	a0, a1, dram, spm, 2, 1, 0, 0, a7, 0, 0
	li	t0, D*ES
	mul	t0, t6, t0
	dset	n0, t0
.endif
	dma	1
	sig	dma1, VFULL
lk\@:
.endm

# Load the Q tile of item W into Q buffer PAR (register), if W is an
# item; with QPRE the vector unit scales it before the matrix may use it.
.macro load_q w, par
	bge	\w, tp, lq\@
	item	\w
.if QSEQ
	hrow	Q_DRAM, t3, N
.else
	li	t0, N
	mul	a0, t1, t0
	add	a0, a0, t3
	li	t0, D*ES
	mul	a0, a0, t0
	li	t0, Q_DRAM
	add	a0, a0, t0
.endif
	li	t0, QTB
	mul	a1, \par, t0
	wait	dma0, QFREE, 1
	li	a7, 1
.if QSEQ
	cdesc	a0, a1, dram, spm, D*ES, 1, HB*D*ES, D*ES, a7, 0, 0
	dset	n1, t4
.else
	cdesc	a0, a1, dram, spm, 2, 1, 0, 0, a7, 0, 0
	li	t0, D*ES
	mul	t0, t4, t0
	dset	n0, t0
.endif
	dma	0
.if QPRE
	sig	dma0, QLD
.else
	sig	dma0, QFULL
.endif
lq\@:
.endm

# (QPRE) The vector unit scales Q buffer PAR (register) of item W by
# SCALE, exactly (a power of two), before the item's first S.
.macro scale_q w, par
.if QPRE
	item	\w
	wait	vec, QLD, 1
	li	t0, ITYPE
	vset	type, t0
	li	t0, spm
	vset	smem, t0
	vset	dmem, t0
	vset	rows, t4
	li	t0, D
	vset	len, t0
	vset	ss1, zero
	vset	sd, zero
	li	t0, QTB
	mul	a0, \par, t0
	li	t0, SCALE_Q
	vmuls	a0, a0, t0			# (the scalar is in ITYPE)
	sig	vec, QFULL
.endif
.endm

# S = Q K^T for step (W, J) with K^T slot SLOT and S buffer SB, Q buffer
# QP (registers).
# The matrix queue runs in order and a sig waits for everything before
# it, so a preload queued behind a sig cannot overlap the fold before it.
# Hence: with DEFER = 1 the signals of S (SFULL, KFREE, QFREE) are left
# pending in sp for mm_pv to send after its first preload; and ra = 1
# says mm_pv already preloaded this S's first K^T tile behind its fold.
.macro mm_s w, j, slot, sb, qp, defer
	bnez	ra, msl\@			# (its KFULL taken with the preload)
	needload \w, \j
	beqz	a6, msl\@
	wait	mtx, KFULL, 1
msl\@:
	item	\w
	jlast
	keys	\j
	mset	m, t4
	li	t0, D*ES
	mset	sa, t0
	li	t0, BC*ES
	mset	sb, t0
	li	t0, BC*4
	mset	sc, t0
	li	t0, KTB
.if RES
	mul	a2, \j, t0
.else
	mul	a2, \slot, t0
.endif
	li	t0, SP_K
	add	a2, a2, t0			# K^T tile
	li	t0, STB
	mul	a3, \sb, t0
	li	t0, AC_S
	add	a3, a3, t0			# S
	li	t0, QTB
	mul	a4, \qp, t0			# Q
	li	a5, 0				# n0
msn\@:
	sub	t0, t6, a5
	li	a7, C
	bge	t0, a7, msc\@
	mv	a7, t0
msc\@:
	mset	n, a7
	li	a6, 0				# k0
msk\@:
	li	t0, D
	sub	t0, t0, a6
	li	a7, R
	bge	t0, a7, msr\@
	mv	a7, t0
msr\@:
	mset	k, a7
	li	t0, BC*ES
	mul	t0, a6, t0
	add	t0, t0, a2
	slli	a7, a5, 1
	add	t0, t0, a7
	or	a7, a5, a6
	bnez	a7, msp\@
	bnez	ra, msh\@			# the first tile: preloaded already?
msp\@:
	mpre	t0				# K^T rows k0.., columns n0..
msh\@:
	li	ra, 0
	# the first preload goes ahead of the waits for Q and the S buffer
	# (it fills the shadow weights while the array still works)
	or	a7, a5, a6
	bnez	a7, msw\@
	bnez	\j, ms1\@
	wait	mtx, QFULL, 1
ms1\@:
	wait	mtx, SFREE, 1
msw\@:
	slli	a7, a5, 2
	add	a7, a7, a3			# S columns n0..
	slli	t0, a6, 1
	add	t0, t0, a4			# Q columns k0..
	bnez	a6, msa\@
	mmul	a7, t0, zero
	j	msx\@
msa\@:
	mmacc	a7, t0, zero
msx\@:
	addi	a6, a6, R
	li	t0, D
	blt	a6, t0, msk\@
	addi	a5, a5, C
	blt	a5, t6, msn\@
	li	sp, 1				# S's signals, pending
	bne	\j, t5, msq\@
	li	sp, 3				# and the item's last S: QFREE too
msq\@:
.if !(\defer)
	s_sigs
.endif
.endm

# Send the pending signals of the last S (sp: bit 0 SFULL and KFREE, bit
# 1 QFREE).
.macro s_sigs
	beqz	sp, ss\@
	sig	mtx, SFULL
	sig	mtx, KFREE
	andi	sp, sp, 2
	beqz	sp, ss\@
	sig	mtx, QFREE			# the item's last S
ss\@:
	li	sp, 0
.endm

# O (+)= P V for step (W, J) with V slot SLOT and P buffer PB (registers).
# (W2, J2, registers): the step after the next, whose first K^T tile is
# preloaded behind this fold when it belongs to the same head (ra = 1);
# STEP (register) is this step's number s (step s + 2's slot: (s+2) % 4).
.macro mm_pv w, j, slot, pb, w2, j2, step
	needload \w, \j
	beqz	a6, mpl\@
	wait	mtx, VFULL, 1
mpl\@:
	item	\w
	keys	\j
	mset	m, t4
	li	t0, BC*ES
	mset	sa, t0
	li	t0, D*ES
	mset	sb, t0
	li	t0, D*4
	mset	sc, t0
	li	t0, VTB
.if RES
	mul	a2, \j, t0
.else
	mul	a2, \slot, t0
.endif
	li	t0, SP_V
	add	a2, a2, t0			# V tile
	li	t0, PTB
	mul	a4, \pb, t0
	li	t0, SP_P
	add	a4, a4, t0			# P tile
	li	a5, 0				# n0 (columns of O)
mpn\@:
	li	t0, D
	sub	t0, t0, a5
	li	a7, C
	bge	t0, a7, mpc\@
	mv	a7, t0
mpc\@:
	mset	n, a7
	li	a6, 0				# k0 (keys)
mpk\@:
	sub	t0, t6, a6
	li	a7, R
	bge	t0, a7, mpr\@
	mv	a7, t0
mpr\@:
	mset	k, a7
	li	t0, D*ES
	mul	t0, a6, t0
	add	t0, t0, a2
	slli	a7, a5, 1
	add	t0, t0, a7
	mpre	t0				# V rows k0.., columns n0..
	or	a7, a5, a6
	bnez	a7, mpw\@
	s_sigs					# the last S, behind this preload
	wait	mtx, PFULL, 1			# (after the first preload)
mpw\@:
	slli	a7, a5, 2			# O columns n0.. (AC_O = 0)
	slli	t0, a6, 1
	add	t0, t0, a4			# P columns k0..
	or	t2, \j, a6
	bnez	t2, mpa\@
	mmul	a7, t0, zero			# the item's first: O = P V
	j	mpx\@
mpa\@:
	mmacc	a7, t0, zero
mpx\@:
	addi	a6, a6, R
	blt	a6, t6, mpk\@
	addi	a5, a5, C
	li	t0, D
	blt	a5, t0, mpn\@
	# the first K^T tile of step (W2, J2), if any and of this head (a
	# change of head loads its tiles only after draining the units)
	bge	\w2, tp, mpd\@
	hsame	\w, \w2
	beqz	a6, mpd\@
	needload \w2, \j2
	beqz	a6, mpf\@
	wait	mtx, KFULL, 1
mpf\@:
	keys	\j2
	li	t0, KTB
.if RES
	mul	a2, \j2, t0
.else
	addi	a2, \step, 2
	andi	a2, a2, 3
	mul	a2, a2, t0
.endif
	li	t0, SP_K
	add	a2, a2, t0
	li	t0, BC*ES
	mset	sb, t0
	li	a7, R
	li	t0, D
	bge	t0, a7, mpg\@
	mv	a7, t0
mpg\@:
	mset	k, a7
	li	a7, C
	bge	t6, a7, mph\@
	mv	a7, t6
mph\@:
	mset	n, a7
	mpre	a2
	li	ra, 1
mpd\@:
	sig	mtx, PFREE
	sig	mtx, VFREE
	sig	mtx, PVDONE
.endm

# Elementwise work on the dense row statistics (one fp32 per query row):
# the NREG values as one row, so that they take every lane (as ROWS x 1
# columns each would take a cycle per row).
.macro vcol nreg
	li	t0, 1
	vset	rows, t0
	vset	len, \nreg
	vset	ss1, zero
	vset	ss2, zero
	vset	sd, zero
.endm

# The online softmax of step (W, J) on S buffer SB (register), up to
# the exponentials and their row sums.
.macro softmax w, j, sb
	item	\w
	keys	\j
	li	t0, STB
	mul	a3, \sb, t0
	li	t0, AC_S
	add	a3, a3, t0			# S
	li	t0, acc
	vset	smem, t0
	vset	dmem, t0
	li	t0, fp32
	vset	type, t0
	vset	otype, t0
	wait	vec, SFULL, 1
	vset	len, t6
	li	t0, BC*4
	vset	ss1, t0
	vset	sd, t0
.if CAUSAL
	# off = i*BR + NK - N - j*BC: key c of row r is hidden when
	# c - r > off; chunks of MR rows from r0 need it while
	# off + r0 < bc - 1, and take the window of the mask tile at
	# column BC - max(off + r0, -MR)
	li	t0, BC
	mul	a0, \j, t0
	sub	a0, t3, a0
	addi	a0, a0, NK - N			# off
	li	a1, 0				# r0
	li	t0, WCOLS*4
	vset	ss2, t0
smk\@:
	add	a2, a0, a1			# off + r0
	addi	t0, t6, -1
	bge	a2, t0, smkd\@
	li	t0, -MR
	bge	a2, t0, smko\@
	mv	a2, t0
smko\@:
	sub	t0, t4, a1
	li	t2, MR
	bge	t0, t2, smkr\@
	mv	t2, t0
smkr\@:
	vset	rows, t2
	li	t0, BC
	sub	a4, t0, a2
	slli	a4, a4, 2
	li	t0, AC_W
	add	a4, a4, t0			# the window
	li	t0, BC*4
	mul	a5, a1, t0
	add	a5, a5, a3			# S rows r0..
	vadd	a5, a5, a4
	addi	a1, a1, MR
	blt	a1, t4, smk\@
smkd\@:
	vset	ss2, zero
.endif
	vset	rows, t4
	li	a0, AC_M
	li	a1, AC_X
	li	a2, AC_A
	li	a4, AC_L
	vset	sd, zero
	bnez	\j, smr\@
	vredmax	a0, a3				# M = rowmax(S)
	j	sme\@
smr\@:
	vredmax	a1, a3				# rowmax(S)
	vcol	t4
	vmax	a1, a1, a0			# M' = max(M, rowmax(S))
	vsub	a2, a0, a1			# M - M'
.if !QPRE
	li	t0, SCALE
	vmuls	a2, a2, t0
.endif
	vexp	a2, a2				# A = exp(M - M')
	vmov	a0, a1				# M = M'
sme\@:
	vset	rows, t4
	vset	len, t6
	li	t0, BC*4
	vset	ss1, t0
	vset	sd, t0
	vset	ss2, zero
	li	t0, 1
	vset	bc, t0
	vsub	a3, a3, a0			# S - M (M as a column)
	vset	bc, zero
.if !QPRE
	li	t0, SCALE
	vmuls	a3, a3, t0
.endif
	vexp	a3, a3				# exp
	vset	sd, zero
	bnez	\j, sms\@
	vredsum	a4, a3				# L = rowsum
	j	smp\@
sms\@:
	vredsum	a1, a3
	vcol	t4
	vmul	a4, a4, a2			# L = L * A + rowsum
	vadd	a4, a4, a1
smp\@:
.endm

# The rest of step (W, J): P = ITYPE(S) from S buffer SB into P buffer PB
# (registers), then O = O * A.  Issued after the next step's S, so that
# the matrix engine computes that while the vector unit works here.
.macro softmax_p w, j, sb, pb
	item	\w
	keys	\j
	li	t0, STB
	mul	a3, \sb, t0
	li	t0, AC_S
	add	a3, a3, t0			# S
	li	a2, AC_A
	li	t0, acc
	vset	smem, t0
	li	t0, fp32
	vset	type, t0
	vset	ss2, zero
	vset	rows, t4
	vset	len, t6
	li	t0, BC*4
	vset	ss1, t0
	li	t0, BC*ES
	vset	sd, t0
	li	t0, ITYPE
	vset	otype, t0
	li	t0, spm
	vset	dmem, t0
	li	t0, PTB
	mul	a5, \pb, t0
	li	t0, SP_P
	add	a5, a5, t0
	wait	vec, PFREE, 1
	vcvt	a5, a3
	sig	vec, SFREE
	li	t0, acc
	vset	dmem, t0
	li	t0, fp32
	vset	otype, t0
	beqz	\j, smo\@
	# O = O * A, once the previous O += P V has landed
	wait	vec, PVDONE, 1
	li	t0, D
	vset	len, t0
	li	t0, D*4
	vset	ss1, t0
	vset	sd, t0
	li	t0, 1
	vset	bc, t0
	li	a5, AC_O
	vmul	a5, a5, a2
	vset	bc, zero
smo\@:
	sig	vec, PFULL
.endm

# The end of item W: O / L into ITYPE, stored by dma1.
.macro final w
	item	\w
	wait	vec, PVDONE, 1
	li	t0, acc
	vset	smem, t0
	vset	dmem, t0
	li	t0, fp32
	vset	type, t0
	vset	otype, t0
	vcol	t4
	li	a0, AC_X
	li	a4, AC_L
	vrcp	a0, a4				# 1 / L
	vset	rows, t4
	li	t0, D
	vset	len, t0
	li	t0, D*4
	vset	ss1, t0
	vset	sd, t0
	li	t0, 1
	vset	bc, t0
	li	a5, AC_O
	vmul	a5, a5, a0			# O / L
	vset	bc, zero
	li	t0, ITYPE
	vset	otype, t0
	li	t0, spm
	vset	dmem, t0
	li	t0, D*ES
	vset	sd, t0
	li	a1, SP_O
	wait	vec, OFREE, 1
	vcvt	a1, a5
	sig	vec, OFULL
	# dma1: rows h*N + i*BR .. of O (OSEQ: HB*D elements apart)
.if OSEQ
	hrow	O_DRAM, t3, N
.else
	li	t0, N
	mul	a0, t1, t0
	add	a0, a0, t3
	li	t0, D*ES
	mul	a0, a0, t0
	li	t0, O_DRAM
	add	a0, a0, t0
.endif
	wait	dma1, OFULL, 1
	li	a7, 1
.if OSEQ
	cdesc	a1, a0, spm, dram, D*ES, 1, D*ES, HB*D*ES, a7, 0, 0
	dset	n1, t4
.else
	cdesc	a1, a0, spm, dram, 2, 1, 0, 0, a7, 0, 0
	li	t0, D*ES
	mul	t0, t4, t0
	dset	n0, t0
.endif
	dma	1
	sig	dma1, OFREE
.endm

# In the step loop: the next item's Q scaled (at its first step) and S
# of step s + 1 = (s6, s7).
.macro next_s defer
	bnez	s7, ns\@
	scale_q	s6, s9
ns\@:
	addi	s5, s2, 1
	andi	s8, s5, 1			# S buffer of s + 1
	andi	s5, s5, 3			# its slot (streamed)
	mm_s	s6, s7, s5, s8, s9, \defer
.endm

.text
	rbeg	attention
	# this core's items: s0 the first, s3 the stride, gp the first and
	# tp the end (exclusive)
	csrr	t1, coreid
	csrr	t2, ncores
.if RES
	li	t0, NITEMS			# contiguous: [c*NITEMS/n, (c+1)*NITEMS/n)
	mul	s0, t1, t0
	divu	s0, s0, t2
	addi	t1, t1, 1
	mul	tp, t1, t0
	divu	tp, tp, t2
	li	s3, 1
.else
	mv	s0, t1				# round the cores: c, c + n, ...
	mv	s3, t2
	li	tp, NITEMS
.endif
	mv	gp, s0
	li	t0, ws
	mset	df, t0
	li	t0, ITYPE
	mset	itype, t0
	li	t0, fp32
	mset	atype, t0
.if CAUSAL
	# the mask tile: W[r][x] = -1e30 where x - r > BC, else 0
	li	t0, acc
	vset	smem, t0
	vset	dmem, t0
	li	t0, int32
	vset	type, t0
	li	t0, fp32
	vset	otype, t0
	li	t0, MR
	vset	rows, t0
	li	t0, WCOLS
	vset	len, t0
	li	a0, AC_W
	li	t0, -1
	viota	a0, t0				# x - r
	li	t0, BC
	vsubs	a0, a0, t0
	vmaxs	a0, a0, zero
	li	t0, 1
	vmins	a0, a0, t0			# 1 where hidden, else 0
	vcvt	a0, a0
	li	t0, fp32
	vset	type, t0
	li	t0, f32(-1e30)
	vmuls	a0, a0, t0
.endif
	sig	ctl, KFREE
	sig	ctl, KFREE
	sig	ctl, KFREE
	sig	ctl, KFREE
	sig	ctl, VFREE
	sig	ctl, VFREE
	sig	ctl, VFREE
	sig	ctl, VFREE
	sig	ctl, QFREE
	sig	ctl, QFREE
	sig	ctl, SFREE
	sig	ctl, SFREE
	sig	ctl, PFREE
	sig	ctl, PFREE
	sig	ctl, OFREE
	bge	s0, tp, done
	li	s1, 0				# j
	li	s2, 0				# s: this core's step
	li	s4, 0				# k: this core's item (Q buffer k & 1)
	load_q	s0, zero
	load_kv	s0, s1, zero			# step 0 into slot 0
	mv	s10, s0				# (s10, s11): step 1
	mv	s11, s1
	advance	s10, s11
	hsame	s0, s10
	beqz	a6, pro_1
	li	s9, 1
	load_kv	s10, s11, s9			# step 1 into slot 1
pro_1:
	scale_q	s0, zero
	li	ra, 0
	li	sp, 0
	mm_s	s0, s1, zero, zero, zero, 0	# S of step 0
step:
	# (s6, s7) = step s + 1, (s10, s11) = step s + 2; s9 = the item
	# count k of step s + 1
	mv	s6, s0
	mv	s7, s1
	advance	s6, s7
	mv	s10, s6
	mv	s11, s7
	advance	s10, s11
	mv	s9, s4
	bnez	s7, st_k
	addi	s9, s9, 1			# step s + 1 starts the next item
st_k:
	andi	s9, s9, 1			# Q buffer of step s + 1
	# the next item's Q, at this item's first step
	bnez	s1, st_q
	add	s5, s0, s3
	addi	s8, s4, 1
	andi	s8, s8, 1
	load_q	s5, s8
st_q:
	# K^T and V of step s + 2 (resident: not across a change of head,
	# whose tiles load after the switch below)
	hsame	s0, s10
	beqz	a6, st_l
	addi	s5, s2, 2
	andi	s5, s5, 3
	load_kv	s10, s11, s5
st_l:
	andi	s8, s2, 1
	softmax	s0, s1, s8			# step s, up to the row sums
	bge	s6, tp, st_v
	hsame	s0, s6
	beqz	a6, st_v			# a new head: S of s + 1 after the switch
	next_s	1
st_v:
	andi	s8, s2, 1
	softmax_p s0, s1, s8, s8
	andi	s5, s2, 3
	andi	s8, s2, 1
	mm_pv	s0, s1, s5, s8, s10, s11, s2
	item	s0
	jlast
	bne	s1, t5, st_f
	final	s0
	addi	s4, s4, 1
st_f:
	# resident, at a change of head: drain every unit (the old head's
	# tiles are free), load the new head's first tiles, then S of s + 1
	bge	s6, tp, st_n
	hsame	s0, s6
	bnez	a6, st_n
	fence	all
	load_kv	s6, s7, zero
	hsame	s6, s10
	beqz	a6, st_w
	load_kv	s10, s11, zero
st_w:
	next_s	0
st_n:
	mv	s0, s6
	mv	s1, s7
	addi	s2, s2, 1
	blt	s0, tp, step
done:
	fence	all
	barrier
	rend	attention
	halt
