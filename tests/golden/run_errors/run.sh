# Bad input and faulting programs: one clear message with a place, the
# documented exit status, and no output file left behind.
. "$(dirname "$0")/../lib.sh"

# expect STATUS PATTERN CMD...: run, check the exit status and stderr.
expect() {
	want=$1 pat=$2
	shift 2
	set +e
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	set -e
	[ $rc = "$want" ] || { cat "$tmp/err" >&2; fail "exit $rc, expected $want: $*"; }
	grep -q -- "$pat" "$tmp/err" || { cat "$tmp/err" >&2; fail "no '$pat' in the message: $*"; }
	record "exit $rc: $(grep -- "$pat" "$tmp/err" | head -1)"
}

cd "$tmp"
cfg=$OLDPWD/configs/default.cfg

# A wait nobody signals: deadlock, naming the unit and what it waits on.
printf '\twait\tctl, 3, 1\n\thalt\n' > deadlock.s
expect 3 "waits for semaphore 3 >= 1" "$bin" run -c "$cfg" deadlock.s --counters out.json
[ ! -e out.json ] || fail "a failed run left out.json behind"

# A queued wait on the matrix engine that never passes: the halted core names it.
printf '\twait\tmtx, 5, 2\n\thalt\n' > qdeadlock.s
expect 3 "mtx queue head" "$bin" run -c "$cfg" qdeadlock.s

# The root cause, not only the symptom: the control unit waits for a sig
# that sits behind a matrix-queue wait no one will ever release; the note
# follows the chain to that wait, with source lines.
printf '\twait\tmtx, 5, 2\n\tsig\tmtx, 1\n\twait\tctl, 1, 1\n\thalt\n' > chain.s
expect 3 "queued behind the mtx queue head (wait from pc 0x0 (chain.s:1)), which waits for semaphore 5 >= 2 (value 0), and no sig for it is queued on core 0" \
	"$bin" run -c "$cfg" chain.s

# A tensor with neither --input nor --output warns (and --input X=zeros
# says the zeros are meant, which silences it).  A tensor the program's
# data initialises does not warn.
cat > unbound.s <<'S'
	halt
	.tensor X, dram, 0x1000, int8, 4, 4
	.tensor Y, dram, 0x2000, int8, 4, 4
	.tensor Z, dram, 0x3000, int8, 2
	.dram	0x3000
	.byte	1, 2
S
expect 0 "warning: tensor 'X' has no --input or --output" "$bin" run -c "$cfg" unbound.s --output Y=y.npy
grep -q "'Z'" "$tmp/err" && fail "a tensor initialised by the program's data warned"
grep -q "'Y'" "$tmp/err" && fail "a tensor named by --output warned"
"$bin" run -c "$cfg" unbound.s --input X=zeros --output Y=y.npy > /dev/null 2> "$tmp/err" ||
	fail "--input X=zeros failed"
grep -q warning "$tmp/err" && fail "--input X=zeros did not silence the warning"
record "--input X=zeros: no warning"

# A DMA reading past the end of DRAM: fault with core, pc and cycle.
cat > dmafault.s <<'S'
	li	t0, 0x7fffffff
	dset	src, t0
	li	t0, 4096
	dset	n0, t0
	dma	0
	fence	all
	halt
S
expect 3 "core 0 pc 0x" "$bin" run -c "$cfg" dmafault.s

# A descriptor whose overlapping elements add up to more than 2^48 bytes
# (its byte count used to wrap to 0 and pass as empty).
cat > dmawrap.s <<'S'
	li	t0, 0x80000000
	dset	n0, t0
	dset	n1, t0
	dset	n2, t0
	dset	n3, t0
	dset	ss0, zero
	dset	ss1, zero
	dset	ss2, zero
	dset	ss3, zero
	dset	ds0, zero
	dset	ds1, zero
	dset	ds2, zero
	dset	ds3, zero
	dma	0
	fence	all
	halt
S
expect 3 "more than 2^48 bytes" "$bin" run -c "$cfg" dmawrap.s
grep -q "dmawrap.s:14: note: the instruction" "$tmp/err" || fail "no source line for the fault"

# A vector row stride that does not fit the 32-bit register faults (it used
# to be truncated silently).
printf '	li	t0, 0x100000000
	vset	sd, t0
	halt
' > vstride.s
expect 3 "vset sd 4294967296 exceeds 32 bits" "$bin" run -c "$cfg" vstride.s

# Scalar memory out of range.
printf '\tli\tt0, 0x10000000\n\tld\tt1, 0(t0)\n\thalt\n' > ldfault.s
expect 3 "outside \[0, 0x10000)" "$bin" run -c "$cfg" ldfault.s

# An endless loop stopped by the watchdog.
printf 'top:\n\tj\ttop\n' > spin.s
expect 3 "cycle limit 5000 reached" "$bin" run -c "$cfg" spin.s --max-cycles 5000
# a limit that is not a positive number is refused, not wrapped: "-5"
# once ran as 2^64 - 5 cycles (strtoull negates modulo 2^64), and a
# number past 2^64 as 2^64 - 1
for v in -5 0 18446744073709551616 5k; do
	expect 2 "expected a positive integer" "$bin" run -c "$cfg" spin.s --max-cycles "$v"
done

# Assembly errors: compiler-style, exit 1, no object left.
printf '\taddd\tt0, t0, t0\n' > typo.s
expect 1 "typo.s:1:2: error" "$bin" run -c "$cfg" typo.s

# An expression with 100,000 operators: an error, not a stack overflow.
{ printf '.equ X, 1'; i=0; while [ $i -lt 2000 ]; do printf '+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1'; i=$((i+1)); done; printf '\n\thalt\n'; } > chain.s
expect 1 "expression has more than 4096 operators" "$bin" run -c "$cfg" chain.s

# A tensor the program does not declare, and a file of the wrong shape.
printf '.tensor X, dram, 0, int8, 4, 4\n\thalt\n' > tens.s
expect 1 "no tensor 'Y'" "$bin" run -c "$cfg" tens.s --input Y=x.npy
"$ref" gen 3 4 4 1 x.npy y.npy
expect 1 "does not match tensor 'X'" "$bin" run -c "$cfg" tens.s --input X=x.npy
expect 1 "x.npy" "$bin" run -c "$cfg" tens.s --output X=/nonexistent/dir/x.npy

# Config errors: exit 2 with file:line and did-you-mean.
printf 'core: { matrix: { rwos = 8; }; };\n' > bad.cfg
expect 2 "bad.cfg:1: error: unknown key 'core.matrix.rwos' (did you mean 'core.matrix.rows'?)" \
	"$bin" run -c bad.cfg tens.s
expect 2 "core.dma.engines" "$bin" run -c "$cfg" -s core.dma.engines=0 tens.s

# Usage errors: exit 2.
expect 2 "no program given" "$bin" run -c "$cfg"
expect 2 "unknown option" "$bin" run --frobnicate tens.s
# A tensor or a counters file where the program goes is named as such.
expect 2 "x.npy is a .npy tensor, not a program: bind it to a tensor of the program with --input NAME=x.npy" \
	"$bin" run -c "$cfg" x.npy
"$bin" run -q -c "$cfg" tens.s --input X=zeros --counters c.csv --counters c.json
expect 2 "c.csv is a counters file, not a program" "$bin" stat -c "$cfg" c.csv
expect 2 "c.json is a counters file, not a program" "$bin" run -c "$cfg" c.json
cd "$OLDPWD"
golden
