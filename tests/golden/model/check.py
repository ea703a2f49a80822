#!/usr/bin/python3
"""check.py MODEL.onnx INPUT DIR TOL - every .npy that `npusim model
--dump-layers DIR` (and --output-dir DIR) wrote against the NumPy reference
evaluator (tests/python/onnxref.py, independent of the simulator): each
tensor within TOL x max|reference| of it.  INPUT: the .npy of the model's
one input, or a directory holding <input>.npy for each graph input.  Prints one line per tensor and
exits 1 on the first that is off."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
import onnx  # noqa: E402
import onnxref  # noqa: E402


def main():
    path, inp, d, tol = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    model = onnx.load(path)
    if os.path.isdir(inp):
        feeds = {i.name: np.load(os.path.join(inp, i.name + ".npy")) for i in model.graph.input}
    else:
        feeds = {model.graph.input[0].name: np.load(inp)}
    ref = onnxref.run(model, feeds)
    by_file = {k.replace("/", "_").replace(" ", "_"): k for k in ref}
    n = 0
    for f in sorted(os.listdir(d)):
        if not f.endswith(".npy"):
            continue
        name = by_file.get(f[:-4])
        if name is None:
            # a tensor the compiler made (a Pad's output before a conv
            # with uneven pads, a part of a chained Concat): not the
            # model's, checked through the layers that read it
            print("skip %s: made by the compiler, not in the model" % f)
            continue
        r = np.asarray(ref[name], dtype=np.float64)
        v = np.load(os.path.join(d, f)).astype(np.float64)
        if v.shape != r.shape:
            print("%s: shape %s, reference %s" % (name, v.shape, r.shape))
            return 1
        err = float(np.abs(v - r).max())
        scale = max(float(np.abs(r).max()), 1e-30)
        ok = err <= tol * scale
        print("%s %s: max|err| / max|ref| = %.2e" % ("ok" if ok else "FAIL", name, err / scale))
        if not ok:
            return 1
        n += 1
    if n == 0:
        print("no tensors in %s" % d)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
