# eltwise.s: the elementwise operators in fp32, bf16 and fp16, and
# Z = silu(X) * Y + R fused (one pass) and unfused (three
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
# The single operators (1 silu, 2 gelu, 3 relu(X + B), 4 X + R, 5 X * Y)
# and the fused chain in fp32, bf16 and fp16: inputs exact in the type,
# each operation rounded once into it (lnref elcheck adds 2^-P of the
# result per rounding to the tolerance; gelu's 2e-5 is vgelu's accuracy,
# docs/numerics.md), on default.cfg and datacenter.cfg.
for dt in "fp32 24" "bf16 8" "fp16 11"; do
	set -- $dt
	"$ln" gen 100 200 1 "$tmp/X.npy" "$2"
	"$ln" gen 100 200 2 "$tmp/Y.npy" "$2"
	"$ln" gen 100 200 3 "$tmp/R.npy" "$2"
	"$ln" gen 1 200 4 "$tmp/B.npy" "$2"
	for op in 0 1 2 3 4 5; do
		case $op in
		0) in="--input Y=$tmp/Y.npy --input R=$tmp/R.npy" a=$tmp/Y.npy b=$tmp/R.npy ;;
		3) in="--input B=$tmp/B.npy" a=$tmp/B.npy b=- ;;
		4) in="--input R=$tmp/R.npy" a=$tmp/R.npy b=- ;;
		5) in="--input Y=$tmp/Y.npy" a=$tmp/Y.npy b=- ;;
		*) in= a=- b=- ;;
		esac
		tol=1e-6
		[ $op = 2 ] && tol=2e-5
		for cfg in default.cfg datacenter.cfg; do
			# shellcheck disable=SC2086 # the operator's inputs, split on purpose
			"$bin" run -q -c "configs/$cfg" asm/kernels/eltwise.s -D ROWS=100 -D L=200 -D OP=$op \
				-D DT="$1" --input X="$tmp/X.npy" $in --output Z="$tmp/Z.npy" \
				--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
				{ cat "$tmp/err" >&2; fail "$1 op $op $cfg: run failed"; }
			"$ln" elcheck $op "$tmp/X.npy" "$a" "$b" "$tmp/Z.npy" $tol > "$tmp/out" ||
				fail "$1 op $op $cfg: $(cat "$tmp/out")"
			record "$1 op $op $cfg: cycles $(counter "$tmp/c.csv" cycles) dram_bytes $(dram "$tmp/c.csv")"
		done
	done
done
golden
