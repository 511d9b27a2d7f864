#!/usr/bin/env bash
# Builds a newer Slurm from source into a private prefix, for the features Debian 12's
# Slurm 22.05 lacks and procalloc's writers target: topology/torus3d and topology.yaml
# (Slurm >= 26.05), topology/block (>= 23.11), TopologyParam=SwitchAsNodeRank (>= 23.02).
# Opt-in: nothing else in the project needs it; tests that need it skip without it.
#
# Usage: scripts/slurm-build.sh [--prefix DIR] [--ref TAG] [--git DIR] [--jobs N]
#   --prefix  where to install (default /opt/slurm-new)
#   --ref     a git tag or commit (default: the newest release tag slurm-X-Y-Z-1 with
#             X.Y >= 26.05 in the source; HEAD when there is none)
#   --git     a bare git directory of https://github.com/SchedMD/slurm (default: the
#             mirror /work/.mirror/SchedMD+slurm/repo; when absent, it is cloned into
#             /tmp/slurm-git, which needs network)
#   --jobs    make -j (default 2)
# Idempotent: when PREFIX/sbin/slurmctld already reports the wanted version, it prints
# that and builds nothing. Needs root for apt-get (build dependencies are installed when
# missing: libmunge-dev libyaml-dev libjson-c-dev pkg-config; munge must run for the
# daemons anyway).
#
# How long it takes: on the 2-core development machine, shared with other jobs (load
# average 25 falling to 4 during the build), slurm-26-05-3-1 took 25 minutes: configure
# 163 s, nice make -j2 1311 s, make install 41 s. A rerun that finds it built: 0 s.
# The log of each step is left in BUILD/build.log (BUILD defaults to /tmp/slurm-build).
set -euo pipefail
prefix=/opt/slurm-new
ref=
gitdir=/work/.mirror/SchedMD+slurm/repo
jobs=2
build=/tmp/slurm-build
while [ $# -gt 0 ]; do
	case $1 in
	--prefix) prefix=$2; shift 2 ;;
	--ref) ref=$2; shift 2 ;;
	--git) gitdir=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "slurm-build: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

if [ ! -d "$gitdir" ]; then
	gitdir=/tmp/slurm-git
	if [ ! -d "$gitdir" ]; then
		echo "slurm-build: cloning https://github.com/SchedMD/slurm into $gitdir" >&2
		git clone --bare --quiet https://github.com/SchedMD/slurm "$gitdir"
	fi
fi
G=(git --git-dir="$gitdir")
if [ -z "$ref" ]; then
	# Release tags are slurm-MAJOR-MINOR-MICRO-1; pick the newest with MAJOR.MINOR >= 26.05.
	ref=$("${G[@]}" tag -l 'slurm-*-*-*-1' | awk -F- '
		{ v = $2 * 10000 + $3 * 100 + $4; if ($2 * 100 + $3 >= 2605 && v > best) { best = v; tag = $0 } }
		END { print tag }')
	[ -n "$ref" ] || ref=HEAD
fi
commit=$("${G[@]}" rev-parse --verify "$ref^{commit}")
# The version Slurm will report: from the tag (slurm-26-05-3-1 -> 26.05.3), else META.
if [[ $ref =~ ^slurm-([0-9]+)-([0-9]+)-([0-9]+)-1$ ]]; then
	want="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}"
else
	meta=$("${G[@]}" show "$commit:META")
	want=$(awk '$1 ~ /^Version:/ { v = $2 } $1 ~ /^Micro:/ { m = $2 } $1 ~ /^Major:/ { M = $2 } $1 ~ /^Minor:/ { n = $2 } END { print M "." n "." m }' <<<"$meta")
fi

# What a finished build leaves in PREFIX/procalloc-build: the version, the commit and
# the configure options; a second run with the same ones does nothing.
configure_opts=(--prefix="$prefix" --sysconfdir="$prefix/etc" --disable-debug
	--enable-multiple-slurmd --with-yaml --with-json --with-munge)
stamp="$want $commit ${configure_opts[*]}"
have=
if [ -x "$prefix/sbin/slurmctld" ]; then
	have=$("$prefix/sbin/slurmctld" -V 2>/dev/null | awk '{ print $2 }')
fi
if [ "$have" = "$want" ] && [ "$(cat "$prefix/procalloc-build" 2>/dev/null)" = "$stamp" ]; then
	echo "slurm-build: $prefix already has Slurm $have ($ref); nothing to do"
	exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
	need=()
	for p in libmunge-dev libyaml-dev libjson-c-dev pkg-config gcc make munge; do
		dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
	done
	if [ ${#need[@]} -gt 0 ]; then
		echo "slurm-build: installing ${need[*]}" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
	fi
fi

echo "slurm-build: building Slurm $want from $ref ($commit) into $prefix; log in $build/build.log"
start=$(date +%s)
rm -rf "$build"
mkdir -p "$build/src"
"${G[@]}" archive "$commit" | tar -x -C "$build/src"
cd "$build/src"
log=$build/build.log
step() {
	local name=$1; shift
	local t0; t0=$(date +%s)
	echo "== $name: $*" >>"$log"
	if ! "$@" >>"$log" 2>&1; then
		echo "slurm-build: $name failed; last lines of $log:" >&2
		tail -30 "$log" >&2
		exit 1
	fi
	echo "slurm-build: $name took $(( $(date +%s) - t0 )) s"
}
# --disable-debug: no -ggdb3, which roughly halves the compile time here; the daemons
# need nothing else from the build. --enable-multiple-slurmd: several slurmd on one
# host (slurmd -N NAME), for a multi-node cluster on loopback.
step configure ./configure "${configure_opts[@]}"
step make nice -n 5 make -j"$jobs"
step install make install
got=$("$prefix/sbin/slurmctld" -V | awk '{ print $2 }')
echo "$stamp" >"$prefix/procalloc-build"
echo "slurm-build: installed Slurm $got in $prefix in $(( ($(date +%s) - start) / 60 )) min"
