# GEMMs whose shapes are not multiples of the array (partial folds) and whose
# rows straddle bank words: exact output, busy = fold model + counted SRAM
# stalls, golden cycles.
. "$(dirname "$0")/../lib.sh"
for shape in "100 70 90" "33 17 5" "1 1 1" "31 33 65"; do
	set -- $shape
	M=$1 K=$2 N=$3
	"$ref" gen $M $K $N $((M + K + N)) "$tmp/A.npy" "$tmp/B.npy"
	for df in ws os is; do
		"$bin" run -q -c configs/default.cfg asm/kernels/gemm.s -D DF=$df \
			-D M=$M -D K=$K -D N=$N --input A="$tmp/A.npy" --input B="$tmp/B.npy" \
			--output C="$tmp/C.npy" --counters "$tmp/c.csv" --check-hazards ||
			fail "$df $shape: run failed"
		"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" >/dev/null ||
			fail "$df $shape: output differs from the reference"
		want=$(fold_cycles $df $M $K $N 32 32)
		busy=$(counter "$tmp/c.csv" core0.matrix.busy_cycles)
		stall=$(counter "$tmp/c.csv" core0.matrix.stall_cycles)
		[ $((busy - stall)) = "$want" ] ||
			fail "$df $shape: busy $busy - stall $stall != fold model $want"
		record "$df M=$M K=$K N=$N cycles $(counter "$tmp/c.csv" core0.cycles) matrix_busy $busy stall $stall"
	done
done
golden
