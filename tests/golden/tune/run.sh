# npusim tune (docs/dse.md) on gemm_db.s's .tunable TM x NBUF (10
# schedules) for a 512x64x64 GEMM on default.cfg: TM=256 with two buffers
# needs 128 KiB of accumulator and is rejected by the kernel's own check
# before any simulation (9 feasible); the exhaustive search must return
# the schedule that separate `npusim run`s of all 9 find fastest; a rerun
# simulates nothing (the cache); a -D pins a tunable; the model-guided
# search within its budget finds no worse than the default; the search
# curve never rises; a kernel without .tunable is refused.
. "$(dirname "$0")/../lib.sh"
K="asm/kernels/gemm_db.s -D M=512 -D K=64 -D N=64 --input A=zeros --input B=zeros"
# the reference: every feasible schedule, run by hand
best= bestc=
for tm in 64 16 32 128 256; do
	for nb in 2 1; do
		if "$bin" run -q -c configs/default.cfg $K -D TM=$tm -D NBUF=$nb \
			--counters "$tmp/c.csv" 2>/dev/null; then
			c=$(counter "$tmp/c.csv" cycles)
			record "TM=$tm NBUF=$nb: $c cycles"
			if [ -z "$bestc" ] || [ "$c" -lt "$bestc" ]; then bestc=$c best="-D TM=$tm -D NBUF=$nb"; fi
		else
			record "TM=$tm NBUF=$nb: infeasible"
		fi
	done
done
"$bin" tune -c configs/default.cfg $K --strategy exhaustive -o "$tmp/t" -j 2 > "$tmp/out" ||
	fail "tune failed: $(cat "$tmp/out")"
grep -q "^best: $best: $bestc cycles$" "$tmp/out" || fail "exhaustive: $(cat "$tmp/out"), want $best $bestc"
grep -q "10 schedules, 9 feasible; 9 evaluated (9 simulated, 0 cached) by exhaustive" "$tmp/out" ||
	fail "$(cat "$tmp/out")"
cat "$tmp/out" | grep -v "^results" >> "$actual"
awk -F, 'NR > 1 { if (prev != "" && $4 > prev) exit 1; prev = $4 }' "$tmp/t/curve.csv" ||
	fail "the curve rises: $(cat "$tmp/t/curve.csv")"
xmllint --noout "$tmp/t/curve.svg" || fail "curve.svg is not well-formed"
# the cache: nothing simulated again, whatever the strategy
"$bin" tune -c configs/default.cfg $K -o "$tmp/t" -j 2 > "$tmp/out" || fail "rerun failed"
grep -q "(0 simulated, 9 cached)" "$tmp/out" && grep -q "^best: $best: $bestc cycles$" "$tmp/out" ||
	fail "rerun: $(cat "$tmp/out")"
# a -D pins its tunable
"$bin" tune -c configs/default.cfg $K -D TM=32 --strategy exhaustive -o "$tmp/p" -j 2 > "$tmp/out" ||
	fail "pinned tune failed"
grep -q "2 schedules, 2 feasible" "$tmp/out" && grep -q "^best: -D NBUF=[12]: " "$tmp/out" ||
	fail "pinned: $(cat "$tmp/out")"
# model-guided with a budget: never worse than the kernel's default
"$bin" tune -c configs/default.cfg $K --budget 4 -o "$tmp/m" -j 2 > "$tmp/out" || fail "model failed"
grep -q "; 4 evaluated (4 simulated, 0 cached) by model-guided" "$tmp/out" || fail "model: $(cat "$tmp/out")"
b=$(sed -n 's/^best: .*: \([0-9]*\) cycles$/\1/p' "$tmp/out")
d=$(sed -n 's/^default: .*: \([0-9]*\) cycles .*/\1/p' "$tmp/out")
[ -n "$b" ] && [ -n "$d" ] && [ "$b" -le "$d" ] || fail "model: best $b, default $d"
# nothing to tune
set +e
"$bin" tune -c configs/default.cfg asm/kernels/gemm.s -o "$tmp/x" 2> "$tmp/err"
st=$?
set -e
[ "$st" = 2 ] && grep -q "declares no .tunable parameters" "$tmp/err" || fail "exit $st: $(cat "$tmp/err")"
golden
