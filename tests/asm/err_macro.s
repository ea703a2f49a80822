# err_macro.s - errors inside macro expansions carry "in expansion" notes.
	.macro	load reg, val
	li	\reg, \val
	addi	\reg, \reg, \val
	.endm
	.macro	outer r
	load	\r, 100000
	.endm
	.macro	rec n
	rec	\n
	.endm
	.macro	add x
	.endm
	.macro	dup a, a
	.endm
	load	a0, 1
	load	a0
	load	a0, 1, 2
	load	a0, val=1, reg=a1, val=2
	load	val=1, a0
	load	a0, bogus=3
	outer	t0
	rec	1
	.macro	m
	.macro	n
	.endm
