# gemm_ws.s (weight stationary: row-major A streamed in blocks of MB rows
# past double-buffered weight tiles; A, B, C over all the DMA engines):
# C exact against tests/tools/gemmref on default.cfg (32x32, weights not
# double-buffered), gemmini.cfg (16x16) and tpu-v1.cfg (256x256, double-
# buffered), with no hazards, for any M, K, N (ragged blocks, k tiles and
# panels; one and two A buffers), every input type (int4 also packed two
# MACs per PE), every output type, the fused bias with relu/gelu/silu,
# and 1, 2, 3, 4 and 8 DMA engines (loads shared or A, B, C separate).  Asserted, not
# recorded:
# - the matrix engine's busy cycles are exactly the folds the kernel
#   header promises, TPB * (M + NMB * (R + C - 2 + P)), plus the exposed
#   preloads and the SRAM stalls the same run counts; without weight
#   double-buffering every one of the NMB * TPB preloads is exposed (R
#   cycles each), with it at least the first;
# - DRAM traffic: A read once, B once per block, the bias once, C written
#   once: M*K*e + NMB*K*N*e (+ 4N) bytes read, M*N*o written;
# - the engines' roles: with 2 engines dma1 only stores; with 3+ every
#   engine moves bytes and the store engines read nothing from DRAM;
# - on a compute-bound default.cfg case the array is busy >= 70 % of the
#   run; on datacenter.cfg (one core, 128x128, HBM3) 1024^3 bf16 keeps
#   the busy cycles within 10 % of the folds plus one preload.
# Golden: the kernel's plan (blocks, block rows, A buffers, engines).
. "$(dirname "$0")/../lib.sh"

# plan CONFIG ARGS...: the kernel's plan symbols, as NAME=VALUE words
plan() {
	cfg=$1
	shift
	"$bin" as -c "configs/$cfg" -o "$tmp/k.npo" "$@" asm/kernels/gemm_ws.s > /dev/null ||
		fail "gemm_ws.s $*: does not assemble"
	"$bin" objdump "$tmp/k.npo" | awk '$4 ~ /^(NMB|MB|NAB|NEA|NEB|NEC|EC0|TPB)$/ { printf "%s=%d\n", $4, $1 }' | sort
}
sym() { grep "^$1=" "$tmp/plan" | cut -d= -f2; }

# check_timing NAME CONFIG M K N EBITS CB BIAS NE: the assertions above
# on $tmp/c.csv and $tmp/plan.
check_timing() {
	name=$1 cfg=$2 m=$3 k=$4 n=$5 eb=$6 cb=$7 bias=$8 ne=$9
	c=$tmp/c.csv
	r=$(awk -F'[ =;]+' '$2 == "rows" { print $3; exit }' "configs/$cfg")
	cl=$(awk -F'[ =;]+' '$2 == "cols" { print $3; exit }' "configs/$cfg")
	p=$(awk -F'[ =;]+' '$2 == "pipeline_latency" { print $3; exit }' "configs/$cfg")
	p=${p:-0}
	wdb=$(awk -F'[ =;]+' '$2 == "weight_double_buffer" { print $3; exit }' "configs/$cfg")
	nmb=$(sym NMB) tpb=$(sym TPB)
	busy=$(counter "$c" core0.matrix.busy_cycles)
	pre=$(counter "$c" core0.matrix.preload_cycles)
	st=$(counter "$c" core0.matrix.stall_sram_cycles)
	folds=$((tpb * (m + nmb * (r + cl - 2 + p))))
	[ "$busy" = $((folds + pre + st)) ] ||
		fail "$name: busy $busy, folds $folds + preloads $pre + stalls $st"
	[ "$(counter "$c" core0.matrix.folds)" = $((nmb * tpb)) ] ||
		fail "$name: $(counter "$c" core0.matrix.folds) folds, NMB*TPB = $((nmb * tpb))"
	if [ "$wdb" = true ]; then
		[ "$pre" -ge "$r" ] || fail "$name: $pre preload cycles exposed, less than one preload"
	else
		[ "$pre" = $((nmb * tpb * r)) ] ||
			fail "$name: $pre preload cycles, every one of $((nmb * tpb)) exposed is $((nmb * tpb * r))"
	fi
	rd=$(counter_sum "$c" 'dram\.ch[0-9]+\.read_bytes')
	wr=$(counter_sum "$c" 'dram\.ch[0-9]+\.write_bytes')
	want=$((m * k * eb / 8 + nmb * k * n * eb / 8 + 4 * n * bias))
	[ "$rd" = "$want" ] || fail "$name: DRAM read $rd bytes, M*K*e + NMB*K*N*e (+ 4N) = $want"
	[ "$wr" = $((m * n * cb)) ] || fail "$name: DRAM written $wr bytes, M*N*o = $((m * n * cb))"
	if [ "$ne" = 2 ]; then
		[ "$(counter "$c" core0.dma1.bytes_dram_to_sram)" = 0 ] &&
		[ "$(counter "$c" core0.dma0.bytes_sram_to_dram)" = 0 ] ||
			fail "$name: with two engines dma0 loads and dma1 stores, nothing else"
	fi
	if [ "$ne" -ge 3 ]; then
		e=0
		while [ $e -lt "$ne" ] && [ $e -lt 8 ]; do
			[ "$(counter "$c" core0.dma$e.transfers)" -gt 0 ] || fail "$name: dma$e idles"
			if [ $e -ge "$(sym EC0)" ]; then
				[ "$(counter "$c" core0.dma$e.bytes_dram_to_sram)" = 0 ] ||
					fail "$name: store engine dma$e loads"
			fi
			e=$((e + 1))
		done
	fi
}

# case_ws NAME CONFIG M K N ITYPE OUT BIAS ACT [npusim options]
case_ws() {
	name=$1 cfg=$2 m=$3 k=$4 n=$5 it=$6 out=$7 bias=$8 act=$9
	shift 9
	gemm_gen $it $m $k $n
	case $it in int4) eb=4 ;; bf16 | fp16) eb=16 ;; *) eb=8 ;; esac
	case $out in int8) cb=1 ;; bf16 | fp16) cb=2 ;; *) cb=4 ;; esac
	binput=
	bfile=-
	if [ "$bias" = 1 ]; then
		binput="--input BIAS=$tmp/bias.npy"
		bfile=$tmp/bias.npy
	fi
	defs="-D M=$m -D K=$k -D N=$n -D ITYPE=$it -D OUT=$out -D WITH_BIAS=$bias -D ACT=$act"
	# shellcheck disable=SC2086 # optional arguments, split on purpose
	plan "$cfg" $defs "$@" > "$tmp/plan"
	# shellcheck disable=SC2086
	"$bin" run -q -c configs/$cfg asm/kernels/gemm_ws.s $defs "$@" \
		--input A="$tmp/A.npy" --input B="$tmp/B.npy" $binput --output C="$tmp/C.npy" \
		--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	gemm_check $it $out "$bfile" $act || fail "$name: C differs from the reference"
	ne=$(awk -F'[ =;]+' '$2 == "engines" { print $3; exit }' "configs/$cfg")
	for a in "$@"; do
		case $a in core.dma.engines=*) ne=${a#*=} ;; esac
	done
	check_timing "$name" "$cfg" $m $k $n $eb $cb $bias "$ne"
	record "$name: $(tr '\n' ' ' < "$tmp/plan")"
}

case_ws "default 96x100x64 int32" default.cfg 96 100 64 int8 int32 0 0
case_ws "default 96x100x64 int8, 1 engine" default.cfg 96 100 64 int8 int8 0 0 -s core.dma.engines=1
case_ws "default 1000x200x70 int8, bias relu" default.cfg 1000 200 70 int8 int8 1 1
case_ws "default 1000x200x70 int32, 1 engine" default.cfg 1000 200 70 int8 int32 0 0 -s core.dma.engines=1
case_ws "default 1000x200x70 int8, 4 engines, separate streams" default.cfg 1000 200 70 int8 int8 0 0 -s core.dma.engines=4 -D ESPLIT=0
case_ws "default 300x600x70 int8, one A buffer, 3 engines, separate streams" default.cfg 300 600 70 int8 int8 0 0 -s core.dma.engines=3 -D MBMAX=64 -D NABSEL=1 -D ESPLIT=0
case_ws "default 300x600x70 int8, one A buffer, 3 engines" default.cfg 300 600 70 bf16 fp32 0 0 -s core.dma.engines=3 -D MBMAX=64 -D NABSEL=1
case_ws "default 300x600x70 int8, one A buffer, 2 engines" default.cfg 300 600 70 int8 int8 1 1 -D MBMAX=64 -D NABSEL=1
case_ws "default 300x200x70 int4->int32, 8 engines, shared loads" default.cfg 300 200 70 int4 int32 0 0 -s core.dma.engines=8 -D MBMAX=50 -D NABSEL=2 -D ESPLIT=1
case_ws "default 300x200x70 int8, 4 engines" default.cfg 300 200 70 int8 int8 1 3 -s core.dma.engines=4 -D MBMAX=64
case_ws "default 300x200x70 int8, 8 engines, separate streams" default.cfg 300 200 70 int8 int8 0 0 -s core.dma.engines=8 -D MBMAX=64 -D ESPLIT=0
case_ws "default 77x64x90 int32, bias gelu" default.cfg 77 64 90 int8 int32 1 2
case_ws "default 70x96x40 int4->int32" default.cfg 70 96 40 int4 int32 0 0
case_ws "default 70x96x40 int4->int8, 2 MACs/PE" default.cfg 70 96 40 int4 int8 0 0 -s core.matrix.macs_per_pe.int4=2
case_ws "default 70x96x40 fp8e4m3->fp32" default.cfg 70 96 40 fp8e4m3 fp32 0 0
case_ws "default 70x96x40 fp8e5m2->bf16, bias relu" default.cfg 70 96 40 fp8e5m2 bf16 1 1
case_ws "default 70x96x40 bf16->fp16, bias gelu" default.cfg 70 96 40 bf16 fp16 1 2
case_ws "default 70x96x40 fp16->fp32, bias silu" default.cfg 70 96 40 fp16 fp32 1 3
case_ws "default 130x80x50 bf16->bf16, 4 engines, MB 40" default.cfg 130 80 50 bf16 bf16 0 0 -s core.dma.engines=4 -D MBMAX=40
case_ws "gemmini 64x70x48 int8" gemmini.cfg 64 70 48 int8 int8 0 0
case_ws "gemmini 50x33x70 int8, bias relu" gemmini.cfg 50 33 70 int8 int8 1 1
case_ws "gemmini 40x64x40 bf16->fp32" gemmini.cfg 40 64 40 bf16 fp32 0 0
case_ws "gemmini 300x100x40 int8, 4 engines" gemmini.cfg 300 100 40 int8 int8 0 0 -s core.dma.engines=4 -D MBMAX=100
case_ws "tpu-v1 300x100x300 bf16->fp32" tpu-v1.cfg 300 100 300 bf16 fp32 0 0
case_ws "tpu-v1 260x300x260 fp8e4m3->bf16, bias gelu" tpu-v1.cfg 260 300 260 fp8e4m3 bf16 1 2
case_ws "tpu-v1 520x128x100 int8, 4 engines" tpu-v1.cfg 520 128 100 int8 int8 0 0 -s core.dma.engines=4 -D MBMAX=200

# Compute-bound on default.cfg: 1024 rows in 4 blocks of 256, K = N = 256
# (timing only: the values are those of the cases above).
m=1024 k=256 n=256
plan default.cfg -D M=$m -D K=$k -D N=$n -D OUT=int8 > "$tmp/plan"
"$bin" run -q --timing-only -c configs/default.cfg asm/kernels/gemm_ws.s -D M=$m -D K=$k -D N=$n \
	-D OUT=int8 --counters "$tmp/c.csv" || fail "default 1024x256x256: run failed"
check_timing "default 1024x256x256" default.cfg $m $k $n 8 1 0 2
busy=$(counter "$tmp/c.csv" core0.matrix.busy_cycles) cyc=$(counter "$tmp/c.csv" cycles)
[ $((busy * 10)) -ge $((cyc * 7)) ] || fail "default 1024x256x256: the array idles: busy $busy of $cyc cycles"
record "default 1024x256x256 int8: $(tr '\n' ' ' < "$tmp/plan")"

# The target shape: 1024^3 bf16 on one datacenter.cfg core (128x128,
# double-buffered weights, P = 2): busy within 10 % of the folds plus the
# one exposed preload.
dc="-s chip.cores=1 -s noc.core_nodes=[14]"
m=1024 k=1024 n=1024
# shellcheck disable=SC2086 # the options, split on purpose
plan datacenter.cfg $dc -D M=$m -D K=$k -D N=$n -D ITYPE=bf16 -D OUT=bf16 > "$tmp/plan"
# shellcheck disable=SC2086
"$bin" run -q --timing-only -c configs/datacenter.cfg asm/kernels/gemm_ws.s $dc -D M=$m -D K=$k -D N=$n \
	-D ITYPE=bf16 -D OUT=bf16 --counters "$tmp/c.csv" || fail "datacenter 1024^3: run failed"
check_timing "datacenter 1024^3 bf16" datacenter.cfg $m $k $n 16 2 0 4
busy=$(counter "$tmp/c.csv" core0.matrix.busy_cycles)
ideal=$(( $(sym TPB) * (m + $(sym NMB) * (128 + 128 - 2 + 2)) + 128 ))
[ $((busy * 10)) -le $((ideal * 11)) ] ||
	fail "datacenter 1024^3 bf16: busy $busy, more than 1.1 x the folds and one preload ($ideal)"
record "datacenter 1024^3 bf16: $(tr '\n' ' ' < "$tmp/plan")"
golden
