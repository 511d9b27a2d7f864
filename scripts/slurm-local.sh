#!/usr/bin/env bash
# Runs a procalloc sweep on a real Slurm on this machine, as a job array, and checks
# that the merged shards equal a single-process run of the same sweep.
#
# It starts a NODES-node Slurm on loopback with scripts/slurm-cluster.sh (which
# installs Debian's slurm-wlm, slurm-client and munge when missing, picks free ports
# and writes the configuration), submits "procalloc sweep SPEC --sbatch" as an array
# of SHARDS tasks, waits, merges, compares, and stops the cluster whatever happens.
#
# Usage: scripts/slurm-local.sh [BIN] [SPEC] [SHARDS] [NODES]
#   BIN defaults to bin/procalloc, SPEC to examples/demo-sweep.yaml, SHARDS to 4,
#   NODES to 1 (slurmd of one CPU each: SHARDS tasks on NODES nodes).
# Needs root (the daemons run as root here); exits 3 when it is not root or Slurm
# cannot be installed, so that callers can skip (slurm-cluster.sh's own exit).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-bin/procalloc}")
spec=$(realpath "${2:-examples/demo-sweep.yaml}")
shards=${3:-4}
nodes=${4:-1}
log() { echo "slurm-local: $*"; }

work=$(mktemp -d /tmp/procalloc-slurm.XXXXXX)
started=0
cleanup() {
	[ "$started" = 1 ] && bash "$here/slurm-cluster.sh" stop --dir "$work/cluster" >/dev/null 2>&1
	if [ "${keep:-0}" != 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$work/cluster" "$work/out"

# Ports free when checked; a start that meets one taken since (exit 4) tries another.
for attempt in 1 2 3 4 5; do
	status=0
	port=$(bash "$here/slurm-cluster.sh" free-base --nodes "$nodes") || exit 1
	started=1
	bash "$here/slurm-cluster.sh" start --nodes "$nodes" --dir "$work/cluster" --port-base "$port" >&2 || status=$?
	[ "$status" -eq 4 ] || break
	log "attempt $attempt: a port from $port on was in use; another base"
done
if [ "$status" -ne 0 ]; then
	[ "$status" -eq 3 ] && started=0
	log "the cluster did not start (exit $status)"
	keep=1
	exit "$status"
fi
export SLURM_CONF=$work/cluster/slurm.conf
log "Slurm $(sinfo -V | cut -d' ' -f2) up: $nodes node(s), ports from $port"

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
