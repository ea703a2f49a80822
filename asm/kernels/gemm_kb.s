# gemm_kb.s - C[M x N] = act(A[M x K] * B[K x N] + bias) for any K, output
# stationary with K blocked: the GEMM gemm_os.s cannot hold (a deep K whose
# A tiles and B panels do not fit the scratchpad).
#
# The partial sums of a group of G C tiles stay in the accumulator while K
# streams through in chunks of KB rows; each chunk of B (KB rows of NBK
# columns) is loaded once per group and double-buffered, each A tile's
# chunk once per chunk, also double-buffered:
#
#   for every column block (NBK columns) and group of G tiles of ROWS rows:
#     for every K chunk kc:
#       dma1  B chunk kc+1 of the block into the other B buffer (one ahead)
#       for every tile t of the group:
#         dma0  A chunk of the next (t, kc) into the other A buffer
#         mtx   one fold per panel: C[t, panel] (+)= A_t,kc^T x B_kc,panel
#               (mmul for the first chunk, mmacc after)
#     mtx   each tile of the group through the output stage (mout)
#     dma1  stores them
#
# B is read once per group: its DRAM traffic is K*N*(M / (G*ROWS)) - the
# accumulator's size (G tiles of partial sums) decides the arithmetic
# intensity of a deep-K GEMM, which is why gemm_os.s (no partial sums) is
# the kernel of choice whenever its panels fit.
#
# Layouts as gemm_os.s: tensor AT (T = ceil(M/ROWS) tiles of K x ROWS, the
# transposed tiles of A, `gemmref tilet`), B row-major K x N, C row-major
# M x N, BIAS N values of the accumulator type.
# Footprint: scratchpad 2*KB*ROWS*e + 2*KB*NBK*e + 2*ROWS*NBK*o (+ 4*N),
# accumulator G*ROWS*NBK*4.  Defaults: NBK = min(N, 4 panels), G the tiles
# whose sums fit the accumulator, KB the deepest chunk that fits.
# Parameters: M, K, N, ITYPE (int8; int4, fp8e4m3, fp8e5m2, fp16, bf16),
# OUT (int32/int8 for integer inputs, fp32/bf16/fp16 for float ones,
# always through the output stage), SHIFT (8), WITH_BIAS, ACT, KB, NBK, G;
# ROWS, COLS from the config (lib/gemm_types.inc).

.ifndef M
.equ M, 256
.endif
.ifndef K
.equ K, 4096
.endif
.ifndef N
.equ N, 128
.endif
.include "lib/gemm_types.inc"
.ifndef NBK
.equ NBK, (NPANELS < 4 ? NPANELS : 4)*COLS
.endif
.if NBK < COLS || NBK % COLS
.error "gemm_kb.s: NBK must be a multiple of COLS"
.endif
.equ NPB, NBK / COLS
.equ NBLK, (N + NBK - 1) / NBK
# G: C tiles whose partial sums fit the accumulator at once
.ifndef G
.equ G_A, CFG_CORE_ACCUMULATOR_BYTES / (ROWS*NBK*4)
.equ G, G_A < T ? G_A : T
.endif
.if G < 1
.error "gemm_kb.s: not even one C tile of ROWS x NBK int32 fits the accumulator (lower NBK)"
.endif
.equ NGRP, (T + G - 1) / G
.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
.equ O_BUF, ROWS*NBK*CB
.equ SPM_FIX, 4*PERIOD + 2*O_BUF + 4*N*WITH_BIAS + 256
# KB: the deepest chunk (a multiple of 64 rows) whose two A and two B
# buffers fit
.ifndef KB
.equ KB_S, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX) / (2*ARB + 2*NPB*BRB) / 64 * 64
.equ KB, KB_S < K ? KB_S : K
.endif
.if KB < 1
.error "gemm_kb.s: not even 64 rows of K fit the scratchpad (lower NBK)"
.endif
.equ NKC, (K + KB - 1) / KB		# K chunks; the last has KBL rows
.equ KBL, K - (NKC - 1)*KB
.equ A_BUF, (KB*ARB + PERIOD - 1) / PERIOD * PERIOD
.equ PANEL, (KB*BRB + PERIOD - 1) / PERIOD * PERIOD
.equ B_BUF, NPB*PANEL
.equ SPM_B, 2*A_BUF + PERIOD / 2	# B buffer 0; 1 at + B_BUF
.equ SPM_O, (SPM_B + 2*B_BUF + 63) & ~63
.equ SPM_PAR, (SPM_O + 2*O_BUF + 63) & ~63
.if SPM_PAR + 4*N*WITH_BIAS > CFG_CORE_SCRATCHPAD_BYTES
.error "gemm_kb.s: the A, B and output buffers exceed core.scratchpad.bytes (lower KB or NBK)"
.endif
.equ C_TILE, ROWS*NBK*4
.if G*C_TILE > CFG_CORE_ACCUMULATOR_BYTES
.error "gemm_kb.s: G tiles of partial sums exceed core.accumulator.bytes"
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base AT_DRAM, 0
	dram_base B_DRAM, (AT_DRAM + T*K*ARB + 63) & ~63
	dram_base BIAS_DRAM, (B_DRAM + K*N*EBITS/8 + 63) & ~63
	dram_base C_DRAM, (BIAS_DRAM + 4*N + 63) & ~63
.tensor AT, dram, AT_DRAM, ITYPE, T, K, ROWS
.tensor B, dram, B_DRAM, ITYPE, K, N
.if WITH_BIAS
.tensor BIAS, dram, BIAS_DRAM, ATYPE, N
.endif
.tensor C, dram, C_DRAM, OUT, M, N

.equ AFULL, 0		# +b: A buffer b landed
.equ AFREE, 2		# +b: mtx is done with A buffer b
.equ BFULL, 4		# +b: B buffer b landed
.equ BFREE, 6		# +b: mtx is done with B buffer b
.equ OFULL, 8		# +b: Y buffer b holds a finished tile
.equ OFREE, 10		# +b: its store is done

.include "lib/cdesc.inc"

# Step s0 = ((block*NGRP + group)*NKC + chunk)*G + slot -> s8 block, s9
# group, s10 chunk, s11 slot; a1 = the tile (group*G + slot, may be >= T
# in the last group: no work), a2 = the chunk's rows.
.macro step reg
	li	t1, G
	remu	s11, \reg, t1
	divu	t2, \reg, t1
	li	t1, NKC
	remu	s10, t2, t1
	divu	t2, t2, t1
	li	t1, NGRP
	remu	s9, t2, t1
	divu	s8, t2, t1
	li	t1, G
	mul	a1, s9, t1
	add	a1, a1, s11
	li	a2, KB
	li	t1, NKC - 1
	bne	s10, t1, st\@
	li	a2, KBL
st\@:
.endm

# The block's columns s8 -> a3 (and its panels a4).
.macro block_cols
	li	t1, NBK
	mul	a3, s8, t1
	li	t1, N
	sub	a3, t1, a3
	li	t1, NBK
	bge	t1, a3, bc\@
	mv	a3, t1
bc\@:
	addi	a4, a3, COLS - 1
	li	t1, COLS
	divu	a4, a4, t1
.endm

# A chunk of step REG (tile a1, chunk s10, a2 rows) into A buffer b (dma0).
.macro load_a reg, b
	step	\reg
	li	t1, T
	bge	a1, t1, la\@			# past the last tile: nothing
	wait	dma0, AFREE + (\b), 1
	li	t1, K*ARB
	mul	t4, a1, t1
	li	t1, KB*ARB
	mul	t3, s10, t1
	add	t4, t4, t3
	li	t1, AT_DRAM
	add	t4, t4, t1
	li	t3, (\b)*A_BUF
	li	t1, ARB
	mul	t2, a2, t1			# bytes
	li	t1, 1
	cdesc	t4, t3, dram, spm, 1, 1, 0, 0, t1, 0, 0
	dset	n0, t2
	dma	0
	sig	dma0, AFULL + (\b)
la\@:
.endm

# B chunk of step REG's (block, chunk) into B buffer b (dma1): per panel
# a2 rows of its columns.
.macro load_b reg, b
	step	\reg
	block_cols
	wait	dma1, BFREE + (\b), 1
	li	t1, KB*N*EBITS/8
	mul	t4, s10, t1
	li	t1, NBK*EBITS/8
	mul	t3, s8, t1
	add	t4, t4, t3
	li	t1, B_DRAM
	add	t4, t4, t1
	li	t3, SPM_B + (\b)*B_BUF
	mv	s2, a4
	mv	s3, a3				# columns left
bp\@:
	li	t1, COLS
	mv	s4, s3
	bge	t1, s3, bq\@
	mv	s4, t1
bq\@:
.if EBITS == 4
	srli	t0, s4, 1
.elif EBITS == 16
	slli	t0, s4, 1
.else
	mv	t0, s4
.endif
	mv	t6, t0
	cdesc	t4, t3, dram, spm, 1, 1, 0, 0, a2, N*EBITS/8, BRB
	dset	n0, t6				# the panel's bytes per row
	dma	1
	addi	t4, t4, BRB
	li	t1, PANEL
	add	t3, t3, t1
	sub	s3, s3, s4
	dbnz	s2, bp\@
	sig	dma1, BFULL + (\b)
.endm

# Step s0 with A buffer ab: prefetch, fold, and at a group's last chunk
# and slot, the output stage and stores of the group.
.macro stepm ab
	addi	t6, s0, 1			# the next step's A chunk
	li	t1, NBLK*NGRP*NKC*G
	bge	t6, t1, na\@
	load_a	t6, 1 - (\ab)
na\@:
	# at the first slot of a chunk, the next chunk's B (one ahead)
	step	s0
	bne	s11, zero, nx\@
	addi	t6, s0, G
	li	t1, NBLK*NGRP*NKC*G
	bge	t6, t1, nx\@
	li	t1, G
	divu	t5, t6, t1
	andi	t5, t5, 1
	beq	t5, zero, nb0\@
	load_b	t6, 1
	j	nx\@
nb0\@:
	load_b	t6, 0
nx\@:
	step	s0
	block_cols
	li	t1, G
	divu	t5, s0, t1
	andi	s5, t5, 1			# this chunk's B buffer
	li	t1, T
	bge	a1, t1, skip\@			# a slot past the last tile
	mset	k, a2
	wait	mtx, AFULL + (\ab), 1
	bne	s11, zero, wb\@
	bne	s5, zero, wb1\@
	wait	mtx, BFULL + 0, 1
	j	wb\@
wb1\@:
	wait	mtx, BFULL + 1, 1
wb\@:
	li	t3, (\ab)*A_BUF
	li	t1, C_TILE
	mul	t4, s11, t1			# C tile of the slot
	li	t1, B_BUF
	mul	t5, s5, t1
	li	t1, SPM_B
	add	t5, t5, t1
	mv	s2, a4
	li	t0, COLS
	mset	n, t0
fd\@:
	li	t1, 1
	bne	s2, t1, fl\@
	addi	t1, a4, -1			# the last panel: its columns
	li	t0, COLS
	mul	t1, t1, t0
	sub	t0, a3, t1
	mset	n, t0
fl\@:
	bne	s10, zero, fa\@
	mmulp	t4, t3, t5
	j	fn\@
fa\@:
	mmaccp	t4, t3, t5
fn\@:
	dbnz	s2, fd\@
	sig	mtx, AFREE + (\ab)
skip\@:
	# the last slot of a chunk (a short group's too) releases its B
	li	t1, G - 1
	bne	s11, t1, nr\@
	bne	s5, zero, nr1\@
	sig	mtx, BFREE + 0
	j	nr\@
nr1\@:
	sig	mtx, BFREE + 1
nr\@:
	# the last slot of a last chunk (or of the last, short group): the
	# group's tiles through the output stage, one Y buffer at a time
	li	t1, NKC - 1
	bne	s10, t1, done\@
	li	t1, G - 1
	bne	s11, t1, done\@
	li	s6, 0				# slot
ot\@:
	li	t1, G
	mul	a1, s9, t1
	add	a1, a1, s6			# tile
	li	t1, T
	bge	a1, t1, done\@
	andi	s7, s6, 1			# Y buffer
	bne	s7, zero, oy1\@
	wait	mtx, OFREE + 0, 1
	j	oy\@
oy1\@:
	wait	mtx, OFREE + 1, 1
oy\@:
	mset	n, a3
.if WITH_BIAS
	li	t1, NBK*4
	mul	t1, s8, t1
	li	t0, SPM_PAR
	add	t1, t1, t0
	mset	opar, t1
.endif
	li	t1, C_TILE
	mul	t4, s6, t1
	li	t1, O_BUF
	mul	t3, s7, t1
	li	t1, SPM_O
	add	t3, t3, t1
	mout	t3, t4
	bne	s7, zero, os1\@
	sig	mtx, OFULL + 0
	wait	dma1, OFULL + 0, 1
	j	os\@
os1\@:
	sig	mtx, OFULL + 1
	wait	dma1, OFULL + 1, 1
os\@:
	# store rows a1*ROWS .. (ML in the last tile), a3 columns
	li	t1, ROWS*N*CB
	mul	t2, a1, t1
	li	t1, NBK*CB
	mul	t1, s8, t1
	add	t2, t2, t1
	li	t1, C_DRAM
	add	t2, t2, t1
	li	t6, ROWS
	li	t1, T - 1
	bne	a1, t1, fr\@
	li	t6, ML
fr\@:
	cdesc	t3, t2, spm, dram, 1, 1, 0, 0, t6, NBK*CB, N*CB
	li	t1, CB
	mul	t0, a3, t1
	dset	n0, t0				# bytes per row
	dma	1
	bne	s7, zero, of1\@
	sig	dma1, OFREE + 0
	j	of\@
of1\@:
	sig	dma1, OFREE + 1
of\@:
	addi	s6, s6, 1
	li	t1, G
	blt	s6, t1, ot\@
done\@:
	addi	s0, s0, 1
.endm

.text
	rbeg	gemm_kb
	li	t0, os
	mset	df, t0
	li	t0, ITYPE
	mset	itype, t0
	li	t0, ATYPE
	mset	atype, t0
	li	t0, ROWS
	mset	m, t0
	li	t0, ARB
	mset	sa, t0
	li	t0, BRB
	mset	sb, t0
	li	t0, NBK*4
	mset	sc, t0
	li	t0, COLS*4
	mset	ic, t0				# mmulp/mmaccp: next C panel
	li	t0, PANEL
	mset	ib, t0				# next B panel
	gemm_ostage NBK*CB
.if WITH_BIAS
	li	t1, 1
	li	t3, BIAS_DRAM
	li	t4, SPM_PAR
	cdesc	t3, t4, dram, spm, 4*N, 1, 0, 0, t1, 0, 0
	dma	1
.endif
	sig	ctl, AFREE + 0
	sig	ctl, AFREE + 1
	sig	ctl, BFREE + 0
	sig	ctl, BFREE + 1
	sig	ctl, OFREE + 0
	sig	ctl, OFREE + 1
	li	s0, 0
	load_b	s0, 0
	li	s0, 0
	load_a	s0, 0
	li	s0, 0
loop:
	stepm	0
	li	t1, NBLK*NGRP*NKC*G
	bge	s0, t1, end
	stepm	1
	li	t1, NBLK*NGRP*NKC*G
	blt	s0, t1, loop
end:
	fence	all
	rend	gemm_kb
	halt
