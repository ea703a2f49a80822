# reduce.s (reductions of fp32 along the last axis: sum, max, min, mean, argmax - the
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
# Other axes (a chunk of rows reduced by pairs, folded into a result row):
# columns of a 2-D tensor and every axis of a 4-D one, several row and
# column chunks (700 x 1500), values rounded to 4 significant bits so
# that argmax meets ties (the first index must win), on default.cfg and
# datacenter.cfg.
for op in 0 1 2 3 4; do
	for cfg in default.cfg datacenter.cfg; do
		"$ln" gen 700 1500 3 "$tmp/X.npy" 4
		"$bin" run -q -c "configs/$cfg" asm/kernels/reduce.s -D R=700 -D L=1500 -D AXIS=0 -D OP=$op \
			--input X="$tmp/X.npy" --output Y="$tmp/Y.npy" --counters "$tmp/c.csv" \
			--check-hazards 2> "$tmp/err" ||
			{ cat "$tmp/err" >&2; fail "op $op $cfg axis 0: run failed"; }
		"$ln" rdcheck $op "$tmp/X.npy" "$tmp/Y.npy" 1e-5 0 > "$tmp/out" 2>&1 ||
			fail "op $op $cfg axis 0: $(cat "$tmp/out")"
		record "op $op $cfg 700x1500 axis 0: cycles $(counter "$tmp/c.csv" cycles)"
		for ax in 0 1 2 3; do
			"$ln" gen4 3 5 7 40 2 "$tmp/X.npy" 4
			"$bin" run -q -c "configs/$cfg" asm/kernels/reduce.s -D D0=3 -D D1=5 -D D2=7 -D D3=40 \
				-D AXIS=$ax -D OP=$op --input X="$tmp/X.npy" --output Y="$tmp/Y.npy" \
				--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
				{ cat "$tmp/err" >&2; fail "op $op $cfg 4-D axis $ax: run failed"; }
			"$ln" rdcheck $op "$tmp/X.npy" "$tmp/Y.npy" 1e-5 $ax > "$tmp/out" 2>&1 ||
				fail "op $op $cfg 4-D axis $ax: $(cat "$tmp/out")"
			record "op $op $cfg 3x5x7x40 axis $ax: cycles $(counter "$tmp/c.csv" cycles)"
		done
	done
done
golden
