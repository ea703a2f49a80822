# make install: the binary, the configs and every kernel with the library
# files they include (asm/kernels/lib/*.inc; once missing, so the
# installed kernels that include one did not assemble).  Every installed
# kernel must assemble with the installed binary against an installed
# config.  Golden: the installed kernels and library files.
. "$(dirname "$0")/../lib.sh"
make -s --no-print-directory install BUILD="$build" PREFIX="$tmp/p" > "$tmp/out" 2>&1 ||
	fail "make install: $(cat "$tmp/out")"
share=$tmp/p/share/npusim
for k in "$share"/kernels/*.s; do
	"$tmp/p/bin/npusim" as -c "$share/configs/default.cfg" "$k" -o "$tmp/k.o" 2> "$tmp/err" ||
		fail "installed $(basename "$k") does not assemble: $(cat "$tmp/err")"
	record "kernel $(basename "$k")"
done
for f in "$share"/kernels/lib/*.inc; do
	record "library $(basename "$f")"
done
golden
