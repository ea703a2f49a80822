# gemm_kb.s (output stationary with K blocked: the partial sums of a group
# of C tiles stay in the accumulator while K streams through in chunks;
# A chunks and B chunks double-buffered): C exact against
# tests/tools/gemmref, no hazards, on default.cfg, gemmini.cfg and
# tpu-v1.cfg - chunks that do not divide K, short last groups of tiles,
# ragged M and N, several column blocks, a K of 8192 that gemm_os.s cannot
# hold, int8/int32 and bf16/fp16 -> bf16/fp32.  Golden: cycles and matrix
# busy cycles.
. "$(dirname "$0")/../lib.sh"
# case NAME CONFIG ROWS M K N ITYPE OUT [-D ...]
case_kb() {
	name=$1 cfg=$2 r=$3 m=$4 k=$5 n=$6 it=$7 out=$8
	shift 8
	case $it in
	int8) "$ref" gen $m $k $n $((m + n)) "$tmp/A.npy" "$tmp/B.npy" ;;
	*) "$ref" genf $m $k $n $((m + n)) "$tmp/A.npy" "$tmp/B.npy" ;;
	esac
	"$ref" tilet "$tmp/A.npy" $r "$tmp/AT.npy"
	"$bin" run -q -c configs/$cfg asm/kernels/gemm_kb.s -D M=$m -D K=$k -D N=$n \
		-D ITYPE=$it -D OUT=$out "$@" \
		--input AT="$tmp/AT.npy" --input B="$tmp/B.npy" --output C="$tmp/C.npy" \
		--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	case $it/$out in
	int8/int8) "$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" 8 > /dev/null ;;
	int8/int32) "$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" > /dev/null ;;
	*) "$ref" checkf "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" > /dev/null ;;
	esac || fail "$name: C differs from the reference"
	record "$name: cycles $(counter "$tmp/c.csv" cycles) matrix_busy $(counter "$tmp/c.csv" core0.matrix.busy_cycles)"
}
case_kb "default 64x256x64, 4 chunks" default.cfg 32 64 256 64 int8 int8 -D KB=64
case_kb "default 100x300x70 int32, chunks of 128, groups of 2" default.cfg 32 100 300 70 int8 int32 -D KB=128 -D G=2
case_kb "default 160x300x70, groups of 3 (short last group)" default.cfg 32 160 300 70 int8 int8 -D KB=64 -D G=3
case_kb "default 96x200x100, 2 column blocks" default.cfg 32 96 200 100 int8 int8 -D KB=64 -D NBK=64
case_kb "default 128x8192x128 (deeper than gemm_os holds)" default.cfg 32 128 8192 128 int8 int8
case_kb "default 70x1000x40 bf16->bf16" default.cfg 32 70 1000 40 bf16 bf16 -D KB=128
case_kb "default 70x1000x40 fp16->fp32" default.cfg 32 70 1000 40 fp16 fp32 -D KB=256
case_kb "gemmini 50x700x70" gemmini.cfg 16 50 700 70 int8 int8 -D KB=128
case_kb "tpu-v1 300x2000x300 int32" tpu-v1.cfg 256 300 2000 300 int8 int32 -D KB=512
golden
