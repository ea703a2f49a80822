#!/usr/bin/python3
"""check.py LAYERS.csv EXPLAIN.txt [MODEL.onnx] - `npusim model --explain
--layers` against the rules of docs/models.md "Reading --explain":

- the CSV has the columns model_macs, compulsory_bytes, ceiling_cycles,
  pct_of_ceiling, bound (and array_macs);
- every layer's % of ceiling is in (0, 100] and equals 100 x ceiling /
  cycles; its bound is array, vector or dram; model_macs = macs;
- the --explain table has a row per layer with the CSV's ceiling, cycles
  and bound, and a total row whose ceiling and cycles are the sums;
- with MODEL.onnx: every Conv, MatMul and Gemm layer's model_macs equals
  the op's MACs computed here from the ONNX graph (shapes by onnx's own
  shape inference): Conv prod(output) x C_in/group x kH x kW, MatMul and
  Gemm prod(output) x K.  Prints what it checked; exits 1 on the first
  violation."""
import csv
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def onnx_macs(path):
    import onnx
    from onnx import shape_inference
    m = shape_inference.infer_shapes(onnx.load(path))
    g = m.graph
    shapes = {}
    for v in list(g.input) + list(g.value_info) + list(g.output):
        shapes[v.name] = [d.dim_value for d in v.type.tensor_type.shape.dim]
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    macs = {}
    for n in g.node:
        def prod(xs):
            p = 1
            for x in xs:
                p *= x
            return p
        if n.op_type == "Conv":
            w = shapes[n.input[1]]
            macs[n.name] = prod(shapes[n.output[0]]) * prod(w[1:])
        elif n.op_type == "MatMul":
            macs[n.name] = prod(shapes[n.output[0]]) * shapes[n.input[0]][-1]
        elif n.op_type == "Gemm":
            ta = [a.i for a in n.attribute if a.name == "transA"]
            a = shapes[n.input[0]]
            k = a[0] if ta and ta[0] else a[1]
            macs[n.name] = prod(shapes[n.output[0]]) * k
    return macs


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    for col in ("model_macs", "compulsory_bytes", "ceiling_cycles", "pct_of_ceiling",
                "bound", "array_macs", "macs"):
        if col not in rows[0]:
            fail("the CSV has no column " + col)
    for r in rows:
        name, cyc, ceil = r["layer"], int(r["cycles"]), float(r["ceiling_cycles"])
        pct = float(r["pct_of_ceiling"])
        if not 0 < pct <= 100:
            fail("%s: %.2f%% of its ceiling, outside (0, 100]" % (name, pct))
        if abs(pct - 100 * ceil / cyc) > 0.01 + 100 * 0.5 / cyc:
            fail("%s: pct %.2f is not 100 x %s / %d" % (name, pct, ceil, cyc))
        if r["bound"] not in ("array", "vector", "dram"):
            fail("%s: bound %r" % (name, r["bound"]))
        if r["model_macs"] != r["macs"]:
            fail("%s: model_macs %s, macs %s" % (name, r["model_macs"], r["macs"]))
        if int(r["compulsory_bytes"]) <= 0:
            fail("%s: no compulsory bytes" % name)
    # the table: "layer op kernel schedule ceiling cycles pct% bound why"
    lines = open(sys.argv[2]).read().splitlines()
    hdr = [i for i, l in enumerate(lines) if l.startswith("layer ") and "%ceil" in l]
    if len(hdr) != 1:
        fail("no --explain table header")
    body = lines[hdr[0] + 1:hdr[0] + 1 + len(rows)]
    total = lines[hdr[0] + 1 + len(rows)].split()
    for r, l in zip(rows, body):
        if not l.startswith(r["layer"][:24]):
            fail("table row %r is not layer %s" % (l, r["layer"]))
        t = l[24 + 1 + 22 + 1 + 20 + 1 + 30:].split()
        if (t[0], t[1], t[3]) != ("%.0f" % float(r["ceiling_cycles"]), r["cycles"], r["bound"]):
            fail("table row %r disagrees with the CSV" % l)
    if total[0] != "total" or \
       abs(float(total[1]) - sum(float(r["ceiling_cycles"]) for r in rows)) > len(rows) or \
       int(total[2]) != sum(int(r["cycles"]) for r in rows):
        fail("total row %r" % " ".join(total))
    n = 0
    if len(sys.argv) > 3:
        macs = onnx_macs(sys.argv[3])
        for r in rows:
            if r["layer"] in macs:
                n += 1
                # a matched attention subgraph is named after its second
                # MatMul (P V) and does Q K^T's MACs too: as many when V
                # is as wide as Q
                want = macs[r["layer"]] * (2 if r["op"].startswith("attention") else 1)
                if int(r["model_macs"]) != want:
                    fail("%s: model_macs %s, the op's %d" % (r["layer"], r["model_macs"], want))
    print("ok %d layers, %d MACs checked against the graph" % (len(rows), n))


main()
