# Traces of bundled programs, checked by tests/tools/trccheck.c (json-c,
# independent of the writer): fields per phase, slices nest or are
# disjoint per track, flows connect existing slices, counters are
# numbers.  Cases: gemm, a hazard, 4-core gemm with barriers, a fault, a
# deadlock and the cycle limit (each trace kept and valid), a window with
# a unit list, no counters.  Tracing must not change cycles or counters.
# Golden: trccheck's event counts and the trace digests.
. "$(dirname "$0")/../lib.sh"
chk=$build/trccheck
cfg=configs/default.cfg

# check NAME FILE ARGS...: validate, record the summary and the digest.
check() {
	name=$1 file=$2
	shift 2
	sum=$("$chk" "$file" "$@") || fail "$name: trccheck failed"
	record "$name: $sum"
	record "$name: trace $(digest "$file")"
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
"$bin" run -q -c $cfg $gemm --counters "$tmp/traced.json" --trace "$tmp/gemm.json.gz" \
	--check-hazards || fail "gemm: traced run failed"
cmp -s "$tmp/plain.json" "$tmp/traced.json" || fail "gemm: tracing changed the counters"
check gemm "$tmp/gemm.json.gz" --min-flows 10 --min-counters 10
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
	--input B="$tmp/B2.npy" --check-hazards --trace "$tmp/hz.json.gz" 2> /dev/null
rc=$?
set -e
[ $rc = 3 ] || fail "hazard: exit $rc, expected 3"
check hazard "$tmp/hz.json.gz" --need-instant hazard

# Four cores: barrier releases on every core.
"$ref" gen 128 64 64 3 "$tmp/A3.npy" "$tmp/B3.npy"
"$bin" run -q -c $cfg -s chip.cores=4 -s noc.cols=3 -s noc.rows=2 \
	-s "noc.core_nodes=[]" -s "noc.dram_nodes=[]" asm/kernels/gemm_mc.s \
	-D M=128 -D K=64 -D N=64 --input A="$tmp/A3.npy" --input B="$tmp/B3.npy" \
	--trace "$tmp/mc.json.gz" || fail "multicore: run failed"
check multicore "$tmp/mc.json.gz" --need-instant "barrier release" --min-flows 10
# ... and the same run seen through a window, on some units only.
"$bin" run -q -c $cfg -s chip.cores=4 -s noc.cols=3 -s noc.rows=2 \
	-s "noc.core_nodes=[]" -s "noc.dram_nodes=[]" asm/kernels/gemm_mc.s \
	-D M=128 -D K=64 -D N=64 --input A="$tmp/A3.npy" --input B="$tmp/B3.npy" \
	--trace "$tmp/win.json.gz" --trace-window 2000:6000 \
	--trace-units control,matrix,core1.dma0 || fail "window: run failed"
# (kind control selects the control unit's track and the core's
# "regions" track)
check window "$tmp/win.json.gz" --window 2000:6000 --tracks control,regions,matrix,dma0 --min-flows 1

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

# A wait nobody signals: the deadlock report on the stuck unit's track.
printf '\taddi\tt0, zero, 1\n\twait\tctl, 3, 1\n\thalt\n' > deadlock.s
expect_kept deadlock 3 dl.json.gz "$bin" run -c "$OLDPWD/$cfg" deadlock.s --trace dl.json.gz
check deadlock dl.json.gz --need-instant deadlock

# The cycle limit: everything up to it.
printf 'L:\tj\tL\n' > loop.s
expect_kept limit 3 loop.json.gz "$bin" run -c "$OLDPWD/$cfg" loop.s --max-cycles 5000 \
	--trace loop.json.gz --trace-interval 0
check limit loop.json.gz
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
