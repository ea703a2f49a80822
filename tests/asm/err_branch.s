# err_branch.s - branch and jump reach.
start:
	beq	a0, a1, far
	bnez	a0, far
	dbnz	t0, far
	jal	ra, far			# a jump reaches 1 MiB: fine
	.align	65536
	.align	65536
	nop
far:
	beq	a0, a1, start
	j	0x200000
	li	a0, big			# forward reference that needs 64 bits
	halt
	.equ	big, 1 << 40
