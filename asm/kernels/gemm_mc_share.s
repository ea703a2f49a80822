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

.include "lib/gemm_mc.inc"	# M, K, N, ROWS, COLS; the shared macros
.ifndef MCAST
.equ MCAST, 0
.endif

# DRAM layout: A, then B, then C (64-byte aligned), shared by every core
# (the bases A_DRAM, B_DRAM, C_DRAM can be moved: lib/dram.inc).
.include "lib/dram.inc"
	dram_base A_DRAM, 0
	dram_base B_DRAM, (A_DRAM + M*K + 63) & ~63
	dram_base C_DRAM, (B_DRAM + K*N + 63) & ~63
	gemm_mc_layout gemm_mc_share.s

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
	gemm_mc_rows shared
	sig	dma0, 0
shared:
	fence	dma1			# my slice has landed in every core ...
	barrier				# ... and everyone's in mine
	li	t0, M
	bge	s3, t0, sync
	wait	mtx, 0, 1		# my rows of A landed

	gemm_mc_matmul

sync:
	fence	all			# my stores have landed ...
	barrier				# ... and everyone else's
	halt
