# norm.s (layernorm and rmsnorm of fp32 rows with gamma and beta, any row
# length, streamed in blocks; statistics as column operands and gamma/beta
# as row operands: vset bc): every element within 5e-5 of a double
# reference (fp32 statistics), no hazards, on default.cfg, gemmini.cfg and
# tpu-v1.cfg.  Golden: cycles and vector busy cycles.
. "$(dirname "$0")/../lib.sh"
ln=$build/lnref
for mode in 0 1; do
	for cfg in default.cfg gemmini.cfg tpu-v1.cfg; do
		for shape in "16 64" "50 1000" "5 3001"; do
			set -- $shape
			"$ln" gen "$1" "$2" 7 "$tmp/X.npy"
			"$ln" gen 1 "$2" 8 "$tmp/G.npy"
			"$ln" gen 1 "$2" 9 "$tmp/B.npy"
			binput=
			bfile=-
			if [ "$mode" = 0 ]; then
				binput="--input B=$tmp/B.npy"
				bfile=$tmp/B.npy
			fi
			# shellcheck disable=SC2086 # optional arguments, split on purpose
			"$bin" run -q -c "configs/$cfg" asm/kernels/norm.s -D R="$1" -D L="$2" -D MODE=$mode \
				--input X="$tmp/X.npy" --input G="$tmp/G.npy" $binput --output Y="$tmp/Y.npy" \
				--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
				{ cat "$tmp/err" >&2; fail "mode $mode $cfg $1x$2: run failed"; }
			"$ln" ncheck $mode "$tmp/X.npy" "$tmp/G.npy" "$bfile" "$tmp/Y.npy" 5e-5 > "$tmp/out" ||
				fail "mode $mode $cfg $1x$2: $(cat "$tmp/out")"
			record "mode $mode $cfg ${1}x$2: cycles $(counter "$tmp/c.csv" cycles) vector_busy $(counter "$tmp/c.csv" core0.vector.busy_cycles)"
		done
	done
done
golden
