#!/bin/sh
# readme_tables.sh BIN [--check] - README.md's measured tables, made
# again from what they measure (`make readme`); `--check` instead fails
# when the README's copy differs (`make test`), as docs/kernels.md is
# checked.
#
# A generated table sits between two marker lines,
#   <!-- generated: scripts/readme_tables.sh NAME -->
#   <!-- end NAME -->
# and is written by the function of that NAME below:
#   array   the array-size sweep of the default chip (simulated: the same
#           commands as the README's shell loop)
#   speed   the speed table, from the committed measurement of the
#           simulator itself (bench/baseline.csv and baseline_micro.txt:
#           a `make bench` run's results.csv and results_micro.txt, made
#           into the table by bench/table.sh); host times are not
#           remeasured here
set -e
bin=${1:?usage: readme_tables.sh path/to/npusim [--check]}
mode=${2:-update}
build=$(dirname "$bin")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1,234,567
commas() { echo "$1" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta'; }
# The whole run's value of counter NAME in counters CSV FILE.
counter() { grep "^$2," "$1" | head -1 | cut -d, -f2; }

array() {
	"$build/gemmref" gen 256 256 256 1 "$tmp/a.npy" "$tmp/b.npy" > /dev/null
	echo "| array | cycles | matrix busy | dma0 busy |"
	echo "| --- | --- | --- | --- |"
	for n in 16 32 64 128; do
		"$bin" run -q -c configs/default.cfg -s core.matrix.rows=$n -s core.matrix.cols=$n \
			-s core.scratchpad.bytes=1M -s core.accumulator.bytes=1M \
			asm/kernels/gemm.s -D ROWS=$n -D COLS=$n -D M=256 -D K=256 -D N=256 \
			--input A="$tmp/a.npy" --input B="$tmp/b.npy" --counters "$tmp/s.csv"
		echo "| ${n}x$n | $(commas "$(counter "$tmp/s.csv" cycles)") |" \
			"$(commas "$(counter "$tmp/s.csv" core0.matrix.busy_cycles)") |" \
			"$(commas "$(counter "$tmp/s.csv" core0.dma0.busy_cycles)") |"
	done
}

speed() {
	sh bench/table.sh bench/baseline.csv bench/baseline_micro.txt
}

cp README.md "$tmp/README.md"
for name in $(sed -n 's/^<!-- generated: scripts\/readme_tables.sh \([a-z]*\) -->$/\1/p' README.md); do
	"$name" > "$tmp/$name"
	awk -v name="$name" -v file="$tmp/$name" '
		$0 == "<!-- generated: scripts/readme_tables.sh " name " -->" {
			print; while ((getline l < file) > 0) print l; skip = 1; next }
		$0 == "<!-- end " name " -->" { skip = 0 }
		!skip' "$tmp/README.md" > "$tmp/next"
	mv "$tmp/next" "$tmp/README.md"
done
if [ "$mode" = --check ]; then
	if cmp -s "$tmp/README.md" README.md; then
		echo "readme.tables: up to date"
	else
		echo "README.md's measured tables are out of date: run 'make readme' and commit it" >&2
		diff -u README.md "$tmp/README.md" | head -30 >&2
		exit 1
	fi
else
	cp "$tmp/README.md" README.md
fi
