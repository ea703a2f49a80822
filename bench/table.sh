#!/bin/sh
# table.sh RESULTS.csv MICRO.txt - README.md's speed table from one run of
# the suite: RESULTS.csv as bench/run.sh writes it, MICRO.txt the micro
# benches' lines of the same run ("bench.engine.events: ...").  bench/run.sh
# writes it beside its results; scripts/readme_tables.sh puts the
# baseline's (bench/baseline.csv, bench/baseline_micro.txt) into the README,
# and make test checks that the README shows the committed measurement.
csv=${1:?usage: table.sh RESULTS.csv MICRO.txt}
micro=${2:?usage: table.sh RESULTS.csv MICRO.txt}
awk -F, -v micro="$micro" '
function host(c) { return sprintf("%.2g", h[c]) }
function mcyc(c) { return sprintf("%.3g", cyc[c] / 1e6) }
function rate(c) { return sprintf("%.1f", r[c] / 1e6) }
function mb(c) { return sprintf("%.1f", kib[c] / 1024) }
function span(lo, hi, f) { return sprintf(f, lo) "-" sprintf(f, hi) }
# the number before "what" in a micro line
function field(line, what,   n, i, w) {
	n = split(line, w, /[ ,(]+/)
	for (i = 2; i <= n; i++) if (w[i] == what) return w[i - 1]
	return ""
}
NR > 1 { h[$1] = $3; cyc[$1] = $2; r[$1] = $6; kib[$1] = $7 }
END {
	while ((getline line < micro) > 0) {
		split(line, w, ":")
		key = w[1]
		if (key == "bench.engine.events") eng[++ne] = field(line, "M")
		else if (key ~ /^bench\.matrix\.fast\.fixed\./) {
			ev = field(line, "events/insn"); us = field(line, "us/insn")
			if (!nm || ev < evlo) evlo = ev; if (!nm || ev > evhi) evhi = ev
			if (!nm || us < uslo) uslo = us; if (!nm || us > ushi) ushi = us
			nm++
		} else if (key ~ /^bench\.noc\.idle_/) idle[key] = field(line, "host")
		else if (key ~ /^bench\.noc\.uniform_/) uni[key] = field(line, "host")
	}
	for (c in h) if (c ~ /^k_/) {
		if (!nk || r[c] < rlo) rlo = r[c]; if (!nk || r[c] > rhi) rhi = r[c]
		if (!nk || h[c] < hlo) hlo = h[c]; if (!nk || h[c] > hhi) hhi = h[c]
		nk++
	}
	print "| measurement | result |"
	print "| --- | --- |"
	printf "| event engine, 16 / 1,024 / 65,536 pending events | %s / %s / %s M events per second |\n", eng[1], eng[2], eng[3]
	printf "| int8 GEMM 1024^3 on tpu-v1 (`gemm.s`), with values / `--timing-only` (same cycles and counters) | %s / %s s host (%s M simulated cycles) |\n", host("gemm_1024_tpu"), host("gemm_1024_tpu_to"), mcyc("gemm_1024_tpu")
	printf "| int8 GEMM 1024^3 on default.cfg'"'"'s 32x32 (4 MiB SRAM), with values / timing-only | %s / %s s host (%s M simulated cycles) |\n", host("gemm_1024_32x32"), host("gemm_1024_32_to"), mcyc("gemm_1024_32x32")
	printf "| the same on 128x128 / 8x8 arrays, with values | %s / %s s host (%s / %s M simulated cycles) |\n", host("gemm_1024_128"), host("gemm_1024_8x8"), mcyc("gemm_1024_128"), mcyc("gemm_1024_8x8")
	printf "| one 16x16x16 matrix instruction on a 16x16 ... 256x256 array | %s events and %s us of host time on every size (cost does not grow with R x C) |\n", span(evlo, evhi, "%.1f"), span(uslo, ushi, "%.1f")
	printf "| end-to-end int8 GEMM 512x256x256, 16x16 / 32x32 / 256x256 array (DRAM traffic over the NoC) | %s / %s / %s M simulated cycles per second |\n", rate("gemm_16x16"), rate("gemm_32x32"), rate("gemm_256x256")
	printf "| same on 32x32 with the per-PE reference model (`--matrix-model=pe`) | %.1fx the host time of the fast model |\n", h["gemm_32x32_pe"] / h["gemm_32x32"]
	printf "| same on 32x32 with `--trace` | %.1fx the host time untraced |\n", h["gemm_32x32_trace"] / h["gemm_32x32"]
	printf "| int8 GEMM 512x1024x1024 (`gemm_db.s`), `core.control.queue_depth` 8 / 1024 | %s / %s s host, %s / %s MB: the depth costs nothing |\n", host("gemm_db_q8"), host("gemm_db_q1024"), mb("gemm_db_q8"), mb("gemm_db_q1024")
	printf "| NoC, the same sparse traffic on a 2x2 / 4x4 / 8x8 / 16x16 mesh | %s / %s / %s / %s host ns per simulated cycle (idle routers cost nothing) |\n", idle["bench.noc.idle_2x2"], idle["bench.noc.idle_4x4"], idle["bench.noc.idle_8x8"], idle["bench.noc.idle_16x16"]
	printf "| NoC, uniform traffic near saturation, 4x4 / 16x16 mesh | %s / %s host ns per flit-hop |\n", uni["bench.noc.uniform_4x4"], uni["bench.noc.uniform_16x16"]
	printf "| `npusim dram --pattern random`, HBM3, 200,000 requests | %s s host: %.1f M requests per host second |\n", host("dram_hbm3_rand"), 0.2 / h["dram_hbm3_rand"]
	printf "| every other bundled kernel once (`k_*` cases: attention, conv2d, softmax, norm, quant, gather, ...), on shapes of docs/kernels.md | %s M simulated cycles per second, %s s each (DMA and vector bound: the NoC, DRAM and SRAM arbitration, not the array) |\n", span(rlo / 1e6, rhi / 1e6, "%.1f"), span(hlo, hhi, "%.2g")
	printf "| a run from Python (`py_tiny_run`: 1,000 x (new chip, load, run, counters) in one process) | %.0f us per run, Python'"'"'s start included |\n", h["py_tiny_run"] * 1000
	printf "| `npusim model`: ResNet-50 on tpu-v1, timing-only / with values; a BERT-base layer on datacenter.cfg, timing-only | %s / %s s (%s M simulated cycles); %s s (%s M simulated cycles, 16 cores) |\n", host("model_r50_tpu_to"), host("model_r50_tpu"), mcyc("model_r50_tpu"), host("model_bert_dc_to"), mcyc("model_bert_dc_to")
}' "$csv"
