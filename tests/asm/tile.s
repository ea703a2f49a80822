# tile.s - matrix and vector configuration and instructions.
	.equ	A, 0x0000
	.equ	B, 0x1000
	.equ	C, 0x0
	.equ	OUT, 0x2000
gemm:
	li	t0, ws
	mset	df, t0
	li	t0, int8
	mset	itype, t0
	li	t0, int32
	mset	atype, t0
	li	t0, 16
	mset	m, t0
	mset	k, t0
	mset	n, t0
	mset	sa, zero
	mset	sb, zero
	mset	sc, zero
	li	t0, int8
	mset	otype, t0
	li	t0, f32(0.0625)
	mset	oscale, t0
	mset	ozp, zero
	li	t0, relu
	mset	oact, t0
	mset	so, zero
	li	a0, C
	li	a1, A
	li	a2, B
	li	a3, OUT
	mpre	a2
	mmul	a0, a1, zero
	mmacc	a0, a1, a2
	mout	a3, a0
vector:
	li	t0, fp32
	vset	type, t0
	li	t0, bf16
	vset	otype, t0
	li	t0, 64
	vset	len, t0
	li	t0, 4
	vset	rows, t0
	vset	sd, zero
	vset	ss1, zero
	vset	ss2, zero
	li	t0, spm
	vset	dmem, t0
	li	t0, acc
	vset	smem, t0
	li	t0, f32(0.5)
	vset	scale, t0
	vset	zp, zero
	vadd	a0, a1, a2
	vsub	a0, a1, a2
	vmul	a0, a1, a2
	vdiv	a0, a1, a2
	vmin	a0, a1, a2
	vmax	a0, a1, a2
	vadds	a0, a1, t0
	vsubs	a0, a1, t0
	vmuls	a0, a1, t0
	vmins	a0, a1, t0
	vmaxs	a0, a1, zero
	vabs	a0, a1
	vneg	a0, a1
	vexp	a0, a1
	vlog	a0, a1
	vrsqrt	a0, a1
	vrcp	a0, a1
	vtanh	a0, a1
	vgelu	a0, a1
	vsilu	a0, a1
	vmov	a0, a1
	vcmpeq	a0, a1, a2
	vcmplt	a0, a1, a2
	vcmple	a0, a1, a2
	vsel	a0, a1, a2, a3
	vredsum	a0, a1
	vredmax	a0, a1
	vredmin	a0, a1
	vcvt	a0, a1
	vquant	a0, a1
	vdequant a0, a1
	vtrans	a0, a1
	vgather	a0, a1, a2
	vscatter a0, a1, a2
	vbcast	a0, t0
	vbrow	a0, a1
	halt
