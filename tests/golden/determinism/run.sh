# Same inputs, same outputs: two runs give byte-identical tensors, counter
# files and traces.  Golden: only that they do (no trace digest: the
# comparison is between the two runs, and any timing change would rewrite
# it).
. "$(dirname "$0")/../lib.sh"
"$ref" gen 128 64 64 9 "$tmp/A.npy" "$tmp/B.npy"
for i in 1 2; do
	"$bin" run -q -c configs/default.cfg asm/kernels/gemm_db.s \
		--input A="$tmp/A.npy" --input B="$tmp/B.npy" -D M=128 \
		--output C="$tmp/C$i.npy" --counters "$tmp/c$i.json" --trace "$tmp/t$i.json.gz" ||
		fail "run $i failed"
done
cmp -s "$tmp/C1.npy" "$tmp/C2.npy" || fail "outputs differ between runs"
cmp -s "$tmp/c1.json" "$tmp/c2.json" || fail "counters differ between runs"
cmp -s "$tmp/t1.json.gz" "$tmp/t2.json.gz" || fail "traces differ between runs"
record "gemm_db.s 128x64x64: tensors, counters and traces identical in two runs"
golden
