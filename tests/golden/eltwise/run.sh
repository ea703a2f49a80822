# eltwise.s: Z = silu(X) * Y + R fused (one pass) and unfused (three
# elementwise passes through DRAM), within 1e-6 of a double reference, no
# hazards, on default.cfg, gemmini.cfg, tpu-v1.cfg and datacenter.cfg (16
# cores, the rows split between them); the fused kernel
# must move half the DRAM bytes of the unfused sequence and take fewer
# cycles.  Golden: cycles and DRAM bytes of both.
. "$(dirname "$0")/../lib.sh"
ln=$build/lnref
dram() { awk -F, '$4 == "" && $1 ~ /^dram\.ch[0-9]+\.(read|write)_bytes$/ { s += $2 } END { print s }' "$1"; }
for cfg in default.cfg gemmini.cfg tpu-v1.cfg datacenter.cfg; do
	"$ln" gen 100 256 1 "$tmp/X.npy"
	"$ln" gen 100 256 2 "$tmp/Y.npy"
	"$ln" gen 100 256 3 "$tmp/R.npy"
	for f in 1 0; do
		"$bin" run -q -c "configs/$cfg" asm/kernels/eltwise.s -D ROWS=100 -D FUSED=$f \
			--input X="$tmp/X.npy" --input Y="$tmp/Y.npy" --input R="$tmp/R.npy" \
			--output Z="$tmp/Z.npy" --counters "$tmp/c$f.csv" --check-hazards 2> "$tmp/err" ||
			{ cat "$tmp/err" >&2; fail "$cfg fused=$f: run failed"; }
		"$ln" slcheck "$tmp/X.npy" "$tmp/Y.npy" "$tmp/R.npy" "$tmp/Z.npy" 1e-6 > "$tmp/out" ||
			fail "$cfg fused=$f: $(cat "$tmp/out")"
		record "$cfg fused=$f: cycles $(counter "$tmp/c$f.csv" cycles) dram_bytes $(dram "$tmp/c$f.csv")"
	done
	[ "$(dram "$tmp/c1.csv")" -eq $(( $(dram "$tmp/c0.csv") / 2 )) ] ||
		fail "$cfg: fused moves $(dram "$tmp/c1.csv") bytes, unfused $(dram "$tmp/c0.csv")"
	[ "$(counter "$tmp/c1.csv" cycles)" -lt "$(counter "$tmp/c0.csv" cycles)" ] ||
		fail "$cfg: fused is not faster"
done
golden
