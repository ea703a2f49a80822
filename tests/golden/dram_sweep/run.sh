# npusim dram end to end: a latency-vs-load sweep writes the same CSV every
# run (golden), its read latency rises with the load, the SVG is a whole
# document, unloaded latency by row outcome is printed, and bad options
# exit 2 with a message and no output file.
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
cat "$tmp/s.csv" >> "$actual"

# unloaded: a stream one request at a time is all row hits after the first
"$bin" dram -s dram.preset=ddr4_3200 --pattern stream --outstanding 1 \
	--requests 2000 > "$tmp/out" || fail "outstanding 1 failed"
grep '^  by row:' "$tmp/out" >> "$actual"
"$bin" dram -s dram.preset=hbm3 --pattern copy --rate 20% --requests 5000 > "$tmp/out" ||
	fail "copy at a rate failed"
grep -E '^(offered|bandwidth|source queue):' "$tmp/out" >> "$actual"

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
