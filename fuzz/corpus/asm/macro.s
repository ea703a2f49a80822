.macro m a, b=2
 addi \a, \a, \b
.L\@: nop
.endm
 m t0
 m t1, b=3
