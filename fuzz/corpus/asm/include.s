.include "tests/asm/inc/common.inc"
 load_imm a0, TILE
