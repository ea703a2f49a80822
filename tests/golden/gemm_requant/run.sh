# GEMM with int8 output: mout requantises the int32 accumulator
# (sat_int8(round_even(C * 2^-SHIFT))) on every dataflow, exact against the
# reference, from heavy saturation (SHIFT=0) to mostly rounding.
. "$(dirname "$0")/../lib.sh"
M=100 K=70 N=90
"$ref" gen $M $K $N 21 "$tmp/A.npy" "$tmp/B.npy"
for shift in 0 7 9 12; do
	for df in ws os is; do
		"$bin" run -q -c configs/default.cfg asm/kernels/gemm.s -D DF=$df \
			-D M=$M -D K=$K -D N=$N -D OUT=int8 -D SHIFT=$shift \
			--input A="$tmp/A.npy" --input B="$tmp/B.npy" --output C="$tmp/C.npy" \
			--counters "$tmp/c.csv" --check-hazards || fail "$df SHIFT=$shift: run failed"
		"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" $shift >/dev/null ||
			fail "$df SHIFT=$shift: output differs from the reference"
		record "$df SHIFT=$shift cycles $(counter "$tmp/c.csv" core0.cycles) mout_cycles $(counter "$tmp/c.csv" core0.matrix.out_cycles)"
	done
done
golden
