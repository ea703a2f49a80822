# Kernels assembled for a config: the CFG_* symbols follow -c and -s, a
# kernel takes its array size from them (no -D ROWS), and a footprint that
# does not fit the config's SRAM is an assembly error, not a run-time fault.
. "$(dirname "$0")/../lib.sh"

cfg=configs/default.cfg
cat > "$tmp/c.s" <<'S'
.if CFG_CORE_MATRIX_ROWS != 16 || CFG_CORE_MATRIX_COLS != 8
.error "rows/cols"
.endif
.if CFG_CORE_MATRIX_IN_TYPE != bf16 || CFG_CORE_MATRIX_DATAFLOW != os
.error "enums"
.endif
.if CFG_CHIP_CLOCK_MHZ != 1250 || CFG_CORE_MATRIX_WEIGHT_DOUBLE_BUFFER != 1
.error "clock/bool"
.endif
	halt
S
"$bin" as -c "$cfg" -s core.matrix.rows=16 -s core.matrix.cols=8 \
	-s core.matrix.in_type=bf16 -s core.matrix.acc_type=fp32 -s core.matrix.dataflow=os -s chip.clock_ghz=1.25 \
	-s core.matrix.weight_double_buffer=true -o "$tmp/c.npo" "$tmp/c.s" ||
	fail "as -c/-s: the CFG_* symbols do not follow the config"
"$bin" as -o "$tmp/c.npo" "$tmp/c.s" 2> "$tmp/err" && fail "defaults passed the 16x8 check"
record "as with defaults: $(grep -c error: "$tmp/err") errors"
# run -s: the same symbols, from the run's config.
"$bin" run -q -c "$cfg" -s core.matrix.rows=16 -s core.matrix.cols=8 \
	-s core.matrix.in_type=bf16 -s core.matrix.acc_type=fp32 -s core.matrix.dataflow=os -s chip.clock_ghz=1.25 \
	-s core.matrix.weight_double_buffer=true "$tmp/c.s" ||
	fail "run -s: the CFG_* symbols do not follow the config"

# gemm.s on a 16x16 array with no -D ROWS/COLS: exact output.
"$ref" gen 48 40 24 3 "$tmp/A.npy" "$tmp/B.npy"
for df in ws os is; do
	"$bin" run -q -c "$cfg" -s core.matrix.rows=16 -s core.matrix.cols=16 \
		-s core.matrix.dataflow=$df asm/kernels/gemm.s -D M=48 -D K=40 -D N=24 \
		--input A="$tmp/A.npy" --input B="$tmp/B.npy" --output C="$tmp/C.npy" \
		--counters "$tmp/c.csv" || fail "$df 16x16: run failed"
	"$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" > /dev/null ||
		fail "$df 16x16: output differs from the reference"
	record "gemm.s 48x40x24 on 16x16 $df (config default dataflow): $(counter "$tmp/c.csv" core0.cycles) cycles"
done

# Footprints checked at assembly time, against the config's SRAM.
set +e
"$bin" run -q -c "$cfg" asm/kernels/gemm.s -D M=512 -D K=512 -D N=512 2> "$tmp/err"
rc=$?
set -e
[ $rc = 1 ] || fail "gemm.s 512^3 on default.cfg: exit $rc, expected 1"
grep -q "exceed core.scratchpad.bytes" "$tmp/err" || fail "no scratchpad footprint error"
grep -q "exceed core.accumulator.bytes" "$tmp/err" || fail "no accumulator footprint error"
record "gemm.s 512^3: $(grep -c error: "$tmp/err") footprint errors"
"$bin" as -o "$tmp/g.npo" -s core.scratchpad.bytes=1M -s core.accumulator.bytes=1M \
	-D M=512 -D K=512 -D N=512 asm/kernels/gemm.s || fail "gemm.s 512^3 with 1 MiB SRAM did not assemble"

# Bad kernel parameters: an assembly error naming the rule, exit 1, no run.
bad() {
	want=$1
	shift
	set +e
	"$bin" run -q -c "$cfg" "$@" 2> "$tmp/err"
	rc=$?
	set -e
	[ $rc = 1 ] || fail "$*: exit $rc, expected 1"
	grep -q "$want" "$tmp/err" || fail "$*: no '$want' in: $(cat "$tmp/err")"
	record "bad parameters ($want): exit 1"
}
bad "K too deep: gemm_kb.s blocks K" asm/kernels/gemm_os.s -D M=128 -D K=8192 -D N=128
bad "ITYPE must be" asm/kernels/gemm_os.s -D ITYPE=int16
bad "integer inputs give OUT" asm/kernels/gemm_os.s -D OUT=bf16
bad "KH and KW must be 1..7" asm/kernels/conv2d.s -D KH=9
bad "GROUPS must divide" asm/kernels/conv2d.s -D GROUPS=3
bad "DIRECT=1 needs S=1" asm/kernels/conv2d.s -D S=2 -D DIRECT=1
bad "the window does not fit" asm/kernels/pool2d.s -D H=2 -D W=2 -D K=3
bad "the window does not fit" asm/kernels/dwconv2d.s -D H=2 -D W=8 -D K=5 -D PAD=1
bad "the window does not fit" asm/kernels/conv2d.s -D H=2 -D W=8 -D KH=3
bad "MODE is 0 (layernorm) or 1 (rmsnorm)" asm/kernels/norm.s -D MODE=2
bad "OP is 0 sum" asm/kernels/reduce.s -D OP=7
bad "DT is fp32, bf16 or fp16" asm/kernels/norm.s -D DT=int8
bad "ITYPE is bf16 or fp16" asm/kernels/attention.s -D ITYPE=int8
bad "a causal mask needs NK >= N" asm/kernels/attention.s -D N=256 -D NK=128 -D CAUSAL=1
bad "give SCALE" asm/kernels/attention.s -D D=96
bad "RES = 1 needs every key block" asm/kernels/attention.s -D N=65536 -D RES=1
golden
