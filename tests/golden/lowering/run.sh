# The bundled workloads (workloads/models/gen.py, as `make models` makes
# them) mapped on tpu-v1.cfg, default.cfg and datacenter.cfg, timing-only:
# which kernel compiler/lower.def chose for each Conv, MatMul, Gemm and
# attention layer (recorded: a change of choice shows here), and their
# roofline ceilings (docs/models.md "Reading --explain") asserted against
# floors - the whole model's % of its ceiling and its worst such layer's.
# The floors are the mapping's state when they were set, less a margin;
# raise them as the mapping improves, never lower them to make a run pass.
. "$(dirname "$0")/../lib.sh"
export NPUSIM_CACHE="$tmp/cache"
py=/usr/bin/python3
w=$tmp/w
$py workloads/models/gen.py -q "$w" resnet50 mobilenetv2 bert_layer gpt2_decode ||
	fail "gen.py failed"
# NET CONFIG FLOOR_TOTAL FLOOR_WORST [FLAGS]
check() {
	net=$1 cfg=$2 ftot=$3 fmin=$4
	shift 4
	"$bin" model -q -c "configs/$cfg.cfg" "$w/$net.onnx" --timing-only "$@" \
		--layers "$tmp/l.csv" 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$net $cfg: the run failed"; }
	out=$($py - "$tmp/l.csv" "$ftot" "$fmin" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ftot, fmin = float(sys.argv[2]), float(sys.argv[3])
mm = [r for r in rows if r["op"].split("+")[0] in ("Conv", "MatMul", "Gemm", "attention")]
tot = 100 * sum(float(r["ceiling_cycles"]) for r in rows) / sum(int(r["cycles"]) for r in rows)
worst = min(mm, key=lambda r: float(r["pct_of_ceiling"]))
if tot < ftot:
    print("FAIL: %.1f %% of the model's ceiling, floor %g" % (tot, ftot))
if float(worst["pct_of_ceiling"]) < fmin:
    print("FAIL: layer %s at %s %% of its ceiling, floor %g" % (worst["layer"], worst["pct_of_ceiling"], fmin))
kinds = {}
for r in mm:
    k = (r["op"].split("+")[0], r["kernel"].split("+")[0])
    kinds[k] = kinds.get(k, 0) + 1
print(" ".join("%s:%s x%d" % (o, k, n) for (o, k), n in sorted(kinds.items())))
PY
) || fail "$net $cfg: the check failed"
	case $out in *FAIL*) fail "$net $cfg${*:+ $*}: $out" ;; esac
	record "$net $cfg${*:+ $*}: $out"
}
check resnet50 tpu-v1 45 7
check resnet50 tpu-v1 42 5 --batch 8
check resnet50 default 19 4
check resnet50 datacenter 23 11
check mobilenetv2 tpu-v1 26 7.5
check mobilenetv2 default 42 22
check mobilenetv2 datacenter 27 9.5
check bert_layer tpu-v1 78 52
check bert_layer default 28 15
check bert_layer datacenter 27 23
check gpt2_decode tpu-v1 80 52
check gpt2_decode default 34 16
check gpt2_decode datacenter 40 35
golden
