# eltwise_layer: eltwise.s OP 6, Z = act(X bin S), the elementwise layer
# of the model compiler, against eltref (an independent double / integer
# reference), no hazards, on default.cfg and datacenter.cfg (16 cores:
# the rows split between them).  50 x 200: partial blocks and lane
# groups.  Golden: cycles and DRAM bytes of each run.
#   - fp32: every BIN with every SMODE (Y, row B, column C, constant SC),
#     exact to the fp32 rounding (ATOL = RTOL = 0; eltref adds 2^-24 |ref|)
#   - every ACT alone on fp32, bf16 and fp16 inputs spread over
#     [-12, 12) with +-inf, +-0, NaN, +-100, 1e-30, -3 among them:
#     sigmoid, tanh and silu within 1e-6 relative (results below 2^-126
#     absolute), gelu (erf) 1e-6 absolute + 1e-5 relative, gelu (tanh
#     form, vgelu) 1e-6 + 2e-5, hardswish and hardsigmoid 1e-6 absolute
#     (docs/numerics.md); bf16 and fp16 within their own rounding more
#   - fused forms: bias + gelu, x / c + sigmoid, bf16 / fp16 with column
#     and constant operands
#   - int8 (the residual add of an int8 CNN): add and sub with the
#     operands' rounding right shifts, relu and clip, bit-exact
#   - DRAM bases moved with -D (Z in place over X) and a misaligned one
#     refused.
. "$(dirname "$0")/../lib.sh"
el=$build/eltref
dram() { awk -F, '$4 == "" && $1 ~ /^dram\.ch[0-9]+\.(read|write)_bytes$/ { s += $2 } END { print s }' "$1"; }
R=50 L=200
cfgs="default.cfg datacenter.cfg"

# one run: NAME CFG "DEFINES" "INPUTS" then eltref's check arguments
# (BIN SMODE ACT X S ATOL RTOL [KEY=VALUE...])
one() {
	name=$1 cfg=$2 defs=$3 ins=$4
	shift 4
	bin_=$1 sm_=$2 act_=$3 x_=$4 s_=$5 atol_=$6 rtol_=$7
	shift 7
	# shellcheck disable=SC2086 # the defines and inputs, split on purpose
	"$bin" run -q -c "configs/$cfg" asm/kernels/eltwise.s -D OP=6 -D ROWS=$R -D L=$L \
		-D BIN="$bin_" -D SMODE="$sm_" -D ACT="$act_" $defs --input X="$x_" $ins \
		--output Z="$tmp/Z.npy" --counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name $cfg: run failed"; }
	"$el" check "$bin_" "$sm_" "$act_" "$x_" "$s_" "$tmp/Z.npy" "$atol_" "$rtol_" "$@" \
		> "$tmp/out" 2>&1 || fail "$name $cfg: $(cat "$tmp/out")"
	record "$name $cfg: cycles $(counter "$tmp/c.csv" cycles) dram_bytes $(dram "$tmp/c.csv")"
}

# the operand S of SMODE m for type T: its file and --input
sop() {
	case $1 in
	0) s=$tmp/Y$2.npy in="--input Y=$s" ;;
	1) s=$tmp/B$2.npy in="--input B=$s" ;;
	2) s=$tmp/C$2.npy in="--input C=$s" ;;
	*) s=- in= ;;
	esac
}

for t in fp32 bf16 fp16; do
	"$el" gen $R $L 1 $t -4 4 "$tmp/X$t.npy"
	"$el" gen $R $L 2 $t -4 4 "$tmp/Y$t.npy"
	"$el" gen 1 $L 3 $t -4 4 "$tmp/B$t.npy"
	# the column: away from 0 (a divisor)
	"$el" gen $R 1 4 $t 0.25 4 "$tmp/C$t.npy"
	"$el" gen $R $L 5 $t -12 12 "$tmp/A$t.npy" specials
done
sc=0x40200000	# 2.5

# fp32: every operator with every form of S, correctly rounded
for cfg in $cfgs; do
	for b in 1 2 3 4 5 6; do
		for m in 0 1 2 3; do
			sop $m fp32
			one "fp32 bin $b smode $m" "$cfg" "-D SC=$sc" "$in" \
				$b $m 0 "$tmp/Xfp32.npy" "$s" 0 0 SC=$sc
		done
	done
done

# every activation alone, on every float type, with the special values
lo=0xbfc00000 hi=0x40c00000	# clip to -1.5 .. 6
for t in fp32 bf16 fp16; do
	for a in 0 1 2 3 4 5 6 7 8 9; do
		case $a in
		3 | 4 | 9) tol="1.2e-38 1e-6" ;;
		5) tol="1e-6 1e-5" ;;
		6) tol="1e-6 2e-5" ;;
		7 | 8) tol="1e-6 0" ;;
		*) tol="0 0" ;;
		esac
		for cfg in $cfgs; do
			# shellcheck disable=SC2086 # the two tolerances
			one "$t act $a" "$cfg" "-D DT=$t -D LO=$lo -D HI=$hi" "" \
				0 0 $a "$tmp/A$t.npy" - $tol LO=$lo HI=$hi
		done
	done
done

# fused: bias + gelu, x / c then sigmoid, hardsigmoid of x * k, and the
# narrow types with a column and a constant
for cfg in $cfgs; do
	one "fp32 x + b, gelu" "$cfg" "" "--input B=$tmp/Bfp32.npy" \
		1 1 5 "$tmp/Xfp32.npy" "$tmp/Bfp32.npy" 1e-6 1e-5
	one "fp32 x / c, sigmoid" "$cfg" "" "--input C=$tmp/Cfp32.npy" \
		4 2 3 "$tmp/Xfp32.npy" "$tmp/Cfp32.npy" 1.2e-38 1e-6
	one "fp32 x * 2.5, hardsigmoid" "$cfg" "-D SC=$sc -D ALPHA=0x3e000000 -D BETA=0x3f400000" "" \
		3 3 8 "$tmp/Xfp32.npy" - 1e-6 0 SC=$sc ALPHA=0x3e000000 BETA=0x3f400000
	for t in bf16 fp16; do
		for m in 0 1 2 3; do
			sop $m $t
			one "$t x / s smode $m, relu" "$cfg" "-D DT=$t -D SC=$sc" "$in" \
				4 $m 1 "$tmp/X$t.npy" "$s" 0 0 SC=$sc
			one "$t x - s smode $m, silu" "$cfg" "-D DT=$t -D SC=$sc" "$in" \
				2 $m 9 "$tmp/X$t.npy" "$s" 1.2e-38 1e-6 SC=$sc
		done
	done
done

# int8: rne(x / 2^XSH) +- rne(s / 2^YSH), saturated, relu or clip
"$el" gen $R $L 6 int8 -128 127 "$tmp/Xint8.npy"
"$el" gen $R $L 7 int8 -128 127 "$tmp/Yint8.npy"
"$el" gen 1 $L 8 int8 -128 127 "$tmp/Bint8.npy"
"$el" gen $R 1 9 int8 -128 127 "$tmp/Cint8.npy"
for cfg in $cfgs; do
	for c in "1 0 0 0 0" "1 0 1 2 0" "2 0 3 1 1" "1 1 2 0 2" "2 2 0 5 1" "1 3 1 1 2" \
		"0 0 2 0 1" "0 0 0 0 0"; do
		# shellcheck disable=SC2086 # the case's fields
		set -- $c
		sop "$2" int8
		[ "$1" = 0 ] && s=- in=
		one "int8 bin $1 smode $2 xsh $3 ysh $4 act $5" "$cfg" \
			"-D DT=int8 -D XSH=$3 -D YSH=$4 -D SC=-77 -D LO=-20 -D HI=90" "$in" \
			"$1" "$2" "$5" "$tmp/Xint8.npy" "$s" 0 0 XSH="$3" YSH="$4" SC=-77 LO=-20 HI=90
	done
done

# DRAM bases from -D (lib/dram.inc): Y low, X high, Z over X (in place);
# the values must not change.  A base off the 64-byte grid is refused.
for cfg in $cfgs; do
	one "moved bases, in place" "$cfg" \
		"-D X_DRAM=0x200000 -D Z_DRAM=0x200000 -D Y_DRAM=0x1000" "--input Y=$tmp/Yfp32.npy" \
		1 0 1 "$tmp/Xfp32.npy" "$tmp/Yfp32.npy" 0 0
done
if "$bin" run -q asm/kernels/eltwise.s -D OP=6 -D Y_DRAM=0x1020 > "$tmp/out" 2>&1; then
	fail "a misaligned Y_DRAM was accepted"
fi
grep -q 'Y_DRAM is not a multiple of 64' "$tmp/out" || fail "misaligned base: $(cat "$tmp/out")"
golden
