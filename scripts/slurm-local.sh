#!/usr/bin/env bash
# Runs a procalloc sweep on a real single-node Slurm, as a job array, and checks that
# the merged shards equal a single-process run of the same sweep.
#
# It starts MUNGE, slurmctld and slurmd from Debian's packages (slurm-wlm, munge) with a
# private configuration in a temporary directory (loopback only, two free ports
# picked at random, so that several runs on one machine do not collide),
# submits "procalloc sweep SPEC --sbatch" as an array of SHARDS tasks, waits, merges,
# compares, and stops every daemon it started, whatever happens.
#
# Usage: scripts/slurm-local.sh [BIN] [SPEC] [SHARDS]
#   BIN defaults to bin/procalloc, SPEC to examples/demo-sweep.yaml, SHARDS to 4.
# Needs root (the daemons run as root here). Installs Debian's slurm-wlm, slurm-client
# and munge with apt-get when a command is missing (idempotent: nothing to do once they
# are there); exits 3 when it is not root or cannot install, so that callers can skip.
set -euo pipefail
bin=$(realpath "${1:-bin/procalloc}")
spec=$(realpath "${2:-examples/demo-sweep.yaml}")
shards=${3:-4}

if [ "$(id -u)" -ne 0 ]; then
	echo "slurm-local: needs root to run the Slurm daemons" >&2
	exit 3
fi
# Install Debian's packages once; a second run finds the commands and installs nothing.
# The daemons are only ever started by this script, with its own configuration: the
# packages' services are not enabled or started (policy-rc.d refuses them during the
# install, and systemd is not running in containers anyway).
missing=()
for c in slurmctld slurmd sbatch squeue sinfo scontrol munged; do
	command -v "$c" >/dev/null || missing+=("$c")
done
if [ ${#missing[@]} -gt 0 ]; then
	if ! command -v apt-get >/dev/null; then
		echo "slurm-local: ${missing[*]} not found and no apt-get: install Slurm and MUNGE" >&2
		exit 3
	fi
	echo "slurm-local: installing slurm-wlm slurm-client munge (missing: ${missing[*]})" >&2
	policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 0755 "$policy"
	fi
	status=0
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends slurm-wlm slurm-client munge; } >&2 || status=$?
	[ -n "$policy" ] && rm -f "$policy"
	if [ "$status" -ne 0 ]; then
		echo "slurm-local: apt-get failed ($status)" >&2
		exit 3
	fi
fi

work=$(mktemp -d /tmp/procalloc-slurm.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	if [ "${keep:-0}" != 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
log() { echo "slurm-local: $*"; }

mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/out"
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 0400 "$work/munge/munge.key"
chmod 0700 "$work/munge"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
	--pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" \
	>"$work/munged.out" 2>&1 &
pids+=($!)

# Two free TCP ports: a port is taken when something accepts a connection on it.
free_port() {
	local p
	for _ in $(seq 100); do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	echo "slurm-local: no free port found" >&2
	exit 1
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done

host=$(hostname -s)
cpus=$(nproc)
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=procalloc
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

for i in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done
slurmctld -D -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
# Up to two minutes: the daemons start in a few seconds on an idle machine.
for i in $(seq 600); do
	state=$(sinfo -h -o %t 2>/dev/null || true)
	[ "$state" = idle ] && break
	alive=1
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || alive=0; done
	[ "$alive" = 1 ] || break # a daemon died (a port taken?): no use waiting
	sleep 0.2
done
if [ "$state" != idle ]; then
	log "the node did not come up (state '$state'); logs:"
	tail -n 5 "$work"/slurm*.log "$work"/*.out >&2 || true
	keep=1
	exit 1
fi
log "Slurm $(sinfo -V | cut -d' ' -f2) up: node $host, $cpus CPUs, ports $ctld_port/$slurmd_port"

cd "$work/out"
"$bin" sweep "$spec" --sbatch --shards "$shards" --cpus 1 -o "$work/out/res" >job.sbatch
job=$(sbatch --parsable job.sbatch)
log "submitted array job $job ($shards tasks)"
for i in $(seq 1800); do
	[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
	sleep 1
done
if [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; then
	log "array job $job still running after 30 minutes"
	exit 1
fi
log "array job $job done; task outputs:"
cat procalloc-*_"$job"_*.out 2>/dev/null || cat ./*_"$job"_*.out

"$bin" merge res.shard-*.jsonl --spec "$spec" -o merged.jsonl
"$bin" sweep "$spec" -o single.jsonl >/dev/null
"$bin" merge single.jsonl --spec "$spec" -o single-merged.jsonl
if cmp -s merged.jsonl single-merged.jsonl; then
	log "OK: the merged $shards shards equal the single-process run ($(wc -l <merged.jsonl) items, $(wc -c <merged.jsonl) bytes)"
else
	log "FAIL: merged shards differ from the single-process run"
	diff <(cut -c1-200 merged.jsonl) <(cut -c1-200 single-merged.jsonl) | head >&2
	exit 1
fi
