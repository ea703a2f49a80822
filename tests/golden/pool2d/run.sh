# pool2d.s (int8 NHWC max and average pooling on the vector unit): every
# output exact against tests/tools/convref's window loop (max ignores the
# padding, avg divides by K*K with the padding counted as zeros, ties to
# even), no hazards, on default.cfg, gemmini.cfg and tpu-v1.cfg; ResNet-50's
# max pool (3x3/2, pad 1) and global average pool (7x7 over 7x7) among
# them, several row blocks, overlapping and disjoint windows.  Golden:
# cycles and vector busy cycles.
. "$(dirname "$0")/../lib.sh"
conv=$build/convref
# case NAME CONFIG H W C K S PAD max|avg [-D ...]
case_pool() {
	name=$1 cfg=$2 h=$3 w=$4 c=$5 k=$6 s=$7 p=$8 kind=$9
	shift 9
	avg=0
	[ "$kind" = avg ] && avg=1
	"$conv" gen "$h" "$w" "$c" 1 1 1 $((h + c)) "$tmp/X.npy" "$tmp/unused.npy"
	"$bin" run -q -c "configs/$cfg" asm/kernels/pool2d.s -D H="$h" -D W="$w" \
		-D C="$c" -D K="$k" -D S="$s" -D PAD="$p" -D AVG="$avg" "$@" \
		--input X="$tmp/X.npy" --output Y="$tmp/Y.npy" --counters "$tmp/c.csv" \
		--check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	"$conv" pool "$tmp/X.npy" "$tmp/Y.npy" "$kind" "$k" "$s" "$p" > /dev/null ||
		fail "$name: Y differs from the reference"
	record "$name: cycles $(counter "$tmp/c.csv" cycles) vector_busy $(counter "$tmp/c.csv" core0.vector.busy_cycles)"
}
case_pool "default max 3x3/2 pad 1, 56x56x64" default.cfg 56 56 64 3 2 1 max
case_pool "default avg 3x3/2 pad 1" default.cfg 8 8 16 3 2 1 avg
case_pool "default max 2x2/2, 3 row blocks" default.cfg 12 10 24 2 2 0 max -D RB=2
case_pool "default avg 2x2/1 pad 1" default.cfg 9 9 8 2 1 1 avg
case_pool "default global avg 7x7x64" default.cfg 7 7 64 7 1 0 avg
case_pool "gemmini avg 3x3/1 pad 1" gemmini.cfg 14 14 32 3 1 1 avg
case_pool "gemmini max 3x3/2 pad 1" gemmini.cfg 15 15 16 3 2 1 max
case_pool "tpu-v1 global avg 7x7x2048 (ResNet-50)" tpu-v1.cfg 7 7 2048 7 1 0 avg
case_pool "tpu-v1 max 3x3/2 pad 1, 112x112x64 (ResNet-50)" tpu-v1.cfg 112 112 64 3 2 1 max
golden
