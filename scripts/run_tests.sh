#!/bin/sh
# run_tests.sh BUILD "UNIT_TESTS" "GEN_DOCS" - run the whole suite.
#
# Each Check binary prints its own summary; golden tests live in
# tests/golden/*/run.sh; the doc staleness check regenerates docs/*.md.
# The closing line "tests: N passed, N failed" counts every check.
build=$1; units=$2; docs=$3
pass=0; fail=0
for t in $units; do
	out=$("$build/tests/test_$t" 2>&1); rc=$?
	echo "$out" | grep -E '^[0-9]+%:' | sed "s/^/test_$t: /"
	n=$(echo "$out" | sed -n 's/^[0-9]*%: Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p')
	if [ -n "$n" ]; then
		set -- $n
		pass=$((pass + $1 - $2 - $3)); fail=$((fail + $2 + $3))
	fi
	if [ $rc -ne 0 ]; then
		echo "$out" | grep -vE '^[0-9]+%:|^Running suite' >&2
		[ -z "$n" ] && fail=$((fail + 1))
	fi
done
for g in tests/golden/*/run.sh; do
	# A case is skipped nowhere: each one checks real results.
	[ -f "$g" ] || continue
	name=$(basename "$(dirname "$g")")
	if out=$(sh "$g" "$build/npusim" 2>&1); then
		echo "golden.$name: ok"; pass=$((pass + 1))
	else
		echo "golden.$name: FAILED"; echo "$out" | tail -20 >&2; fail=$((fail + 1))
	fi
done
if sh scripts/docs_check.sh "$build/mkdoc" $docs && sh scripts/api_doc_check.sh; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi
# The Python package over the build's libnpusim.so (not under the
# sanitizers: an instrumented library needs its runtime preloaded into
# Python, NPU_PYTEST=0).
if [ "${NPU_PYTEST:-1}" = 1 ]; then
	if out=$(NPUSIM_BUILD=$build /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python 2>&1); then
		echo "python: $(echo "$out" | tail -1)"; pass=$((pass + 1))
	else
		echo "python: FAILED"; echo "$out" | tail -30 >&2; fail=$((fail + 1))
	fi
fi
# docs/kernels.md is measured: the same cases again must give the same table
if sh scripts/kernels_report.sh "$build/npusim" --check; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi
# the layers: includes one way, no file circles, the drawing current
if sh scripts/layers.sh "$build" --check-doc; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi
# README.md's measured tables: generated from the same runs
if sh scripts/readme_tables.sh "$build/npusim" --check; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi
echo "tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
