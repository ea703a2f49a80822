#!/bin/sh
# dram_doc.sh BIN - the measured tables of docs/dram.md and its SVG plots.
#
# Runs `npusim dram` for every preset: bandwidth of stream, random, copy and
# 50/50 random traffic (open loop), unloaded latency (one request at a
# time), and latency against offered load (--sweep), and prints the
# Markdown tables; the plots go to docs/dram_<preset>.svg.  Deterministic:
# the same binary prints the same tables.  Not part of `make test` (about
# a minute of host time); rerun it when the model changes and paste.
set -e
bin=${1:?usage: sh scripts/dram_doc.sh path/to/npusim}
presets="ddr4_3200 ddr5_4800 lpddr5_6400 hbm2 hbm2e hbm3"
n=100000

# pct PRESET ARGS...: "% of peak" of one open-loop run
pct() {
	p=$1
	shift
	"$bin" dram -s dram.preset="$p" --requests $n "$@" |
		sed -n 's/^bandwidth: *[0-9.]* GB\/s = \([0-9.]*\)% .*/\1/p'
}

echo "| preset | peak GB/s | stream | random | copy | random 50/50 | stream, per-bank refresh |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for p in $presets; do
	peak=$("$bin" dram -s dram.preset="$p" --requests 1 |
		sed -n 's/.*of peak \([0-9.]*\) GB\/s/\1/p')
	pb="-"
	case $p in ddr4*) ;; *) pb="$(pct "$p" --pattern stream -s dram.refresh=per_bank) %" ;; esac
	echo "| $p | $peak | $(pct "$p" --pattern stream) % | $(pct "$p" --pattern random) % |" \
		"$(pct "$p" --pattern copy) % | $(pct "$p" --pattern random --reads 50) % | $pb |"
done
echo

# unloaded latency: row hits (a stream, one at a time) and random reads
# (conflicts and misses), by row outcome, in core cycles of 1 ns
echo "| preset | hit (measured) | miss (measured) | conflict (measured) |"
echo "| --- | --- | --- | --- |"
for p in $presets; do
	h=$("$bin" dram -s dram.preset="$p" --pattern stream --outstanding 1 --requests 20000 |
		sed -n 's/.*hit \([0-9.]*\) cycles.*/\1/p')
	line=$("$bin" dram -s dram.preset="$p" --pattern pointer-chase --requests 20000 | grep 'by row')
	m=$(echo "$line" | sed -n 's/.*miss \([0-9.]*\) cycles.*/\1/p')
	c=$(echo "$line" | sed -n 's/.*conflict \([0-9.]*\) cycles.*/\1/p')
	echo "| $p | $h ns | $m ns | $c ns |"
done
echo

# latency against offered load: read made -> done, ns, every 10 % of peak
for p in $presets; do
	"$bin" dram -s dram.preset="$p" --sweep --step 10 --requests $n \
		--pattern stream,random,copy,mixed --svg "docs/dram_$p.svg" > "/tmp/dram_sweep_$p.csv"
done
echo "| preset | pattern | 10 % | 20 % | 30 % | 40 % | 50 % | 60 % | 70 % | 80 % | 90 % | 100 % |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for p in $presets; do
	awk -F, 'NR > 1 {
		k = $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		sat = $5 < 0.95 * $4
		v[k, int($3 / 10 + 0.5)] = sat ? "sat. (" $6 " %)" : sprintf("%.0f", $10)
	}
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]; line = "| " $1 " | " k
			for (j = 1; j <= 10; j++) line = line " | " ((k, j) in v ? v[k, j] : "")
			print line " |"
		}
	}' p="$p" "/tmp/dram_sweep_$p.csv" | sed "s/^| [^|]* |/| $p |/"
done
