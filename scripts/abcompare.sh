#!/bin/sh
# abcompare.sh OLD_BUILD NEW_BUILD [CASE...] - prove that a refactor changed
# no result: every npusim command that the golden tests and the kernel
# report run is run by both builds' binaries, and their exit statuses,
# standard output and every file the command wrote must be identical.
#
# How: a folder that mirrors NEW_BUILD (tools, library) except that its
# npusim is scripts/abwrap.sh, which runs OLD_BUILD/npusim first, keeps what
# it wrote, removes the files that did not exist before, runs
# NEW_BUILD/npusim with the same arguments and compares.  The golden tests
# themselves then run as usual on the new binary's results.  Differences
# go to $AB_LOG (default build/abcompare.log); the closing line counts
# the commands compared.  Only the CASEs named (golden case names, or
# "kernels" for the kernel report) when any are given.
set -e
old=$(cd "${1:?usage: abcompare.sh OLD_BUILD NEW_BUILD [CASE...]}" && pwd)
new=$(cd "${2:?usage: abcompare.sh OLD_BUILD NEW_BUILD [CASE...]}" && pwd)
shift 2
top=$(pwd)
mirror=$(mktemp -d)
trap 'rm -rf "$mirror"' EXIT
for f in "$new"/*; do
	[ "$(basename "$f")" = ab-old ] && continue
	case $(basename "$f") in npusim) ;; *) ln -s "$f" "$mirror/" ;; esac
done
cp "$top/scripts/abwrap.sh" "$mirror/npusim"
chmod +x "$mirror/npusim"
# The old binary sits two levels below the tree, as build/asan/npusim
# does, so that it finds the same kernel folder (../../asm/kernels) as the
# new one finds from build/npusim: messages and caches name kernels by it.
mkdir -p "$new/ab-old"
cp "$old/npusim" "$new/ab-old/npusim"
AB_OLD=$new/ab-old/npusim AB_NEW=$new/npusim
AB_LOG=${AB_LOG:-$top/build/abcompare.log}
AB_COUNT=$mirror/.count
export AB_OLD AB_NEW AB_LOG AB_COUNT
: > "$AB_LOG"
: > "$AB_COUNT"
cases=$*
[ -n "$cases" ] || cases="$(cd tests/golden && ls -d -- */ | tr -d /) kernels"
bad=0
for c in $cases; do
	if [ "$c" = kernels ]; then
		sh scripts/kernels_report.sh "$mirror/npusim" --check > /dev/null 2>&1 ||
			{ echo "abcompare: the kernel report failed on the new build" >> "$AB_LOG"; bad=1; }
	elif [ -f "tests/golden/$c/run.sh" ]; then
		sh "tests/golden/$c/run.sh" "$mirror/npusim" > /dev/null 2>&1 ||
			{ echo "abcompare: golden $c failed on the new build" >> "$AB_LOG"; bad=1; }
	fi
done
n=$(wc -l < "$AB_COUNT")
d=$(grep -c '^DIFF' "$AB_LOG" || true)
u=$(grep -c '^NOT COMPARED' "$AB_LOG" || true)
echo "abcompare: $n commands run by both, $d differ, $u not comparable (stopped by a signal, endless input; details in $AB_LOG)"
[ "$d" = 0 ] && [ $bad = 0 ]
