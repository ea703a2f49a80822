# GEMM on each dataflow, shapes whose rows align with the banks: exact int32
# output, matrix busy cycles equal to the SCALE-Sim fold model with no SRAM
# stall, M*K*N MACs, and the DRAM traffic of A and B read once (int8) and C
# written once (int32), all of it moved by the DMA engines.  Golden: the
# cycles of each dataflow.
. "$(dirname "$0")/../lib.sh"
M=64 K=96 N=64
"$ref" gen $M $K $N 7 "$tmp/A.npy" "$tmp/B.npy"
for df in ws os is; do
	"$bin" run -q -c configs/default.cfg asm/kernels/gemm.s -D DF=$df \
		-D M=$M -D K=$K -D N=$N --input A="$tmp/A.npy" --input B="$tmp/B.npy" \
		--output C="$tmp/C.npy" --counters "$tmp/c.csv" \
		--check-hazards || fail "$df: run failed"
	"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" >/dev/null ||
		fail "$df: output differs from the reference"
	want=$(fold_cycles $df $M $K $N 32 32)
	busy=$(counter "$tmp/c.csv" core0.matrix.busy_cycles)
	stall=$(counter "$tmp/c.csv" core0.matrix.stall_cycles)
	[ "$busy" = "$want" ] || fail "$df: matrix busy $busy cycles, fold model $want"
	[ "$stall" = 0 ] || fail "$df: matrix stalled $stall cycles with aligned rows"
	check_gemm_traffic "$df" "$tmp/c.csv" $M $K $N
	record "== $df: matrix busy $busy = fold model"
	record "cycles $(counter "$tmp/c.csv" core0.cycles)"
done
golden
