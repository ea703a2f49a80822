"""onnxref - an independent NumPy evaluator of ONNX graphs, the reference the
model tests compare npusim's layer outputs against.

    import onnxref
    values = onnxref.run("tiny_cnn.onnx", {"x": x})
    values["output"], values["/conv1/Conv_output_0"], ...

run() returns every tensor of the graph by name: the inputs, the
initializers and each node's outputs, so a test can check layer by layer.

It covers the operators of compiler/ops.def (the ones npusim imports) and
follows the ONNX operator specification (onnx/docs/Operators.md) for
opsets 7 to 18 where their forms differ (Clip's bounds, Split's sizes,
Squeeze/Unsqueeze/ReduceMean axes, Pad's pads, Slice as attributes or
inputs).  Written from the specification, not from onnx's own reference
code; onnx 1.12 (Debian) has none anyway.

Numerics: every floating-point tensor (float16, bfloat16, float32,
float64) is computed in float64, so the reference is more precise than
any dtype npusim runs in and a test's tolerance is all npusim's own
rounding.  Integer tensors keep their dtype (int64 shapes and indices;
int8/uint8 from QuantizeLinear).  Only the default ONNX domain; an
operator or attribute value it does not implement raises
NotImplementedError naming the node.
"""
import math

import numpy as np
import onnx
from onnx import numpy_helper

FLOAT_TYPES = (np.float16, np.float32, np.float64)


def _value(a):
    """A tensor as the evaluator holds it: floats widened to float64."""
    a = np.asarray(a)
    if a.dtype.kind == "f" or a.dtype == np.float16:
        return a.astype(np.float64)
    return a


class Node:
    """One node while it runs: its attributes by name with defaults, its
    inputs (None for an absent optional one) and the opset."""

    def __init__(self, proto, ins, opset):
        self.proto = proto
        self.ins = ins
        self.opset = opset
        self.attrs = {a.name: onnx.helper.get_attribute_value(a) for a in proto.attribute}

    def attr(self, name, default=None):
        v = self.attrs.get(name, default)
        if isinstance(v, bytes):
            v = v.decode()
        return v

    def inp(self, i):
        """Input i, or None when absent or named ''."""
        return self.ins[i] if i < len(self.ins) else None

    def fail(self, what):
        p = self.proto
        raise NotImplementedError("onnxref: node '%s' (%s, opset %d): %s"
                                  % (p.name, p.op_type, self.opset, what))


# ---- convolution and pooling ------------------------------------------------
def _pads(n, in_hw, k, stride, dil):
    """The (top, left, bottom, right) padding and the output size of a
    window op, from pads or auto_pad (spec: SAME_UPPER puts the odd extra
    pixel at the end, SAME_LOWER at the start)."""
    ap = n.attr("auto_pad", "NOTSET")
    nd = len(in_hw)
    if ap in ("NOTSET", ""):
        pads = list(n.attr("pads", [0] * 2 * nd))
    elif ap == "VALID":
        pads = [0] * 2 * nd
    elif ap in ("SAME_UPPER", "SAME_LOWER"):
        pads = [0] * 2 * nd
        for i in range(nd):
            out = -(-in_hw[i] // stride[i])
            total = max((out - 1) * stride[i] + (k[i] - 1) * dil[i] + 1 - in_hw[i], 0)
            small, big = total // 2, total - total // 2
            pads[i], pads[i + nd] = (small, big) if ap == "SAME_UPPER" else (big, small)
    else:
        n.fail("auto_pad '%s'" % ap)
    return pads


def _out_size(size, k, s, d, pb, pe, ceil):
    """Output length of a window op; with ceil_mode the last window must
    still start inside the input or its leading padding (the rule PyTorch
    and ONNX Runtime apply)."""
    span = size + pb + pe - d * (k - 1) - 1
    if ceil:
        out = -(-span // s) + 1
        if (out - 1) * s >= size + pb:
            out -= 1
    else:
        out = span // s + 1
    return out


def op_conv(n, x, w, b=None):
    if x.ndim != 4:
        n.fail("%d-D input: only 2-D convolution (NCHW)" % x.ndim)
    N, C, H, W = x.shape
    M, Cg, KH, KW = w.shape
    group = n.attr("group", 1)
    if C != Cg * group or M % group:
        n.fail("channels %d, weight %s, group %d do not agree" % (C, w.shape, group))
    sh, sw = n.attr("strides", [1, 1])
    dh, dw = n.attr("dilations", [1, 1])
    pt, pl, pb, pr = _pads(n, (H, W), (KH, KW), (sh, sw), (dh, dw))
    OH = _out_size(H, KH, sh, dh, pt, pb, 0)
    OW = _out_size(W, KW, sw, dw, pl, pr, 0)
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    # Per kernel tap, the strided view of the input it meets, multiplied
    # into every output channel of its group: out[n,g,m,:,:] +=
    # sum_c x[n,g,c, i*dh + sh*oy, j*dw + sw*ox] * w[g,m,c,i,j].
    xg = xp.reshape(N, group, Cg, xp.shape[2], xp.shape[3])
    wg = w.reshape(group, M // group, Cg, KH, KW)
    out = np.zeros((N, group, M // group, OH, OW))
    for i in range(KH):
        for j in range(KW):
            tap = xg[:, :, :, i * dh:i * dh + sh * (OH - 1) + 1:sh,
                     j * dw:j * dw + sw * (OW - 1) + 1:sw]
            out += np.einsum("ngchw,gmc->ngmhw", tap, wg[:, :, :, i, j])
    out = out.reshape(N, M, OH, OW)
    if b is not None:
        out += b.reshape(1, M, 1, 1)
    return out


def _pool(n, x, kind):
    if x.ndim != 4:
        n.fail("%d-D input: only 2-D pooling (NCHW)" % x.ndim)
    N, C, H, W = x.shape
    KH, KW = n.attr("kernel_shape")
    sh, sw = n.attr("strides", [1, 1])
    dh, dw = n.attr("dilations", [1, 1])
    ceil = n.attr("ceil_mode", 0)
    pt, pl, pb, pr = _pads(n, (H, W), (KH, KW), (sh, sw), (dh, dw))
    OH = _out_size(H, KH, sh, dh, pt, pb, ceil)
    OW = _out_size(W, KW, sw, dw, pl, pr, ceil)
    incl = n.attr("count_include_pad", 0)
    out = np.empty((N, C, OH, OW))
    for oy in range(OH):
        for ox in range(OW):
            # window rows/cols in input coordinates (may leave the input)
            ys = oy * sh - pt + dh * np.arange(KH)
            xs = ox * sw - pl + dw * np.arange(KW)
            yin = ys[(ys >= 0) & (ys < H)]
            xin = xs[(xs >= 0) & (xs < W)]
            win = x[:, :, yin[:, None], xin[None, :]]
            if kind == "max":
                out[:, :, oy, ox] = win.max(axis=(2, 3))
            else:
                if incl:
                    # padding counts, but not the part of a ceil_mode
                    # window past the padded input
                    cnt = (np.sum((ys >= -pt) & (ys < H + pb)) *
                           np.sum((xs >= -pl) & (xs < W + pr)))
                else:
                    cnt = len(yin) * len(xin)
                out[:, :, oy, ox] = win.sum(axis=(2, 3)) / cnt
    return out


def op_maxpool(n, x):
    if len(n.proto.output) > 1 and n.proto.output[1]:
        n.fail("the Indices output")
    if n.attr("storage_order", 0):
        n.fail("storage_order 1")
    return _pool(n, x, "max")


def op_averagepool(n, x):
    return _pool(n, x, "avg")


def op_globalaveragepool(n, x):
    return x.mean(axis=tuple(range(2, x.ndim)), keepdims=True)


# ---- matrix products --------------------------------------------------------
def op_matmul(n, a, b):
    return np.matmul(a, b)


def op_gemm(n, a, b, c=None):
    if n.attr("transA", 0):
        a = a.T
    if n.attr("transB", 0):
        b = b.T
    y = n.attr("alpha", 1.0) * (a @ b)
    if c is not None:
        y = y + n.attr("beta", 1.0) * c
    return y


# ---- elementwise ------------------------------------------------------------
def op_add(n, a, b):
    return a + b


def op_sub(n, a, b):
    return a - b


def op_mul(n, a, b):
    return a * b


def op_div(n, a, b):
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        # integer division truncates toward zero, as in C
        return (np.trunc(a / b)).astype(np.result_type(a, b))
    return a / b


def op_pow(n, a, b):
    return np.power(a, b.astype(a.dtype) if a.dtype.kind == "f" else b)


def op_sqrt(n, x):
    return np.sqrt(x)


def op_relu(n, x):
    return np.maximum(x, 0)


def op_clip(n, x, lo=None, hi=None):
    if n.opset < 11:
        lo, hi = n.attr("min", -np.inf), n.attr("max", np.inf)
    if lo is not None:
        x = np.maximum(x, lo)
    if hi is not None:
        x = np.minimum(x, hi)
    return x


def op_sigmoid(n, x):
    # exp of a non-positive argument only: no overflow at either end
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def op_tanh(n, x):
    return np.tanh(x)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def op_erf(n, x):
    return _erf(x)


def op_gelu(n, x):
    a = n.attr("approximate", "none")
    if a == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    if a != "none":
        n.fail("approximate '%s'" % a)
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def op_hardsigmoid(n, x):
    return np.clip(n.attr("alpha", 0.2) * x + n.attr("beta", 0.5), 0, 1)


def op_hardswish(n, x):
    return x * np.clip(x / 6 + 0.5, 0, 1)


# ---- normalisation ----------------------------------------------------------
def op_softmax(n, x):
    if n.opset < 13:
        # opsets 1-12: the input as a 2-D matrix cut at axis (default 1),
        # softmax over each row
        ax = n.attr("axis", 1) % x.ndim
        rows = x.reshape(int(np.prod(x.shape[:ax])), -1)
        e = np.exp(rows - rows.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)).reshape(x.shape)
    ax = n.attr("axis", -1)
    e = np.exp(x - x.max(axis=ax, keepdims=True))
    return e / e.sum(axis=ax, keepdims=True)


def op_layernormalization(n, x, scale, bias=None):
    ax = n.attr("axis", -1) % x.ndim
    axes = tuple(range(ax, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    inv = 1 / np.sqrt(var + n.attr("epsilon", 1e-5))
    y = (x - mean) * inv * scale
    if bias is not None:
        y = y + bias
    return y, mean, inv


def op_batchnormalization(n, x, scale, b, mean, var):
    if n.attr("training_mode", 0):
        n.fail("training_mode 1")
    shape = (1, -1) + (1,) * (x.ndim - 2)
    inv = 1 / np.sqrt(var + n.attr("epsilon", 1e-5))
    return ((x - mean.reshape(shape)) * (scale * inv).reshape(shape)
            + b.reshape(shape))


def op_reducemean(n, x, axes=None):
    if n.opset < 18:
        axes = n.attr("axes")
    elif axes is not None:
        axes = [int(a) for a in axes]
    keep = bool(n.attr("keepdims", 1))
    if not axes:
        if n.attr("noop_with_empty_axes", 0):
            return x
        axes = range(x.ndim)
    return x.mean(axis=tuple(a % x.ndim for a in axes), keepdims=keep)


# ---- shapes and data movement -----------------------------------------------
def op_flatten(n, x):
    ax = n.attr("axis", 1)
    ax = ax + x.ndim if ax < 0 else ax
    return x.reshape(int(np.prod(x.shape[:ax])), int(np.prod(x.shape[ax:])))


def op_reshape(n, x, shape):
    shape = [int(s) for s in shape]
    if not n.attr("allowzero", 0):
        # 0 copies the input's dimension at that position
        shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return x.reshape(shape)


def op_squeeze(n, x, axes=None):
    if n.opset < 13:
        axes = n.attr("axes")
    if axes is None or len(axes) == 0:
        return np.squeeze(x)
    return np.squeeze(x, axis=tuple(int(a) % x.ndim for a in axes))


def op_unsqueeze(n, x, axes=None):
    if n.opset < 13:
        axes = n.attr("axes")
    rank = x.ndim + len(axes)
    for a in sorted(int(a) % rank for a in axes):
        x = np.expand_dims(x, a)
    return x


def op_transpose(n, x):
    perm = n.attr("perm")
    return np.transpose(x, perm if perm else None)


def op_concat(n, *xs):
    return np.concatenate([x for x in xs if x is not None], axis=n.attr("axis"))


def op_split(n, x, split=None):
    ax = n.attr("axis", 0) % x.ndim
    if n.opset < 13:
        split = n.attr("split")
    nout = len(n.proto.output)
    if split is None or len(split) == 0:
        if n.opset >= 18 and n.attr("num_outputs") is not None:
            nout = n.attr("num_outputs")
        # equal parts; opset 18 lets the last one be smaller
        part = -(-x.shape[ax] // nout)
        split = [min(part, x.shape[ax] - i * part) for i in range(nout)]
    cuts = np.cumsum([int(s) for s in split])[:-1]
    return tuple(np.split(x, cuts, axis=ax))


def op_slice(n, x, starts=None, ends=None, axes=None, steps=None):
    if n.opset < 10:
        starts, ends, axes = n.attr("starts"), n.attr("ends"), n.attr("axes")
    starts = [int(s) for s in starts]
    ends = [int(e) for e in ends]
    axes = list(range(len(starts))) if axes is None else [int(a) % x.ndim for a in axes]
    steps = [1] * len(starts) if steps is None else [int(s) for s in steps]
    index = [slice(None)] * x.ndim
    for st, en, ax, sp in zip(starts, ends, axes, steps):
        d = x.shape[ax]
        st = st + d if st < 0 else st
        en = en + d if en < 0 else en
        # the specification's clamping: [0, d] going forward,
        # [0, d-1] / [-1, d-1] going backward (end -1: through index 0)
        if sp > 0:
            st, en = min(max(st, 0), d), min(max(en, 0), d)
        else:
            st, en = min(max(st, 0), d - 1), min(max(en, -1), d - 1)
        index[ax] = np.arange(st, en, sp, dtype=np.int64)
    # one axis at a time, so the index arrays do not broadcast together
    for ax, ix in enumerate(index):
        if not isinstance(ix, slice):
            x = np.take(x, ix, axis=ax)
    return x


def op_gather(n, data, idx):
    ax = n.attr("axis", 0) % data.ndim
    idx = np.where(idx < 0, idx + data.shape[ax], idx)
    return np.take(data, idx, axis=ax)


def _nearest(n, x_out, scale, size_in, ctm, nmode):
    """Source index of output coordinate x_out along one axis."""
    if ctm == "asymmetric":
        xo = x_out / scale
    elif ctm == "half_pixel":
        xo = (x_out + 0.5) / scale - 0.5
    elif ctm == "pytorch_half_pixel":
        xo = (x_out + 0.5) / scale - 0.5 if size_in * scale > 1 else np.zeros_like(x_out)
    elif ctm == "align_corners":
        out_len = round(size_in * scale)
        xo = x_out * (size_in - 1) / (out_len - 1) if out_len > 1 else np.zeros_like(x_out)
    elif ctm == "tf_half_pixel_for_nn":
        xo = (x_out + 0.5) / scale
    else:
        n.fail("coordinate_transformation_mode '%s'" % ctm)
    if nmode == "round_prefer_floor":
        i = np.where(xo - np.floor(xo) == 0.5, np.floor(xo), np.round(xo))
    elif nmode == "round_prefer_ceil":
        i = np.where(xo - np.floor(xo) == 0.5, np.ceil(xo), np.round(xo))
    elif nmode == "floor":
        i = np.floor(xo)
    elif nmode == "ceil":
        i = np.ceil(xo)
    else:
        n.fail("nearest_mode '%s'" % nmode)
    return np.clip(i, 0, size_in - 1).astype(np.int64)


def op_resize(n, x, roi=None, scales=None, sizes=None):
    mode = n.attr("mode", "nearest")
    if mode != "nearest":
        n.fail("mode '%s': only 'nearest'" % mode)
    if n.opset < 11:
        scales, ctm = roi, "asymmetric"     # opset 10: Resize(X, scales)
    else:
        ctm = n.attr("coordinate_transformation_mode", "half_pixel")
    nmode = n.attr("nearest_mode", "round_prefer_floor")
    if sizes is not None and len(sizes):
        sizes = [int(s) for s in sizes]
        scales = [sizes[i] / x.shape[i] for i in range(x.ndim)]
    elif scales is not None and len(scales):
        scales = [float(s) for s in scales]
        sizes = [int(math.floor(x.shape[i] * scales[i])) for i in range(x.ndim)]
    else:
        n.fail("neither scales nor sizes")
    for ax in range(x.ndim):
        if sizes[ax] != x.shape[ax] or scales[ax] != 1:
            src = _nearest(n, np.arange(sizes[ax], dtype=np.float64), scales[ax],
                           x.shape[ax], ctm, nmode)
            x = np.take(x, src, axis=ax)
    return x


def op_pad(n, x, pads=None, value=None, axes=None):
    if n.opset < 11:
        pads, value = n.attr("pads"), n.attr("value", 0.0)
    mode = n.attr("mode", "constant")
    pads = [int(p) for p in pads]
    axes = list(range(x.ndim)) if axes is None else [int(a) % x.ndim for a in axes]
    k = len(axes)
    width = [(0, 0)] * x.ndim
    for i, ax in enumerate(axes):
        width[ax] = (pads[i], pads[i + k])
    if any(p < 0 for w in width for p in w):
        # negative pads crop
        crop = tuple(slice(-min(b, 0), x.shape[i] + min(e, 0)) for i, (b, e) in enumerate(width))
        x = x[crop]
        width = [(max(b, 0), max(e, 0)) for b, e in width]
    if mode == "constant":
        v = 0 if value is None or np.size(value) == 0 else np.asarray(value).reshape(-1)[0]
        return np.pad(x, width, mode="constant", constant_values=v)
    if mode in ("reflect", "edge"):
        return np.pad(x, width, mode=mode)
    n.fail("mode '%s'" % mode)


def op_quantizelinear(n, x, scale, zp=None):
    dt = zp.dtype if zp is not None else np.dtype(np.uint8)
    if zp is None:
        zp = np.zeros((), dtype=dt)
    ax = n.attr("axis", 1) % x.ndim
    if np.ndim(scale) == 1:
        shape = [1] * x.ndim
        shape[ax] = -1
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    info = np.iinfo(dt)
    # round half to even (the spec), then saturate to the type
    q = np.rint(x / scale) + zp.astype(np.int64)
    return np.clip(q, info.min, info.max).astype(dt)


def op_dequantizelinear(n, x, scale, zp=None):
    ax = n.attr("axis", 1) % max(x.ndim, 1)
    zp = np.zeros((), dtype=np.int64) if zp is None else zp
    if np.ndim(scale) == 1 and x.ndim > 0:
        shape = [1] * x.ndim
        shape[ax] = -1
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    return (x.astype(np.int64) - zp.astype(np.int64)) * scale


def op_constant(n):
    a = n.attrs
    if "value" in a:
        return _value(numpy_helper.to_array(a["value"]))
    if "value_float" in a:
        return np.array(a["value_float"], dtype=np.float64)
    if "value_floats" in a:
        return np.array(a["value_floats"], dtype=np.float64)
    if "value_int" in a:
        return np.array(a["value_int"], dtype=np.int64)
    if "value_ints" in a:
        return np.array(a["value_ints"], dtype=np.int64)
    n.fail("a value other than value, value_float(s), value_int(s)")


def op_identity(n, x):
    return x


def op_dropout(n, x, ratio=None, training=None):
    if training is not None and bool(training):
        n.fail("training_mode true")
    # inference: the input itself, and a mask of all true
    return x, np.ones(x.shape, dtype=bool)


OPS = {
    "Conv": op_conv, "MatMul": op_matmul, "Gemm": op_gemm, "Add": op_add, "Sub": op_sub,
    "Mul": op_mul, "Div": op_div, "Pow": op_pow, "Sqrt": op_sqrt, "Relu": op_relu,
    "Clip": op_clip, "Sigmoid": op_sigmoid, "Tanh": op_tanh, "Gelu": op_gelu, "Erf": op_erf,
    "HardSwish": op_hardswish, "HardSigmoid": op_hardsigmoid, "Softmax": op_softmax,
    "LayerNormalization": op_layernormalization,
    "BatchNormalization": op_batchnormalization, "MaxPool": op_maxpool,
    "AveragePool": op_averagepool, "GlobalAveragePool": op_globalaveragepool,
    "Flatten": op_flatten, "Reshape": op_reshape, "Squeeze": op_squeeze,
    "Unsqueeze": op_unsqueeze, "Transpose": op_transpose, "Concat": op_concat,
    "Split": op_split, "Slice": op_slice, "Gather": op_gather, "Resize": op_resize,
    "QuantizeLinear": op_quantizelinear, "DequantizeLinear": op_dequantizelinear,
    "Pad": op_pad, "ReduceMean": op_reducemean, "Constant": op_constant,
    "Identity": op_identity, "Dropout": op_dropout,
}


def run(model, feeds):
    """Evaluate model (a ModelProto or a path) on feeds ({input name:
    array}); every tensor of the graph by name, floats as float64."""
    if not isinstance(model, onnx.ModelProto):
        model = onnx.load(model)
    opset = 1
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            opset = o.version
    g = model.graph
    env = {}
    for t in g.initializer:
        env[t.name] = _value(numpy_helper.to_array(t))
    for vi in g.input:
        if vi.name in feeds:
            env[vi.name] = _value(feeds[vi.name])
        elif vi.name not in env:
            raise ValueError("onnxref: graph input '%s' not fed" % vi.name)
    for k in feeds:
        if not any(vi.name == k for vi in g.input):
            raise ValueError("onnxref: '%s' is not a graph input" % k)
    for p in g.node:
        if p.domain not in ("", "ai.onnx"):
            raise NotImplementedError("onnxref: node '%s' (%s): domain '%s'"
                                      % (p.name, p.op_type, p.domain))
        fn = OPS.get(p.op_type)
        if fn is None:
            raise NotImplementedError("onnxref: node '%s': operator %s (opset %d) is not "
                                      "implemented" % (p.name, p.op_type, opset))
        for i in p.input:
            if i and i not in env:
                raise ValueError("onnxref: node '%s' (%s) reads '%s', which nothing before "
                                 "it produces" % (p.name, p.op_type, i))
        ins = [env[i] if i else None for i in p.input]
        n = Node(p, ins, opset)
        out = fn(n, *ins)
        if not isinstance(out, tuple):
            out = (out,)
        for name, v in zip(p.output, out):
            if name:
                env[name] = v
    return env
