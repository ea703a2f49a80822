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
run bench_engine
run bench_noc

# End to end: whole programs through `npusim run`, simulated cycles per host
# second, and the ratios between array sizes measured in this one run.
secs() { date +%s.%N; }
e2e() {   # name config args...
	name=$1
	shift
	"$bin" run --counters "$tmpd/c.csv" -q "$@" >/dev/null 2>&1 || {
		echo "bench.e2e.$name: run failed" >&2
		status=1
		return
	}
	# The whole run's cycles: the first cycles row (regions' rows follow).
	cyc=$(grep '^cycles,' "$tmpd/c.csv" | head -1 | cut -d, -f2)
	t0=$(secs)
	"$bin" run -q "$@" >/dev/null 2>&1
	t1=$(secs)
	awk -v n="$name" -v c="$cyc" -v a="$t0" -v b="$t1" 'BEGIN {
		d = b - a; printf "bench.e2e.%s: %d cycles in %.3f s, %.2f M cycles/s\n", n, c, d, c / d / 1e6 }'
	echo "$t1 $t0" > "$tmpd/t.$name"
}
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
gen=$(dirname "$bin")/gemmref
if [ -x "$gen" ]; then
	"$gen" gen 512 256 256 1 "$tmpd/A.npy" "$tmpd/B.npy"
	e2e gemm_16x16 -c configs/gemmini.cfg -s core.scratchpad.bytes=1M -s core.accumulator.bytes=1M \
		asm/kernels/gemm.s -D ROWS=16 -D COLS=16 -D M=512 -D K=256 -D N=256 \
		--input A="$tmpd/A.npy" --input B="$tmpd/B.npy"
	e2e gemm_32x32 -c configs/default.cfg -s core.scratchpad.bytes=1M -s core.accumulator.bytes=1M \
		asm/kernels/gemm.s -D M=512 -D K=256 -D N=256 \
		--input A="$tmpd/A.npy" --input B="$tmpd/B.npy"
	# The same with a trace (every instruction a slice, flows, counters
	# every 1000 cycles): the ratio to gemm_32x32 is the cost of tracing.
	e2e gemm_32x32_traced -c configs/default.cfg -s core.scratchpad.bytes=1M -s core.accumulator.bytes=1M \
		asm/kernels/gemm.s -D M=512 -D K=256 -D N=256 --trace "$tmpd/t.json.gz" \
		--input A="$tmpd/A.npy" --input B="$tmpd/B.npy"
	e2e gemm_256x256 -c configs/tpu-v1.cfg \
		asm/kernels/gemm.s -D ROWS=256 -D COLS=256 -D M=512 -D K=256 -D N=256 \
		--input A="$tmpd/A.npy" --input B="$tmpd/B.npy"
	e2e gemm_32x32_pe -c configs/default.cfg -s core.scratchpad.bytes=1M -s core.accumulator.bytes=1M \
		asm/kernels/gemm.s -D M=512 -D K=256 -D N=256 --matrix-model=pe \
		--input A="$tmpd/A.npy" --input B="$tmpd/B.npy"
	awk 'FNR == 1 { split($0, t, " "); d[FILENAME] = t[1] - t[2] }
	     END { for (f in d) if (f ~ /gemm_32x32$/) base = d[f];
		   for (f in d) { n = f; sub(/.*t\./, "", n);
			printf "bench.e2e.ratio: host time %s / gemm_32x32 = %.2f\n", n, d[f] / base } }' \
		"$tmpd"/t.gemm_* | sort

	# Queue depth: the same program with core.control.queue_depth 8 ...
	# 1024.  gemm_db.s issues K/32 x N/32 = 1024 folds (2048 matrix
	# instructions) per A tile between its waits, so at 1024 the matrix
	# queue really fills and ~1024 instructions sit placed ahead of the
	# array.  Host time must not grow with the depth (matrix_int.h, "Host
	# cost"): before the due heap, 1024 took 24x the host time of 8.
	for d in 8 64 256 1024; do
		e2e qdepth_$d -c configs/default.cfg -s core.control.queue_depth=$d \
			-s core.scratchpad.bytes=2M -s core.accumulator.bytes=2M \
			asm/kernels/gemm_db.s -D M=512 -D K=1024 -D N=1024 -D TM=256
	done
	awk 'FNR == 1 { split($0, t, " "); d[FILENAME] = t[1] - t[2] }
	     END { for (f in d) { if (f ~ /qdepth_8$/) lo = d[f];
				  if (f ~ /qdepth_1024$/) hi = d[f] }
		   printf "bench.e2e.ratio: host time qdepth_1024 / qdepth_8 = %.2f\n", hi / lo }' \
		"$tmpd"/t.qdepth_*
else
	echo "bench: $gen is missing (make bench builds it)" >&2
	status=1
fi
exit $status
