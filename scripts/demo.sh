#!/usr/bin/env bash
# make demo: the main jobs on built-in examples, results in out/.
set -euo pipefail
bin=${1:-bin/procalloc}
mkdir -p out
echo "procalloc demo: results in out/"
