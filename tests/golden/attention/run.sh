# attention.s (flash attention: online softmax in the accumulator, causal
# mask, multi-head, resident or streamed K/V, SPMD over cores): every
# output within attnref's derived tolerance of a double reference (the
# probabilities and the output rounded to bf16/fp16: 2^-P (max |V| +
# |ref|)), no hazards; ragged sequence lengths (N, NK not multiples of
# the blocks, NK > N), several query blocks per head, the S-scaled path
# (D = 32, 128) and the Q-prescaled one (D = 64), fp16, on default.cfg,
# gemmini.cfg, tpu-v1.cfg and datacenter.cfg (16 cores: the items split
# between them).  Golden: cycles and MACs.
. "$(dirname "$0")/../lib.sh"
at=$build/attnref
# config H N NK D CAUSAL P(bits) [-D ...]
while read -r cfg h n nk d c p extra; do
	"$at" gen "$h" "$n" "$nk" "$d" "$p" 5 "$tmp/Q.npy" "$tmp/KT.npy" "$tmp/V.npy"
	# shellcheck disable=SC2086 # the case's extra -D options, split on purpose
	"$bin" run -q -c "configs/$cfg" asm/kernels/attention.s -D H="$h" -D N="$n" -D NK="$nk" \
		-D D="$d" -D CAUSAL="$c" $extra --input Q="$tmp/Q.npy" --input KT="$tmp/KT.npy" \
		--input V="$tmp/V.npy" --output O="$tmp/O.npy" --counters "$tmp/c.csv" \
		--check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$cfg $h $n $nk $d $c $extra: run failed"; }
	"$at" check "$h" "$n" "$nk" "$d" "$c" "$tmp/Q.npy" "$tmp/KT.npy" "$tmp/V.npy" "$tmp/O.npy" \
		> "$tmp/out" || fail "$cfg $h $n $nk $d $c $extra: $(cat "$tmp/out")"
	macs=$(counter_sum "$tmp/c.csv" 'core[0-9]+\.matrix\.macs')
	# every visible score costs D MACs twice (Q K^T and P V): without a
	# mask all of them, exactly; with one, no more (whole key blocks past
	# a query block's last visible key are skipped)
	if [ "$c" = 0 ]; then
		[ "$macs" -eq $((2 * h * n * nk * d)) ] ||
			fail "$cfg $h $n $nk $d: $macs MACs, not 2*H*N*NK*D"
	else
		[ "$macs" -le $((2 * h * n * nk * d)) ] ||
			fail "$cfg $h $n $nk $d causal: $macs MACs, more than 2*H*N*NK*D"
	fi
	busy=$(awk -F, '$4 == "" && $1 ~ /^core[0-9]+\.matrix\.macs$/ && $2 > 0 { k++ } END { print k + 0 }' "$tmp/c.csv")
	case $cfg in datacenter.cfg) [ "$busy" -ge 2 ] || fail "$cfg: the work ran on $busy core(s)" ;; esac
	record "$cfg H=$h N=$n NK=$nk D=$d causal=$c $extra: cycles $(counter "$tmp/c.csv" cycles) macs $macs cores $busy"
done <<'CASES'
default.cfg 1 64 64 64 0 8
default.cfg 2 100 150 64 1 8 -D BR=32
default.cfg 2 100 150 64 1 8 -D BR=32 -D RES=0
default.cfg 1 96 130 32 0 8
default.cfg 1 80 80 128 1 11 -D ITYPE=fp16
gemmini.cfg 2 64 64 64 0 8
tpu-v1.cfg 1 300 300 64 1 8
tpu-v1.cfg 2 200 260 256 1 8 -D BR=64
datacenter.cfg 4 256 300 128 1 11 -D ITYPE=fp16
datacenter.cfg 4 256 300 128 1 8 -D RES=0
datacenter.cfg 1 512 512 64 1 8 -D BR=64
CASES
# Q, V and O sequence-major (QSEQ, VSEQ, OSEQ: B x N x HB x D, as the
# projections write them before the head split the mapper no longer
# runs): the same attention as head-major, O turned back for attnref.
py=/usr/bin/python3
while read -r cfg b hb n nk d c; do
	h=$((b * hb))
	"$at" gen "$h" "$n" "$nk" "$d" 8 5 "$tmp/Q.npy" "$tmp/KT.npy" "$tmp/V.npy"
	$py -c "
import numpy as np
for t, r in (('Q', $n), ('V', $nk)):
    x = np.load('$tmp/%s.npy' % t).reshape($b, $hb, r, $d).transpose(0, 2, 1, 3)
    np.save('$tmp/%ss.npy' % t, np.ascontiguousarray(x).reshape($b * r, $hb * $d))" ||
		fail "seq $cfg: numpy"
	"$bin" run -q -c "configs/$cfg" asm/kernels/attention.s -D H="$h" -D HB="$hb" -D N="$n" \
		-D NK="$nk" -D D="$d" -D CAUSAL="$c" -D QSEQ=1 -D VSEQ=1 -D OSEQ=1 \
		--input Q="$tmp/Qs.npy" --input KT="$tmp/KT.npy" --input V="$tmp/Vs.npy" \
		--output O="$tmp/Os.npy" --counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "seq $cfg $b x $hb $n $nk $d: run failed"; }
	$py -c "
import numpy as np
o = np.load('$tmp/Os.npy').reshape($b, $n, $hb, $d).transpose(0, 2, 1, 3)
np.save('$tmp/O.npy', np.ascontiguousarray(o).reshape($h * $n, $d))" || fail "seq $cfg: numpy"
	"$at" check "$h" "$n" "$nk" "$d" "$c" "$tmp/Q.npy" "$tmp/KT.npy" "$tmp/V.npy" "$tmp/O.npy" \
		> "$tmp/out" || fail "seq $cfg $b x $hb $n $nk $d $c: $(cat "$tmp/out")"
	record "$cfg B=$b HB=$hb N=$n NK=$nk D=$d causal=$c sequence-major Q, V, O: cycles $(counter "$tmp/c.csv" cycles)"
done <<'CASES'
default.cfg 2 3 40 56 64 0
tpu-v1.cfg 1 4 100 100 64 1
datacenter.cfg 2 2 64 80 128 0
CASES
golden
