# pool2d.s (NHWC max and average pooling on the vector unit): every
# output exact against tests/tools/convref's window loop (max ignores the
# padding, avg divides by K*K with the padding counted as zeros, ties to
# even), no hazards, on default.cfg, gemmini.cfg and tpu-v1.cfg; ResNet-50's
# max pool (3x3/2, pad 1) and global average pool (7x7 over 7x7) among
# them, several row blocks, overlapping and disjoint windows.  bf16 (max
# exact, avg in fp32 rounded once: exact on the generated multiples of
# 1/8), DRAM bases placed with -D, and SPMD on datacenter.cfg's 16 cores
# (row blocks, channel slices for short outputs, forced either way),
# asserting that several cores did vector work.  Channel slices over time
# (a row of all channels does not fit one core's scratchpad): ResNet-50's
# global average pool on default.cfg's 256 KiB, small shapes on a few
# KiB (-s core.scratchpad.bytes), with a narrower last slice, several row
# blocks and padding, and with a channel split over cores too, asserting
# the kernel chose several slices (NT from the object's symbols).  Golden:
# cycles and vector busy cycles (multi-core: the busy cores and their busy
# cycles summed).
. "$(dirname "$0")/../lib.sh"
conv=$build/convref
# case NAME CONFIG H W C K S PAD max|avg [-D ...] (TY=bf16 in the
# environment: bf16 X and Y)
case_pool() {
	name=$1 cfg=$2 h=$3 w=$4 c=$5 k=$6 s=$7 p=$8 kind=$9
	shift 9
	avg=0
	[ "$kind" = avg ] && avg=1
	gen=gen
	[ "${TY:-int8}" = bf16 ] && gen=genf
	"$conv" $gen "$h" "$w" "$c" 1 1 1 $((h + c)) "$tmp/X.npy" "$tmp/unused.npy"
	"$bin" run -q -c "configs/$cfg" asm/kernels/pool2d.s -D H="$h" -D W="$w" \
		-D C="$c" -D K="$k" -D S="$s" -D PAD="$p" -D AVG="$avg" -D ITYPE="${TY:-int8}" "$@" \
		--input X="$tmp/X.npy" --output Y="$tmp/Y.npy" --counters "$tmp/c.csv" \
		--check-hazards 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "$name: run failed or reported hazards"; }
	"$conv" pool "$tmp/X.npy" "$tmp/Y.npy" "$kind" "$k" "$s" "$p" > /dev/null ||
		fail "$name: Y differs from the reference"
	rec_vec "$name"
}
case_pool "default max 3x3/2 pad 1, 56x56x64" default.cfg 56 56 64 3 2 1 max
case_pool "default avg 3x3/2 pad 1" default.cfg 8 8 16 3 2 1 avg
case_pool "default max 2x2/2, 3 row blocks" default.cfg 12 10 24 2 2 0 max -D RB=2
case_pool "default avg 2x2/1 pad 1" default.cfg 9 9 8 2 1 1 avg
case_pool "default global avg 7x7x64" default.cfg 7 7 64 7 1 0 avg
case_pool "gemmini avg 3x3/1 pad 1" gemmini.cfg 14 14 32 3 1 1 avg
case_pool "gemmini max 3x3/2 pad 1" gemmini.cfg 15 15 16 3 2 1 max
case_pool "tpu-v1 global avg 7x7x2048 (ResNet-50)" tpu-v1.cfg 7 7 2048 7 1 0 avg
case_pool "tpu-v1 max 3x3/2 pad 1, 112x112x64 (ResNet-50)" tpu-v1.cfg 112 112 64 3 2 1 max
TY=bf16 case_pool "default bf16 max 3x3/2 pad 1" default.cfg 8 8 16 3 2 1 max
TY=bf16 case_pool "default bf16 avg 3x3/2 pad 1" default.cfg 8 8 16 3 2 1 avg
TY=bf16 case_pool "default bf16 avg 2x2/1 pad 1" default.cfg 9 9 8 2 1 1 avg
TY=bf16 case_pool "default bf16 global avg 7x7x64" default.cfg 7 7 64 7 1 0 avg
TY=bf16 case_pool "gemmini bf16 max 2x2/2, 3 row blocks" gemmini.cfg 12 10 24 2 2 0 max -D RB=2
case_pool "default max 3x3/2 pad 1, tensors placed with -D" default.cfg 8 8 16 3 2 1 max \
	-D Y_DRAM=0 -D X_DRAM=0x4000
"$bin" run -q --timing-only -c configs/default.cfg asm/kernels/pool2d.s -D Y_DRAM=32 \
	2> "$tmp/err" && fail "a misaligned Y_DRAM was accepted"
grep -q "64-byte aligned" "$tmp/err" || fail "misaligned Y_DRAM: no message"
MINC=16 case_pool "datacenter max 3x3/2 pad 1, 64x64x64, rows" datacenter.cfg 64 64 64 3 2 1 max
MINC=16 TY=bf16 case_pool "datacenter bf16 max 3x3/2 pad 1, 40x40x32" datacenter.cfg 40 40 32 3 2 1 max
MINC=16 TY=bf16 case_pool "datacenter bf16 avg 3x3/1 pad 1, 20x20x16" datacenter.cfg 20 20 16 3 1 1 avg
MINC=16 case_pool "datacenter global avg 7x7x512, channel slices" datacenter.cfg 7 7 512 7 1 0 avg
MINC=16 TY=bf16 case_pool "datacenter bf16 global avg 7x7x2048 (ResNet-50)" datacenter.cfg 7 7 2048 7 1 0 avg
MINC=16 case_pool "datacenter max 2x2/2, 16x16x64, channels (SPLIT=2)" datacenter.cfg 16 16 64 2 2 0 max -D SPLIT=2
MINC=8 TY=bf16 case_pool "datacenter bf16 max 3x3/2, 8x8x32, 4 rows x 4 slices" datacenter.cfg 8 8 32 3 2 1 max -D PC=4
slices pool2d.s 3 -c configs/default.cfg -D H=7 -D W=7 -D C=2048 -D K=7 -D S=7 -D AVG=1
case_pool "default global avg 7x7x2048 (ResNet-50): 3 channel slices" default.cfg 7 7 2048 7 7 0 avg
slices pool2d.s 4 -c configs/default.cfg -D H=7 -D W=7 -D C=2048 -D K=7 -D S=7 -D AVG=1 -D ITYPE=bf16
TY=bf16 case_pool "default bf16 global avg 7x7x2048 (ResNet-50): 4 channel slices" default.cfg 7 7 2048 7 7 0 avg
slices pool2d.s 3 -c configs/default.cfg -s core.scratchpad.bytes=4096 -D H=12 -D W=12 -D C=40 -D K=3 -D S=2 -D PAD=1
case_pool "default max 3x3/2 pad 1, 12x12x40 on 4 KiB: slices 16, 16, 8" default.cfg 12 12 40 3 2 1 max \
	-s core.scratchpad.bytes=4096
slices pool2d.s 3 -c configs/default.cfg -s core.scratchpad.bytes=8192 -D H=9 -D W=9 -D C=40 -D K=3 -D S=1 -D PAD=1 -D AVG=1 -D ITYPE=bf16
TY=bf16 case_pool "default bf16 avg 3x3/1 pad 1, 9x9x40 on 8 KiB: slices 16, 16, 8" default.cfg 9 9 40 3 1 1 avg \
	-s core.scratchpad.bytes=8192
slices pool2d.s 2 -c configs/default.cfg -s core.scratchpad.bytes=16384 -D H=7 -D W=7 -D C=72 -D K=7 -D S=7 -D AVG=1
case_pool "default global avg 7x7x72 on 16 KiB: slices 48, 24" default.cfg 7 7 72 7 7 0 avg \
	-s core.scratchpad.bytes=16384
case_pool "default max 2x2/2, 3 row blocks x slices of 10 (-D CT)" default.cfg 12 10 24 2 2 0 max -D RB=2 -D CT=10
MINC=16 TY=bf16 case_pool "datacenter bf16 max 3x3/2 pad 1, 17x17x96, 2 core slices x time slices 20, 20, 8" \
	datacenter.cfg 17 17 96 3 2 1 max -D PC=2 -D CT=20
golden
