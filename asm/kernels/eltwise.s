# eltwise.s - elementwise operators over ROWS x L elements of DT (fp32,
# bf16 or fp16; OP 6 also int8), streamed through the vector unit:
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
#
#   OP 6  the general elementwise layer of a model: Z = act(X bin S)
#     BIN    0 none (Z = act(X)), 1 add, 2 sub (X - S), 3 mul, 4 div
#            (X / S), 5 max, 6 min                  vadd vsub vmul vdiv
#                                                   vmax vmin
#     SMODE  the second operand S: 0 Y, ROWS x L like X; 1 B, one row of
#            L for every row (vset bc 2); 2 C, a column of ROWS values,
#            one per row (ROWS x 1; vset bc 1); 3 the constant SC, as a
#            row of L copies made once with vbcast
#     ACT    0 none; 1 relu; 2 clip to LO .. HI; 3 sigmoid 1/(1 + e^-v)
#            (vneg, vexp, vadds, vrcp); 4 tanh (vtanh); 5 gelu, the erf
#            form of ONNX Gelu and BERT, v/2 (1 + erf(v/sqrt 2)), which
#            the ISA lacks (vgelu is the tanh form): composed from vexp
#            and vrcp with Numerical Recipes' erfc, below; 6 gelu, the
#            tanh form (vgelu); 7 hardswish v max(0, min(1, v/6 + 1/2))
#            with v first raised to -3 (the same values, and -0 rather
#            than -inf * 0 = NaN for -inf); 8 hardsigmoid max(0, min(1,
#            ALPHA v + BETA)); 9 silu (vsilu)
#     DT fp32, bf16, fp16: LO, HI, SC, ALPHA, BETA are fp32 bits (f32()),
#     the arithmetic is fp32; bf16 and fp16 are converted to fp32 on
#     chip (vcvt) and Z rounded once into DT.  Defaults: LO -inf, HI
#     +inf, ALPHA 0.2, BETA 0.5 (ONNX HardSigmoid), SC 0.
#     DT int8 (the residual add of an int8 CNN): BIN 0, 1 or 2, ACT 0, 1
#     or 2 with integer LO .. HI (default -128 .. 127), SC an int8:
#       Z = act(sat8(rne(X / 2^XSH) +- rne(S / 2^YSH)))
#     each operand rescaled by an arithmetic right shift of XSH, YSH
#     bits (0 .. 24, default 0) rounded to nearest even (vquant by 2^k:
#     the division is exact, the rounding RNE), the sum saturated to
#     int8 (the vector unit's integer vadd/vsub saturate).
#   Per block of RB rows (buffer b of two; double-buffered like OPs 0-5):
#     dma0  loads X (and S's rows: Y, or C's RB values) one block ahead
#     vec   (bf16/fp16) vcvt to fp32; (int8) vquant by 2^XSH, 2^YSH;
#           bin, act; (bf16/fp16) vcvt into DT
#     dma1  stores Z
#   B or SC is loaded or made once per core (and converted or rescaled
#   once).  gelu (erf): with z = |v|/sqrt 2, erfc(z) = t exp(-z^2 +
#   P(t)), t = 1/(1 + z/2), P the degree-9 polynomial of W. H. Press et
#   al., Numerical Recipes in C, 2nd ed. (1992), section 6.2, erfcc
#   (fractional error below 1.2e-7 for every z >= 0); then
#   h = v erfc(z)/2 and Z = v - h (v >= 0) or h (v < 0), which keeps the
#   relative accuracy for negative v where Z is tiny; v is clamped to
#   +-64 for h (erfc underflows to 0 long before) so +-inf give +inf and
#   -0.  34 vector instructions per element: vector-bound (docs/numerics.md,
#   docs/kernels_notes.md).
#   Layouts: DRAM X, Z (ROWS x L), Y (ROWS x L), B (1 x L), C (ROWS x 1)
#   of DT at X_DRAM, Z_DRAM, Y_DRAM, B_DRAM, C_DRAM (lib/dram.inc); Z may
#   be X's or Y's buffer (every row is read before it is written, by the
#   core that writes it).  Scratchpad: per buffer an X tile and an S tile
#   (Y: RB x L, C: RB), half a bank period apart; shared fp32 tiles of RB
#   x L: X in fp32 (and Y's, bf16/fp16), 1 (hardswish) or 4 (gelu erf)
#   temporaries; the B / SC row (and its fp32 copy), a zero row (gelu
#   erf).  Footprint: RB * ROWB6 bytes (2 (ES L + S's ES L or ES) + 4 L
#   per fp32 tile) + the rows and alignment (FIX6); RB defaults to what
#   fits (lib/rb.inc).
#   Parameters: ROWS, L, DT, BIN, SMODE, ACT, LO, HI, ALPHA, BETA, SC,
#   XSH, YSH, RB.
.include "lib/eltwise_abi.inc"
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
.equ OP, ELT_OP_SILU_MUL_ADD
.endif
.if OP < 0 || OP > ELT_OP_LAYER
.error "eltwise.s: OP is 0 (silu(X)*Y+R), 1 silu, 2 gelu, 3 relu(X+B), 4 X+R, 5 X*Y or 6 act(X bin S)"
.endif
.ifndef DT
.equ DT, fp32
.endif
.if DT != fp32 && DT != bf16 && DT != fp16 && (DT != int8 || OP != ELT_OP_LAYER)
.error "eltwise.s: DT is fp32, bf16 or fp16 (or int8 with OP 6)"
.endif
.equ NROWS, ROWS
.equ ROWLEN, L
.equ ES, DT == fp32 ? 4 : DT == int8 ? 1 : 2	# bytes per element
.if OP == ELT_OP_LAYER
.ifndef BIN
.equ BIN, ELT_BIN_ADD
.endif
.ifndef SMODE
.equ SMODE, ELT_SMODE_TENSOR
.endif
.ifndef ACT
.equ ACT, ELT_ACT_NONE
.endif
.ifndef XSH
.equ XSH, 0
.endif
.ifndef YSH
.equ YSH, 0
.endif
.ifndef SC
.equ SC, 0
.endif
.ifndef ALPHA
.equ ALPHA, f32(0.2)
.endif
.ifndef BETA
.equ BETA, f32(0.5)
.endif
.ifndef LO
.equ LO, DT == int8 ? -128 : 0xff800000	# -inf
.endif
.ifndef HI
.equ HI, DT == int8 ? 127 : 0x7f800000	# +inf
.endif
.if BIN < 0 || BIN > ELT_BIN_MIN
.error "eltwise.s: BIN is 0 none, 1 add, 2 sub, 3 mul, 4 div, 5 max or 6 min"
.endif
.if SMODE < 0 || SMODE > ELT_SMODE_SCALAR
.error "eltwise.s: SMODE is 0 (Y), 1 (row B), 2 (column C) or 3 (constant SC)"
.endif
.if ACT < 0 || ACT > ELT_ACT_SILU
.error "eltwise.s: ACT is 0 none, 1 relu, 2 clip, 3 sigmoid, 4 tanh, 5 gelu, 6 gelu (tanh form), 7 hardswish, 8 hardsigmoid or 9 silu"
.endif
.if DT == int8 && (BIN > ELT_BIN_SUB || ACT > ELT_ACT_CLIP)
.error "eltwise.s: int8 takes BIN 0, 1, 2 (none, add, sub) and ACT 0, 1, 2 (none, relu, clip)"
.endif
.if DT == int8 && (LO < -128 || HI > 127 || LO > HI || SC < -128 || SC > 127)
.error "eltwise.s: int8 needs -128 <= LO <= HI <= 127 and SC in -128 .. 127"
.endif
.if DT != int8 && (XSH != 0 || YSH != 0)
.error "eltwise.s: XSH and YSH rescale int8 operands only"
.endif
.if XSH < 0 || XSH > 24 || YSH < 0 || YSH > 24
.error "eltwise.s: XSH and YSH are right shifts of 0 .. 24 bits"
.endif
.equ NARROW, DT == bf16 || DT == fp16	# computed in fp32
.equ HASS, BIN != ELT_BIN_NONE		# a second operand
.equ STILE, HASS && SMODE == ELT_SMODE_TENSOR	# S as a tile of the block's shape (Y)
.equ SCOL, HASS && SMODE == ELT_SMODE_COLUMN	# S as a column (C)
.equ SROW, HASS && (SMODE == ELT_SMODE_ROW || SMODE == ELT_SMODE_SCALAR)	# S as a row (B, SC)
.equ NTMP, ACT == ELT_ACT_GELU ? 4 : ACT == ELT_ACT_HARDSWISH ? 1 : 0	# fp32 temporaries
.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
# bytes per row of the block: two buffers (X, S), the fp32 tiles
.equ ROWB6, 2*(ES*L + (STILE ? ES*L : SCOL ? ES : 0)) + 4*L*(NTMP + (NARROW ? 1 : 0) + (NARROW && STILE ? 1 : 0)) + (NARROW && SCOL ? 4 : 0)
.equ FIX6, 12*L + 26*PERIOD + 2048	# the rows, the slots' alignment
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - FIX6) / ROWB6
.else
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - 1024 - ES*L) / (6*ES*L)
.endif
.include "lib/rb.inc"
.if RB < 1
.error "eltwise.s: not even one row of six L-element tiles fits the scratchpad"
.endif
.equ NB, (ROWS + RB - 1) / RB
.equ TILE, (ES*RB*L + 255) & ~255
.equ BUF, 3*TILE			# a buffer: up to three input tiles
.equ SP_B, 2*BUF			# the B row (OP 3)
.equ SZ, ES*ROWS*L

.if OP == ELT_OP_LAYER
# Scratchpad of OP 6: buffer b at b*BUF6 holds the X tile at 0 and the S
# tile half a bank period further (a lane group's two reads then hit
# other banks); the shared tiles follow.
.equ XT6, (ES*RB*L + 255) & ~255
.equ ST6, STILE ? XT6 : SCOL ? (ES*RB + 255) & ~255 : 0
.equ SOFF6, ST6 ? ((XT6 + PERIOD - 1) / PERIOD) * PERIOD + PERIOD / 2 : XT6
.equ BUF6, ((SOFF6 + ST6 + PERIOD - 1) / PERIOD) * PERIOD
# Shared slots, each a whole number of bank periods (plus one) so that
# the operands read together by one instruction sit half a period apart
# (offset HP) where two colours allow it: X's fp32 tile and gelu's T4
# at 0; Y's (or C's) fp32 copy, T1 .. T3, the rows at HP.
.equ HP, PERIOD / 2
.equ FT6, (4*RB*L + PERIOD - 1) / PERIOD * PERIOD + PERIOD	# a slot of an fp32 tile
.equ FR6, (4*L + PERIOD - 1) / PERIOD * PERIOD + PERIOD	# a slot of a row
.equ FC6, (4*RB + PERIOD - 1) / PERIOD * PERIOD + PERIOD	# of a column
.equ SP_XF, 2*BUF6			# X in fp32 (bf16/fp16), at 0
.equ SL_SF, SP_XF + (NARROW ? FT6 : 0)	# Y or C in fp32 (bf16/fp16)
.equ SP_SF, SL_SF + HP
.equ SP_T, SL_SF + (NARROW && STILE ? FT6 : NARROW && SCOL ? FC6 : 0)	# temporaries
.equ SP_T1, SP_T + HP
.equ SP_T2, SP_T + FT6 + HP
.equ SP_T3, SP_T + 2*FT6 + HP
.equ SP_T4, SP_T + 3*FT6
.equ SP_R, SP_T + NTMP*FT6 + HP	# the B / SC row, in DT (int8, fp32: as used)
.equ SP_RF, SP_R + FR6			# B in fp32 (bf16/fp16), SC in fp32
.equ SP_Z0, SP_RF + FR6			# a row of fp32 zeros (gelu)
.if SP_Z0 + 4*L > CFG_CORE_SCRATCHPAD_BYTES
.error "eltwise.s: the OP 6 tiles exceed the scratchpad (lower RB)"
.endif
.equ XSCALE, (127 + XSH) << 23		# 2^XSH as fp32 bits (vquant's divisor)
.equ YSCALE, (127 + YSH) << 23
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one)
.include "lib/dram.inc"
	dram_base X_DRAM, 0
	dram_base Y_DRAM, (X_DRAM + SZ + 63) & ~63
	dram_base R_DRAM, (Y_DRAM + SZ + 63) & ~63
	dram_base Z_DRAM, (R_DRAM + SZ + 63) & ~63
	dram_base T1_DRAM, (Z_DRAM + SZ + 63) & ~63
	dram_base T2_DRAM, (T1_DRAM + SZ + 63) & ~63
	dram_base B_DRAM, (T2_DRAM + SZ + 63) & ~63
	dram_base C_DRAM, (B_DRAM + ES*L + 63) & ~63
.tensor X, dram, X_DRAM, DT, ROWS, L
.if OP == ELT_OP_SILU_MUL_ADD || OP == ELT_OP_MUL || (OP == ELT_OP_LAYER && STILE)
.tensor Y, dram, Y_DRAM, DT, ROWS, L
.endif
.if OP == ELT_OP_SILU_MUL_ADD || OP == ELT_OP_RESIDUAL
.tensor R, dram, R_DRAM, DT, ROWS, L
.endif
.tensor Z, dram, Z_DRAM, DT, ROWS, L
.if OP == ELT_OP_BIAS_RELU || (OP == ELT_OP_LAYER && HASS && SMODE == ELT_SMODE_ROW)
.tensor B, dram, B_DRAM, DT, 1, L
.endif
.if OP == ELT_OP_LAYER && SCOL
.tensor C, dram, C_DRAM, DT, ROWS, 1
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

.if OP == ELT_OP_LAYER
# ---- OP 6: Z = act(X bin S) ----
# Rows s1 .. s1+s2 (of ROWB bytes each) between the DRAM tensor at BASE
# and the scratchpad at SPM: a load on dma0, or with STORE a store on
# dma1.
.macro move6 base, spm, rowb, store=0
	li	t1, \rowb
	mul	t4, s1, t1
	li	t1, \base
	add	t4, t4, t1
	li	t3, \spm
	li	t1, \rowb
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

# Load block REG's X (and its rows of Y, or values of C) into buffer b.
.macro load6 reg, b
	rows_of	\reg
	wait	dma0, LFREE + (\b), 1
	move6	X_DRAM, (\b)*BUF6, ES*L
.if STILE
	move6	Y_DRAM, (\b)*BUF6 + SOFF6, ES*L
.elif SCOL
	move6	C_DRAM, (\b)*BUF6 + SOFF6, ES
.endif
	sig	dma0, LFULL + (\b)
.endm

# OP D, S, VALUE: a vector op with a scalar constant (bits in the type).
.macro vconst op, d, s, v
	li	t0, \v
	\op	\d, \s, t0
.endm

# OP D, S on the block's column of s2 values, as one row (a column tile
# of RB x 1 would take a lane group per element).
.macro colop op, d, s
	li	t0, 1
	vset	rows, t0
	vset	len, s2
	\op	\d, \s
	vset	rows, s2
	li	t0, L
	vset	len, t0
.endm

# One step of Horner's rule for erfc's polynomial: P = (P + C) t.
.macro hstep c
	vconst	vadds, a7, a7, f32(\c)
	vmul	a7, a7, a5
.endm

# gelu (erf form) of the fp32 tile a2 in place (the header's recipe):
# a4 = clamp(v, -64, 64), a5 = t, a6 = c0 - z^2, a7 = P, erfc, h.
.macro gelu_erf
	li	a4, SP_T1
	li	a5, SP_T2
	li	a6, SP_T3
	li	a7, SP_T4
	vconst	vmaxs, a4, a2, f32(-64.0)
	vconst	vmins, a4, a4, f32(64.0)
	vabs	a5, a4
	vconst	vmuls, a5, a5, f32(0.35355339059327373)	# z/2 = |v| / (2 sqrt 2)
	vconst	vadds, a5, a5, f32(1.0)
	vrcp	a5, a5					# t = 1 / (1 + z/2)
	vmul	a6, a2, a4				# v xc: v^2 up to 64 (other banks
	vconst	vmuls, a6, a6, f32(-0.5)		# than a4 a4); -z^2, rounded once
	vconst	vadds, a6, a6, f32(-1.26551223)		# + c0
	vconst	vmuls, a7, a5, f32(0.17087277)		# c9 t
	hstep	-0.82215223
	hstep	1.48851587
	hstep	-1.13520398
	hstep	0.27886807
	hstep	-0.18628806
	hstep	0.09678418
	hstep	0.37409196
	hstep	1.00002368
	vadd	a7, a7, a6
	vexp	a7, a7
	vmul	a7, a7, a5				# erfc(z)
	vmul	a7, a7, a4
	vconst	vmuls, a7, a7, f32(0.5)			# h = v erfc(z) / 2
	vsub	a4, a2, a7				# v - h
	li	t0, 2
	vset	bc, t0
	li	t1, SP_Z0
	vcmplt	a5, a2, t1				# v < 0 (NaN: no)
	vset	bc, zero
	vsel	a2, a5, a7, a4
.endm

# The activation of the working tile a2 (fp32, or int8), in place.
.macro act6
.if ACT == ELT_ACT_RELU
	vmaxs	a2, a2, zero				# 0 has zero bits in every type
.elif ACT == ELT_ACT_CLIP
	vconst	vmaxs, a2, a2, LO
	vconst	vmins, a2, a2, HI
.elif ACT == ELT_ACT_SIGMOID
	vneg	a2, a2
	vexp	a2, a2
	vconst	vadds, a2, a2, f32(1.0)
	vrcp	a2, a2					# 1 / (1 + e^-v)
.elif ACT == ELT_ACT_TANH
	vtanh	a2, a2
.elif ACT == ELT_ACT_GELU
	gelu_erf
.elif ACT == ELT_ACT_GELU_TANH
	vgelu	a2, a2
.elif ACT == ELT_ACT_HARDSWISH
	vconst	vmaxs, a2, a2, f32(-3.0)		# -3 * 0 = -0 below, no -inf * 0
	li	a4, SP_T1
	vconst	vmuls, a4, a2, f32(0.16666666666666666)
	vconst	vadds, a4, a4, f32(0.5)
	vmaxs	a4, a4, zero
	vconst	vmins, a4, a4, f32(1.0)
	vmul	a2, a2, a4				# v max(0, min(1, v/6 + 1/2))
.elif ACT == ELT_ACT_HARDSIGMOID
	vconst	vmuls, a2, a2, ALPHA
	vconst	vadds, a2, a2, BETA
	vmaxs	a2, a2, zero
	vconst	vmins, a2, a2, f32(1.0)
.elif ACT == ELT_ACT_SILU
	vsilu	a2, a2
.endif
.endm

# Block b's arithmetic: X tile a0, S tile a1; the working tile a2 (fp32
# copy for bf16/fp16, else X's tile) and operand a3; Z into X's tile.
.macro compute6 b
	li	a0, (\b)*BUF6
	li	a1, (\b)*BUF6 + SOFF6
.if NARROW
	li	t0, DT
	vset	type, t0
	li	t0, fp32
	vset	otype, t0
	li	a2, SP_XF
	vcvt	a2, a0
.if STILE
	li	a3, SP_SF
	vcvt	a3, a1
.elif SCOL
	li	a3, SP_SF
	colop	vcvt, a3, a1
.endif
	li	t0, fp32
	vset	type, t0
.else
	li	t0, DT
	vset	type, t0
	vset	otype, t0
	mv	a2, a0
	mv	a3, a1
.if DT == int8 && XSH
	li	t0, XSCALE
	vset	scale, t0
	vquant	a2, a2					# rne(X / 2^XSH)
.endif
.if DT == int8 && YSH && STILE
	li	t0, YSCALE
	vset	scale, t0
	vquant	a3, a3
.elif DT == int8 && YSH && SCOL
	li	t0, YSCALE
	vset	scale, t0
	colop	vquant, a3, a3
.endif
.endif
.if SROW
	li	a3, NARROW ? SP_RF : SP_R
.endif
.if HASS
.if SROW
	li	t0, 2
	vset	bc, t0					# one row for every row
.elif SCOL
	li	t0, 1
	vset	bc, t0					# one value per row
.endif
.if BIN == ELT_BIN_ADD
	vadd	a2, a2, a3
.elif BIN == ELT_BIN_SUB
	vsub	a2, a2, a3
.elif BIN == ELT_BIN_MUL
	vmul	a2, a2, a3
.elif BIN == ELT_BIN_DIV
	vdiv	a2, a2, a3
.elif BIN == ELT_BIN_MAX
	vmax	a2, a2, a3
.else
	vmin	a2, a2, a3
.endif
.if SROW || SCOL
	vset	bc, zero
.endif
.endif
	act6
.if NARROW
	li	t0, DT
	vset	otype, t0
	vcvt	a0, a2					# Z, rounded once into DT
.endif
.endm

# Block s0 from buffer b (the next one loading into the other buffer).
.macro block6 b
	add	t6, s0, s7
	bge	t6, s8, nl\@
	load6	t6, 1 - (\b)
nl\@:
	rows_of	s0
	wait	vec, LFULL + (\b), 1
	vset	rows, s2
	li	t0, L
	vset	len, t0
	compute6 \b
	sig	vec, SFULL + (\b)
	wait	dma1, SFULL + (\b), 1
	move6	Z_DRAM, (\b)*BUF6, ES*L, 1
	sig	dma1, LFREE + (\b)
	add	s0, s0, s7
.endm

# This core's blocks c, c + n, ... below NB (as pass).
.macro pass6
	csrr	s0, coreid
	csrr	s7, ncores
	li	s8, NB
	bge	s0, s8, pd\@
	load6	s0, 0
pl\@:
	block6	0
	bge	s0, s8, pd\@
	block6	1
	blt	s0, s8, pl\@
pd\@:
	fence	all
.endm

# Once per core: the row operand (B loaded, or SC broadcast; in fp32 for
# bf16/fp16, rescaled for int8) and gelu's zero row.
.macro prologue6
.if SROW || ACT == ELT_ACT_GELU
	li	t0, 1
	vset	rows, t0
	li	t0, L
	vset	len, t0
.endif
.if SROW && SMODE == ELT_SMODE_ROW
	li	t4, B_DRAM
	li	t3, SP_R
	li	t2, ES*L
	li	t1, 1
	cdesc	t4, t3, dram, spm, 1, 1, 0, 0, t1, 0, 0
	dset	n0, t2
	dma	0
	fence	dma0
.if NARROW
	li	t0, DT
	vset	type, t0
	li	t0, fp32
	vset	otype, t0
	li	a0, SP_R
	li	a1, SP_RF
	vcvt	a1, a0
.endif
.elif SROW
	li	t0, NARROW ? fp32 : DT
	vset	type, t0
	li	a1, NARROW ? SP_RF : SP_R
	li	t0, SC
	vbcast	a1, t0					# SC's bits in the type
.endif
.if SROW && DT == int8 && YSH
	li	t0, int8
	vset	type, t0
	vset	otype, t0
	li	t0, YSCALE
	vset	scale, t0
	li	a1, SP_R
	vquant	a1, a1
.endif
.if ACT == ELT_ACT_GELU
	li	t0, fp32
	vset	type, t0
	li	a1, SP_Z0
	vbcast	a1, zero
.endif
.endm
.endif

.text
	rbeg	eltwise
	li	t0, DT
	vset	type, t0
	vset	otype, t0
.if OP == ELT_OP_BIAS_RELU
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
.if OP == ELT_OP_LAYER
	prologue6
.endif
	sig	ctl, LFREE + 0
	sig	ctl, LFREE + 1
.if OP == ELT_OP_LAYER
	pass6
.elif OP == ELT_OP_SILU_MUL_ADD
.if FUSED
	pass	X_DRAM, Y_DRAM, R_DRAM, 4, Z_DRAM
.else
	pass	X_DRAM, 0, 0, 1, T1_DRAM
	pass	T1_DRAM, Y_DRAM, 0, 2, T2_DRAM
	pass	T2_DRAM, R_DRAM, 0, 3, Z_DRAM
.endif
.elif OP == ELT_OP_SILU
	pass	X_DRAM, 0, 0, 1, Z_DRAM
.elif OP == ELT_OP_GELU
	pass	X_DRAM, 0, 0, 6, Z_DRAM
.elif OP == ELT_OP_BIAS_RELU
	pass	X_DRAM, 0, 0, 7, Z_DRAM
.elif OP == ELT_OP_RESIDUAL
	pass	X_DRAM, R_DRAM, 0, 3, Z_DRAM
.else
	pass	X_DRAM, Y_DRAM, 0, 2, Z_DRAM
.endif
	barrier
	rend	eltwise
	halt
