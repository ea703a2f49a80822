# Multi-core SPMD GEMM (asm/kernels/gemm_mc.s): every core computes its
# slice of rows of C from the shared DRAM, then all meet at a barrier.
# Checked exactly: C against the reference, no hazard (rows of C are
# disjoint), and what the cores moved and computed in total (MACs = M*K*N;
# DRAM -> SRAM bytes = A once + B once per core; SRAM -> DRAM = C once),
# which holds whatever the timing.  Golden: total and per-core cycles,
# barrier waits, matrix busy and DRAM stall cycles (summed over a core's
# DMA engines, which stall at the same time) for 1, 2 and 4 cores of
# default.cfg and 1, 4 and 16 cores of datacenter.cfg.  On default.cfg's
# one LPDDR5 channel more cores only add traffic (every core loads all of
# B), so the run does not get faster; on datacenter.cfg the NoC links bound
# it (docs/noc.md): 4 cores take 2.4x the speed of 1, 16 cores 3.0x.
. "$(dirname "$0")/../lib.sh"

# sum CSV PATTERN: sum of every counter whose name matches the regex, over
# the whole run's rows (a region's rows name their region in column 4).
sum() { grep -E "^$2,[^,]*,[^,]*,$" "$1" | cut -d, -f2 | awk '{ s += $1 } END { print s + 0 }'; }

# run_mc NAME CORES M K N CONFIG ARGS...: run, check, record.
run_mc() {
	name=$1 n=$2 m=$3 k=$4 nn=$5
	shift 5
	"$ref" gen $m $k $nn $((m + k + nn)) "$tmp/A.npy" "$tmp/B.npy"
	"$bin" run -q "$@" asm/kernels/gemm_mc.s -D M=$m -D K=$k -D N=$nn \
		--input A="$tmp/A.npy" --input B="$tmp/B.npy" --output C="$tmp/C.npy" \
		--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" >/dev/null ||
		fail "$name: output differs from the reference"
	macs=$(sum "$tmp/c.csv" 'core[0-9]+\.matrix\.macs')
	[ "$macs" = $((m * k * nn)) ] || fail "$name: $macs MACs, want $((m * k * nn))"
	rd=$(sum "$tmp/c.csv" 'core[0-9]+\.dma[0-9]+\.bytes_dram_to_sram')
	wr=$(sum "$tmp/c.csv" 'core[0-9]+\.dma[0-9]+\.bytes_sram_to_dram')
	# Cores past the last row (more cores than rows) load nothing.
	rows=$(( (m + n - 1) / n )); busy=$(( (m + rows - 1) / rows ))
	[ "$rd" = $((m * k + busy * k * nn)) ] ||
		fail "$name: $rd bytes loaded, want $((m * k + busy * k * nn))"
	[ "$wr" = $((m * nn * 4)) ] || fail "$name: $wr bytes stored, want $((m * nn * 4))"
	record "== $name: $n cores, M=$m K=$k N=$nn: $(counter "$tmp/c.csv" cycles) cycles," \
		"$busy cores with rows, dram->sram $rd bytes"
	i=0
	while [ $i -lt $n ]; do
		record "core$i cycles $(counter "$tmp/c.csv" core$i.cycles)" \
			"barrier_wait $(counter "$tmp/c.csv" core$i.control.stall_barrier_cycles)" \
			"matrix_busy $(counter "$tmp/c.csv" core$i.matrix.busy_cycles)" \
			"dma_dram_stall_sum $(sum "$tmp/c.csv" "core$i\\.dma[0-9]+\\.stall_dram_cycles")"
		i=$((i + 1))
	done
}

# default.cfg with N cores on a 3 x 2 mesh: cores on nodes 0.., the DRAM
# channel on the node after them.
small() {
	echo -c configs/default.cfg -s chip.cores=$1 -s noc.cols=3 -s noc.rows=2 \
		-s "noc.core_nodes=[]" -s "noc.dram_nodes=[]"
}
for n in 1 2 4; do
	run_mc "default x$n" $n 128 64 64 $(small $n)
done
# Rows that do not divide evenly (26, 26, 26, 23), and more cores than rows.
run_mc "default x4 uneven" 4 101 64 40 $(small 4)
run_mc "default x4 tiny" 4 3 8 8 $(small 4)

# Per-core programs (--program): the same kernel given to cores 0-1 and
# 2-3 as two separate programs must run exactly as the SPMD run above
# (same cycles, same output); no positional PROGRAM is needed then.
"$ref" gen 128 64 64 256 "$tmp/A.npy" "$tmp/B.npy"
"$bin" run -q $(small 4) --program 0-1=asm/kernels/gemm_mc.s \
	--program 2-3=asm/kernels/gemm_mc.s -D M=128 -D K=64 -D N=64 \
	--input A="$tmp/A.npy" --input B="$tmp/B.npy" --output C="$tmp/C.npy" \
	--counters "$tmp/p.csv" 2> "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "per-core programs: run failed"; }
"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" >/dev/null ||
	fail "per-core programs: output differs from the reference"
"$bin" run -q $(small 4) asm/kernels/gemm_mc.s -D M=128 -D K=64 -D N=64 \
	--input A="$tmp/A.npy" --input B="$tmp/B.npy" --counters "$tmp/s.csv" ||
	fail "per-core programs: SPMD run failed"
[ "$(counter "$tmp/p.csv" cycles)" = "$(counter "$tmp/s.csv" cycles)" ] ||
	fail "per-core programs: $(counter "$tmp/p.csv" cycles) cycles, SPMD $(counter "$tmp/s.csv" cycles)"
# A core left without a program is a usage error naming it.
"$bin" run -q $(small 4) --program 0-2=asm/kernels/gemm_mc.s 2> "$tmp/err" &&
	fail "per-core programs: a core without a program ran"
grep -q "core 3 has no program" "$tmp/err" ||
	fail "per-core programs: missing-program message: $(cat "$tmp/err")"
# A malformed --program is a usage error (exit 2) naming the expected form.
st=0
"$bin" run -q --program 3-1=asm/kernels/gemm_mc.s 2> "$tmp/err" || st=$?
[ "$st" = 2 ] || fail "per-core programs: --program 3-1=... exited $st, want 2"
grep -q "expected CORE\[-CORE\]=FILE" "$tmp/err" ||
	fail "per-core programs: malformed --program message: $(cat "$tmp/err")"

# datacenter.cfg: 16 cores (and its first 1 and 4 cores), 128 x 128
# arrays run int8 -> int32 here, 16 HBM3 channels.
for spec in "1 [7]" "4 [7,8,9,10]" "16"; do
	set -- $spec
	nodes=${2:+-s noc.core_nodes=$2}
	run_mc "datacenter x$1" $1 512 256 256 -c configs/datacenter.cfg -s chip.cores=$1 \
		$nodes -s core.matrix.in_type=int8 -s core.matrix.acc_type=int32 \
		-D ROWS=128 -D COLS=128
done
# gemm_mc_share.s: B read from DRAM once and shared over the NoC (each
# core loads a slice and writes it into every other core's scratchpad).
# Checked exactly: C against the reference, no hazard, DRAM -> SRAM bytes
# = A + B once, SRAM -> SRAM bytes = (cores - 1) x B, the DRAM channels
# read and wrote exactly what the DMA descriptors asked for, every flit
# injected was ejected, and 16 cores beat 4 on datacenter.cfg.
# With MC=1 (-D MCAST=1) each slice leaves its core once as a multicast:
# SRAM -> SRAM bytes = B once, and flits ejected = injected + the routers'
# copies.
run_share() {
	name=$1 n=$2 m=$3 k=$4 nn=$5
	shift 5
	"$ref" gen $m $k $nn $((m + k + nn)) "$tmp/A.npy" "$tmp/B.npy"
	"$bin" run -q "$@" asm/kernels/gemm_mc_share.s -D M=$m -D K=$k -D N=$nn \
		--input A="$tmp/A.npy" --input B="$tmp/B.npy" --output C="$tmp/C.npy" \
		--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" >/dev/null ||
		fail "$name: output differs from the reference"
	rd=$(sum "$tmp/c.csv" 'core[0-9]+\.dma[0-9]+\.bytes_dram_to_sram')
	s2s=$(sum "$tmp/c.csv" 'core[0-9]+\.dma[0-9]+\.bytes_sram_to_sram')
	wr=$(sum "$tmp/c.csv" 'core[0-9]+\.dma[0-9]+\.bytes_sram_to_dram')
	[ "$rd" = $((m * k + k * nn)) ] || fail "$name: $rd bytes loaded, want $((m * k + k * nn))"
	copies=$((n - 1)); [ "${MC:-0}" = 1 ] && copies=1
	[ "$s2s" = $((copies * k * nn)) ] || fail "$name: $s2s bytes shared, want $((copies * k * nn))"
	[ "$(sum "$tmp/c.csv" 'dram\.ch[0-9]+\.read_bytes')" = "$rd" ] ||
		fail "$name: DRAM read bytes differ from the DMA's"
	[ "$(sum "$tmp/c.csv" 'dram\.ch[0-9]+\.write_bytes')" = "$wr" ] ||
		fail "$name: DRAM write bytes differ from the DMA's"
	[ "$(counter "$tmp/c.csv" noc.flits)" = $(($(counter "$tmp/c.csv" noc.flits_injected) + \
		$(counter "$tmp/c.csv" noc.flits_replicated))) ] ||
		fail "$name: flits injected (+ copies) and ejected differ"
	record "== share $name: $n cores, M=$m K=$k N=$nn: $(counter "$tmp/c.csv" cycles) cycles," \
		"dram->sram $rd, shared $s2s bytes, noc packets $(counter "$tmp/c.csv" noc.packets)," \
		"flits $(counter "$tmp/c.csv" noc.flits) (injected $(counter "$tmp/c.csv" noc.flits_injected))," \
		"credit stalls $(counter "$tmp/c.csv" noc.stall_credit_cycles)"
	last_cycles=$(counter "$tmp/c.csv" cycles)
}
run_share "default x4" 4 128 64 64 $(small 4)
for spec in "1 [7]" "4 [7,8,9,10]" "16"; do
	set -- $spec
	nodes=${2:+-s noc.core_nodes=$2}
	run_share "datacenter x$1" $1 512 256 256 -c configs/datacenter.cfg -s chip.cores=$1 \
		$nodes -s core.matrix.in_type=int8 -s core.matrix.acc_type=int32 \
		-D ROWS=128 -D COLS=128
	eval "share_$1=$last_cycles"
done
[ "$share_16" -lt "$share_4" ] || fail "16 cores ($share_16 cycles) do not beat 4 ($share_4)"
# The slices as multicasts, replicated at the source and in the routers:
# both beat the n-1 unicast copies, and router replication injects less.
for where in source router; do
	MC=1 run_share "datacenter x16 multicast $where" 16 512 256 256 -c configs/datacenter.cfg \
		-s chip.cores=16 -s core.matrix.in_type=int8 -s core.matrix.acc_type=int32 \
		-s noc.multicast=$where -D ROWS=128 -D COLS=128 -D MCAST=1
	eval "mc_$where=$last_cycles"
done
[ "$mc_router" -lt "$share_16" ] || fail "router multicast ($mc_router cycles) does not beat unicast sharing ($share_16)"

golden
