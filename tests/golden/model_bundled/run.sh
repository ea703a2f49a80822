# The first layers of the bundled workloads (workloads/models/gen.py, as
# `make models` makes them) run with values, every layer's output against
# tests/python/onnxref.py: ResNet-50's stem and first bottleneck,
# MobileNetV2's first blocks on datacenter.cfg (bf16, 16 cores), ResNet-50's
# also on default.cfg (int8), the BERT-base layer's projections and attention
# and the whole GPT-2 decode step on datacenter.cfg; tolerances as
# tests/golden/model (docs/numerics.md "Models"); MobileNetV2's first blocks
# in int8 on tpu-v1.cfg with --calibrate (with Q3.4 everywhere its fifth
# layer is 9.5 % off).  Golden: the layers' cycles.
. "$(dirname "$0")/../lib.sh"
# the kernels' default schedules, whatever the user's tuning cache holds
export NPUSIM_CACHE="$tmp/cache"
py=/usr/bin/python3
w=$tmp/w
$py workloads/models/gen.py -q "$w" resnet50 mobilenetv2 bert_layer gpt2_decode ||
	fail "gen.py failed"
check=tests/golden/model/check.py
run() { # NET CONFIG UPTO TOL [FLAG]
	net=$1 cfg=$2 upto=$3 tol=$4 flag=${5:-}
	x=$tmp/$net.in
	mkdir -p "$x"
	# every graph input uniform in [-1, 1) from a fixed seed
	$py -c "import numpy as np, onnx
m = onnx.load('$w/$net.onnx', load_external_data=False)
rng = np.random.default_rng(5)
for i in m.graph.input:
    shape = [d.dim_value or 1 for d in i.type.tensor_type.shape.dim]
    np.save('$x/%s.npy' % i.name, rng.uniform(-1, 1, shape).astype(np.float32))" ||
		fail "$net: no inputs"
	ins=
	for f in "$x"/*.npy; do
		n=$(basename "$f" .npy)
		ins="$ins --input $n=$f"
	done
	out=$tmp/$net.$cfg
	upto_arg=
	[ "$upto" = all ] || upto_arg="--upto $upto"
	# shellcheck disable=SC2086 # optional arguments
	"$bin" model -q -c "configs/$cfg" "$w/$net.onnx" $ins $upto_arg $flag \
		--dump-layers "$out" --layers "$tmp/l.csv" 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$net $cfg: the run failed"; }
	$py "$check" "$w/$net.onnx" "$x" "$out" "$tol" > "$tmp/out" ||
		fail "$net $cfg: $(grep -v '^ok' "$tmp/out")"
	record "$net $cfg${flag:+ $flag}: $(($(wc -l < "$tmp/l.csv") - 1)) layers, $(cut -d, -f6 "$tmp/l.csv" | tail -n +2 | tr '\n' ' ')"
}
run resnet50 default.cfg 6 8e-2
run resnet50 datacenter.cfg 6 2e-2
run mobilenetv2 datacenter.cfg 8 2e-2
run mobilenetv2 tpu-v1.cfg 8 8e-2 --calibrate
run bert_layer datacenter.cfg 10 2e-2
run gpt2_decode datacenter.cfg all 2e-2
golden
