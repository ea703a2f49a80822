"""Tests of onnxref (the NumPy ONNX evaluator) against hand-computed values
and explicit loops, and of the model generators (workloads/models/gen.py,
tests/models/gen_small.py) that the model tests evaluate with it."""
import math
import os
import sys

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import onnxref

TREE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TREE, "workloads", "models"))
sys.path.insert(0, os.path.join(TREE, "tests", "models"))
import gen  # noqa: E402
import gen_small  # noqa: E402


def node1(op, ins, opset=13, n_out=1, **attrs):
    """Run one op node: ins are arrays (initializers i0, i1...) or None for
    an absent optional input; its outputs (one array, or a list)."""
    names, inits = [], []
    for k, a in enumerate(ins):
        if a is None:
            names.append("")
        else:
            names.append("i%d" % k)
            inits.append(numpy_helper.from_array(np.asarray(a), "i%d" % k))
    outs = ["o%d" % k for k in range(n_out)]
    g = helper.make_graph([helper.make_node(op, names, outs, name="n", **attrs)], "t", [],
                          [helper.make_empty_tensor_value_info(o) for o in outs],
                          initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    env = onnxref.run(m, {})
    return env[outs[0]] if n_out == 1 else [env[o] for o in outs]


def conv_loop(x, w, b, stride, dil, pads, group):
    """2-D convolution straight from its definition, one MAC at a time."""
    N, C, H, W = x.shape
    M, Cg, KH, KW = w.shape
    pt, pl, pb, pr = pads
    OH = (H + pt + pb - dil[0] * (KH - 1) - 1) // stride[0] + 1
    OW = (W + pl + pr - dil[1] * (KW - 1) - 1) // stride[1] + 1
    y = np.zeros((N, M, OH, OW))
    mg = M // group
    for n in range(N):
        for m in range(M):
            g = m // mg
            for oy in range(OH):
                for ox in range(OW):
                    acc = b[m] if b is not None else 0.0
                    for c in range(Cg):
                        for i in range(KH):
                            for j in range(KW):
                                iy = oy * stride[0] - pt + i * dil[0]
                                ix = ox * stride[1] - pl + j * dil[1]
                                if 0 <= iy < H and 0 <= ix < W:
                                    acc += x[n, g * Cg + c, iy, ix] * w[m, c, i, j]
                    y[n, m, oy, ox] = acc
    return y


# ---- convolution ------------------------------------------------------------
@pytest.mark.parametrize("C,M,group,k,stride,dil,pads", [
    (3, 4, 1, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1)),
    (4, 6, 2, (3, 2), (2, 1), (1, 2), (1, 0, 2, 1)),     # groups, asymmetric everything
    (5, 5, 5, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1)),     # depthwise
    (4, 8, 4, (1, 1), (1, 1), (1, 1), (0, 0, 0, 0)),     # grouped 1x1, 2 per group
    (2, 3, 1, (2, 3), (1, 2), (2, 1), (0, 1, 0, 1)),
])
def test_conv_matches_loop(C, M, group, k, stride, dil, pads):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, C, 7, 6))
    w = rng.standard_normal((M, C // group, *k))
    b = rng.standard_normal(M)
    y = node1("Conv", [x, w, b], kernel_shape=list(k), strides=list(stride),
              dilations=list(dil), pads=list(pads), group=group)
    np.testing.assert_allclose(y, conv_loop(x, w, b, stride, dil, pads, group), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("auto_pad,stride,want_pads", [
    ("SAME_UPPER", 1, (1, 1, 1, 1)),       # total 2, split evenly
    ("SAME_UPPER", 2, (0, 0, 1, 1)),       # 8 -> 4: total 1, extra at the end
    ("SAME_LOWER", 2, (1, 1, 0, 0)),       # ... at the start
    ("VALID", 2, (0, 0, 0, 0)),
])
def test_conv_auto_pad(auto_pad, stride, want_pads):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 2, 8, 8))
    w = rng.standard_normal((3, 2, 3, 3))
    y = node1("Conv", [x, w], auto_pad=auto_pad, strides=[stride, stride])
    want = conv_loop(x, w, None, (stride, stride), (1, 1), want_pads, 1)
    assert y.shape == want.shape
    if auto_pad.startswith("SAME"):
        assert y.shape[2] == 8 // stride
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)


def test_conv_hand_value():
    """A 1x1x3x3 input of 1..9 under a 2x2 kernel of ones: window sums."""
    x = np.arange(1, 10, dtype=np.float64).reshape(1, 1, 3, 3)
    y = node1("Conv", [x, np.ones((1, 1, 2, 2))])
    np.testing.assert_array_equal(y[0, 0], [[12, 16], [24, 28]])


# ---- pooling ----------------------------------------------------------------
def test_maxpool_basic_and_dilation():
    x = np.arange(16, dtype=np.float64).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(node1("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])[0, 0],
                                  [[5, 7], [13, 15]])
    # dilation 2: each window is x[i, j], x[i, j+2], x[i+2, j], x[i+2, j+2]
    y = node1("MaxPool", [x], kernel_shape=[2, 2], dilations=[2, 2])
    np.testing.assert_array_equal(y[0, 0], [[10, 11], [14, 15]])


def test_maxpool_ceil_mode_and_pads():
    x = np.arange(25, dtype=np.float64).reshape(1, 1, 5, 5)
    y = node1("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)
    np.testing.assert_array_equal(y[0, 0], [[6, 8, 9], [16, 18, 19], [21, 23, 24]])
    assert node1("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2]).shape == (1, 1, 2, 2)
    # padding never wins a max, even over negative values
    y = node1("MaxPool", [-np.ones((1, 1, 2, 2))], kernel_shape=[2, 2], pads=[1, 1, 1, 1])
    np.testing.assert_array_equal(y, -np.ones((1, 1, 3, 3)))
    # ceil_mode never starts a window in the trailing padding: 4 + pad 1,
    # k 2, s 2 gives 3, not 4 (PyTorch's and ONNX Runtime's rule)
    y = node1("MaxPool", [np.ones((1, 1, 4, 4))], kernel_shape=[2, 2], strides=[2, 2],
              pads=[1, 1, 1, 1], ceil_mode=1)
    assert y.shape == (1, 1, 3, 3)


def test_averagepool_count_include_pad():
    x = np.ones((1, 1, 3, 3))
    y0 = node1("AveragePool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    np.testing.assert_array_equal(y0, np.ones((1, 1, 3, 3)))
    y1 = node1("AveragePool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)
    np.testing.assert_allclose(y1[0, 0], [[4 / 9, 6 / 9, 4 / 9], [6 / 9, 1, 6 / 9],
                                          [4 / 9, 6 / 9, 4 / 9]])
    # the part of a ceil_mode window past the padded input never counts
    y2 = node1("AveragePool", [np.ones((1, 1, 5, 5))], kernel_shape=[2, 2], strides=[2, 2],
               ceil_mode=1, count_include_pad=1)
    np.testing.assert_array_equal(y2, np.ones((1, 1, 3, 3)))
    x = np.arange(16, dtype=np.float64).reshape(1, 1, 4, 4)
    y = node1("AveragePool", [x], kernel_shape=[2, 2], strides=[2, 2])
    np.testing.assert_array_equal(y[0, 0], [[2.5, 4.5], [10.5, 12.5]])


def test_global_average_pool():
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 5))
    y = node1("GlobalAveragePool", [x])
    assert y.shape == (2, 3, 1, 1)
    np.testing.assert_allclose(y[1, 2, 0, 0], x[1, 2].sum() / 20)


# ---- matrix products --------------------------------------------------------
def test_gemm_and_matmul():
    rng = np.random.default_rng(4)
    a, b, c = rng.standard_normal((4, 3)), rng.standard_normal((5, 4)), rng.standard_normal(5)
    y = node1("Gemm", [a, b, c], transA=1, transB=1, alpha=2.0, beta=0.5)
    np.testing.assert_allclose(y, 2 * a.T @ b.T + 0.5 * c)
    y = node1("Gemm", [a.T, b.T])
    np.testing.assert_allclose(y, a.T @ b.T)
    # MatMul broadcasts leading dims: (2, 1, 3, 4) x (5, 4, 2) -> (2, 5, 3, 2)
    x, w = rng.standard_normal((2, 1, 3, 4)), rng.standard_normal((5, 4, 2))
    y = node1("MatMul", [x, w])
    assert y.shape == (2, 5, 3, 2)
    np.testing.assert_allclose(y[1, 3], x[1, 0] @ w[3])


# ---- elementwise ------------------------------------------------------------
def test_arithmetic():
    a, b = np.array([[1.0, -2.0, 3.0]]), np.array([[2.0], [4.0]])
    np.testing.assert_array_equal(node1("Add", [a, b]), [[3, 0, 5], [5, 2, 7]])
    np.testing.assert_array_equal(node1("Sub", [a, b]), [[-1, -4, 1], [-3, -6, -1]])
    np.testing.assert_array_equal(node1("Mul", [a, b]), [[2, -4, 6], [4, -8, 12]])
    np.testing.assert_array_equal(node1("Div", [a, b]), [[0.5, -1, 1.5], [0.25, -0.5, 0.75]])
    # integers divide toward zero
    np.testing.assert_array_equal(node1("Div", [np.array([-7, 7]), np.array([2, 2])]), [-3, 3])
    np.testing.assert_array_equal(node1("Pow", [np.array([2.0, 3.0]), np.array(3.0)]), [8, 27])
    np.testing.assert_array_equal(node1("Sqrt", [np.array([4.0, 2.25])]), [2, 1.5])


def test_clip_forms():
    x = np.array([-2.0, 0.5, 7.0])
    np.testing.assert_array_equal(node1("Clip", [x, np.array(0.0), np.array(6.0)]), [0, 0.5, 6])
    np.testing.assert_array_equal(node1("Clip", [x, None, np.array(1.0)]), [-2, 0.5, 1])
    np.testing.assert_array_equal(node1("Clip", [x, np.array(0.0)]), [0, 0.5, 7])
    # opset 6: bounds as attributes
    np.testing.assert_array_equal(node1("Clip", [x], opset=6, min=-1.0, max=1.0), [-1, 0.5, 1])


def test_activations():
    x = np.array([-1000.0, -3.0, 0.0, 1.0, 3.0, 1000.0])
    with np.errstate(over="raise"):     # no overflow at the extremes
        s = node1("Sigmoid", [x])
    np.testing.assert_allclose(s, [0, 1 / (1 + math.exp(3)), 0.5, 1 / (1 + math.exp(-1)),
                                   1 / (1 + math.exp(-3)), 1])
    np.testing.assert_array_equal(node1("Relu", [x]), [0, 0, 0, 1, 3, 1000])
    np.testing.assert_allclose(node1("Tanh", [x]), np.tanh(x))
    np.testing.assert_allclose(node1("HardSwish", [x]), [0, 0, 0, 1 * 4 / 6, 3, 1000])
    np.testing.assert_allclose(node1("HardSigmoid", [x]), [0, 0, 0.5, 0.7, 1, 1])
    np.testing.assert_allclose(node1("HardSigmoid", [np.array([1.0])], alpha=0.5, beta=0.25),
                               [0.75])


def test_erf_and_gelu():
    e = node1("Erf", [np.array([0.0, 1.0, -0.5, 5.0])])
    np.testing.assert_allclose(e, [0, 0.8427007929497149, -0.5204998778130465,
                                   0.9999999999984626], rtol=1e-15)
    # Phi(1) = 0.8413447460685429; the tanh form is 0.8411919906082768
    g = node1("Gelu", [np.array([1.0, 0.0, -1.0])], opset=20)
    np.testing.assert_allclose(g, [0.8413447460685429, 0, -1 + 0.8413447460685429], rtol=1e-14)
    g = node1("Gelu", [np.array([1.0])], opset=20, approximate="tanh")
    np.testing.assert_allclose(g, [0.8411919906082768], rtol=1e-14)


# ---- normalisation ----------------------------------------------------------
def test_softmax():
    x = np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, 1000.0]])
    y = node1("Softmax", [x])
    e = np.exp([1.0, 2.0, 3.0])
    np.testing.assert_allclose(y[0], e / e.sum())
    np.testing.assert_allclose(y[1], [1 / 3] * 3)     # no overflow
    x = np.random.default_rng(5).standard_normal((2, 3, 4))
    np.testing.assert_allclose(node1("Softmax", [x], axis=1).sum(axis=1), np.ones((2, 4)))
    # opsets below 13: one softmax over everything from axis on
    y = node1("Softmax", [x], opset=11, axis=1)
    np.testing.assert_allclose(y.sum(axis=(1, 2)), [1, 1])
    e = np.exp(x[0] - x[0].max())
    np.testing.assert_allclose(y[0], e / e.sum())


def test_layernormalization():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 5, 8)) * 3 + 1
    y, mean, inv = node1("LayerNormalization", [x, np.ones(8), np.zeros(8)], opset=17, n_out=3)
    np.testing.assert_allclose(y.mean(axis=-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=-1), x.var(axis=-1) / (x.var(axis=-1) + 1e-5))
    np.testing.assert_allclose(mean[..., 0], x.mean(axis=-1))
    assert inv.shape == (2, 5, 1)
    s, b = rng.standard_normal(8), rng.standard_normal(8)
    y2 = node1("LayerNormalization", [x, s, b], opset=17, epsilon=0.0)
    n = (x - x.mean(-1, keepdims=True)) / x.std(-1, keepdims=True)
    np.testing.assert_allclose(y2, n * s + b, rtol=1e-12, atol=1e-12)
    # axis 1: over the last two axes together
    y3 = node1("LayerNormalization", [x, np.ones((5, 8))], opset=17, axis=1)
    np.testing.assert_allclose(y3.mean(axis=(1, 2)), 0, atol=1e-12)


def test_batchnormalization():
    x = np.array([1.0, 2.0]).reshape(1, 2, 1, 1)
    y = node1("BatchNormalization", [x, np.array([2.0, 3.0]), np.array([0.5, -1.0]),
                                     np.array([1.0, 0.0]), np.array([4.0, 1.0])], epsilon=0.0)
    # 2 (1 - 1) / 2 + 0.5 and 3 (2 - 0) / 1 - 1
    np.testing.assert_array_equal(y.reshape(-1), [0.5, 5.0])


def test_reducemean():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    np.testing.assert_array_equal(node1("ReduceMean", [x], axes=[-1]), x.mean(-1, keepdims=True))
    # mean over i, k of 12 i + 4 j + k: 6 + 4 j + 1.5
    np.testing.assert_array_equal(node1("ReduceMean", [x], axes=[0, 2], keepdims=0),
                                  [7.5, 11.5, 15.5])
    np.testing.assert_array_equal(node1("ReduceMean", [x]), [[[11.5]]])
    np.testing.assert_array_equal(node1("ReduceMean", [x, np.array([1])], opset=18),
                                  x.mean(1, keepdims=True))


# ---- shapes and data movement -----------------------------------------------
def test_shape_ops():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    assert node1("Reshape", [x, np.array([0, -1])]).shape == (2, 12)
    assert node1("Reshape", [x, np.array([4, 3, 2])]).shape == (4, 3, 2)
    assert node1("Flatten", [x], axis=0).shape == (1, 24)
    assert node1("Flatten", [x], axis=-1).shape == (6, 4)
    assert node1("Flatten", [x]).shape == (2, 12)
    y = np.zeros((1, 3, 1, 2))
    assert node1("Squeeze", [y]).shape == (3, 2)
    assert node1("Squeeze", [y, np.array([2])]).shape == (1, 3, 2)
    assert node1("Squeeze", [y], opset=11, axes=[0]).shape == (3, 1, 2)
    z = np.zeros((2, 3))
    assert node1("Unsqueeze", [z, np.array([0, -1])]).shape == (1, 2, 3, 1)
    assert node1("Unsqueeze", [z], opset=11, axes=[1]).shape == (2, 1, 3)
    np.testing.assert_array_equal(node1("Transpose", [x]), x.T)
    np.testing.assert_array_equal(node1("Transpose", [x], perm=[1, 0, 2]), x.transpose(1, 0, 2))
    c = node1("Concat", [x, x[:, :, :1]], axis=-1)
    assert c.shape == (2, 3, 5)
    np.testing.assert_array_equal(c[:, :, 4], x[:, :, 0])


def test_split():
    x = np.arange(6, dtype=np.float64)
    a, b = node1("Split", [x, np.array([2, 4])], n_out=2)
    np.testing.assert_array_equal(a, [0, 1])
    np.testing.assert_array_equal(b, [2, 3, 4, 5])
    a, b = node1("Split", [x], opset=11, n_out=2, split=[5, 1])
    np.testing.assert_array_equal(b, [5])
    parts = node1("Split", [x.reshape(1, 6)], n_out=3, axis=1)
    np.testing.assert_array_equal(parts[2], [[4, 5]])


@pytest.mark.parametrize("starts,ends,steps,want", [
    ([2], [1000], [1], [2, 3, 4, 5, 6, 7, 8, 9]),
    ([-1], [-2 ** 63], [-1], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
    ([0], [10], [3], [0, 3, 6, 9]),
    ([-3], [-1], [1], [7, 8]),
    ([8], [2], [-2], [8, 6, 4]),
    ([5], [2], [1], []),
    # the specification's clamping going backward: start to 0, end to -1
    ([-100], [-200], [-1], [0]),
])
def test_slice_1d(starts, ends, steps, want):
    x = np.arange(10, dtype=np.float64)
    y = node1("Slice", [x, np.array(starts), np.array(ends), np.array([0]), np.array(steps)])
    np.testing.assert_array_equal(y, want)


def test_slice_axes_and_old_form():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    y = node1("Slice", [x, np.array([1, 1]), np.array([3, 100]), np.array([2, -2])])
    np.testing.assert_array_equal(y, x[:, 1:, 1:3])
    y = node1("Slice", [x], opset=9, starts=[0], ends=[1], axes=[0])
    np.testing.assert_array_equal(y, x[:1])


def test_gather():
    data = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = node1("Gather", [data, np.array([[0, -1]])])
    np.testing.assert_array_equal(y, [[[1, 2], [5, 6]]])
    y = node1("Gather", [data, np.array([1])], axis=1)
    np.testing.assert_array_equal(y, [[2], [4], [6]])


def test_resize_nearest():
    x = np.array([[1.0, 2.0], [3.0, 4.0]]).reshape(1, 1, 2, 2)
    want = [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]]
    s2 = np.array([1, 1, 2, 2], dtype=np.float32)
    for ctm in ("asymmetric", "half_pixel", "pytorch_half_pixel"):
        y = node1("Resize", [x, None, s2], mode="nearest", coordinate_transformation_mode=ctm,
                  nearest_mode="floor" if ctm == "asymmetric" else "round_prefer_floor")
        np.testing.assert_array_equal(y[0, 0], want)
    # half_pixel, scale 3: sources (o + 0.5) / 3 - 0.5 round to 0,0,0,1,1,1
    y = node1("Resize", [x, None, None, np.array([1, 1, 2, 6])], mode="nearest")
    np.testing.assert_array_equal(y[0, 0, 0], [1, 1, 1, 2, 2, 2])
    # asymmetric, scale 1.5: sources 0, 0.67, 1.33
    s = np.array([1, 1, 1, 1.5], dtype=np.float32)
    y = node1("Resize", [x, None, s], mode="nearest", coordinate_transformation_mode="asymmetric",
              nearest_mode="floor")
    np.testing.assert_array_equal(y[0, 0, 0], [1, 1, 2])
    y = node1("Resize", [x, None, s], mode="nearest", coordinate_transformation_mode="asymmetric")
    np.testing.assert_array_equal(y[0, 0, 0], [1, 2, 2])
    with pytest.raises(NotImplementedError, match="mode 'linear'"):
        node1("Resize", [x, None, s2], mode="linear")


def test_quantize_dequantize():
    x = np.array([0.0, 1.25, 1.5, 2.5, -2.5, 1000.0, -1000.0])
    s = np.array(0.5, dtype=np.float32)
    # x / 0.5 = 0, 2.5, 3, 5, -5, 2000, -2000: half to even, then saturate
    q = node1("QuantizeLinear", [x, s, np.array(10, dtype=np.uint8)])
    assert q.dtype == np.uint8
    np.testing.assert_array_equal(q, [10, 12, 13, 15, 5, 255, 0])
    q = node1("QuantizeLinear", [x, s, np.array(0, dtype=np.int8)])
    assert q.dtype == np.int8
    np.testing.assert_array_equal(q, [0, 2, 3, 5, -5, 127, -128])
    q = node1("QuantizeLinear", [x, s])      # no zero point: uint8
    np.testing.assert_array_equal(q, [0, 2, 3, 5, 0, 255, 0])
    d = node1("DequantizeLinear", [np.array([-128, 0, 127], dtype=np.int8), s,
                                   np.array(-1, dtype=np.int8)])
    np.testing.assert_array_equal(d, [-63.5, 0.5, 64])
    # per-channel along axis 1
    x2 = np.ones((1, 2, 2))
    q = node1("QuantizeLinear", [x2, np.array([0.5, 0.25], dtype=np.float32),
                                 np.array([0, 1], dtype=np.int8)], axis=1)
    np.testing.assert_array_equal(q[0], [[2, 2], [5, 5]])


def test_pad():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    y = node1("Pad", [x, np.array([1, 0, 0, 2]), np.array(9.0)])
    np.testing.assert_array_equal(y, [[9, 9, 9, 9], [1, 2, 9, 9], [3, 4, 9, 9]])
    y = node1("Pad", [x, np.array([0, 1, 0, 1])], mode="reflect")
    np.testing.assert_array_equal(y, [[2, 1, 2, 1], [4, 3, 4, 3]])
    y = node1("Pad", [x, np.array([0, 1, 0, 0])], mode="edge")
    np.testing.assert_array_equal(y, [[1, 1, 2], [3, 3, 4]])
    y = node1("Pad", [x], opset=2, pads=[0, 0, 1, 0], value=-1.0)
    np.testing.assert_array_equal(y, [[1, 2], [3, 4], [-1, -1]])
    y = node1("Pad", [x, np.array([0, -1, 0, 0])])           # negative pads crop
    np.testing.assert_array_equal(y, [[2], [4]])


def test_constant_identity_dropout():
    t = numpy_helper.from_array(np.array([1.5, 2.5], dtype=np.float32))
    np.testing.assert_array_equal(node1("Constant", [], value=t), [1.5, 2.5])
    np.testing.assert_array_equal(node1("Constant", [], value_ints=[3, 4]), [3, 4])
    assert node1("Constant", [], value_float=0.25) == 0.25
    x = np.arange(3.0)
    np.testing.assert_array_equal(node1("Identity", [x]), x)
    y, mask = node1("Dropout", [x, np.array(0.5)], n_out=2)
    np.testing.assert_array_equal(y, x)
    assert mask.dtype == bool and mask.all()


# ---- whole graphs -----------------------------------------------------------
def two_node_model(op2="Relu"):
    g = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["t"], name="mul"),
         helper.make_node(op2, ["t"], ["y"], name="second")],
        "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [3])],
        initializer=[numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def test_run_returns_every_tensor(tmp_path):
    p = str(tmp_path / "m.onnx")
    onnx.save(two_node_model(), p)
    env = onnxref.run(p, {"x": np.array([-1, 0.5, 2], dtype=np.float32)})
    assert set(env) == {"x", "two", "t", "y"}
    assert env["t"].dtype == np.float64      # computed in float64
    np.testing.assert_array_equal(env["t"], [-2, 1, 4])
    np.testing.assert_array_equal(env["y"], [0, 1, 4])


def test_run_errors():
    m = two_node_model("LSTM")
    with pytest.raises(NotImplementedError, match="node 'second'.*LSTM.*opset 13"):
        onnxref.run(m, {"x": np.zeros(3)})
    with pytest.raises(ValueError, match="'x' not fed"):
        onnxref.run(two_node_model(), {})
    with pytest.raises(ValueError, match="'z' is not a graph input"):
        onnxref.run(two_node_model(), {"x": np.zeros(3), "z": np.zeros(3)})


# ---- the small test models --------------------------------------------------
@pytest.fixture(scope="module")
def small(tmp_path_factory):
    d = tmp_path_factory.mktemp("small")
    assert gen_small.main([str(d)]) == 0
    return d


def small_run(d, name):
    return onnxref.run(str(d / (name + ".onnx")), {"x": np.load(d / (name + ".x.npy"))})


def test_small_models_evaluate(small):
    for n in ("tiny_cnn", "tiny_mbv2", "tiny_mlp", "tiny_attn", "tiny_attn_ln17"):
        y = small_run(small, n)["y"]
        assert np.all(np.isfinite(y)) and 0.3 < y.std() < 3, n


def test_small_models_deterministic(small, tmp_path):
    assert gen_small.main([str(tmp_path)]) == 0
    names = sorted(os.listdir(small))
    assert names == sorted(os.listdir(tmp_path))
    assert len([n for n in names if n.endswith(".onnx")]) == len(gen_small.MODELS)
    for n in names:
        assert (small / n).read_bytes() == (tmp_path / n).read_bytes(), n


def test_tiny_mlp_by_hand(small):
    env = small_run(small, "tiny_mlp")
    w = {k: v for k, v in env.items() if "." in k}
    x = env["x"]
    h = x @ w["fc1.weight"] + w["fc1.bias"]
    # the pattern divides by sqrt(2) rounded to float32, as exports do
    g = 0.5 * h * (1 + np.vectorize(math.erf)(h / float(np.float32(math.sqrt(2)))))
    np.testing.assert_allclose(env["y"], g @ w["fc2.weight"] + w["fc2.bias"] + x, rtol=1e-12,
                               atol=1e-12)


def test_tiny_attn_by_hand(small):
    env = small_run(small, "tiny_attn")
    x = env["x"][0]
    q, k, v = (x @ env[p + ".weight"] + env[p + ".bias"] for p in "qkv")
    s = q @ k.T / math.sqrt(32)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    r = (p @ v) @ env["out.weight"] + env["out.bias"] + x
    n = (r - r.mean(-1, keepdims=True)) / np.sqrt(r.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(env["y"][0], n * env["ln.weight"] + env["ln.bias"], rtol=1e-6,
                               atol=1e-9)
    # the opset-17 LayerNormalization op gives the decomposed pattern's values
    np.testing.assert_allclose(small_run(small, "tiny_attn_ln17")["y"], env["y"], rtol=1e-12,
                               atol=1e-12)


def test_error_models(small):
    for n, what in (("err_unsupported_op", "LSTM"), ("err_resize_linear", "Resize"),
                    ("err_opset9", None)):
        m = onnx.load(str(small / (n + ".onnx")))
        onnx.checker.check_model(m)          # valid ONNX: the error is npusim's
        if what:
            assert what in [nd.op_type for nd in m.graph.node]
        else:
            assert m.opset_import[0].version == 9
    with pytest.raises(NotImplementedError, match="LSTM"):
        small_run(small, "err_unsupported_op")
    with pytest.raises(NotImplementedError, match="linear"):
        small_run(small, "err_resize_linear")
    data = (small / "err_truncated.onnx").read_bytes()
    assert 0 < len(data) < len((small / "tiny_cnn.onnx").read_bytes())
    with pytest.raises(Exception):
        onnx.load_from_string(data)


# ---- the bundled workloads --------------------------------------------------
class Opts:
    layernorm = "decomposed"
    mask_input = False
    layers = 1
    vocab = 0
    rmsnorm = False


def attr(node, name):
    return next(helper.get_attribute_value(a) for a in node.attribute if a.name == name)


def n_params(m):
    """Learned parameters: float initializers but BN running statistics,
    BERT's constant mask and the scalars (0-d) of the patterns."""
    return sum(int(np.prod(t.dims)) for t in m.graph.initializer
               if t.data_type == onnx.TensorProto.FLOAT and len(t.dims)
               and not t.name.endswith(("running_mean", "running_var", "attention_mask")))


def test_resnet50_structure():
    m = gen.resnet50(Opts)
    ops = [n.op_type for n in m.graph.node]
    assert ops.count("Conv") == 53 and ops.count("BatchNormalization") == 53
    assert ops.count("Add") == 16 and ops.count("Gemm") == 1
    assert n_params(m) == 25557032          # torchvision resnet50
    # v1.5: the stride-2 convolutions are the 3x3s (and the shortcuts)
    s2 = [n.name for n in m.graph.node if n.op_type == "Conv" and attr(n, "strides") == [2, 2]]
    assert s2 == ["/conv1/Conv", "/layer2.0.conv2/Conv", "/layer2.0.downsample.0/Conv",
                  "/layer3.0.conv2/Conv", "/layer3.0.downsample.0/Conv",
                  "/layer4.0.conv2/Conv", "/layer4.0.downsample.0/Conv"]
    assert "He, Zhang, Ren, Sun" in m.doc_string


def test_mobilenetv2_values():
    m = gen.mobilenetv2(Opts)
    assert n_params(m) == 3504872           # torchvision mobilenet_v2
    ops = [n.op_type for n in m.graph.node]
    assert ops.count("Add") == 10 and ops.count("Clip") == 35
    dw = [n for n in m.graph.node if n.op_type == "Conv" and attr(n, "group") > 1]
    assert len(dw) == 17
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224))
    env = onnxref.run(m, {"input": x})
    for n in m.graph.node:
        if n.op_type in ("Add", "Gemm"):
            assert 0.5 < env[n.output[0]].std() < 3, n.name


def test_bert_layer_forms_agree():
    """The decomposed LayerNorm and opset 17's op give the same layer, its
    activations of order one; 7,087,872 parameters per BERT-base layer."""
    m = gen.bert_layer(Opts)
    assert n_params(m) == 7087872
    assert "Devlin" in m.doc_string and m.opset_import[0].version == 13

    class Op(Opts):
        layernorm = "op"
    m17 = gen.bert_layer(Op)
    assert m17.opset_import[0].version == 17
    x = np.random.default_rng(1).standard_normal((1, 128, 768))
    y = onnxref.run(m, {"hidden_states": x})["output"]
    np.testing.assert_allclose(onnxref.run(m17, {"hidden_states": x})["output"], y,
                               rtol=1e-9, atol=1e-9)
    assert 0.8 < y.std() < 1.2


def test_gpt2_decode(tmp_path):
    class O(Opts):
        layers = 2
        vocab = 100
    m = gen.gpt2_decode(O)
    # GPT-2's count: V*768 + 1024*768 + layers * 7,087,872 + ln_f
    assert n_params(m) == 100 * 768 + 1024 * 768 + 2 * 7087872 + 1536
    assert [o.name for o in m.graph.output] == ["logits", "present_key_0", "present_value_0",
                                                "present_key_1", "present_value_1"]
    rng = np.random.default_rng(2)
    feeds = {"input_ids": np.array([[7]])}
    for i in range(2):
        for kv in ("key", "value"):
            feeds["past_%s_%d" % (kv, i)] = rng.standard_normal((1, 12, 127, 64))
    env = onnxref.run(m, feeds)
    assert env["logits"].shape == (1, 100) and 0.3 < env["logits"].std() < 3
    np.testing.assert_array_equal(env["present_key_1"][:, :, :127], feeds["past_key_1"])
    # the bundled default: one layer, hidden state in and out, same bytes twice
    assert gen.main(["-q", str(tmp_path / "a"), "gpt2_decode"]) == 0
    assert gen.main(["-q", str(tmp_path / "b"), "gpt2_decode"]) == 0
    a = (tmp_path / "a" / "gpt2_decode.onnx").read_bytes()
    assert a == (tmp_path / "b" / "gpt2_decode.onnx").read_bytes()
    m1 = onnx.load_from_string(a)
    assert [i.name for i in m1.graph.input] == ["hidden_states", "past_key_0", "past_value_0"]
    assert "Radford" in m1.doc_string and "1 decoder layer" in m1.doc_string
