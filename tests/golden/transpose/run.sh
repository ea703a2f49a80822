# transpose.s and concat.s (the re-layouts): 2-D transposes of ragged
# shapes and every element size, 4-D permutations (NCHW <-> NHWC, a full
# reversal, ones that keep the last axis), rank 3, a batch of small
# matrices per tile, and concat / split along several axes, on
# default.cfg, datacenter.cfg (16 cores) and tpu-v1.cfg.  Values exact
# against permref (a bit copy); every case moves each byte once from DRAM
# and once to it (the DRAM counters equal the tensor's bytes), transposes
# run one vtrans element per element, copies no vector instruction.
# Hazards are checked on the cases whose parts all start on 4-byte
# boundaries (the checker's granule: docs/hazards.md); the others are
# checked for values only.  The element-strided DMA baseline (DMAONLY) is
# exact and at least 5x slower than the tiles; bad parameters are
# assembly errors.  Golden: cycles.
. "$(dirname "$0")/../lib.sh"
pr=$build/permref
dsum() { awk -F, -v re="$2" '$4 == "" && $1 ~ re { s += $2 } END { print s + 0 }' "$1"; }
esz() { case $1 in int8) echo 1 ;; int16|fp16|bf16) echo 2 ;; *) echo 4 ;; esac; }
# check CFG KIND BYTES ELEMS: the DRAM and vector counters of the last run
check() {
	rd=$(dsum "$tmp/c.csv" '^dram\.ch[0-9]+\.read_bytes$')
	wr=$(dsum "$tmp/c.csv" '^dram\.ch[0-9]+\.write_bytes$')
	ve=$(dsum "$tmp/c.csv" '^core[0-9]+\.vector\.elems$')
	vi=$(dsum "$tmp/c.csv" '^core[0-9]+\.vector\.insns$')
	[ "$rd" -eq "$3" ] && [ "$wr" -eq "$3" ] ||
		fail "$1 $2: DRAM read $rd and wrote $wr bytes, the tensor has $3"
	[ "$ve" -eq "$4" ] || fail "$1 $2: the vector unit wrote $ve elements, expected $4"
	[ "$4" -ne 0 ] || [ "$vi" -eq 0 ] || fail "$1 $2: a copy ran $vi vector instructions"
}
# perm CFG DT "SHAPE" "PERM" TRANS HZ
perm() {
	cfg=$1 dt=$2 shape=$3 p=$4 trans=$5 hz=$6
	defs="-D DT=$dt -D RANK=$(echo $shape | wc -w)"
	k=0; n=1
	for d in $shape; do defs="$defs -D D$k=$d"; k=$((k + 1)); n=$((n * d)); done
	k=0
	for q in $p; do defs="$defs -D P$k=$q"; k=$((k + 1)); done
	"$pr" gen "$dt" 7 "$tmp/X.npy" $shape
	# shellcheck disable=SC2086
	"$bin" run -q -c "configs/$cfg" asm/kernels/transpose.s $defs \
		--input X="$tmp/X.npy" --output Y="$tmp/Y.npy" --counters "$tmp/c.csv" \
		$([ "$hz" = 1 ] && echo --check-hazards) 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$cfg $dt [$shape] perm [$p]: run failed"; }
	# shellcheck disable=SC2086
	"$pr" perm "$tmp/X.npy" "$tmp/Y.npy" $p > "$tmp/out" 2>&1 ||
		fail "$cfg $dt [$shape] perm [$p]: $(cat "$tmp/out")"
	check "$cfg" "$dt [$shape] perm [$p]" $((n * $(esz "$dt"))) $([ "$trans" = 1 ] && echo $n || echo 0)
	record "$cfg $dt [$shape] perm [$p]: cycles $(counter "$tmp/c.csv" cycles)"
}
# cat CFG DT "SHAPE" AXIS BK SPLIT HZ
cat_() {
	cfg=$1 dt=$2 shape=$3 ax=$4 bk=$5 sp=$6 hz=$7
	defs="-D DT=$dt -D RANK=$(echo $shape | wc -w) -D AXIS=$ax -D BK=$bk -D SPLIT=$sp"
	k=0; bs=""; ws=""; n=1
	for d in $shape; do
		defs="$defs -D D$k=$d"
		if [ $k -eq "$ax" ]; then bs="$bs $bk"; ws="$ws $((d + bk))"; n=$((n * (d + bk)))
		else bs="$bs $d"; ws="$ws $d"; n=$((n * d)); fi
		k=$((k + 1))
	done
	if [ "$sp" = 0 ]; then
		"$pr" gen "$dt" 3 "$tmp/A.npy" $shape
		"$pr" gen "$dt" 4 "$tmp/B.npy" $bs
		io="--input A=$tmp/A.npy --input B=$tmp/B.npy --output Y=$tmp/W.npy"
	else
		"$pr" gen "$dt" 5 "$tmp/W.npy" $ws
		io="--input X=$tmp/W.npy --output A=$tmp/A.npy --output B=$tmp/B.npy"
	fi
	# shellcheck disable=SC2086
	"$bin" run -q -c "configs/$cfg" asm/kernels/concat.s $defs $io --counters "$tmp/c.csv" \
		$([ "$hz" = 1 ] && echo --check-hazards) 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$cfg $dt [$shape] axis $ax +$bk split=$sp: run failed"; }
	if [ "$sp" = 0 ]; then
		"$pr" concat "$tmp/A.npy" "$tmp/B.npy" "$tmp/W.npy" "$ax" > "$tmp/out" 2>&1
	else
		"$pr" split "$tmp/W.npy" "$tmp/A.npy" "$tmp/B.npy" "$ax" > "$tmp/out" 2>&1
	fi || fail "$cfg $dt [$shape] axis $ax +$bk split=$sp: $(cat "$tmp/out")"
	check "$cfg" "$dt [$shape] axis $ax +$bk split=$sp" $((n * $(esz "$dt"))) 0
	what=concat; [ "$sp" = 1 ] && what=split
	record "$cfg $dt [$shape] $what axis $ax +$bk: cycles $(counter "$tmp/c.csv" cycles)"
}
for cfg in default.cfg datacenter.cfg tpu-v1.cfg; do
	# 2-D transposes: ragged (not multiples of a tile or of a lane block)
	perm $cfg int8 "257 131" "1 0" 1 0
	perm $cfg bf16 "130 67" "1 0" 1 0
	perm $cfg fp32 "300 200" "1 0" 1 1
	perm $cfg int32 "1 77" "1 0" 0 1
	# NCHW -> NHWC, NHWC -> NCHW, a reversal, rank 3
	perm $cfg bf16 "2 40 9 11" "0 2 3 1" 1 1
	perm $cfg int8 "2 9 11 40" "0 3 1 2" 1 0
	perm $cfg fp32 "3 5 7 11" "3 2 1 0" 1 1
	perm $cfg int16 "5 7 9" "2 0 1" 1 0
	# many small matrices: several per tile
	perm $cfg fp32 "64 3 8 8" "0 2 3 1" 1 1
	# the last axis kept: strided copies, no vector work
	perm $cfg int8 "2 4 6 8" "0 2 1 3" 0 1
	perm $cfg fp16 "3 10 7 30" "1 0 2 3" 0 1
	perm $cfg int8 "33 17 9 5" "2 1 0 3" 0 0
	# concat and split
	cat_ $cfg fp32 "2 3 4 5" 1 7 0 1
	cat_ $cfg int8 "30 40" 0 13 0 0
	cat_ $cfg bf16 "2 3 4 6" 3 2 1 1
	cat_ $cfg int16 "7 9 11" 2 5 1 0
done
# The baseline: the same transpose by element-strided DMA alone (a DRAM
# burst per element) is exact too, and the tiles beat it at least 5x.
perm default.cfg fp32 "256 256" "1 0" 1 1
tiled=$(counter "$tmp/c.csv" cycles)
"$bin" run -q -c configs/default.cfg asm/kernels/transpose.s -D R=256 -D C=256 -D DMAONLY=1 \
	--input X="$tmp/X.npy" --output Y="$tmp/Y.npy" --counters "$tmp/c.csv" --check-hazards \
	2> "$tmp/err" || { cat "$tmp/err" >&2; fail "DMAONLY: run failed"; }
"$pr" perm "$tmp/X.npy" "$tmp/Y.npy" 1 0 > "$tmp/out" 2>&1 || fail "DMAONLY: $(cat "$tmp/out")"
dmaonly=$(counter "$tmp/c.csv" cycles)
[ "$dmaonly" -ge $((5 * tiled)) ] || fail "DMA only takes $dmaonly cycles, the tiles $tiled"
record "default.cfg fp32 [256 256] DMA only: cycles $dmaonly"
# Bad parameters: an assembly error naming the rule, exit 1.
bad() {
	want=$1
	shift
	set +e
	"$bin" run -q -c configs/default.cfg "$@" 2> "$tmp/err"
	rc=$?
	set -e
	[ $rc = 1 ] || fail "$*: exit $rc, expected 1"
	grep -q "$want" "$tmp/err" || fail "$*: no '$want' in: $(cat "$tmp/err")"
	record "bad parameters ($want): exit 1"
}
bad "must be a permutation" asm/kernels/transpose.s -D PERM=1123
bad "must be an axis of X" asm/kernels/transpose.s -D RANK=3 -D PERM=123
bad "1, 2 or 4 bytes" asm/kernels/transpose.s -D R=8 -D C=8 -D DT=int4
bad "exceed the scratchpad" asm/kernels/transpose.s -D R=512 -D C=512 -D TR=512 -D TC=512
bad "keeps the last axis" asm/kernels/transpose.s -D PERM=1023 -D DMAONLY=1
bad "AXIS must be an axis" asm/kernels/concat.s -D RANK=3 -D AXIS=3
bad "1, 2 or 4 bytes" asm/kernels/concat.s -D DT=int4
golden
