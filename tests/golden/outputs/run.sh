# Outputs are never lost or corrupted: two outputs naming one file are
# refused, every failed write (file, device, stdout) is reported, and a
# signal leaves no temporary behind: a run stopped by ^C/SIGTERM/SIGHUP
# keeps its counters and trace and exits by the signal (130, 143, 129).
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
	record "exit $rc: $(grep -- "$pat" "$tmp/err" | head -1 | sed "s,${tmp##*/},TMP,")"
}

# no_tmp: no temporary output file anywhere under the work directory.
no_tmp() {
	left=$(find . -name '*.tmp.*' | head -5)
	[ -z "$left" ] || fail "temporaries left behind: $left ($1)"
}

cd "$tmp"
top=$OLDPWD
cfg=$top/configs/default.cfg
printf '.tensor X, dram, 0, int8, 4, 4\n\thalt\n' > tens.s

# Two outputs, one file: refused before anything runs (they used to share
# the temporary "<path>.tmp.<pid>": gzip bytes in the counters, exit 1).
expect 2 "name the same file" "$bin" run -c "$cfg" tens.s --trace y.json --counters y.json
[ ! -e y.json ] || fail "a refused run wrote y.json"
expect 2 "name the same file" "$bin" run -c "$cfg" tens.s --trace x.npy --output X=./x.npy
expect 2 "name the same file" "$bin" run -c "$cfg" tens.s --output X=- --output X@0=-
: > e.json
expect 2 "name the same file" "$bin" run -c "$cfg" tens.s --counters e.json --counters "../${tmp##*/}/e.json"
no_tmp "refused runs"

# Every failed write is reported with its place and a non-zero status.
expect 1 "<stdout>: error: cannot write: No space left on device" sh -c "'$bin' run -q -c '$cfg' tens.s --output X=- > /dev/full"
expect 1 "/dev/full: error: cannot write: No space left on device" "$bin" run -q -c "$cfg" tens.s --output X=/dev/full
expect 1 "/dev/full: error: cannot write: No space left on device" "$bin" as -o /dev/full tens.s
expect 1 "<stdout>: error: cannot write: No space left on device" sh -c "'$bin' config --dump > /dev/full"
expect 1 "<stdout>: error: cannot write: No space left on device" sh -c "'$bin' config > /dev/full"
expect 1 "<stdout>: error: cannot write: No space left on device" sh -c "'$bin' stat -c '$cfg' tens.s > /dev/full"
expect 1 "<stdout>: error: cannot write: No space left on device" sh -c "'$bin' objdump tens.s > /dev/full"
expect 1 "<stdout>: error: cannot write: No space left on device" sh -c "'$bin' dram --requests 10 > /dev/full"
expect 1 "<stdout>: error: cannot write: No space left on device" sh -c "'$bin' --help > /dev/full"
no_tmp "failed writes"

# A temporary gets the mode of a normal create (mkstemp's 0600 is not
# kept): with umask 022 the counters file is rw-r--r--.
(umask 022 && "$bin" run -q -c "$cfg" tens.s --counters mode.json)
case $(ls -l mode.json) in -rw-r--r--*) ;; *) fail "mode.json: $(ls -l mode.json)" ;; esac

# Signals.  A background job of a non-interactive shell starts with SIGINT
# ignored, and the suite itself may run under nohup (SIGHUP ignored);
# npusim keeps an ignored signal ignored, as it should under nohup, so the
# run is started with the default dispositions restored.
# (A simple command, not a function: "cmd &" then gives $! = npusim's pid.)
if env --default-signal=INT,HUP,TERM true 2>/dev/null; then
	launch="env --default-signal=INT,HUP,TERM"
else
	echo '$SIG{$_} = "DEFAULT" for qw(INT HUP TERM); exec @ARGV or die;' \
		> "$tmp/dflt.pl"
	launch="perl $tmp/dflt.pl"
fi
printf '.tensor X, dram, 0, int8, 4, 4\ntop:\n\taddi\tt0, t0, 1\n\tj\ttop\n' > spin.s

# interrupt SIG WANT CMD...: start a run of spin.s that never ends, wait
# until it simulates (its trace temporary exists, then half a second),
# send SIG, and check the exit status and what is left.
interrupt() {
	sig=$1 want=$2
	shift 2
	rm -f c.json t.json.gz x.npy
	$launch "$bin" "$@" -c "$cfg" spin.s --max-cycles 1000000000000 \
		--counters c.json --trace t.json.gz --output X=x.npy \
		> out 2> err &
	pid=$!
	n=0
	while [ -z "$(find . -name 't.json.gz.tmp.*')" ]; do
		n=$((n + 1)); [ $n -lt 100 ] || fail "$sig: the run did not start"
		sleep 0.1
	done
	sleep 0.5
	kill -s "$sig" $pid
	n=0
	while kill -0 $pid 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 100 ] || { kill -9 $pid; fail "$sig: the run did not stop"; }
		sleep 0.1
	done
	set +e
	wait $pid
	rc=$?
	set -e
	[ $rc = "$want" ] || { cat err >&2; fail "$sig: exit $rc, expected $want"; }
	grep -q "error: interrupted at cycle [0-9]" err || { cat err >&2; fail "$sig: no message"; }
	grep -q "spin.s:[34]: note: core 0 was running at pc 0x" err || { cat err >&2; fail "$sig: no place"; }
	no_tmp "$sig"
	# Kept, and complete: the counters parse, the trace is whole gzip JSON.
	grep -q '"core0.control.insns"' c.json || fail "$sig: counters not kept"
	gzip -t t.json.gz || fail "$sig: trace not a whole gzip file"
	gzip -dc t.json.gz | tail -c 3 | grep -q ']}' || fail "$sig: trace JSON not closed"
	# Not written: the tensors of a run that did not finish.
	[ ! -e x.npy ] || fail "$sig: --output written by an interrupted run"
	record "$sig $*: exit $rc, counters and trace kept, no --output, no temporaries"
}
interrupt INT 130 run
interrupt TERM 143 run
interrupt HUP 129 stat -q

cd "$top"
golden
