# The per-PE reference model of the array gives the same values and the same
# cycle counts as the fast model, end to end.
. "$(dirname "$0")/../lib.sh"
M=40 K=40 N=36
"$ref" gen $M $K $N 5 "$tmp/A.npy" "$tmp/B.npy"
for df in ws os is; do
	for model in fast pe; do
		"$bin" run -q -c configs/gemmini.cfg asm/kernels/gemm.s -D DF=$df \
			-D ROWS=16 -D COLS=16 -D M=$M -D K=$K -D N=$N --matrix-model=$model \
			--input A="$tmp/A.npy" --input B="$tmp/B.npy" --output C="$tmp/C_$model.npy" \
			--counters "$tmp/c_$model.csv" || fail "$df $model: run failed"
	done
	cmp -s "$tmp/C_fast.npy" "$tmp/C_pe.npy" || fail "$df: pe and fast outputs differ"
	grep -v "^#" "$tmp/c_fast.csv" > "$tmp/f.csv"; grep -v "^#" "$tmp/c_pe.csv" > "$tmp/p.csv"
	# The files differ in their "# override: core.matrix.model=" line only.
	cmp -s "$tmp/f.csv" "$tmp/p.csv" || {
		diff "$tmp/f.csv" "$tmp/p.csv" | head >&2
		fail "$df: pe and fast counters differ"
	}
	"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C_pe.npy" >/dev/null ||
		fail "$df: output differs from the reference"
	record "$df cycles $(counter "$tmp/c_pe.csv" core0.cycles) (pe == fast)"
done
golden
