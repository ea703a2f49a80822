#!/bin/sh
# compare.sh BASELINE RESULTS - flag every case whose host-time ratio to
# the suite's reference case (bench/run.sh) grew by more than 15 % over
# the baseline's.  Ratios, not seconds: the baseline may come from another
# machine.  A case in only one file is listed, not failed.  Exit 1 if any
# case regressed.
base=${1:?usage: sh bench/compare.sh baseline.csv results.csv}
res=${2:?usage: sh bench/compare.sh baseline.csv results.csv}
awk -F, 'FNR == 1 { next }
	 NR == FNR { b[$1] = $8; next }
	 { seen[$1] = 1
	   if (!($1 in b)) { printf "%-18s new case (ratio %.3f)\n", $1, $8; next }
	   r = $8 / b[$1]
	   flag = r > 1.15 ? "SLOWER" : r < 0.87 ? "faster" : "ok"
	   if (flag == "SLOWER") bad++
	   printf "%-18s ratio %.3f, baseline %.3f: %+.0f%% %s\n", $1, $8, b[$1], (r - 1) * 100, flag }
	 END { for (k in b) if (!(k in seen)) printf "%-18s not run (in the baseline only)\n", k
	       if (bad) { printf "bench-compare: %d case(s) more than 15%% slower than the baseline ratio\n", bad; exit 1 }
	       print "bench-compare: no case more than 15% slower than the baseline ratio" }' "$base" "$res"
