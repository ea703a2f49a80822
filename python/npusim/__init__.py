"""npusim: the NPU simulator as a library for Python (docs/api.md).

A thin cffi layer (ABI mode: no compiled extension) over libnpusim.so:

    import numpy as np, npusim
    cfg = npusim.Config("configs/default.cfg", overrides={"core.matrix.rows": 16})
    run = npusim.Run(cfg)
    run.load(path=npusim.kernel("gemm.s"), defines={"M": 64, "K": 32, "N": 48})
    run.write("A", a)          # NumPy arrays, converted as `--input` converts
    run.write("B", b)
    res = run.run()            # res.cycles
    c = run.read("C")          # a NumPy array of the tensor's shape
    run.counters()["core0.matrix.macs"]

Errors raise npusim.Error with the simulator's own message (the text the
CLI prints: file:line, or core, pc and cycle).  Element types come back as
NumPy types: int8/int16/int32, float16, float32; bf16 and fp8 widened to
float32 (exactly), int4 to int8.
"""
import io
import os

import cffi
import numpy as np

__all__ = ["Config", "Run", "Model", "Result", "Error", "kernel", "config_path", "version"]

_HERE = os.path.dirname(os.path.abspath(__file__))
try:  # written by `make install`
    from . import _paths
except ImportError:  # the build tree: python/npusim next to build/
    _paths = None


def _tree():
    return os.path.normpath(os.path.join(_HERE, "..", ".."))


def _find_lib():
    if os.environ.get("NPUSIM_LIB"):
        return os.environ["NPUSIM_LIB"]
    if _paths is not None:
        return os.path.join(_paths.LIBDIR, "libnpusim.so.0")
    return os.path.join(_tree(), os.environ.get("NPUSIM_BUILD", "build"), "libnpusim.so.0")


def _header():
    """The C API's declarations, read from include/npusim.h itself (the
    installed copy, or the tree's): the package keeps no copy of them.
    cffi takes C declarations, not the preprocessor, so the header's
    directives and its C++ guard (the lines between '#ifdef __cplusplus'
    and '#endif') are left out; nothing else is changed."""
    path = (os.path.join(_paths.INCLUDEDIR, "npusim.h") if _paths is not None
            else os.path.join(_tree(), "include", "npusim.h"))
    out, skip = [], False
    with open(path) as f:
        for line in f:
            s = line.strip()
            if s.startswith("#ifdef __cplusplus"):
                skip = True
            elif skip and s.startswith("#endif"):
                skip = False
            elif not skip and not s.startswith("#"):
                out.append(line)
    return "".join(out)


_ffi = cffi.FFI()
_ffi.cdef(_header())
_lib = _ffi.dlopen(_find_lib())

# How each element type is stored and read back, by its C name
# (npusim_dtype_name): the NumPy type of the raw storage, and "raw" (as
# stored), "f32" (widened to float32, exactly) or "i8" (int4 to int8).
# Which types exist comes from enum npusim_dtype; tests/python checks that
# every one has a row here.
_STORAGE = {
    "int4": (None, "i8"), "int8": (np.int8, "raw"), "int16": (np.int16, "raw"),
    "int32": (np.int32, "raw"), "fp8e4m3": (None, "f32"), "fp8e5m2": (None, "f32"),
    "fp16": (np.float16, "raw"), "bf16": (None, "f32"), "fp32": (np.float32, "raw"),
}
# enum npusim_dtype value -> (name, NumPy storage type, read as)
_DTYPES = {}
for _v in sorted(_ffi.typeof("enum npusim_dtype").elements):
    _n = _ffi.string(_lib.npusim_dtype_name(_v)).decode()
    _DTYPES[_v] = (_n,) + _STORAGE.get(_n, (None, None))


def version():
    """The library's version string."""
    return _ffi.string(_lib.npusim_version()).decode()


def kernel(name):
    """Path of a bundled kernel (asm/kernels/NAME)."""
    base = os.path.join(_paths.SHARE, "kernels") if _paths else os.path.join(_tree(), "asm",
                                                                            "kernels")
    return os.path.join(base, name)


def config_path(name):
    """Path of a bundled config ("default.cfg", "tpu-v1.cfg", ...)."""
    base = os.path.join(_paths.SHARE, "configs") if _paths else os.path.join(_tree(), "configs")
    return os.path.join(base, name)


class Error(Exception):
    """A simulator error: .code (NPUSIM_E*, negative) and the message."""

    def __init__(self, code, message):
        self.code = code
        self.message = message.strip() or _ffi.string(_lib.npusim_strerror(code)).decode()
        super().__init__(self.message)


def _strings(items):
    """A char*[] kept alive with its strings."""
    keep = [_ffi.new("char[]", s.encode()) for s in items]
    arr = _ffi.new("const char *[]", keep) if keep else _ffi.NULL
    return arr, keep


def _kv(d):
    if d is None:
        return []
    if isinstance(d, dict):
        return ["%s=%s" % (k, v) for k, v in d.items()]
    return [str(x) for x in d]


def _take(errp):
    if errp[0] == _ffi.NULL:
        return ""
    s = _ffi.string(errp[0]).decode(errors="replace")
    _lib.npusim_free(errp[0])
    return s


class Config:
    """A chip configuration: a file, a text, or the defaults, then
    overrides ({"key": value} or ["key=value", ...], as `-s`)."""

    def __init__(self, path=None, text=None, overrides=None, name=None):
        ov, keep = _strings(_kv(overrides))
        out = _ffi.new("npusim_config **")
        errp = _ffi.new("char **")
        if text is not None:
            rc = _lib.npusim_config_parse(text.encode(), (name or "<string>").encode(), ov,
                                          len(keep), out, errp)
        else:
            rc = _lib.npusim_config_load(path.encode() if path else _ffi.NULL, ov, len(keep),
                                         out, errp)
        msg = _take(errp)
        if rc:
            raise Error(rc, msg)
        self._c = _ffi.gc(out[0], _lib.npusim_config_free)

    def peak(self, name):
        """A derived peak ("macs_per_s_chip", "dram_bytes_per_s", ...)."""
        v = _ffi.new("double *")
        if _lib.npusim_config_peak(self._c, name.encode(), v):
            raise Error(-1, "no peak named %r" % name)
        return v[0]

    @staticmethod
    def peak_names():
        """The names peak() takes, as the library lists them."""
        names, k = [], 0
        while _lib.npusim_peak_name(k) != _ffi.NULL:
            names.append(_ffi.string(_lib.npusim_peak_name(k)).decode())
            k += 1
        return names

    def peaks(self):
        """Every derived peak as a dict."""
        return {k: self.peak(k) for k in self.peak_names()}

    def dump(self):
        """The resolved config as text (`npusim config --dump`)."""
        t = _ffi.new("char **")
        rc = _lib.npusim_config_dump(self._c, t)
        if rc:
            raise Error(rc, "")
        s = _ffi.string(t[0]).decode()
        _lib.npusim_free(t[0])
        return s


class Result:
    """What a run returned: cycles, events, hazards, paused (run(until=))."""

    def __init__(self, res):
        self.cycles = int(res.cycles)
        self.events = int(res.events)
        self.hazards = int(res.hazards)
        self.paused = bool(res.paused)

    def __repr__(self):
        return "Result(cycles=%d, events=%d, hazards=%d)" % (self.cycles, self.events,
                                                              self.hazards)


class Run:
    """One simulated chip: load a program, bind tensors, run, read."""

    def __init__(self, config, timing_only=False, check_hazards=False, max_cycles=0):
        opts = _ffi.new("struct npusim_run_opts *")
        opts.timing_only = int(bool(timing_only))
        opts.check_hazards = int(bool(check_hazards))
        opts.max_cycles = int(max_cycles)
        errp = _ffi.new("char **")
        r = _lib.npusim_run_new(config._c, opts, errp)
        msg = _take(errp)
        if r == _ffi.NULL:
            raise Error(-6, msg)
        self.config = config  # the run borrows it: keep it alive
        self._r = _ffi.gc(r, _lib.npusim_run_free)

    def _check(self, rc):
        if rc:
            raise Error(rc, _ffi.string(_lib.npusim_error(self._r)).decode(errors="replace"))

    def close(self):
        """Free the chip now (otherwise when the object is collected)."""
        if self._r is not None:
            _ffi.release(self._r)
            self._r = None

    def load(self, source=None, path=None, defines=None, name="<source>", include_dirs=None):
        """Assemble SOURCE text, or a .s / object file at PATH, into every
        core; DEFINES as {"NAME": value} or ["NAME=value", ...] (-D);
        INCLUDE_DIRS (-I) are searched after the file's own directory and
        before the bundled kernels' (so `.include "lib/cdesc.inc"` works
        from any source)."""
        d, keep = _strings(_kv(defines))
        inc, ikeep = _strings([str(x) for x in (include_dirs or [])] + [kernel("")])
        if source is not None:
            self._check(_lib.npusim_load_source(self._r, name.encode(), source.encode(), d,
                                                len(keep), inc, len(ikeep)))
        else:
            self._check(_lib.npusim_load_file(self._r, str(path).encode(), d, len(keep), inc,
                                              len(ikeep)))
        return self

    def tensors(self, core=0):
        """The loaded program's tensors: {name: (dtype name, shape)}."""
        out = {}
        for i in range(_lib.npusim_tensor_count(self._r, core)):
            n = _ffi.string(_lib.npusim_tensor_name(self._r, core, i)).decode()
            t = self._info(n, core)
            out[n] = (_DTYPES[t.dtype][0], tuple(int(t.shape[k]) for k in range(t.ndim)))
        return out

    def _info(self, name, core):
        t = _ffi.new("struct npusim_tensor *")
        self._check(_lib.npusim_tensor_info(self._r, name.encode(), core, t))
        return t

    def write(self, name, array, core=0):
        """Bind a NumPy array (converted to the tensor's type by the rules
        of `--input`: floats round to nearest even, integers must fit)."""
        if isinstance(array, str) and array == "zeros":
            self._check(_lib.npusim_zero(self._r, name.encode(), core))
            return
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(array), allow_pickle=False)
        data = buf.getvalue()
        self._check(_lib.npusim_write_npy(self._r, name.encode(), core, data, len(data)))

    def read(self, name, core=0):
        """A tensor as a NumPy array of its shape (bf16 and fp8 as
        float32, int4 as int8)."""
        t = self._info(name, core)
        shape = tuple(int(t.shape[k]) for k in range(t.ndim))
        n = int(np.prod(shape, dtype=np.int64))
        _, raw, how = _DTYPES[t.dtype]
        if how == "raw":
            a = np.empty(shape, dtype=raw)
            self._check(_lib.npusim_read(self._r, name.encode(), core, _ffi.from_buffer(a),
                                         a.nbytes))
            return a
        if how == "f32":
            a = np.empty(shape, dtype=np.float32)
            self._check(_lib.npusim_read_f32(self._r, name.encode(), core,
                                             _ffi.cast("float *", _ffi.from_buffer(a)), n))
            return a
        a = np.empty(shape, dtype=np.int8)
        self._check(_lib.npusim_read_i8(self._r, name.encode(), core,
                                        _ffi.cast("int8_t *", _ffi.from_buffer(a)), n))
        return a

    def run(self, until=None):
        """Run the loaded programs to the end, or until cycle UNTIL (then
        Result.paused says whether it stopped early; run() again goes on
        exactly as an uninterrupted run).  A Result (cycles, ...)."""
        res = _ffi.new("struct npusim_result *")
        if until is None:
            self._check(_lib.npusim_go(self._r, res))
        else:
            self._check(_lib.npusim_go_until(self._r, int(until), res))
        return Result(res)

    def counters(self):
        """Every counter of the last run: {name: value} (as --counters)."""
        return _counters(self._r)

    def counters_df(self):
        """The counters as a pandas DataFrame (name, value, unit), when
        pandas is installed."""
        return _counters_df(self._r)

    def regions(self):
        """Regions (rbeg/rend) of the last run: [(name, core, entries, cycles)]."""
        return _regions(self._r)


def _counters(r):
    out = {}
    name = _ffi.new("const char **")
    val = _ffi.new("double *")
    for i in range(_lib.npusim_counter_count(r)):
        _lib.npusim_counter_get(r, i, name, val, _ffi.NULL)
        v = val[0]
        out[_ffi.string(name[0]).decode()] = int(v) if v == int(v) else v
    return out


def _counters_df(r):
    import pandas as pd  # optional
    rows = []
    name = _ffi.new("const char **")
    val = _ffi.new("double *")
    unit = _ffi.new("const char **")
    for i in range(_lib.npusim_counter_count(r)):
        _lib.npusim_counter_get(r, i, name, val, unit)
        rows.append((_ffi.string(name[0]).decode(), val[0], _ffi.string(unit[0]).decode()))
    return pd.DataFrame(rows, columns=["name", "value", "unit"])


def _regions(r):
    out = []
    name = _ffi.new("const char **")
    core = _ffi.new("int *")
    ent = _ffi.new("uint64_t *")
    cyc = _ffi.new("uint64_t *")
    for i in range(_lib.npusim_region_count(r)):
        _lib.npusim_region_get(r, i, name, core, ent, cyc)
        out.append((_ffi.string(name[0]).decode(), core[0], int(ent[0]), int(cyc[0])))
    return out


class Model:
    """A whole model, as `npusim model` runs it (docs/models.md): an ONNX
    file (any exporter) or a SCALE-Sim topology CSV, imported, mapped onto
    the kernel library for the config's chip and run layer by layer (or
    pipelined over `pipeline` stages), each layer a region.

        m = npusim.Model(npusim.Config(npusim.config_path("tpu-v1.cfg")), "resnet50.onnx")
        m.write("input", x)        # float32, the model's layout
        res = m.run()              # res.cycles: the whole model
        y = m.read("output")
        m.layers()                 # per layer: cycles, MACs, DRAM bytes, ...
        m.counters(), m.regions()  # the run's counters, a region per layer

    dtype "int8" or "bf16" (default: by the chip's input type); tuned:
    each tunable layer's schedule from the tuner's cache, as `npusim
    model` without --untuned.  Inputs default to uniform values in
    [-1, 1) from a fixed seed."""

    # the columns: struct npusim_layer's members, in the header's order
    _LAYER = tuple(f for f, _ in _ffi.typeof("struct npusim_layer").fields)

    def __init__(self, config, path, dtype=None, batch=0, pipeline=0, one_core=False,
                 no_fuse=False, calibrate=False, timing_only=False, tuned=True,
                 max_cycles=0, kernels=None):
        o = _ffi.new("struct npusim_model_opts *")
        names = {None: -1, "int8": _lib.NPUSIM_INT8, "bf16": _lib.NPUSIM_BF16}
        if dtype not in names:
            raise Error(-1, "dtype is 'int8' or 'bf16', not %r" % (dtype,))
        o.dtype = names[dtype]
        o.batch, o.pipeline = int(batch), int(pipeline)
        o.one_core, o.no_fuse = int(bool(one_core)), int(bool(no_fuse))
        o.calibrate, o.timing_only = int(bool(calibrate)), int(bool(timing_only))
        o.tuned, o.max_cycles = int(bool(tuned)), int(max_cycles)
        kdir = _ffi.new("char[]", (kernels or kernel("")).encode())
        o.kernels = kdir
        out = _ffi.new("npusim_model **")
        errp = _ffi.new("char **")
        rc = _lib.npusim_model_load(config._c, str(path).encode(), o, out, errp)
        msg = _take(errp)
        if rc:
            raise Error(rc, msg)
        self.config = config  # the model borrows it: keep it alive
        self._keep = kdir
        self._m = _ffi.gc(out[0], _lib.npusim_model_free)

    def _check(self, rc):
        if rc:
            raise Error(rc, _ffi.string(_lib.npusim_model_error(self._m)).decode(
                errors="replace"))

    def _io(self, output):
        out = {}
        name = _ffi.new("const char **")
        ndim = _ffi.new("int *")
        shape = _ffi.new("int64_t[8]")
        for i in range(_lib.npusim_model_io_count(self._m, output)):
            self._check(_lib.npusim_model_io_get(self._m, output, i, name, ndim, shape))
            out[_ffi.string(name[0]).decode()] = tuple(int(shape[k]) for k in range(ndim[0]))
        return out

    def inputs(self):
        """The graph inputs: {name: shape}."""
        return self._io(0)

    def outputs(self):
        """The graph outputs: {name: shape}."""
        return self._io(1)

    def write(self, name, array):
        """An input's values (converted to float32; the input's shape)."""
        want = self.inputs().get(name)
        a = np.ascontiguousarray(array, dtype=np.float32)
        if want is not None and a.shape != want:
            raise Error(-1, "input %r has the shape %s, not %s" % (name, want, a.shape))
        self._check(_lib.npusim_model_write(self._m, name.encode(),
                                            _ffi.cast("float *", _ffi.from_buffer(a)), a.size))

    def run(self):
        """Map (the first time) and run the model on a new chip: a Result
        (cycles of the whole model)."""
        res = _ffi.new("struct npusim_result *")
        self._check(_lib.npusim_model_go(self._m, res))
        return Result(res)

    def read(self, name):
        """An output as a float32 array of its shape."""
        shape = self.outputs().get(name)
        if shape is None:
            raise Error(-1, "the model has no output named %r" % name)
        a = np.empty(shape, dtype=np.float32)
        self._check(_lib.npusim_model_read(self._m, name.encode(),
                                           _ffi.cast("float *", _ffi.from_buffer(a)), a.size))
        return a

    def layers(self):
        """Per layer of the last run: a list of dicts with the columns of
        `npusim model --layers` (cycles, macs, dram_read, mac_util, ...)."""
        out = []
        L = _ffi.new("struct npusim_layer *")
        for i in range(_lib.npusim_model_layer_count(self._m)):
            self._check(_lib.npusim_model_layer_get(self._m, i, L))
            row = {}
            for k in self._LAYER:
                v = getattr(L, k)
                row[k] = _ffi.string(v).decode() if isinstance(v, _ffi.CData) else v
            out.append(row)
        return out

    def layers_df(self):
        """layers() as a pandas DataFrame, when pandas is installed."""
        import pandas as pd  # optional
        return pd.DataFrame(self.layers(), columns=list(self._LAYER))

    def counters(self):
        """Every counter of the last run, a region per layer inside."""
        return _counters(_lib.npusim_model_run(self._m))

    def regions(self):
        """The layers' regions: [(name, core, entries, cycles)]."""
        return _regions(_lib.npusim_model_run(self._m))
