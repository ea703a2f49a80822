# npusim stat as perf users drive it: -e selects, -x gives script lines,
# --total sums cores, the default hides breakdowns, energy follows the
# config's per-event energies, and --region names a missing region clearly.
. "$(dirname "$0")/../lib.sh"

cfg=configs/datacenter.cfg
run() { "$bin" stat -c "$cfg" asm/kernels/gemm_mc.s -D M=128 -D K=64 -D N=64 \
	--input A=zeros --input B=zeros --input C=zeros "$@"; }

run --per-core -x , -e macs,bytes_dram_to_sram > "$tmp/x"
[ "$(head -1 "$tmp/x" | cut -d, -f2-3)" = "cycle,cycles" ] || fail "-x: no cycles line first"
n=$(grep -c ',MAC,core[0-9]*\.matrix\.macs,' "$tmp/x")
[ "$n" = 16 ] || fail "-e macs: $n matrix.macs lines, expected one per core (16)"
grep -q 'PE utilisation$' "$tmp/x" || fail "-x: a selected counter lost its ratio"
record "-x -e: $(wc -l < "$tmp/x") lines"

run -x , -e 'matrix.macs' > "$tmp/t"
macs=$(grep ',matrix.macs,' "$tmp/t" | cut -d, -f1)
[ "$macs" = $((128 * 64 * 64)) ] || fail "default on 16 cores (summed): matrix.macs $macs, expected 128*64*64"
record "default (summed over 16 cores) matrix.macs $macs"
run --total -x , -e 'matrix.macs' | cmp -s - "$tmp/t" || fail "--total differs from the 16-core default"

run --per-core > "$tmp/all"
grep -q 'bank0' "$tmp/all" && fail "the default summary shows per-bank breakdowns"
run --per-core --detail | grep -q 'bank0' || fail "--detail does not show per-bank breakdowns"
grep -q ' Energy' "$tmp/all" || fail "no energy section"
grep -q 'average power' "$tmp/all" || fail "no average power"
record "--per-core summary: $(wc -l < "$tmp/all") lines, default: $(run | wc -l) lines"

# Energy doubles where its per-event energy doubles.
e1=$("$bin" run -q -c "$cfg" asm/kernels/gemm_mc.s -D M=128 -D K=64 -D N=64 \
	--input A=zeros --input B=zeros --input C=zeros --counters "$tmp/e1.csv"; counter "$tmp/e1.csv" energy.mac)
"$bin" run -q -c "$cfg" -s energy.mac_pj_int8=0.0456 asm/kernels/gemm_mc.s -D M=128 -D K=64 -D N=64 \
	--input A=zeros --input B=zeros --input C=zeros --counters "$tmp/e2.csv"
e2=$(counter "$tmp/e2.csv" energy.mac)
awk -v a="$e1" -v b="$e2" 'BEGIN { exit !(b > 0 && (b / a - 2) < 1e-9 && (2 - b / a) < 1e-9) }' ||
	fail "energy.mac $e1 -> $e2 pJ when mac_pj_int8 doubled"
record "energy.mac $e1 pJ, doubled $e2 pJ"

set +e
run --region nosuch > /dev/null 2> "$tmp/err"
rc=$?
set -e
[ $rc = 2 ] || fail "--region nosuch: exit $rc, expected 2"
record "--region nosuch: $(cat "$tmp/err")"
golden
