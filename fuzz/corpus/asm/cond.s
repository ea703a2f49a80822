.equ N, 4
.if N > 2
 nop
.elif N
 halt
.else
.error "x"
.endif
.ifdef N
.endif
