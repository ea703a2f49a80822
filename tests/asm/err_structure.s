# err_structure.s - conditional assembly, sections and symbol errors.
	.else
	.endif
	.if	1
	.else
	.elif	1
	.else
	.endif
	.if	undefined_yet
	nop
	.endif
	.equ	x, y + 1
	.equ	y, x + 1
	.equ	z, nothere
	.equ	dup, 1
	.equ	dup, 2
	.include "no_such_file.inc"
	.include no_quotes.inc
	.dram	0x100
	.byte	1, 2, 3, 4
	add	a0, a0, a0
	.dram	0x102
	.byte	9
	.half	70000
	.zero	-1
	.fill	2, 3, 0
	.text
	.byte	1
	.float	1.0
	.tensor	T, flash, 0, int8, 4
	.tensor	T2, dram, 0, int9, 4
	.tensor	T3, dram, 0, int8, 0
	.tensor	T4, dram, 0, int8, 1, 2, 3, 4, 5, 6, 7, 8, 9
	.tensor	T5, dram, 0, int8
	.error	"custom failure"
	.if	1
