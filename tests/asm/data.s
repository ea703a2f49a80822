# data.s - data sections, data directives and the tensor table.
	.equ	ROWS, 4
	.equ	COLS, 8
	.text
	li	a0, weights
	li	a1, table
	ld	a2, 0(a1)
	halt

	.data
table:	.dword	0x1122334455667788, -1
	.word	0xdeadbeef, -2
	.half	0xffff, -32768
	.byte	'A', '\n', 255, -128

	.dram	0x10000
weights:
	.byte	1, 2, 3, 4, 5, 6, 7, 8
	.align	16
biases:	.float	1.0, -2.5, 0.1, inf
	.float	-inf, nan, 1e-45, 3.4028234663852886e38
	.zero	4
	.fill	3, 2, 0x7fff
	.fill	2, 8, -1
	.dram			# continues after the .fill
after:	.byte	ROWS * COLS

	.spm	0x100
	.word	f32(1.0), f32(-0.5)

	.acc	0
	.dword	. + 8, 1 << 63

	.tensor	W, dram, weights, int8, ROWS, COLS / 4
	.tensor	X, spm, 0x1000, bf16, 2, 3, 4, 5
	.tensor	Y, acc, 0, int32, ROWS
	.tensor	Q, dram, 0x20000, int4, 3, 7
	.tensor	S, data, table, fp32, 4
