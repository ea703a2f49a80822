x: li a0, 0x123456789
 beq a0, a1, x
 halt
