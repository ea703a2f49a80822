#!/bin/sh
# noc_curves.sh BIN - the load-latency curves of docs/noc.md ("Measured
# curves"): `npusim noc --sweep` on a 4x4 mesh, an 8x8 mesh and a 4x4
# torus, with 1- and 4-flit packets and 2 and 4 VCs, uniform traffic,
# default router timing.  Prints one CSV block per network; deterministic
# (seed 1), so re-running reproduces the numbers in the docs.
bin=${1:?usage: sh scripts/noc_curves.sh path/to/npusim}
for net in "4 4 mesh" "8 8 mesh" "4 4 torus"; do
	set -- $net
	for vcs in 2 4; do
		for pf in 1 4; do
			echo "# $1x$2 $3, $vcs VCs, $pf-flit packets"
			"$bin" noc -s noc.cols=$1 -s noc.rows=$2 -s noc.topology=$3 \
				-s noc.vcs=$vcs --packet-flits $pf --rate 0.05 \
				--warmup 2000 --cycles 10000 --sweep || exit 1
		done
	done
done
