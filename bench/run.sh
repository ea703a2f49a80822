#!/bin/sh
# run.sh BIN - the performance suite of the simulator itself (`make bench`).
#
# BIN is the npusim binary; the bench programs were built next to it, in
# $(dirname BIN)/bench/ (Makefile: BENCH_SRCS).  First the micro benches
# print their own lines ("bench.<unit>...: ..."); then every case of
# bench/cases runs BENCH_RUNS times (default 3) under bench/measure.c,
# and the suite writes bench/results.csv (atomically) and a table:
#   case,sim_cycles,host_s,min_s,max_s,cycles_per_s,peak_kib,ratio
# host_s is the median wall time, peak_kib the largest resident set,
# cycles_per_s simulated cycles per host second (npusim runs only) and
# ratio = host_s / the first case's host_s in this same run; also the
# micro benches' lines (RESULTS_micro.txt) and README's speed table made
# from both (RESULTS.md, bench/table.sh).  Not part of
# `make test`: host timing varies.  `make bench-compare` checks the ratios
# against bench/baseline.csv (bench/compare.sh).
bin=${1:?usage: sh bench/run.sh path/to/npusim [results.csv]}
out=${2:-bench/results.csv}
BENCH=$(dirname "$bin")/bench
BIN=$bin
runs=${BENCH_RUNS:-3}
status=0
for p in bench_matrix bench_engine bench_noc measure; do
	[ -x "$BENCH/$p" ] || { echo "bench: $BENCH/$p is missing (make bench builds it)" >&2; exit 1; }
done
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
# the micro benches' lines, shown and kept beside the results (README's
# speed table reads both: bench/table.sh)
micro=${out%.csv}_micro.txt
for p in bench_matrix bench_engine bench_noc; do
	"$BENCH/$p" > "$D/$p" || status=1
	cat "$D/$p"
done
cat "$D/bench_matrix" "$D/bench_engine" "$D/bench_noc" > "$micro.tmp" && mv "$micro.tmp" "$micro"
"$(dirname "$bin")/gemmref" gen 512 256 256 1 "$D/A.npy" "$D/B.npy" || exit 1
"$(dirname "$bin")/gatherref" idx 8192 0 32768 1 "$D/I.npy" || exit 1
echo "case,sim_cycles,host_s,min_s,max_s,cycles_per_s,peak_kib,ratio" > "$D/res"
grep -v '^#' bench/cases | grep -v '^[[:space:]]*$' > "$D/cases"
ref=
while IFS='|' read -r name cmd; do
	name=$(echo "$name" | tr -d ' ')
	cmd=$(eval "echo $cmd")
	cyc=-
	case $cmd in
	"$BIN run "*|"$BIN model "*)
		# shellcheck disable=SC2086 # the case's words, split on purpose
		if $cmd -q --counters "$D/c.csv" >/dev/null 2>&1; then
			cyc=$(grep '^cycles,' "$D/c.csv" | head -1 | cut -d, -f2)
		else
			echo "bench: $name: run failed: $cmd" >&2
			status=1
			continue
		fi ;;
	esac
	# shellcheck disable=SC2086
	if ! m=$("$BENCH/measure" "$runs" $cmd); then
		echo "bench: $name: failed: $cmd" >&2
		status=1
		continue
	fi
	set -- $m
	[ -n "$ref" ] || ref=$1
	echo "$name $cyc $1 $2 $3 $4 $ref" | awk '{
		cyc = $2 == "-" ? "" : $2
		rate = cyc == "" ? "" : sprintf("%.0f", cyc / $3)
		printf "%s,%s,%s,%s,%s,%s,%s,%.3f\n", $1, cyc, $3, $4, $5, rate, $6, $3 / $7 }' >> "$D/res"
done < "$D/cases"
mv "$D/res" "$out.tmp" && mv "$out.tmp" "$out"
awk -F, 'NR == 1 { printf "%-18s %12s %9s %12s %10s %7s\n", "case", "sim cycles", "host s",
			  "M cycles/s", "peak MiB", "ratio"; next }
	 { printf "%-18s %12s %9.3f %12s %10.1f %7.3f\n", $1, $2, $3,
		  $6 == "" ? "-" : sprintf("%.2f", $6 / 1e6), $7 / 1024, $8 }' "$out"
sh bench/table.sh "$out" "$micro" > "${out%.csv}.md"
echo "bench: wrote $out, $micro and ${out%.csv}.md, README's speed table ($runs runs per case; ratio = host time / $(sed -n 2p "$out" | cut -d, -f1))"
exit $status
