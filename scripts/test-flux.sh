#!/usr/bin/env bash
# `make test-flux`: builds fluxion's resource-query from checkouts of flux-core and
# flux-sched (Flux is no Debian package: FLUX_CORE_SRC and FLUX_SCHED_SRC name them)
# with Debian's -dev packages (installed when missing; needs root), then runs
# TestFluxResourceQuery (curves): the graph procalloc writes, loaded by fluxion, must
# hand out nodes in curve order under its id policies. Never part of `make test`.
# Builds flux-core in its checkout (autogen, configure, make install into
# FLUX_PREFIX, default out/flux) and flux-sched's resource-query in
# FLUX_SCHED_SRC/build-procalloc; either is skipped when already there.
# Time: 28 minutes the first time on 2 shared cores (flux-core with the packages 19.6,
# resource-query 8.6, at load average 4-19 on 2026-12-06); then the test alone.
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
: "${FLUX_CORE_SRC:?set FLUX_CORE_SRC to a flux-core git checkout (with its tags: configure takes the version from git describe)}"
: "${FLUX_SCHED_SRC:?set FLUX_SCHED_SRC to a flux-sched checkout}"
prefix=${FLUX_PREFIX:-$PWD/out/flux}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
deps=(autoconf automake libtool make pkg-config libzmq3-dev uuid-dev libjansson-dev liblz4-dev
	libarchive-dev libhwloc-dev libsqlite3-dev lua5.1 liblua5.1-0-dev lua-posix python3-dev
	python3-cffi python3-ply python3-setuptools python3-yaml python3-jsonschema jq cmake g++
	libboost-graph-dev libboost-system-dev libboost-filesystem-dev libboost-regex-dev
	libyaml-cpp-dev libedit-dev)
missing=()
for p in "${deps[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	echo "flux: installing ${missing[*]}"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Debian's python3 (a pyenv python on PATH lacks the ply and cffi packages above).
py=/usr/bin/python3
# A failed build says where its log is.
log=$prefix/build.log
trap 'echo "flux: failed; the build log is $log" >&2' ERR
if [ ! -f "$prefix/lib/pkgconfig/flux-core.pc" ]; then
	echo "flux: building flux-core into $prefix (log: $log)"
	(
		cd "$FLUX_CORE_SRC"
		[ -x configure ] || ./autogen.sh
		PYTHON=$py ./configure --prefix="$prefix" --disable-docs
		make -j"$(nproc)"
		make install
	) >>"$log" 2>&1
fi
build=$FLUX_SCHED_SRC/build-procalloc
rq=$build/resource/utilities/resource-query
if [ ! -x "$rq" ]; then
	echo "flux: building resource-query in $build (log: $log)"
	(
		# In the checkout: flux-sched's CMakeLists takes its version from git
		# describe in the working directory.
		cd "$FLUX_SCHED_SRC"
		PKG_CONFIG_PATH=$prefix/lib/pkgconfig cmake -S . -B "$build" \
			-DCMAKE_INSTALL_PREFIX="$prefix" -DPython_EXECUTABLE=$py -DCMAKE_BUILD_TYPE=Release
		cmake --build "$build" --target resource-query -j "$(nproc)"
	) >>"$log" 2>&1
fi
trap - ERR
PROCALLOC_RESOURCE_QUERY=$rq "$go" test -count=1 -run 'TestFluxResourceQuery' -v ./curves
