#!/usr/bin/python3
"""onnx_fixture.py OUT - write a small model with python3-onnx's own helper
API, for tests/unit/test_onnx.c (onnx.file.python) to read back.

The values are fixed (no seed needed) and chosen so that each TensorProto
value field python3-onnx uses appears once: raw_data (numpy_helper),
float_data and int32_data (helper.make_tensor, float16 as bit patterns,
int8 widened), and a Constant node.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main(out):
    w = (np.arange(4 * 3 * 3 * 3, dtype=np.float32) * 0.125).reshape(4, 3, 3, 3)
    inits = [
        numpy_helper.from_array(w, "conv.w"),
        helper.make_tensor("conv.b", TensorProto.FLOAT, [4], [0.0, 0.5, -1.0, -1.5]),
        numpy_helper.from_array(np.full((10, 48), 0.01, np.float32), "fc.w"),
        helper.make_tensor("half", TensorProto.FLOAT16, [3], [0.5, 1.0, -3.0]),
        helper.make_tensor("i8", TensorProto.INT8, [2], [5, -7]),
    ]
    shape = helper.make_tensor("shape_value", TensorProto.INT64, [2], [1, -1])
    nodes = [
        helper.make_node("Conv", ["x", "conv.w", "conv.b"], ["c"], name="conv",
                         kernel_shape=[3, 3], pads=[1, 0, 1, 0]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Constant", [], ["shape"], value=shape),
        helper.make_node("Reshape", ["p", "shape"], ["f"], name="flat"),
        helper.make_node("Gemm", ["f", "fc.w"], ["z"], name="fc", transB=1),
        helper.make_node("Softmax", ["z"], ["y"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "fixture",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        initializer=inits)
    model = helper.make_model(graph, producer_name="npusim onnx_fixture.py",
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, out)


if __name__ == "__main__":
    main(sys.argv[1])
