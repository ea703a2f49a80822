# copy.s (the data-movement layers, DMA only): slice, pad and nearest
# resize of ranks 1 to 4 and 1-, 2- and 4-byte elements, on default.cfg
# and datacenter.cfg (16 cores), exact against permref (random bit
# patterns: a misplaced element or a wrong pad value shows).  Every case
# reads each byte of its source once from DRAM and writes each byte of Z
# once (slice: only the box is read), with no vector instruction.
# Hazards are checked where every run starts and ends on 4-byte
# boundaries (the checker's granule, docs/hazards.md).  Pads longer than
# the 4 KiB pad row (whole slabs in chunks, and a longer row for the last
# axis) and bad parameters (an empty slice, a misaligned base) too.
# Golden: cycles.
. "$(dirname "$0")/../lib.sh"
pr=$build/permref
dsum() { awk -F, -v re="$2" '$4 == "" && $1 ~ re { s += $2 } END { print s + 0 }' "$1"; }
esz() { case $1 in int8) echo 1 ;; int16 | fp16 | bf16) echo 2 ;; *) echo 4 ;; esac; }

# one NAME CFG DT "SHAPE" "DEFINES" HZ RDBYTES ZELEMS CHECK...: run copy.s
# on a random X of SHAPE, check Z with `permref CHECK... ` and the DRAM
# bytes (RDBYTES read, Z's written)
one() {
	name=$1 cfg=$2 dt=$3 shape=$4 defs=$5 hz=$6 rd=$7 zel=$8
	shift 8
	# shellcheck disable=SC2086 # the shape's extents
	"$pr" gen "$dt" 11 "$tmp/X.npy" $shape
	dd="" k=0
	for d in $shape; do
		dd="$dd -D D$k=$d"
		k=$((k + 1))
	done
	hzf=
	[ "$hz" = 1 ] && hzf=--check-hazards
	# shellcheck disable=SC2086 # defines, split on purpose
	"$bin" run -q -c "configs/$cfg" asm/kernels/copy.s -D RANK=$k -D DT="$dt" $dd $defs \
		--input X="$tmp/X.npy" --output Z="$tmp/Z.npy" --counters "$tmp/c.csv" $hzf \
		2> "$tmp/err" || { cat "$tmp/err" >&2; fail "$name $cfg: run failed"; }
	chk=$1
	shift
	"$pr" "$chk" "$tmp/X.npy" "$tmp/Z.npy" "$@" > "$tmp/out" 2>&1 ||
		fail "$name $cfg: $(cat "$tmp/out")"
	r=$(dsum "$tmp/c.csv" '^dram\.ch[0-9]+\.read_bytes$')
	w=$(dsum "$tmp/c.csv" '^dram\.ch[0-9]+\.write_bytes$')
	v=$(dsum "$tmp/c.csv" '^core[0-9]+\.vector\.insns$')
	zb=$((zel * $(esz "$dt")))
	if [ "$r" -ne "$rd" ] || [ "$w" -ne "$zb" ]; then
		fail "$name $cfg: DRAM read $r and wrote $w bytes, expected $rd and $zb"
	fi
	[ "$v" -eq 0 ] || fail "$name $cfg: $v vector instructions"
	record "$name $cfg: cycles $(counter "$tmp/c.csv" cycles)"
}

for cfg in default.cfg datacenter.cfg; do
	# slice: every axis cut; only a middle axis (runs of whole rows);
	# only the outer axis (one contiguous run); rank 2 and 1
	one "slice 4-D all axes fp32" "$cfg" fp32 "2 9 10 12" \
		"-D MODE=0 -D S1=2 -D E1=7 -D S2=1 -D E2=9 -D S3=3 -D E3=11" 1 \
		$((2 * 5 * 8 * 8 * 4)) $((2 * 5 * 8 * 8)) slice 0:2 2:7 1:9 3:11
	one "slice H of NHWC int8" "$cfg" int8 "2 20 8 16" "-D MODE=0 -D S1=4 -D E1=17" 1 \
		$((2 * 13 * 8 * 16)) $((2 * 13 * 8 * 16)) slice 0:2 4:17 0:8 0:16
	one "slice N int16" "$cfg" int16 "5 6 7 8" "-D MODE=0 -D S0=1 -D E0=4" 1 \
		$((3 * 6 * 7 * 8 * 2)) $((3 * 6 * 7 * 8)) slice 1:4 0:6 0:7 0:8
	one "slice 2-D bf16, odd runs" "$cfg" bf16 "37 50" "-D MODE=0 -D S0=3 -D E0=30 -D S1=7 -D E1=48" 0 \
		$((27 * 41 * 2)) $((27 * 41)) slice 3:30 7:48
	one "slice 1-D int8" "$cfg" int8 "300" "-D MODE=0 -D S0=13 -D E0=290" 0 277 277 slice 13:290
	one "slice 3-D fp32 channels" "$cfg" fp32 "6 10 32" "-D MODE=0 -D S2=8 -D E2=24" 1 \
		$((6 * 10 * 16 * 4)) $((6 * 10 * 16)) slice 0:6 0:10 8:24
	# pad: every axis (1.0 as the value); H and W of NHWC with 3
	# channels (the stem's pad, byte runs); fp16 +inf on rank 3
	one "pad 4-D all axes fp32" "$cfg" fp32 "2 9 10 12" \
		"-D MODE=1 -D B0=1 -D A0=1 -D B1=1 -D A1=2 -D B2=3 -D A2=1 -D B3=2 -D A3=5 -D PV=0x3f800000" 1 \
		$((2 * 9 * 10 * 12 * 4)) $((4 * 12 * 14 * 19)) pad 0x3f800000 1:1 1:2 3:1 2:5
	one "pad H W of NHWC C=3 int8" "$cfg" int8 "1 30 30 3" \
		"-D MODE=1 -D B1=3 -D A1=3 -D B2=3 -D A2=3 -D PV=0x80" 0 \
		$((30 * 30 * 3)) $((36 * 36 * 3)) pad 0x80 0:0 3:3 3:3 0:0
	one "pad rank 3 fp16 +inf" "$cfg" fp16 "3 7 6" "-D MODE=1 -D B0=2 -D A2=3 -D PV=0x7c00" 0 \
		$((3 * 7 * 6 * 2)) $((5 * 7 * 9)) pad 0x7c00 2:0 0:0 0:3
	# pads beyond the 4 KiB row: chunked slabs, a 6 KiB last-axis pad
	one "pad long slabs int32" "$cfg" int32 "30 40" \
		"-D MODE=1 -D B0=100 -D A0=5 -D B1=1500 -D A1=1100 -D PV=0x12345678" 1 \
		$((30 * 40 * 4)) $((135 * 2640)) pad 0x12345678 100:5 1500:1100
	# resize: both factors; H only; W only on rank 3
	one "resize 2x3 NHWC fp32" "$cfg" fp32 "2 5 6 20" "-D MODE=2 -D FH=2 -D FW=3" 1 \
		$((2 * 5 * 6 * 20 * 4)) $((2 * 10 * 18 * 20)) resize 2 3
	one "resize 3x1 NHWC bf16" "$cfg" bf16 "2 5 6 20" "-D MODE=2 -D FH=3 -D FW=1" 1 \
		$((2 * 5 * 6 * 20 * 2)) $((2 * 15 * 6 * 20)) resize 3 1
	one "resize 1x2 HWC int8" "$cfg" int8 "5 6 20" "-D MODE=2 -D FH=1 -D FW=2" 1 \
		$((5 * 6 * 20)) $((5 * 12 * 20)) resize 1 2
done

# refused at assembly
bad() {
	if "$bin" run -q asm/kernels/copy.s "$@" > "$tmp/out" 2>&1; then
		fail "copy.s $*: accepted"
	fi
	grep -q 'error' "$tmp/out" || fail "copy.s $*: $(cat "$tmp/out")"
}
bad -D MODE=0 -D S1=5 -D E1=5
bad -D MODE=0 -D E2=9
bad -D MODE=1 -D B1=-1
bad -D MODE=2 -D RANK=2
bad -D MODE=2 -D FW=0
bad -D DT=int4
bad -D Z_DRAM=0x10010
golden
