# sync_dma.s - semaphores, fences, barrier, remote signal, DMA descriptors.
	.equ	SEM_LOADED, 0
	.equ	SEM_DONE, 1
load:
	li	t0, 0x10000
	dset	src, t0
	li	t0, 0x400
	dset	dst, t0
	li	t0, dram
	dset	smem, t0
	li	t0, spm
	dset	dmem, t0
	dset	score, zero
	dset	dcore, zero
	li	t0, 2
	dset	esize, t0
	li	t0, 64
	dset	n0, t0
	li	t0, 16
	dset	n1, t0
	li	t1, 1
	dset	n2, t1
	dset	n3, t1
	li	t0, 2
	dset	ss0, t0
	dset	ds0, t0
	li	t0, 1024
	dset	ss1, t0
	li	t0, 128
	dset	ds1, t0
	dset	ss2, zero
	dset	ss3, zero
	dset	ds2, zero
	dset	ds3, zero
	dma	0
	dma	1
	li	t2, 1
	dmar	t2
	sig	dma0, SEM_LOADED
	wait	mtx, SEM_LOADED, 1
	sig	mtx, SEM_DONE
	wait	ctl, SEM_DONE, 4095
	sig	ctl, 31
	wait	dma19, 2, 3
	fence	mtx
	fence	vec|dma0|dma1
	fence	ctl|mtx|vec|dma19
	fence	all
	fence	-1
	fence	0x800000
	barrier
	csrr	t0, coreid
	addi	t0, t0, 1
	rsig	t0, SEM_DONE
	halt
