# eltwise.s - Z = silu(X) * Y + R over N fp32 elements (a gated MLP's
# activation with its residual), fused (FUSED=1, the default) or as the
# three separate elementwise kernels a framework without fusion runs
# (FUSED=0): T1 = silu(X), T2 = T1 * Y, Z = T2 + R, each through DRAM.
#
# Both stream blocks of RB rows of L elements through the vector unit
# with double buffers on dma0 (loads) and dma1 (stores), one block ahead:
#   fused       load X, Y, R; vsilu, vmul, vadd; store Z     (4 N x 4 bytes)
#   unfused     pass 1: load X; vsilu; store T1                (2 N x 4)
#               pass 2: load T1, Y; vmul; store T2             (3 N x 4)
#               pass 3: load T2, R; vadd; store Z              (3 N x 4)
# so fusion moves half the DRAM bytes (16 N against 32 N) - docs/kernels.md
# has both measured.
# Layouts: DRAM X, Y, R, Z (and T1, T2) as R_ROWS x L fp32.  Scratchpad:
# per buffer up to three RB x L input tiles.  Footprint: 24*RB*L bytes;
# RB defaults to what fits.  Parameters: ROWS, L (256), FUSED, RB.

.ifndef ROWS
.equ ROWS, 64
.endif
.ifndef L
.equ L, 256
.endif
.ifndef FUSED
.equ FUSED, 1
.endif
.equ NROWS, ROWS
.equ ROWLEN, L
.equ ES, 4				# bytes per element
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - 1024) / (24*L)
.include "lib/rb.inc"
.if RB < 1
.error "eltwise.s: not even one row of six L-element fp32 tiles fits the scratchpad"
.endif
.equ NB, (ROWS + RB - 1) / RB
.equ TILE, (4*RB*L + 255) & ~255
.equ BUF, 3*TILE			# a buffer: up to three input tiles
.equ SZ, 4*ROWS*L

.equ X_DRAM, 0
.equ Y_DRAM, (X_DRAM + SZ + 63) & ~63
.equ R_DRAM, (Y_DRAM + SZ + 63) & ~63
.equ Z_DRAM, (R_DRAM + SZ + 63) & ~63
.equ T1_DRAM, (Z_DRAM + SZ + 63) & ~63
.equ T2_DRAM, (T1_DRAM + SZ + 63) & ~63
.tensor X, dram, X_DRAM, fp32, ROWS, L
.tensor Y, dram, Y_DRAM, fp32, ROWS, L
.tensor R, dram, R_DRAM, fp32, ROWS, L
.tensor Z, dram, Z_DRAM, fp32, ROWS, L

.equ LFULL, 0		# +b: buffer b's inputs loaded (dma0 -> vec)
.equ LFREE, 2		# +b: buffer b stored (dma1 -> dma0)
.equ SFULL, 4		# +b: buffer b computed (vec -> dma1)

.include "lib/cdesc.inc"

# Rows of block REG: s1 = first row, s2 = its rows.
.macro rows_of reg
	li	t1, RB
	mul	s1, \reg, t1
	li	t1, ROWS
	sub	s2, t1, s1
	li	t1, RB
	bge	t1, s2, ro\@
	mv	s2, t1
ro\@:
.endm

# Rows s1 .. s1+s2 of the DRAM tensor at BASE into tile K of buffer b
# (dma0), or tile 0 of buffer b to the tensor at BASE (dma1).
.macro move base, b, k, store=0
	li	t1, 4*L
	mul	t4, s1, t1
	li	t1, \base
	add	t4, t4, t1
	li	t3, (\b)*BUF + (\k)*TILE
	li	t1, 4*L
	mul	t2, s2, t1
	li	t1, 1
.if \store
	cdesc	t3, t4, spm, dram, 1, 1, 0, 0, t1, 0, 0
	dset	n0, t2
	dma	1
.else
	cdesc	t4, t3, dram, spm, 1, 1, 0, 0, t1, 0, 0
	dset	n0, t2
	dma	0
.endif
.endm

# Load block REG's inputs IN1 (IN2, IN3: 0 = none) into buffer b.
.macro load reg, b, in1, in2, in3
	rows_of	\reg
	wait	dma0, LFREE + (\b), 1
	move	\in1, \b, 0
.if \in2
	move	\in2, \b, 1
.endif
.if \in3
	move	\in3, \b, 2
.endif
	sig	dma0, LFULL + (\b)
.endm

# Block s0 of a pass: OPS 1 = silu(t0); 2 = t0 * t1; 3 = t0 + t1;
# 4 = silu(t0) * t1 + t2.  The result in tile 0, stored to OUT.
.macro block b, in1, in2, in3, ops, out
	add	t6, s0, s7
	bge	t6, s8, nl\@
	load	t6, 1 - (\b), \in1, \in2, \in3
nl\@:
	rows_of	s0
	wait	vec, LFULL + (\b), 1
	vset	rows, s2
	li	t0, L
	vset	len, t0
	li	a0, (\b)*BUF
	li	a1, (\b)*BUF + TILE
	li	a2, (\b)*BUF + 2*TILE
.if \ops == 1 || \ops == 4
	vsilu	a0, a0
.endif
.if \ops == 2 || \ops == 4
	vmul	a0, a0, a1
.endif
.if \ops == 3
	vadd	a0, a0, a1
.endif
.if \ops == 4
	vadd	a0, a0, a2
.endif
	sig	vec, SFULL + (\b)
	wait	dma1, SFULL + (\b), 1
	move	\out, \b, 0, 1
	sig	dma1, LFREE + (\b)
	add	s0, s0, s7
.endm

# One streamed pass over this core's blocks c, c + n, ... below NB (SPMD:
# core c of n, block-cyclic as lib/rows.inc explains; every pass gives a
# core the same rows).
.macro pass in1, in2, in3, ops, out
	csrr	s0, coreid
	csrr	s7, ncores
	li	s8, NB
	bge	s0, s8, pd\@
	load	s0, 0, \in1, \in2, \in3
pl\@:
	block	0, \in1, \in2, \in3, \ops, \out
	bge	s0, s8, pd\@
	block	1, \in1, \in2, \in3, \ops, \out
	blt	s0, s8, pl\@
pd\@:
	fence	all				# the next pass reads what it wrote
.endm

.text
	rbeg	eltwise
	li	t0, fp32
	vset	type, t0
	vset	otype, t0
	sig	ctl, LFREE + 0
	sig	ctl, LFREE + 1
.if FUSED
	pass	X_DRAM, Y_DRAM, R_DRAM, 4, Z_DRAM
.else
	pass	X_DRAM, 0, 0, 1, T1_DRAM
	pass	T1_DRAM, Y_DRAM, 0, 2, T2_DRAM
	pass	T2_DRAM, R_DRAM, 0, 3, Z_DRAM
.endif
	barrier
	rend	eltwise
	halt
