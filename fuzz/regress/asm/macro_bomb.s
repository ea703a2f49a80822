.macro m0
nop
.endm
.macro m1
m0
m0
.endm
.macro m2
m1
m1
.endm
.macro m3
m2
m2
.endm
.macro m4
m3
m3
.endm
.macro m5
m4
m4
.endm
.macro m6
m5
m5
.endm
.macro m7
m6
m6
.endm
.macro m8
m7
m7
.endm
.macro m9
m8
m8
.endm
.macro m10
m9
m9
.endm
.macro m11
m10
m10
.endm
.macro m12
m11
m11
.endm
.macro m13
m12
m12
.endm
.macro m14
m13
m13
.endm
.macro m15
m14
m14
.endm
.macro m16
m15
m15
.endm
.macro m17
m16
m16
.endm
.macro m18
m17
m17
.endm
.macro m19
m18
m18
.endm
.macro m20
m19
m19
.endm
.macro m21
m20
m20
.endm
.macro m22
m21
m21
.endm
.macro m23
m22
m22
.endm
.macro m24
m23
m23
.endm
.macro m25
m24
m24
.endm
.macro m26
m25
m25
.endm
.macro m27
m26
m26
.endm
.macro m28
m27
m27
.endm
.macro m29
m28
m28
.endm
.macro m30
m29
m29
.endm
.macro m31
m30
m30
.endm
.macro m32
m31
m31
.endm
.macro m33
m32
m32
.endm
.macro m34
m33
m33
.endm
.macro m35
m34
m34
.endm
.macro m36
m35
m35
.endm
.macro m37
m36
m36
.endm
.macro m38
m37
m37
.endm
.macro m39
m38
m38
.endm
m39
