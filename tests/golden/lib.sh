# lib.sh - shared helpers of the end-to-end golden tests.
#
# Sourced by tests/golden/<case>/run.sh, which is run from the top of the
# tree as `sh tests/golden/<case>/run.sh BUILD/npusim`.  A case computes
# its reference results itself (tests/tools/gemmref.c is independent of the
# simulator), checks them, and appends the numbers that must not change by
# accident (cycles, counters, trace digests) to $actual; `golden` compares
# that with the committed tests/golden/<case>/expected.  Rewrite goldens
# with `make golden-update` (GOLDEN_UPDATE=1), and only on purpose.
set -e
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
build=$(dirname "$bin")
ref=$build/gemmref
case_dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
actual=$tmp/actual
: > "$actual"

fail() { echo "FAIL ($(basename "$case_dir")): $*" >&2; exit 1; }
record() { echo "$*" >> "$actual"; }

# counter FILE.csv NAME: the whole run's value of one counter from a
# --counters CSV (its rows come before any region's).
counter() { grep "^$2," "$1" | head -1 | cut -d, -f2; }

# counter_sum FILE.csv ERE: the sum of the whole run's counters whose name
# matches ERE (e.g. every core's 'core[0-9]+\.vector\.busy_cycles').
counter_sum() { awk -F, -v re="^($2)$" '$4 == "" && $1 ~ re { s += $2 } END { print s + 0 }' "$1"; }

# check_gemm_traffic WHAT FILE.csv M K N: an int8 GEMM whose A, B and C
# each cross the DRAM once (gemm.s with the whole problem in the
# scratchpad): M*K*N MACs on the chip's arrays, M*K + K*N bytes read and
# 4*M*N (int32) written on the DRAM channels, and the DMA engines moved
# exactly those bytes.  Independent of timing.
check_gemm_traffic() {
	macs=$(counter_sum "$2" 'core[0-9]+\.matrix\.macs')
	rd=$(counter_sum "$2" 'dram\.ch[0-9]+\.read_bytes')
	wr=$(counter_sum "$2" 'dram\.ch[0-9]+\.write_bytes')
	[ "$macs" = $(($3 * $4 * $5)) ] || fail "$1: $macs MACs, M*K*N = $(($3 * $4 * $5))"
	[ "$rd" = $(($3 * $4 + $4 * $5)) ] ||
		fail "$1: DRAM read $rd bytes, M*K + K*N = $(($3 * $4 + $4 * $5))"
	[ "$wr" = $((4 * $3 * $5)) ] || fail "$1: DRAM written $wr bytes, 4*M*N = $((4 * $3 * $5))"
	[ "$(counter_sum "$2" 'core[0-9]+\.dma[0-9]+\.bytes_dram_to_sram')" = "$rd" ] ||
		fail "$1: the DMA engines brought in other bytes than the DRAM read"
	[ "$(counter_sum "$2" 'core[0-9]+\.dma[0-9]+\.bytes_sram_to_dram')" = "$wr" ] ||
		fail "$1: the DMA engines wrote out other bytes than the DRAM took"
}

# fold_cycles DF M K N R C: the SCALE-Sim busy cycles of a whole GEMM.
fold_cycles() {
	df=$1 m=$2 k=$3 n=$4 r=$5 c=$6
	cdiv() { echo $(( ($1 + $2 - 1) / $2 )); }
	case $df in
	ws) echo $(( $(cdiv "$k" "$r") * $(cdiv "$n" "$c") * (2*r + c + m - 2) )) ;;
	is) echo $(( $(cdiv "$k" "$r") * $(cdiv "$m" "$c") * (2*r + c + n - 2) )) ;;
	os) echo $(( $(cdiv "$m" "$r") * $(cdiv "$n" "$c") * (k + r + c - 2) )) ;;
	esac
}

# digest FILE.json.gz: checksum of the uncompressed trace.
digest() { gzip -dc "$1" | cksum | cut -d' ' -f1; }

golden() {
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$actual" "$case_dir/expected"
		echo "updated $case_dir/expected"
		return 0
	fi
	[ -f "$case_dir/expected" ] ||
		fail "no golden file $case_dir/expected (run make golden-update)"
	diff -u "$case_dir/expected" "$actual" >&2 ||
		fail "results differ from the golden file (if that is on purpose: make golden-update)"
}
