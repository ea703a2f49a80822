# eltwise.s - elementwise operators over ROWS x L elements of DT (fp32,
# bf16 or fp16), streamed through the vector unit:
#   OP 0  Z = silu(X) * Y + R (a gated MLP's activation with its residual),
#         fused (FUSED=1, the default) or as the three separate elementwise
#         kernels a framework without fusion runs (FUSED=0): T1 = silu(X),
#         T2 = T1 * Y, Z = T2 + R, each through DRAM
#   OP 1  Z = silu(X)          OP 2  Z = gelu(X) (vgelu: the tanh form)
#   OP 3  Z = relu(X + B), B one row of L (a bias per column: vset bc 2)
#   OP 4  Z = X + R (residual)  OP 5  Z = X * Y
# Every operation runs in the element type (fp32 arithmetic, rounded into
# DT: docs/numerics.md), so bf16 and fp16 need no conversion passes.
#
# Each pass streams blocks of RB rows with double buffers on dma0 (loads)
# and dma1 (stores), one block ahead, blocks dealt round the cores:
#   fused chain  load X, Y, R; vsilu, vmul, vadd; store Z   (4 N x ES bytes)
#   unfused      pass 1: load X; vsilu; store T1              (2 N x ES)
#                pass 2: load T1, Y; vmul; store T2           (3 N x ES)
#                pass 3: load T2, R; vadd; store Z            (3 N x ES)
# so fusion moves half the DRAM bytes (16 N against 32 N for fp32) -
# docs/kernels.md has both measured.
# Layouts: DRAM X, Y, R, Z (and T1, T2) as ROWS x L of DT, B 1 x L of DT.
# Scratchpad: per buffer up to three RB x L input tiles, the B row.
# Footprint: 6*ES*RB*L + ES*L bytes (+ alignment); RB defaults to what
# fits.  Parameters: ROWS, L (256), OP, DT, FUSED, RB.

.ifndef ROWS
.equ ROWS, 64
.endif
.ifndef L
.equ L, 256
.endif
.ifndef FUSED
.equ FUSED, 1
.endif
.ifndef OP
.equ OP, 0
.endif
.if OP < 0 || OP > 5
.error "eltwise.s: OP is 0 (silu(X)*Y+R), 1 silu, 2 gelu, 3 relu(X+B), 4 X+R or 5 X*Y"
.endif
.ifndef DT
.equ DT, fp32
.endif
.if DT != fp32 && DT != bf16 && DT != fp16
.error "eltwise.s: DT is fp32, bf16 or fp16"
.endif
.equ NROWS, ROWS
.equ ROWLEN, L
.equ ES, DT == fp32 ? 4 : 2		# bytes per element
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - 1024 - ES*L) / (6*ES*L)
.include "lib/rb.inc"
.if RB < 1
.error "eltwise.s: not even one row of six L-element tiles fits the scratchpad"
.endif
.equ NB, (ROWS + RB - 1) / RB
.equ TILE, (ES*RB*L + 255) & ~255
.equ BUF, 3*TILE			# a buffer: up to three input tiles
.equ SP_B, 2*BUF			# the B row (OP 3)
.equ SZ, ES*ROWS*L

.equ X_DRAM, 0
.equ Y_DRAM, (X_DRAM + SZ + 63) & ~63
.equ R_DRAM, (Y_DRAM + SZ + 63) & ~63
.equ Z_DRAM, (R_DRAM + SZ + 63) & ~63
.equ T1_DRAM, (Z_DRAM + SZ + 63) & ~63
.equ T2_DRAM, (T1_DRAM + SZ + 63) & ~63
.equ B_DRAM, (T2_DRAM + SZ + 63) & ~63
.tensor X, dram, X_DRAM, DT, ROWS, L
.if OP == 0 || OP == 5
.tensor Y, dram, Y_DRAM, DT, ROWS, L
.endif
.if OP == 0 || OP == 4
.tensor R, dram, R_DRAM, DT, ROWS, L
.endif
.tensor Z, dram, Z_DRAM, DT, ROWS, L
.if OP == 3
.tensor B, dram, B_DRAM, DT, 1, L
.endif

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
	li	t1, ES*L
	mul	t4, s1, t1
	li	t1, \base
	add	t4, t4, t1
	li	t3, (\b)*BUF + (\k)*TILE
	li	t1, ES*L
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
# 4 = silu(t0) * t1 + t2; 6 = gelu(t0); 7 = relu(t0 + B).  The result in
# tile 0, stored to OUT.
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
.if \ops == 6
	vgelu	a0, a0
.endif
.if \ops == 7
	li	t0, 2
	vset	bc, t0				# B: one row for every row
	li	a1, SP_B
	vadd	a0, a0, a1
	vset	bc, zero
	vmaxs	a0, a0, zero			# relu (0 has zero bits in DT)
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
	li	t0, DT
	vset	type, t0
	vset	otype, t0
.if OP == 3
	# the bias row, once (dma0; its loads are in order)
	li	t4, B_DRAM
	li	t3, SP_B
	li	t2, ES*L
	li	t1, 1
	cdesc	t4, t3, dram, spm, 1, 1, 0, 0, t1, 0, 0
	dset	n0, t2
	dma	0
	fence	dma0
.endif
	sig	ctl, LFREE + 0
	sig	ctl, LFREE + 1
.if OP == 0
.if FUSED
	pass	X_DRAM, Y_DRAM, R_DRAM, 4, Z_DRAM
.else
	pass	X_DRAM, 0, 0, 1, T1_DRAM
	pass	T1_DRAM, Y_DRAM, 0, 2, T2_DRAM
	pass	T2_DRAM, R_DRAM, 0, 3, Z_DRAM
.endif
.elif OP == 1
	pass	X_DRAM, 0, 0, 1, Z_DRAM
.elif OP == 2
	pass	X_DRAM, 0, 0, 6, Z_DRAM
.elif OP == 3
	pass	X_DRAM, 0, 0, 7, Z_DRAM
.elif OP == 4
	pass	X_DRAM, R_DRAM, 0, 3, Z_DRAM
.else
	pass	X_DRAM, Y_DRAM, 0, 2, Z_DRAM
.endif
	barrier
	rend	eltwise
	halt
