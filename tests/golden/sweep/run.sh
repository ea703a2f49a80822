# npusim sweep on local workers (docs/dse.md): the example spec's 24
# points (18 run, 6 skipped by the constraint) collected into one CSV
# that is byte-identical whether 1 or 2 workers ran them; a rerun runs
# nothing; deleting two status files (a sweep cut off) reruns exactly
# those two; --point and --shard select points; a point that fails is
# recorded with its error, named by --collect (exit 3) and rerun by
# --retry-failed; a bad constraint is a spec error at file:line; the
# Slurm script runs one point per array task.  The CSV is checked row by
# row: its parameters are the point's own overrides, its metrics the
# point's own counters file's, each run point did the GEMM's work (M*K*N
# MACs, A and B read, C written once) with matrix busy cycles less SRAM
# stalls = the fold model of its array and dataflow, a point is skipped
# exactly when its array needs more than 2e12 MAC/s (R x C at 1 GHz), and
# the Pareto column marks exactly the ok points no other beats on both
# cycles and energy.  Golden: the Pareto front (no CSV: its cycles, busy
# cycles, bandwidth and energy change with any timing).
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

# row by row (gemm_array.sweep: M = K = N = 128; columns: point, rows,
# cols, dataflow, preset, then the metrics cycles, core0.matrix.busy_cycles,
# dram.ch0.bandwidth_gbps, energy.total, then status and pareto)
tail -n +2 "$tmp/a/results.csv" > "$tmp/rows"
[ "$(wc -l < "$tmp/rows")" = 24 ] || fail "$(wc -l < "$tmp/rows") rows, 24 points"
while IFS=, read -r k r c df preset m1 m2 m3 m4 st par; do
	if [ $((r * c * 1000000000)) -gt 2000000000000 ]; then
		[ "$st" = "skipped peak.macs_per_s <= 2e12" ] && [ "$par" = 0 ] ||
			fail "point $k: ${r}x$c should be skipped: $st"
		continue
	fi
	[ "$st" = ok ] || fail "point $k: $st"
	f=$tmp/a/points/$k.csv
	[ "$(sed -n 's/^# override: //p' "$f" | tail -4 | tr '\n' ' ')" = \
		"core.matrix.rows=$r core.matrix.cols=$c core.matrix.dataflow=$df dram.preset=$preset " ] ||
		fail "point $k: the row's parameters are not its run's"
	for mv in "cycles=$m1" "core0.matrix.busy_cycles=$m2" "dram.ch0.bandwidth_gbps=$m3" \
		"energy.total=$m4"; do
		m=${mv%%=*} v=${mv#*=}
		[ "$(counter "$f" "$m")" = "$v" ] || fail "point $k: $m $v in the CSV, $(counter "$f" "$m") in its counters"
	done
	check_gemm_traffic "point $k" "$f" 128 128 128
	[ $((m2 - $(counter "$f" core0.matrix.stall_sram_cycles))) = "$(fold_cycles "$df" 128 128 128 "$r" "$c")" ] ||
		fail "point $k: matrix busy $m2 less SRAM stalls is not the fold model"
done < "$tmp/rows"
# the Pareto front on (cycles, energy.total), computed here
awk -F, '$10 == "ok" { n++; k[n] = $1; cy[n] = $6; en[n] = $9; par[n] = $11 }
	END {
		for (i = 1; i <= n; i++) {
			front = 1
			for (j = 1; j <= n; j++)
				if (cy[j] <= cy[i] && en[j] <= en[i] && (cy[j] < cy[i] || en[j] < en[i]))
					front = 0
			if (front != par[i]) { print "point " k[i] ": pareto " par[i] ", want " front; exit 1 }
		}
	}' "$tmp/rows" > "$tmp/bad" || fail "$(cat "$tmp/bad")"
record "Pareto front (cycles, energy.total): points $(awk -F, '$11 == 1 { printf "%s%s", s, $1; s = " " }' "$tmp/rows")"

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
