# npusim noc: synthetic traffic on the network alone.  Checked exactly: a
# lone packet stream at very low load has the zero-load latency of the
# formula (docs/noc.md) as its minimum; every report and every row of a
# sweep states the zero-load formula of its own average hops (T0 = 1 +
# (H + 1) x (RC + VA + SA + ST) + H x link + 1 + (P - 1), the router's
# delays as the report gives them), no packet beats it on average, min <=
# avg <= max and p99 <= max, the network accepts no more than was created
# plus what was in flight when the window opened (Little: rate x latency;
# twice that for the window's luck), delivers every measured packet unless
# it says it saturated, and simulates no more cycles than the run has; a
# sweep's latency never falls as the load rises and it stops at the first
# saturated point; bad patterns and bad configs are usage/config errors
# (exit 2) with the expected messages.  Golden: each point's traffic and
# latency lines and the load at which the sweep saturated.
. "$(dirname "$0")/../lib.sh"

noc() { "$bin" noc "$@"; }

# Awk functions of the relations above: t0(H, P), the zero-load latency of
# docs/noc.md for H hops and P flits with the router's stages (s = RC + VA
# + SA + ST) and link delay (l); over(accepted, created, latency, window),
# more accepted than created plus twice what Little's law puts in flight.
rel='function t0(h, p) { return 1 + (h + 1) * s + h * l + 1 + (p - 1) }
     function off(zl, h, p) { return zl - t0(h, p) > 0.01 || t0(h, p) - zl > 0.01 }
     function over(a, c, lat, w) { return a > c * (1 + 2 * lat / w) + 0.0001 }'

# report WHAT OUT: the relations every report must satisfy (see the top);
# sets $stages and $link from its router line.
report() {
	r=$(echo "$2" | sed -n 's/^router: *RC \([0-9]*\), VA \([0-9]*\), SA \([0-9]*\), ST \([0-9]*\); link \([0-9]*\),.*/\1 \2 \3 \4 \5/p')
	[ -n "$r" ] || fail "$1: no router line: $2"
	set -- "$1" "$2" $r
	stages=$(($3 + $4 + $5 + $6)) link=$7
	msg=$(echo "$2" | awk -v s="$stages" -v l="$link" "$rel"'
		/^traffic:/ { p = $3 + 0; sub(/.*window /, ""); w = $1 + 0 }
		/^latency:/ { gsub(/,/, ""); avg = $3; p99 = $5; mn = $7; mx = $9; zl = $13 + 0 }
		/^accepted:/ { acc = $2; cr = $5 + 0 }
		/^hops:/ { h = $2 }
		/^packets:/ { meas = $2; del = $4; sat = /saturated/ }
		/^network:/ && /simulated of/ { net = $5; sub(/.*simulated of /, ""); all = $1 }
		END {
			if (w == "" || avg == "" || acc == "" || h == "" || meas == "" || net == "")
				m = "a line is missing"
			else if (off(zl, h, p))
				m = "zero-load formula " zl ", " t0(h, p) " for " h " hops of " p " flits"
			else if (avg < zl - 0.005)
				m = "average latency " avg " below the zero-load formula " zl
			else if (!(mn <= avg && avg <= mx && p99 <= mx))
				m = "min " mn " avg " avg " p99 " p99 " max " mx
			else if (over(acc, cr, avg, w))
				m = "accepted " acc " of " cr " created"
			else if (sat ? del >= meas : del != meas)
				m = del " of " meas " packets delivered, saturated " sat
			else if (net > all)
				m = net " network cycles of " all
			if (m != "") { print m; exit 1 }
		}') || fail "$1: $msg"
}

# Zero-load: neighbour pattern on a 4x4 mesh is 2 hops (x+1, y+1) for
# every node but the wrapping ones; with 4-flit packets the minimum is
# 1 + 3 x 4 + 2 x 1 + 1 + 3 = 19.
out=$(noc -s noc.cols=4 -s noc.rows=4 --pattern neighbor --packet-flits 4 \
	--rate 0.001 --cycles 20000)
echo "$out" | grep -q "min 19," || fail "neighbor zero-load: $out"
report "neighbor 4x4 mesh 4-flit 0.001" "$out"
echo "$out" | grep -E '^(traffic|latency):' >> "$actual"

for spec in "uniform 4 4 mesh 1 0.3" "transpose 4 4 mesh 4 0.2" \
	"tornado 5 5 torus 2 0.2" "hotspot 3 3 mesh 1 0.05" "bitrev 8 4 mesh 2 0.1"; do
	set -- $spec
	out=$(noc -s noc.cols=$2 -s noc.rows=$3 -s noc.topology=$4 \
		--pattern $1 --packet-flits $5 --rate $6 --cycles 5000 --warmup 500)
	report "$spec" "$out"
	echo "$out" | grep -E '^(traffic|latency):' >> "$actual"
done

# A sweep: latency never falls as the load rises; the last point is the
# first saturated one; the CSV is written whole (atomically) to --csv;
# each row as a report (the default router of the reports above).
noc -s noc.cols=4 -s noc.rows=4 --rate 0.1 --packet-flits 2 --cycles 3000 \
	--warmup 500 --sweep --csv "$tmp/sweep.csv"
awk -F, 'NR > 2 && $5 + 0.5 < last { exit 1 } NR > 1 { last = $5 }' "$tmp/sweep.csv" ||
	fail "sweep latency not monotone: $(cat "$tmp/sweep.csv")"
[ "$(tail -1 "$tmp/sweep.csv" | cut -d, -f9)" = 1 ] ||
	fail "sweep did not end saturated: $(cat "$tmp/sweep.csv")"
[ "$(grep -c ',1$' "$tmp/sweep.csv")" = 1 ] || fail "more than one saturated point"
awk -F, -v s="$stages" -v l="$link" "$rel"'
	NR > 1 && (off($7, $8, $2) || $5 < $7 - 0.005 || over($4, $3, $5, 3000)) { print; exit 1 }' \
	"$tmp/sweep.csv" > "$tmp/bad" ||
	fail "sweep row off the zero-load formula, below it or accepting more than offered: $(cat "$tmp/bad")"
n=$(($(wc -l < "$tmp/sweep.csv") - 1))
record "uniform 4x4 mesh 2-flit sweep by 0.1: saturated at the ${n}th load ($n x 0.1 flits/node/cycle)"
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
