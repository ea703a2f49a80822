# npusim roofline end to end: real GEMM runs on the gemmini config (ridge at
# 20 ops per DRAM byte) whose intensities fall on both sides of the ridge,
# plus a hand-written schema-2 file with peaks, energy and regions.
# Checks the CSV (bytes, and every row by the formulas of docs/roofline.md:
# ops, seconds, intensities, attained, roof, bound, % of roof), that the SVG
# is well-formed XML whose points sit where the CSV puts them on its own
# axes, under the compute ceiling drawn from the ridge (check.py), that
# rsvg-convert renders it to a PNG of the right size holding the plot
# (non-white pixels, each point colour present), the same for a plot of
# the hand-written file alone, that a long legend grows the canvas as
# documented, determinism, and the error paths.  The golden records only
# what does not depend on the simulator's timing (bytes, MACs,
# intensities, bounds; the rows of the hand-written file) and the
# messages; no plot digest (the drawing may change, the placement may not).
. "$(dirname "$0")/../lib.sh"
png=$build/pngstat
s2=$case_dir/schema2.json
command -v rsvg-convert >/dev/null || fail "rsvg-convert missing (make deps)"
# gemmini.cfg: a 16x16 int8 array at 1 GHz (2 x 256 G MAC/s = 512 Gops/s)
# and DDR4-3200 (25.6 GB/s): the ridge at 20 ops per DRAM byte
peak=5.12e11 bw=2.56e10 ghz=1

# an XML check: xmllint, else python3's parser
xml_ok() {
	if command -v xmllint >/dev/null; then
		xmllint --noout "$1"
	else
		python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$1"
	fi
}

# CSV column NAME of the row whose first two fields are FILE,REGION
col() {
	awk -F, -v f="$2" -v r="$3" -v c="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		$1 == f && $2 == r { print $k }' "$1"
}

for n in 16 32 64 128; do
	"$bin" run -q -c configs/gemmini.cfg asm/kernels/gemm.s -D ROWS=16 -D COLS=16 \
		-D M=$n -D K=$n -D N=$n --counters "$tmp/g$n.json" ||
		fail "gemm $n: run failed"
done
"$bin" roofline -c configs/gemmini.cfg "$tmp"/g16.json "$tmp"/g32.json \
	"$tmp"/g64.json "$tmp"/g128.json "$s2" -o "$tmp/r.svg" --csv "$tmp/r.csv" ||
	fail "roofline failed"

# -- CSV: one row per run and per region; header as documented
[ "$(head -1 "$tmp/r.csv")" = "file,region,cycles,seconds,macs,ops,dram_bytes,sram_bytes,intensity,sram_intensity,attained_ops_per_s,roof_ops_per_s,bound,roof_pct,energy_pj,avg_power_w" ] ||
	fail "CSV header: $(head -1 "$tmp/r.csv")"
# header + 4 runs of gemm.s, each with its 4 regions (gemm, load, compute,
# store) + the hand-written file and its 3 regions
[ "$(wc -l < "$tmp/r.csv")" = $((1 + 4 * 5 + 4)) ] || fail "CSV rows: $(wc -l < "$tmp/r.csv") lines"
for n in 16 32 64 128; do
	f=$tmp/g$n.json
	macs=$(col "$tmp/r.csv" "$f" "" macs)
	dram=$(col "$tmp/r.csv" "$f" "" dram_bytes)
	# an n^3 GEMM on the whole problem at once: n^3 MACs, A and B read
	# (int8) and C written (int32) once
	[ "$macs" = $((n * n * n)) ] || fail "g$n: macs $macs"
	[ "$dram" = $((n * n * 6)) ] || fail "g$n: dram_bytes $dram"
	bound=$(col "$tmp/r.csv" "$f" "" bound)
	pct=$(col "$tmp/r.csv" "$f" "" roof_pct)
	awk -v p="$pct" 'BEGIN { exit !(p > 0 && p <= 100) }' ||
		fail "g$n: % of roof $pct"
	record "g$n macs $macs ops $(col "$tmp/r.csv" "$f" "" ops) dram $dram" \
		"sram $(col "$tmp/r.csv" "$f" "" sram_bytes)" \
		"intensity $(col "$tmp/r.csv" "$f" "" intensity) $bound"
done
# the ridge (512 Gops/s / 25.6 GB/s = 20 ops/B) separates them
[ "$(col "$tmp/r.csv" "$tmp/g32.json" "" bound)" = memory ] || fail "g32 not memory bound"
[ "$(col "$tmp/r.csv" "$tmp/g64.json" "" bound)" = compute ] || fail "g64 not compute bound"
grep "^$s2," "$tmp/r.csv" | sed "s|^$s2,|schema2.json,|" >> "$actual"

# -- every row by the formulas, every point where its row puts it
/usr/bin/python3 "$case_dir/check.py" "$tmp/r.svg" "$tmp/r.csv" $peak $bw $ghz > "$tmp/out" ||
	fail "$(cat "$tmp/out")"

# -- SVG: well-formed, rendered at its declared size, holding the plot
xml_ok "$tmp/r.svg" || fail "SVG is not well-formed XML"
grep -q '<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="640"' "$tmp/r.svg" ||
	fail "SVG size is not 1000x640"
grep -q 'Roofline: gemmini' "$tmp/r.svg" || fail "no title with the chip name"
grep -q 'conv2, &quot;deep&quot; &lt;layer&gt; &amp; more' "$tmp/r.svg" ||
	fail "region name not escaped"
rsvg-convert -o "$tmp/r.png" "$tmp/r.svg" || fail "rsvg-convert failed"
# the first four palette colours are the four runs, the fifth the file
# with regions
set -- $("$png" "$tmp/r.png" 4e79a7 f28e2b e15759 76b7b2 59a14f)
[ "$1 $2" = "1000 640" ] || fail "PNG is $1x$2, not 1000x640"
[ "$3" -gt 20000 ] || fail "PNG nearly blank: $3 non-white pixels"
shift 3
while [ $# -gt 0 ]; do
	[ "$2" -gt 10 ] || fail "colour $1 missing from the PNG ($2 pixels)"
	shift 2
done

# -- the same inputs give the same bytes
"$bin" roofline -c configs/gemmini.cfg "$tmp"/g16.json "$tmp"/g32.json \
	"$tmp"/g64.json "$tmp"/g128.json "$s2" -o "$tmp/r2.svg" --csv "$tmp/r2.csv"
cmp -s "$tmp/r.svg" "$tmp/r2.svg" && cmp -s "$tmp/r.csv" "$tmp/r2.csv" ||
	fail "two identical runs wrote different files"

# -- the hand-written file alone (other axes): its points where its rows
# put them
cp "$s2" configs/gemmini.cfg "$tmp/"
(cd "$tmp" && "$bin" roofline -c gemmini.cfg schema2.json -o s2.svg --csv s2.csv) ||
	fail "roofline of schema2.json failed"
/usr/bin/python3 "$case_dir/check.py" "$tmp/s2.svg" "$tmp/s2.csv" $peak $bw $ghz > "$tmp/out" ||
	fail "schema2.json alone: $(cat "$tmp/out")"

# -- a model with 40 layers: the legend grows the canvas to
# 92 + 16 x (5 + 41) = 828 pixels
{
	printf '{"schema": 2, "cycles": 400000, "clock_ghz": 1, "counters": {"core0.matrix.macs": 1}, "regions": ['
	i=1
	while [ $i -le 40 ]; do
		[ $i -gt 1 ] && printf ','
		printf '{"name": "layer%d", "cycles": %d, "counters": {"core0.matrix.macs": %d, "dram.ch0.read_bytes": %d, "core0.scratchpad.read_bytes": %d}}' \
			$i $((1000 + 37 * i)) $((20000 + 5000 * i)) $((300 + 211 * (i % 9) * i)) $((3000 + 50 * i))
		i=$((i + 1))
	done
	printf ']}\n'
} > "$tmp/model.json"
"$bin" roofline -c configs/gemmini.cfg "$tmp/model.json" -o "$tmp/m.svg" ||
	fail "roofline of 40 layers failed"
xml_ok "$tmp/m.svg" || fail "40-layer SVG is not well-formed XML"
rsvg-convert -o "$tmp/m.png" "$tmp/m.svg" || fail "rsvg-convert of 40 layers failed"
set -- $("$png" "$tmp/m.png")
[ "$1 $2" = "1000 828" ] || fail "40-layer PNG is $1x$2, not 1000x828"
record "40 layers: $(grep -c '<title>' "$tmp/m.svg") titles (the document and 40 layers; the run has no DRAM bytes)"

# -- errors: a clear message and the documented status, no output left
expect() { # STATUS PATTERN ARGS...
	want=$1 pat=$2
	shift 2
	set +e
	"$bin" roofline "$@" > "$tmp/out" 2> "$tmp/err"
	got=$?
	set -e
	[ $got = "$want" ] || fail "roofline $*: exit $got, want $want ($(cat "$tmp/err"))"
	grep -q -- "$pat" "$tmp/err" || fail "roofline $*: message '$(cat "$tmp/err")' lacks '$pat'"
	record "exit $got: $(sed "s|$tmp/||g" "$tmp/err" | head -1)"
}
rm -f "$tmp/e.svg"
printf '{"cycles": 10,\n "counters": {"core0.matrix.macs": 1,}}\n' > "$tmp/comma.json"
printf '{"schema": 3, "cycles": 1, "counters": {}}' > "$tmp/s3.json"
printf '{"cycles": 1, "counters": {"core0.matrix.macs": -4}}' > "$tmp/neg.json"
printf '{"cycles": 1, "counters": {}, "regions": [{"name": "x"}]}' > "$tmp/reg.json"
printf '' > "$tmp/empty.json"
expect 1 'comma.json:2:' -c configs/gemmini.cfg "$tmp/comma.json" -o "$tmp/e.svg"
expect 1 'schema 3' -c configs/gemmini.cfg "$tmp/s3.json" -o "$tmp/e.svg"
expect 1 'core0.matrix.macs.*non-negative' -c configs/gemmini.cfg "$tmp/neg.json" -o "$tmp/e.svg"
expect 1 'regions\[0\].cycles: missing' -c configs/gemmini.cfg "$tmp/reg.json" -o "$tmp/e.svg"
expect 1 'empty file' -c configs/gemmini.cfg "$tmp/empty.json" -o "$tmp/e.svg"
expect 1 'cannot open' -c configs/gemmini.cfg "$tmp/none.json" -o "$tmp/e.svg"
expect 2 '-c CONFIG is required' "$s2" -o "$tmp/e.svg"
expect 2 '-o OUT.svg is required' -c configs/gemmini.cfg "$s2"
expect 2 'not a data type' -c configs/gemmini.cfg "$s2" -o "$tmp/e.svg" --dtype int9
expect 2 'unknown option' -c configs/gemmini.cfg "$s2" -o "$tmp/e.svg" --frobnicate
[ ! -e "$tmp/e.svg" ] || fail "a failed roofline left $tmp/e.svg behind"
ls "$tmp" | grep -q '\.tmp\.' && fail "a temporary output file was left behind"
golden
