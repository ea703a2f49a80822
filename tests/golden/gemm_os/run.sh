# gemm_os.s (output stationary, B resident in column blocks, A tiles
# double-buffered over two DMA engines and loaded one tile ahead): C exact
# against tests/tools/gemmref on default.cfg (32x32), gemmini.cfg (16x16)
# and tpu-v1.cfg (256x256), with no hazards, for any M, K, N (partial last
# tiles and panels, several column blocks), every input type (int8, int4,
# fp8 e4m3/e5m2, fp16, bf16 - int4 also packed two MACs per PE), every
# output type (int32, int8; fp32, bf16, fp16) and the fused bias with relu,
# gelu and silu.  The array stays busy: on default.cfg the matrix engine
# idles less than 20% of a 1024-row run.  Golden: cycles and matrix
# busy/stall cycles.
. "$(dirname "$0")/../lib.sh"
# case NAME CONFIG ROWS M K N ITYPE OUT BIAS ACT [npusim options]
case_os() {
	name=$1 cfg=$2 r=$3 m=$4 k=$5 n=$6 it=$7 out=$8 bias=$9
	shift 9
	act=$1
	shift
	gemm_gen $it $m $k $n
	"$ref" tilet "$tmp/A.npy" $r "$tmp/AT.npy"
	binput=
	bfile=-
	if [ "$bias" = 1 ]; then
		binput="--input BIAS=$tmp/bias.npy"
		bfile=$tmp/bias.npy
	fi
	# shellcheck disable=SC2086 # optional arguments, split on purpose
	"$bin" run -q -c configs/$cfg asm/kernels/gemm_os.s -D M=$m -D K=$k -D N=$n \
		-D ITYPE=$it -D OUT=$out -D WITH_BIAS=$bias -D ACT=$act "$@" \
		--input AT="$tmp/AT.npy" --input B="$tmp/B.npy" $binput --output C="$tmp/C.npy" \
		--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	gemm_check $it $out "$bfile" $act || fail "$name: C differs from the reference"
	record "$name: cycles $(counter "$tmp/c.csv" cycles) matrix_busy $(counter "$tmp/c.csv" core0.matrix.busy_cycles) stall $(counter "$tmp/c.csv" core0.matrix.stall_cycles)"
}
case_os "default 96x100x64 int32" default.cfg 32 96 100 64 int8 int32 0 0
case_os "default 96x100x64 int8" default.cfg 32 96 100 64 int8 int8 0 0
case_os "default 1024x512x128 int8" default.cfg 32 1024 512 128 int8 int8 0 0
busy=$(counter "$tmp/c.csv" core0.matrix.busy_cycles) cyc=$(counter "$tmp/c.csv" cycles)
[ $((busy * 10)) -ge $((cyc * 8)) ] || fail "the array idles: busy $busy of $cyc cycles"
case_os "default 100x70x50 int8, bias relu" default.cfg 32 100 70 50 int8 int8 1 1
case_os "default 77x64x90 int32, bias gelu" default.cfg 32 77 64 90 int8 int32 1 2
case_os "default 64x64x200 int8, 4 column blocks" default.cfg 32 64 64 200 int8 int8 0 0 -D NBK=64
case_os "default 70x96x40 int4->int32" default.cfg 32 70 96 40 int4 int32 0 0
case_os "default 70x96x40 int4->int8, 2 MACs/PE" default.cfg 32 70 96 40 int4 int8 0 0 -s core.matrix.macs_per_pe.int4=2
case_os "default 70x96x40 fp8e4m3->fp32" default.cfg 32 70 96 40 fp8e4m3 fp32 0 0
case_os "default 70x96x40 fp8e5m2->bf16, bias relu" default.cfg 32 70 96 40 fp8e5m2 bf16 1 1
case_os "default 70x96x40 bf16->fp16, bias gelu" default.cfg 32 70 96 40 bf16 fp16 1 2
case_os "default 70x96x40 fp16->fp32, bias silu" default.cfg 32 70 96 40 fp16 fp32 1 3
case_os "gemmini 64x70x48 int8" gemmini.cfg 16 64 70 48 int8 int8 0 0
case_os "gemmini 50x33x70 int8, bias relu" gemmini.cfg 16 50 33 70 int8 int8 1 1
case_os "gemmini 40x64x40 bf16->fp32" gemmini.cfg 16 40 64 40 bf16 fp32 0 0
case_os "tpu-v1 512x300x256 int32" tpu-v1.cfg 256 512 300 256 int8 int32 0 0
case_os "tpu-v1 300x100x300 bf16->fp32" tpu-v1.cfg 256 300 100 300 bf16 fp32 0 0
case_os "tpu-v1 260x128x260 fp8e4m3->bf16, bias gelu" tpu-v1.cfg 256 260 128 260 fp8e4m3 bf16 1 2
golden
