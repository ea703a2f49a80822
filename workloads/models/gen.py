#!/usr/bin/python3
"""gen.py - the bundled workloads as ONNX models, generated, never downloaded.

    /usr/bin/python3 workloads/models/gen.py OUTDIR [name...] [options]

writes OUTDIR/<name>.onnx for each name (all of them when none is given):
resnet50, mobilenetv2, bert_layer, gpt2_decode, llama_mlp.  Each model has
the layer structure its paper and the usual PyTorch export give it, and
random weights from a fixed seed (SEEDS below), scaled so activations stay
of order one; the same options always give the same bytes.  Files are
written to a temporary name and renamed.  workloads/models/README.md lists
the sources, sizes and generation times.

Options (defaults are what `make models` builds):
  --layernorm decomposed|op  BERT/GPT-2 LayerNorm as the ReduceMean/Sub/Pow/
                             Sqrt/Div pattern of an opset-13 export (default)
                             or as opset 17's LayerNormalization op
  --mask-input               BERT's additive attention mask as a graph input
                             (default: a constant zero, every token visible)
  --layers N                 GPT-2 decoder layers (default 1; see README)
  --vocab V                  GPT-2 with its token embedding (Gather), position
                             embedding and tied LM head over V tokens (50257
                             for GPT-2); default 0: hidden state in and out
  --rmsnorm                  the Llama block with its RMSNorm in front
                             (decomposed; default: the MLP alone)
"""
import argparse
import math
import os
import sys
import time

# onnxbuild first: it says what to install when NumPy or onnx is missing
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnxbuild import Builder, check, die, write_atomic  # noqa: E402
import numpy as np  # noqa: E402
from onnx import TensorProto  # noqa: E402

# One seed per model: changing one model never changes another's bytes.
SEEDS = {"resnet50": 50, "mobilenetv2": 2, "bert_layer": 768, "gpt2_decode": 124,
         "llama_mlp": 7}
OPSET = 13              # the opset of a typical torch.onnx export
OPSET_LN = 17           # the first with LayerNormalization


# ---- shared pieces -----------------------------------------------------------
def conv(b, x, path, cin, cout, k, stride=1, pad=0, group=1):
    """Conv of the module at path ("layer1.0.conv1": node
    "/layer1.0.conv1/Conv", weight "layer1.0.conv1.weight"), without bias
    (a BatchNormalization follows).  He-initialised: std sqrt(2 / fan_in)
    keeps the output variance that of the input in a ReLU network (He et
    al. 2015, "Delving Deep into Rectifiers")."""
    fan_in = cin // group * k * k
    w = b.normal(path + ".weight", (cout, cin // group, k, k), math.sqrt(2.0 / fan_in))
    return b.node("Conv", [x, w], "/" + path, kernel_shape=[k, k], strides=[stride, stride],
                  pads=[pad] * 4, dilations=[1, 1], group=group)


def bn(b, x, path, c, gamma=(0.8, 1.0)):
    """Inference BatchNormalization with random statistics: running mean
    near zero, running variance in [0.8, 1.2] (positive), scale uniform in
    gamma.  The ranges were chosen by measuring activations with
    tests/python/onnxref.py on a N(0, 1) input: they keep every Add's
    output std between 0.5 and 3 (README.md); a wider variance range
    raises E[1/var] and the activations then grow block by block."""
    s = b.uniform(path + ".weight", (c,), *gamma)
    bias = b.normal(path + ".bias", (c,), 0.1)
    mean = b.normal(path + ".running_mean", (c,), 0.1)
    var = b.uniform(path + ".running_var", (c,), 0.8, 1.2)
    return b.node("BatchNormalization", [x, s, bias, mean, var], "/" + path, epsilon=1e-5,
                  momentum=0.9)


def linear(b, x, scope, pname, din, dout, bias=True):
    """torch.nn.Linear as exported: MatMul by the transposed weight (an
    initializer of din x dout) and an Add of the bias.  LeCun-scaled
    (std 1/sqrt(din)) so the output variance is the input's."""
    w = b.normal(pname + ".weight", (din, dout), 1.0 / math.sqrt(din))
    y = b.node("MatMul", [x, w], scope)
    if bias:
        y = b.node("Add", [y, b.normal(pname + ".bias", (dout,), 0.02)], scope)
    return y


def layernorm(b, x, scope, pname, d, eps, form):
    """LayerNorm over the last axis, with scale near 1 and bias near 0:
    as opset 17's op, or as the pattern torch.onnx exports before it
    (mean, centred, squared, mean, + eps, sqrt, divide, scale, shift)."""
    g = b.uniform(pname + ".weight", (d,), 0.8, 1.2)
    beta = b.normal(pname + ".bias", (d,), 0.05)
    if form == "op":
        return b.node("LayerNormalization", [x, g, beta], scope, axis=-1, epsilon=eps)
    mean = b.node("ReduceMean", [x], scope, axes=[-1], keepdims=1)
    d0 = b.node("Sub", [x, mean], scope)
    sq = b.node("Pow", [d0, b.scalar(2.0)], scope)
    var = b.node("ReduceMean", [sq], scope, axes=[-1], keepdims=1)
    ve = b.node("Add", [var, b.scalar(eps)], scope)
    sd = b.node("Sqrt", [ve], scope)
    n = b.node("Div", [d0, sd], scope)
    y = b.node("Mul", [n, g], scope)
    return b.node("Add", [y, beta], scope)


def gelu_erf(b, x, scope):
    """GELU as torch.onnx exports nn.GELU(): x * (1 + erf(x / sqrt 2)) * 0.5
    (Hendrycks and Gimpel 2016)."""
    d = b.node("Div", [x, b.scalar(1.4142135381698608)], scope)
    e = b.node("Erf", [d], scope)
    a = b.node("Add", [e, b.scalar(1.0)], scope)
    m = b.node("Mul", [x, a], scope)
    return b.node("Mul", [m, b.scalar(0.5)], scope)


def gelu_tanh(b, x, scope):
    """GPT-2's gelu_new: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
    with the cube as Pow(x, 3) as the export writes it."""
    h = b.node("Mul", [x, b.scalar(0.5)], scope)
    p = b.node("Pow", [x, b.scalar(3.0)], scope)
    m = b.node("Mul", [p, b.scalar(0.044715)], scope)
    a = b.node("Add", [x, m], scope)
    s = b.node("Mul", [a, b.scalar(math.sqrt(2.0 / math.pi))], scope)
    t = b.node("Tanh", [s], scope)
    one = b.node("Add", [t, b.scalar(1.0)], scope)
    return b.node("Mul", [h, one], scope)


# ---- ResNet-50 ---------------------------------------------------------------
RESNET50_DOC = (
    "ResNet-50 (He, Zhang, Ren, Sun, 'Deep Residual Learning for Image Recognition', "
    "CVPR 2016, arXiv:1512.03385) in torchvision's v1.5 layout (stride 2 in the 3x3 "
    "convolution of a bottleneck, not the first 1x1). Input 1x3x224x224, output 1x1000 "
    "logits. BatchNormalization kept as separate nodes after each Conv, as torch.onnx "
    "exports a model in training-free form without folding. Random weights (He init, "
    "seed %d) and random BN statistics: for simulation, not for accuracy. "
    "Generated by npusim workloads/models/gen.py.")


def resnet50(opts):
    b = Builder("resnet50", SEEDS["resnet50"])
    # BN scales a little under 1: three BNs per block compound (bn())
    G = (0.7, 0.9)
    x = b.input("input", [1, 3, 224, 224])
    y = conv(b, x, "conv1", 3, 64, 7, 2, 3)
    y = bn(b, y, "bn1", 64, G)
    y = b.node("Relu", [y], "/relu")
    y = b.node("MaxPool", [y], "/maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4,
               ceil_mode=0)
    cin = 64
    for li, (planes, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2),
                                                   (512, 3, 2)], 1):
        for bi in range(blocks):
            s = stride if bi == 0 else 1
            sc = "layer%d.%d" % (li, bi)
            idt = y
            h = conv(b, y, sc + ".conv1", cin, planes, 1)
            h = bn(b, h, sc + ".bn1", planes, G)
            h = b.node("Relu", [h], "/" + sc + ".relu")
            h = conv(b, h, sc + ".conv2", planes, planes, 3, s, 1)
            h = bn(b, h, sc + ".bn2", planes, G)
            h = b.node("Relu", [h], "/" + sc + ".relu")
            h = conv(b, h, sc + ".conv3", planes, planes * 4, 1)
            # A small scale on the branch's last BN (Goyal et al. 2017 start
            # it at zero) keeps the residual sum from growing block by block.
            h = bn(b, h, sc + ".bn3", planes * 4, gamma=(0.2, 0.4))
            if bi == 0:
                idt = conv(b, y, sc + ".downsample.0", cin, planes * 4, 1, s)
                idt = bn(b, idt, sc + ".downsample.1", planes * 4, G)
            h = b.node("Add", [h, idt], "/" + sc)
            y = b.node("Relu", [h], "/" + sc + ".relu")
            cin = planes * 4
    y = b.node("GlobalAveragePool", [y], "/avgpool")
    y = b.node("Flatten", [y], "/flatten", axis=1)
    w = b.normal("fc.weight", (1000, 2048), 1.0 / math.sqrt(2048))
    bias = b.normal("fc.bias", (1000,), 0.02)
    b.node("Gemm", [y, w, bias], "/fc", outputs=["output"], alpha=1.0, beta=1.0, transB=1)
    b.output("output", [1, 1000])
    return b.model(OPSET, RESNET50_DOC % SEEDS["resnet50"])


# ---- MobileNetV2 -------------------------------------------------------------
MOBILENETV2_DOC = (
    "MobileNetV2 (Sandler, Howard, Zhu, Zhmoginov, Chen, 'MobileNetV2: Inverted Residuals "
    "and Linear Bottlenecks', CVPR 2018, arXiv:1801.04381), width 1.0, in torchvision's "
    "layout: Conv+BN+ReLU6 (Clip 0..6), inverted residual blocks (1x1 expand, 3x3 "
    "depthwise as group=C, linear 1x1 project, Add when stride 1 and channels match), "
    "1x1 conv to 1280, global average pool, classifier Gemm 1280->1000. Input "
    "1x3x224x224. Random weights (He init, seed %d) and BN statistics. Generated by "
    "npusim workloads/models/gen.py.")

# (expansion t, channels c, repeats n, stride s): the paper's Table 2.
MBV2_CFG = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
            (6, 160, 3, 2), (6, 320, 1, 1)]


def mobilenetv2(opts):
    b = Builder("mobilenetv2", SEEDS["mobilenetv2"])
    lo, hi = b.scalar(0.0), b.scalar(6.0)

    def cbr(x, path, cin, cout, k, s, group=1):
        # torchvision's Conv2dNormActivation: .0 conv, .1 BN, .2 ReLU6
        y = conv(b, x, path + ".0", cin, cout, k, s, (k - 1) // 2, group)
        y = bn(b, y, path + ".1", cout)
        return b.node("Clip", [y, lo, hi], "/" + path + ".2")

    x = b.input("input", [1, 3, 224, 224])
    y = cbr(x, "features.0", 3, 32, 3, 2)
    cin, idx = 32, 1
    for t, c, n, s in MBV2_CFG:
        for i in range(n):
            stride = s if i == 0 else 1
            sc = "features.%d.conv" % idx
            hid = cin * t
            res = stride == 1 and cin == c
            h, j = y, 0
            if t != 1:
                h = cbr(h, sc + ".%d" % j, cin, hid, 1, 1)
                j += 1
            h = cbr(h, sc + ".%d" % j, hid, hid, 3, stride, group=hid)
            h = conv(b, h, sc + ".%d" % (j + 1), hid, c, 1)
            # a small scale where a residual Add follows (as in ResNet-50)
            h = bn(b, h, sc + ".%d" % (j + 2), c, gamma=(0.2, 0.4) if res else (0.8, 1.0))
            if res:
                h = b.node("Add", [y, h], "/features.%d" % idx)
            y, cin, idx = h, c, idx + 1
    y = cbr(y, "features.%d" % idx, cin, 1280, 1, 1)
    y = b.node("GlobalAveragePool", [y], "/avgpool")
    y = b.node("Flatten", [y], "/flatten", axis=1)
    w = b.normal("classifier.1.weight", (1000, 1280), 1.0 / math.sqrt(1280))
    bias = b.normal("classifier.1.bias", (1000,), 0.02)
    b.node("Gemm", [y, w, bias], "/classifier.1", outputs=["output"], alpha=1.0,
           beta=1.0, transB=1)
    b.output("output", [1, 1000])
    return b.model(OPSET, MOBILENETV2_DOC % SEEDS["mobilenetv2"])


# ---- BERT-base encoder layer -------------------------------------------------
BERT_DOC = (
    "One BERT-base encoder layer (Devlin, Chang, Lee, Toutanova, 'BERT: Pre-training of "
    "Deep Bidirectional Transformers for Language Understanding', NAACL 2019, "
    "arXiv:1810.04805; the layer of Vaswani et al. 2017) as HuggingFace's BertLayer "
    "exports: sequence 128, hidden 768, 12 heads of 64, FFN 3072, post-LayerNorm "
    "(eps 1e-12), GELU as the Erf pattern. Input 1x128x768 hidden states; attention "
    "mask %s. LayerNorm %s. Random weights (std 1/sqrt(fan_in), seed %d). Generated by "
    "npusim workloads/models/gen.py.")


def bert_layer(opts):
    S, D, H, F = 128, 768, 12, 3072
    dh = D // H
    b = Builder("bert_layer", SEEDS["bert_layer"])
    ln = opts.layernorm
    x = b.input("hidden_states", [1, S, D])
    if opts.mask_input:
        mask = b.input("attention_mask", [1, 1, 1, S])
    else:
        mask = b.init("attention_mask", np.zeros((1, 1, 1, S), dtype=np.float32))
    heads = b.i64("shape_heads", [1, S, H, dh])
    flat = b.i64("shape_hidden", [1, S, D])
    a = "/attention/self"
    q = linear(b, x, a + "/query", "attention.self.query", D, D)
    k = linear(b, x, a + "/key", "attention.self.key", D, D)
    v = linear(b, x, a + "/value", "attention.self.value", D, D)
    q = b.node("Transpose", [b.node("Reshape", [q, heads], a)], a, perm=[0, 2, 1, 3])
    # key.transpose(-1, -2) of the heads view, one Transpose in the export
    kt = b.node("Transpose", [b.node("Reshape", [k, heads], a)], a, perm=[0, 2, 3, 1])
    v = b.node("Transpose", [b.node("Reshape", [v, heads], a)], a, perm=[0, 2, 1, 3])
    s = b.node("MatMul", [q, kt], a)
    s = b.node("Div", [s, b.scalar(math.sqrt(dh))], a)
    s = b.node("Add", [s, mask], a)
    p = b.node("Softmax", [s], a, axis=-1)
    c = b.node("MatMul", [p, v], a)
    c = b.node("Transpose", [c], a, perm=[0, 2, 1, 3])
    c = b.node("Reshape", [c, flat], a)
    o = linear(b, c, "/attention/output/dense", "attention.output.dense", D, D)
    o = b.node("Add", [o, x], "/attention/output")
    o = layernorm(b, o, "/attention/output/LayerNorm", "attention.output.LayerNorm", D,
                  1e-12, ln)
    f = linear(b, o, "/intermediate/dense", "intermediate.dense", D, F)
    f = gelu_erf(b, f, "/intermediate/intermediate_act_fn")
    f = linear(b, f, "/output/dense", "output.dense", F, D)
    f = b.node("Add", [f, o], "/output")
    y = layernorm(b, f, "/output/LayerNorm", "output.LayerNorm", D, 1e-12, ln)
    b.node("Identity", [y], "/output", outputs=["output"])
    b.output("output", [1, S, D])
    doc = BERT_DOC % ("a graph input 1x1x1x128 added to the scores" if opts.mask_input
                      else "a constant zero 1x1x1x128 (every token visible)",
                      "as opset 17's LayerNormalization" if ln == "op"
                      else "decomposed (ReduceMean/Sub/Pow/Sqrt/Div, opset 13)",
                      SEEDS["bert_layer"])
    return b.model(OPSET_LN if ln == "op" else OPSET, doc)


# ---- GPT-2 small decode step -------------------------------------------------
GPT2_DOC = (
    "A GPT-2 small decode step (Radford, Wu, Child, Luan, Amodei, Sutskever, 'Language "
    "Models are Unsupervised Multitask Learners', OpenAI 2019) as HuggingFace's GPT2Model "
    "exports it with a KV cache: ONE new token attends to 127 cached ones plus itself. "
    "%d decoder layer(s) (GPT-2 small has 12; the bundled model keeps 1 so the file stays "
    "near 28 MB instead of the ~500 MB of the full 124M parameters), hidden 768, 12 heads "
    "of 64, pre-LayerNorm (eps 1e-5, %s), fused QKV projection Split in three, Concat of "
    "past_key_i/past_value_i (1x12x127x64 inputs) with the new K/V into present_key_i/"
    "present_value_i (outputs), scores divided by 8, tanh GELU with Pow(x, 3), residual "
    "Adds, final ln_f. %s Random weights (std 1/sqrt(fan_in), seed %d). Generated by "
    "npusim workloads/models/gen.py.")


def gpt2_decode(opts):
    D, H, F, P = 768, 12, 3072, 127
    dh = D // H
    b = Builder("gpt2_decode", SEEDS["gpt2_decode"])
    ln = opts.layernorm
    if opts.vocab:
        ids = b.input("input_ids", [1, 1], TensorProto.INT64)
        # std 1/sqrt(768): the tied head then gives logits of std ~1
        # (a unit-std table would give ~28); pre-LN rescales the small
        # embeddings in every layer anyway.
        wte = b.normal("wte.weight", (opts.vocab, D), 1.0 / math.sqrt(D))
        wpe = b.normal("wpe.weight", (1024, D), 0.01)
        pos = b.init("position_ids", np.full((1, 1), P, dtype=np.int64))
        e = b.node("Gather", [wte, ids], "/wte", axis=0)
        pe = b.node("Gather", [wpe, pos], "/wpe", axis=0)
        x = b.node("Add", [e, pe], "")
    else:
        x = b.input("hidden_states", [1, 1, D])
    heads = b.i64("shape_heads", [1, 1, H, dh])
    flat = b.i64("shape_hidden", [1, 1, D])
    split = b.i64("split_qkv", [D, D, D])
    for i in range(opts.layers):
        sc, pn = "/h.%d" % i, "h.%d" % i
        pk = b.input("past_key_%d" % i, [1, H, P, dh])
        pv = b.input("past_value_%d" % i, [1, H, P, dh])
        h = layernorm(b, x, sc + "/ln_1", pn + ".ln_1", D, 1e-5, ln)
        qkv = linear(b, h, sc + "/attn/c_attn", pn + ".attn.c_attn", D, 3 * D)
        q, k, v = b.node("Split", [qkv, split], sc + "/attn", n_out=3, axis=2)
        q = b.node("Transpose", [b.node("Reshape", [q, heads], sc + "/attn")], sc + "/attn",
                   perm=[0, 2, 1, 3])
        k = b.node("Transpose", [b.node("Reshape", [k, heads], sc + "/attn")], sc + "/attn",
                   perm=[0, 2, 1, 3])
        v = b.node("Transpose", [b.node("Reshape", [v, heads], sc + "/attn")], sc + "/attn",
                   perm=[0, 2, 1, 3])
        k = b.node("Concat", [pk, k], sc + "/attn", outputs=["present_key_%d" % i], axis=2)
        v = b.node("Concat", [pv, v], sc + "/attn", outputs=["present_value_%d" % i], axis=2)
        kt = b.node("Transpose", [k], sc + "/attn", perm=[0, 1, 3, 2])
        s = b.node("MatMul", [q, kt], sc + "/attn")
        s = b.node("Div", [s, b.scalar(math.sqrt(dh))], sc + "/attn")
        # The one new token is the last position: every cached key is
        # visible, so the causal mask masks nothing and is left out.
        p = b.node("Softmax", [s], sc + "/attn", axis=-1)
        c = b.node("MatMul", [p, v], sc + "/attn")
        c = b.node("Transpose", [c], sc + "/attn", perm=[0, 2, 1, 3])
        c = b.node("Reshape", [c, flat], sc + "/attn")
        c = linear(b, c, sc + "/attn/c_proj", pn + ".attn.c_proj", D, D)
        x = b.node("Add", [x, c], sc)
        h = layernorm(b, x, sc + "/ln_2", pn + ".ln_2", D, 1e-5, ln)
        h = linear(b, h, sc + "/mlp/c_fc", pn + ".mlp.c_fc", D, F)
        h = gelu_tanh(b, h, sc + "/mlp/act")
        h = linear(b, h, sc + "/mlp/c_proj", pn + ".mlp.c_proj", F, D)
        x = b.node("Add", [x, h], sc)
        b.output("present_key_%d" % i, [1, H, P + 1, dh])
        b.output("present_value_%d" % i, [1, H, P + 1, dh])
    x = layernorm(b, x, "/ln_f", "ln_f", D, 1e-5, ln)
    if opts.vocab:
        # The LM head shares wte (tied weights): logits = h wte^T, a Gemm
        # with transB so the one initializer serves both uses.
        x = b.node("Reshape", [x, b.i64("shape_row", [1, D])], "/lm_head")
        b.node("Gemm", [x, wte], "/lm_head", outputs=["logits"], transB=1)
        b.output("logits", [1, opts.vocab])
        tail = ("Token embedding (Gather of input_ids), position embedding of position 127 "
                "and the tied LM head (Gemm with transB) over %d tokens." % opts.vocab)
    else:
        b.node("Identity", [x], "/ln_f", outputs=["output"])
        b.output("output", [1, 1, D])
        tail = ("Input and output are hidden states (1x1x768): no token embedding and no LM "
                "head (gen.py --vocab 50257 adds them).")
    # Graph outputs in a stable order: the hidden state or logits first.
    b.outputs.insert(0, b.outputs.pop())
    doc = GPT2_DOC % (opts.layers, "LayerNormalization op" if ln == "op"
                      else "decomposed pattern", tail, SEEDS["gpt2_decode"])
    return b.model(OPSET_LN if ln == "op" else OPSET, doc)


# ---- Llama MLP block ---------------------------------------------------------
LLAMA_DOC = (
    "The gated MLP block of Llama-7B (Touvron et al., 'LLaMA: Open and Efficient "
    "Foundation Language Models', 2023, arXiv:2302.13971; SwiGLU from Shazeer 2020, "
    "arXiv:2002.05202): hidden 4096, intermediate 11008, 16 tokens. %sgate = x Wg, up = "
    "x Wu, down(silu(gate) * up) with silu as gate * Sigmoid(gate), no biases, residual "
    "Add. Random weights (std 1/sqrt(fan_in), seed %d). Generated by npusim "
    "workloads/models/gen.py.")


def llama_mlp(opts):
    T, D, F = 16, 4096, 11008
    b = Builder("llama_mlp", SEEDS["llama_mlp"])
    x = b.input("hidden_states", [1, T, D])
    h = x
    if opts.rmsnorm:
        # LlamaRMSNorm (Zhang and Sennrich 2019): x / sqrt(mean(x^2) + eps) * w
        sc = "/post_attention_layernorm"
        sq = b.node("Pow", [x, b.scalar(2.0)], sc)
        ms = b.node("ReduceMean", [sq], sc, axes=[-1], keepdims=1)
        ms = b.node("Add", [ms, b.scalar(1e-6)], sc)
        r = b.node("Sqrt", [ms], sc)
        h = b.node("Div", [x, r], sc)
        h = b.node("Mul", [h, b.uniform("post_attention_layernorm.weight", (D,), 0.8, 1.2)],
                   sc)
    gate = linear(b, h, "/mlp/gate_proj", "mlp.gate_proj", D, F, bias=False)
    up = linear(b, h, "/mlp/up_proj", "mlp.up_proj", D, F, bias=False)
    sg = b.node("Sigmoid", [gate], "/mlp/act_fn")
    silu = b.node("Mul", [gate, sg], "/mlp/act_fn")
    m = b.node("Mul", [silu, up], "/mlp")
    down = linear(b, m, "/mlp/down_proj", "mlp.down_proj", F, D, bias=False)
    b.node("Add", [x, down], "", outputs=["output"])
    b.output("output", [1, T, D])
    doc = LLAMA_DOC % ("RMSNorm (eps 1e-6, decomposed: Pow/ReduceMean/Add/Sqrt/Div/Mul) "
                       "first; " if opts.rmsnorm else "The MLP alone (the RMSNorm before "
                       "it left out): ", SEEDS["llama_mlp"])
    return b.model(OPSET, doc)


MODELS = {"resnet50": resnet50, "mobilenetv2": mobilenetv2, "bert_layer": bert_layer,
          "gpt2_decode": gpt2_decode, "llama_mlp": llama_mlp}


def main(argv):
    ap = argparse.ArgumentParser(description="Generate the bundled ONNX workloads.")
    ap.add_argument("outdir")
    ap.add_argument("names", nargs="*", metavar="name",
                    help="models to write (default all): " + ", ".join(MODELS))
    ap.add_argument("--layernorm", choices=["decomposed", "op"], default="decomposed")
    ap.add_argument("--mask-input", action="store_true")
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--vocab", type=int, default=0)
    ap.add_argument("--rmsnorm", action="store_true")
    ap.add_argument("-q", "--quiet", action="store_true")
    opts = ap.parse_args(argv)
    if not 1 <= opts.layers <= 48:
        die("--layers %d: from 1 to 48" % opts.layers)
    if opts.vocab < 0:
        die("--vocab %d: 0 (no embedding) or a vocabulary size" % opts.vocab)
    for n in opts.names:
        if n not in MODELS:
            die("unknown model '%s' (known: %s)" % (n, ", ".join(MODELS)))
    for n in opts.names or list(MODELS):
        t0 = time.time()
        data = check(MODELS[n](opts))
        path = os.path.join(opts.outdir, n + ".onnx")
        write_atomic(path, data)
        if not opts.quiet:
            print("%s: %.1f MB in %.1f s" % (path, len(data) / 1e6, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
