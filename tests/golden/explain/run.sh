# npusim model --explain (docs/models.md "Reading --explain"): the small
# ONNX models of tests/models/gen_small.py (a CNN with BatchNormalization
# and a residual, a MobileNetV2 block with a depthwise conv, an MLP, an
# attention head, a MatMul of two activations) on default.cfg and
# datacenter.cfg (the CNN on tpu-v1.cfg too, and pipelined), ResNet-50's
# topology CSV on tpu-v1.cfg, and two single layers worked by hand.
# check.py asserts for every layer: % of ceiling in (0, 100] and equal to
# 100 x ceiling / cycles, a bound of array, vector or dram, model_macs =
# macs, the CSV's new columns, the table's rows and total against the
# CSV; and, for the ONNX models, every Conv, MatMul and Gemm layer's
# model_macs against the op's MACs from the ONNX graph.  By hand:
#  - a 128x768x3072 int8 GEMM on tpu-v1.cfg (256x256 array, DRAM 30 GB/s
#    at 0.7 GHz): model_macs = array_macs = 301,989,888 (padding is not
#    work, and the array computes none here), compulsory bytes
#    98,304 + 2,359,296 + 393,216 = 2,850,816, ceiling 2,850,816 x 0.7 /
#    30 = 66,519 cycles, bound dram;
#  - a 1x1 stride-2 conv 57x57x64 -> 29x29x128 on default.cfg (32x32,
#    12.8 B per cycle): 6,889,472 MACs; the windows read every other row
#    and column, so the input's compulsory bytes are 29 x 29 x 64: with
#    the weights and the output 169,664 bytes, ceiling 13,255 cycles
#    (the array's 6,889,472 / 1024 = 6,728 is less), bound dram.
# Golden: each case's layers and the model's ceiling and cycles.
. "$(dirname "$0")/../lib.sh"
export NPUSIM_CACHE="$tmp/cache"
py=/usr/bin/python3
m=$tmp/models
check=tests/golden/explain/check.py
$py tests/models/gen_small.py "$m" > /dev/null || fail "gen_small.py failed"
# run NAME CHECK-ARGS... -- NPUSIM-MODEL-ARGS...: --explain and --layers
run() {
	name=$1
	shift
	args=
	while [ "$1" != -- ]; do args="$args $1"; shift; done
	shift
	"$bin" model -q --timing-only --explain --layers "$tmp/l.csv" "$@" \
		> "$tmp/e.txt" 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: the run failed"; }
	$py "$check" "$tmp/l.csv" "$tmp/e.txt" $args > "$tmp/out" ||
		fail "$name: $(cat "$tmp/out")"
	record "$name: $(awk '$1 == "total" { print $2 " ceiling, " $3 " cycles, " $4 }' "$tmp/e.txt"), $(cat "$tmp/out")"
}
for net in tiny_cnn tiny_mbv2 tiny_mlp tiny_attn tiny_qk; do
	for cfg in default.cfg datacenter.cfg tpu-v1.cfg; do
		[ "$cfg" = tpu-v1.cfg ] && [ "$net" != tiny_cnn ] && continue
		run "$net $cfg" "$m/$net.onnx" -- -c "configs/$cfg" "$m/$net.onnx"
		# on one core the depthwise conv's ceiling is the vector unit's
		[ "$net $cfg" != "tiny_mbv2 default.cfg" ] || grep -q ',dwconv2d.s,.*,vector$' "$tmp/l.csv" ||
			fail "$net $cfg: the depthwise conv is not vector-bound"
	done
done
run "tiny_cnn datacenter.cfg batch 4 pipeline 2" -- -c configs/datacenter.cfg \
	"$m/tiny_cnn.onnx" --batch 4 --pipeline 2
run "resnet50.csv tpu-v1.cfg" -- -c configs/tpu-v1.cfg workloads/topologies/resnet50.csv

# field NAME: the column of the single row of $tmp/l.csv
field() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == 2 { print $k }' "$tmp/l.csv"; }
printf 'Layer, M, N, K,\nfc,128,3072,768,\n' > "$tmp/g.csv"
run "GEMM 128x768x3072 tpu-v1.cfg" -- -c configs/tpu-v1.cfg "$tmp/g.csv"
[ "$(field model_macs)" = 301989888 ] || fail "GEMM: model_macs $(field model_macs)"
[ "$(field array_macs)" = 301989888 ] || fail "GEMM: array_macs $(field array_macs)"
[ "$(field compulsory_bytes)" = 2850816 ] || fail "GEMM: compulsory_bytes $(field compulsory_bytes)"
[ "$(field ceiling_cycles)" = "$(awk 'BEGIN { printf "%.0f", 2850816 * 0.7 / 30 }')" ] ||
	fail "GEMM: ceiling $(field ceiling_cycles), not 2850816 B at 30 GB/s and 0.7 GHz"
[ "$(field bound)" = dram ] || fail "GEMM: bound $(field bound)"

printf 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nds,57,57,1,1,64,128,2,\n' > "$tmp/c.csv"
run "1x1/2 conv default.cfg" -- -c configs/default.cfg "$tmp/c.csv"
[ "$(field model_macs)" = $((29 * 29 * 128 * 64)) ] || fail "conv: model_macs $(field model_macs)"
[ "$(field compulsory_bytes)" = $((29 * 29 * 64 + 64 * 128 + 29 * 29 * 128)) ] ||
	fail "conv: compulsory_bytes $(field compulsory_bytes)"
[ "$(field ceiling_cycles)" = 13255 ] || fail "conv: ceiling $(field ceiling_cycles), not 169664 B / 12.8 B per cycle"
[ "$(field bound)" = dram ] || fail "conv: bound $(field bound)"
golden
