# bf16 and fp16 GEMMs (fp32 accumulation) on every dataflow: the float32
# inputs are converted to the tensor type on --input, moved with 2-byte DMA
# elements, multiplied in the array and accumulated in fp32.  The inputs are
# multiples of 1/8 in [-2, 2], so every product and partial sum is exact and
# C must equal the double-precision reference bit for bit.
. "$(dirname "$0")/../lib.sh"
M=100 K=70 N=90
"$ref" genf $M $K $N 17 "$tmp/A.npy" "$tmp/B.npy"
for it in bf16 fp16; do
	for df in ws os is; do
		"$bin" run -q -c configs/default.cfg asm/kernels/gemm.s -D IT=$it -D DF=$df \
			-D M=$M -D K=$K -D N=$N --input A="$tmp/A.npy" --input B="$tmp/B.npy" \
			--output C="$tmp/C.npy" --counters "$tmp/c.csv" --check-hazards ||
			fail "$it $df: run failed"
		"$ref" checkf "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" >/dev/null ||
			fail "$it $df: output differs from the reference"
		want=$(fold_cycles $df $M $K $N 32 32)
		busy=$(counter "$tmp/c.csv" core0.matrix.busy_cycles)
		stall=$(counter "$tmp/c.csv" core0.matrix.stall_cycles)
		[ $((busy - stall)) = "$want" ] || fail "$it $df: busy $busy - stall $stall != $want"
		record "$it $df cycles $(counter "$tmp/c.csv" core0.cycles) matrix_busy $busy stall $stall"
	done
done
golden
