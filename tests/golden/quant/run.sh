# quant.s: quantize (int8, int4, fp8 e4m3/e5m2 from fp32, bf16, fp16),
# dequantize (to fp32, bf16, fp16), int4 packing and unpacking; per
# tensor, per channel (the last axis) and per row; exact division and the
# multiply-by-reciprocal form (RCP); every element bit for bit against
# tests/tools/quantref.c (its own rounding, fp8/bf16/fp16 encoders and
# nibble order), no hazards, on default.cfg, datacenter.cfg (16 cores:
# the blocks must be spread over several of them) and tpu-v1.cfg, ragged
# shapes (rows and columns not multiples of the lanes or the blocks, odd
# C per channel, a last virtual row cut short); fp8 saturating and not;
# bad parameters refused by the assembler.
# Golden: cycles.
. "$(dirname "$0")/../lib.sh"
q=$build/quantref

# one NAME CFG OP IT OT GRAN R C SCALE ZP ZPT RCP [-s KEY=VALUE]: generate,
# run, check, record the cycles.
one() {
	name=$1 cfg=$2 op=$3 it=$4 ot=$5 gran=$6 r=$7 c=$8 sc=$9
	shift 9
	zp=$1 zpt=$2 rcp=$3
	shift 3
	sat=1
	[ "$*" = "-s core.vector.fp8_saturate=false" ] && sat=0
	rm -f "$tmp"/*.npy
	"$q" gen "$op" "$it" "$ot" "$gran" "$r" "$c" 11 "$sc" "$zp" "$zpt" "$tmp" ||
		fail "$name: quantref gen"
	ins=
	for t in X XB S Z; do
		[ -f "$tmp/$t.npy" ] && ins="$ins --input $t=$tmp/$t.npy"
	done
	outs="--output Y=$tmp/Y.npy"
	[ "$ot" = int4 ] && outs="$outs --output YB=$tmp/YB.npy"
	# shellcheck disable=SC2086 # the tensor bindings, split on purpose
	"$bin" run -q -c "configs/$cfg" "$@" asm/kernels/quant.s -D R="$r" -D C="$c" \
		-D OP="$op" -D IT="$it" -D OT="$ot" -D GRAN="$gran" -D SCALE="$sc" -D ZP="$zp" \
		-D ZPT="$zpt" -D RCP="$rcp" $ins $outs --counters "$tmp/c.csv" --check-hazards \
		2> "$tmp/err" || { cat "$tmp/err" >&2; fail "$name $cfg: run failed"; }
	"$q" check "$op" "$it" "$ot" "$gran" "$sc" "$zp" "$zpt" "$sat" "$rcp" "$tmp" \
		> "$tmp/out" 2>&1 || fail "$name $cfg: $(cat "$tmp/out")"
	record "$name $cfg: cycles $(counter "$tmp/c.csv" cycles)"
}

# cores that moved data in the last run
cores() { awk -F, '$4 == "" && $1 ~ /^core[0-9]+\.dma0\.bytes_dram_to_sram$/ && $2 > 0 { n++ } END { print n + 0 }' "$tmp/c.csv"; }

for cfg in default.cfg datacenter.cfg tpu-v1.cfg; do
	#   name            cfg  OP IT      OT      GRAN R   C   SCALE      ZP ZPT RCP
	one q-tensor-int8   $cfg 0 fp32    int8    0    37  100 0x3e000000 -3 0 0
	one q-chan-int8     $cfg 0 fp32    int8    1    37  100 0          0  1 0
	one q-chan-rcp      $cfg 0 fp32    int8    1    37  100 0          0  1 1
	one q-chan-sym      $cfg 0 fp32    int8    1    301 7   0          0  0 0
	one q-row-bf16      $cfg 0 bf16    int8    2    37  100 0          0  1 0
	one q-row-rcp       $cfg 0 fp32    int8    2    37  100 0          0  1 1
	one q-chan-int4     $cfg 0 fp16    int4    1    29  46  0          0  1 0
	one q-tensor-int4   $cfg 0 fp32    int4    0    37  98  0x3f400000 1  0 0
	one q-tensor-e4m3   $cfg 0 fp32    fp8e4m3 0    37  100 0x3dcccccd 0  0 0
	one q-tensor-e4m3r  $cfg 0 fp32    fp8e4m3 0    37  100 0x3dcccccd 0  0 1
	one q-chan-e5m2     $cfg 0 bf16    fp8e5m2 1    37  100 0          0  0 0
	one q-row-e4m3      $cfg 0 fp16    fp8e4m3 2    37  100 0          0  0 0
	one dq-tensor-int8  $cfg 1 int8    fp32    0    37  100 0x3c23d70a 5  0 0
	one dq-chan-bf16    $cfg 1 int8    bf16    1    37  100 0          0  1 0
	one dq-row-int4     $cfg 1 int4    fp32    2    37  100 0          0  1 0
	one dq-tensor-e4m3  $cfg 1 fp8e4m3 fp32    0    37  100 0x3e000000 0  0 0
	one dq-chan-e5m2    $cfg 1 fp8e5m2 fp16    1    37  100 0          0  0 0
	one pack-int4       $cfg 2 int8    int4    0    37  102 0          0  0 0
	one unpack-int4     $cfg 2 int4    int8    0    301 38  0          0  0 0
done
# fp8 non-saturating (overflow to inf / NaN) on both formats
one q-e4m3-nosat default.cfg 0 fp32 fp8e4m3 0 37 100 0x3dcccccd 0 0 0 -s core.vector.fp8_saturate=false
one q-e5m2-nosat default.cfg 0 bf16 fp8e5m2 1 37 100 0 0 0 0 -s core.vector.fp8_saturate=false
# int16 results (the int32 sums saturate int16 exactly)
one q-chan-int16 default.cfg 0 fp32 int16 1 37 100 0 0 1 0
one q-tensor-int16 default.cfg 0 fp16 int16 0 37 100 0x3a800000 -7 0 0
# tiny: one row, fewer elements than the lanes
one q-tiny default.cfg 0 fp32 int8 1 1 3 0 0 1 0
one q-tiny datacenter.cfg 0 fp32 int8 0 1 6 0x3e000000 2 0 0
# the multi-core split: 512 x 256 fp32 per channel on datacenter.cfg is
# 16 blocks of 32 KiB (virtual rows of 4 x 256), one on each core
one q-split datacenter.cfg 0 fp32 int8 1 512 256 0 0 1 0
n=$(cores)
[ "$n" -eq 16 ] || fail "q-split: $n cores moved data, expected 16"
record "q-split datacenter.cfg: $n cores"
# bad parameters: an assembly error naming the rule, exit 1, no run
bad() {
	want=$1
	shift
	set +e
	"$bin" run -q -c configs/default.cfg asm/kernels/quant.s "$@" 2> "$tmp/err"
	rc=$?
	set -e
	[ $rc = 1 ] || fail "$*: exit $rc, expected 1"
	grep -q "$want" "$tmp/err" || fail "$*: no '$want' in: $(cat "$tmp/err")"
	record "bad parameters ($want): exit 1"
}
bad "quantize writes int4, int8" -D OP=0 -D OT=int32
bad "dequantize reads int4, int8" -D OP=1 -D IT=fp32
bad "fp8 has no zero point" -D OT=fp8e4m3 -D ZP=1
bad "an int4 tensor needs an even C" -D OT=int4 -D C=5
bad "RCP applies to quantization per channel" -D RCP=1
bad "the tables and two virtual rows exceed" -D GRAN=1 -D C=20000
golden
