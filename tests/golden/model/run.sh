# npusim model end to end: the small ONNX models of tests/models/gen_small.py
# (a CNN with BatchNormalization and a residual, a MobileNetV2 block, an MLP
# with the Erf GELU, one attention head with the decomposed LayerNorm, the
# same with opset 17's LayerNormalization, a CNN with uneven conv and pool
# pads, a three-way Concat and a Flatten of a map, a MatMul of two
# activations, a Softmax over a map's channels in opsets 13 and 11)
# imported, mapped and run with
# values on default.cfg (int8 where every layer has an int8 kernel, else
# bf16), datacenter.cfg (bf16, 16 cores) and tpu-v1.cfg; every layer's
# output and the model's output against tests/python/onnxref.py (NumPy,
# float64): bf16 within 2e-2 and int8 (Q3.4) within 8e-2 of max|reference|
# (docs/numerics.md "Models").  A timing-only run gives the same per-layer
# cycles; the per-layer CSV has a row per layer; the counters file's layer
# regions go through npusim roofline; the importer's errors (an unsupported
# op, a Resize mode, opset 9, a truncated file) exit 1 with the node and the
# reason; a batch of two runs right; layers take the tuner's cached
# schedules (--tune, --untuned); a SCALE-Sim topology CSV runs; pipelined
# runs give the layer-by-layer run's outputs, their stage table holds
# together (stages cut the layers in order and the cores in disjoint
# ranges, the interval is the busiest stage's busy cycles per image, busy%
# = busy/img x images / latency, image 0 within the run) and their trace
# (valid for trccheck) is the run's counters (units, flows, stalls and a
# region slice per layer entry: lib.sh), each layer on its stage's cores
# only, stages at once; calibrated int8 formats are no worse than Q3.4.
# Golden: cycles per model and config, each pipeline's latency and cut.
. "$(dirname "$0")/../lib.sh"
# the kernels' default schedules, whatever the user's tuning cache holds
export NPUSIM_CACHE="$tmp/cache"
py=/usr/bin/python3
m=$tmp/models
$py tests/models/gen_small.py "$m" > /dev/null || fail "gen_small.py failed"
check=tests/golden/model/check.py
for net in tiny_cnn tiny_mbv2 tiny_mlp tiny_attn tiny_attn_ln17 tiny_legal tiny_qk \
	   tiny_seg tiny_seg11 tiny_hswish; do
	for cfg in default.cfg datacenter.cfg tpu-v1.cfg; do
		[ "$cfg" = tpu-v1.cfg ] && [ "$net" != tiny_cnn ] && continue
		out=$tmp/$net.$cfg
		"$bin" model -q -c "configs/$cfg" "$m/$net.onnx" --input x="$m/$net.x.npy" \
			--output-dir "$out" --layers "$tmp/layers.csv" \
			--counters "$tmp/c.json" 2> "$tmp/err" ||
			{ cat "$tmp/err" >&2; fail "$net $cfg: the run failed"; }
		# every layer's output (kept in DRAM to the end: another plan)
		"$bin" model -q -c "configs/$cfg" "$m/$net.onnx" --input x="$m/$net.x.npy" \
			--dump-layers "$out" 2> /dev/null || fail "$net $cfg: --dump-layers failed"
		# the run's type: int8 unless the note says bf16 (or the chip's is)
		tol=8e-2
		{ grep -q "runs in bf16" "$tmp/err" || [ "$cfg" = datacenter.cfg ]; } && tol=2e-2
		$py "$check" "$m/$net.onnx" "$m/$net.x.npy" "$out" $tol > "$tmp/out" ||
			fail "$net $cfg: $(grep -v '^ok' "$tmp/out")"
		layers=$(($(wc -l < "$tmp/layers.csv") - 1))
		cycles=$(awk -F, 'NR > 1 { s += $6 } END { print s }' "$tmp/layers.csv")
		# timing-only: the same cycles, layer by layer
		"$bin" model -q -c "configs/$cfg" "$m/$net.onnx" --timing-only \
			--layers "$tmp/t.csv" 2> "$tmp/err" ||
			{ cat "$tmp/err" >&2; fail "$net $cfg: the timing-only run failed"; }
		[ "$(cut -d, -f6 "$tmp/layers.csv")" = "$(cut -d, -f6 "$tmp/t.csv")" ] ||
			fail "$net $cfg: timing-only cycles differ from the run with values"
		# every layer is a region the roofline places
		"$bin" roofline -c "configs/$cfg" "$tmp/c.json" -o "$tmp/r.svg" --csv "$tmp/r.csv" ||
			fail "$net $cfg: roofline failed"
		regions=$(grep -c ',L[0-9]* ' "$tmp/r.csv" || true)
		[ "$regions" -ge "$layers" ] || fail "$net $cfg: $regions layer regions on the roofline, $layers layers"
		record "$net $cfg: $layers layers, $cycles cycles in layers, tol $tol"
	done
done
# HardSwish and HardSigmoid as exporters decompose them (Add, Clip, Mul,
# Div) cost one pass each: a layer per conv, each its conv and one
# elementwise step - but the SiLU, which the conv's output stage applies
# (bf16), none
"$bin" model -q -c configs/default.cfg "$m/tiny_hswish.onnx" --timing-only \
	--layers "$tmp/h.csv" 2> /dev/null || fail "tiny_hswish: the run failed"
hs=$(awk -F, 'NR > 1 { printf "%s %s %s;", $1, $2, $4 }' "$tmp/h.csv")
[ "$hs" = "/expand/Conv Conv+HardSwish conv2d.s+eltwise.s;/dw/Conv Conv+HardSwish dwconv2d.s+eltwise.s;/mix/Conv Conv+Sigmoid+Mul conv2d.s;/project/Conv Conv+HardSigmoid conv2d.s+eltwise.s;" ] ||
	fail "tiny_hswish: the activations are not one pass each: $hs"
# --calibrate: int8 formats from a bf16 run on the input; every layer within
# the int8 bound and the worst layer no worse than with Q3.4 everywhere
worst() { $py "$check" "$m/$1.onnx" "$m/$1.x.npy" "$2" 8e-2 | grep -v '^skip' |
	awk '$1 != "ok" { bad = 1 } { v = $NF + 0; if (v > w) w = v } END { if (bad) exit 1; printf "%.2e", w }'; }
for net in tiny_mbv2 tiny_legal tiny_qk; do
	for cal in q34 cal; do
		flag=; [ $cal = cal ] && flag=--calibrate
		# shellcheck disable=SC2086
		"$bin" model -q -c configs/default.cfg "$m/$net.onnx" --input x="$m/$net.x.npy" \
			$flag --dump-layers "$tmp/$cal" 2> "$tmp/err" ||
			{ cat "$tmp/err" >&2; fail "$net $flag failed"; }
	done
	e0=$(worst $net "$tmp/q34") || fail "$net: a layer beyond the int8 bound"
	e1=$(worst $net "$tmp/cal") || fail "$net --calibrate: a layer beyond the int8 bound"
	awk -v a="$e1" -v b="$e0" 'BEGIN { exit !(a <= b) }' ||
		fail "$net: calibrated error $e1 above Q3.4's $e0"
	record "$net default.cfg int8 worst layer error: Q3.4 $e0, --calibrate $e1"
	rm -rf "$tmp/q34" "$tmp/cal"
done
# a batch of two images (--batch 2): each conv one step over both (conv2d.s's
# BATCH; the 1x1 conv one GEMM), the pooling kernels a step per image, the
# global pool the images stacked; --per-image (a conv step per image) gives
# the same values in more cycles
$py -c "import numpy as np; x = np.load('$m/tiny_cnn.x.npy'); np.save('$tmp/xb.npy', np.concatenate([x, -x[:, :, ::-1]], 0))"
for cfg in default.cfg datacenter.cfg; do
	tol=8e-2
	[ "$cfg" = datacenter.cfg ] && tol=2e-2
	"$bin" model -q -c "configs/$cfg" "$m/tiny_cnn.onnx" --batch 2 --input x="$tmp/xb.npy" \
		--dump-layers "$tmp/b.$cfg" --layers "$tmp/l.csv" 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "tiny_cnn batch 2 $cfg: the run failed"; }
	$py "$check" "$m/tiny_cnn.onnx" "$tmp/xb.npy" "$tmp/b.$cfg" $tol > "$tmp/out" ||
		fail "tiny_cnn batch 2 $cfg: $(grep -v '^ok' "$tmp/out")"
	record "tiny_cnn batch 2 $cfg: $(awk -F, 'NR > 1 { s += $6 } END { print s }' "$tmp/l.csv") cycles in layers"
done
"$bin" model -q -c configs/default.cfg "$m/tiny_cnn.onnx" --batch 2 --per-image --input x="$tmp/xb.npy" \
	--dump-layers "$tmp/bp" --layers "$tmp/lp.csv" 2> "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "tiny_cnn batch 2 --per-image: the run failed"; }
$py "$check" "$m/tiny_cnn.onnx" "$tmp/xb.npy" "$tmp/bp" 8e-2 > "$tmp/out" ||
	fail "tiny_cnn batch 2 --per-image: $(grep -v '^ok' "$tmp/out")"
"$bin" model -q -c configs/default.cfg "$m/tiny_cnn.onnx" --batch 2 --input x="$tmp/xb.npy" \
	--layers "$tmp/l.csv" 2> "$tmp/err" || { cat "$tmp/err" >&2; fail "tiny_cnn batch 2: the run failed"; }
cb=$(awk -F, 'NR > 1 { s += $6 } END { print s }' "$tmp/l.csv")
cp=$(awk -F, 'NR > 1 { s += $6 } END { print s }' "$tmp/lp.csv")
[ "$cb" -lt "$cp" ] || fail "tiny_cnn batch 2: one step per conv took $cb cycles, --per-image $cp"
# stages FILE BATCH: the stage table of a pipelined run's summary (see the
# top); prints "S A-B C-D" per stage (layers A..B on cores C..D).
stages() {
	awk -v b="$2" '
		function bad(m) { print m; err = 1; exit 1 }
		function d(x, y) { return x > y ? x - y : y - x }
		/^layer / { t = 1; next }
		t && /^$/ { t = 0 }
		t { nl++ }
		/^latency:/ { lat = $2 }
		/^stage / { s = 1; next }
		s && /^[0-9]+ / {
			n++; split($2, l, "-"); split($3, c, "-"); busy[n] = $5; pct = $6 + 0
			if (l[1] != next_l || l[2] < l[1] || c[1] < next_c || c[2] < c[1]) bad("stage " $1 ": layers " $2 ", cores " $3)
			next_l = l[2] + 1; next_c = c[2] + 1
			if (d(pct, 100 * $5 * b / lat) > 0.1) bad("stage " $1 ": busy " pct "%, " $5 " x " b " / " lat)
			if (busy[n] > max) { max = busy[n]; arg = n }
			print $1, $2, $3
		}
		/^interval:/ { iv = $2; st = $7 + 0; img0 = $12 }
		END {
			if (err) exit 1
			if (!n || next_l != nl) bad(n " stages for " nl " layers")
			if (iv != max || st != arg) bad("interval " iv " (stage " st "), busiest stage " arg ": " max)
			if (img0 > lat) bad("image 0 took " img0 " cycles, the run " lat)
		}' "$1"
}

# pipelined (--pipeline S --batch 3): stages on partitions, images flowing
# through; the outputs equal the layer-by-layer run's bit for bit (int8 on a
# two-core default.cfg, bf16 on datacenter.cfg), timing-only has the same
# cycles; a user's cut (--stages) and its errors
$py -c "import numpy as np; x = np.load('$m/tiny_cnn.x.npy'); np.save('$tmp/x3.npy', np.concatenate([x, -x, 0.5 * x], 0))"
two="-s chip.cores=2 -s noc.cols=3 -s noc.rows=1 -s noc.core_nodes=[] -s noc.dram_nodes=[]"
for cs in "default.cfg:2:$two" "datacenter.cfg:3:" "datacenter.cfg:2:--stages 2"; do
	cfg=${cs%%:*}; rest=${cs#*:}; S=${rest%%:*}; extra=${rest#*:}
	case $extra in --stages*) seq_args="";; *) seq_args=$extra;; esac
	# shellcheck disable=SC2086
	"$bin" model -q -c "configs/$cfg" $seq_args "$m/tiny_cnn.onnx" --batch 3 \
		--input x="$tmp/x3.npy" --output-dir "$tmp/seq" 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "tiny_cnn batch 3 $cfg failed"; }
	# shellcheck disable=SC2086
	"$bin" model -c "configs/$cfg" $extra "$m/tiny_cnn.onnx" --batch 3 --pipeline "$S" \
		--input x="$tmp/x3.npy" --output-dir "$tmp/pipe" > "$tmp/p.txt" 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "tiny_cnn pipeline $S $cfg $extra failed"; }
	cmp -s "$tmp/seq/y.npy" "$tmp/pipe/y.npy" ||
		fail "tiny_cnn pipeline $S $cfg $extra: the output differs from the layer-by-layer run's"
	# shellcheck disable=SC2086
	"$bin" model -c "configs/$cfg" $extra "$m/tiny_cnn.onnx" --batch 3 --pipeline "$S" \
		--timing-only > "$tmp/pt.txt" 2> /dev/null || fail "pipeline timing-only failed"
	[ "$(grep '^latency' "$tmp/p.txt")" = "$(grep '^latency' "$tmp/pt.txt")" ] ||
		fail "tiny_cnn pipeline $S $cfg: timing-only cycles differ"
	stages "$tmp/p.txt" 3 > "$tmp/st" || fail "tiny_cnn pipeline $S $cfg $extra: $(cat "$tmp/st")"
	record "tiny_cnn pipeline $S $cfg $extra: $(grep '^latency' "$tmp/p.txt" | cut -d= -f1)"
	awk '{ print "  stage " $1 ": layers " $2 ", cores " $3 }' "$tmp/st" >> "$actual"
done
# the trace of a pipelined run: its counters, every layer a region slice on
# its stage's cores, stages at once
"$bin" model -c configs/datacenter.cfg "$m/tiny_cnn.onnx" --batch 3 --pipeline 3 \
	--timing-only --trace "$tmp/p.json.gz" --counters "$tmp/p.csv" > "$tmp/p.txt" 2> "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "pipeline --trace failed"; }
"$build/trccheck" "$tmp/p.json.gz" --stats "$tmp/p.st" > /dev/null || fail "pipeline trace: trccheck failed"
check_unit_slices "pipeline trace" "$tmp/p.st" "$tmp/p.csv" overlap
check_region_slices "pipeline trace" "$tmp/p.st" "$tmp/p.csv"
stages "$tmp/p.txt" 3 > "$tmp/st" || fail "pipeline trace: $(cat "$tmp/st")"
while read -r i ls cs; do
	l=${ls%-*}
	cores=$(awk -v a="${cs%-*}" -v b="${cs#*-}" 'BEGIN { for (c = a; c <= b; c++) printf "%s%d", (c > a ? "|" : ""), c }')
	while [ "$l" -le "${ls#*-}" ]; do
		n=$(tstat "$tmp/p.st" sum n X '.*\.regions' "L$l .*")
		[ "$n" -gt 0 ] && [ "$(tstat "$tmp/p.st" sum n X "core($cores)\.regions" "L$l .*")" = "$n" ] ||
			fail "pipeline trace: layer $l not only on stage $i's cores $cs"
		l=$((l + 1))
	done
done < "$tmp/st"
$py - "$tmp/p.json.gz" > "$tmp/tr" <<'PY' || fail "pipeline trace: $(cat "$tmp/tr")"
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
spans = {}
for e in ev:
    if e.get("ph") == "X" and e.get("name", "").startswith("L"):
        spans.setdefault(e["name"], []).append((e["ts"], e["ts"] + e["dur"], e["pid"]))
layers = sorted(spans)
assert len(layers) == 5, layers
# layer 0 (stage 1) runs an image while layer 2 (stage 2) runs another,
# on other cores
assert any(a[0] < b[1] and b[0] < a[1] and a[2] != b[2]
           for a in spans[layers[0]] for b in spans[layers[2]]), "no overlap"
print("%d layer regions, stages overlapping" % len(layers))
PY
record "pipeline trace: $(cat "$tmp/tr")"
for bad in "--pipeline 2 --stages 9" "--pipeline 2 --stages 0" "--pipeline 3 --stages 2" "--pipeline 17" \
	   "--calibrate" "--pipeline 2 --upto 1"; do
	# shellcheck disable=SC2086
	if "$bin" model -q -c configs/datacenter.cfg "$m/tiny_cnn.onnx" --timing-only $bad 2> "$tmp/err"; then
		fail "$bad was accepted"
	fi
	record "$bad: $(head -1 "$tmp/err")"
done
# the tuner: --tune searches each layer's .tunable schedule (cached), a later
# run takes the cached best (still right), --untuned the kernels' defaults
"$bin" model -q -c configs/default.cfg "$m/tiny_cnn.onnx" --timing-only --tune \
	--layers "$tmp/tu.csv" 2> "$tmp/err" || { cat "$tmp/err" >&2; fail "--tune failed"; }
grep -q "tuned" "$tmp/tu.csv" || fail "--tune: no layer took a tuned schedule"
"$bin" model -q -c configs/default.cfg "$m/tiny_cnn.onnx" --input x="$m/tiny_cnn.x.npy" \
	--output-dir "$tmp/tuned" --layers "$tmp/tu2.csv" 2> /dev/null || fail "tuned run failed"
grep -q "tuned" "$tmp/tu2.csv" || fail "the cached schedules were not used"
$py "$check" "$m/tiny_cnn.onnx" "$m/tiny_cnn.x.npy" "$tmp/tuned" 8e-2 > "$tmp/out" ||
	fail "tuned tiny_cnn: $(grep -v '^ok' "$tmp/out")"
"$bin" model -q -c configs/default.cfg "$m/tiny_cnn.onnx" --timing-only --untuned \
	--layers "$tmp/tu3.csv" 2> /dev/null || fail "--untuned failed"
! grep -q "tuned" "$tmp/tu3.csv" || fail "--untuned used the cache"
record "tiny_cnn tuned default.cfg: $(cut -d, -f5 "$tmp/tu.csv" | grep -o 'tuned.*' | head -1)"
# errors: the node, the op and what is supported; exit status 1
err_case() {
	if "$bin" model -q "$m/$1.onnx" --timing-only 2> "$tmp/err"; then
		fail "$1 was accepted"
	else
		st=$?
	fi
	[ $st = 1 ] || fail "$1: exit status $st, expected 1"
	grep -q "$2" "$tmp/err" || fail "$1: message without '$2': $(cat "$tmp/err")"
	record "$1: $(head -1 "$tmp/err" | sed "s|$m/||")"
}
err_case err_unsupported_op "LSTM"
err_case err_resize_linear "linear"
err_case err_opset9 "opset 9"
err_case err_truncated "at byte"
# a SCALE-Sim topology CSV (the layers independent, weights drawn from a seed)
"$bin" model -q -c configs/default.cfg workloads/topologies/gpt2_decode.csv --timing-only \
	--layers "$tmp/t.csv" 2> "$tmp/err" || { cat "$tmp/err" >&2; fail "topology CSV failed"; }
# a GEMM without bias whose channels' bias table alone would fill the
# scratchpad (GPT-2's vocabulary projection is 50,257 wide): conv2d.s
# reserves that table only for a bias (it was refused on 256 KiB)
printf 'Layer, M, N, K,\nwide,1,16384,768,\n' > "$tmp/wide.csv"
"$bin" model -q -c configs/default.cfg "$tmp/wide.csv" --timing-only \
	--layers "$tmp/w.csv" 2> "$tmp/err" || { cat "$tmp/err" >&2; fail "a 1x768x16384 GEMM failed"; }
record "1x768x16384 GEMM default.cfg: $(awk -F, 'NR > 1 { print $6 }' "$tmp/w.csv") cycles"
record "gpt2_decode.csv default.cfg: $(($(wc -l < "$tmp/t.csv") - 1)) layers, $(awk -F, 'NR > 1 { s += $6 } END { print s }' "$tmp/t.csv") cycles in layers"
golden
