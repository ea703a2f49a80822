#!/bin/sh
# run_default.sh BUILD - `make run`: the bundled example job.
#
# A tiled int8 GEMM (asm/kernels/gemm.s) on configs/default.cfg with
# generated inputs: the output is checked against an independent reference
# (tests/tools/gemmref.c), then cycles, utilisation and the output files
# are printed.
set -e
build=$1
bin=$build/npusim
out=$build/run
M=${M:-128} K=${K:-96} N=${N:-80}
mkdir -p "$out"
echo "npusim: C[$M x $N] = A[$M x $K] * B[$K x $N] (int8 -> int32) on configs/default.cfg"
"$build/gemmref" gen "$M" "$K" "$N" 1 "$out/A.npy" "$out/B.npy"
"$bin" run -c configs/default.cfg asm/kernels/gemm.s \
	-D M="$M" -D K="$K" -D N="$N" \
	--input A="$out/A.npy" --input B="$out/B.npy" --output C="$out/C.npy" \
	--counters "$out/counters.json" --counters "$out/counters.txt" \
	--trace "$out/trace.json.gz"
"$build/gemmref" check "$out/A.npy" "$out/B.npy" "$out/C.npy"
echo
echo "files:   $out/C.npy (output), $out/counters.json, $out/counters.txt,"
echo "         $out/trace.json.gz (open in https://ui.perfetto.dev)"
echo "summary: $bin stat -c configs/default.cfg asm/kernels/gemm.s \\"
echo "           -D M=$M -D K=$K -D N=$N --input A=$out/A.npy --input B=$out/B.npy \\"
echo "           --output C=$out/C.npy"
