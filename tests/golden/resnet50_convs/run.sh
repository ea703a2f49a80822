# ResNet-50's distinct convolutions (torchvision v1.5, 224x224, batch 1) as
# conv2d.s runs them on tpu-v1.cfg: every output of every layer exact
# against tests/tools/convref (int8 in, fused bias + relu + requantisation
# out, random inputs and weights), and the cycles golden.  docs/kernels.md
# has the same layers measured against the roofline.
. "$(dirname "$0")/../lib.sh"
conv=$build/convref
# layer NAME H CIN COUT K S PAD
layer() {
	name=$1 h=$2 ci=$3 co=$4 k=$5 s=$6 p=$7
	"$conv" gen "$h" "$h" "$ci" "$co" "$k" "$k" $((h + ci + co)) "$tmp/X.npy" "$tmp/W.npy" "$tmp/B.npy"
	"$bin" run -q -c configs/tpu-v1.cfg asm/kernels/conv2d.s -D H="$h" -D W="$h" \
		-D CIN="$ci" -D COUT="$co" -D KH="$k" -D S="$s" -D PAD="$p" -D WITH_BIAS=1 -D RELU=1 \
		--input X="$tmp/X.npy" --input WGT="$tmp/W.npy" --input BIAS="$tmp/B.npy" \
		--output Y="$tmp/Y.npy" --counters "$tmp/c.csv" 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed"; }
	"$conv" check "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" 1 8 "$tmp/B.npy" 1 > /dev/null ||
		fail "$name: Y differs from the reference"
	record "$name: cycles $(counter "$tmp/c.csv" cycles) matrix_busy $(counter "$tmp/c.csv" core0.matrix.busy_cycles)"
}
layer "stem 7x7/2 224 3->64" 224 3 64 7 2 3
layer "l1 1x1 56 64->64" 56 64 64 1 1 0
layer "l1 3x3 56 64->64" 56 64 64 3 1 1
layer "l1 1x1 56 64->256" 56 64 256 1 1 0
layer "l1 1x1 56 256->64" 56 256 64 1 1 0
layer "l2 1x1 56 256->128" 56 256 128 1 1 0
layer "l2 3x3/2 56 128->128" 56 128 128 3 2 1
layer "l2 1x1 28 128->512" 28 128 512 1 1 0
layer "l2 ds 1x1/2 56 256->512" 56 256 512 1 2 0
layer "l2 1x1 28 512->128" 28 512 128 1 1 0
layer "l2 3x3 28 128->128" 28 128 128 3 1 1
layer "l3 1x1 28 512->256" 28 512 256 1 1 0
layer "l3 3x3/2 28 256->256" 28 256 256 3 2 1
layer "l3 1x1 14 256->1024" 14 256 1024 1 1 0
layer "l3 ds 1x1/2 28 512->1024" 28 512 1024 1 2 0
layer "l3 1x1 14 1024->256" 14 1024 256 1 1 0
layer "l3 3x3 14 256->256" 14 256 256 3 1 1
layer "l4 1x1 14 1024->512" 14 1024 512 1 1 0
layer "l4 3x3/2 14 512->512" 14 512 512 3 2 1
layer "l4 1x1 7 512->2048" 7 512 2048 1 1 0
layer "l4 ds 1x1/2 14 1024->2048" 14 1024 2048 1 2 0
layer "l4 1x1 7 2048->512" 7 2048 512 1 1 0
layer "l4 3x3 7 512->512" 7 512 512 3 1 1
golden
