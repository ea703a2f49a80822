#!/bin/sh
# layers.sh BUILD [--drawing | --check-doc] - the tree's layering, checked
# (`make test`): docs/internals.md "Layers" draws it.
#
# The layers, top to bottom; a file may include a header of its own layer
# or of one below it, never above (DESIGN.md: imports flow one way):
LAYERS="cli api dse compiler report run sim/chip sim/core sim/noc sim/mem sim/engine trace asm prog isa arch util include"
# sim/ is itself layered: the chip assembles the cores, a core's units
# reach memory through the port protocol (sim/mem) and the network
# (sim/noc) carries ports, and everything runs on the engine.
#
# Checks:
#   1. includes: every #include "..." of every .c and .h under the layers
#      goes down or sideways;
#   2. no file circles: among BUILD's objects (not tests, tools, benches),
#      no two files call each other, directly or round a longer loop
#      (nm's defined and undefined symbols; tsort finds the loops);
#   3. --check-doc: docs/internals.md's drawing (between its
#      '<!-- generated: scripts/layers.sh -->' and '<!-- end layers -->'
#      lines) is what --drawing prints.
# --drawing prints, per layer, the layers it includes from.
set -e
build=${1:?usage: layers.sh BUILD [--drawing | --check-doc]}
mode=${2:-check}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The layer of a path (a file or a header), or "" outside the layers.
layer_of() {
	case $1 in
	sim/chip.*) echo sim/chip ;;
	sim/*/*) echo "$1" | cut -d/ -f1-2 ;;
	*/*) l=${1%%/*}; case " $LAYERS " in *" $l "*) echo "$l" ;; esac ;;
	esac
}
rank_of() {
	i=0
	for l in $LAYERS; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}

# 1. includes: "FROM_LAYER TO_LAYER FILE HEADER" per include
: > "$tmp/edges"
for top in $LAYERS; do
	if [ "$top" = sim/chip ]; then
		ls sim/chip.c sim/chip.h
	elif [ -d "$top" ]; then
		find "$top" -maxdepth 1 -name '*.[ch]'
	fi
done | sort -u > "$tmp/files"
while read -r f; do
	d=$(dirname "$f")
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
	while read -r h; do
		p=$(realpath -m --relative-to=. "$d/$h")
		[ -e "$p" ] || continue    # generated (build/gen) or system
		echo "$(layer_of "$f") $(layer_of "$p") $f $p"
	done
done < "$tmp/files" >> "$tmp/edges"
bad=0
while read -r from to f h; do
	[ -n "$to" ] || continue
	if [ "$(rank_of "$to")" -lt "$(rank_of "$from")" ]; then
		echo "layers: $f includes $h: $from may not include from $to (above it)" >&2
		bad=1
	fi
done < "$tmp/edges"

drawing() {
	echo "| layer | includes from |"
	echo "| --- | --- |"
	for l in $LAYERS; do
		[ "$l" = include ] && continue
		below=$(awk -v l="$l" '$1 == l && $2 != l { print $2 }' "$tmp/edges" | sort -u)
		list=
		for m in $LAYERS; do
			echo "$below" | grep -qx "$m" && list="$list${list:+, }\`$m\`"
		done
		echo "| \`$l\` | ${list:-nothing} |"
	done
}

if [ "$mode" = --drawing ]; then
	drawing
	exit $bad
fi

# 2. file circles among the library's objects: an edge A B when object A
# uses a symbol object B defines
find "$build" -name '*.o' ! -path "$build/tests/*" ! -path "$build/bench/*" \
	! -path "$build/gen/*" ! -path "$build/fuzz/*" ! -path "$build/asan/*" \
	! -path "$build/debug/*" ! -path "$build/ab-old/*" | sort |
	while read -r o; do
		# objects of sources that still exist (a stale build keeps others)
		src=${o#"$build"/}
		[ -f "${src%.o}.c" ] && echo "$o"
	done > "$tmp/objs"
while read -r o; do
	nm "$o" | awk -v o="$o" '$2 ~ /^[TDBR]$/ { print "D", $3, o } $1 == "U" { print "U", $2, o }'
done < "$tmp/objs" > "$tmp/syms"
awk '$1 == "D" { def[$2] = $3 } $1 == "U" { use[NR] = $3 " " $2 }
     END { for (k in use) { split(use[k], x, " "); if ((x[2] in def) && def[x[2]] != x[1]) print x[1], def[x[2]] } }' \
	"$tmp/syms" | sort -u > "$tmp/calls"
# every object also stands alone, so tsort lists it
awk '{ print $1, $1 }' "$tmp/objs" >> "$tmp/calls"
if ! tsort "$tmp/calls" > /dev/null 2> "$tmp/loops"; then
	echo "layers: files that call each other (a circle; tsort's report):" >&2
	sed 's|'"$build"'/||' "$tmp/loops" >&2
	bad=1
fi

# 3. the drawing in docs/internals.md
if [ "$mode" = --check-doc ]; then
	drawing > "$tmp/draw"
	awk '/^<!-- generated: scripts\/layers.sh -->$/ { on = 1; next }
	     /^<!-- end layers -->$/ { on = 0 } on' docs/internals.md > "$tmp/doc"
	if ! cmp -s "$tmp/draw" "$tmp/doc"; then
		echo "docs/internals.md's layer drawing is out of date: paste 'sh scripts/layers.sh $build --drawing'" >&2
		diff -u "$tmp/doc" "$tmp/draw" >&2 || true
		bad=1
	fi
fi
[ $bad = 0 ] && echo "layers: includes one way, no file circles"
exit $bad
