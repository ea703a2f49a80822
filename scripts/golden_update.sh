#!/bin/sh
# golden_update.sh BUILD - rewrite every tests/golden/*/expected.
# Only on purpose: review `git diff tests/golden` before committing.
build=$1
for g in tests/golden/*/run.sh; do
	GOLDEN_UPDATE=1 sh "$g" "$build/npusim" || echo "FAILED: $g" >&2
done
