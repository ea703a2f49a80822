fence mtx|vec|dma0
 wait dma1, 3, 2
 sig ctl, 1
 rsig t0, 2
 dset n0, t0
 mset oscale, t1
 vset len, t2
 csrr a0, cycle
