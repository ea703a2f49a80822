"""The Python binding's cost per run (docs/api.md, `make bench` case
py_tiny_run): a thousand runs of a two-instruction program in one process,
each a new chip, a load, a run and a counter read - the loop a compiler's
cost model spins.  Prints the host time per run."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
if len(sys.argv) > 1:  # the npusim binary of the build under test: its library
    os.environ["NPUSIM_LIB"] = os.path.join(os.path.dirname(sys.argv[1]), "libnpusim.so.0")
import npusim  # noqa: E402

N = 1000
cfg = npusim.Config(npusim.config_path("default.cfg"))
t0 = time.perf_counter()
for _ in range(N):
    r = npusim.Run(cfg, timing_only=True)
    r.load(source="\tli t0, 1\n\thalt\n", name="tiny.s")
    r.run()
    r.counters()
    r.close()
dt = (time.perf_counter() - t0) / N
print("bench.python.tiny_run: %d runs, %.1f us per run (chip, load, run, counters)" % (N, dt * 1e6))
