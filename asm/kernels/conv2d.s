# conv2d.s - Y = conv2d(X, W) (+ bias, relu / relu6), int8 or bf16 NHWC,
# weight stationary, with the im2col matrix built block by block on chip
# (it never exists in DRAM); SPMD over the cores.  Also MatMul/Gemm as a
# 1x1 convolution (H = 1, W = M, CIN = K, COUT = N).
#
# Computes Y[oy][ox][co] = sum over ky, kx, ci of
#     X[oy*S + ky*DIL - PAD][ox*S + kx*DIL - PAD][ci] * W[ky][kx][ci][co]
# (taps outside X are zeros), as the GEMM Y (HO*WO x COUT) = A (HO*WO x K)
# x B (K x COUT) with K = KH*KW*CIN: A row p is output pixel p's receptive
# field, (ky, kx, ci) in that order - exactly CIN contiguous bytes of the
# NHWC input per tap, so each tap of a whole block is one 3-D DMA (CIN
# bytes x the output columns whose tap is inside X x the block's rows).
# The taps read a slab of input rows already in the scratchpad: DRAM sees
# each input byte once (plus the halo rows two blocks share), not KH*KW
# times.
#
#   dma1   the bias table; the weights of a channel group (K x NG)
#   for every block i of RB output rows (MB = RB*WO pixels), buffer b,
#   dispatched in this order so that the in-order control unit never waits
#   behind a slow copy while the array could start:
#     dma1  the input rows block i+2 needs (one contiguous DRAM copy)
#     dma0  gathers block i+1's A from its slab into the other A buffer
#           (on-chip copies: quick; they wait only for block i-1's folds)
#     mtx   for each COLS-wide tile of NG, for each ROWS-deep tile of K:
#           mprep the weight tile, mmulp/mmaccp the MB rows of A
#     mtx   OUT=int8: one mout of the block (bias, relu, 2^-SHIFT, sat8)
#     vec   RELU=2: min(Y, CLIP) over the block (mout has no upper clip)
#     dma1  stores the block's HO rows of Y (contiguous in NHWC)
#   (stride 1, DIRECT: the slab is A itself, loaded by dma0, no gather).
#
# Padding: a tap column outside X (left/right) is a fixed set of (pixel,
# tap) entries - the DMA never writes them and they stay zero from the
# initial clear; a tap row outside X (top/bottom blocks) is zeroed per
# block by a DMA from a zero row in the scratchpad (source strides 0).
#
# Channel groups: when the weights do not fit (or several cores share the
# output channels), the output channels go in groups of NG (the last may
# be narrower, NGL); a group's weights stay while all its row blocks run.
# WDB=1 double-buffers them (the next group loads during this one's folds;
# default for the GEMM form when the weights stream); WPACK=1 takes them
# pre-arranged per group, one contiguous copy each; ONESLAB keeps one
# block of rows in a single slab for all groups (A resident, weights
# streamed), and a core whose rows are one block never reloads them.
#
# Cores (csrr coreid): the (channel group, row block) items form a grid;
# the cores are PR x PC, core c takes the groups c % PC, + PC, ... and the
# row blocks c / PC, + PR, ... (block-cyclic); outputs are disjoint, and
# `barrier` ends the kernel.  SPLIT=1 rows only, SPLIT=2 channels only,
# -D PC a grid; the default picks the PC that moves the fewest DRAM bytes
# (see below).  XSHARE=1 shares a core row's input slab over the NoC.  One
# core: PC = PR = 1, the single-core schedule.
#
# Batch (BATCH = N > 1): X is N x H x W x CIN, Y N x HO x WO x COUT, one
# launch for all images: the GEMM's M is N*HO*WO and a channel group's
# weights stay while every image's blocks stream past them (loaded once
# for the batch).  Direct path: a block is IB images side by side in the
# slab rows (IW + PAD pixels apart, the pad columns between two shared),
# all their HO rows - small maps fill the array's M; IB defaults to as
# many as fit (1: blocks of RB rows of one image).  Gather path, or IB =
# 1: the blocks are RB rows of one image, image after image.  Pointwise:
# FLAT over the N*H*W pixels.
#
# Layouts.  DRAM: X (H x W x CIN, NHWC, batch 1); WGT (K x COUT, HWIO
# flattened: row (ky*KW + kx)*CIN + ci - pre-arranged weights, as deployed
# models store them; WPACK: per group, flat); BIAS (COUT int32 / fp32,
# WITH_BIAS=1); Y (HO x WO x COUT).  Each base can be placed with -D
# X_DRAM, W_DRAM, BIAS_DRAM, Y_DRAM (64-byte aligned; overlaps refused);
# by default they follow each other from 0.  Scratchpad (per core): the
# zero row, two A buffers (MB rows of K elements), two input slabs (IR =
# (RB-1)*S + (KH-1)*DIL + 1 rows of (W+2*PAD)*CIN elements), one or two
# weight buffers (K rows of NG), two Y buffers (MB x NG), the bias table.
# Accumulator: one MB x NG block (a mout frees it at once) or two (OUT =
# int32/fp32 without bias or relu, stored from the accumulator).
#
# Footprint (per core, elements of E bytes): scratchpad E*(SR + 2*MB*K +
# 2*IR*(W+2*PAD)*CIN + (1+WDB)*K*NG) + 2*MB*NG*CB + 4*COUT with a bias (+ alignment;
# DIRECT: no A buffers, slabs of RB + KH rows; ONESLAB: one of each),
# accumulator MB*NG*4 (or twice); RB defaults to the most output rows that
# fit (several cores: at most a core row's share), checked with .error.
# Grouped convolution (GROUPS = G): output channel co reads only input
# channels co/(COUT/G)*CIN/G ..; the weights are K x COUT with K =
# KH*KW*CIN/G (each column its group's taps), the slab of a block holds its
# group's CIN/G channels (a 3-D copy), and the output channel groups of NG
# never straddle two convolution groups.  Depthwise is G = CIN = COUT (on
# the array one column per channel: dwconv2d.s does it on the vector unit).
# Parameters: H, W, CIN, COUT, KH (3), KW (= KH), S (1), PAD (0), DIL (1),
# GROUPS (1),
# ITYPE = int8 (default) or bf16 (with OUT = bf16 or fp32, an fp32 bias),
# OUT = int8 (default) or int32, SHIFT (8): int8 Y = sat8(rne((acc + bias)
# / 2^SHIFT)), WITH_BIAS (0/1: tensor BIAS), RELU (the output stage's
# activation: 0 none, 1 relu, 2 relu6 with CLIP, 3 gelu, 4 silu), RB, NG,
# SPLIT, PC, WDB, WPACK, ONESLAB, XSHARE, FLAT, BATCH (1), IB,
# the DRAM bases; ROWS, COLS from the config.
# Limits: KH, KW <= 7 (the taps are unrolled).  docs/kernels.md has the
# measured utilisation, ResNet-50's layers among them.
.include "lib/conv_abi.inc"
.ifndef H
.equ H, 16
.endif
.ifndef W
.equ W, 16
.endif
.ifndef CIN
.equ CIN, 32
.endif
.ifndef COUT
.equ COUT, 32
.endif
.ifndef KH
.equ KH, 3
.endif
.ifndef KW
.equ KW, KH
.endif
.ifndef S
.equ S, 1
.endif
.ifndef PAD
.equ PAD, 0
.endif
.ifndef DIL
.equ DIL, 1
.endif
.ifndef ITYPE
.equ ITYPE, int8
.endif
.if ITYPE != int8 && ITYPE != bf16
.error "conv2d.s: ITYPE must be int8 or bf16"
.endif
.equ FLT, ITYPE == bf16
.ifndef OUT
.if FLT
.equ OUT, bf16
.else
.equ OUT, int8
.endif
.endif
.ifndef SHIFT
.equ SHIFT, 8
.endif
.ifndef WITH_BIAS
.equ WITH_BIAS, 0
.endif
.ifndef RELU
.equ RELU, CONV_RELU_NONE
.endif
.if RELU < 0 || RELU > CONV_RELU_SILU
.error "conv2d.s: RELU is 0 (none), 1 (relu), 2 (relu6: relu, then the CLIP bound), 3 (gelu) or 4 (silu)"
.endif
.ifndef ROWS
.equ ROWS, CFG_CORE_MATRIX_ROWS
.endif
.ifndef COLS
.equ COLS, CFG_CORE_MATRIX_COLS
.endif
.if !FLT && OUT != int8 && OUT != int32
.error "conv2d.s: int8 inputs give OUT = int8 or int32"
.endif
.if FLT && OUT != bf16 && OUT != fp32
.error "conv2d.s: bf16 inputs give OUT = bf16 or fp32"
.endif
.equ XB, FLT ? 2 : 1			# input element bytes
.if OUT == int8
.equ CB, 1				# output element bytes
.elif OUT == bf16
.equ CB, 2
.else
.equ CB, 4
.endif
.if FLT
.equ ATYPE, fp32
.else
.equ ATYPE, int32
.endif
.if KH > 7 || KW > 7 || KH < 1 || KW < 1
.error "conv2d.s: KH and KW must be 1..7"
.endif

.ifndef GROUPS
.equ GROUPS, 1
.endif
.if GROUPS < 1 || CIN % GROUPS || COUT % GROUPS
.error "conv2d.s: GROUPS must divide CIN and COUT"
.endif
.ifndef BATCH
.equ BATCH, 1
.endif
.if BATCH < 1
.error "conv2d.s: BATCH must be at least 1"
.endif
.ifdef RB
.equ RB_GIVEN, 1
.else
.equ RB_GIVEN, 0
.endif
.equ CING, CIN / GROUPS			# input channels per group
.equ COUTG, COUT / GROUPS		# output channels per group
# Schedule parameters for `npusim tune` (the first value is the default):
# DIRECT (stride 1: feed the slab itself; else gather), RBSEL (output rows
# per block, 0 = as many as fit), NGDIV (output channel groups NG/NGDIV).
.equ DIRECT_DEF, S == 1 && DIL == 1
.tunable DIRECT, DIRECT_DEF, 1 - DIRECT_DEF
.if DIRECT && (S != 1 || DIL != 1)
.error "conv2d.s: DIRECT=1 needs S=1 and DIL=1"
.endif
# FLAT: a pointwise convolution is a GEMM over the H*W pixels, so its
# input can be taken as H*W rows of one pixel (IH x IW below): blocks are
# then any number of pixels, not whole rows - the GEMM form H = 1, W = M
# (MatMul/Gemm mapped as a 1x1 convolution) needs it when a row of M
# pixels does not fit.  Default: on for pointwise convolutions with H = 1.
.equ PW1, KH == 1 && KW == 1 && S == 1 && PAD == 0 && DIL == 1
.ifndef FLAT
.equ FLAT, PW1 && (H == 1 || BATCH > 1)
.endif
.if FLAT && !PW1
.error "conv2d.s: FLAT=1 needs a pointwise convolution (KH = KW = 1, S = 1, PAD = 0, DIL = 1)"
.endif
.equ IH, FLAT ? BATCH*H*W : H		# the geometry the kernel walks
.equ IBATCH, FLAT ? 1 : BATCH		# its images (FLAT: one of N*H*W rows)
.equ IW, FLAT ? 1 : W
.equ HO, (IH + 2*PAD - DIL*(KH - 1) - 1) / S + 1
.equ WO, (IW + 2*PAD - DIL*(KW - 1) - 1) / S + 1
# (tested on the sizes: the assembler's / truncates toward zero, so a
# window larger than the padded input would otherwise give HO = 1)
.if IH + 2*PAD < DIL*(KH - 1) + 1 || IW + 2*PAD < DIL*(KW - 1) + 1
.error "conv2d.s: the window does not fit the padded input"
.endif
.equ YH, FLAT ? H : HO			# Y's shape as the caller sees it
.equ YW, FLAT ? W : WO
.equ K, KH*KW*CING			# a group's GEMM depth
.equ KT, (K + ROWS - 1) / ROWS		# k tiles; the last has KL rows
.equ KL, K - (KT - 1)*ROWS
# SPMD: the work is a grid of (channel group, block of output rows)
# items; the cores form PR x PC (core c: column c % PC, row c / PC).
# Core column j takes the channel groups j, j + PC, ...; core row i the
# row blocks i, i + PR, ... (block-cyclic), so outputs are disjoint.
# Every core reads the weights of its groups and the input rows of its
# blocks, so DRAM carries the weights PR times and the input about PC
# times: SPLIT=1 (rows: PC = 1), SPLIT=2 (channels: PC = cores) or -D PC
# choose; the default (SPLIT=0) takes the power of two PC that minimises
# PR*weights + PC*input (the largest p with p^2*input < 2*cores*weights),
# raised until every core row has an output row (PR <= HO); rows only for
# grouped convolutions whose groups are narrower than a 4-byte word of Y
# (depthwise on the array: the cores' channels would share words - the
# hazard checker tracks 4-byte granules).  One core: PC = PR = 1, the
# single-core schedule.
.equ NCORE, CFG_CHIP_CORES
.equ MC, NCORE > 1
.equ XBYTES, BATCH*H*W*CIN*XB
.equ HOT, IBATCH*HO			# output rows of all images
.equ WBYTES, K*COUT*XB
.macro pc_try p
.if NCORE % (\p) == 0 && (\p)*(\p)*XBYTES < 2*NCORE*WBYTES
.equ PC_D, \p
.elif (\p) > 1
	pc_try (\p)/2
.else
.equ PC_D, 1
.endif
.endm
	pc_try	64
.equ PC_R, NCORE <= HOT ? 1 : NCORE % 2 == 0 && NCORE <= 2*HOT ? 2 : NCORE % 4 == 0 && NCORE <= 4*HOT ? 4 : NCORE % 8 == 0 && NCORE <= 8*HOT ? 8 : NCORE % 16 == 0 && NCORE <= 16*HOT ? 16 : NCORE % 32 == 0 && NCORE <= 32*HOT ? 32 : NCORE
.ifndef SPLIT
.equ SPLIT, CONV_SPLIT_AUTO
.endif
.if SPLIT < 0 || SPLIT > CONV_SPLIT_CHANNELS
.error "conv2d.s: SPLIT is 0 (auto), 1 (rows) or 2 (channels)"
.endif
.ifndef PC
.if SPLIT == CONV_SPLIT_ROWS
.equ PC, 1
.elif SPLIT == CONV_SPLIT_CHANNELS
.equ PC, NCORE
.elif GROUPS > 1 && COUTG*CB % 4
.equ PC, 1			# groups narrower than a 4-byte word: rows only
.else
.equ PC, PC_D > PC_R ? PC_D : PC_R
.endif
.endif
.if PC < 1 || NCORE % PC
.error "conv2d.s: PC (cores sharing out the channel groups) must divide the number of cores"
.endif
.equ PR, NCORE / PC

# Output channels in groups of NG: the weights of one group (K x NG) are
# resident while every block of the output is computed for it.  NG = COUT
# when the weights fit the budget, else the largest COUT/2^j that does,
# else the most that fit (a multiple of COLS or 16 when it can be): then
# the last group is narrower (NGL channels, "ragged").  With PC > 1 a
# group is at most ceil(COUT/PC) rounded up to 16 channels, so that every
# core column gets one.  The budget is half the scratchpad for one weight
# buffer - the next group's load then waits for the last fold of the group
# before - or, with WDB=1, two buffers: the next group's weights load
# while the current group computes.  WDB is the default for the GEMM form
# (FLAT) when NG is not given, a core would have several groups and two
# buffers of at least one full n tile fit beside the core's share of X:
# each buffer then gets (7/8 of the scratchpad - that share) / 2, NG a
# multiple of COLS (GEMV and small-M GEMMs, whose weight stream is the
# cost).  -D WDB=1 elsewhere: a quarter of the scratchpad per buffer.
.macro ng_fit name, bud
.if GROUPS > 1 && K*COUTG*XB <= (\bud)
.equ \name, COUTG				# one convolution group at a time
.elif K*COUT*XB <= (\bud) && GROUPS == 1
.equ \name, COUT
.elif COUT % 2 == 0 && K*(COUT/2)*XB <= (\bud)
.equ \name, COUT/2
.elif COUT % 4 == 0 && K*(COUT/4)*XB <= (\bud)
.equ \name, COUT/4
.elif COUT % 8 == 0 && K*(COUT/8)*XB <= (\bud)
.equ \name, COUT/8
.elif COUT % 16 == 0 && K*(COUT/16)*XB <= (\bud)
.equ \name, COUT/16
.elif COUT % 32 == 0 && K*(COUT/32)*XB <= (\bud)
.equ \name, COUT/32
.elif COUT % 64 == 0 && K*(COUT/64)*XB <= (\bud)
.equ \name, COUT/64
.elif (\bud) / (K*XB) >= COLS
.equ \name, (\bud) / (K*XB) / COLS * COLS	# ragged: the most that fit
.elif (\bud) / (K*XB) >= 16
.equ \name, (\bud) / (K*XB) / 16 * 16
.else
.equ \name, (\bud) / (K*XB)
.endif
.endm
.equ NG_PCC, (COUT + PC - 1) / PC
# (a slice of whole 4-byte words of Y when COUT/PC is not one: the hazard
# checker tracks 4-byte granules, and DMA likes aligned runs)
# (grouped: a convolution group is split only evenly, else the columns
# take whole convolution groups in turn)
.equ NG_PCG, COUT % PC == 0 && COUTG % (COUT / PC + (COUT < PC)) == 0 ? NG_PCC : COUTG
.equ NG_PC, GROUPS > 1 ? NG_PCG : COUT % PC == 0 && NG_PCC*CB % 4 == 0 ? NG_PCC : (NG_PCC + 15) / 16 * 16
.ifndef NG
	ng_fit	NG_F2, CFG_CORE_SCRATCHPAD_BYTES / 2
.equ NG_2, NG_F2 < NG_PC ? NG_F2 : NG_PC
.equ WBUD2, (CFG_CORE_SCRATCHPAD_BYTES / 8 * 7 - XBYTES / PR) / 2
.equ WDB_DEF, GROUPS == 1 && FLAT && (COUT + NG_2 - 1) / NG_2 > PC && WBUD2 >= K*(COLS < COUT ? COLS : COUT)*XB
.else
.equ WDB_DEF, 0
.endif
.ifndef WDB
.equ WDB, WDB_DEF
.endif
.if WDB != 0 && WDB != 1
.error "conv2d.s: WDB is 0 or 1"
.endif
.ifndef NG
.if WDB
.equ NGW, (WDB_DEF ? WBUD2 : CFG_CORE_SCRATCHPAD_BYTES / 4) / (K*XB)
.equ NGW1, NGW >= COLS ? NGW / COLS * COLS : NGW >= 16 ? NGW / 16 * 16 : NGW
.equ NG_FIT, NGW1 < COUT ? NGW1 : COUT
.else
.equ NG_FIT, NG_F2
.endif
.tunable NGDIV, 1, 2, 4
.if NG_FIT % NGDIV
.error "conv2d.s: NGDIV does not divide the channel group"
.endif
.equ NG_1, NG_FIT / NGDIV
.equ NG_3, NG_1 < NG_PC ? NG_1 : NG_PC
.equ NG, NG_3 < COUT ? NG_3 : COUT
.endif
.if NG < 1 || NG > COUT || (GROUPS > 1 && (COUT % NG || COUTG % NG))
.error "conv2d.s: the weights do not fit the scratchpad (give -D NG <= COUT; with GROUPS a divisor of COUT/GROUPS)"
.endif
.equ NGRP, (COUT + NG - 1) / NG		# channel groups; the last has NGL
# WPACK=1: WGT is pre-arranged per channel group (the compiler's layout
# for this dataflow): group g's K x NG_g weights (NG_g = NG, the last NGL)
# row-major at element g*K*NG, so each group loads as one contiguous copy
# (unpacked, a group is K runs of NG elements, COUT apart: slow on DRAM
# when NG*XB is small).  WGT is then declared flat (K*COUT elements).
.ifndef WPACK
.equ WPACK, 0
.endif
.equ NGL, COUT - (NGRP - 1)*NG
.equ RAG, NGL != NG
.equ NT, (NG + COLS - 1) / COLS		# n tiles; the last has NL columns
.equ NL, NG - (NT - 1)*COLS
.equ NTL, (NGL + COLS - 1) / COLS	# the same for the last group
.equ NLL, NGL - (NTL - 1)*COLS
# The output stage (mout) for narrow outputs, a bias or relu; else the
# accumulator is stored directly.
.equ STAGE, CB != 4 || WITH_BIAS || RELU
.equ PARB, WITH_BIAS ? 4*COUT : 0	# the bias table (scratchpad at SPM_PAR)
# RELU=2 (relu6): mout's relu, then min(Y, CLIP) on the vector unit over
# the block in the scratchpad before its store (mout has no upper clip;
# min commutes with the output rounding, so this equals clipping first).
# Float outputs clip at 6.0; integer outputs at CLIP in Y's units - the
# quantised 6, rne(6/s_Y) + zp_Y - whose default for int8 is 127: the
# saturation is then the clip (an output scale of 6/127) and no pass runs.
.if OUT == int8
.ifndef CLIP
.equ CLIP, 127
.endif
.elif !FLT && RELU == CONV_RELU_RELU6
.ifndef CLIP
.error "conv2d.s: RELU=2 with OUT=int32 needs -D CLIP (the bound in accumulator units)"
.endif
.endif
.if FLT
.equ CLIPV, RELU == CONV_RELU_RELU6
.equ CLIPBITS, OUT == bf16 ? f32(6.0) >> 16 : f32(6.0)
.else
.equ CLIPV, RELU == CONV_RELU_RELU6 && (OUT != int8 || CLIP < 127)
.equ CLIPBITS, RELU == CONV_RELU_RELU6 ? CLIP : 0
.endif
.if STAGE
.equ NCBUF, 1				# accumulator blocks: mout frees them
.else
.equ NCBUF, 2
.endif

# Several cores: by default one block per core row (ceil(HO/PR) rows)
# when it fits - the folds' fill and drain (ROWS + COLS cycles) are paid
# per block, so blocks are as tall as a core's share allows.
# (a batch: the core rows share the IBATCH*NBI row blocks, so an image
# is cut into ceil(PR/IBATCH) blocks at most)
.equ PRI, (PR + IBATCH - 1) / IBATCH
.equ RB_PR, MC ? (HO + PRI - 1) / PRI : HO

# The default block height RB (from RB_S / RB_S1: the rows that fit with
# two slabs / one, RB_A: in the accumulator): as many rows as fit, at
# most a core row's share RB_PR.  ONESLAB: when a core's share fits one
# block only with a single slab (and A buffer), and the core has several
# channel groups, it takes that one block: every group then reads the
# same rows, which stay in the one slab (loaded once; later blocks skip
# the copy) - the GEMM form with a resident A and streamed weights.
.macro rb_choose
.equ RB_SA, RB_S < RB_A ? RB_S : RB_A
.equ RB_FIT, RB_SA < HO ? RB_SA : HO
.equ RB_SA1, RB_S1 < RB_A ? RB_S1 : RB_A
.tunable RBSEL, 0, 1, 2, 4, 8, 16, 32, 64
.if RBSEL > RB_FIT
.error "conv2d.s: RBSEL output rows do not fit (or exceed the output)"
.endif
.equ OS_OK, GROUPS == 1 && IBATCH == 1 && RBSEL == 0 && RB_FIT < RB_PR && RB_SA1 >= RB_PR && NGRP > PC
.equ RB_DEF, OS_OK || RB_FIT >= RB_PR ? RB_PR : RB_FIT
.equ RB, RBSEL ? RBSEL : RB_DEF
.endm

# XSHARE=1 (several cores): when each core row has at most one block of
# rows (NB <= PR) and PC > 1 cores share it, the PCW = min(PC, NGRP)
# working cores of a row need the same slab: each loads 1/PCW of its
# rows from DRAM and multicasts them to the others over the NoC (dmask),
# so DRAM carries the input once per core row, not once per core.  The
# slab then stays for all of a core's groups (ONESLAB).  Off by default:
# every core still receives the whole slab through its own network link,
# and on datacenter.cfg those links, not the DRAM, bound the load (as
# docs/noc.md found for gemm_mc_share.s) - ResNet-50's late layers move
# 30-60 % fewer DRAM bytes (DRAM energy) in about the same time, some
# faster, some slower (docs/kernels_notes.md).
.equ PCW, PC < NGRP ? PC : NGRP
.ifndef XSHARE
.equ XSHARE, 0
.endif
.macro xsh_ok
.equ XSH_OK, MC && PCW > 1 && GROUPS == 1 && IBATCH == 1 && (HO + RB - 1) / RB <= PR
.endm

# Scratchpad layout; buffers start on a bank period.
.equ PERIOD, CFG_CORE_SCRATCHPAD_BANKS * CFG_CORE_SCRATCHPAD_BANK_WIDTH
.equ ALN, PERIOD > 64 ? PERIOD : 64
.equ SPM_ZERO, 0
.if DIRECT
# Direct: the slab is A.  Output (oy, ox) is virtual row oy*VW + ox of
# the block's GEMM, VW = W + 2*PAD: its tap row ky reads KW*CIN contiguous
# bytes of the padded slab from pixel (oy + ky)*VW + ox on, and virtual
# row + 1 is CIN bytes further (sa = CIN: the rows overlap).  The KW - 1
# virtual columns past WO wrap into the next row: computed, never stored.
# A batch: IB images side by side in every slab row, IW + PAD pixels
# apart (the PAD zero columns between two are the right padding of one
# and the left of the next), VW = PAD + IB*(IW + PAD): a block is all HO
# rows of IB images, M = HO*VW virtual rows of which IB*HO*WO are
# outputs; image i's output (oy, ox) is virtual row oy*VW + i*(IW + PAD)
# + ox.  IB (-D IB) defaults to as many images as fit the scratchpad and
# the accumulator (several cores: at most a core row's share, then
# balanced over the blocks); 1 when not even two fit, or RB is given, or
# GROUPS > 1: then a block is RB rows of one image.
.ifndef IB
.if IBATCH > 1 && GROUPS == 1 && !RB_GIVEN
.equ IBDEN, CING*XB*(1 + 2*KH + 2*HO) + (STAGE ? 2*HO*NG*CB : 0)
.equ IBVS, (CFG_CORE_SCRATCHPAD_BYTES - 6*ALN - (1 + WDB)*K*NG*XB - PARB) / IBDEN
.equ IBVA, CFG_CORE_ACCUMULATOR_BYTES / (NCBUF*HO*NG*4)
.equ IBV, IBVS < IBVA ? IBVS : IBVA
.equ IBF, IBV > PAD ? (IBV - PAD) / (IW + PAD) : 0
.equ IBC, MC ? (IBATCH + PR - 1) / PR : IBATCH
.equ IB0, IBF < IBC ? IBF : IBC
.equ IB, IB0 >= 2 ? (IBATCH + (IBATCH + IB0 - 1) / IB0 - 1) / ((IBATCH + IB0 - 1) / IB0) : 1
.else
.equ IB, 1
.endif
.endif
.if IB < 1 || IB > IBATCH || (IB > 1 && GROUPS > 1)
.error "conv2d.s: IB (images per block) is 1 .. BATCH, and 1 with GROUPS"
.endif
.if IB > 1
.equ RB, HO				# whole images
.endif
.equ VW, PAD + IB*(IW + PAD)
.equ SR, VW*CING*XB			# bytes per padded slab row
.equ KG, KW*CING			# K of one tap row
.equ KGT, (KG + ROWS - 1) / ROWS	# its k tiles; the last has KGL rows
.equ KGL, KG - (KGT - 1)*ROWS
# Per output row of a block: two slab rows, two Y rows (int8); a slab
# holds RB + KH - 1 rows plus one for the wrapped columns' reads.
.if STAGE
.equ SPM_ROW, 2*SR + 2*VW*NG*CB
.else
.equ SPM_ROW, 2*SR
.endif
.equ SPM_FIX, 6*ALN + SR + (1 + WDB)*K*NG*XB + PARB + 2*KH*SR
# (one slab: half the slab bytes)
.equ SPM_ROW1, SPM_ROW - SR
.equ SPM_FIX1, SPM_FIX - KH*SR
.ifndef RB
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX) / SPM_ROW
.equ RB_S1, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX1) / SPM_ROW1
.equ RB_A, CFG_CORE_ACCUMULATOR_BYTES / (NCBUF*VW*NG*4)
	rb_choose
.else
.equ OS_OK, 0
.endif
	xsh_ok
.ifndef ONESLAB
.equ ONESLAB, OS_OK || XSHARE
.endif
.if RB < 1 || RB > HO
.error "conv2d.s: not even one output row fits: the scratchpad needs 2*(KH+1)*(W+2*PAD)*CIN + K*NG (+ 2*(W+2*PAD)*NG) bytes, the accumulator (W+2*PAD)*NG*4 per block"
.endif
.equ MB, RB*VW				# virtual rows per block
.equ NBI, (HO + RB - 1) / RB		# blocks per image
.equ NB, IB > 1 ? (IBATCH + IB - 1) / IB : IBATCH*NBI	# blocks
.equ ZB, SR				# zero row bytes
.equ ABUF, (ZB + ALN - 1) / ALN * ALN	# slab 0; slab 1 at +XBUF_SZ
.equ IR, RB + KH			# slab rows, one for the wrapped reads
.equ XBUF_SZ, (IR*SR + ALN - 1) / ALN * ALN
.equ XSTEP, ONESLAB ? 0 : XBUF_SZ	# slab 1 (ONESLAB: slab 0 again)
.equ SPM_B, ABUF + (2 - ONESLAB)*XBUF_SZ
.equ WSZ, (K*NG*XB + ALN - 1) / ALN * ALN	# a weight buffer
.equ SPM_O, SPM_B + (1 + WDB)*WSZ
.equ OBUF_SZ, (MB*NG*CB + ALN - 1) / ALN * ALN
.if STAGE
.equ SPM_PAR, SPM_O + 2*OBUF_SZ
.else
.equ SPM_PAR, SPM_O
.endif
.if SPM_PAR + PARB > CFG_CORE_SCRATCHPAD_BYTES
.error "conv2d.s: the blocks do not fit core.scratchpad.bytes (lower RB)"
.endif
.equ C_SZ, MB*NG*4
.if NCBUF*C_SZ > CFG_CORE_ACCUMULATOR_BYTES
.error "conv2d.s: the blocks do not fit core.accumulator.bytes (lower RB)"
.endif
.else
# Gather: A buffers of MB pixel rows of K bytes, gathered from padded
# input slabs of IR rows of VW = W + 2*PAD pixels.  A batch: a block is
# RB rows of one image (IB = 1).
.ifndef IB
.equ IB, 1
.endif
.if IB != 1
.error "conv2d.s: IB > 1 (several images per block) needs DIRECT=1"
.endif
.equ VW, IW + 2*PAD
.equ SR, VW*CING*XB			# bytes per padded slab row
.if STAGE
.equ SPM_ROW, 2*WO*K*XB + 2*WO*NG*CB + 2*S*SR
.else
.equ SPM_ROW, 2*WO*K*XB + 2*S*SR
.endif
.equ SLAB_FIX, (KH - 1)*DIL + 1 - S > 0 ? (KH - 1)*DIL + 1 - S : 0
.equ SPM_FIX, 7*ALN + SR + (1 + WDB)*K*NG*XB + PARB + 2*SLAB_FIX*SR
# (one A buffer and one slab)
.equ SPM_ROW1, SPM_ROW - WO*K*XB - S*SR
.equ SPM_FIX1, SPM_FIX - SLAB_FIX*SR
.ifndef RB
.equ RB_S, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX) / SPM_ROW
.equ RB_S1, (CFG_CORE_SCRATCHPAD_BYTES - SPM_FIX1) / SPM_ROW1
.equ RB_A, CFG_CORE_ACCUMULATOR_BYTES / (NCBUF*WO*NG*4)
	rb_choose
.else
.equ OS_OK, 0
.endif
	xsh_ok
.ifndef ONESLAB
.equ ONESLAB, OS_OK || XSHARE
.endif
.if RB < 1 || RB > HO
.error "conv2d.s: not even one output row fits: the scratchpad needs 2*WO*K + 2*((KH-1)*DIL+1)*(W+2*PAD)*CIN + K*NG (+ 2*WO*NG) bytes, the accumulator WO*NG*4 per block"
.endif
.equ MB, RB*WO				# pixels (A rows) per block
.equ NBI, (HO + RB - 1) / RB		# blocks per image
.equ NB, IB > 1 ? (IBATCH + IB - 1) / IB : IBATCH*NBI	# blocks
.equ ZB, SR				# zero row bytes
.equ ABUF, (ZB + ALN - 1) / ALN * ALN	# A buffer 0; buffer 1 at +ABUF_SZ
.equ ABUF_SZ, (MB*K*XB + ALN - 1) / ALN * ALN
.equ ASTEP, ONESLAB ? 0 : ABUF_SZ	# A buffer 1 (ONESLAB: 0 again)
.equ IR, (RB - 1)*S + (KH - 1)*DIL + 1	# slab rows a block reads
.equ XBUF, ABUF + (2 - ONESLAB)*ABUF_SZ	# slab 0; slab 1 at +XSTEP
.equ XBUF_SZ, (IR*SR + ALN - 1) / ALN * ALN
.equ XSTEP, ONESLAB ? 0 : XBUF_SZ
.equ SPM_B, XBUF + (2 - ONESLAB)*XBUF_SZ
.equ WSZ, (K*NG*XB + ALN - 1) / ALN * ALN	# a weight buffer
.equ SPM_O, SPM_B + (1 + WDB)*WSZ
.equ OBUF_SZ, (MB*NG*CB + ALN - 1) / ALN * ALN
.if STAGE
.equ SPM_PAR, SPM_O + 2*OBUF_SZ
.else
.equ SPM_PAR, SPM_O
.endif
.if SPM_PAR + PARB > CFG_CORE_SCRATCHPAD_BYTES
.error "conv2d.s: the blocks do not fit core.scratchpad.bytes (lower RB)"
.endif
.equ C_SZ, MB*NG*4
.if NCBUF*C_SZ > CFG_CORE_ACCUMULATOR_BYTES
.error "conv2d.s: the blocks do not fit core.accumulator.bytes (lower RB)"
.endif
.endif

# DRAM bases: lib/dram.inc (-D NAME_DRAM=ADDR moves one); by default X,
# WGT, BIAS and Y follow each other from 0.  Overlaps are refused.
.include "lib/dram.inc"
	dram_base X_DRAM, 0
	dram_base W_DRAM, (X_DRAM + XBYTES + 63) & ~63
	dram_base BIAS_DRAM, (W_DRAM + K*COUT*XB + 63) & ~63
	dram_base Y_DRAM, (BIAS_DRAM + 4*COUT + 63) & ~63
.equ Y_END, Y_DRAM + BATCH*YH*YW*COUT*CB
.if (Y_DRAM < X_DRAM + XBYTES && X_DRAM < Y_END) || (Y_DRAM < W_DRAM + WBYTES && W_DRAM < Y_END) || (WITH_BIAS && Y_DRAM < BIAS_DRAM + 4*COUT && BIAS_DRAM < Y_END)
.error "conv2d.s: Y overlaps an input in DRAM"
.endif
.if (X_DRAM < W_DRAM + WBYTES && W_DRAM < X_DRAM + XBYTES) || (WITH_BIAS && ((BIAS_DRAM < W_DRAM + WBYTES && W_DRAM < BIAS_DRAM + 4*COUT) || (BIAS_DRAM < X_DRAM + XBYTES && X_DRAM < BIAS_DRAM + 4*COUT)))
.error "conv2d.s: the inputs X, WGT, BIAS overlap in DRAM"
.endif
.if BATCH > 1
.tensor X, dram, X_DRAM, ITYPE, BATCH, H, W, CIN
.else
.tensor X, dram, X_DRAM, ITYPE, H, W, CIN
.endif
.if WPACK
.tensor WGT, dram, W_DRAM, ITYPE, K*COUT
.else
.tensor WGT, dram, W_DRAM, ITYPE, K, COUT
.endif
.if WITH_BIAS
.tensor BIAS, dram, BIAS_DRAM, ATYPE, COUT
.endif
.if BATCH > 1
.tensor Y, dram, Y_DRAM, OUT, BATCH, YH, YW, COUT
.else
.tensor Y, dram, Y_DRAM, OUT, YH, YW, COUT
.endif

.if XSHARE && (!XSH_OK || !ONESLAB)
.error "conv2d.s: XSHARE needs several cores per row sharing one block of rows (NB <= PR, PC > 1, GROUPS = 1) and ONESLAB"
.endif

# The zero row the padding copies come from.
.spm SPM_ZERO
.zero ZB

.equ AFULL, 0		# +b: the gather of A buffer b landed
.equ AFREE, 2		# +b: mtx is done with A buffer b
.equ OFULL, 4		# +b: block in Y buffer b (int8) / C buffer b (int32)
.equ OFREE, 6		# +b: the store of buffer b is done
.equ BFULL, 8		# W and the bias table are resident
.equ XFULL, 9		# +b: slab b landed (dma1 -> dma0)
.equ XFREE, 11		# +b: the taps no longer read slab b (dma0 -> dma1)
.equ WFREE, 13		# the folds of a channel group are done (mtx -> dma1)
.equ CFULL, 14		# +b: RELU=2: mout wrote Y buffer b (mtx -> vec)
.equ XSH, 20		# XSHARE: a row peer's slice of the slab landed here
# the weight buffers' semaphores: +w, w = 0, 1 (WDB) or 0 alone
.equ BF0, WDB ? 16 : BFULL	# weight buffer w loaded (dma1 -> mtx)
.equ WF0, WDB ? 18 : WFREE	# weight buffer w free (mtx -> dma1)
.equ NBT, NB*NGRP	# flat blocks: every row block of every group
# Who loads the slabs, where, and their semaphores: direct - dma0 into the
# A buffers themselves; gather - dma1 into the slabs the gathers read.
.if ONESLAB && (NB > PR || GROUPS > 1)
.error "conv2d.s: ONESLAB needs one block per core row (RB >= ceil(HO/PR)) and GROUPS = 1"
.endif
.if DIRECT
.equ SLAB, ABUF
.equ SL_ENG, 0
.equ SL_FREE, AFREE
.equ SL_FULL, AFULL
.else
.equ SLAB, XBUF
.equ SL_ENG, 1
.equ SL_FREE, XFREE
.equ SL_FULL, XFULL
.endif
.equ SL_UNIT, 3 + SL_ENG		# its unit id for sig/wait (dma0 = 3)

.include "lib/cdesc.inc"

# The store of output rows s1 .. s3, channel group s8, from Y buffer b
# (int8) or C buffer b (int32) whose rows are PW pixels of NG channels
# apart: NG channels of each of WO pixels of each row, into Y's COUT.
# A batch: of image gp (IB > 1: images gp .. gp + tp - 1, IW + PAD
# pixels apart in the buffer: one copy per output row, all images).
.macro store b, pw
	wait	dma1, OFULL + (\b), 1
	sub	t2, s3, s1
	li	t1, WO*COUT*CB
	mul	t4, s1, t1
	li	t1, NG*CB
	mul	t3, s8, t1
	add	t4, t4, t3
	li	t1, Y_DRAM
	add	t4, t4, t1
.if IBATCH > 1
	li	t1, HO*WO*COUT*CB
	mul	t1, gp, t1
	add	t4, t4, t1			# image gp
.endif
.if STAGE
	li	t3, SPM_O + (\b)*OBUF_SZ
.else
	li	t3, (\b)*C_SZ
.endif
.if IB > 1
	li	a0, HO
sl\@:
.if STAGE
	cdesc	t3, t4, spm, dram, NG*CB, WO, NG*CB, COUT*CB, tp, (IW + PAD)*NG*CB, HO*WO*COUT*CB
.else
	cdesc	t3, t4, acc, dram, NG*CB, WO, NG*CB, COUT*CB, tp, (IW + PAD)*NG*CB, HO*WO*COUT*CB
.endif
.elif STAGE
	cdesc	t3, t4, spm, dram, NG*CB, WO, NG*CB, COUT*CB, t2, (\pw)*NG*CB, WO*COUT*CB
.else
	cdesc	t3, t4, acc, dram, NG*CB, WO, NG*CB, COUT*CB, t2, (\pw)*NG*CB, WO*COUT*CB
.endif
.if RAG
	li	t1, NGRP - 1
	bne	s8, t1, sr\@
	li	t0, NGL*CB			# the last group is narrower
	dset	n0, t0
sr\@:
.endif
	dma	1
.if IB > 1
	li	t1, (\pw)*NG*CB
	add	t3, t3, t1			# the next output row
	li	t1, WO*COUT*CB
	add	t4, t4, t1
	dbnz	a0, sl\@
.endif
.endm

# REG = the width of channel group s8: NG, or NGL for a ragged last one.
.macro ngw reg
	li	\reg, NG
.if RAG
	li	t1, NGRP - 1
	bne	s8, t1, nw\@
	li	\reg, NGL
nw\@:
.endif
.endm

# s4 = the n tiles of group s8, a6 = its last tile's width (ragged).
.macro ntiles
	li	s4, NT
.if RAG
	li	a6, NL
	li	t1, NGRP - 1
	bne	s8, t1, nn\@
	li	s4, NTL
	li	a6, NLL
nn\@:
.endif
.endm

# The last n tile (s4 = 1) is NL (a6) wide.
.macro lastn
.if NL != COLS || RAG
	li	t1, 1
	bne	s4, t1, nf\@
.if RAG
	mset	n, a6
.else
	li	t0, NL
	mset	n, t0
.endif
nf\@:
.endif
.endm

# Branch to LBL unless block s9 is the first of its group on this core
# (row block 0, or the core's first row block a5).
.macro firstblk lbl
.if MC
	bne	s9, a5, \lbl
.else
	bne	s9, zero, \lbl
.endif
.endm

# Branch to LBL when local block REG is past this core's last.
.macro past reg, lbl
.if MC
	bge	\reg, s10, \lbl
.else
	li	t1, NBT
	bge	\reg, t1, \lbl
.endif
.endm

# The end of block s0 in buffer b, after its folds: release the A
# buffer, the output stage (one mout of the block's NG channels), release
# the weights after a group's last block, store rows s1 .. s3 of Y (group
# s8; the buffer's rows PW pixels apart), load the next group's weights.
.macro block_end b, pw
.if NL != COLS || RAG
	li	t0, COLS
	mset	n, t0
.endif
	sig	mtx, AFREE + (\b)
.if STAGE
	ngw	t0
	mset	n, t0
	li	t3, SPM_O + (\b)*OBUF_SZ
	li	t4, 0
	mout	t3, t4
	li	t0, COLS
	mset	n, t0
.endif
.if CLIPV
	# relu6: min(Y, CLIP) over the block's rows, in place
	sig	mtx, CFULL + (\b)
	wait	vec, CFULL + (\b), 1
	sub	t1, s3, s1
	li	t0, \pw
	mul	t1, t1, t0
	vset	rows, t1
	li	t3, SPM_O + (\b)*OBUF_SZ
	li	t0, CLIPBITS
	vmins	t3, t3, t0
	sig	vec, OFULL + (\b)
.else
	sig	mtx, OFULL + (\b)
.endif
	groupend wg\@
	store	\b, \pw
	sig	dma1, OFREE + (\b)
	groupnext wn\@
	addi	s0, s0, 1
.endm

# Weights of channel group REG (K rows of NG of the K x COUT matrix, or
# its packed block) into weight buffer WB (a constant), on dma1, once the
# buffer is free.
.macro wload reg, wb=0
	wait	dma1, WF0 + (\wb), 1
.if WPACK
	li	t1, K*NG*XB
.else
	li	t1, NG*XB
.endif
	mul	t3, \reg, t1
	li	t1, W_DRAM
	add	t3, t3, t1
	li	t4, SPM_B + (\wb)*WSZ
.if WPACK
	li	t1, 1
	cdesc	t3, t4, dram, spm, K*NG*XB, 1, 0, 0, t1, 0, 0
.else
	li	t1, K
	cdesc	t3, t4, dram, spm, NG*XB, 1, 0, 0, t1, COUT*XB, NG*XB
.endif
.if RAG
	li	t1, NGRP - 1
	bne	\reg, t1, wl\@
	li	t0, NGL*XB			# the last group is narrower
	dset	n0, t0
.if WPACK
	dset	ss2, t0				# K rows of NGL, packed
	li	t0, K
	dset	n2, t0
	li	t0, NG*XB
	dset	ds2, t0
.endif
wl\@:
.endif
	dma	1
	sig	dma1, BF0 + (\wb)
.endm

# The same into weight buffer REG2 & 1 (a register; WDB).
.macro wload_r reg, wreg
	bne	\wreg, zero, w1\@
	wload	\reg, 0
	j	w2\@
w1\@:
	wload	\reg, 1
w2\@:
.endm

# After the last block of a channel group (s8, s9) with another group to
# come: the folds release the weights (mtx), then dma1 loads the next.
# (Several cores: the core's next local block s0 + 1 exists and starts a
# group, (s0 + 1) % NBc == 0; its next group is s8 + PC.)
.macro lastofgrp lbl
.if MC
	addi	t1, s0, 1
	bge	t1, s10, \lbl
	remu	t1, t1, s11
	bne	t1, zero, \lbl
.else
	li	t1, NB - 1
	bne	s9, t1, \lbl
	li	t1, NGRP - 1
	bge	s8, t1, \lbl
.endif
.endm
.macro groupend lbl
.if WDB
.if NGRP > 2
	lastofgrp2 \lbl
	bne	a7, zero, ge\@
	sig	mtx, WF0
	j	\lbl
ge\@:
	sig	mtx, WF0 + 1
\lbl:
.endif
.elif NGRP > 1
	lastofgrp \lbl
	sig	mtx, WFREE
\lbl:
.endif
.endm
.macro groupnext lbl
.if WDB
.if NGRP > 2
	lastofgrp2 \lbl
	addi	t6, s8, 2*PC
	wload_r	t6, a7
\lbl:
.endif
.elif NGRP > 1
	lastofgrp \lbl
	addi	t6, s8, PC
	wload	t6
\lbl:
.endif
.endm
# WDB: the last block of a group whose successor's successor exists (it
# reuses this group's weight buffer, a7 = the local group's parity).
.macro lastofgrp2 lbl
.if MC
	addi	t1, s0, 1
	remu	t0, t1, s11
	bne	t0, zero, \lbl
	add	t1, t1, s11
	bge	t1, s10, \lbl
.else
	li	t1, NB - 1
	bne	s9, t1, \lbl
	li	t1, NGRP - 2
	bge	s8, t1, \lbl
.endif
.endm

# a7 = the parity of block s0's group among this core's groups (WDB).
.macro grp_par
.if MC
	divu	t1, s0, s11
	andi	a7, t1, 1
.else
	andi	a7, s8, 1
.endif
.endm

# A group's first block waits for its weights (buffer a7 with WDB).
.macro wait_w lbl
	firstblk \lbl
.if WDB
	bne	a7, zero, wq\@
	wait	mtx, BF0, 1
	j	\lbl
wq\@:
	wait	mtx, BF0 + 1, 1
.else
	wait	mtx, BFULL, 1
.endif
\lbl:
.endm

# REG = the weight buffer of block s0's group.
.macro wbase reg
	li	\reg, SPM_B
.if WDB
	beq	a7, zero, wv\@
	li	\reg, SPM_B + WSZ
wv\@:
.endif
.endm

# Slab and A buffer reuse: when a core's share of the rows is one block,
# every one of its blocks reads the same rows, so from its third block on
# (channel groups 2, 3, ...) the slab - and in the gather path the A
# buffer - still hold them: branch to LBL (skip the copies) then.  Not with
# GROUPS > 1 (each group reads other input channels).
.macro reuse reg, lbl
.if ONESLAB
	li	t1, 1
	bge	\reg, t1, \lbl
.elif GROUPS == 1 && MC && NGRP > 2*PC
	li	t1, 2
	blt	\reg, t1, ru\@
	li	t1, 1
	beq	s11, t1, \lbl
ru\@:
.elif GROUPS == 1 && !MC && NB == 1 && NGRP > 2
	li	t1, 2
	bge	\reg, t1, \lbl
.endif
.endm

# Split local block index REG into s8 = its channel group and s9 = its
# block of output rows: one core walks its groups (a = REG / NBc) and
# within each its row blocks (b = REG % NBc); s8 = a*PC + column, s9 =
# b*PR + row (registers: s11 = NBc, a4 = column, a5 = row).
.macro grp_blk reg
.if MC
	divu	s8, \reg, s11
	remu	s9, \reg, s11
	li	t1, PC
	mul	s8, s8, t1
	add	s8, s8, a4
	li	t1, PR
	mul	s9, s9, t1
	add	s9, s9, a5
.else
	li	t1, NB
	divu	s8, \reg, t1
	remu	s9, \reg, t1
.endif
.endm

# Rows of block REG (a register): s1 = first output row, s3 = one past
# its last; its slab holds padded input rows s1*S .. (s3-1)*S +
# (KH-1)*DIL, of which s7 .. a2 (input rows) lie inside X.  A batch: gp
# = its image (IB > 1: the first of tp images, all their rows), the rows
# those of block tp of the image.
.macro blk_rows reg
.if IB > 1
	li	t1, IB
	mul	gp, \reg, t1
	li	tp, IBATCH
	sub	tp, tp, gp
	min	tp, tp, t1			# images in the block
	blk_rows1 zero
.elif IBATCH > 1
	li	t1, NBI
	divu	gp, \reg, t1
	remu	tp, \reg, t1
	blk_rows1 tp
.else
	blk_rows1 \reg
.endif
.endm
.macro blk_rows1 reg
	li	t1, RB
	mul	s1, \reg, t1
	add	s3, s1, t1
	li	t1, HO
	bge	t1, s3, br1\@
	mv	s3, t1				# the last block is shorter
br1\@:
	li	t1, S
	mul	s7, s1, t1
	addi	s7, s7, -PAD
	bge	s7, zero, br2\@
	li	s7, 0
br2\@:
	addi	a2, s3, -1
	mul	a2, a2, t1
	addi	a2, a2, (KH - 1)*DIL + 1 - PAD
	li	t1, IH
	bge	t1, a2, br3\@
	mv	a2, t1
br3\@:
.endm

# Slab rows r0 .. r1 (registers, slab row numbers) of slab b: zeros.
.macro zero_slab b, r0, r1
	bge	\r0, \r1, zs\@
	sub	t2, \r1, \r0
	li	t1, SR
	mul	t3, \r0, t1
	li	t1, SLAB + (\b)*XSTEP
	add	t3, t3, t1
	li	t4, SPM_ZERO
	cdesc	t4, t3, spm, spm, SR, 1, 0, 0, t2, 0, SR
	dma	SL_ENG
zs\@:
.endm

# The padded slab of flat block REG into slab b, on engine SL_ENG, once
# slab b is free: rows outside X zeroed, the rows inside one strided copy
# (W*CIN bytes each, PAD*CIN bytes into a padded row: the pad columns stay
# zero from the initial clear).
.macro slab_load reg, b, share=0
	grp_blk	\reg
	blk_rows s9
	wait	(SL_UNIT), SL_FREE + (\b), 1
	reuse	\reg, sk\@
	li	t1, S
	mul	a3, s1, t1			# padded row of slab row 0
	addi	a0, s7, PAD
	sub	a0, a0, a3			# first slab row inside X
.if IB == 1
	zero_slab \b, zero, a0
.endif
	addi	a1, a2, PAD
	sub	a1, a1, a3			# one past the last inside X
	addi	t6, s3, -1
	li	t1, S
	mul	t6, t6, t1
	addi	t6, t6, (KH - 1)*DIL + 1
	sub	a3, t6, a3			# slab rows in use
.if IB == 1
	zero_slab \b, a1, a3
.endif
	sub	t2, a2, s7			# rows inside X
	li	t1, IW*CIN*XB
	mul	t4, s7, t1
	li	t1, X_DRAM
	add	t4, t4, t1
.if IBATCH > 1
	li	t1, H*W*CIN*XB
	mul	t1, gp, t1
	add	t4, t4, t1			# image gp
.endif
.if GROUPS > 1
	li	t1, NG
	mul	t1, s8, t1			# the block's first output channel
	li	t0, COUTG
	divu	t1, t1, t0			# its group
	li	t0, CING*XB
	mul	t1, t1, t0
	add	t4, t4, t1			# the group's input channels
.endif
	li	t1, SR
	mul	t3, a0, t1
	li	t1, SLAB + (\b)*XSTEP + PAD*CING*XB
	add	t3, t3, t1
.if \share
	share_rows
.elif IB > 1
	# the tp images' rows side by side: one copy (rows x images)
	cdesc	t4, t3, dram, spm, IW*CIN*XB, H, IW*CIN*XB, SR, tp, H*W*CIN*XB, (IW + PAD)*CIN*XB
	dma	SL_ENG
.else
	cdesc	t4, t3, dram, spm, CING*XB, IW, CIN*XB, CING*XB, t2, IW*CIN*XB, SR
	dma	SL_ENG
.endif
sk\@:
	sig	(SL_UNIT), SL_FULL + (\b)
.endm

# XSHARE: of the t2 rows inside X (DRAM t4, slab t3), this core (column
# a4 of row a5) loads rows [lo, lo + q) (q = ceil(t2/PCW)), multicasts
# them to the row's other working cores, waits until they have landed
# everywhere (fence), signals those cores (rsig) and waits for all of
# theirs: then its slab is whole.
.macro share_rows
	li	t1, PCW
	addi	t0, t2, PCW - 1
	divu	t0, t0, t1			# q
	mul	t5, a4, t0
	min	t5, t5, t2			# lo
	add	t6, t5, t0
	min	t6, t6, t2
	sub	t2, t6, t5			# my rows
	li	t1, IW*CIN*XB
	mul	t0, t5, t1
	add	t4, t4, t0
	li	t1, SR
	mul	t0, t5, t1
	add	t3, t3, t0
	bge	zero, t2, sn\@
	cdesc	t4, t3, dram, spm, CING*XB, IW, CIN*XB, CING*XB, t2, IW*CIN*XB, SR
	dma	SL_ENG
	cdesc	t3, t3, spm, rspm, IW*CING*XB, 1, 0, 0, t2, SR, SR
	li	t0, (1 << PCW) - 1
	li	t1, PC
	mul	t1, a5, t1
	sll	t0, t0, t1			# the row's working cores
	csrr	t1, coreid
	li	t6, 1
	sll	t6, t6, t1
	xor	t0, t0, t6			# but this one
	dset	dmask, t0
	dma	SL_ENG
	dset	dmask, zero
sn\@:
.if SL_ENG
	fence	dma1
.else
	fence	dma0
.endif
	li	t5, 0
sr\@:
	beq	t5, a4, ss\@
	li	t1, PC
	mul	t1, a5, t1
	add	t1, t1, t5
	rsig	t1, XSH
ss\@:
	addi	t5, t5, 1
	li	t1, PCW
	blt	t5, t1, sr\@
	wait	ctl, XSH, PCW - 1
.endm

# Zero the pad columns of both slabs (the slab loads never write them)
# on SL_ENG, then release the slabs to the loads.
.macro clear_pad off
	li	t4, SLAB + (\off)
	dset	dst, t4
	dma	SL_ENG
.endm
.macro clear_slabs
.if PAD && IB > 1
	# the IB + 1 pad column groups of every row of both slabs
	li	t1, IR
	li	t3, SPM_ZERO
	li	t4, SLAB
	cdesc	t3, t4, spm, spm, PAD*CING*XB, IB + 1, 0, (IW + PAD)*CING*XB, t1, 0, SR
	dma	SL_ENG
	clear_pad XSTEP
.endif
.if IB > 1
	# and the rows outside X (the same in every block of whole images)
	li	a0, PAD
	zero_slab 0, zero, a0
	zero_slab 1, zero, a0
	li	a0, PAD + IH
	li	a1, IR
	zero_slab 0, a0, a1
	zero_slab 1, a0, a1
.elif PAD
	li	t1, IR
	li	t3, SPM_ZERO
	li	t4, SLAB
	cdesc	t3, t4, spm, spm, PAD*CING*XB, 1, 0, 0, t1, 0, SR
	dma	SL_ENG
	clear_pad (PAD + IW)*CING*XB
	clear_pad XSTEP
	clear_pad XSTEP + (PAD + IW)*CING*XB
.endif
	sig	(SL_UNIT), SL_FREE + 0
	sig	(SL_UNIT), SL_FREE + 1
.endm

.if DIRECT
# Tap row ky of the n tile at s6 (weights) into C at t4, from slab b: its
# KG rows of W in k tiles (mprep/mmulp step A by ROWS bytes and W by ROWS
# rows); the very first fold of a tile overwrites C, the rest add.
.macro kgroup ky, b
	li	t3, ABUF + (\b)*XSTEP + (\ky)*SR
	li	t1, (\ky)*KG*NG*XB
	add	t5, s6, t1
.if KGT > 1 && KGL != ROWS
	li	t0, ROWS
	mset	k, t0
.endif
	mprep	t5
.if (\ky) == 0
	mmulp	t4, t3, zero
.else
	mmaccp	t4, t3, zero
.endif
.if KGT > 2
	li	s2, KGT - 2
kg\@:
	mprep	t5
	mmaccp	t4, t3, zero
	dbnz	s2, kg\@
.endif
.if KGT > 1
.if KGL != ROWS
	li	t0, KGL
	mset	k, t0
.endif
	mprep	t5
	mmaccp	t4, t3, zero
.endif
.if (\ky) + 1 < KH
	kgroup	(\ky) + 1, \b
.endif
.endm

# Block s0 from slab b: load the next block's slab first, then compute,
# then store the WO valid columns of each output row.
.macro block b
	addi	t6, s0, 1
	past	t6, nl\@
	slab_load t6, 1 - (\b)
nl\@:
	grp_blk	s0
	blk_rows s9
	sub	t1, s3, s1
	li	t0, VW
	mul	t1, t1, t0
	mset	m, t1				# MB, or fewer in the last block
	wait	mtx, AFULL + (\b), 1
.if WDB
	grp_par
.endif
	wait_w	wb\@				# a group's first block waits
.if WITH_BIAS && STAGE
	li	t1, NG*4
	mul	t1, s8, t1
	li	t0, SPM_PAR
	add	t1, t1, t0
	mset	opar, t1			# the group's biases
.endif
	wait	mtx, OFREE + (\b), 1
.if STAGE
	li	t4, 0
.else
	li	t4, (\b)*C_SZ
.endif
	wbase	s6
	ntiles
nt\@:
	lastn
	mv	s5, t4
	kgroup	0, \b
	addi	t4, s5, COLS*4
	addi	s6, s6, COLS*XB
	dbnz	s4, nt\@
	block_end \b, VW			# Y rows: WO of every VW virtual columns
.endm
.else
# Gather flat block REG's A into buffer b from slab b, on dma0 (on-chip
# copies): per tap row one 3-D copy of KW*CIN contiguous bytes per output
# pixel (per tap and CIN bytes with a dilation), every pixel of every row.
.macro gtap ky, kx, b
	li	t4, XBUF + (\b)*XSTEP + (\ky)*DIL*SR + (\kx)*DIL*CING*XB
	li	t3, ABUF + (\b)*ASTEP + ((\ky)*KW + (\kx))*CING*XB
.if DIL == 1
	cdesc	t4, t3, spm, spm, KW*CING*XB, WO, S*CING*XB, K*XB, t2, S*SR, WO*K*XB
	dma	0
.else
	cdesc	t4, t3, spm, spm, CING*XB, WO, S*CING*XB, K*XB, t2, S*SR, WO*K*XB
	dma	0
.if (\kx) + 1 < KW
	gtap	\ky, (\kx) + 1, \b
.endif
.endif
.if (\kx) == 0 && (\ky) + 1 < KH
	gtap	(\ky) + 1, 0, \b
.endif
.endm
.macro gather reg, b
	grp_blk	\reg
	blk_rows s9
	wait	dma0, AFREE + (\b), 1
	wait	dma0, XFULL + (\b), 1
	reuse	\reg, gk\@
	sub	t2, s3, s1			# output rows
	gtap	0, 0, \b
gk\@:
	sig	dma0, AFULL + (\b)
	sig	dma0, XFREE + (\b)
.endm

.macro ntile
	mprep	t5
.if KT == 1
	mmulp	t4, t3, zero
.else
	mmulp	t4, t3, zero
.if KT > 2
	li	s2, KT - 2
nk\@:
	mprep	t5
	mmaccp	t4, t3, zero
	dbnz	s2, nk\@
.endif
.if KL != ROWS
	li	t0, KL
	mset	k, t0
.endif
	mprep	t5
	mmaccp	t4, t3, zero
.if KL != ROWS
	li	t0, ROWS
	mset	k, t0
.endif
.endif
.endm

# Block s0 in buffer b: gather the next block first, then compute, then
# store.
.macro block b
	addi	t6, s0, 2
	past	t6, ns\@
	slab_load t6, \b			# block s0+2 reuses slab b
ns\@:
	addi	t6, s0, 1
	past	t6, nl\@
	gather	t6, 1 - (\b)
nl\@:
	grp_blk	s0
.if IBATCH > 1
	blk_rows s9				# its image gp and rows
.else
	li	t1, RB
	mul	s1, s9, t1			# this block's first row
	add	s3, s1, t1
	li	t1, HO
	bge	t1, s3, rb\@
	mv	s3, t1
rb\@:
.endif
	sub	t1, s3, s1
	li	t0, WO
	mul	t1, t1, t0
	mset	m, t1				# MB, or fewer in the last block
	wait	mtx, AFULL + (\b), 1
.if WDB
	grp_par
.endif
	wait_w	wb\@				# a group's first block waits
.if WITH_BIAS && STAGE
	li	t1, NG*4
	mul	t1, s8, t1
	li	t0, SPM_PAR
	add	t1, t1, t0
	mset	opar, t1			# the group's biases
.endif
.if STAGE
	wait	mtx, OFREE + (\b), 1
	li	t4, 0
.else
	wait	mtx, OFREE + (\b), 1
	li	t4, (\b)*C_SZ
.endif
	wbase	t5
	ntiles
nt\@:
	li	t3, ABUF + (\b)*ASTEP
	lastn
	mv	s5, t4
	mv	s6, t5
	ntile
	addi	t4, s5, COLS*4
	addi	t5, s6, COLS*XB
	dbnz	s4, nt\@
	block_end \b, WO
.endm

.endif

.text
	rbeg	conv2d
	li	t0, ws
	mset	df, t0
	li	t0, ITYPE
	mset	itype, t0
	li	t0, ATYPE
	mset	atype, t0
	# k: ROWS per tile, the last KL; one tile is all of K (a k of ROWS
	# would read past each A row and past the weights: garbage times
	# garbage, right only where the scratchpad beyond happens to be 0)
	li	t0, KT == 1 ? KL : ROWS
	mset	k, t0
	li	t0, ROWS*XB
	mset	ia, t0				# next k tile: ROWS elements along A rows
	li	t0, COLS
	mset	n, t0
.if DIRECT
	li	t0, CING*XB
	mset	sa, t0				# virtual rows: CING elements apart
.if KGT == 1
	li	t0, KG
	mset	k, t0				# one k tile per tap row
.endif
.else
	li	t0, K*XB
	mset	sa, t0				# A rows: K elements
.endif
	li	t0, NG*XB
	mset	sb, t0				# W rows: a group's NG elements
	li	t0, ROWS*NG*XB
	mset	ib, t0				# next k tile: ROWS rows of W
	li	t0, NG*4
	mset	sc, t0				# C rows: NG int32
.if STAGE
	li	t0, OUT
	mset	otype, t0
.if OUT == int8
	li	t0, (127 - SHIFT) << 23		# 2^-SHIFT as fp32 bits
.else
	li	t0, f32(1.0)
.endif
	mset	oscale, t0
	li	t0, NG*CB
	mset	so, t0
.if RELU == CONV_RELU_GELU
	li	t0, gelu
.elif RELU == CONV_RELU_SILU
	li	t0, silu
.elif RELU
	li	t0, relu
.endif
.if RELU
	mset	oact, t0
.endif
.if WITH_BIAS
	li	t0, obias
	mset	ofuse, t0
	li	t0, SPM_PAR
	mset	opar, t0
.endif
.endif
.if CLIPV
	li	t0, OUT
	vset	type, t0
	li	t0, NG
	vset	len, t0
	li	t0, NG*CB
	vset	sd, t0
	vset	ss1, t0
.endif
.if MC
	# This core's place in the PR x PC grid and its share: s11 = NBc
	# row blocks (a5, a5 + PR, ...) of NGc groups (a4, a4 + PC, ...),
	# s10 = NJ = NGc*NBc local blocks; none: straight to the barrier.
	csrr	t0, coreid
	li	t1, PC
	remu	a4, t0, t1
	divu	a5, t0, t1
	li	t1, NB + PR - 1
	sub	t1, t1, a5
	li	t0, PR
	divu	s11, t1, t0
	li	t1, NGRP + PC - 1
	sub	t1, t1, a4
	li	t0, PC
	divu	t1, t1, t0
	mul	s10, t1, s11
	beq	s10, zero, done
.endif

	# The bias table, then the first group's weights, on dma1 (BFULL
	# covers both); the slabs cleared by their loader.
.if WITH_BIAS
	li	t1, 1
	li	t3, BIAS_DRAM
	li	t4, SPM_PAR
	cdesc	t3, t4, dram, spm, 4*COUT, 1, 0, 0, t1, 0, 0
	dma	1
.endif
	sig	ctl, WF0
.if WDB
	sig	ctl, WF0 + 1
.endif
.if MC
	mv	t6, a4				# the core's first group
.else
	li	t6, 0
.endif
	wload	t6
	clear_slabs
	sig	ctl, OFREE + 0
	sig	ctl, OFREE + 1
	li	s0, 0
	slab_load s0, 0, XSHARE && XSH_OK
.if !DIRECT
	sig	ctl, AFREE + 0			# the A buffers: every byte
	sig	ctl, AFREE + 1			# is gathered each block
.if MC
	li	s0, 1
	past	s0, g1
	slab_load s0, 1
g1:
.elif NBT > 1
	li	s0, 1
	slab_load s0, 1
.endif
	li	s0, 0
	gather	s0, 0
.endif
.if WDB
	# the core's second group's weights into buffer 1, behind the first
	# slabs on their queue
.if MC
	bge	s11, s10, w2
	addi	t6, a4, PC
	wload	t6, 1
w2:
.elif NGRP > 1
	li	t6, 1
	wload	t6, 1
.endif
.endif
	block	0
	past	s0, done
loop:
	block	1
	past	s0, done
	block	0
.if MC
	blt	s0, s10, loop
.else
	li	t1, NBT
	blt	s0, t1, loop
.endif
done:
	fence	all
.if MC
	barrier				# every core's stores have landed
.endif
	rend	conv2d
	halt
