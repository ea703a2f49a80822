# npusim dram end to end: a latency-vs-load sweep writes the same CSV every
# run, its read latency rises with the load, and every row holds together
# (docs/dram.md; DDR4-3200: 25.6 GB/s peak, tCK 0.625 ns, a row hit tCL +
# burst = 26 tCK = 16.25 ns): offered = the step's share of the peak,
# achieved <= offered and its share of the peak, a read's total latency =
# its DRAM latency + the source wait for all-read traffic (stream; the
# wait is averaged over every request, the total over the reads, so with
# writes only total >= DRAM latency), no read faster than a row hit, a hit
# rate in [0, 1], loads
# in steps up to 100 % or the first that the DRAM does not keep up with
# (achieved below 95 % of offered); the SVG is a whole document; unloaded
# latency by row outcome is printed, counts every read once and agrees
# with the row buffer line, hits within a tCK of the formula rounded up to
# the core clock and misses no faster than tRCD + tCL + burst (30 ns); a
# load given as a rate is offered, at most achieved, and a read's latency
# from made to done no less than the DRAM's; bad options exit 2
# with a message and no output file.  Golden: where each pattern stopped
# keeping up, the unloaded latency by row and the bandwidth at a rate.
. "$(dirname "$0")/../lib.sh"

"$bin" dram -s dram.preset=ddr4_3200 --sweep --pattern stream,copy --step 20 \
	--requests 20000 --csv "$tmp/s.csv" --svg "$tmp/s.svg" > "$tmp/out" ||
	fail "sweep failed"
[ ! -s "$tmp/out" ] || fail "--csv FILE still wrote CSV to stdout"
head -1 "$tmp/s.csv" | grep -q '^preset,pattern,offered_pct,' || fail "CSV header"
# column 10 (read_total_ns) never falls by more than 2 % along a pattern
awk -F, 'NR > 1 { if ($2 == p && $10 < 0.98 * v) bad = 1; p = $2; v = $10 }
	END { exit bad }' "$tmp/s.csv" || fail "latency falls with load"
head -c 4 "$tmp/s.svg" | grep -q '<svg' || fail "SVG start"
tail -1 "$tmp/s.svg" | grep -q '</svg>' || fail "SVG end"
grep -q 'stream' "$tmp/s.svg" || fail "SVG legend"
"$bin" dram -s dram.preset=ddr4_3200 --sweep --pattern stream,copy --step 20 \
	--requests 20000 --csv "$tmp/s2.csv" || fail "second sweep failed"
cmp -s "$tmp/s.csv" "$tmp/s2.csv" || fail "two sweeps wrote different CSVs"
# columns: preset, pattern, offered_pct, offered_gbps, achieved_gbps,
# achieved_pct, read_latency_ns, read_p99_ns, source_wait_ns,
# read_total_ns, row_hit_rate
awk -F, -v peak=25.6 -v step=20 -v hit=16.25 '
	function d(a, b) { return a > b ? a - b : b - a }
	function bad(m) { print m; err = 1; exit 1 }
	function stop(p) { if (!(last == 100 || ach < 0.95 * off)) bad("pattern " p " stopped at " last "%") }
	NR == 1 { next }
	$2 != pat { if (pat != "") stop(pat); pat = $2; want = 0 }
	{
		want += step
		if ($3 != want || d($4, $3 * peak / 100) > 0.001 || $5 > $4 + 0.001 ||
		    d($6, 100 * $5 / peak) > 0.05 || $7 < hit || $11 < 0 || $11 > 1 ||
		    (pat == "stream" ? d($10, $7 + $9) > 0.1 : $10 < $7 - 0.05))
			bad("row " NR ": " $0)
		if (seen[pat] && ach < 0.95 * off) bad("pattern " pat " went on past " last "%")
		seen[pat] = 1; last = $3; off = $4; ach = $5
	}
	END { if (!err) stop(pat) }' "$tmp/s.csv" > "$tmp/bad" || fail "$(cat "$tmp/bad")"
awk -F, 'NR > 1 { last[$2] = $3; a[$2] = $6 } END { for (p in last) print "ddr4_3200 " p " sweep by 20 %: last load " last[p] " %, " a[p] " % of peak achieved" }' "$tmp/s.csv" |
	sort >> "$actual"

# unloaded: a stream one request at a time, row hits but for each new row
"$bin" dram -s dram.preset=ddr4_3200 --pattern stream --outstanding 1 \
	--requests 2000 > "$tmp/out" || fail "outstanding 1 failed"
awk '/^  by row:/ { gsub(/[(),]/, " "); for (i = 3; i < NF; i++) if ($(i + 2) == "cycles") { ns[$i] = $(i + 3); n[$i] = $(i + 5) } }
	/^row buffer:/ { gsub(/[(),]/, " "); h = $5; m = $7; c = $9 }
	/^commands:/ { act = $2 }
	END {
		if (n["hit"] + n["miss"] + n["conflict"] != 2000 || n["hit"] != h || n["miss"] + 0 != m ||
		    n["conflict"] + 0 != c || act < m + c) { print "counts"; exit 1 }
		if (ns["hit"] < 16.25 || ns["hit"] > 17.625 + 0.05 || (n["miss"] && ns["miss"] < 30)) { print "latency"; exit 1 }
	}' "$tmp/out" > "$tmp/bad" || fail "unloaded stream: $(cat "$tmp/bad"): $(cat "$tmp/out")"
grep '^  by row:' "$tmp/out" >> "$actual"
"$bin" dram -s dram.preset=hbm3 --pattern copy --rate 20% --requests 5000 > "$tmp/out" ||
	fail "copy at a rate failed"
awk '/^offered:/ { off = $2; pct = $5 + 0 }
	/^bandwidth:/ { bw = $2; bpct = $5 + 0; peak = $8 }
	/^read latency:/ { lat = $5; sub(/\(/, "", lat) }
	/^source queue:/ { gsub(/;/, ""); wait = $5; done = $11 }
	function d(a, b) { return a > b ? a - b : b - a }
	END {
		if (pct != 20 || d(off, 0.2 * peak) > 0.01 || bw > off || d(bpct, 100 * bw / peak) > 0.1 ||
		    done < lat - 0.05) { print "off"; exit 1 }
	}' "$tmp/out" > "$tmp/bad" || fail "copy at 20 %: $(cat "$tmp/out")"
grep '^bandwidth:' "$tmp/out" >> "$actual"

# bad options: exit 2, a message, no file
expect2() {
	pat=$1
	shift
	set +e
	"$bin" dram "$@" > /dev/null 2> "$tmp/err"
	rc=$?
	set -e
	[ $rc = 2 ] || fail "exit $rc, expected 2: $*"
	grep -q -- "$pat" "$tmp/err" || { cat "$tmp/err" >&2; fail "no '$pat': $*"; }
	record "exit 2: $(head -1 "$tmp/err")"
}
expect2 "--rate 'x'" --rate x
expect2 "pointer-chase" --pattern bogus
expect2 "go with --sweep" --pattern stream,random
expect2 "drop --rate" --sweep --rate 0.5 --csv "$tmp/no.csv"
[ ! -e "$tmp/no.csv" ] || fail "a refused sweep wrote its CSV"
expect2 "field 'ra' is missing" -s dram.mapping=ro-ba-co-bg-ch
expect2 "has no per-bank refresh" -s dram.preset=ddr4_3200 -s dram.refresh=per_bank
golden
