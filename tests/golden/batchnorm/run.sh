# batchnorm.s (inference batch normalisation of NHWC rows, parameters
# folded on chip, one multiply and one add per element with row operands,
# SPMD over interleaved blocks): fp32 and bf16, with and without relu, on
# default.cfg, datacenter.cfg (16 cores) and tpu-v1.cfg, against
# tests/tools/bnref.c (double): within 8 fp32 units of rounding of
# |x s| + |mean s| + |beta| (bf16: plus its own rounding); ragged
# shapes (rows and blocks that do not divide, 3 channels); no hazards;
# Y written exactly once.  Golden: cycles and vector busy cycles.
. "$(dirname "$0")/../lib.sh"
bn=$build/bnref
sum() { grep -E "^$2,[^,]*,[^,]*,$" "$1" | cut -d, -f2 | awk '{ s += $1 } END { print s + 0 }'; }
for cfg in default.cfg datacenter.cfg tpu-v1.cfg; do
	for shape in "301 70" "1000 3" "5 257"; do
		set -- $shape
		"$bn" params "$2" 31 "$tmp/G.npy" "$tmp/B.npy" "$tmp/M.npy" "$tmp/V.npy"
		for ty in fp32 bf16; do
			es=4
			[ $ty = bf16 ] && es=2
			"$bn" gen "$1" "$2" $ty 32 "$tmp/X.npy"
			for relu in 0 1; do
				"$bin" run -q -c "configs/$cfg" asm/kernels/batchnorm.s -D R="$1" -D C="$2" \
					-D TYPE=$ty -D RELU=$relu --input X="$tmp/X.npy" --input GAMMA="$tmp/G.npy" \
					--input BETA="$tmp/B.npy" --input MEAN="$tmp/M.npy" --input VAR="$tmp/V.npy" \
					--output Y="$tmp/Y.npy" --counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
					{ cat "$tmp/err" >&2; fail "$cfg ${1}x$2 $ty relu=$relu: run failed"; }
				"$bn" check "$tmp/X.npy" "$tmp/G.npy" "$tmp/B.npy" "$tmp/M.npy" "$tmp/V.npy" \
					"$tmp/Y.npy" 1e-5 $relu 4.8e-7 > "$tmp/out" ||
					fail "$cfg ${1}x$2 $ty relu=$relu: $(cat "$tmp/out")"
				wr=$(sum "$tmp/c.csv" 'core[0-9]+\.dma[0-9]+\.bytes_sram_to_dram')
				[ "$wr" = $(($1 * $2 * es)) ] ||
					fail "$cfg ${1}x$2 $ty: $wr bytes stored, want $(($1 * $2 * es))"
				record "$cfg ${1}x$2 $ty relu=$relu: cycles $(counter "$tmp/c.csv" cycles)" \
					"vector_busy $(counter "$tmp/c.csv" core0.vector.busy_cycles)"
			done
		done
	done
done
golden
