# conv2d.s (int8 NHWC convolution on the weight-stationary array): every
# output exact against tests/tools/convref's seven-deep loop, no hazards,
# on default.cfg (32x32), gemmini.cfg (16x16) and tpu-v1.cfg (256x256).
# Both ways of feeding the array are covered: direct (stride 1, the slab
# is A) and the im2col gather (strides, dilation, ResNet-50's 7x7 stem on
# a small input), padding on every side, partial k and n tiles, several
# row blocks, channel groups (weights that do not fit), grouped
# convolutions (GROUPS; depthwise as GROUPS = CIN), int32 output, the fused
# bias + relu + requantisation, and bf16 inputs with fp32 or bf16 outputs
# (exact: the inputs are multiples of 1/8, every partial sum exact in fp32).  Golden: cycles and matrix busy
# cycles.
. "$(dirname "$0")/../lib.sh"
conv=$build/convref
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
	# shellcheck disable=SC2086 # optional arguments, split on purpose
	"$bin" run -q -c "configs/$cfg" asm/kernels/conv2d.s -D H="$h" -D W="$w" \
		-D CIN="$ci" -D COUT="$co" -D KH="$k" -D S="$s" -D PAD="$p" -D DIL="$d" \
		-D OUT="$out" -D WITH_BIAS="$bias" -D RELU="$relu" -D GROUPS="$g" "$@" \
		--input X="$tmp/X.npy" --input WGT="$tmp/W.npy" $binput \
		--output Y="$tmp/Y.npy" --counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	if [ "$out" = int8 ]; then
		bfile=-
		[ "$bias" = 1 ] && bfile=$tmp/B.npy
		"$conv" check "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" "$d" 8 "$bfile" "$relu" "$g" > /dev/null ||
			fail "$name: Y differs from the reference"
	else
		"$conv" check "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" "$d" -1 - 0 "$g" > /dev/null ||
			fail "$name: Y differs from the reference"
	fi
	record "$name: cycles $(counter "$tmp/c.csv" cycles) matrix_busy $(counter "$tmp/c.csv" core0.matrix.busy_cycles)"
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
casef() {
	name=$1 cfg=$2 h=$3 ci=$4 co=$5 k=$6 s=$7 p=$8 out=$9
	shift 9
	br=$1
	shift
	"$conv" genf "$h" "$h" "$ci" "$co" "$k" "$k" $((h + co)) "$tmp/X.npy" "$tmp/W.npy" "$tmp/B.npy"
	binput=
	bfile=-
	if [ "$br" = 1 ]; then
		binput="--input BIAS=$tmp/B.npy"
		bfile=$tmp/B.npy
	fi
	# shellcheck disable=SC2086 # optional arguments, split on purpose
	"$bin" run -q -c "configs/$cfg" asm/kernels/conv2d.s -D H="$h" -D W="$h" \
		-D CIN="$ci" -D COUT="$co" -D KH="$k" -D S="$s" -D PAD="$p" -D ITYPE=bf16 \
		-D OUT="$out" -D WITH_BIAS="$br" -D RELU="$br" "$@" \
		--input X="$tmp/X.npy" --input WGT="$tmp/W.npy" $binput \
		--output Y="$tmp/Y.npy" --counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	"$conv" checkf "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" 1 "$bfile" "$br" > /dev/null ||
		fail "$name: Y differs from the reference"
	record "$name: cycles $(counter "$tmp/c.csv" cycles) matrix_busy $(counter "$tmp/c.csv" core0.matrix.busy_cycles)"
}
casef "default bf16 3x3 pad 1, 16->16, fp32" default.cfg 8 16 16 3 1 1 fp32 0
casef "default bf16 3x3 pad 1, 16->40, bias relu, bf16" default.cfg 8 16 40 3 1 1 bf16 1
casef "default bf16 3x3/2 pad 1, 16->24, gather, bf16" default.cfg 9 16 24 3 2 1 bf16 1
casef "default bf16 3x3 pad 1, 16->64, 2 groups of weights" default.cfg 9 16 64 3 1 1 bf16 1 -D NG=32
casef "gemmini bf16 3x3 pad 1, 32->32, fp32" gemmini.cfg 10 32 32 3 1 1 fp32 1
casef "tpu-v1 bf16 3x3 pad 1, 64->64, bf16" tpu-v1.cfg 14 64 64 3 1 1 bf16 0
GROUPS=4 case_conv "default 3x3 pad 1, 32->64, 4 groups" default.cfg 8 8 32 64 3 1 1 1 int8 1 1
GROUPS=2 case_conv "default 3x3/2 pad 1, 32->32, 2 groups, int32" default.cfg 9 9 32 32 3 2 1 1 int32 0 0
GROUPS=16 case_conv "default 3x3 pad 1, depthwise 16 on the array" default.cfg 8 8 16 16 3 1 1 1 int8 1 1
GROUPS=32 case_conv "tpu-v1 3x3 pad 1, 128->128, 32 groups (ResNeXt)" tpu-v1.cfg 14 14 128 128 3 1 1 1 int8 1 1
golden
