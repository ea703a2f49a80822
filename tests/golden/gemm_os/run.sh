# gemm_os.s (output stationary, B resident, A tiles double-buffered over
# two DMA engines and loaded one tile ahead): exact int32 and requantised
# int8 C against the reference on default.cfg (32x32), gemmini.cfg (16x16)
# and tpu-v1.cfg (256x256), K not a multiple of anything, no hazards; the
# array stays busy: on default.cfg the matrix engine idles less than 20%
# of a 1024-row run.  Golden: cycles and matrix busy/stall cycles.
. "$(dirname "$0")/../lib.sh"
# case NAME CONFIG ROWS M K N OUT
case_os() {
	name=$1 cfg=$2 r=$3 m=$4 k=$5 n=$6 out=$7
	"$ref" gen $m $k $n $((m + k)) "$tmp/A.npy" "$tmp/B.npy"
	"$ref" tilet "$tmp/A.npy" $r "$tmp/AT.npy"
	"$bin" run -q -c configs/$cfg asm/kernels/gemm_os.s -D M=$m -D K=$k -D N=$n -D OUT=$out \
		--input AT="$tmp/AT.npy" --input B="$tmp/B.npy" --output C="$tmp/C.npy" \
		--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	if [ "$out" = int8 ]; then shift_arg=8; else shift_arg=; fi
	"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" $shift_arg > /dev/null ||
		fail "$name: C differs from the reference"
	record "$name: cycles $(counter "$tmp/c.csv" cycles) matrix_busy $(counter "$tmp/c.csv" core0.matrix.busy_cycles) stall $(counter "$tmp/c.csv" core0.matrix.stall_cycles)"
}
case_os "default 96x100x64 int32" default.cfg 32 96 100 64 int32
case_os "default 96x100x64 int8" default.cfg 32 96 100 64 int8
case_os "default 1024x512x128 int8" default.cfg 32 1024 512 128 int8
busy=$(counter "$tmp/c.csv" core0.matrix.busy_cycles) cyc=$(counter "$tmp/c.csv" cycles)
[ $((busy * 10)) -ge $((cyc * 8)) ] || fail "the array idles: busy $busy of $cyc cycles"
case_os "gemmini 64x70x48 int8" gemmini.cfg 16 64 70 48 int8
case_os "tpu-v1 512x300x256 int32" tpu-v1.cfg 256 512 300 256 int32
golden
