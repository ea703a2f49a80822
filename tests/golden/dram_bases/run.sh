# dram_bases: every kernel's DRAM tensors can be placed with -D
# NAME_DRAM=ADDR (asm/kernels/lib/dram.inc), as the model compiler
# places each layer's tensors.  Each kernel runs twice on the same
# inputs: in its own layout and with every base moved (reversed order,
# odd multiples of 64 apart, high addresses); the outputs must be
# identical bit for bit (the kernels' own goldens check the values of
# the default layout against the references).  batchnorm.s with its four
# parameter vectors no longer adjacent takes four copies instead of one:
# checked against bnref.  A base off the 64-byte grid is an assembly
# error naming it.  Golden: the cycles of the moved runs.
. "$(dirname "$0")/../lib.sh"
g=$build/gatherref

# same NAME CFG KERNEL "DEFINES" "MOVED DEFINES" "INPUTS" OUT...: the
# outputs (tensor names) of the two runs compared
same() {
	name=$1 cfg=$2 k=$3 defs=$4 moved=$5 ins=$6
	shift 6
	outs0="" outs1=""
	for o in "$@"; do
		outs0="$outs0 --output $o=$tmp/$o.0.npy"
		outs1="$outs1 --output $o=$tmp/$o.1.npy"
	done
	for v in 0 1; do
		eval "o=\$outs$v"
		mv_=
		[ $v = 1 ] && mv_=$moved
		# shellcheck disable=SC2086 # defines, inputs and outputs, split on purpose
		"$bin" run -q -c "configs/$cfg" "asm/kernels/$k" $defs $mv_ $ins $o \
			--counters "$tmp/c$v.csv" --check-hazards 2> "$tmp/err" ||
			{ cat "$tmp/err" >&2; fail "$name: run $v failed"; }
	done
	for o in "$@"; do
		cmp -s "$tmp/$o.0.npy" "$tmp/$o.1.npy" || fail "$name: $o differs when the bases move"
	done
	record "$name $cfg: cycles $(counter "$tmp/c0.csv" cycles) moved $(counter "$tmp/c1.csv" cycles)"
}

"$g" gen 40 96 fp32 1 "$tmp/X.npy"
"$g" gen 1 96 fp32 2 "$tmp/G.npy"
"$g" gen 1 96 fp32 3 "$tmp/B.npy"
"$g" gen 40 64 fp32 4 "$tmp/X64.npy"
"$g" gen 48 64 int8 5 "$tmp/A8.npy"
"$g" gen 64 32 int8 6 "$tmp/B8.npy"
"$g" gen 3 96 fp32 7 "$tmp/S3.npy"
"$g" gen 300 32 fp32 8 "$tmp/E.npy"
"$g" idx 50 0 300 9 "$tmp/I.npy"
"$build/permref" gen fp32 10 "$tmp/X4.npy" 1 8 8 16

# the SPMD kernels on one core and on 16
for cfg in default.cfg datacenter.cfg; do
	same "softmax" "$cfg" softmax.s "-D R=40 -D L=96" "-D X_DRAM=0x100000 -D Y_DRAM=0x40" \
		"--input X=$tmp/X.npy" Y
	same "layernorm + beta" "$cfg" norm.s "-D R=40 -D L=96" \
		"-D X_DRAM=0x300040 -D Y_DRAM=0x200000 -D G_DRAM=0x400 -D B_DRAM=0x80" \
		"--input X=$tmp/X.npy --input G=$tmp/G.npy --input B=$tmp/B.npy" Y
	same "row sum" "$cfg" reduce.s "-D R=40 -D L=96" "-D X_DRAM=0x8040 -D Y_DRAM=0x40" \
		"--input X=$tmp/X.npy" Y
	same "transpose" "$cfg" transpose.s "-D RANK=2 -D D0=40 -D D1=96 -D PERM=10" \
		"-D X_DRAM=0x20040 -D Y_DRAM=0x40" "--input X=$tmp/X.npy" Y
	same "concat" "$cfg" concat.s "-D RANK=2 -D D0=40 -D D1=96 -D AXIS=0 -D BK=3" \
		"-D A_DRAM=0x30000 -D B_DRAM=0x2c0 -D W_DRAM=0x5040" \
		"--input A=$tmp/X.npy --input B=$tmp/S3.npy" Y
	same "quantize" "$cfg" quant.s "-D R=40 -D C=96 -D SCALE=0x3c23d70a" \
		"-D X_DRAM=0x7040 -D Y_DRAM=0x40" "--input X=$tmp/X.npy" Y
	same "gather" "$cfg" gather.s "-D V=300 -D D=32 -D N=50" \
		"-D E_DRAM=0x100040 -D I_DRAM=0xc0 -D Y_DRAM=0x4000" \
		"--input E=$tmp/E.npy --input I=$tmp/I.npy" Y
	same "gemm_mc" "$cfg" gemm_mc.s "-D M=48 -D K=64 -D N=32" \
		"-D A_DRAM=0x9040 -D B_DRAM=0x40 -D C_DRAM=0x4000" \
		"--input A=$tmp/A8.npy --input B=$tmp/B8.npy" C
	same "copy pad" "$cfg" copy.s "-D MODE=1 -D D1=8 -D D2=8 -D D3=16 -D B1=1 -D A2=2" \
		"-D X_DRAM=0x40000 -D Z_DRAM=0x40" "--input X=$tmp/X4.npy" Z
	same "eltwise silu*y+r" "$cfg" eltwise.s "-D ROWS=40 -D L=96" \
		"-D X_DRAM=0x50000 -D Y_DRAM=0x40 -D R_DRAM=0x10000 -D Z_DRAM=0x50000" \
		"--input X=$tmp/X.npy --input Y=$tmp/X.npy --input R=$tmp/X.npy" Z
done

# single-core kernels
same "layernorm.s" default.cfg layernorm.s "-D R=40" "-D X_DRAM=0x10040 -D Y_DRAM=0x40" \
	"--input X=$tmp/X64.npy" Y
same "gemm" default.cfg gemm.s "-D M=48 -D K=64 -D N=32" \
	"-D A_DRAM=0x9040 -D B_DRAM=0x40 -D C_DRAM=0x4000" \
	"--input A=$tmp/A8.npy --input B=$tmp/B8.npy" C

# batchnorm: the parameters scattered (four copies) against the reference
bn=$build/bnref
"$bn" params 70 31 "$tmp/BG.npy" "$tmp/BB.npy" "$tmp/BM.npy" "$tmp/BV.npy"
"$bn" gen 301 70 fp32 32 "$tmp/BX.npy"
for cfg in default.cfg datacenter.cfg; do
	"$bin" run -q -c "configs/$cfg" asm/kernels/batchnorm.s -D R=301 -D C=70 \
		-D X_DRAM=0x80000 -D Y_DRAM=0x40 -D G_DRAM=0x40000 -D B_DRAM=0x3fe00 \
		-D M_DRAM=0x60000 -D V_DRAM=0x7fe00 --input X="$tmp/BX.npy" \
		--input GAMMA="$tmp/BG.npy" --input BETA="$tmp/BB.npy" --input MEAN="$tmp/BM.npy" \
		--input VAR="$tmp/BV.npy" --output Y="$tmp/BY.npy" --counters "$tmp/c.csv" \
		--check-hazards 2> "$tmp/err" || { cat "$tmp/err" >&2; fail "batchnorm $cfg: run failed"; }
	"$bn" check "$tmp/BX.npy" "$tmp/BG.npy" "$tmp/BB.npy" "$tmp/BM.npy" "$tmp/BV.npy" \
		"$tmp/BY.npy" 1e-5 0 4.8e-7 > "$tmp/out" || fail "batchnorm $cfg: $(cat "$tmp/out")"
	record "batchnorm, parameters apart $cfg: cycles $(counter "$tmp/c.csv" cycles)"
done

# misaligned: refused at assembly, naming the base
for k in "softmax.s Y_DRAM=0x1001" "gemm.s C_DRAM=0x20" "batchnorm.s M_DRAM=0x100010"; do
	# shellcheck disable=SC2086 # kernel and define
	set -- $k
	if "$bin" run -q "asm/kernels/$1" -D "$2" > "$tmp/out" 2>&1; then
		fail "$1: a misaligned ${2%%=*} was accepted"
	fi
	grep -q "${2%%=*} is not a multiple of 64" "$tmp/out" || fail "$1 ${2%%=*}: $(cat "$tmp/out")"
done
golden
