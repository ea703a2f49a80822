# A layernorm-shaped sequence on the vector unit (row reductions, scaling,
# rsqrt, per-row scalars as column operands - vset bc) end to end: Y within 1e-5 of a double
# reference, no hazards, golden cycles.
. "$(dirname "$0")/../lib.sh"
ln=$build/lnref
for r in 1 16 64; do
	"$ln" gen $r 64 $r "$tmp/X.npy"
	"$bin" run -q -c configs/default.cfg asm/kernels/layernorm.s -D R=$r \
		--input X="$tmp/X.npy" --output Y="$tmp/Y.npy" --counters "$tmp/c.csv" \
		--check-hazards || fail "R=$r: run failed"
	"$ln" check "$tmp/X.npy" "$tmp/Y.npy" 1e-5 > "$tmp/err" || {
		cat "$tmp/err" >&2
		fail "R=$r: Y is not within 1e-5 of the reference"
	}
	record "R=$r cycles $(counter "$tmp/c.csv" core0.cycles) vector_busy $(counter "$tmp/c.csv" core0.vector.busy_cycles) vector_insns $(counter "$tmp/c.csv" core0.vector.insns)"
done
golden
