.dram 0x100
A: .byte 1,2
.align 8
.float 1.5, nan
.fill 2, 4, -1
.tensor T, dram, A, fp16, 2, 3
.data
.dword . + 8
.spm
.zero 3
