# conv2d.s (int8 NHWC convolution on the weight-stationary array): every
# output exact against tests/tools/convref's seven-deep loop, no hazards,
# on default.cfg (32x32), gemmini.cfg (16x16) and tpu-v1.cfg (256x256).
# Both ways of feeding the array are covered: direct (stride 1, the slab
# is A) and the im2col gather (strides, dilation, ResNet-50's 7x7 stem on
# a small input), padding on every side, partial k and n tiles, several
# row blocks, channel groups (weights that do not fit), grouped
# convolutions (GROUPS; depthwise as GROUPS = CIN), int32 output, the fused
# bias + relu + requantisation, and bf16 inputs with fp32 or bf16 outputs
# (exact: the inputs are multiples of 1/8, every partial sum exact in fp32).
# Then: relu6 (RELU=2: int8 clipped at CLIP, bf16/fp32 at 6), the GEMM
# form (H = 1, W = M: pixel rows, FLAT) with ragged channel groups, DRAM
# bases placed with -D (and a misaligned one refused), packed and
# double-buffered weights with a resident A, and SPMD on datacenter.cfg's
# 16 cores - row blocks, channel groups, both, the gather path, grouped,
# ragged, the input shared over the NoC - each asserting that several
# cores did MACs.  Golden: cycles and matrix busy cycles (multi-core: the cores
# that did MACs and their total busy cycles).
. "$(dirname "$0")/../lib.sh"
conv=$build/convref
# rec_mtx NAME: cycles and core 0's matrix busy cycles; with several cores
# (MINC=n in the environment) also how many cores did MACs - at least n -
# and their busy cycles summed.
rec_mtx() {
	if [ -n "${MINC:-}" ]; then
		nc=$(awk -F, '$4 == "" && $1 ~ /^core[0-9]+\.matrix\.macs$/ && $2 > 0 { n++ } END { print n + 0 }' "$tmp/c.csv")
		[ "$nc" -ge "$MINC" ] || fail "$1: only $nc cores did MACs (expected >= $MINC)"
		record "$1: cycles $(counter "$tmp/c.csv" cycles) cores_with_macs $nc matrix_busy_sum $(counter_sum "$tmp/c.csv" 'core[0-9]+\.matrix\.busy_cycles')"
	else
		record "$1: cycles $(counter "$tmp/c.csv" cycles) matrix_busy $(counter "$tmp/c.csv" core0.matrix.busy_cycles)"
	fi
}
# case NAME CONFIG H W CIN COUT K S PAD DIL OUT BIAS RELU [-D ...]
# (GROUPS=G in the environment: a grouped convolution)
case_conv() {
	name=$1 cfg=$2 h=$3 w=$4 ci=$5 co=$6 k=$7 s=$8 p=$9
	shift 9
	d=$1 out=$2 bias=$3 relu=$4
	shift 4
	g=${GROUPS:-1}
	# X with CIN channels; W with CIN/G rows per tap
	"$conv" gen "$h" "$w" "$ci" 1 1 1 $((h * 5 + ci)) "$tmp/X.npy" "$tmp/unused.npy"
	"$conv" gen "$h" "$w" $((ci / g)) "$co" "$k" "$k" $((h * 7 + co)) "$tmp/unused.npy" "$tmp/W.npy" "$tmp/B.npy"
	binput=
	[ "$bias" = 1 ] && binput="--input BIAS=$tmp/B.npy"
	wfile=$tmp/W.npy
	if [ -n "${PACK:-}" ]; then
		# WPACK: the weights pre-arranged in groups of PACK channels
		"$conv" pack "$tmp/W.npy" "$PACK" "$tmp/Wp.npy" || fail "$name: pack failed"
		wfile=$tmp/Wp.npy
	fi
	# shellcheck disable=SC2086 # optional arguments, split on purpose
	"$bin" run -q -c "configs/$cfg" asm/kernels/conv2d.s -D H="$h" -D W="$w" \
		-D CIN="$ci" -D COUT="$co" -D KH="$k" -D S="$s" -D PAD="$p" -D DIL="$d" \
		-D OUT="$out" -D WITH_BIAS="$bias" -D RELU="$relu" -D GROUPS="$g" ${CLIP:+-D CLIP=$CLIP} \
		${PACK:+-D WPACK=1 -D NG=$PACK} "$@" \
		--input X="$tmp/X.npy" --input WGT="$wfile" $binput \
		--output Y="$tmp/Y.npy" --counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	if [ "$out" = int8 ]; then
		bfile=-
		[ "$bias" = 1 ] && bfile=$tmp/B.npy
		"$conv" check "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" "$d" 8 "$bfile" "$relu" "$g" "${CLIP:-127}" > /dev/null ||
			fail "$name: Y differs from the reference"
	else
		"$conv" check "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" "$d" -1 - 0 "$g" > /dev/null ||
			fail "$name: Y differs from the reference"
	fi
	rec_mtx "$name"
}
case_conv "default 3x3 pad 1, 16->16, int32" default.cfg 8 8 16 16 3 1 1 1 int32 0 0
case_conv "default 3x3 pad 1, 16->40, bias relu" default.cfg 8 8 16 40 3 1 1 1 int8 1 1
case_conv "default 5x5 pad 2, 24->70, 4 row blocks" default.cfg 11 13 24 70 5 1 2 1 int8 0 0 -D RB=3
case_conv "default 1x1, 64->64" default.cfg 16 16 64 64 1 1 0 1 int8 0 0
case_conv "default 7x7/2 pad 3 (stem), 3->40, gather" default.cfg 9 11 3 40 7 2 3 1 int8 0 0
case_conv "default 3x3/2 dil 2 pad 1, 20->33, gather" default.cfg 12 12 20 33 3 2 1 2 int8 0 0 -D RB=2
case_conv "default 3x3/2 pad 1, 16->64, 2 groups, int32" default.cfg 9 9 16 64 3 2 1 1 int32 0 0 -D NG=32 -D RB=2
case_conv "default 3x3 pad 1, 16->64, 4 groups, bias relu" default.cfg 9 9 16 64 3 1 1 1 int8 1 1 -D NG=16 -D RB=4
case_conv "default 3x3, 16->16, gather forced" default.cfg 10 10 16 16 3 1 0 1 int32 0 0 -D DIRECT=0 -D RB=3
case_conv "gemmini 3x3 pad 1, 32->48" gemmini.cfg 14 14 32 48 3 1 1 1 int8 0 0
case_conv "gemmini 3x3/2 pad 1, 16->24, gather" gemmini.cfg 10 10 16 24 3 2 1 1 int8 1 0
case_conv "tpu-v1 3x3 pad 1, 64->64" tpu-v1.cfg 14 14 64 64 3 1 1 1 int8 0 0
case_conv "tpu-v1 1x1/2, 64->128, gather" tpu-v1.cfg 14 14 64 128 1 2 0 1 int8 0 1
# casef NAME CONFIG H CIN COUT K S PAD OUT BIAS_RELU [-D ...]: bf16 inputs
# (W = H, or FW in the environment; RELU=2 in the environment: relu6)
casef() {
	name=$1 cfg=$2 h=$3 ci=$4 co=$5 k=$6 s=$7 p=$8 out=$9
	shift 9
	br=$1
	shift
	w=${FW:-$h}
	"$conv" genf "$h" "$w" "$ci" "$co" "$k" "$k" $((h + co)) "$tmp/X.npy" "$tmp/W.npy" "$tmp/B.npy"
	binput=
	bfile=-
	if [ "$br" = 1 ]; then
		binput="--input BIAS=$tmp/B.npy"
		bfile=$tmp/B.npy
	fi
	# shellcheck disable=SC2086 # optional arguments, split on purpose
	"$bin" run -q -c "configs/$cfg" asm/kernels/conv2d.s -D H="$h" -D W="$w" \
		-D CIN="$ci" -D COUT="$co" -D KH="$k" -D S="$s" -D PAD="$p" -D ITYPE=bf16 \
		-D OUT="$out" -D WITH_BIAS="$br" -D RELU="${RELU:-$br}" "$@" \
		--input X="$tmp/X.npy" --input WGT="$tmp/W.npy" $binput \
		--output Y="$tmp/Y.npy" --counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	"$conv" checkf "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" 1 "$bfile" "${RELU:-$br}" > /dev/null ||
		fail "$name: Y differs from the reference"
	rec_mtx "$name"
}
casef "default bf16 3x3 pad 1, 16->16, fp32" default.cfg 8 16 16 3 1 1 fp32 0
casef "default bf16 3x3 pad 1, 16->40, bias relu, bf16" default.cfg 8 16 40 3 1 1 bf16 1
casef "default bf16 3x3/2 pad 1, 16->24, gather, bf16" default.cfg 9 16 24 3 2 1 bf16 1
casef "default bf16 3x3 pad 1, 16->64, 2 groups of weights" default.cfg 9 16 64 3 1 1 bf16 1 -D NG=32
casef "gemmini bf16 3x3 pad 1, 32->32, fp32" gemmini.cfg 10 32 32 3 1 1 fp32 1
casef "tpu-v1 bf16 3x3 pad 1, 64->64, bf16" tpu-v1.cfg 14 64 64 3 1 1 bf16 0
# K = 27 < 256 rows, one k tile, the bias table beyond the weights: k is
# K (it was the array's 256: A rows and weights read past their ends)
casef "tpu-v1 bf16 3x3/2, 3->8, bias, one short k tile" tpu-v1.cfg 9 3 8 3 2 0 fp32 1
GROUPS=4 case_conv "default 3x3 pad 1, 32->64, 4 groups" default.cfg 8 8 32 64 3 1 1 1 int8 1 1
GROUPS=2 case_conv "default 3x3/2 pad 1, 32->32, 2 groups, int32" default.cfg 9 9 32 32 3 2 1 1 int32 0 0
GROUPS=16 case_conv "default 3x3 pad 1, depthwise 16 on the array" default.cfg 8 8 16 16 3 1 1 1 int8 1 1
GROUPS=32 case_conv "tpu-v1 3x3 pad 1, 128->128, 32 groups (ResNeXt)" tpu-v1.cfg 14 14 128 128 3 1 1 1 int8 1 1
# relu6: int8 clipped at CLIP in Y's units, float outputs at 6
CLIP=30 case_conv "default 3x3 pad 1, 16->40, relu6 (CLIP 30)" default.cfg 8 8 16 40 3 1 1 1 int8 1 2
RELU=2 casef "default bf16 3x3 pad 1, 16->40, relu6, bf16" default.cfg 8 16 40 3 1 1 bf16 1
RELU=2 casef "default bf16 3x3/2 pad 1, 16->24, relu6, fp32" default.cfg 9 16 24 3 2 1 fp32 1
# the GEMM form: X = 1 x M x K, Y = 1 x M x N (pixel rows: blocks of any
# number of pixels); a GEMV; ragged channel groups (100 = 3 x 32 + 4)
case_conv "default GEMM 40x64x48, blocks of 16 pixels" default.cfg 1 40 64 48 1 1 0 1 int8 1 0 -D RB=16
case_conv "default GEMV 1x256x100, groups of 32 (ragged)" default.cfg 1 1 256 100 1 1 0 1 int8 1 0 -D NG=32
FW=24 casef "default bf16 GEMM 24x96x72, groups of 32 (ragged)" default.cfg 1 96 72 1 1 0 bf16 1 -D NG=32
# weights pre-arranged per channel group (WPACK) and double-buffered
# (WDB); A resident in one slab (ONESLAB) while the groups stream, also
# through the gather path
PACK=32 case_conv "default GEMV 1x512x200, packed groups of 32, double-buffered" default.cfg 1 1 512 200 1 1 0 1 int8 1 0 -D WDB=1
PACK=48 case_conv "default GEMM 64x128x96, packed, one slab, double-buffered" default.cfg 1 64 128 96 1 1 0 1 int8 1 1 -D WDB=1 -D ONESLAB=1
case_conv "default 3x3/2 pad 1, 9x9x16->64, gather, one slab, 4 groups" default.cfg 9 9 16 64 3 2 1 1 int8 1 1 -D NG=16 -D ONESLAB=1 -D WDB=1
# DRAM bases placed by the caller (Y first, then the weights, the bias, X)
case_conv "default 3x3 pad 1, 16->40, tensors placed with -D" default.cfg 8 8 16 40 3 1 1 1 int8 1 1 \
	-D Y_DRAM=0x1000 -D W_DRAM=0x10000 -D BIAS_DRAM=0x20000 -D X_DRAM=0x30040
"$bin" run -q --timing-only -c configs/default.cfg asm/kernels/conv2d.s -D X_DRAM=100 \
	2> "$tmp/err" && fail "a misaligned X_DRAM was accepted"
grep -q "64-byte aligned" "$tmp/err" || fail "misaligned X_DRAM: no message"
"$bin" run -q --timing-only -c configs/default.cfg asm/kernels/conv2d.s -D Y_DRAM=0 \
	2> "$tmp/err" && fail "Y over X was accepted"
grep -q "overlaps" "$tmp/err" || fail "Y over X: no message"
# SPMD on datacenter.cfg (16 cores): the default split, rows, channels
# and a grid; the gather path; grouped; ragged groups; bf16 and int8
MINC=8 case_conv "datacenter 3x3 pad 1, 20x20x16->64, default split" datacenter.cfg 20 20 16 64 3 1 1 1 int8 1 1
MINC=16 case_conv "datacenter 3x3 pad 1, 20x20x16->64, rows (SPLIT=1)" datacenter.cfg 20 20 16 64 3 1 1 1 int8 1 1 -D SPLIT=1 -D RB=1
MINC=16 case_conv "datacenter 1x1, 7x7x64->256, channels (SPLIT=2)" datacenter.cfg 7 7 64 256 1 1 0 1 int8 1 1 -D SPLIT=2
MINC=16 case_conv "datacenter 3x3/2 pad 1, 14x14x16->64, 4x4 grid, gather" datacenter.cfg 14 14 16 64 3 2 1 1 int8 1 1 -D PC=4
MINC=16 case_conv "datacenter 3x3 pad 1, 9x9x32->64, 2 blocks x 2 groups per core" datacenter.cfg 9 9 32 64 3 1 1 1 int32 0 0 -D PC=4 -D NG=8 -D RB=2
GROUPS=4 MINC=8 case_conv "datacenter 3x3 pad 1, 8x8x32->64, 4 groups" datacenter.cfg 8 8 32 64 3 1 1 1 int8 1 1
GROUPS=3 MINC=6 case_conv "datacenter 3x3 pad 1, 8x8x48->48, 3 groups" datacenter.cfg 8 8 48 48 3 1 1 1 int8 1 1
GROUPS=16 MINC=16 case_conv "datacenter 3x3 pad 1, 32x32, depthwise 16 on the array (rows)" datacenter.cfg 32 32 16 16 3 1 1 1 int8 1 1
MINC=16 case_conv "datacenter GEMV 1x512x1000 (ragged groups of 64)" datacenter.cfg 1 1 512 1000 1 1 0 1 int8 1 0
PACK=64 MINC=16 case_conv "datacenter GEMV 1x512x1000, packed" datacenter.cfg 1 1 512 1000 1 1 0 1 int8 1 0
MINC=16 case_conv "datacenter GEMM 40x64x512, 2 groups per core, one slab" datacenter.cfg 1 40 64 512 1 1 0 1 int8 1 1 -D PC=16 -D NG=16 -D ONESLAB=1 -D WDB=1
# the input rows shared between the cores of a row over the NoC (XSHARE:
# each loads a slice and multicasts it), also through the gather path
MINC=16 case_conv "datacenter 3x3 pad 1, 14x14x16->64, 4x4 grid, XSHARE, 2 groups per core" datacenter.cfg 14 14 16 64 3 1 1 1 int8 1 1 -D PC=4 -D NG=8 -D XSHARE=1
MINC=16 case_conv "datacenter 3x3/2 pad 1, 7x7x64->256, channels, XSHARE, gather" datacenter.cfg 7 7 64 256 3 2 1 1 int8 1 1 -D XSHARE=1
RELU=2 MINC=16 casef "datacenter bf16 3x3 pad 1, 12x12x32->96, relu6" datacenter.cfg 12 32 96 3 1 1 bf16 1
MINC=16 casef "datacenter bf16 3x3/2 pad 1, 15x15x16->128, fp32" datacenter.cfg 15 16 128 3 2 1 fp32 1
golden
# A batch in one launch (BATCH=N: X N x H x W x CIN, Y N x HO x WO x
# COUT), against convref's batched reference: the direct path with
# several images per block (side by side in the slab), per-image row
# blocks (RB given, the gather path for strides), ragged channel groups,
# bf16, several cores.  Asserted: exact Y, no hazards, and fewer cycles
# than N launches of one image (the weights are loaded once per group).
# case_batch NAME CONFIG N H W CIN COUT K S PAD OUT [-D ...]
case_batch() {
	name=$1 cfg=$2 nb=$3 h=$4 w=$5 ci=$6 co=$7 k=$8 s=$9
	shift 9
	p=$1 out=$2
	shift 2
	gen=gen it=
	case $out in bf16 | fp32) gen=genf it="-D ITYPE=bf16" ;; esac
	bn=
	[ "$nb" -gt 1 ] && gen=${gen%f}b${gen#gen} bn=$nb	# genb, genbf: N first
	# shellcheck disable=SC2086 # no N for one image (X H x W x CIN)
	"$conv" "$gen" $bn "$h" "$w" "$ci" "$co" "$k" "$k" $((h * 3 + co)) \
		"$tmp/X.npy" "$tmp/W.npy" "$tmp/B.npy" || fail "$name: gen failed"
	# shellcheck disable=SC2086 # optional arguments, split on purpose
	set -- -c "configs/$cfg" asm/kernels/conv2d.s -D H="$h" -D W="$w" \
		-D CIN="$ci" -D COUT="$co" -D KH="$k" -D S="$s" -D PAD="$p" \
		-D OUT="$out" $it -D WITH_BIAS=1 -D RELU=1 "$@"
	"$bin" run -q "$@" -D BATCH="$nb" --input X="$tmp/X.npy" --input WGT="$tmp/W.npy" \
		--input BIAS="$tmp/B.npy" --output Y="$tmp/Y.npy" --counters "$tmp/c.csv" \
		--check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	if [ "$out" = int8 ]; then
		"$conv" check "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" 1 8 "$tmp/B.npy" 1 > /dev/null
	else
		"$conv" checkf "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" 1 "$tmp/B.npy" 1 > /dev/null
	fi || fail "$name: Y differs from the reference"
	cb=$(counter "$tmp/c.csv" cycles)
	"$bin" run -q --timing-only "$@" --counters "$tmp/c1.csv" 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: the one-image run failed"; }
	c1=$(counter "$tmp/c1.csv" cycles)
	if [ "$nb" -gt 1 ]; then
		[ "$cb" -lt $((nb * c1)) ] || fail "$name: batch $nb took $cb cycles, $nb images alone $((nb * c1))"
	fi
}
case_batch "default batch 1, 3x3 pad 1" default.cfg 1 7 7 16 24 3 1 1 int8
case_batch "default batch 3, 7x7 3x3 pad 1, images side by side" default.cfg 3 7 7 16 24 3 1 1 int8
case_batch "default batch 8, 5x6 3x3 pad 1, 24->70 (ragged groups)" default.cfg 8 5 6 24 70 3 1 1 int8 -D NG=32
case_batch "default batch 8, 5x6 3x3 no pad" default.cfg 8 5 6 24 40 3 1 0 int8
case_batch "default batch 3, 12x10, row blocks of 4" default.cfg 3 12 10 16 40 3 1 1 int8 -D RB=4
case_batch "default batch 8, 9x11 3x3/2 pad 1, gather" default.cfg 8 9 11 20 40 3 2 1 int8
case_batch "default batch 8, 6x6 1x1 (FLAT)" default.cfg 8 6 6 16 64 1 1 0 int8
case_batch "gemmini batch 3, bf16 7x7 3x3 pad 1" gemmini.cfg 3 7 7 32 48 3 1 1 bf16
case_batch "gemmini batch 8, bf16 9x9 3x3/2 pad 1, fp32" gemmini.cfg 8 9 9 16 24 3 2 1 fp32
case_batch "datacenter batch 3, 7x7 3x3 pad 1 (16 cores)" datacenter.cfg 3 7 7 32 64 3 1 1 int8
case_batch "datacenter batch 8, 9x9 3x3/2 pad 1 (16 cores)" datacenter.cfg 8 9 9 32 64 3 2 1 int8
# The batch filling the array: 7x7x512 -> 512, 3x3 pad 1 over 64 images
# on tpu-v1 (timing only): the useful MACs (N*HO*WO*K*COUT) over the
# array's capacity (cycles x 256 x 256) are at least 35 % (one image per
# launch: under 3 %).
"$bin" run -q --timing-only -c configs/tpu-v1.cfg asm/kernels/conv2d.s -D BATCH=64 \
	-D H=7 -D W=7 -D CIN=512 -D COUT=512 -D KH=3 -D PAD=1 --counters "$tmp/c.csv" ||
	fail "7x7x512 batch 64: run failed"
cy=$(counter "$tmp/c.csv" cycles)
[ $((64 * 49 * 4608 * 512 * 100)) -ge $((cy * 65536 * 35)) ] ||
	fail "7x7x512 batch 64: $cy cycles, under 35 % of the array"
