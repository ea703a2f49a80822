#!/bin/sh
# run.sh BIN - the performance suite of the simulator itself (`make bench`).
#
# BIN is the npusim binary; the bench programs were built next to it, in
# $(dirname BIN)/bench/ (Makefile: BENCH_SRCS).  Each program prints one line
# per measurement, "bench.<unit>.<...>: ..., <N> cycles/s", N being simulated
# cycles per host second.  Not part of `make test`: host timing varies.
bin=${1:?usage: sh bench/run.sh path/to/npusim}
dir=$(dirname "$bin")/bench
status=0
run() {
	if [ ! -x "$dir/$1" ]; then
		echo "bench: $dir/$1 is missing (make bench builds it)" >&2
		status=1
		return
	fi
	"$dir/$1" || status=1
}
run bench_matrix
exit $status
