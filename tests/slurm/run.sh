#!/bin/sh
# tests/slurm/run.sh BUILD - a sweep on a real Slurm (`make test-slurm`).
#
# Starts munged and a one-node Slurm (slurmctld + slurmd from Debian's
# slurm-wlm) on this machine with a private configuration under a
# temporary directory, submits workloads/sweeps/gemm_array.sweep (24
# points) as a job array with `npusim sweep --slurm --submit`, waits for
# it, collects, and checks that the CSV is byte-identical to the one a
# local `-j 2` run collects.  Everything it started is stopped and its
# directory removed on exit, whatever happens.  Needs root (slurmd runs
# jobs as their user and SlurmUser=root keeps the setup to one account)
# and the packages slurm-wlm and munge (scripts/deps.sh installs them).
set -u
build=${1:-build}
bin=$(cd "$build" && pwd)/npusim
spec=workloads/sweeps/gemm_array.sweep
fail() { echo "FAIL (slurm): $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "needs root to start slurmctld and slurmd"
for t in munged mungekey slurmctld slurmd sbatch squeue scontrol; do
	command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
	command -v "$t" >/dev/null 2>&1 ||
		fail "$t is missing: install slurm-wlm and munge (scripts/deps.sh)"
done

T=$(mktemp -d /tmp/npusim-slurm.XXXXXX)
chmod 755 "$T"
cleanup() {
	[ -f "$T/slurmd.pid" ] && kill "$(cat "$T/slurmd.pid")" 2>/dev/null
	[ -f "$T/slurmctld.pid" ] && kill "$(cat "$T/slurmctld.pid")" 2>/dev/null
	[ -f "$T/munged.pid" ] && kill "$(cat "$T/munged.pid")" 2>/dev/null
	sleep 1
	[ -f "$T/slurmd.pid" ] && kill -9 "$(cat "$T/slurmd.pid")" 2>/dev/null
	[ -f "$T/slurmctld.pid" ] && kill -9 "$(cat "$T/slurmctld.pid")" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# munge: a fresh key and a private socket, run as the munge user
mkdir -p "$T/munge"
mungekey -c -k "$T/munge/munge.key" >/dev/null 2>&1 || fail "mungekey failed"
chown -R munge:munge "$T/munge"
chmod 711 "$T/munge"
chmod 400 "$T/munge/munge.key"
runuser -u munge -- munged --key-file="$T/munge/munge.key" \
	--socket="$T/munge/munge.sock" --pid-file="$T/munge/munged.pid" \
	--log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" ||
	fail "munged did not start"
sleep 1
cp "$T/munge/munged.pid" "$T/munged.pid" 2>/dev/null

host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$T/state" "$T/spool"
cat > "$T/slurm.conf" <<CONF
ClusterName=npusimtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.sock
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MaxArraySize=10001
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$T/slurm.conf"
slurmctld -f "$T/slurm.conf" || fail "slurmctld did not start: $(tail -3 "$T/slurmctld.log" 2>/dev/null)"
slurmd -f "$T/slurm.conf" || fail "slurmd did not start: $(tail -3 "$T/slurmd.log" 2>/dev/null)"
# the node must be up before jobs can run
i=0
until sinfo -h -o %T 2>/dev/null | grep -q idle; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail "the node never came up: $(sinfo 2>&1 | tail -2); $(tail -3 "$T/slurmd.log")"
	sleep 1
done

# the sweep as a job array, and the same sweep locally
"$bin" sweep "$spec" -o "$T/slurm-res" --slurm --submit > "$T/submit.out" 2>&1 ||
	fail "submission failed: $(cat "$T/submit.out")"
grep -q "Submitted batch job" "$T/submit.out" || fail "sbatch said: $(cat "$T/submit.out")"
"$bin" sweep "$spec" -o "$T/local-res" -j 2 2>/dev/null || fail "the local sweep failed"
i=0
while [ -n "$(squeue -h 2>/dev/null)" ]; do
	i=$((i + 1))
	[ $i -lt 600 ] || fail "the job array did not finish in 10 minutes: $(squeue | head -5)"
	sleep 1
done
"$bin" sweep --collect "$T/slurm-res" --csv "$T/slurm.csv" 2> "$T/collect.err" ||
	fail "collecting the Slurm results failed: $(cat "$T/collect.err")"
"$bin" sweep --collect "$T/local-res" --csv "$T/local.csv" 2>/dev/null ||
	fail "collecting the local results failed"
cmp -s "$T/slurm.csv" "$T/local.csv" ||
	fail "the Slurm and local CSVs differ: $(diff "$T/slurm.csv" "$T/local.csv" | head -5)"
n=$(grep -c ',ok$' "$T/slurm.csv")
[ "$n" = 18 ] || fail "$n points ok, want 18 (6 are skipped by the constraint)"
echo "slurm: 24-point job array on a one-node Slurm: CSV identical to -j 2 ($n ok, 6 skipped)"
