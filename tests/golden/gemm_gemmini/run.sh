# The same kernel on a 16x16 array (configs/gemmini.cfg): exact output and
# the fold model at another array size.
. "$(dirname "$0")/../lib.sh"
M=64 K=48 N=32
"$ref" gen $M $K $N 11 "$tmp/A.npy" "$tmp/B.npy"
for df in ws os is; do
	"$bin" run -q -c configs/gemmini.cfg asm/kernels/gemm.s -D DF=$df \
		-D ROWS=16 -D COLS=16 -D M=$M -D K=$K -D N=$N \
		--input A="$tmp/A.npy" --input B="$tmp/B.npy" --output C="$tmp/C.npy" \
		--counters "$tmp/c.csv" || fail "$df: run failed"
	"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" >/dev/null ||
		fail "$df: output differs from the reference"
	want=$(fold_cycles $df $M $K $N 16 16)
	busy=$(counter "$tmp/c.csv" core0.matrix.busy_cycles)
	stall=$(counter "$tmp/c.csv" core0.matrix.stall_cycles)
	[ $((busy - stall)) = "$want" ] || fail "$df: busy $busy - stall $stall != $want"
	record "$df cycles $(counter "$tmp/c.csv" core0.cycles) matrix_busy $busy stall $stall"
done
golden
