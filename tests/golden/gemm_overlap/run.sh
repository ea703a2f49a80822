# Double buffering: the streaming GEMM with two buffers finishes in fewer
# cycles than with one, with identical (and correct) outputs, and the
# hazard checker is silent on both; the same kernel without the matrix
# engine's wait is reported.
. "$(dirname "$0")/../lib.sh"
"$ref" gen 256 64 64 3 "$tmp/A.npy" "$tmp/B.npy"
for nb in 1 2; do
	"$bin" run -q -c configs/default.cfg asm/kernels/gemm_db.s -D NBUF=$nb \
		--input A="$tmp/A.npy" --input B="$tmp/B.npy" --output C="$tmp/C$nb.npy" \
		--counters "$tmp/c$nb.csv" --check-hazards 2> "$tmp/err$nb" ||
		{ cat "$tmp/err$nb" >&2; fail "NBUF=$nb: run failed or reported hazards"; }
	"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C$nb.npy" >/dev/null ||
		fail "NBUF=$nb: output differs from the reference"
done
cmp -s "$tmp/C1.npy" "$tmp/C2.npy" || fail "single and double buffered outputs differ"
single=$(counter "$tmp/c1.csv" core0.cycles)
double=$(counter "$tmp/c2.csv" core0.cycles)
[ "$double" -lt "$single" ] || fail "double buffering ($double) not faster than single ($single)"
record "single-buffered $single cycles, double-buffered $double cycles"
set +e
"$bin" run -q -c configs/default.cfg asm/kernels/gemm_db.s -D BUG=1 \
	--input A="$tmp/A.npy" --input B="$tmp/B.npy" --check-hazards 2> "$tmp/bug"
rc=$?
set -e
[ $rc = 3 ] || fail "missing wait: exit status $rc, expected 3"
grep -q "hazard: read-after-write on core0.scratchpad" "$tmp/bug" ||
	fail "missing wait: no read-after-write reported"
grep -q "core0.dma0 dma writes" "$tmp/bug" && grep -q "core0.mtx mmul reads" "$tmp/bug" ||
	fail "missing wait: the report does not name both instructions"
record "missing wait: $(tail -1 "$tmp/bug")"
golden
