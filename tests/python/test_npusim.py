"""Tests of the Python package (python/npusim) over libnpusim.so, run by
`make test` with the build tree's library (NPUSIM_BUILD)."""
import os
import resource
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import npusim  # noqa: E402

TREE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.join(TREE, os.environ.get("NPUSIM_BUILD", "build"), "npusim")
DEFAULT = npusim.config_path("default.cfg")

# One tensor of each type in DRAM, copied to a second one by DMA: a round
# trip through the chip.
COPY = """
.tensor X, dram, 0, {t}, {r}, {c}
.tensor Y, dram, 65536, {t}, {r}, {c}
.include "lib/cdesc.inc"
.text
	li	t2, 0
	li	t3, 65536
	li	t1, 1
	cdesc	t2, t3, dram, dram, {nbytes}, 1, 0, 0, t1, 0, 0
	dma	0
	fence	all
	halt
"""


def copy_run(dtype, rows=4, cols=8, timing_only=False):
    bits = {"int4": 4, "int8": 8, "fp8e4m3": 8, "fp8e5m2": 8, "int16": 16, "fp16": 16,
            "bf16": 16, "int32": 32, "fp32": 32}[dtype]
    r = npusim.Run(npusim.Config(DEFAULT), timing_only=timing_only)
    src = COPY.format(t=dtype, r=rows, c=cols, nbytes=rows * cols * bits // 8)
    r.load(source=src, name="copy.s", defines=None)
    return r


@pytest.mark.parametrize("dtype,values,want", [
    ("int8", np.arange(-16, 16, dtype=np.int8), np.int8),
    ("int16", np.arange(-16, 16, dtype=np.int16) * 1000, np.int16),
    ("int32", np.arange(-16, 16, dtype=np.int32) * 100000, np.int32),
    ("fp32", np.linspace(-3, 3, 32, dtype=np.float32), np.float32),
    ("fp16", np.linspace(-3, 3, 32).astype(np.float16), np.float16),
    ("bf16", np.arange(-16, 16, dtype=np.float32) / 8, np.float32),
    ("fp8e4m3", np.arange(-16, 16, dtype=np.float32) / 4, np.float32),
    ("fp8e5m2", (2.0 ** np.arange(-16, 16) * (-1.0) ** np.arange(32)).astype(np.float32),
     np.float32),
    ("int4", np.tile(np.arange(-8, 8, dtype=np.int8), 2), np.int8),
])
def test_dtype_round_trip(dtype, values, want):
    """Every type in and out: written from NumPy, copied by the chip, read
    back exactly (bf16/fp8 as float32, int4 as int8)."""
    r = copy_run(dtype)
    x = values.reshape(4, 8)
    r.write("X", x)
    r.run()
    y = r.read("Y")
    assert y.dtype == want and y.shape == (4, 8)
    assert np.array_equal(y.astype(np.float64), x.astype(np.float64))
    assert np.array_equal(r.read("X"), y)


def test_bf16_rounds_to_nearest_even():
    """float32 into bf16 rounds as `--input` does (ties to even)."""
    r = copy_run("bf16", 1, 2)
    x = np.array([[1 + 2 ** -8, 1 + 3 * 2 ** -8]], dtype=np.float32)
    r.write("X", x)
    assert list(r.read("X")[0]) == [1.0, 1 + 2 ** -6]


def test_gemm_against_numpy():
    rng = np.random.default_rng(7)
    a = rng.integers(-128, 128, (64, 96), dtype=np.int8)
    b = rng.integers(-128, 128, (96, 40), dtype=np.int8)
    r = npusim.Run(npusim.Config(DEFAULT))
    r.load(path=npusim.kernel("gemm.s"), defines={"M": 64, "K": 96, "N": 40})
    assert r.tensors()["C"] == ("int32", (64, 40))
    r.write("A", a)
    r.write("B", b)
    res = r.run()
    assert res.cycles > 0 and res.hazards == 0
    assert np.array_equal(r.read("C"), a.astype(np.int32) @ b.astype(np.int32))
    c = r.counters()
    assert c["core0.matrix.macs"] == 64 * 96 * 40
    assert c["cycles"] == res.cycles


def test_errors_are_exceptions_with_the_message():
    with pytest.raises(npusim.Error, match=r"<string>:1: error: core.matrix.rows = -3"):
        npusim.Config(text="core = { matrix = { rows = -3; }; };")
    with pytest.raises(npusim.Error, match=r"unknown key"):
        npusim.Config(overrides={"core.matrix.rowz": 4})
    r = npusim.Run(npusim.Config(DEFAULT))
    with pytest.raises(npusim.Error, match=r"k.s:2:2: error: unknown instruction 'bogus'"):
        r.load(source="\tli t0, 1\n\tbogus t0\n\thalt\n", name="k.s")
    r.load(path=npusim.kernel("gemm.s"))
    with pytest.raises(npusim.Error, match=r"shape \(3, 3\) does not match tensor 'A'"):
        r.write("A", np.zeros((3, 3), np.int8))
    with pytest.raises(npusim.Error, match=r"no tensor 'Q'"):
        r.read("Q")
    # data the tensor's type cannot hold, and a type .npy files do not map
    with pytest.raises(npusim.Error, match=r"A \(array\): error: element \[0, 0\] = 300 does not fit int8"):
        r.write("A", np.full((64, 64), 300, np.int32))
    with pytest.raises(npusim.Error, match=r"A \(array\): error: complex dtype '<c8' is not supported"):
        r.write("A", np.zeros((64, 64), np.complex64))
    # a fault names core, pc and cycle, as the CLI does
    f = npusim.Run(npusim.Config(DEFAULT))
    f.load(source="\tli t0, 0x7fffffff\n\tli t1, 64\n\tvset len, t1\n\tvset rows, t1\n"
                  "\tvadd t0, t0, t0\n\tfence all\n\thalt\n", name="f.s")
    with pytest.raises(npusim.Error, match=r"core 0 pc 0x[0-9a-f]+ cycle [0-9]+: error"):
        f.run()


def test_same_cycles_as_the_cli(tmp_path):
    """The library and `npusim run` agree to the last counter."""
    cfg = npusim.config_path("tpu-v1.cfg")
    d = ["M=128", "K=64", "N=96"]
    a = np.ones((128, 64), np.int8)
    b = np.ones((64, 96), np.int8)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    cmd = [BIN, "run", "-q", "-c", cfg, npusim.kernel("gemm.s"), "--counters",
           str(tmp_path / "c.csv"), "--input", "A=%s" % (tmp_path / "a.npy"),
           "--input", "B=%s" % (tmp_path / "b.npy")]
    for x in d:
        cmd += ["-D", x]
    subprocess.run(cmd, check=True)
    cli = {}
    for line in open(tmp_path / "c.csv"):
        if line.startswith("#") or line.startswith("name,"):
            continue
        f = line.rstrip("\n").split(",")
        if f[3] == "":
            cli[f[0]] = float(f[1])
    r = npusim.Run(npusim.Config(cfg))
    r.load(path=npusim.kernel("gemm.s"), defines=d)
    r.write("A", a)
    r.write("B", b)
    r.run()
    lib = r.counters()
    for k, v in lib.items():
        if not k.startswith("energy"):
            assert k in cli and cli[k] == pytest.approx(v, rel=1e-9), k
    assert lib["cycles"] == cli["cycles"]


def test_timing_only_same_cycles():
    full = npusim.Run(npusim.Config(DEFAULT))
    fast = npusim.Run(npusim.Config(DEFAULT), timing_only=True)
    for r in (full, fast):
        r.load(path=npusim.kernel("softmax.s"), defines={"R": 32, "L": 100})
    full.write("X", np.zeros((32, 100), np.float32))
    assert full.run().cycles == fast.run().cycles
    assert full.counters() == fast.counters()


def test_two_chips_interleaved():
    """Two configs in one process, their runs interleaved in slices of
    300 cycles: the same results as each alone (no shared state)."""
    def prep(cfg):
        r = npusim.Run(cfg)
        r.load(path=npusim.kernel("gemm.s"), defines={"M": 32, "K": 32, "N": 32})
        r.write("A", np.full((32, 32), 3, np.int8))
        r.write("B", np.full((32, 32), -2, np.int8))
        return r
    c1 = npusim.Config(DEFAULT)
    c2 = npusim.Config(npusim.config_path("gemmini.cfg"))
    alone = []
    for c in (c1, c2):
        r = prep(c)
        alone.append((r.run().cycles, r.counters()))
    r1, r2 = prep(c1), prep(c2)
    t, done = 0, [False, False]
    while not all(done):  # 300-cycle slices, alternating between the chips
        t += 300
        for k, r in enumerate((r1, r2)):
            if not done[k]:
                res = r.run(until=t)
                done[k] = not res.paused
                last = res
                if k == 0:
                    s1 = last
                else:
                    s2 = last
    assert t > 600  # they did interleave
    assert (s1.cycles, r1.counters()) == alone[0]
    assert (s2.cycles, r2.counters()) == alone[1]
    assert np.array_equal(r1.read("C"), r2.read("C"))


def test_config_text_dict_and_peaks():
    c = npusim.Config(text="core = { matrix = { rows = 16; cols = 8; }; };",
                      overrides={"chip.clock_ghz": 2.0})
    p = c.peaks()
    assert p["macs_per_s_core"] == 16 * 8 * 2e9
    assert p["cores"] == 1 and p["clock_ghz"] == 2.0
    assert "rows = 16;" in c.dump()


def test_mirrors_of_the_c_tables(tmp_path):
    """What the package knows of the library comes from the library: every
    element type of enum npusim_dtype has a storage row, every error code
    of enum npusim_error a message, and the peaks are those of a counters
    file (arch/peaks.def), in the same order."""
    for v, (name, _raw, how) in npusim._DTYPES.items():
        assert how in ("raw", "f32", "i8"), "no storage row for %s" % name
    assert sorted(npusim._DTYPES) == list(range(len(npusim._DTYPES)))
    codes = npusim._ffi.typeof("enum npusim_error").elements
    for code in codes:
        assert npusim._ffi.string(npusim._lib.npusim_strerror(code)) != b"unknown error"
    assert npusim.Error(-7, "").message == "I/O error"
    c = npusim.Config(DEFAULT)
    out = tmp_path / "c.csv"
    subprocess.run([BIN, "run", "-q", "-c", DEFAULT, "--timing-only", "--counters", str(out),
                    os.path.join(TREE, "asm", "kernels", "gemm.s")], check=True)
    lines = [ln[len("# peak "):] for ln in out.read_text().splitlines()
             if ln.startswith("# peak ")]
    file_peaks = [ln.split(":")[0] for ln in lines]
    assert c.peak_names()[2:] == file_peaks
    for ln in lines:
        name, val = ln.split(": ")
        assert c.peak(name) == pytest.approx(float(val), rel=1e-5)


@pytest.fixture(scope="module")
def small_models(tmp_path_factory):
    """tests/models/gen_small.py's tiny_cnn and tiny_mlp, with inputs."""
    d = tmp_path_factory.mktemp("models")
    subprocess.run(["/usr/bin/python3", os.path.join(TREE, "tests", "models", "gen_small.py"),
                    str(d), "tiny_cnn", "tiny_mlp"], check=True, stdout=subprocess.DEVNULL)
    return d


def test_model_as_the_cli_runs_it(small_models, tmp_path, monkeypatch):
    """npusim.Model gives the outputs, the per-layer cycles and the counters
    that `npusim model` gives for the same model, chip and input."""
    monkeypatch.setenv("NPUSIM_CACHE", str(tmp_path / "cache"))
    net = str(small_models / "tiny_cnn.onnx")
    x = np.load(str(small_models / "tiny_cnn.x.npy"))
    subprocess.run([BIN, "model", "-q", "-c", DEFAULT, net, "--input",
                    "x=" + str(small_models / "tiny_cnn.x.npy"), "--output-dir",
                    str(tmp_path / "out"), "--layers", str(tmp_path / "l.csv"),
                    "--counters", str(tmp_path / "c.csv")], check=True)
    m = npusim.Model(npusim.Config(DEFAULT), net)
    assert m.inputs() == {"x": x.shape}
    m.write("x", x)
    res = m.run()
    (name, shape), = m.outputs().items()
    y = m.read(name)
    assert y.shape == shape
    assert np.array_equal(y, np.load(str(tmp_path / "out" / (name + ".npy"))))
    rows = [ln.split(",") for ln in (tmp_path / "l.csv").read_text().splitlines()[1:]]
    layers = m.layers()
    assert [r[0] for r in rows] == [L["name"] for L in layers]
    assert [int(r[5]) for r in rows] == [L["cycles"] for L in layers]
    assert [int(r[11]) for r in rows] == [L["macs"] for L in layers]
    csv = {ln.split(",")[0]: ln.split(",")[1] for ln in (tmp_path / "c.csv").read_text()
           .splitlines() if not ln.startswith("#") and ln.count(",") >= 3 and
           ln.split(",")[3] == ""}
    c = m.counters()
    assert c["cycles"] == res.cycles == int(csv["cycles"])
    assert c["core0.matrix.macs"] == int(csv["core0.matrix.macs"])
    # every layer a region "L<i> <name>" (the kernels mark their own too)
    assert [r[0] for r in m.regions() if r[0].startswith("L")] == \
        ["L%d %s" % (i, L["name"]) for i, L in enumerate(layers)]
    # a second run of the same model: the same chip again
    assert m.run().cycles == res.cycles


def test_model_timing_only_and_errors(small_models):
    net = str(small_models / "tiny_mlp.onnx")
    cfg = npusim.Config(DEFAULT)
    values = npusim.Model(cfg, net, dtype="bf16")
    t = npusim.Model(cfg, net, dtype="bf16", timing_only=True)
    assert t.run().cycles == values.run().cycles
    assert [L["cycles"] for L in t.layers()] == [L["cycles"] for L in values.layers()]
    with pytest.raises(npusim.Error, match="timing-only model takes no values"):
        t.write("x", np.zeros(t.inputs()["x"], dtype=np.float32))
    with pytest.raises(npusim.Error, match="no input of that name"):
        values._check(npusim._lib.npusim_model_write(values._m, b"nope",
                                                      npusim._ffi.new("float[1]"), 1))
    with pytest.raises(npusim.Error, match="dtype"):
        npusim.Model(cfg, net, dtype="fp8")
    with pytest.raises(npusim.Error) as e:
        npusim.Model(cfg, str(small_models / "missing.onnx"))
    assert "missing.onnx" in str(e.value)


def test_regions():
    r = npusim.Run(npusim.Config(DEFAULT))
    r.load(path=npusim.kernel("softmax.s"), defines={"R": 16, "L": 64})
    r.write("X", "zeros")
    r.run()
    (name, core, entries, cycles), = r.regions()
    assert (name, core, entries) == ("softmax", 0, 1) and cycles > 0


def test_many_runs_do_not_grow():
    """Hundreds of runs in one process: the resident set stays flat."""
    cfg = npusim.Config(DEFAULT)
    a = np.ones((32, 32), np.int8)

    def one():
        r = npusim.Run(cfg)
        r.load(path=npusim.kernel("gemm.s"), defines={"M": 32, "K": 32, "N": 32})
        r.write("A", a)
        r.write("B", a)
        r.run()
        r.counters()
        r.read("C")
        r.close()
    for _ in range(50):
        one()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(300):
        one()
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert after - before < 4096, "peak RSS grew by %d KiB" % (after - before)
