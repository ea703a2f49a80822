# Traces of bundled programs, checked by tests/tools/trccheck.c (json-c,
# independent of the writer): fields per phase, slices nest or are
# disjoint per track, flows connect existing slices, counters are
# numbers.  Cases: gemm, a hazard, 4-core gemm with barriers, a fault, a
# deadlock and the cycle limit (each trace kept and valid), a window with
# a unit list, no counters.  Tracing must not change cycles or counters.
# Each trace is tied to its run (trccheck --stats, lib.sh): the unit and
# control slices, stalls, flows and region slices of a finished run are
# its counters (check_unit_slices, check_region_slices) and nothing lies
# past its last cycle; the hazard instants are the hazards reported, at
# the cycles of their later commands; each core's barrier releases are its
# barriers; the window trace holds exactly the slices, instants and
# counter samples of the whole run's trace that touch the window on the
# selected tracks; the fault and the deadlock are the last events, at the
# cycle of the message; the cycle limit's trace holds every iteration of
# the loop started up to the limit.  Golden: the usage errors only (no
# event counts or digests: they change with any timing).
. "$(dirname "$0")/../lib.sh"
chk=$build/trccheck
cfg=configs/default.cfg

# check NAME FILE ARGS...: validate, and write the stats to $tmp/NAME.st.
check() {
	name=$1 file=$2
	shift 2
	"$chk" "$file" --stats "$tmp/$name.st" "$@" > "$tmp/$name.sum" || fail "$name: trccheck failed"
}

# finished NAME COUNTERS.csv: the trace of a run that ran to its end
# against the counters of the same run; every flow that starts ends, and
# nothing lies past the run's cycle count (a slice of the last cycle ends
# there, the closing counter samples are at it).
finished() {
	grep -q '(0 unmatched starts)$' "$tmp/$1.sum" || fail "$1: $(cat "$tmp/$1.sum")"
	check_unit_slices "$1" "$tmp/$1.st" "$2"
	check_region_slices "$1" "$tmp/$1.st" "$2"
	n=$(counter "$2" cycles)
	for ph in X i; do
		e=$(tstat "$tmp/$1.st" max end $ph '.*' '.*')
		[ "$e" -le "$n" ] || fail "$1: a $ph event ends at cycle $e, after the run's $n cycles"
	done
	e=$(tstat "$tmp/$1.st" max last C '.*' '.*')
	[ "$e" -le "$n" ] || fail "$1: a counter sample at cycle $e, after the run's $n cycles"
}

# expect_kept NAME STATUS FILE CMD...: a failing run keeps its trace.
expect_kept() {
	name=$1 want=$2 file=$3
	shift 3
	set +e
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	set -e
	[ $rc = "$want" ] || { cat "$tmp/err" >&2; fail "$name: exit $rc, expected $want"; }
	grep -q "trace kept: $file" "$tmp/err" || { cat "$tmp/err" >&2; fail "$name: no 'trace kept' message"; }
	[ -f "$file" ] || fail "$name: the trace was not kept"
}

M=64 K=96 N=64
"$ref" gen $M $K $N 7 "$tmp/A.npy" "$tmp/B.npy"
gemm="asm/kernels/gemm.s -D M=$M -D K=$K -D N=$N --input A=$tmp/A.npy --input B=$tmp/B.npy"

# gemm: every instruction a slice, flows dispatch -> unit, counters.
# shellcheck disable=SC2086
"$bin" run -q -c $cfg $gemm --counters "$tmp/plain.json" || fail "gemm: run failed"
# shellcheck disable=SC2086
"$bin" run -q -c $cfg $gemm --counters "$tmp/traced.json" --counters "$tmp/gemm.csv" \
	--trace "$tmp/gemm.json.gz" --check-hazards || fail "gemm: traced run failed"
cmp -s "$tmp/plain.json" "$tmp/traced.json" || fail "gemm: tracing changed the counters"
check gemm "$tmp/gemm.json.gz" --min-flows 10 --min-counters 10
finished gemm "$tmp/gemm.csv"
gzip -dc "$tmp/gemm.json.gz" | grep -q '"name":"mmul","bind_id":[0-9]*,"flow_in":true,"args":{"cycle":[0-9]*,"cycles":[0-9]*,"pc":"0x[0-9a-f]*","src":"asm/kernels/gemm.s:[0-9]*"' ||
	fail "gemm: no matrix slice with flow, pc and source line"
gzip -dc "$tmp/gemm.json.gz" | grep -q '"name":"dma","bind_id":[0-9]*,"flow_out":true,"args":{[^}]*"insn":"dma ' ||
	fail "gemm: no dispatch slice with the disassembly"
gzip -dc "$tmp/gemm.json.gz" | grep -q '"name":"dram.ch0","args":{"GB/s":' ||
	fail "gemm: no DRAM bandwidth counter"

# A missing wait: hazards as instants on the later command's unit.
"$ref" gen 128 64 64 9 "$tmp/A2.npy" "$tmp/B2.npy"
set +e
"$bin" run -q -c $cfg asm/kernels/gemm_db.s -D BUG=1 -D M=128 --input A="$tmp/A2.npy" \
	--input B="$tmp/B2.npy" --check-hazards --trace "$tmp/hz.json.gz" \
	--counters "$tmp/hz.csv" 2> "$tmp/hz.err"
rc=$?
set -e
[ $rc = 3 ] || fail "hazard: exit $rc, expected 3"
check hazard "$tmp/hz.json.gz" --need-instant hazard
finished hazard "$tmp/hz.csv"
# one instant per hazard reported, each at the cycle its later command
# started ("..., then core0.mtx mmul reads (pc ..., started cycle N)")
n=$(sed -n 's/^npusim: \([0-9]*\) hazards found$/\1/p' "$tmp/hz.err")
[ "$n" = "$(grep -c '^warning: hazard:' "$tmp/hz.err")" ] || fail "hazard: $n hazards found, other warnings"
[ "$(tstat "$tmp/hazard.st" sum n i '.*' hazard)" = "$n" ] ||
	fail "hazard: $(tstat "$tmp/hazard.st" sum n i '.*' hazard) hazard instants, $n hazards found"
sed -n 's/.*, then .*started cycle \([0-9]*\)), with .*/\1/p' "$tmp/hz.err" | sort -n > "$tmp/hz.cycles"
[ "$(tstat "$tmp/hazard.st" min first i '.*' hazard)" = "$(head -1 "$tmp/hz.cycles")" ] &&
	[ "$(tstat "$tmp/hazard.st" max last i '.*' hazard)" = "$(tail -1 "$tmp/hz.cycles")" ] ||
	fail "hazard: the instants span other cycles than the hazards' later commands"

# Four cores: barrier releases on every core.
"$ref" gen 128 64 64 3 "$tmp/A3.npy" "$tmp/B3.npy"
"$bin" run -q -c $cfg -s chip.cores=4 -s noc.cols=3 -s noc.rows=2 \
	-s "noc.core_nodes=[]" -s "noc.dram_nodes=[]" asm/kernels/gemm_mc.s \
	-D M=128 -D K=64 -D N=64 --input A="$tmp/A3.npy" --input B="$tmp/B3.npy" \
	--trace "$tmp/mc.json.gz" --counters "$tmp/mc.csv" || fail "multicore: run failed"
check multicore "$tmp/mc.json.gz" --need-instant "barrier release" --min-flows 10
finished multicore "$tmp/mc.csv"
for c in 0 1 2 3; do
	b=$(tstat "$tmp/multicore.st" sum n X "core$c\.control" barrier)
	[ "$b" -gt 0 ] && [ "$(tstat "$tmp/multicore.st" sum n i "core$c\.control" 'barrier release')" = "$b" ] ||
		fail "multicore: core $c has other barrier releases than its $b barriers"
done
# ... and the same run seen through a window, on some units only.
"$bin" run -q -c $cfg -s chip.cores=4 -s noc.cols=3 -s noc.rows=2 \
	-s "noc.core_nodes=[]" -s "noc.dram_nodes=[]" asm/kernels/gemm_mc.s \
	-D M=128 -D K=64 -D N=64 --input A="$tmp/A3.npy" --input B="$tmp/B3.npy" \
	--trace "$tmp/win.json.gz" --trace-window 2000:6000 \
	--trace-units control,matrix,core1.dma0 || fail "window: run failed"
# (kind control selects the control unit's track and the core's
# "regions" track)
check window "$tmp/win.json.gz" --window 2000:6000 --tracks control,regions,matrix,dma0 --min-flows 1
# what the whole run's trace has in the window on those tracks (flows
# differ: the window drops those whose start lies outside it)
"$chk" "$tmp/mc.json.gz" --stats "$tmp/clip.st" --clip 2000:6000 > /dev/null ||
	fail "window: trccheck --clip failed"
awk -F'\t' '$1 != "f" && ($2 ~ /\.(control|regions|matrix)$/ || $2 == "core1.dma0")' "$tmp/clip.st" |
	sort > "$tmp/clip.want"
grep -v '^f' "$tmp/window.st" | sort > "$tmp/clip.got"
cmp -s "$tmp/clip.want" "$tmp/clip.got" ||
	{ diff "$tmp/clip.want" "$tmp/clip.got" >&2
	  fail "window: not the whole run's events in the window (-) but (+)"; }

cd "$tmp"
# A DMA past the end of DRAM: the fault is the trace's last word.
cat > dmafault.s <<'S'
	li	t0, 0x7fffffff
	dset	src, t0
	li	t0, 4096
	dset	n0, t0
	dma	0
	fence	all
	halt
S
expect_kept fault 3 fault.json.gz "$bin" run -c "$OLDPWD/$cfg" dmafault.s --trace fault.json.gz
check fault fault.json.gz --need-instant fault
# the instant at the cycle of the message, no slice after it (the closing
# counter samples follow, as at the end of every run)
at=$(sed -n 's/^core 0 pc 0x[0-9a-f]* cycle \([0-9]*\): error: .*/\1/p' "$tmp/err")
[ -n "$at" ] && [ "$(tstat "$tmp/fault.st" sum n i '.*' fault)" = 1 ] &&
	[ "$(tstat "$tmp/fault.st" max last i '.*' fault)" = "$at" ] ||
	fail "fault: no single fault instant at the cycle of the message ($at)"
[ "$(tstat "$tmp/fault.st" max end X '.*' '.*')" -le "$at" ] || fail "fault: a slice ends after the fault"

# A wait nobody signals: the deadlock report on the stuck unit's track.
printf '\taddi\tt0, zero, 1\n\twait\tctl, 3, 1\n\thalt\n' > deadlock.s
expect_kept deadlock 3 dl.json.gz "$bin" run -c "$OLDPWD/$cfg" deadlock.s --trace dl.json.gz
check deadlock dl.json.gz --need-instant deadlock
# on the track of the unit the note names, at the cycle of the message,
# nothing after it
at=$(sed -n 's/^error: deadlock at cycle \([0-9]*\):.*/\1/p' "$tmp/err")
unit=$(sed -n 's/^note: \(core[0-9]*\.[a-z0-9]*\): .* waits for .*/\1/p' "$tmp/err")
[ -n "$at" ] && [ -n "$unit" ] &&
	[ "$(tstat "$tmp/deadlock.st" sum n i "$unit" deadlock)" = 1 ] &&
	[ "$(tstat "$tmp/deadlock.st" max last i '.*' deadlock)" = "$at" ] ||
	fail "deadlock: no single deadlock instant on $unit at the cycle of the message ($at)"
[ "$(tstat "$tmp/deadlock.st" max end X '.*' '.*')" -le "$at" ] || fail "deadlock: a slice ends after it"

# The cycle limit: everything up to it.
printf 'L:\tj\tL\n' > loop.s
expect_kept limit 3 loop.json.gz "$bin" run -c "$OLDPWD/$cfg" loop.s --max-cycles 5000 \
	--trace loop.json.gz --trace-interval 0
check limit loop.json.gz
# nothing starts after the limit, and the loop's jumps (j is jal: one
# slice each, at a fixed period) are all there: the next would start past
# the limit.
# (The last starts at cycle 5000 itself and ends at 5001: --max-cycles N
# still runs cycle N, so a run of N + 1 cycles passes the limit; an
# off-by-one of the engine's watchdog, not asserted either way here.)
n=$(tstat "$tmp/limit.st" sum n X core0.control jal)
first=$(tstat "$tmp/limit.st" min first X core0.control jal)
last=$(tstat "$tmp/limit.st" max last X core0.control jal)
[ "$n" -gt 1 ] && [ "$(tstat "$tmp/limit.st" sum n X '.*' '.*')" = "$n" ] ||
	fail "limit: not only jumps ($n) on the tracks"
p=$(( (last - first) / (n - 1) ))
[ $((first + p * (n - 1))) = "$last" ] || fail "limit: the jumps are not periodic"
[ "$last" -le 5000 ] && [ $((last + p)) -gt 5000 ] ||
	fail "limit: the last jump starts at cycle $last, period $p, limit 5000"
"$chk" loop.json.gz --min-counters 1 > /dev/null 2>&1 &&
	fail "limit: counter samples with --trace-interval 0"

# Bad selections are usage errors, and leave no file.
for bad in "--trace-units matrix,,dma" "--trace-window 10:5" "--trace-window 5" \
	"--trace-interval -1"; do
	set +e
	# shellcheck disable=SC2086
	"$bin" run -c "$OLDPWD/$cfg" deadlock.s --trace bad.json.gz $bad 2> err
	rc=$?
	set -e
	[ $rc = 2 ] || fail "$bad: exit $rc, expected 2"
	[ ! -e bad.json.gz ] || fail "$bad: left a trace behind"
	record "$bad: exit 2: $(head -1 err)"
done
cd "$OLDPWD"
golden
