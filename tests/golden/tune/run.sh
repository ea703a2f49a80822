# npusim tune (docs/dse.md) on gemm_db.s's .tunable TM x NBUF (10
# schedules) for a 512x64x64 GEMM on default.cfg: TM=256 with two buffers
# needs 128 KiB of accumulator and is rejected by the kernel's own check
# before any simulation (9 feasible); the exhaustive search must return
# the schedule that separate `npusim run`s of all 9 find fastest; a rerun
# simulates nothing (the cache); a -D pins a tunable; the model-guided
# search within its budget finds no worse than the default; the search
# curve never rises; on conv2d.s the model-guided search reaches the
# exhaustive optimum within 2% with 20% of the evaluations; a kernel
# without .tunable is refused.
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
# conv2d.s (DIRECT x NGDIV x RBSEL, 48 schedules) on default.cfg: the
# model-guided search, with its default budget of 20% of the feasible
# schedules, finds a schedule within 2% of the exhaustive optimum
C="asm/kernels/conv2d.s -D H=28 -D W=28 -D CIN=32 -D COUT=64 -D KH=3 -D PAD=1"
"$bin" tune -c configs/default.cfg $C --strategy exhaustive -o "$tmp/ce" -j 2 > "$tmp/out" ||
	fail "conv exhaustive failed: $(cat "$tmp/out")"
grep -v "^results" "$tmp/out" >> "$actual"
eb=$(sed -n 's/^best: .*: \([0-9]*\) cycles$/\1/p' "$tmp/out")
nf=$(sed -n 's/.*schedules, \([0-9]*\) feasible.*/\1/p' "$tmp/out")
"$bin" tune -c configs/default.cfg $C -o "$tmp/cm" -j 2 > "$tmp/out" || fail "conv model failed"
grep -v "^results" "$tmp/out" >> "$actual"
mb=$(sed -n 's/^best: .*: \([0-9]*\) cycles$/\1/p' "$tmp/out")
ne=$(sed -n 's/.*; \([0-9]*\) evaluated.*/\1/p' "$tmp/out")
[ $((mb * 100)) -le $((eb * 102)) ] || fail "model $mb is more than 2% above the optimum $eb"
[ $((ne * 5)) -le $((nf + 4)) ] || fail "model used $ne of $nf evaluations"
# nothing to tune
set +e
"$bin" tune -c configs/default.cfg asm/kernels/gemm.s -o "$tmp/x" 2> "$tmp/err"
st=$?
set -e
[ "$st" = 2 ] && grep -q "declares no .tunable parameters" "$tmp/err" || fail "exit $st: $(cat "$tmp/err")"
golden
