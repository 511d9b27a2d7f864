#!/usr/bin/env bash
# Installs the HiGHS MIP solver (shared library, C API header, pkg-config file) under
# /usr/local, built from Debian trixie's source tarball. Idempotent: does nothing when
# pkg-config already finds highs. See ../shared/reference/highs.md for why it is done this
# way (bookworm has no package; trixie binaries need a newer libc).
set -euo pipefail

if pkg-config --exists highs 2>/dev/null; then
	echo "highs: already installed ($(pkg-config --modversion highs))"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi

log() { echo "highs: $*" >&2; }

need_pkgs=()
for p in cmake dpkg-dev g++ pkg-config xz-utils; do
	dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
done

src_list=/etc/apt/sources.list.d/procalloc-trixie-src.sources
if [ ! -f "$src_list" ]; then
	log "adding a deb-src entry for trixie (source only; no trixie binaries are installed)"
	$SUDO tee "$src_list" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

log "apt-get update"
$SUDO apt-get update -qq >&2
if [ ${#need_pkgs[@]} -gt 0 ]; then
	log "installing build tools: ${need_pkgs[*]}"
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}" >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
log "fetching the source tarball into $work"
# The mirror may lack the .dsc/.debian.tar.xz of this version, which makes apt-get source
# exit non-zero even though the orig tarball arrived; the tarball is what we use.
apt-get source --download-only highs >&2 || true
tarball=$(ls highs_*.orig.tar.* 2>/dev/null | head -n 1 || true)
if [ -z "$tarball" ]; then
	log "error: no highs_*.orig.tar.* downloaded; see ../shared/reference/highs.md"
	exit 1
fi
mkdir src
tar -xf "$tarball" -C src --strip-components=1
cmake -S src -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DBUILD_TESTING=OFF \
	-DFAST_BUILD=ON -DCMAKE_INSTALL_PREFIX=/usr/local >&2
log "building (a few minutes on 2 cores)"
cmake --build build -j "$(nproc)" >&2
$SUDO cmake --install build >&2
$SUDO ldconfig
if ! pkg-config --exists highs; then
	log "error: installed, but pkg-config does not find highs (PKG_CONFIG_PATH?)"
	exit 1
fi
echo "highs: installed $(pkg-config --modversion highs)"
