#!/bin/sh
# docs_check.sh MKDOC DOC... - fail when a generated docs/DOC.md is stale.
mkdoc=$1; shift
rc=0
for d in "$@"; do
	tmp=$(mktemp)
	"$mkdoc" "$d" > "$tmp"
	if ! cmp -s "$tmp" "docs/$d.md"; then
		echo "docs/$d.md is out of date: run 'make docs' and commit it" >&2
		diff -u "docs/$d.md" "$tmp" | head -20 >&2
		rc=1
	else
		echo "docs.$d: up to date"
	fi
	rm -f "$tmp"
done
exit $rc
