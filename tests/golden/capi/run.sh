# The installed library: make install into a scratch prefix, then the C
# example of docs/api.md (that very text, cut from the page) is compiled
# with `pkg-config --cflags --libs npusim` against the installed header
# and library, linked dynamically and run (its GEMM checked by its own
# loop); the installed Python package imports from its installed place
# and runs the same GEMM (asserting its result).  Golden: the example's
# line (cycles, MACs).
. "$(dirname "$0")/../lib.sh"
p=$tmp/p
make -s --no-print-directory install BUILD="$build" PREFIX="$p" PYDIR="$tmp/py" > "$tmp/out" 2>&1 ||
	fail "make install: $(cat "$tmp/out")"
[ -L "$p/lib/libnpusim.so.0" ] && [ -f "$p/lib/libnpusim.so.0.1.0" ] || fail "no versioned library"
soname=$(objdump -p "$p/lib/libnpusim.so.0.1.0" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libnpusim.so.0 ] || fail "soname '$soname'"
awk '/^```c$/ { on = 1; next } /^```$/ { if (on) exit } on' docs/api.md > "$tmp/example.c"
[ -s "$tmp/example.c" ] || fail "no C example in docs/api.md"
flags=$(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --cflags --libs npusim) ||
	fail "pkg-config does not know npusim"
# An instrumented build (make asan) gives an instrumented library: the
# example is then built with the same sanitizers, so it runs under them.
cc=cc san=
if nm -D "$p/lib/libnpusim.so.0.1.0" | grep -q __asan_init; then
	cc=clang san="-fsanitize=address,undefined"
fi
# shellcheck disable=SC2086 # pkg-config's flags, split on purpose
$cc -std=c11 -Wall -Wextra -Werror $san -o "$tmp/example" "$tmp/example.c" $flags 2> "$tmp/err" ||
	fail "the example does not compile: $(cat "$tmp/err")"
LD_LIBRARY_PATH=$p/lib "$tmp/example" "$p/share/npusim" > "$tmp/out" 2>&1 ||
	fail "the example failed: $(cat "$tmp/out")"
grep -q ", 0 wrong$" "$tmp/out" || fail "the example's GEMM: $(cat "$tmp/out")"
record "C example: $(cat "$tmp/out")"
# The installed Python package (not with an instrumented library: Python
# would need the sanitizer runtime preloaded).
[ -n "$san" ] || PYTHONPATH=$tmp/py /usr/bin/python3 - > "$tmp/out" 2>&1 <<'PY' || fail "installed Python package: $(cat "$tmp/out")"
import numpy as np, npusim
assert npusim.kernel("gemm.s").startswith(npusim._paths.SHARE)
a = np.array([[i - k for k in range(32)] for i in range(64)], np.int8)
b = np.array([[(k * j) % 7 - 3 for j in range(48)] for k in range(32)], np.int8)
r = npusim.Run(npusim.Config(npusim.config_path("default.cfg")))
r.load(path=npusim.kernel("gemm.s"), defines={"M": 64, "K": 32, "N": 48})
r.write("A", a); r.write("B", b)
res = r.run()
assert (r.read("C") == a.astype(np.int32) @ b.astype(np.int32)).all()
print("cycles %d" % res.cycles)
PY
golden
