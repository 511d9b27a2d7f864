#!/usr/bin/env bash
# `make test-slurm`: starts a 16-node Slurm on loopback (scripts/slurm-cluster.sh),
# runs the tests that need a real Slurm against it, stops it whatever happens, and
# ends with two lines: "plan: N placements predicted, D differ" (the deployments of
# procalloc plan, deployed on the cluster: plan/realslurm_test.go) and
# "slurm: N placements compared, D differ" (every emulator's comparison); before them
# "hosts files: ...", "slurm files: ..." and "apply.txt: ..." say how the files
# procalloc hands to Slurm fared (slurm/deployed_onslurm_test.go,
# plan/apply_onslurm_test.go).
# Without root or Slurm (and no way to install it) it says so and exits 0.
# Time: 8-12 minutes with the Slurm built from source, 2 cores shared with other
# jobs (503 s at load average 2-4, 721 s at 24-42); it prints its own.
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
dir=$(mktemp -d /tmp/procalloc-slurm.XXXXXX)
# Ports free when checked (slurm-cluster.sh free-base); a start that meets one taken
# since (exit 4: another cluster or a stale one) is retried on another base.
for attempt in 1 2 3 4 5; do
	status=0
	port=$(bash scripts/slurm-cluster.sh free-base --nodes 16) || { status=1; break; }
	bash scripts/slurm-cluster.sh start --nodes 16 --dir "$dir" --port-base "$port" >/dev/null || status=$?
	[ "$status" -eq 4 ] || break
	echo "test-slurm: attempt $attempt: a port from $port on was in use; another base" >&2
done
if [ "$status" -eq 3 ]; then
	echo "slurm: skipped (no root, or Slurm cannot be installed)"
	rm -rf "$dir"
	exit 0
elif [ "$status" -ne 0 ]; then
	echo "slurm: the cluster did not start (see $dir/log)" >&2
	exit 1
fi
trap 'bash scripts/slurm-cluster.sh stop --dir "$dir"; rm -rf "$dir"' EXIT
t0=$SECONDS
status=0
PROCALLOC_SLURM_DIR=$dir "$go" test -count=1 -timeout 30m -run 'TestSlurmReal' -v ./alloc >"$dir/test.log" 2>&1 || status=$?
grep -E '^(=== RUN|--- |    |ok|FAIL|PASS)' "$dir/test.log" | grep -v '^=== RUN' || true
# The writers (merged weights, topology.conf), the hosts files as SLURM_HOSTFILE and
# nodelist, and the sweep's job array, each on a cluster of its own (its own ports,
# so they do not meet the one above): "hosts files: ..." and "slurm files: ...".
extra=0
"$go" test -count=1 -timeout 20m -run 'OnSlurm' -v ./slurm >"$dir/writers.log" 2>&1 || extra=$?
grep -E '^(hosts files|slurm files)[^:]*: ' "$dir/writers.log" || true
tail -n 1 "$dir/writers.log"
"$go" test -count=1 -timeout 20m -run 'TestSweepOnMultiNodeSlurm' ./cmd/procalloc >"$dir/sweep.log" 2>&1 || extra=$?
tail -n 1 "$dir/sweep.log"
if [ "$extra" -ne 0 ]; then
	cat "$dir/writers.log" "$dir/sweep.log" >&2
	status=$extra
fi
# With a Slurm built from source (scripts/slurm-build.sh; PROCALLOC_SLURM_NEW, default
# /opt/slurm-new): slurm:block against its topology/block, jobs waiting for a block in
# a replay against its pending jobs, and the torus3d (also given by regions), block and
# SwitchAsNodeRank files loaded into it. Its placements count in the last line.
new_prefix=${PROCALLOC_SLURM_NEW:-/opt/slurm-new}
new_env=()
block= blockwait=
if [ -x "$new_prefix/sbin/slurmctld" ]; then
	new_env=(PROCALLOC_SLURM_NEW="$new_prefix")
	newst=0
	PROCALLOC_SLURM_NEW=$new_prefix "$go" test -count=1 -timeout 30m -run 'TestSlurmRealBlockPlacements' -v ./alloc >"$dir/block.log" 2>&1 || newst=$?
	PROCALLOC_SLURM_NEW=$new_prefix "$go" test -count=1 -timeout 10m -run 'OnSlurmNew' ./slurm >"$dir/new.log" 2>&1 || newst=$?
	PROCALLOC_SLURM_NEW=$new_prefix "$go" test -count=1 -timeout 10m -run 'OnSlurmNew' -v ./cmd/procalloc >"$dir/blockwait.log" 2>&1 || newst=$?
	block=$(grep '^slurm (topology/block,' "$dir/block.log" | tail -n 1 || true)
	blockwait=$(grep '^slurm (topology/block waits' "$dir/blockwait.log" | tail -n 1 || true)
	[ -n "$block" ] && echo "$block"
	[ -n "$blockwait" ] && echo "$blockwait"
	tail -n 1 "$dir/new.log"
	if [ "$newst" -ne 0 ] || [ -z "$block" ] || [ -z "$blockwait" ]; then
		tail -n 20 "$dir/block.log" "$dir/new.log" "$dir/blockwait.log" >&2
		status=1
	fi
else
	echo "test-slurm: no Slurm built from source in $new_prefix: slurm:block, block waits and the torus3d/block files not checked (scripts/slurm-build.sh builds it)"
fi
# procalloc plan's deployments deployed on the 16-node cluster (weights, names and tree
# on 22.05; block and tree on the Slurm built from source when there is one).
planline=
if [ -d plan ]; then
	planst=0
	env PROCALLOC_SLURM_DIR="$dir" "${new_env[@]}" "$go" test -count=1 -timeout 30m -run 'OnSlurm' -v ./plan >"$dir/plan.log" 2>&1 || planst=$?
	planline=$(grep '^plan: ' "$dir/plan.log" | tail -n 1 || true)
	# apply.txt's steps run as written (TestApplyStepsOnSlurm, a cluster of its own)
	grep '^apply.txt: ' "$dir/plan.log" || true
	# jobs submitted to two overlapping partitions (TestPlanPartitionsOnSlurm,
	# clusters of its own): "plan partitions: N placements predicted, D differ"
	grep '^plan partitions: ' "$dir/plan.log" || true
	# a site's topology.yaml as the current configuration, and the deployments
	# from it, on the Slurm built from source (TestCurrentTopologyYAMLOnSlurm)
	grep '^plan topology.yaml: ' "$dir/plan.log" || true
	# a topology.yaml's ring topology (topology/ring) as the current
	# configuration and under the weights deployment, on the Slurm built from
	# source (TestCurrentRingTopologyOnSlurm)
	grep '^plan ring: ' "$dir/plan.log" || true
	# one line per deployment: "weights on Slurm 22.05: 150 placements predicted, ..."
	sed -nE 's/^ +realslurm_test\.go:[0-9]+: ([a-z0-9]+ on Slurm [0-9.]+: .*)/plan \1/p' "$dir/plan.log"
	if [ "$planst" -ne 0 ] || [ -z "$planline" ]; then
		grep -E '^\s+[a-z_]+test\.go|^--- ' "$dir/plan.log" | tail -n 30 >&2 || true
		[ -n "$planline" ] || planline="plan: 0 placements predicted, the test did not finish"
		status=1
	fi
fi
echo "test-slurm: $((SECONDS - t0)) s"
line=$(grep '^slurm: ' "$dir/test.log" | tail -n 1 || true)
if [ -z "$line" ]; then
	tail -n 20 "$dir/test.log" >&2
	echo "slurm: 0 placements compared, the test did not finish"
	exit 1
fi
# The last line sums both Slurms' placements (block and block waits included).
read -r n d < <(echo "$line" | sed -E 's/^slurm: ([0-9]+) placements compared, ([0-9]+) differ.*/\1 \2/')
for extra_line in "$block" "$blockwait"; do
	[ -n "$extra_line" ] || continue
	read -r bn bd < <(echo "$extra_line" | sed -E 's/^slurm \(topology\/block[^)]*\): ([0-9]+) placements compared, ([0-9]+) differ.*/\1 \2/')
	n=$((n + bn)) d=$((d + bd))
done
[ -n "$planline" ] && echo "$planline"
echo "slurm: $n placements compared, $d differ"
exit "$status"
