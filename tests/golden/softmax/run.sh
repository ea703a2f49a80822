# softmax.s (rows of fp32, numerically stable, streamed in blocks with the
# per-row max and 1/sum as column operands: vset bc): every element within
# 1e-6 relative error of a double reference, no hazards, on default.cfg,
# gemmini.cfg, tpu-v1.cfg and datacenter.cfg (16 cores, the rows split
# between them); rows longer than the lanes, odd lengths,
# several blocks.  Golden: cycles and vector busy cycles.
. "$(dirname "$0")/../lib.sh"
ln=$build/lnref
for cfg in default.cfg gemmini.cfg tpu-v1.cfg datacenter.cfg; do
	for shape in "16 256" "100 1000" "3 4097"; do
		set -- $shape
		"$ln" gen "$1" "$2" 7 "$tmp/X.npy"
		"$bin" run -q -c "configs/$cfg" asm/kernels/softmax.s -D R="$1" -D L="$2" \
			--input X="$tmp/X.npy" --output Y="$tmp/Y.npy" --counters "$tmp/c.csv" \
			--check-hazards 2> "$tmp/err" || { cat "$tmp/err" >&2; fail "$cfg $1x$2: run failed"; }
		"$ln" smcheck "$tmp/X.npy" "$tmp/Y.npy" 1e-6 > "$tmp/out" ||
			fail "$cfg $1x$2: $(cat "$tmp/out")"
		record "$cfg ${1}x$2: cycles $(counter "$tmp/c.csv" cycles) vector_busy $(counter_sum "$tmp/c.csv" 'core[0-9]+\.vector\.busy_cycles')"
	done
done
# bf16 and fp16 rows: computed in fp32 (vcvt in), rounded once into the
# type (within 1e-6 relative beyond that rounding), inputs exact in it.
for dt in "bf16 8" "fp16 11"; do
	set -- $dt
	for cfg in default.cfg datacenter.cfg; do
		"$ln" gen 100 1000 7 "$tmp/X.npy" "$2"
		"$bin" run -q -c "configs/$cfg" asm/kernels/softmax.s -D R=100 -D L=1000 -D DT="$1" \
			--input X="$tmp/X.npy" --output Y="$tmp/Y.npy" --counters "$tmp/c.csv" \
			--check-hazards 2> "$tmp/err" || { cat "$tmp/err" >&2; fail "$1 $cfg: run failed"; }
		"$ln" smcheck "$tmp/X.npy" "$tmp/Y.npy" 1e-6 > "$tmp/out" || fail "$1 $cfg: $(cat "$tmp/out")"
		record "$1 $cfg 100x1000: cycles $(counter "$tmp/c.csv" cycles)"
	done
done
golden
