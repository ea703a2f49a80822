# npusim noc: synthetic traffic on the network alone.  Checked exactly: a
# lone packet stream at very low load has the zero-load latency of the
# formula (docs/noc.md) as its minimum; a sweep's CSV is monotone in
# latency and stops at the first saturated point; bad patterns and bad
# configs are usage/config errors (exit 2) with the expected messages.
# Golden: the full report of a few points and one sweep (deterministic).
. "$(dirname "$0")/../lib.sh"

noc() { "$bin" noc "$@"; }

# Zero-load: neighbour pattern on a 4x4 mesh is 2 hops (x+1, y+1) for
# every node but the wrapping ones; with 4-flit packets the minimum is
# 1 + 3 x 4 + 2 x 1 + 1 + 3 = 19.
out=$(noc -s noc.cols=4 -s noc.rows=4 --pattern neighbor --packet-flits 4 \
	--rate 0.001 --cycles 20000)
echo "$out" | grep -q "min 19," || fail "neighbor zero-load: $out"
record "$out"

for spec in "uniform 4 4 mesh 1 0.3" "transpose 4 4 mesh 4 0.2" \
	"tornado 5 5 torus 2 0.2" "hotspot 3 3 mesh 1 0.05" "bitrev 8 4 mesh 2 0.1"; do
	set -- $spec
	record "$(noc -s noc.cols=$2 -s noc.rows=$3 -s noc.topology=$4 \
		--pattern $1 --packet-flits $5 --rate $6 --cycles 5000 --warmup 500)"
done

# A sweep: latency never falls as the load rises; the last point is the
# first saturated one; the CSV is written whole (atomically) to --csv.
noc -s noc.cols=4 -s noc.rows=4 --rate 0.1 --packet-flits 2 --cycles 3000 \
	--warmup 500 --sweep --csv "$tmp/sweep.csv"
awk -F, 'NR > 2 && $5 + 0.5 < last { exit 1 } NR > 1 { last = $5 }' "$tmp/sweep.csv" ||
	fail "sweep latency not monotone: $(cat "$tmp/sweep.csv")"
[ "$(tail -1 "$tmp/sweep.csv" | cut -d, -f9)" = 1 ] ||
	fail "sweep did not end saturated: $(cat "$tmp/sweep.csv")"
[ "$(grep -c ',1$' "$tmp/sweep.csv")" = 1 ] || fail "more than one saturated point"
record "$(cat "$tmp/sweep.csv")"

# Bad input: exit 2 and a message naming the problem.
expect2() {   # grep-pattern args...
	pat=$1
	shift
	st=0
	noc "$@" > /dev/null 2> "$tmp/err" || st=$?
	[ "$st" = 2 ] || fail "noc $*: exit $st, want 2"
	grep -q "$pat" "$tmp/err" || fail "noc $*: message $(cat "$tmp/err")"
	record "exit 2: $(head -1 "$tmp/err")"
}
expect2 "needs a square network" -s noc.cols=4 --pattern transpose
expect2 "power-of-two number of nodes" -s noc.cols=3 --pattern bitcomp
expect2 "use uniform, transpose" --pattern zigzag
expect2 "not a load" --rate 1.5
expect2 "outside the 2x1 network" --pattern hotspot --hotspot 2
expect2 "needs noc.vcs >= 2" -s noc.topology=torus -s noc.cols=3 -s noc.vcs=1
expect2 "noc.vcs = 0 is out of range" -s noc.vcs=0
expect2 "goes with --sweep" --csv x.csv
golden
