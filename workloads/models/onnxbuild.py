"""onnxbuild - a small graph builder over onnx.helper, shared by the model
generators (workloads/models/gen.py, tests/models/gen_small.py).

A Builder collects nodes, initializers, inputs and outputs in the order
they are added, so the same calls give the same file, byte for byte.
Names follow what torch.onnx.export writes: initializers carry the module's
parameter name ("layer1.0.conv1.weight"), nodes "/scope/Op", and a node's
output "/scope/Op_output_0".  Weights come from the builder's own
numpy Generator (a fixed seed per model), drawn as float32.
"""
import os
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    sys.exit("%s: %s; the generators need /usr/bin/python3 with python3-numpy and "
             "python3-onnx (apt-get install python3-onnx)" % (os.path.basename(sys.argv[0]), e))


class Builder:
    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []
        self.inputs = []
        self.outputs = []
        self._names = set()     # node and tensor names taken
        self._scalars = {}      # (value, dtype) -> initializer name

    def _unique(self, name):
        """name, or name_1, name_2... when it is taken."""
        cand, k = name, 0
        while cand in self._names:
            k += 1
            cand = "%s_%d" % (name, k)
        self._names.add(cand)
        return cand

    # ---- tensors ---------------------------------------------------------
    def init(self, name, array):
        """An initializer holding array (kept in its own dtype)."""
        name = self._unique(name)
        # np.asarray, not np.ascontiguousarray: that makes a 0-d scalar 1-d
        a = np.asarray(array)
        if not a.flags.c_contiguous:
            a = a.copy()
        self.inits.append(numpy_helper.from_array(a, name))
        return name

    def normal(self, name, shape, std, mean=0.0):
        """A float32 initializer drawn from N(mean, std^2)."""
        a = self.rng.standard_normal(shape, dtype=np.float32)
        a *= np.float32(std)
        if mean:
            a += np.float32(mean)
        return self.init(name, a)

    def uniform(self, name, shape, lo, hi):
        a = self.rng.random(shape, dtype=np.float32)
        a *= np.float32(hi - lo)
        a += np.float32(lo)
        return self.init(name, a)

    def i64(self, name, values):
        """A 1-D int64 initializer (shapes, axes, split sizes)."""
        return self.init(name, np.asarray(values, dtype=np.int64).reshape(-1))

    def scalar(self, value, dtype=np.float32):
        """A 0-d constant, shared by every node that uses the same value
        (the divisor 8.0, the 0.5 of a GELU, Clip's bounds)."""
        key = (float(value), np.dtype(dtype).str)
        if key not in self._scalars:
            self._scalars[key] = self.init("const_%s" % repr(float(value)).replace("-", "m"),
                                           np.array(value, dtype=dtype))
        return self._scalars[key]

    def input(self, name, shape, elem=TensorProto.FLOAT):
        self._names.add(name)
        self.inputs.append(helper.make_tensor_value_info(name, elem, shape))
        return name

    def output(self, name, shape, elem=TensorProto.FLOAT):
        self.outputs.append(helper.make_tensor_value_info(name, elem, shape))
        return name

    # ---- nodes -----------------------------------------------------------
    def node(self, op, inputs, scope, n_out=1, outputs=None, **attrs):
        """Add one node; its output name (a list when n_out > 1).
        outputs names them explicitly (graph outputs)."""
        name = self._unique("%s/%s" % (scope, op))
        if outputs is None:
            outputs = [self._unique("%s_output_%d" % (name, i)) for i in range(n_out)]
        else:
            for o in outputs:
                self._names.add(o)
        self.nodes.append(helper.make_node(op, list(inputs), list(outputs), name=name, **attrs))
        return outputs[0] if len(outputs) == 1 else list(outputs)

    def model(self, opset, doc):
        """The ModelProto, checked by onnx.checker and by ONNX's strict
        shape inference (a wrong shape in a generator fails here)."""
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs,
                                  initializer=self.inits, doc_string=doc)
        m = helper.make_model(graph, producer_name="npusim-gen", producer_version="1",
                              doc_string=doc, opset_imports=[helper.make_opsetid("", opset)])
        return m


def check(m):
    """The serialised model, checked by onnx.checker and by ONNX's strict
    shape inference (a wrong shape in a generator fails here).  Inference
    runs on a copy whose large initializers keep their dims but not their
    values: only small ones (Reshape's shape, Split's sizes) are read, and
    Llama's 541 MB of weights would otherwise be copied twice more."""
    data = m.SerializeToString()
    onnx.checker.check_model(data)
    skel = []
    for t in m.graph.initializer:
        if np.prod(t.dims) <= 64:
            skel.append(t)
        else:
            s = TensorProto(name=t.name, data_type=t.data_type)
            s.dims.extend(t.dims)
            skel.append(s)
    g = m.graph
    sm = helper.make_model(helper.make_graph(g.node, g.name, g.input, g.output, initializer=skel),
                           opset_imports=m.opset_import)
    onnx.shape_inference.infer_shapes(sm, check_type=True, strict_mode=True)
    return data


def write_atomic(path, data):
    """Write bytes to path through a temporary file in the same folder and
    a rename, so a reader (or an interrupted make) never sees half a file."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = os.path.join(d, ".%s.tmp%d" % (os.path.basename(path), os.getpid()))
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save_npy_atomic(path, array):
    """np.save through write_atomic (deterministic bytes: the .npy header
    holds only dtype, order and shape)."""
    import io
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    write_atomic(path, buf.getvalue())


def die(msg):
    sys.stderr.write("%s: %s\n" % (os.path.basename(sys.argv[0]), msg))
    sys.exit(2)
