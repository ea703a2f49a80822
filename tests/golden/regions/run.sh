# Program regions end to end (rbeg/rend; docs/timing.md, "Regions"):
# gemm.s marks its whole run ("gemm") and three back-to-back dispatch
# phases inside it ("load", "compute", "store").  Checked exactly: the
# markers cost nothing (the same kernel without them has the same cycles
# and the same whole-run counters), the phases add up to the kernel in
# cycles and in every counter, "gemm" holds all M*K*N MACs and all the
# DRAM traffic (A and B read, C written, once) within the run's cycles,
# each region was entered once; the counters JSON carries them (read back
# by npusim roofline), objdump lists the region table and names, and the
# trace (valid for trccheck) has one slice per entry on each core's
# "regions" track, as long as the region's cycles, the three phases back
# to back from the start of "gemm" to its end; with two cores each core
# has its own regions, in the counters and on its track.  Golden: cycles,
# MACs and DRAM bytes read of every region.
. "$(dirname "$0")/../lib.sh"
M=64 K=96 N=64
cfg=configs/default.cfg
"$ref" gen $M $K $N 5 "$tmp/A.npy" "$tmp/B.npy"
# rcounter FILE.csv REGION NAME: a counter of one region from the CSV.
rcounter() { grep "^$3,[^,]*,[^,]*,$2$" "$1" | cut -d, -f2; }

sed '/^[[:space:]]*r\(beg\|end\)[[:space:]]/d' asm/kernels/gemm.s > "$tmp/plain.s"
grep -q "^[[:space:]]*r\(beg\|end\)[[:space:]]" "$tmp/plain.s" && fail "markers left in the stripped kernel"
for k in gemm plain; do
	src=asm/kernels/gemm.s
	[ $k = plain ] && src=$tmp/plain.s
	"$bin" run -q -c "$cfg" "$src" -D M=$M -D K=$K -D N=$N -I asm/kernels \
		--input A="$tmp/A.npy" --input B="$tmp/B.npy" --output C="$tmp/C$k.npy" \
		--counters "$tmp/$k.csv" --counters "$tmp/$k.json" --trace "$tmp/$k.json.gz" ||
		fail "$k: run failed"
	"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C$k.npy" >/dev/null ||
		fail "$k: output differs from the reference"
done

# Zero cost: every whole-run row is the same (the rows of a region end
# in its name; the program name in the header differs).
grep -v '^#' "$tmp/gemm.csv" | grep ',$' > "$tmp/gemm.run"
grep -v '^#' "$tmp/plain.csv" | grep ',$' > "$tmp/plain.run"
cmp -s "$tmp/gemm.run" "$tmp/plain.run" ||
	{ diff "$tmp/plain.run" "$tmp/gemm.run" >&2; fail "the markers changed the whole run's counters"; }
grep -q ',gemm$' "$tmp/plain.csv" && fail "regions without markers"

# Each region once; the phases tile the kernel: cycles and every counter
# of load + compute + store equal gemm's.
for r in gemm load compute store; do
	[ "$(rcounter "$tmp/gemm.csv" $r entries)" = 1 ] || fail "$r: not entered once"
done
grep ',gemm$' "$tmp/gemm.csv" | grep -v '^\(entries\|core\),' | cut -d, -f1 > "$tmp/names"
[ "$(wc -l < "$tmp/names")" -gt 50 ] || fail "too few counters in region gemm"
while read -r c; do
	a=$(rcounter "$tmp/gemm.csv" gemm "$c")
	case $a in *.*|*e*) continue ;; esac	# energy: floats, summed inexactly
	s=$(( $(rcounter "$tmp/gemm.csv" load "$c") + $(rcounter "$tmp/gemm.csv" compute "$c") +
	      $(rcounter "$tmp/gemm.csv" store "$c") ))
	[ "$s" = "$a" ] || fail "$c: load + compute + store = $s, gemm $a"
done < "$tmp/names"
check_gemm_traffic "the run" "$tmp/gemm.csv" $M $K $N
[ "$(rcounter "$tmp/gemm.csv" gemm core0.matrix.macs)" = $((M * K * N)) ] ||
	fail "region gemm does not hold all M*K*N MACs"
[ "$(rcounter "$tmp/gemm.csv" gemm dram.ch0.read_bytes)" = $((M * K + K * N)) ] ||
	fail "region gemm does not hold the loads of A and B"
[ "$(rcounter "$tmp/gemm.csv" gemm dram.ch0.write_bytes)" = $((4 * M * N)) ] ||
	fail "region gemm does not hold the stores of C"
[ "$(rcounter "$tmp/gemm.csv" gemm cycles)" -le "$(counter "$tmp/gemm.csv" cycles)" ] ||
	fail "region gemm is longer than the run"
for r in gemm load compute store; do
	record "$r: $(rcounter "$tmp/gemm.csv" $r cycles) cycles, $(rcounter "$tmp/gemm.csv" $r core0.matrix.macs) MACs," \
		"$(rcounter "$tmp/gemm.csv" $r dram.ch0.read_bytes) DRAM bytes read"
done
record "run: $(counter "$tmp/gemm.csv" cycles) cycles"

# JSON: read back by the roofline (json-c), one row per region.
"$bin" roofline -c "$cfg" "$tmp/gemm.json" -o "$tmp/r.svg" --csv "$tmp/r.csv" ||
	fail "roofline of the regions failed"
for r in gemm load compute store; do
	grep -q "^[^,]*gemm.json,$r," "$tmp/r.csv" || fail "JSON: no region $r"
done
[ "$(grep -c '"entries": 1' "$tmp/gemm.json")" = 4 ] || fail "JSON: entries"

# objdump: the table and the names in the disassembly.
"$bin" as -c "$cfg" -D M=$M -D K=$K -D N=$N -o "$tmp/g.npo" asm/kernels/gemm.s ||
	fail "as failed"
"$bin" objdump "$tmp/g.npo" > "$tmp/od" || fail "objdump failed"
grep -q '^Regions:' "$tmp/od" || fail "objdump: no region table"
record "objdump: $(grep -c '  r\(beg\|end\)    [a-z]' "$tmp/od") markers, $(sed -n '/^Regions:/,/^$/p' "$tmp/od" | grep -c '^  [0-9]') regions"

# Trace: the regions track with one slice per entry (numbered), each as
# long as its region; the phases back to back, from gemm's start to its end.
"$build/trccheck" "$tmp/gemm.json.gz" --stats "$tmp/t.st" > /dev/null || fail "trace: trccheck failed"
check_region_slices trace "$tmp/t.st" "$tmp/gemm.csv"
gzip -dc "$tmp/gemm.json.gz" > "$tmp/t.json"
for r in gemm load compute store; do
	[ "$(grep -c "\"ph\":\"X\".*\"name\":\"$r\",.*\"entry\":1" "$tmp/t.json")" = 1 ] ||
		fail "trace: not one slice of region $r with its entry number"
done
at=$(tstat "$tmp/t.st" min first X core0.regions gemm)
for r in load compute store; do
	[ "$(tstat "$tmp/t.st" min first X core0.regions $r)" = "$at" ] ||
		fail "trace: $r does not start where the phase before it ends ($at)"
	at=$(tstat "$tmp/t.st" max end X core0.regions $r)
done
[ "$(tstat "$tmp/t.st" max end X core0.regions gemm)" = "$at" ] || fail "trace: store does not end with gemm"

# Two cores (gemm_mc.s): one region per core, each with its half.
"$ref" gen 64 64 64 9 "$tmp/A2.npy" "$tmp/B2.npy"
"$bin" run -q -c "$cfg" -s chip.cores=2 -s noc.cols=3 -s noc.rows=2 \
	-s "noc.core_nodes=[]" -s "noc.dram_nodes=[]" asm/kernels/gemm_mc.s -D M=64 -D K=64 -D N=64 \
	--input A="$tmp/A2.npy" --input B="$tmp/B2.npy" --output C="$tmp/C2.npy" \
	--counters "$tmp/mc.csv" --trace "$tmp/mc.json.gz" || fail "gemm_mc: run failed"
for c in 0 1; do
	# the same name on two cores: the CSV tells them apart as NAME@coreN
	[ "$(grep "^core,$c,,gemm_mc@core$c$" "$tmp/mc.csv" | wc -l)" = 1 ] || fail "gemm_mc: no region on core $c"
done
# ... and the trace by the core's track
"$build/trccheck" "$tmp/mc.json.gz" --stats "$tmp/mc.st" > /dev/null || fail "gemm_mc: trccheck failed"
check_region_slices gemm_mc "$tmp/mc.st" "$tmp/mc.csv"
record "gemm_mc: $(grep -c '^entries,1,,gemm_mc@core[01]$' "$tmp/mc.csv") regions entered once"
golden
