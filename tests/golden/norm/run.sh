# norm.s (layernorm and rmsnorm of fp32, bf16 and fp16 rows with gamma and beta, any row
# length, streamed in blocks; statistics as column operands and gamma/beta
# as row operands: vset bc): every element within 5e-5 of a double
# reference (fp32 statistics), no hazards, on default.cfg, gemmini.cfg,
# tpu-v1.cfg and datacenter.cfg (16 cores, the rows split between them).
# Golden: cycles and vector busy cycles.
. "$(dirname "$0")/../lib.sh"
ln=$build/lnref
for mode in 0 1; do
	for cfg in default.cfg gemmini.cfg tpu-v1.cfg datacenter.cfg; do
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
			record "mode $mode $cfg ${1}x$2: cycles $(counter "$tmp/c.csv" cycles) vector_busy $(counter_sum "$tmp/c.csv" 'core[0-9]+\.vector\.busy_cycles')"
		done
	done
done
# bf16 and fp16 rows (fp32 statistics, one rounding into the type at the
# end: within the tolerance plus the type's half ulp), inputs exact in the
# type (lnref gen rounds them to its 8 or 11 significant bits).
for dt in "bf16 8" "fp16 11"; do
	set -- $dt
	for cfg in default.cfg datacenter.cfg; do
		"$ln" gen 50 1000 7 "$tmp/X.npy" "$2"
		"$ln" gen 1 1000 8 "$tmp/G.npy"
		"$ln" gen 1 1000 9 "$tmp/B.npy"
		"$bin" run -q -c "configs/$cfg" asm/kernels/norm.s -D R=50 -D L=1000 -D DT="$1" \
			--input X="$tmp/X.npy" --input G="$tmp/G.npy" --input B="$tmp/B.npy" --output Y="$tmp/Y.npy" \
			--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
			{ cat "$tmp/err" >&2; fail "$1 $cfg: run failed"; }
		"$ln" ncheck 0 "$tmp/X.npy" "$tmp/G.npy" "$tmp/B.npy" "$tmp/Y.npy" 5e-5 > "$tmp/out" ||
			fail "$1 $cfg: $(cat "$tmp/out")"
		record "layernorm $1 $cfg 50x1000: cycles $(counter "$tmp/c.csv" cycles)"
	done
done
golden
