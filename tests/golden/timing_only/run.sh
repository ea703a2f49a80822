# --timing-only computes no tensor values but must give exactly the cycles,
# counters and trace of the full run: every bundled kernel, every dataflow
# and input type, single- and multi-core, with multicast, is run both ways
# with the same real inputs and the counters files and traces compared byte
# for byte; so is a third run with --no-fast-forward (every cycle's events).  Programs whose timing depends on data (vgather, vscatter) are
# refused at their source line, as are --output and the per-PE model.
. "$(dirname "$0")/../lib.sh"
small() {
	echo -c configs/default.cfg -s chip.cores=$1 -s noc.cols=3 -s noc.rows=2 \
		-s "noc.core_nodes=[]" -s "noc.dram_nodes=[]"
}
"$ref" gen 96 64 80 5 "$tmp/A.npy" "$tmp/B.npy"
"$ref" genf 96 64 80 6 "$tmp/Af.npy" "$tmp/Bf.npy"
n=0
# same NAME ARGS...: the run with values and the run without agree.
same() {
	name=$1
	shift
	"$bin" run -q "$@" --counters "$tmp/v.csv" --trace "$tmp/v.json.gz" ||
		fail "$name: run failed"
	"$bin" run -q "$@" --timing-only --counters "$tmp/t.csv" --trace "$tmp/t.json.gz" ||
		fail "$name: timing-only run failed"
	cmp -s "$tmp/v.csv" "$tmp/t.csv" || fail "$name: counters differ: $(diff "$tmp/v.csv" "$tmp/t.csv" | head -4)"
	[ "$(digest "$tmp/v.json.gz")" = "$(digest "$tmp/t.json.gz")" ] || fail "$name: traces differ"
	# and fast-forward (the default) changes nothing either
	"$bin" run -q "$@" --no-fast-forward --counters "$tmp/f.csv" --trace "$tmp/f.json.gz" ||
		fail "$name: run without fast-forward failed"
	cmp -s "$tmp/v.csv" "$tmp/f.csv" || fail "$name: counters differ without fast-forward: $(diff "$tmp/v.csv" "$tmp/f.csv" | head -4)"
	[ "$(digest "$tmp/v.json.gz")" = "$(digest "$tmp/f.json.gz")" ] || fail "$name: traces differ without fast-forward"
	record "$name: cycles $(counter "$tmp/v.csv" cycles), identical"
	n=$((n + 1))
}
G="asm/kernels/gemm.s -D M=96 -D K=64 -D N=80"
for df in ws os is; do
	same "gemm $df int8" -c configs/default.cfg $G -D DF=$df --input A="$tmp/A.npy" --input B="$tmp/B.npy"
	same "gemm $df bf16" -c configs/default.cfg $G -D DF=$df -D IT=bf16 --input A="$tmp/Af.npy" --input B="$tmp/Bf.npy"
done
same "gemm ws int8->int8" -c configs/default.cfg $G -D OUT=int8 --input A="$tmp/A.npy" --input B="$tmp/B.npy"
same "gemm 16x16 gemmini" -c configs/gemmini.cfg $G --input A="$tmp/A.npy" --input B="$tmp/B.npy"
same "gemm 256x256 tpu-v1" -c configs/tpu-v1.cfg $G --input A="$tmp/A.npy" --input B="$tmp/B.npy"
# result rows wider than the accumulator serves in a cycle (256 and 320
# bytes against 128): the array stalls on every row, and fast-forward
# takes the periods of that regime at once
same "gemm ws int8 128x128 (stalling rows)" -c configs/default.cfg -s core.matrix.rows=128 \
	-s core.matrix.cols=128 $G --input A="$tmp/A.npy" --input B="$tmp/B.npy"
same "gemm is bf16 64x64 (stalling rows)" -c configs/default.cfg -s core.matrix.rows=64 \
	-s core.matrix.cols=64 $G -D DF=is -D IT=bf16 --input A="$tmp/Af.npy" --input B="$tmp/Bf.npy"
same "gemm_db" -c configs/default.cfg asm/kernels/gemm_db.s -D M=256 -D K=64 -D N=64 --input A=zeros --input B=zeros
same "gemm_mc x4" $(small 4) asm/kernels/gemm_mc.s -D M=96 -D K=64 -D N=80 --input A="$tmp/A.npy" --input B="$tmp/B.npy"
same "gemm_mc_share x4 multicast" $(small 4) -s noc.multicast=router asm/kernels/gemm_mc_share.s \
	-D MCAST=1 -D M=96 -D K=64 -D N=80 --input A="$tmp/A.npy" --input B="$tmp/B.npy"
"$build/lnref" gen 16 64 16 "$tmp/X.npy"
same "layernorm" -c configs/default.cfg asm/kernels/layernorm.s -D R=16 --input X="$tmp/X.npy"
record "$n kernels identical"

# refusals
printf '.tensor X, spm, 0, int32, 16\n\tli t0, int32\n\tvset type, t0\n\tli t0, 16\n\tvset len, t0\n\tli t0, 1\n\tvset rows, t0\n\tli t1, 0\n\tvgather t1, t1, t1\n\tfence all\n\thalt\n' > "$tmp/g.s"
set +e
"$bin" run -q --timing-only "$tmp/g.s" --input X=zeros 2> "$tmp/err"
st=$?
set -e
[ "$st" = 2 ] && grep -q "g.s:9: error: timing only: vgather takes its addresses from an index tile" "$tmp/err" ||
	fail "vgather: exit $st, $(cat "$tmp/err")"
set +e
"$bin" run -q --timing-only $G --input A=zeros --input B=zeros --output C="$tmp/C.npy" 2> "$tmp/err"
st=$?
"$bin" run -q --timing-only --matrix-model=pe $G --input A=zeros --input B=zeros 2> "$tmp/err2"
st2=$?
set -e
[ "$st" = 2 ] && grep -q "nothing to --output" "$tmp/err" || fail "--output: exit $st, $(cat "$tmp/err")"
[ "$st2" = 2 ] && grep -q "per-PE reference model" "$tmp/err2" || fail "pe: exit $st2, $(cat "$tmp/err2")"
[ ! -e "$tmp/C.npy" ] || fail "--output was written"
golden
