#!/bin/sh
# tests/golden/config/run.sh NPUSIM - the `npusim config` command end to end:
# exit statuses (0 ok, 2 usage/config error), messages with file:line,
# --dump loadable and stable, -o never leaves a half-written file, --keys
# lists every key of arch/params.def.  Run from the repository root.
npusim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "config golden: $*" >&2; exit 1; }

# every shipped config checks clean and its dump loads back to the same dump
for f in configs/*.cfg; do
	out=$("$npusim" config -c "$f" 2> "$tmp/warn") || fail "$f: exit $?"
	# every bundled config's DMA can reach its DRAM peak (Little's law)
	[ -s "$tmp/warn" ] && fail "$f: $(cat "$tmp/warn")"
	[ "$(echo "$out" | head -1)" = "$f: ok" ] || fail "$f: no ok line"
	"$npusim" config -c "$f" --dump -o "$tmp/d1.cfg" || fail "$f: dump failed"
	"$npusim" config -c "$tmp/d1.cfg" --dump -o "$tmp/d2.cfg" || fail "$f: dump does not load"
	# identical but for the "# source:" line
	grep -v '^# source:' "$tmp/d1.cfg" > "$tmp/a"
	grep -v '^# source:' "$tmp/d2.cfg" > "$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || fail "$f: dump of the dump differs"
done

# a DMA that cannot cover the DRAM's bandwidth x latency is warned about,
# with the numbers: 1 x 1 x 1 x 64 B / 40 ns = 1.6 GB/s < 12.8 GB/s
"$npusim" config -c configs/default.cfg -s core.dma.engines=1 \
	-s core.dma.max_outstanding=1 > /dev/null 2> "$tmp/warn" || fail "dma warning: exit $?"
grep -q 'warning: the DMA engines keep at most 1 x 1 x 1 x 64 B in flight.*1.6 GB/s at the DRAM.s 40 ns unloaded latency, below its 12.8 GB/s peak' "$tmp/warn" ||
	fail "no DMA reach warning: $(cat "$tmp/warn")"

# the TPU v1 peak: 65536 MACs x 0.7 GHz
"$npusim" config -c configs/tpu-v1.cfg --dump | grep -q '4.58752e+13 (45.9 T)' ||
	fail "tpu-v1 peak missing from the dump"

# a bad config: exit 2, every error with file:line, a count at the end
"$npusim" config -c tests/configs/bad-keys.cfg > "$tmp/out" 2> "$tmp/err"
[ $? -eq 2 ] || fail "bad config: exit status not 2"
[ -s "$tmp/out" ] && fail "bad config: printed to stdout"
grep -qx "tests/configs/bad-keys.cfg:4: error: unknown key 'core.matrix.rwos' (did you mean 'core.matrix.rows'?)" "$tmp/err" ||
	fail "bad config: did-you-mean message missing"
[ "$(grep -c ': error: ' "$tmp/err")" -eq 6 ] || fail "bad config: not all 6 errors reported"
tail -1 "$tmp/err" | grep -qx 'tests/configs/bad-keys.cfg: 6 errors' || fail "bad config: no error count"

# -o with a failing config writes nothing
"$npusim" config -c tests/configs/bad-types.cfg --dump -o "$tmp/never.cfg" 2>/dev/null
[ $? -eq 2 ] || fail "bad config with -o: exit status not 2"
[ -e "$tmp/never.cfg" ] && fail "bad config with -o: output file created"
ls "$tmp" | grep -q tmp && fail "temporary output left behind"

# overrides: good ones change the dump, bad ones exit 2 at <command line>
"$npusim" config -c configs/default.cfg -s core.matrix.rows=64 -s core.scratchpad.bytes=512K --dump |
	grep -q '^    rows = 64; ' || fail "override not applied"
"$npusim" config -c configs/default.cfg -s core.matrix.rows=0 2> "$tmp/err"
[ $? -eq 2 ] || fail "bad override: exit status not 2"
grep -q '^<command line>: error: core.matrix.rows = 0 is out of range' "$tmp/err" || fail "bad override: message"

# --keys: one line per key plus a header
keys=$(grep -cE '^P(INT|FLT|BOOL|ENUM|STR|LIST) *\(' arch/params.def)
[ "$("$npusim" config --keys | wc -l)" -eq $((keys + 1)) ] || fail "--keys does not list $keys keys"

# usage
"$npusim" config --help > /dev/null || fail "--help: exit $?"
"$npusim" config --frobnicate 2> /dev/null
[ $? -eq 2 ] || fail "unknown option: exit status not 2"
"$npusim" config -c 2> /dev/null
[ $? -eq 2 ] || fail "missing value: exit status not 2"
exit 0
