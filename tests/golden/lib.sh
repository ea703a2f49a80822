# lib.sh - shared helpers of the end-to-end golden tests.
#
# Sourced by tests/golden/<case>/run.sh, which is run from the top of the
# tree as `sh tests/golden/<case>/run.sh BUILD/npusim`.  A case computes
# its reference results itself (tests/tools/gemmref.c is independent of the
# simulator), checks them, and appends the numbers that must not change by
# accident (key cycle counts, messages) to $actual; `golden` compares that
# with the committed tests/golden/<case>/expected.  Rewrite goldens with
# `make golden-update` (GOLDEN_UPDATE=1), and only on purpose.  Whole
# counter files, traces, CSVs and plots are not recorded (every timing
# change would rewrite them): a case asserts what must hold of them (a
# formula, the bytes a kernel must move, the trace against the counters of
# the same run) instead.
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
# (printf: mawk's print writes integers past 2^31 as 1.23457e+10.)
counter_sum() { awk -F, -v re="^($2)$" '$4 == "" && $1 ~ re { s += $2 } END { printf "%.0f\n", s }' "$1"; }

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

# gemm_gen IT M K N: random operands for a GEMM of input type IT in
# $tmp/A.npy (M x K) and $tmp/B.npy (K x N), and N bias values of the
# accumulator type in $tmp/bias.npy (tests/tools/gemmref.c).
gemm_gen() {
	case $1 in
	int8) "$ref" gen $2 $3 $4 $(($2 + $3)) "$tmp/A.npy" "$tmp/B.npy" ;;
	int4) "$ref" gen $2 $3 $4 $(($2 + $3)) "$tmp/A.npy" "$tmp/B.npy" -8 7 ;;
	fp8e5m2) "$ref" genf $2 $3 $4 $(($2 + $3)) "$tmp/A.npy" "$tmp/B.npy" 4 ;;
	*) "$ref" genf $2 $3 $4 $(($2 + $3)) "$tmp/A.npy" "$tmp/B.npy" ;;
	esac
	case $1 in int*) bt=int32 ;; *) bt=fp32 ;; esac
	"$ref" genb $4 $(($4 + 1)) $bt "$tmp/bias.npy"
}

# gemm_check IT OUT BIAS ACT: $tmp/C.npy is act(A B + bias) in type OUT
# (int8: the accumulator * 2^-8 saturated) - BIAS a bias file or -.
gemm_check() {
	case $1/$2 in
	int*/int8) "$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" 8 "$3" $4 > /dev/null ;;
	int*/int32) "$ref" check "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" -1 "$3" $4 > /dev/null ;;
	*) "$ref" checkf "$tmp/A.npy" "$tmp/B.npy" "$tmp/C.npy" "$3" $4 > /dev/null ;;
	esac
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

# tstat STATS OP FIELD PHASE TRACK NAME: OP (sum, min or max) of FIELD
# (n, cycles, first, last or end) over the lines of a `trccheck --stats`
# file (tests/tools/trccheck.c) of PHASE (X slices, i instants, C counter
# samples, f flow ends) whose track and name match the EREs TRACK and
# NAME; 0 when no line does.
tstat() {
	awk -F'\t' -v op="$2" -v f="$3" -v ph="$4" -v tr="^($5)$" -v nm="^($6)$" '
		BEGIN { col["n"] = 4; col["cycles"] = 5; col["first"] = 6; col["last"] = 7; col["end"] = 8 }
		$1 == ph && $2 ~ tr && $3 ~ nm {
			v = $(col[f]) + 0
			if (op == "sum") r += v
			else if (!k++ || (op == "min" ? v < r : v > r)) r = v
		}
		END { printf "%.0f\n", r }' "$1"
}

# check_unit_slices WHAT STATS COUNTERS.csv [overlap]: the trace of a
# finished run against the counters of the same run, core by core: each
# matrix and vector instruction and each DMA transfer is one slice on its
# unit's track, reached by one flow from its dispatch, and the slices
# (but mout's, which is not array time) add up to the unit's busy cycles
# -- at least to them with "overlap", for units whose instructions overlap
# (pipelined folds, vector lanes: busy counts each cycle once); every
# instruction of the control unit is a slice on its track and every stall
# a "stall: ..." slice, which add up to the counter of their reason; the
# control track is busy at most the control unit's busy cycles; the flows
# are the dispatched instructions.
check_unit_slices() {
	for c in $(awk -F, '$4 == "" && $1 ~ /^core[0-9]+\.cycles$/ { sub(/\..*/, "", $1); print $1 }' "$3"); do
		for u in $(awk -F, -v c="$c" '$4 == "" && index($1, c ".") == 1 &&
				$1 ~ /\.(matrix|vector)\.insns$|\.dma[0-9]+\.transfers$/ { split($1, p, "."); print p[2] }' "$3"); do
			w=insns
			case $u in dma*) w=transfers ;; esac
			n=$(counter "$3" "$c.$u.$w") busy=$(counter "$3" "$c.$u.busy_cycles")
			got=$(tstat "$2" sum n X "$c\.$u" '.*')
			[ "$got" = "$n" ] || fail "$1: $got slices on $c.$u, $c.$u.$w $n"
			got=$(tstat "$2" sum n f "$c\.$u" '.*')
			[ "$got" = "$n" ] || fail "$1: $got flows end on $c.$u, $c.$u.$w $n"
			got=$(( $(tstat "$2" sum cycles X "$c\.$u" '.*') - $(tstat "$2" sum cycles X "$c\.$u" mout) ))
			if [ "${4:-}" = overlap ]; then
				[ "$got" -ge "$busy" ] ||
					fail "$1: the slices of $c.$u last $got cycles, less than $c.$u.busy_cycles $busy"
			else
				[ "$got" = "$busy" ] ||
					fail "$1: the slices of $c.$u last $got cycles, $c.$u.busy_cycles $busy"
			fi
		done
		t="$c\.control"
		n=$(( $(tstat "$2" sum n X "$t" '.*') - $(tstat "$2" sum n X "$t" 'stall: .*') ))
		[ "$n" = "$(counter "$3" "$c.control.insns")" ] ||
			fail "$1: $n instruction slices on $c.control, $c.control.insns $(counter "$3" "$c.control.insns")"
		for r in "queue_full:queue full .*" "sem_wait:wait sem [0-9]+" "fence:fence" "barrier:barrier"; do
			got=$(tstat "$2" sum cycles X "$t" "stall: ${r#*:}")
			want=$(counter "$3" "$c.control.stall_${r%%:*}_cycles")
			[ "$got" = "$want" ] ||
				fail "$1: '$c.control' stall slices '${r#*:}' last $got cycles, $c.control.stall_${r%%:*}_cycles $want"
		done
		got=$(tstat "$2" sum cycles X "$t" '.*')
		[ "$got" -le "$(counter "$3" "$c.control.busy_cycles")" ] ||
			fail "$1: the slices of $c.control last $got cycles, more than its busy cycles"
	done
	got=$(tstat "$2" sum n f '.*' '.*')
	want=$(counter_sum "$3" 'core[0-9]+\.control\.dispatched')
	[ "$got" = "$want" ] || fail "$1: $got flows, $want instructions dispatched"
}

# check_region_slices WHAT STATS COUNTERS.csv: each entry of a program
# region is one slice named after it on its core's "regions" track, and a
# region's slices add up to its cycles; no other slice is on those tracks.
check_region_slices() {
	awk -F, -v OFS='\t' '
		$4 != "" && ($1 == "cycles" || $1 == "entries" || $1 == "core") {
			r = $4
			for (i = 5; i <= NF; i++) r = r "," $i
			if (r ~ /^"/) { r = substr(r, 2, length(r) - 2); gsub(/""/, "\"", r) }
			v[$1, r] = $2
			if (!(r in seen)) { seen[r] = 1; order[++n] = r }
		}
		END {
			for (i = 1; i <= n; i++) {
				r = order[i]
				if (v["entries", r] == 0) continue
				name = r
				sub("@core" v["core", r] "$", "", name)
				print "core" v["core", r] ".regions", name, v["entries", r], v["cycles", r]
			}
		}' "$3" | sort > "$tmp/regions.want"
	awk -F'\t' -v OFS='\t' '$1 == "X" && $2 ~ /\.regions$/ { print $2, $3, $4, $5 }' "$2" |
		sort > "$tmp/regions.got"
	cmp -s "$tmp/regions.want" "$tmp/regions.got" ||
		{ diff "$tmp/regions.want" "$tmp/regions.got" >&2
		  fail "$1: the regions tracks (+) differ from the regions of the counters (-): track, name, entries, cycles"; }
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

# rec_vec NAME: record the run's cycles ($tmp/c.csv) and core 0's vector
# busy cycles; with MINC=n in the environment also how many cores were
# busy - at least n - and their busy cycles summed (the vector kernels'
# goldens).
rec_vec() {
	if [ -n "${MINC:-}" ]; then
		nc=$(awk -F, '$4 == "" && $1 ~ /^core[0-9]+\.vector\.busy_cycles$/ && $2 > 0 { n++ } END { print n + 0 }' "$tmp/c.csv")
		[ "$nc" -ge "$MINC" ] || fail "$1: only $nc cores did vector work (expected >= $MINC)"
		record "$1: cycles $(counter "$tmp/c.csv" cycles) cores_busy $nc vector_busy_sum $(counter_sum "$tmp/c.csv" 'core[0-9]+\.vector\.busy_cycles')"
	else
		record "$1: cycles $(counter "$tmp/c.csv" cycles) vector_busy $(counter "$tmp/c.csv" core0.vector.busy_cycles)"
	fi
}

# slices KERNEL MIN ARGS...: asm/kernels/KERNEL assembled with ARGS walks
# at least MIN channel slices over time (its symbol NT).
slices() {
	kernel=$1 min=$2
	shift 2
	"$bin" as -o "$tmp/k.npo" "$@" "asm/kernels/$kernel" > /dev/null 2>&1 ||
		fail "$kernel $*: does not assemble"
	nt=$("$bin" objdump "$tmp/k.npo" | awk '$4 == "NT" { print $1 }')
	[ "$((${nt:-0}))" -ge "$min" ] || fail "$kernel $*: NT = ${nt:-?}, expected >= $min"
}
