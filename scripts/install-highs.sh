#!/usr/bin/env bash
# Installs the HiGHS MIP solver (shared library, C API header, pkg-config file) under
# /usr/local, built from Debian trixie's source tarball. Idempotent: does nothing when
# pkg-config already finds highs. See ../shared/reference/highs.md for why it is done this
# way (bookworm has no package; trixie binaries need a newer libc).
set -euo pipefail

# debian_source prints "URI KEYRING" of the machine's own Debian archive, read from
# the apt sources (deb822 *.sources files, else one-line sources.list entries), so that
# the deb-src entry goes to the same mirror, behind a site's proxy or mirror too.
# APT_SOURCES_DIR and APT_SOURCES_LIST override the locations (for tests).
debian_source() {
	local dir=${APT_SOURCES_DIR:-/etc/apt/sources.list.d} list=${APT_SOURCES_LIST:-/etc/apt/sources.list}
	local f found=""
	for f in "$dir"/*.sources; do
		[ -f "$f" ] || continue
		case $(basename "$f") in procalloc-*) continue ;; esac
		found=$(awk '
			function flush() {
				if (uri != "" && comps ~ /(^| )main( |$)/ && suites !~ /security/ && types ~ /deb/)
					{ print uri " " (key == "" ? "-" : key); done = 1; exit }
				uri = ""; suites = ""; comps = ""; key = ""; types = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^#/ { next }
			tolower($1) == "types:" { types = $0 }
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "suites:" { suites = $0 }
			tolower($1) == "components:" { comps = $0 }
			tolower($1) == "signed-by:" { key = $2 }
			END { if (!done) flush() }' "$f")
		[ -n "$found" ] && break
	done
	if [ -z "$found" ] && [ -f "$list" ]; then
		found=$(awk '
			$1 == "deb" && $0 !~ /security/ && $0 ~ / main( |$)/ {
				key = "-"; i = 2
				if ($2 ~ /^\[/) {
					for (; i <= NF; i++) {
						if ($i ~ /signed-by=/) { k = $i; sub(/.*signed-by=/, "", k); sub(/\].*/, "", k); key = k }
						if ($i ~ /\]$/) { i++; break }
					}
				}
				print $i " " key; exit
			}' "$list")
	fi
	[ -n "$found" ] || return 1
	echo "$found"
}

source_stanza() { # URI KEYRING
	echo "Types: deb-src"
	echo "URIs: $1"
	echo "Suites: trixie"
	echo "Components: main"
	if [ "$2" != - ]; then
		echo "Signed-By: $2"
	else
		echo "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
	fi
}

if [ "${1:-}" = --print-source ]; then
	src=$(debian_source) || { echo "highs: no Debian archive entry in the apt sources" >&2; exit 1; }
	source_stanza $src
	exit 0
fi

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
if ! src=$(debian_source); then
	log "error: no Debian archive (deb ... main) in the apt sources; HiGHS is built from Debian's source package"
	exit 1
fi
want=$(source_stanza $src)
if [ ! -f "$src_list" ] || [ "$(cat "$src_list")" != "$want" ]; then
	log "adding a deb-src entry for trixie from $(echo "$src" | cut -d' ' -f1) (source only; no trixie binaries are installed)"
	echo "$want" | $SUDO tee "$src_list" >/dev/null
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
