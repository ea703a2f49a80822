# err_syntax.s - one error per line; every one must be reported, in order.
start:
	ad	a0, a1, a2
	addi	a0, a1, 9000
	add	a0, a1
	add	a0, a9, a1
	add	a0, a1, a2, a3
	slli	a0, a0, 64
	lui	a0, 0x40000
	ld	a0, 8(a9)
	ld	a0, 8(sp
	csrr	a0, cycel
	mset	mm, t0
	vset	typ, t0
	dset	srcc, t0
	sig	dma, 1
	wait	mtx, 1, 0
	wait	mtx, 32, 1
	fence	mtx|foo
	fence	dma20
	.bogus	1
	.txt
	ADD	a0, a0, a0
	addi	a0, a0, 1 / 0
	addi	a0, a0, 1 << 64
	addi	a0, a0, (1 + 2
	addi	a0, a0, 1.5
	addi	a0, a0, 99999999999999999999
	li	a0, undefind
	li	a0, strat
	beq	a0, a1, start + 2
	halt	a0
	a0:
	int8:
	add	a0, a1, a2 $
	jal	ra, 0x200000
