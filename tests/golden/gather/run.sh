# gather.s (embedding gather and scatter-add through the indirect DMA, SPMD)
# on default.cfg, datacenter.cfg (16 cores) and tpu-v1.cfg, checked
# against tests/tools/gatherref.c:
# - gather: fp32, bf16 (odd row bytes) and int8 tables, ragged blocks,
#   indices outside [0, V) (clamped): every row bit-exact; the DMA moves
#   exactly the rows, their indices and the output (no row twice);
# - scatter-add: fp32 with every row hit many times (duplicates inside
#   a block and across blocks) and indices outside [0, V) (dropped),
#   within the summation bound; int8 updates into int32 exactly; bf16
#   updates; a column-chunked run (DC below the row); untouched rows
#   bit-identical; exactly one scatter of every update's row segment.
# No hazards.  Golden: cycles and DRAM bytes.
. "$(dirname "$0")/../lib.sh"
gr=$build/gatherref
# sum CSV PATTERN: a counter summed over every core and engine (whole run).
sum() { grep -E "^$2,[^,]*,[^,]*,$" "$1" | cut -d, -f2 | awk '{ s += $1 } END { print s + 0 }'; }

# gather CFG V D N TYPE LO HI: a table, N indices in [LO, HI), check.
gather() {
	cfg=$1 v=$2 d=$3 n=$4 ty=$5 lo=$6 hi=$7
	es=4
	case $ty in bf16) es=2 ;; int8) es=1 ;; esac
	"$gr" gen "$v" "$d" "$ty" 11 "$tmp/E.npy"
	"$gr" idx "$n" "$lo" "$hi" 12 "$tmp/I.npy"
	"$bin" run -q -c "configs/$cfg" asm/kernels/gather.s -D V="$v" -D D="$d" -D N="$n" \
		-D TYPE="$ty" --input E="$tmp/E.npy" --input I="$tmp/I.npy" --output Y="$tmp/Y.npy" \
		--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$cfg gather $v x $d $ty N=$n: run failed"; }
	"$gr" gcheck "$tmp/E.npy" "$tmp/I.npy" "$tmp/Y.npy" > "$tmp/out" ||
		fail "$cfg gather $v x $d $ty N=$n: $(cat "$tmp/out")"
	rd=$(sum "$tmp/c.csv" 'core[0-9]+\.dma[0-9]+\.bytes_dram_to_sram')
	wr=$(sum "$tmp/c.csv" 'core[0-9]+\.dma[0-9]+\.bytes_sram_to_dram')
	[ "$rd" = $((n * d * es + 4 * n)) ] || fail "$cfg gather: $rd bytes read, want $((n * d * es + 4 * n))"
	[ "$wr" = $((n * d * es)) ] || fail "$cfg gather: $wr bytes written, want $((n * d * es))"
	record "$cfg gather $v x $d $ty N=$n [$lo, $hi): cycles $(counter "$tmp/c.csv" cycles)" \
		"dram_read $rd"
}

# scatter CFG V D N TYPE LO HI [ARGS]: Y0, N updates to indices in
# [LO, HI), check.
scatter() {
	cfg=$1 v=$2 d=$3 n=$4 ty=$5 lo=$6 hi=$7
	shift 7
	yt=fp32 es=4
	case $ty in bf16|fp16) es=2 ;; int8) yt=int32 es=1 ;; int16) yt=int32 es=2 ;; esac
	"$gr" gen "$v" "$d" "$yt" 21 "$tmp/Y0.npy"
	"$gr" idx "$n" "$lo" "$hi" 22 "$tmp/I.npy"
	"$gr" gen "$n" "$d" "$ty" 23 "$tmp/U.npy"
	"$bin" run -q -c "configs/$cfg" asm/kernels/gather.s -D OP=1 -D V="$v" -D D="$d" -D N="$n" \
		-D TYPE="$ty" "$@" --input Y="$tmp/Y0.npy" --input I="$tmp/I.npy" --input U="$tmp/U.npy" \
		--output Y="$tmp/Y.npy" --counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$cfg scatter-add $v x $d $ty N=$n $*: run failed"; }
	"$gr" scheck "$tmp/Y0.npy" "$tmp/I.npy" "$tmp/U.npy" "$tmp/Y.npy" > "$tmp/out" ||
		fail "$cfg scatter-add $v x $d $ty N=$n $*: $(cat "$tmp/out")"
	rd=$(sum "$tmp/c.csv" 'core[0-9]+\.dma[0-9]+\.bytes_dram_to_sram')
	wr=$(sum "$tmp/c.csv" 'core[0-9]+\.dma[0-9]+\.bytes_sram_to_dram')
	# U once and every row segment gathered once, plus each core's copy
	# of the indices per column chunk; every row segment scattered once
	ix=$((rd - n * d * (es + 4)))
	[ $ix -gt 0 ] && [ $((ix % (4 * n))) = 0 ] ||
		fail "$cfg scatter-add: $rd bytes read, want $((n * d * (es + 4))) + k x $((4 * n))"
	[ "$wr" = $((n * d * 4)) ] || fail "$cfg scatter-add: $wr bytes written, want $((n * d * 4))"
	record "$cfg scatter-add $v x $d $ty N=$n [$lo, $hi)${*:+ $*}: cycles" \
		"$(counter "$tmp/c.csv" cycles) index_copies $((ix / (4 * n)))" \
		"$(sed 's/.*; \([0-9]* rows updated, at most [0-9]* times\).*/\1/' "$tmp/out")"
}

for cfg in default.cfg datacenter.cfg tpu-v1.cfg; do
	gather $cfg 1000 70 301 fp32 -20 1020
	gather $cfg 257 33 1000 bf16 0 257
	gather $cfg 100 50 77 int8 -3 103
	scatter $cfg 40 70 300 fp32 -3 43
	scatter $cfg 500 48 1001 int8 -2 502
	scatter $cfg 7 20 200 bf16 0 7
done
scatter default.cfg 40 70 300 fp32 -3 43 -D DC=16 -D B=9
scatter datacenter.cfg 1 40 2000 int16 0 1
golden
