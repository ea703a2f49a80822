#!/usr/bin/python3
"""gen_small.py - small ONNX models for the model tests: tiny shapes, so a
simulation with values takes well under a second, and the error cases the
importer must report.

    /usr/bin/python3 tests/models/gen_small.py OUTDIR [name...]

writes OUTDIR/<name>.onnx and, for each graph input, OUTDIR/<name>.<input>.npy
(float32 from N(0, 1), a fixed seed per model).  The same run gives the same
bytes; files are written to a temporary name and renamed.

Value checks (opset 13 unless said):
  tiny_cnn       conv 3x3 + BatchNormalization + Relu, MaxPool 2x2, conv 1x1
                 with bias and a residual Add, GlobalAveragePool, Flatten, Gemm
  tiny_mbv2      MobileNetV2 block: 1x1 expand + Clip(0, 6), 3x3 depthwise
                 (group = C) + Clip(0, 6), 1x1 project, residual Add
  tiny_mlp       MatMul + bias Add, GELU as the Erf pattern, MatMul + bias,
                 residual Add
  tiny_attn      one attention head (seq 16, hidden 32): Q/K/V projections,
                 Q K^T / sqrt(32), Softmax, V, output projection, residual,
                 LayerNorm as the decomposed pattern
  tiny_attn_ln17 the same weights with opset 17's LayerNormalization op
  tiny_legal     a conv and a MaxPool with uneven pads (TensorFlow's SAME,
                 stride 2), a three-way channel Concat, a Flatten of a 2x2
                 map into a Gemm
  tiny_qk        x (x W)^T: a MatMul whose B is computed (attention's Q K^T)
  tiny_seg       a conv and a Softmax over its channels (axis 1, opset 13)
  tiny_seg11     the same under opset 11 (Softmax over each whole image)
  tiny_hswish    MobileNetV3-style: conv 1x1 + HardSwish as YOLOv5 writes it
                 ((x * Clip(x + 3, 0, 6)) / 6), depthwise 3x3 + HardSwish as
                 tf2onnx does (x * (Clip(x + 3, 0, 6) * 1/6)), conv 1x1 +
                 SiLU (x * Sigmoid(x)), conv 1x1 + HardSigmoid (Clip(x + 3,
                 0, 6) / 6)
Errors (each is a valid ONNX model except the last; the importer must fail
with a message, not crash or skip):
  err_unsupported_op  an LSTM node (not in compiler/ops.def)
  err_resize_linear   Resize with mode 'linear' (only 'nearest' is supported)
  err_opset9          Conv + Relu under opset 9 (below the supported 11-17)
  err_truncated       tiny_cnn's bytes cut inside the graph (a malformed file)
"""
import math
import os
import sys

# onnxbuild first: it says what to install when NumPy or onnx is missing
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "workloads", "models"))
from onnxbuild import Builder, check, die, save_npy_atomic, write_atomic  # noqa: E402
import numpy as np  # noqa: E402
import onnx  # noqa: E402

DOC = "npusim test model %s (tests/models/gen_small.py, seed %d): %s"


def _lin(b, x, scope, din, dout, bias=True):
    w = b.normal(scope + ".weight", (din, dout), 1.0 / math.sqrt(din))
    y = b.node("MatMul", [x, w], "/" + scope)
    if bias:
        y = b.node("Add", [y, b.normal(scope + ".bias", (dout,), 0.1)], "/" + scope)
    return y


def tiny_cnn(seed):
    b = Builder("tiny_cnn", seed)
    x = b.input("x", [1, 3, 8, 8])
    w1 = b.normal("conv1.weight", (8, 3, 3, 3), math.sqrt(2 / 27))
    y = b.node("Conv", [x, w1], "/conv1", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    y = b.node("BatchNormalization", [y, b.uniform("bn1.weight", (8,), 0.8, 1.2),
                                      b.normal("bn1.bias", (8,), 0.1),
                                      b.normal("bn1.running_mean", (8,), 0.1),
                                      b.uniform("bn1.running_var", (8,), 0.5, 1.5)],
               "/bn1", epsilon=1e-5)
    y = b.node("Relu", [y], "/relu")
    p = b.node("MaxPool", [y], "/maxpool", kernel_shape=[2, 2], strides=[2, 2])
    w2 = b.normal("conv2.weight", (8, 8, 1, 1), math.sqrt(1 / 8))
    y = b.node("Conv", [p, w2, b.normal("conv2.bias", (8,), 0.1)], "/conv2",
               kernel_shape=[1, 1])
    y = b.node("Add", [y, p], "/add")
    y = b.node("GlobalAveragePool", [y], "/avgpool")
    y = b.node("Flatten", [y], "/flatten", axis=1)
    b.node("Gemm", [y, b.normal("fc.weight", (4, 8), math.sqrt(1 / 8)),
                    b.normal("fc.bias", (4,), 0.1)], "/fc", outputs=["y"], transB=1)
    b.output("y", [1, 4])
    return b.model(13, DOC % ("tiny_cnn", seed, "conv+BN+relu, maxpool, 1x1 conv + "
                              "residual, GAP, flatten, gemm"))


def tiny_mbv2(seed):
    b = Builder("tiny_mbv2", seed)
    lo, hi = b.scalar(0.0), b.scalar(6.0)
    x = b.input("x", [1, 8, 8, 8])
    y = b.node("Conv", [x, b.normal("expand.weight", (16, 8, 1, 1), math.sqrt(2 / 8)),
                        b.normal("expand.bias", (16,), 0.1)], "/expand", kernel_shape=[1, 1])
    y = b.node("Clip", [y, lo, hi], "/expand")
    y = b.node("Conv", [y, b.normal("dw.weight", (16, 1, 3, 3), math.sqrt(2 / 9)),
                        b.normal("dw.bias", (16,), 0.1)], "/dw", kernel_shape=[3, 3],
               pads=[1, 1, 1, 1], group=16)
    y = b.node("Clip", [y, lo, hi], "/dw")
    y = b.node("Conv", [y, b.normal("project.weight", (8, 16, 1, 1), math.sqrt(1 / 16)),
                        b.normal("project.bias", (8,), 0.1)], "/project", kernel_shape=[1, 1])
    b.node("Add", [x, y], "/add", outputs=["y"])
    b.output("y", [1, 8, 8, 8])
    return b.model(13, DOC % ("tiny_mbv2", seed, "inverted residual block with a depthwise "
                              "conv and ReLU6 as Clip"))


def tiny_mlp(seed):
    b = Builder("tiny_mlp", seed)
    x = b.input("x", [1, 4, 16])
    h = _lin(b, x, "fc1", 16, 32)
    d = b.node("Div", [h, b.scalar(1.4142135381698608)], "/gelu")
    e = b.node("Erf", [d], "/gelu")
    a = b.node("Add", [e, b.scalar(1.0)], "/gelu")
    m = b.node("Mul", [h, a], "/gelu")
    g = b.node("Mul", [m, b.scalar(0.5)], "/gelu")
    y = _lin(b, g, "fc2", 32, 16)
    b.node("Add", [y, x], "/add", outputs=["y"])
    b.output("y", [1, 4, 16])
    return b.model(13, DOC % ("tiny_mlp", seed, "matmul+bias, GELU (Erf pattern), "
                              "matmul+bias, residual"))


def _attn(name, seed, ln_op):
    S, D = 16, 32
    b = Builder(name, seed)
    x = b.input("x", [1, S, D])
    q = _lin(b, x, "q", D, D)
    k = _lin(b, x, "k", D, D)
    v = _lin(b, x, "v", D, D)
    kt = b.node("Transpose", [k], "/attn", perm=[0, 2, 1])
    s = b.node("MatMul", [q, kt], "/attn")
    s = b.node("Div", [s, b.scalar(math.sqrt(D))], "/attn")
    p = b.node("Softmax", [s], "/attn", axis=-1)
    c = b.node("MatMul", [p, v], "/attn")
    o = _lin(b, c, "out", D, D)
    r = b.node("Add", [o, x], "/add")
    g = b.uniform("ln.weight", (D,), 0.8, 1.2)
    beta = b.normal("ln.bias", (D,), 0.1)
    if ln_op:
        b.node("LayerNormalization", [r, g, beta], "/ln", outputs=["y"], axis=-1,
               epsilon=1e-5)
    else:
        mean = b.node("ReduceMean", [r], "/ln", axes=[-1], keepdims=1)
        d = b.node("Sub", [r, mean], "/ln")
        var = b.node("ReduceMean", [b.node("Pow", [d, b.scalar(2.0)], "/ln")], "/ln",
                     axes=[-1], keepdims=1)
        sd = b.node("Sqrt", [b.node("Add", [var, b.scalar(1e-5)], "/ln")], "/ln")
        n = b.node("Mul", [b.node("Div", [d, sd], "/ln"), g], "/ln")
        b.node("Add", [n, beta], "/ln", outputs=["y"])
    b.output("y", [1, S, D])
    return b.model(17 if ln_op else 13, DOC % (
        name, seed, "one attention head, seq 16, hidden 32, residual, LayerNorm %s"
        % ("op (opset 17)" if ln_op else "decomposed")))


def tiny_attn(seed):
    return _attn("tiny_attn", seed, False)


def tiny_attn_ln17(seed):
    return _attn("tiny_attn_ln17", seed, True)


def tiny_legal(seed):
    """What the kernels take only after the compiler rewrites it: a Conv
    and a MaxPool padded as TensorFlow's SAME pads them at stride 2 on an
    even input (one more at the bottom and right), a Concat of three branches along the
    channels (Inception-style), a Flatten of a 2x2 map into a Gemm (VGG's
    classifier)."""
    b = Builder("tiny_legal", seed)
    x = b.input("x", [1, 3, 8, 8])
    w = b.normal("stem.weight", (8, 3, 3, 3), math.sqrt(2 / 27))
    y = b.node("Conv", [x, w, b.normal("stem.bias", (8,), 0.1)], "/stem",
               kernel_shape=[3, 3], strides=[2, 2], pads=[0, 0, 1, 1])
    y = b.node("Relu", [y], "/stem_relu")
    y = b.node("MaxPool", [y], "/pool", kernel_shape=[3, 3], strides=[2, 2],
               pads=[0, 0, 1, 1])
    parts = []
    for i, c in enumerate((4, 4, 8)):
        wb = b.normal("b%d.weight" % i, (c, 8, 1, 1), math.sqrt(2 / 8))
        parts.append(b.node("Conv", [y, wb], "/b%d" % i, kernel_shape=[1, 1]))
    y = b.node("Concat", parts, "/concat", axis=1)
    y = b.node("Flatten", [y], "/flatten", axis=1)
    b.node("Gemm", [y, b.normal("fc.weight", (5, 64), math.sqrt(1 / 64)),
                    b.normal("fc.bias", (5,), 0.1)], "/fc", outputs=["y"], transB=1)
    b.output("y", [1, 5])
    return b.model(13, DOC % ("tiny_legal", seed, "uneven conv and pool pads, a "
                              "three-way concat, a flatten of a 2x2 map"))


def tiny_qk(seed):
    """A product of two activations (attention's Q K^T without the
    softmax): MatMul with a computed B, which int8 runs shift by the two
    operands' fraction bits."""
    b = Builder("tiny_qk", seed)
    x = b.input("x", [1, 4, 8])
    a = b.node("MatMul", [x, b.normal("proj.weight", (8, 8), 0.25)], "/proj")
    t = b.node("Transpose", [a], "/t", perm=[0, 2, 1])
    b.node("MatMul", [x, t], "/qk", outputs=["y"])
    b.output("y", [1, 4, 4])
    return b.model(13, DOC % ("tiny_qk", seed, "x (x W)^T: a MatMul of two "
                              "activations"))


def _seg(name, seed, opset):
    b = Builder(name, seed)
    x = b.input("x", [1, 3, 6, 6])
    w = b.normal("head.weight", (5, 3, 3, 3), 0.5)
    y = b.node("Conv", [x, w], "/head", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    b.node("Softmax", [y], "/softmax", outputs=["y"], axis=1)
    b.output("y", [1, 5, 6, 6])
    return b.model(opset, DOC % (name, seed, "a Softmax over axis 1 of a conv's "
                                 "map (opset %d)" % opset))


def tiny_seg(seed):
    """A segmentation head: per-pixel Softmax over the channels of a conv's
    output, which is stored channels-last."""
    return _seg("tiny_seg", seed, 13)


def tiny_seg11(seed):
    """The same under opset 11, whose Softmax flattens from axis 1: one
    softmax over each whole image."""
    return _seg("tiny_seg11", seed, 11)


def _hswish(b, x, scope, grouped):
    """x * Clip(x + 3, 0, 6) / 6 in one of two exported groupings."""
    c = b.node("Clip", [b.node("Add", [x, b.scalar(3.0)], scope), b.scalar(0.0),
                        b.scalar(6.0)], scope)
    if grouped:
        return b.node("Div", [b.node("Mul", [x, c], scope), b.scalar(6.0)], scope)
    return b.node("Mul", [x, b.node("Mul", [c, b.scalar(1.0 / 6)], scope)], scope)


def tiny_hswish(seed):
    """The activations MobileNetV3 and YOLOv5 export decomposed: each must
    cost one pass, not four DRAM round trips."""
    b = Builder("tiny_hswish", seed)
    x = b.input("x", [1, 8, 6, 6])
    y = b.node("Conv", [x, b.normal("expand.weight", (16, 8, 1, 1), math.sqrt(2 / 8)),
                        b.normal("expand.bias", (16,), 0.5)], "/expand", kernel_shape=[1, 1])
    y = _hswish(b, y, "/expand/hswish", True)
    y = b.node("Conv", [y, b.normal("dw.weight", (16, 1, 3, 3), math.sqrt(2 / 9)),
                        b.normal("dw.bias", (16,), 0.5)], "/dw", kernel_shape=[3, 3],
               pads=[1, 1, 1, 1], group=16)
    y = _hswish(b, y, "/dw/hswish", False)
    y = b.node("Conv", [y, b.normal("mix.weight", (16, 16, 1, 1), math.sqrt(1 / 16)),
                        b.normal("mix.bias", (16,), 0.5)], "/mix", kernel_shape=[1, 1])
    y = b.node("Mul", [y, b.node("Sigmoid", [y], "/mix/silu")], "/mix/silu")
    y = b.node("Conv", [y, b.normal("project.weight", (8, 16, 1, 1), math.sqrt(1 / 16)),
                        b.normal("project.bias", (8,), 0.5)], "/project", kernel_shape=[1, 1])
    c = b.node("Clip", [b.node("Add", [y, b.scalar(3.0)], "/gate"), b.scalar(0.0),
                        b.scalar(6.0)], "/gate")
    b.node("Div", [c, b.scalar(6.0)], "/gate", outputs=["y"])
    b.output("y", [1, 8, 6, 6])
    return b.model(13, DOC % ("tiny_hswish", seed, "HardSwish and HardSigmoid as "
                              "exporters decompose them"))


def err_unsupported_op(seed):
    b = Builder("err_unsupported_op", seed)
    x = b.input("x", [4, 1, 8])         # seq, batch, input size
    w = b.normal("lstm.W", (1, 32, 8), 0.3)
    r = b.normal("lstm.R", (1, 32, 8), 0.3)
    b.node("LSTM", [x, w, r], "/lstm", outputs=["y"], hidden_size=8)
    b.output("y", [4, 1, 1, 8])
    return b.model(13, DOC % ("err_unsupported_op", seed, "an LSTM node: unsupported op"))


def err_resize_linear(seed):
    b = Builder("err_resize_linear", seed)
    x = b.input("x", [1, 2, 4, 4])
    scales = b.init("scales", np.array([1, 1, 2, 2], dtype=np.float32))
    b.node("Resize", [x, "", scales], "/resize", outputs=["y"], mode="linear")
    b.output("y", [1, 2, 8, 8])
    return b.model(13, DOC % ("err_resize_linear", seed, "Resize mode 'linear': an "
                              "unsupported attribute value"))


def err_opset9(seed):
    b = Builder("err_opset9", seed)
    x = b.input("x", [1, 3, 8, 8])
    y = b.node("Conv", [x, b.normal("conv.weight", (4, 3, 3, 3), 0.3)], "/conv",
               kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    b.node("Relu", [y], "/relu", outputs=["y"])
    b.output("y", [1, 4, 8, 8])
    return b.model(9, DOC % ("err_opset9", seed, "opset 9, below the supported 11-17"))


def err_truncated(seed):
    # returns bytes, not a model: cut in the middle of the graph field
    # (ModelProto field 7, written after the header fields and before the
    # opset import), so the length prefix promises more than there is
    data = check(tiny_cnn(SEEDS["tiny_cnn"]))
    cut = data[:len(data) // 2]
    try:
        onnx.ModelProto().ParseFromString(cut)
    except Exception:
        return cut
    raise AssertionError("the truncated tiny_cnn still parses")


MODELS = {"tiny_cnn": tiny_cnn, "tiny_mbv2": tiny_mbv2, "tiny_mlp": tiny_mlp,
          "tiny_attn": tiny_attn, "tiny_attn_ln17": tiny_attn_ln17,
          "err_unsupported_op": err_unsupported_op, "err_resize_linear": err_resize_linear,
          "err_opset9": err_opset9, "err_truncated": err_truncated,
          "tiny_legal": tiny_legal, "tiny_qk": tiny_qk, "tiny_seg": tiny_seg,
          "tiny_seg11": tiny_seg11, "tiny_hswish": tiny_hswish}
SEEDS = {n: 1000 + i for i, n in enumerate(MODELS)}
# tiny_attn's seed: the same weights and input, so both give the same output
SEEDS["tiny_attn_ln17"] = SEEDS["tiny_attn"]


def inputs_of(name):
    """The graph inputs (name, shape) of a model; err_truncated's are
    tiny_cnn's."""
    m = MODELS["tiny_cnn" if name == "err_truncated" else name](SEEDS[name])
    inits = {t.name for t in m.graph.initializer}
    return [(vi.name, [d.dim_value for d in vi.type.tensor_type.shape.dim])
            for vi in m.graph.input if vi.name not in inits]


def main(argv):
    if not argv or argv[0].startswith("-"):
        die("usage: gen_small.py OUTDIR [name...]   (names: %s)" % ", ".join(MODELS))
    outdir, names = argv[0], argv[1:] or list(MODELS)
    for n in names:
        if n not in MODELS:
            die("unknown model '%s' (known: %s)" % (n, ", ".join(MODELS)))
    for n in names:
        m = MODELS[n](SEEDS[n])
        if isinstance(m, bytes):
            data = m
        else:
            # every model but the truncated one is valid ONNX (checker and
            # strict shape inference): the errors are npusim's importer's
            data = check(m)
        write_atomic(os.path.join(outdir, n + ".onnx"), data)
        rng = np.random.default_rng(SEEDS[n])
        for iname, shape in inputs_of(n):
            save_npy_atomic(os.path.join(outdir, "%s.%s.npy" % (n, iname)),
                            rng.standard_normal(shape, dtype=np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
