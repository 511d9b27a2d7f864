#!/usr/bin/env bash
# `make test-browser`: opens plan's HTML report in a real headless Chromium (Debian's
# chromium package, installed when missing and we are root) and checks what it
# renders: the recommendation in the DOM, the inline SVGs, ink on the screenshot, no
# console errors (cmd/procalloc/browser_test.go). Without root or the package it says
# so and exits 0, as make test-slurm does.
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		echo "browser: skipped (no chromium on PATH, and no root/apt-get to install Debian's chromium)"
		exit 0
	fi
	echo "browser: installing Debian's chromium (apt-get install chromium)" >&2
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >/tmp/procalloc-chromium-install.log 2>&1; then
		echo "browser: skipped (apt-get install chromium failed; see /tmp/procalloc-chromium-install.log)"
		exit 0
	fi
fi
# Not -short: the browser tests skip under -short.
"$go" test -tags "${TAGS:-highs}" -count=1 -run 'Chromium' -v ./cmd/procalloc 2>&1 | grep -E '^(--- |    |ok|FAIL|PASS)'
exit "${PIPESTATUS[0]}"
