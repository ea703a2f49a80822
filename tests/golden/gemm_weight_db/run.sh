# Weight double-buffering (core.matrix.weight_double_buffer): every preload
# after the first loads the shadow weights while the previous fold streams,
# so the WS matrix engine is busy folds * (M + R + C - 2) + R cycles plus the
# SRAM stalls the overlapped preload causes (it shares the scratchpad banks
# with the streaming A rows); outputs are identical to the single-buffered
# run.
. "$(dirname "$0")/../lib.sh"
M=64 K=96 N=64 R=32 C=32
"$ref" gen $M $K $N 7 "$tmp/A.npy" "$tmp/B.npy"
for db in false true; do
	"$bin" run -q -c configs/default.cfg -s core.matrix.weight_double_buffer=$db \
		asm/kernels/gemm.s -D M=$M -D K=$K -D N=$N \
		--input A="$tmp/A.npy" --input B="$tmp/B.npy" --output C="$tmp/C_$db.npy" \
		--counters "$tmp/c_$db.csv" --check-hazards || fail "db=$db: run failed"
	"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C_$db.npy" >/dev/null ||
		fail "db=$db: output differs from the reference"
done
cmp -s "$tmp/C_false.npy" "$tmp/C_true.npy" || fail "outputs differ with double buffering"
folds=$(( (K + R - 1) / R * ((N + C - 1) / C) ))
busy=$(counter "$tmp/c_true.csv" core0.matrix.busy_cycles)
stall=$(counter "$tmp/c_true.csv" core0.matrix.stall_cycles)
pre=$(counter "$tmp/c_true.csv" core0.matrix.preload_cycles)
want=$(( folds * (M + R + C - 2) + R ))
[ $((busy - stall)) = $want ] || fail "busy $busy - stall $stall != $want"
[ "$pre" = $R ] || fail "visible preload $pre cycles, expected only the first ($R)"
single=$(counter "$tmp/c_false.csv" core0.matrix.busy_cycles)
[ "$busy" -lt "$single" ] || fail "double buffering did not shorten the matrix engine's busy time"
record "single: matrix busy $single, cycles $(counter "$tmp/c_false.csv" cycles)"
record "double: matrix busy $busy (stall $stall, visible preload $pre), cycles $(counter "$tmp/c_true.csv" cycles)"
golden
