# npusim sweep on local workers (docs/dse.md): the example spec's 24
# points (18 run, 6 skipped by the constraint) collected into one CSV
# that is byte-identical whether 1 or 2 workers ran them; a rerun runs
# nothing; deleting two status files (a sweep cut off) reruns exactly
# those two; --point and --shard select points; a point that fails is
# recorded with its error, named by --collect (exit 3) and rerun by
# --retry-failed; a bad constraint is a spec error at file:line; the
# Slurm script runs one point per array task.  Golden: the CSV (cycles,
# busy cycles, bandwidth and energy of every point) and the Pareto front.
. "$(dirname "$0")/../lib.sh"
spec=workloads/sweeps/gemm_array.sweep
"$bin" sweep "$spec" -o "$tmp/a" -j 2 2> "$tmp/err" || fail "sweep -j 2 failed: $(cat "$tmp/err")"
grep -q "24 points: 18 ok, 6 skipped by constraints, 0 failed" "$tmp/err" ||
	fail "sweep -j 2 said: $(cat "$tmp/err")"
"$bin" sweep "$spec" -o "$tmp/b" -j 1 2>/dev/null || fail "sweep -j 1 failed"
"$bin" sweep --collect "$tmp/a" --pareto cycles,energy.total --svg "$tmp/p.svg" 2>/dev/null ||
	fail "collect failed"
"$bin" sweep --collect "$tmp/b" --pareto cycles,energy.total 2>/dev/null || fail "collect -j 1 failed"
cmp -s "$tmp/a/results.csv" "$tmp/b/results.csv" || fail "-j 1 and -j 2 collect different CSVs"
xmllint --noout "$tmp/p.svg" || fail "the Pareto SVG is not well-formed"
cat "$tmp/a/results.csv" >> "$actual"

# resume: nothing to do; then two points cut off
"$bin" sweep "$spec" -o "$tmp/a" -j 2 2> "$tmp/err" || fail "rerun failed"
grep -q "0 ok, 0 skipped by constraints, 0 failed, 24 finished before" "$tmp/err" ||
	fail "a finished sweep reran points: $(cat "$tmp/err")"
rm "$tmp/a/points/5.status" "$tmp/a/points/19.status"
"$bin" sweep "$spec" -o "$tmp/a" -j 2 2> "$tmp/err" || fail "resume failed"
grep -q "1 ok, 1 skipped by constraints, 0 failed, 22 finished before" "$tmp/err" ||
	fail "resume did not run exactly the 2 cut-off points: $(cat "$tmp/err")"
"$bin" sweep --collect "$tmp/a" --csv "$tmp/a2.csv" --pareto cycles,energy.total 2>/dev/null
cmp -s "$tmp/a2.csv" "$tmp/b/results.csv" || fail "the resumed sweep collects a different CSV"

# --point and --shard
"$bin" sweep "$spec" -o "$tmp/c" --point 13 2>/dev/null || fail "--point 13 failed"
[ "$(ls "$tmp/c/points" | grep -c status)" = 1 ] && [ -f "$tmp/c/points/13.status" ] ||
	fail "--point 13 ran $(ls "$tmp/c/points")"
"$bin" sweep "$spec" -o "$tmp/d" --shard 1/3 -j 2 2>/dev/null || fail "--shard 1/3 failed"
[ "$(ls "$tmp/d/points" | grep status | sed 's/\..*//' | sort -n | tr '\n' ' ')" = \
	"1 4 7 10 13 16 19 22 " ] || fail "--shard 1/3 ran $(ls "$tmp/d/points" | grep status)"
"$bin" sweep --collect "$tmp/d" --csv "$tmp/d.csv" 2> "$tmp/err" && true
grep -q "16 of 24 points have not run" "$tmp/err" || fail "collect did not name the missing points"

# a failing point: M too large for the scratchpad is an assembly error
sed -e 's/"M=128", //' -e 's/^params = (/params = (\n  { name = "M"; define = true; values = [ 128, 4096 ]; },/' \
	-e 's/values = \[ 8, 16, 32, 64 \]/values = [ 16, 32 ]/g' \
	-e 's/values = \[ "ws", "os", "is" \]/values = [ "ws" ]/' \
	-e 's/values = \[ "lpddr5_6400", "ddr4_3200" \]/values = [ "lpddr5_6400" ]/' \
	-e 's/core.scratchpad.bytes=1M/core.scratchpad.bytes=256K/' "$spec" > "$tmp/fail.sweep"
set +e
"$bin" sweep "$tmp/fail.sweep" -o "$tmp/f" -j 2 2> "$tmp/err"
st=$?
set -e
[ "$st" = 3 ] || fail "a sweep with failed points exited $st, want 3: $(cat "$tmp/err")"
grep -q "4 points: 2 ok, 0 skipped by constraints, 2 failed" "$tmp/err" || fail "$(cat "$tmp/err")"
grep -q "^failed 1 asm/kernels/gemm.s:106:1: error: gemm.s keeps A and B" "$tmp/f/points/2.status" ||
	fail "the failure was not recorded: $(cat "$tmp/f/points/2.status")"
set +e
"$bin" sweep --collect "$tmp/f" 2> "$tmp/err"
st=$?
set -e
[ "$st" = 3 ] && grep -q "point 2 failed 1" "$tmp/err" || fail "collect: exit $st, $(cat "$tmp/err")"
"$bin" sweep "$tmp/fail.sweep" -o "$tmp/f" -j 2 2> "$tmp/err" && true
grep -q "0 ok, 0 skipped by constraints, 0 failed, 4 finished before" "$tmp/err" ||
	fail "failed points reran without --retry-failed: $(cat "$tmp/err")"
"$bin" sweep "$tmp/fail.sweep" -o "$tmp/f" -j 2 --retry-failed 2> "$tmp/err" && true
grep -q "0 ok, 0 skipped by constraints, 2 failed, 2 finished before" "$tmp/err" ||
	fail "--retry-failed: $(cat "$tmp/err")"
# another spec into the same directory is refused
set +e
"$bin" sweep "$spec" -o "$tmp/f" 2> "$tmp/err"
st=$?
set -e
[ "$st" = 2 ] && grep -q "holds the results of another spec" "$tmp/err" || fail "exit $st: $(cat "$tmp/err")"

# a constraint naming nothing: a spec error with its line
sed 's/peak.macs_per_s <= 2e12/peak.macs <= 2e12/' "$spec" > "$tmp/bad.sweep"
set +e
"$bin" sweep "$tmp/bad.sweep" -o "$tmp/g" 2> "$tmp/err"
st=$?
set -e
[ "$st" = 2 ] && grep -q "bad.sweep:19: error: constraint 'peak.macs <= 2e12': unknown name 'peak.macs' at column 1" "$tmp/err" ||
	fail "bad constraint: exit $st, $(cat "$tmp/err")"

# the Slurm job array script
"$bin" sweep "$spec" -o "$tmp/s" --slurm --partition batch --time 0:10:00 --array-limit 8 \
	> /dev/null || fail "--slurm failed"
grep -q "^#SBATCH --array=0-23%8$" "$tmp/s/sweep.sbatch" &&
	grep -q "^#SBATCH --partition=batch$" "$tmp/s/sweep.sbatch" &&
	grep -q "sweep .*gemm_array.sweep --point \"\$SLURM_ARRAY_TASK_ID\" -o " "$tmp/s/sweep.sbatch" ||
	fail "the sbatch script: $(cat "$tmp/s/sweep.sbatch")"
golden
