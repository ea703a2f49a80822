# reduce.s (row reductions of fp32: sum, max, min, mean, argmax - the
# argmax from vcmpeq against the max as a column operand, an iota row and
# vredmin): max, min and argmax exact, sum and mean within 1e-5 relative,
# no hazards, on default.cfg, gemmini.cfg, tpu-v1.cfg and datacenter.cfg (16
# cores, the rows split between them).  Golden: cycles.
. "$(dirname "$0")/../lib.sh"
ln=$build/lnref
for op in 0 1 2 3 4; do
	for cfg in default.cfg gemmini.cfg tpu-v1.cfg datacenter.cfg; do
		for shape in "16 64" "50 1000" "5 3001"; do
			set -- $shape
			"$ln" gen "$1" "$2" 7 "$tmp/X.npy"
			"$bin" run -q -c "configs/$cfg" asm/kernels/reduce.s -D R="$1" -D L="$2" -D OP=$op \
				--input X="$tmp/X.npy" --output Y="$tmp/Y.npy" --counters "$tmp/c.csv" \
				--check-hazards 2> "$tmp/err" ||
				{ cat "$tmp/err" >&2; fail "op $op $cfg $1x$2: run failed"; }
			"$ln" rdcheck $op "$tmp/X.npy" "$tmp/Y.npy" 1e-5 > "$tmp/out" 2>&1 ||
				fail "op $op $cfg $1x$2: $(cat "$tmp/out")"
			record "op $op $cfg ${1}x$2: cycles $(counter "$tmp/c.csv" cycles)"
		done
	done
done
golden
