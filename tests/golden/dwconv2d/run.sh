# dwconv2d.s (int8 NHWC depthwise convolution on the vector unit): every
# output exact against tests/tools/convref's window loop, no hazards, on
# default.cfg, gemmini.cfg and tpu-v1.cfg; strides 1 and 2, 3x3 and 5x5,
# padding, bias and relu, several row blocks and pixel chunks.  Golden:
# cycles and vector busy cycles.
. "$(dirname "$0")/../lib.sh"
conv=$build/convref
# case NAME CONFIG H W C K S PAD BIAS RELU [-D ...]
case_dw() {
	name=$1 cfg=$2 h=$3 w=$4 c=$5 k=$6 s=$7 p=$8 bias=$9
	shift 9
	relu=$1
	shift
	"$conv" gendw "$h" "$w" "$c" "$k" $((h * 3 + c)) "$tmp/X.npy" "$tmp/W.npy" "$tmp/B.npy"
	binput=
	bfile=-
	if [ "$bias" = 1 ]; then
		binput="--input BIAS=$tmp/B.npy"
		bfile=$tmp/B.npy
	fi
	# shellcheck disable=SC2086 # optional arguments, split on purpose
	"$bin" run -q -c "configs/$cfg" asm/kernels/dwconv2d.s -D H="$h" -D W="$w" \
		-D C="$c" -D K="$k" -D S="$s" -D PAD="$p" -D WITH_BIAS="$bias" -D RELU="$relu" "$@" \
		--input X="$tmp/X.npy" --input WGT="$tmp/W.npy" $binput --output Y="$tmp/Y.npy" \
		--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	"$conv" dwcheck "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" 8 "$bfile" "$relu" > /dev/null ||
		fail "$name: Y differs from the reference"
	record "$name: cycles $(counter "$tmp/c.csv" cycles) vector_busy $(counter "$tmp/c.csv" core0.vector.busy_cycles)"
}
case_dw "default 3x3 pad 1, C16" default.cfg 8 8 16 3 1 1 0 0
case_dw "default 3x3 pad 1, C16, bias relu" default.cfg 8 8 16 3 1 1 1 1
case_dw "default 3x3/2 pad 1, C24, bias" default.cfg 9 11 24 3 2 1 1 0
case_dw "default 5x5 pad 2, C32, relu, chunks of 5" default.cfg 14 14 32 5 1 2 0 1 -D RB=3 -D WC=5
case_dw "gemmini 3x3/2 pad 1, C32, bias relu" gemmini.cfg 12 12 32 3 2 1 1 1
case_dw "tpu-v1 3x3 pad 1, 28x28x64, bias relu" tpu-v1.cfg 28 28 64 3 1 1 1 1
golden
