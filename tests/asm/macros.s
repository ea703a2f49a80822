# macros.s - .include, .macro (named and default arguments, \@), .if family
# and expressions.  Assembled with the options on the next line.
# asm-args: -D MODE=2 -I tests/asm/inc
	.include "common.inc"

	.macro	copy_loop n, step=4, reg=t0
	li	\reg, \n
.Lloop\@:
	addi	a0, a0, \step
	dbnz	\reg, .Lloop\@
	.endm

	.macro	twice body_op, r
	\body_op \r, \r, \r
	\body_op \r, \r, \r
	.endm

	.ifndef	MODE
	.equ	MODE, 0
	.endif

start:
	load_imm a0
	load_imm a1, TILE * TILE
	load_imm value=-5, reg=a2
	copy_loop 3
	copy_loop n=10, reg=t1, step=-1
	twice	add, s1
	.if	MODE == 1
	addi	a0, a0, 1
	.elif	MODE == 2
	addi	a0, a0, 2
	.else
	addi	a0, a0, 3
	.endif
	.ifdef	TILE
	.if	0
	.error	"never"
	.endif
	addi	a0, a0, TILE
	.else
	.error	"TILE must be defined"
	.endif
	# C precedence and operators
	li	a3, 1 + 2 * 3
	li	a3, (1 + 2) * 3
	li	a3, 1 << 2 + 1
	li	a3, 7 & 3 | 8 ^ 1
	li	a3, -7 / 2
	li	a3, -7 % 2
	li	a3, -16 >> 2
	li	a3, ~0 == -1
	li	a3, !0 && 1 || 0
	li	a3, 3 > 2 ? 10 : 20
	li	a3, 2 <= 1
	li	a3, 'z' - 'a'
	li	a3, 0b1010 + 0o17 + 0x10
	li	a3, end - start
end:
	halt
