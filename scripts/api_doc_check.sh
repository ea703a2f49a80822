#!/bin/sh
# api_doc_check.sh - docs/api.md describes every function of the public
# header, and no function the header lacks (`make test`).  The doc may
# name a family at once: `npusim_tensor_count/_name/_info` stands for
# npusim_tensor_count, npusim_tensor_name and npusim_tensor_info.
set -e
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -n 's/.*\b\(npusim_[a-z0-9_]*\)(.*/\1/p' include/npusim.h | sort -u > "$tmp/header"
grep -o 'npusim_[a-z0-9_]*\(/_[a-z0-9_]*\)*' docs/api.md | awk -F/ '{
	print $1
	base = $1; sub(/_[a-z0-9]*$/, "", base)
	for (i = 2; i <= NF; i++) print base $i
}' | sort -u > "$tmp/doc"
# names of types and macros the doc may also mention
grep -o 'npusim_[a-z0-9_]*' include/npusim.h | sort -u > "$tmp/all"
rc=0
for f in $(comm -23 "$tmp/header" "$tmp/doc"); do
	echo "docs/api.md does not describe $f (include/npusim.h)" >&2
	rc=1
done
for f in $(comm -13 "$tmp/all" "$tmp/doc"); do
	case $f in npusim_) continue ;; esac
	echo "docs/api.md names $f, which include/npusim.h does not declare" >&2
	rc=1
done
[ $rc = 0 ] && echo "docs.api: every function of include/npusim.h described"
exit $rc
