# dwconv2d.s (NHWC depthwise convolution on the vector unit): every
# output exact against tests/tools/convref's window loop, no hazards, on
# default.cfg, gemmini.cfg and tpu-v1.cfg; strides 1 and 2, 3x3 and 5x5,
# padding, bias and relu, several row blocks and pixel chunks.  bf16
# (products and sums in fp32, rounded once: exact on the generated
# multiples of 1/8), relu6 (int8 clipped at CLIP, bf16 at 6), DRAM bases
# placed with -D, and SPMD on datacenter.cfg's 16 cores (row blocks,
# channel slices for short outputs), asserting that several cores did
# vector work.  Channel slices over time (a pixel's weight tiles or a row
# of all channels do not fit one core's scratchpad): MobileNet-v2's
# 960-channel layers on default.cfg's 256 KiB, small shapes on a few KiB
# (-s core.scratchpad.bytes), with a narrower last slice, strides 1 and
# 2, several row blocks and pixel chunks, slices narrower than the lanes
# (one long row per chunk), and with a channel split over cores too,
# asserting the kernel chose several slices (NT from the object's
# symbols).  Golden: cycles and vector busy cycles (multi-core: the busy
# cores and their busy cycles summed).
. "$(dirname "$0")/../lib.sh"
conv=$build/convref
# case NAME CONFIG H W C K S PAD BIAS RELU [-D ...] (TY=bf16 in the
# environment: bf16 X, W, Y and an fp32 bias; CLIP=n: int8 relu6 bound)
case_dw() {
	name=$1 cfg=$2 h=$3 w=$4 c=$5 k=$6 s=$7 p=$8 bias=$9
	shift 9
	relu=$1
	shift
	gen=gendw
	[ "${TY:-int8}" = bf16 ] && gen=gendwf
	"$conv" $gen "$h" "$w" "$c" "$k" $((h * 3 + c)) "$tmp/X.npy" "$tmp/W.npy" "$tmp/B.npy"
	binput=
	bfile=-
	if [ "$bias" = 1 ]; then
		binput="--input BIAS=$tmp/B.npy"
		bfile=$tmp/B.npy
	fi
	# shellcheck disable=SC2086 # optional arguments, split on purpose
	"$bin" run -q -c "configs/$cfg" asm/kernels/dwconv2d.s -D H="$h" -D W="$w" \
		-D C="$c" -D K="$k" -D S="$s" -D PAD="$p" -D WITH_BIAS="$bias" -D RELU="$relu" \
		-D ITYPE="${TY:-int8}" ${CLIP:+-D CLIP=$CLIP} "$@" \
		--input X="$tmp/X.npy" --input WGT="$tmp/W.npy" $binput --output Y="$tmp/Y.npy" \
		--counters "$tmp/c.csv" --check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	if [ "${TY:-int8}" = bf16 ]; then
		"$conv" dwcheckf "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" "$bfile" "$relu" > /dev/null ||
			fail "$name: Y differs from the reference"
	else
		"$conv" dwcheck "$tmp/X.npy" "$tmp/W.npy" "$tmp/Y.npy" "$s" "$p" 8 "$bfile" "$relu" "${CLIP:-127}" > /dev/null ||
			fail "$name: Y differs from the reference"
	fi
	rec_vec "$name"
}
case_dw "default 3x3 pad 1, C16" default.cfg 8 8 16 3 1 1 0 0
case_dw "default 3x3 pad 1, C16, bias relu" default.cfg 8 8 16 3 1 1 1 1
case_dw "default 3x3/2 pad 1, C24, bias" default.cfg 9 11 24 3 2 1 1 0
case_dw "default 5x5 pad 2, C32, relu, chunks of 5" default.cfg 14 14 32 5 1 2 0 1 -D RB=3 -D WC=5
case_dw "gemmini 3x3/2 pad 1, C32, bias relu" gemmini.cfg 12 12 32 3 2 1 1 1
case_dw "tpu-v1 3x3 pad 1, 28x28x64, bias relu" tpu-v1.cfg 28 28 64 3 1 1 1 1
CLIP=20 case_dw "default 3x3 pad 1, C16, bias relu6 (CLIP 20)" default.cfg 8 8 16 3 1 1 1 2
TY=bf16 case_dw "default bf16 3x3 pad 1, C16, bias relu" default.cfg 8 8 16 3 1 1 1 1
TY=bf16 case_dw "default bf16 3x3/2 pad 1, C24, bias relu6" default.cfg 9 11 24 3 2 1 1 2
TY=bf16 case_dw "default bf16 5x5 pad 2, C32, chunks of 5" default.cfg 14 14 32 5 1 2 0 0 -D RB=3 -D WC=5
case_dw "default 3x3 pad 1, C16, tensors placed with -D" default.cfg 8 8 16 3 1 1 1 1 \
	-D Y_DRAM=0 -D X_DRAM=0x1000 -D W_DRAM=0x2000 -D BIAS_DRAM=0x2100
"$bin" run -q --timing-only -c configs/default.cfg asm/kernels/dwconv2d.s -D W_DRAM=0x2010 \
	2> "$tmp/err" && fail "a misaligned W_DRAM was accepted"
grep -q "64-byte aligned" "$tmp/err" || fail "misaligned W_DRAM: no message"
"$bin" run -q --timing-only -c configs/default.cfg asm/kernels/dwconv2d.s -D WITH_BIAS=1 \
	-D W_DRAM=0x2000 -D BIAS_DRAM=0x2040 2> "$tmp/err" && fail "overlapping W and BIAS were accepted"
grep -q "overlap" "$tmp/err" || fail "overlapping W and BIAS: no message"
MINC=16 case_dw "datacenter 3x3 pad 1, 32x32x32, bias relu, rows" datacenter.cfg 32 32 32 3 1 1 1 1
MINC=16 TY=bf16 case_dw "datacenter bf16 3x3/2 pad 1, 28x28x48, bias relu6" datacenter.cfg 28 28 48 3 2 1 1 2
MINC=16 TY=bf16 case_dw "datacenter bf16 3x3 pad 1, 7x7x256, channel slices" datacenter.cfg 7 7 256 3 1 1 1 1
MINC=16 CLIP=40 case_dw "datacenter 3x3 pad 1, 4x4x128, relu6, channel slices" datacenter.cfg 4 4 128 3 1 1 1 2
slices dwconv2d.s 2 -c configs/default.cfg -D H=7 -D W=7 -D C=960 -D WITH_BIAS=1 -D RELU=2 -D CLIP=96
CLIP=96 case_dw "default 3x3 pad 1, 7x7x960, bias relu6 (MobileNet-v2): 2 channel slices" default.cfg 7 7 960 3 1 1 1 2
slices dwconv2d.s 2 -c configs/default.cfg -D H=9 -D W=9 -D C=960 -D S=2 -D ITYPE=bf16
TY=bf16 case_dw "default bf16 3x3/2 pad 1, 9x9x960, bias relu: 2 channel slices" default.cfg 9 9 960 3 2 1 1 1
slices dwconv2d.s 3 -c configs/default.cfg -s core.scratchpad.bytes=8192 -D H=10 -D W=10 -D C=40 -D WITH_BIAS=1
case_dw "default 3x3 pad 1, 10x10x40, bias relu, on 8 KiB: slices 16, 16, 8" default.cfg 10 10 40 3 1 1 1 1 \
	-s core.scratchpad.bytes=8192
slices dwconv2d.s 3 -c configs/default.cfg -s core.scratchpad.bytes=16384 -D H=11 -D W=11 -D C=48 -D S=2 -D ITYPE=bf16
TY=bf16 case_dw "default bf16 3x3/2 pad 1, 11x11x48, bias relu6, on 16 KiB: 3 slices, chunks of 2" default.cfg \
	11 11 48 3 2 1 1 2 -s core.scratchpad.bytes=16384
slices dwconv2d.s 3 -c configs/default.cfg -s core.scratchpad.bytes=32768 -D H=9 -D W=9 -D C=72 -D K=5 -D PAD=2
case_dw "default 5x5 pad 2, 9x9x72, relu, on 32 KiB: slices 32, 32, 8" default.cfg 9 9 72 5 1 2 0 1 \
	-s core.scratchpad.bytes=32768
case_dw "default 3x3 pad 1, 10x10x24, bias relu, slices 10, 10, 4 (-D CT; long rows)" default.cfg \
	10 10 24 3 1 1 1 1 -D CT=10
MINC=16 case_dw "datacenter 3x3 pad 1, 6x6x128, bias relu, 4 core slices x time slices 12, 12, 8" \
	datacenter.cfg 6 6 128 3 1 1 1 1 -D PC=4 -D CT=12
golden
