#!/bin/sh
# abwrap.sh ARGS... - stands in for npusim under scripts/abcompare.sh: runs
# $AB_OLD and then $AB_NEW with ARGS, and logs to $AB_LOG every difference
# in exit status, standard output, standard error (host times masked) and
# the files either wrote.  Behaves as $AB_NEW towards its caller.
#
# The files a command writes are found, not declared: every argument (and
# the part after '=' in NAME=PATH and --opt=PATH) that names a file or
# folder, plus what appeared in the folders holding them and in the
# working folder.  What the old binary created is removed before the new
# one runs, and files it changed in place are put back, so both start from
# the same state (a resumable sweep resumes from nothing twice).
# Standard output to a device (a terminal, /dev/full): not comparable,
# and the caller wants the device's own behaviour.
out=$(readlink /proc/$$/fd/1 2>/dev/null)
if [ -c /proc/$$/fd/1 ] && [ "$out" != /dev/null ]; then
	exec "$AB_NEW" "$@"
fi
w=$(mktemp -d)
mkdir "$w/old" "$w/new" "$w/pre"
# Standard input only when an argument reads it, and at most 64 MiB of it:
# a longer (endless) stream goes to the new binary alone, uncompared.
: > "$w/stdin"
for a in "$@"; do
	case $a in -|*=-|/dev/stdin|*=/dev/stdin) usein=1 ;; esac
done
if [ "${usein:-0}" = 1 ]; then
	head -c 67108865 > "$w/stdin"
	if [ "$(wc -c < "$w/stdin")" -gt 67108864 ]; then
		echo "$*" >> "$AB_COUNT"
		echo "NOT COMPARED (endless input) npusim $*" >> "$AB_LOG"
		{ cat "$w/stdin"; cat; } | "$AB_NEW" "$@"
		rc=$?
		rm -rf "$w"
		exit $rc
	fi
fi
: > "$w/paths"
for a in "$@"; do
	for p in "$a" "${a#*=}" "${a##*=}"; do
		case $p in -*|'') continue ;; esac
		echo "$p" >> "$w/paths"
		dirname -- "$p" >> "$w/dirs"
	done
done
echo . >> "$w/dirs"
sort -u "$w/paths" -o "$w/paths"
sort -u "$w/dirs" | while read -r d; do [ -d "$d" ] && echo "$d"; done > "$w/dirs.ok"
listing() { while read -r d; do find "$d" -mindepth 1 -maxdepth 1 2>/dev/null; done < "$w/dirs.ok" | sort; }
listing > "$w/before"
# Files named by the arguments that exist now: kept, to be put back.
i=0
while read -r p; do
	i=$((i + 1))
	if [ -f "$p" ] || [ -d "$p" ]; then cp -a "$p" "$w/pre/$i" 2>/dev/null; fi
done < "$w/paths"
touch "$w/marker"
sleep 0.01 2>/dev/null || true
restore() { # put back the state before the old run
	while read -r p; do case $p in "$w"*) ;; *) rm -rf "$p" ;; esac; done < "$w/created.old"
	i=0
	while read -r p; do
		i=$((i + 1))
		if [ -f "$w/pre/$i" ] && [ "$p" -nt "$w/marker" ]; then cp -p "$w/pre/$i" "$p"; fi
		# A folder the old run changed (a sweep's output) is put back whole.
		if [ -d "$w/pre/$i" ] && [ -n "$(find "$p" -newer "$w/marker" 2>/dev/null | head -1)" ]; then
			rm -rf "$p" && cp -a "$w/pre/$i" "$p"
		fi
	done < "$w/paths"
}
snap() { # snap DEST: copy what the run wrote
	listing > "$w/after.$1"
	comm -13 "$w/before" "$w/after.$1" > "$w/created.$1"
	j=0
	while read -r p; do
		j=$((j + 1))
		case $p in "$w"*|*abcompare.log) continue ;; esac
		mkdir -p "$w/$1/c$j"; cp -a "$p" "$w/$1/c$j/" 2>/dev/null || true
	done < "$w/created.$1"
	j=0
	while read -r p; do
		j=$((j + 1))
		if [ -f "$p" ] && [ "$p" -nt "$w/marker" ] && ! grep -qxF "$p" "$w/created.$1"; then
			mkdir -p "$w/$1/m$j"; cp -p "$p" "$w/$1/m$j/"
		fi
	done < "$w/paths"
}
# A run stopped by a signal (the golden "outputs" interrupts endless
# runs) cannot be compared: the old one is stopped the same way, and the
# new one gets the signal after the same time, with the caller's outputs.
# Children start with the default dispositions (a background job of a
# non-interactive shell would ignore SIGINT).
got=
trap 'got=INT' INT
trap 'got=TERM' TERM
trap 'got=HUP' HUP
# (Standard input inside: an asynchronous list of a shell without job
# control would read /dev/null.)
launch() { env --default-signal=INT,HUP,TERM "$@" < "$w/stdin" & child=$!; }
t0=$(date +%s.%N)
launch "$AB_OLD" "$@" > "$w/old/stdout" 2> "$w/old/stderr"
wait $child
echo $? > "$w/old/rc"
if [ -n "$got" ]; then
	t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
	# not compared: stopped at once, so that the new one gets its signal
	# within the caller's patience
	kill -9 $child 2>/dev/null
	wait $child
	snap old
	restore
	echo "$*" >> "$AB_COUNT"
	echo "NOT COMPARED (stopped by SIG$got) npusim $*" >> "$AB_LOG"
	sig=$got
	got=
	launch "$AB_NEW" "$@"
	sleep "$t"
	kill -s "$sig" $child 2>/dev/null
	wait $child
	rc=$?
	rm -rf "$w"
	exit $rc
fi
snap old
restore
touch "$w/marker"
"$AB_NEW" "$@" < "$w/stdin" > "$w/new/stdout" 2> "$w/new/stderr"
rc=$?
echo $rc > "$w/new/rc"
snap new
rm -f "$w/old/created.old" "$w/new/created.new"
# Where a file names the binary itself (a Slurm script), the old one's
# path reads as the new one's.
grep -rlF "$AB_OLD" "$w/old" 2>/dev/null | while read -r f; do
	sed -i "s|$AB_OLD|$AB_NEW|g" "$f"
done
for s in old new; do
	# Host times and rates vary from run to run: masked.
	sed -E 's/[0-9.]+ ?(s|ms|us)\b/T/g; s/[0-9.]+ ?[kMG]?(cycles|insns|events)\/s/R/g' \
		"$w/$s/stderr" > "$w/$s/stderr.masked"
	mv "$w/$s/stderr" "$w/stderr.$s"
done
if ! diff -r "$w/old" "$w/new" > "$w/diff" 2>&1; then
	# Compressed files that differ are compared uncompressed too (a gzip
	# stream's bytes are what users keep, so both are reported).
	{ echo "DIFF npusim $*"; head -40 "$w/diff"; } >> "$AB_LOG"
fi
echo "$*" >> "$AB_COUNT"
cat "$w/new/stdout"
cat "$w/stderr.new" >&2
rm -rf "$w"
exit $rc
