# scalar.s - scalar ALU, memory, control flow, pseudo-instructions and li.
	.text
start:
	add	a0, a1, a2
	sub	x5, x6, x7
	mul	t0, t1, t2
	div	s0, s1, s2
	divu	s3, s4, s5
	rem	a3, a4, a5
	remu	a6, a7, t3
	and	t4, t5, t6
	or	ra, sp, gp
	xor	tp, fp, s11
	sll	a0, a0, a1
	srl	a0, a0, a1
	sra	a0, a0, a1
	slt	a0, a0, a1
	sltu	a0, a0, a1
	min	a0, a0, a1
	max	a0, a0, a1
	addi	a0, a0, -8192
	andi	a0, a0, 8191
	ori	a0, a0, 0x0f
	xori	a0, a0, -1
	slti	a0, a0, -3
	sltiu	a0, a0, 1
	slli	a0, a0, 63
	srli	a0, a0, 1
	srai	a0, a0, 7
	lui	a0, -0x40000
	lui	a0, 0x3ffff
	csrr	a0, coreid
	csrr	a1, ncores
	csrr	a2, cycle
	csrr	a3, instret
memory:
	ld	a0, 8(sp)
	lw	a0, -4(sp)
	lwu	a0, (sp)
	lh	a0, 2(a1)
	lhu	a0, 2(a1)
	lb	a0, -1(a1)
	lbu	a0, 8191(a1)
	sd	a0, 8(sp)
	sw	a0, -8192(sp)
	sh	a0, 2(a1)
	sb	zero, 0(a1)
branches:
	beq	a0, a1, branches
	bne	a0, a1, forward
	blt	a0, a1, start
	bge	a0, a1, forward
	bltu	a0, a1, start
	bgeu	a0, a1, forward
	dbnz	t0, branches
	jal	ra, func
	jalr	zero, ra, 0
forward:
	# pseudo-instructions
	mv	a0, a1
	nop
	not	a0, a1
	neg	a0, a1
	seqz	a0, a1
	snez	a0, a1
	j	forward
	jr	t0
	call	func
	beqz	a0, forward
	bnez	a0, forward
	bltz	a0, forward
	bgez	a0, forward
	bgtz	a0, forward
	blez	a0, forward
	bgt	a0, a1, forward
	ble	a0, a1, forward
	bgtu	a0, a1, forward
	bleu	a0, a1, forward
	# li: the shortest sequence for each value
	li	a0, 0
	li	a0, -8192
	li	a0, 8192
	li	a0, 0x12345678
	li	a0, -0x80000000
	li	a0, 0xffffffff
	li	a0, 1 << 40
	li	a0, 0x8000000000000000
	li	a0, -1
	li	a0, 0x123456789abcdef0
	li	a0, later		# forward reference: lui + addi
func:
	ret
	halt
	.equ later, 0x7654321
