# gemm_mc_share.s - SPMD multi-core GEMM sharing B over the NoC:
# C[M x N] (int32) = A[M x K] (int8) * B[K x N] (int8)
#
# The successor of gemm_mc.s.  There every core reads all of B from DRAM;
# here B is read from DRAM once and shared between the cores over the
# network, as weight broadcast does on real multi-core NPUs:
#
#   dma1  loads the core's slice of B, rows [c*KB, min(K, c*KB + KB)),
#         KB = ceil(K / n), DRAM -> its scratchpad at SPM_B + c*KB*N, then
#         copies that slice into the same place of every other core's
#         scratchpad (dmem rspm, dcore j; cores j = c+1, c+2, ... mod n, so
#         the copies spread over the network), in the same queue: the
#         copies start once the load has landed.  With -D MCAST=1 the n-1
#         copies are one multicast descriptor (dset dmask = every core but
#         this one), replicated where noc.multicast says (docs/noc.md)
#   dma0  loads the core's rows of A (as gemm_mc.s), signals semaphore 0
#   ctl   fence dma1 (my slice has landed everywhere), barrier (everyone's
#         has: all of B is in every scratchpad)
#   mtx   waits for A, walks the folds, signals semaphore 1
#   dma0  writes the core's rows of C back to DRAM
#
# then `fence all` and `barrier`, and halt.  DRAM reads: A once and B once
# (gemm_mc.s: B once per core); the network carries (n - 1) copies of B
# between the cores instead.  Rows of C and slices of B are disjoint, and
# the barrier orders every remote write before any read of B, so
# `--check-hazards` reports nothing.  Same parameters and footprint as
# gemm_mc.s; docs/noc.md has the 1/4/16-core table.

.ifndef M
.equ M, 128
.endif
.ifndef K
.equ K, 64
.endif
.ifndef N
.equ N, 64
.endif
.ifndef MCAST
.equ MCAST, 0
.endif
.ifndef ROWS
.equ ROWS, CFG_CORE_MATRIX_ROWS	# the config's array (npusim run -c, as -c)
.endif
.ifndef COLS
.equ COLS, CFG_CORE_MATRIX_COLS
.endif

# DRAM layout: A, then B, then C (64-byte aligned), shared by every core
# (the bases A_DRAM, B_DRAM, C_DRAM can be moved: lib/dram.inc).
.include "lib/dram.inc"
	dram_base A_DRAM, 0
	dram_base B_DRAM, (A_DRAM + M*K + 63) & ~63
	dram_base C_DRAM, (B_DRAM + K*N + 63) & ~63
.tensor A, dram, A_DRAM, int8, M, K
.tensor B, dram, B_DRAM, int8, K, N
.tensor C, dram, C_DRAM, int32, M, N

# On-chip layout of each core: B (K x N), then its rows of A (MT x K);
# its rows of C (MT x N int32) at the bottom of the accumulator.
.equ SPM_B, 0
.equ SPM_A, (K*N + 127) & ~127
.equ ACC_C, 0

# The footprint of the core with the most rows (ceil(M / cores)), checked
# against the config assembled for (CFG_*).
.equ MT_MAX, (M + CFG_CHIP_CORES - 1) / CFG_CHIP_CORES
.if SPM_A + MT_MAX*K > CFG_CORE_SCRATCHPAD_BYTES
.error "gemm_mc_share.s needs K*N + ceil(M/cores)*K bytes of scratchpad per core, more than core.scratchpad.bytes"
.endif
.if MT_MAX*N*4 > CFG_CORE_ACCUMULATOR_BYTES
.error "gemm_mc_share.s needs ceil(M/cores)*N*4 bytes of accumulator per core, more than core.accumulator.bytes"
.endif

# 1-D copy of the byte/element count in register CNT from register SRC
# (memory SMEM) to register DST (memory DMEM), elements of ESIZE bytes, on
# DMA engine ENG.  Dimensions 1-3 are never set, so they stay 1.
.macro copy eng, src, dst, smem, dmem, esize, cnt
	li	t0, \smem
	dset	smem, t0
	li	t0, \dmem
	dset	dmem, t0
	li	t0, \esize
	dset	esize, t0
	dset	src, \src
	dset	dst, \dst
	dset	n0, \cnt
	dma	\eng
.endm

.text
	csrr	s0, coreid
	csrr	s1, ncores

	# ---- my slice of B: DRAM -> my scratchpad -> every other core ----
	li	t0, K			# KB = ceil(K / ncores)
	add	t0, t0, s1
	addi	t0, t0, -1
	divu	s9, t0, s1
	mul	s10, s0, s9		# k0 = coreid * KB
	li	t0, K
	bge	s10, t0, rows		# no slice left for this core
	sub	t1, t0, s10
	min	s11, s9, t1		# kb = min(KB, K - k0)
	li	t0, N
	mul	t1, s10, t0		# k0*N: the slice's offset in B and SPM_B
	mul	t3, s11, t0		# kb*N bytes
	li	t0, B_DRAM
	add	t2, t1, t0
	li	t0, SPM_B
	add	t4, t1, t0
	copy	1, t2, t4, dram, spm, 1, t3
.if MCAST
	# one multicast to every other core: dmask = all cores but me
	li	t0, 1
	sll	t5, t0, s1
	addi	t5, t5, -1
	sll	t0, t0, s0
	xor	t5, t5, t0
	beqz	t5, rows		# one core: nobody to share with
	dset	dmask, t5
	copy	1, t4, t4, spm, rspm, 1, t3
	dset	dmask, zero		# dset fields persist: later copies are unicast
.else
	li	s5, 1			# i = 1 .. ncores-1
share:
	bge	s5, s1, rows
	add	t5, s0, s5		# j = (coreid + i) mod ncores
	remu	t5, t5, s1
	dset	dcore, t5
	copy	1, t4, t4, spm, rspm, 1, t3
	addi	s5, s5, 1
	j	share
.endif

rows:
	# ---- my rows of A on dma0 ----
	li	t0, M			# R = ceil(M / ncores)
	add	t0, t0, s1
	addi	t0, t0, -1
	divu	s2, t0, s1
	mul	s3, s0, s2		# m0 = coreid * R
	li	t0, M
	bge	s3, t0, shared		# no rows left for this core
	sub	t1, t0, s3
	min	s4, s2, t1		# MT = min(R, M - m0)
	li	t0, K
	mul	t1, s3, t0		# A + m0*K
	li	t0, A_DRAM
	add	t1, t1, t0
	li	t2, SPM_A
	li	t0, K
	mul	t3, s4, t0		# MT*K bytes
	copy	0, t1, t2, dram, spm, 1, t3
	sig	dma0, 0
shared:
	fence	dma1			# my slice has landed in every core ...
	barrier				# ... and everyone's in mine
	li	t0, M
	bge	s3, t0, sync
	wait	mtx, 0, 1		# my rows of A landed

	# ---- matrix configuration: WS, int8 x int8 -> int32, MT rows ----
	li	t0, ws
	mset	df, t0
	li	t0, int8
	mset	itype, t0
	li	t0, int32
	mset	atype, t0
	li	t0, K			# A: MT rows, K bytes apart
	mset	sa, t0
	li	t0, N			# B: K rows, N bytes apart
	mset	sb, t0
	li	t0, N*4			# C: MT rows, N int32 apart
	mset	sc, t0
	mset	m, s4

	# ---- folds: for n0 step COLS, k0 step ROWS ----
	li	s5, 0			# n0
ntile:
	li	t1, N
	sub	t2, t1, s5
	li	t1, COLS
	min	s7, t2, t1		# nt = min(COLS, N - n0)
	mset	n, s7
	li	s6, 0			# k0
ktile:
	li	t1, K
	sub	t2, t1, s6
	li	t1, ROWS
	min	s8, t2, t1		# kt = min(ROWS, K - k0)
	mset	k, s8
	li	t1, N			# B tile at SPM_B + k0*N + n0
	mul	t2, s6, t1
	add	t2, t2, s5
	li	t1, SPM_B
	add	t2, t2, t1
	mpre	t2
	li	t1, SPM_A		# A columns k0.. at SPM_A + k0
	add	t3, t1, s6
	slli	t4, s5, 2		# C columns n0.. at ACC_C + 4*n0
	li	t1, ACC_C
	add	t4, t4, t1
	bnez	s6, kacc
	mmul	t4, t3, zero		# first k tile overwrites C
	j	knext
kacc:
	mmacc	t4, t3, zero		# later k tiles accumulate
knext:
	addi	s6, s6, ROWS
	li	t1, K
	blt	s6, t1, ktile
	addi	s5, s5, COLS
	li	t1, N
	blt	s5, t1, ntile
	sig	mtx, 1			# my rows of C are complete

	# ---- output: my rows of C, accumulator -> DRAM ----
	wait	dma0, 1, 1
	li	t0, N*4
	mul	t1, s3, t0		# C + m0*N*4
	li	t0, C_DRAM
	add	t1, t1, t0
	li	t2, ACC_C
	li	t0, N
	mul	t3, s4, t0		# MT*N elements of 4 bytes
	copy	0, t2, t1, acc, dram, 4, t3

sync:
	fence	all			# my stores have landed ...
	barrier				# ... and everyone else's
	halt
