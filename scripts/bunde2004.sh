#!/usr/bin/env bash
# Reproduces the experiments of Bunde, Leung and Mache, "Communication patterns and
# allocation strategies" (2004), §4: the SDSC Paragon log cut to Oct-Dec 1996, FCFS,
# load factors 1, 0.8, 0.6, 0.4, 0.2, patterns all-to-all, n-body and random, meshes
# 16x22 and 16x16 (the three 320-node jobs dropped), twelve allocators. Writes, per
# mesh and pattern, out/bunde2004/MESH-PATTERN.{json,csv,svg} (mean response time
# against load factor, one line per allocator: Figs. 7-8), and the correlations of
# Figs. 9-10. docs/comm-bunde2004.md discusses the results.
#
# Usage: scripts/bunde2004.sh [bin/procalloc] [trace]   (about half an hour on 2 cores)
#
# Environment (all optional), to rerun the grid with one toggle changed:
#   EXTRA   extra flags for every compare and sim, word-split,
#           e.g. EXTRA="--task-order allocator" or EXTRA="--cycle-seconds 0.1"
#   OUT     output directory (default out/bunde2004)
#   MESHES  meshes to run, in order (default "16x22 16x16"; "16x16" alone skips 16x22,
#           " " runs only Figs. 9-10)
#   PATTERNS  patterns to run on each mesh, in order (default "all-to-all n-body random")
# e.g. EXTRA="--task-order allocator" OUT=out/bunde2004-alloc scripts/bunde2004.sh
set -euo pipefail
bin=${1:-bin/procalloc}
trace=${2:-../shared/traces/SDSC-Par-1996-3.1-cln.swf.gz}
out=${OUT:-out/bunde2004}
read -ra toggles <<<"${EXTRA:-}"
read -ra meshes <<<"${MESHES:-16x22 16x16}"
read -ra patterns <<<"${PATTERNS:-all-to-all n-body random}"
mkdir -p "$out"
window=(--from 1996-10-01 --to 1997-01-01)
loads=1,0.8,0.6,0.4,0.2

allocators() { # $1: the Hilbert and H-index curves of the mesh
	local h=$1 x=$2 c
	local list=""
	for c in "$h" "$x" snake; do
		list+="freelist:$c,ff:$c,bf:$c,"
	done
	echo "${list}mc,mc1x1,genalg"
}

start=$(date +%s)
for mesh in "${meshes[@]}"; do
	case $mesh in
	16x22) extra=() curves=(hilbert-trunc hindex-trunc) ;;
	16x16) extra=(--drop-larger) curves=(hilbert hindex) ;;
	esac
	for pattern in "${patterns[@]}"; do
		name=$mesh-$pattern
		echo "== mesh:$mesh, $pattern ($(($(date +%s) - start)) s so far)"
		"$bin" compare --trace "$trace" --machine "mesh:$mesh" "${window[@]}" "${extra[@]}" \
			--comm "$pattern" "${toggles[@]}" --loads "$loads" --alloc "$(allocators "${curves[@]}")" \
			--metric mean_response --svg "$out/$name.svg" --csv "$out/$name.csv" --json -o "$out/$name.json"
	done
done

# Figs. 9-10: 128-processor jobs sending 39,900 to 44,000 messages, n-body, 16x16,
# load factor 1, every allocator: Pearson correlation of run time with the average
# pairwise distance and with the average message distance.
echo "== Figs. 9-10: correlations on mesh:16x16, n-body, load factor 1"
rows=$out/fig9-10.csv
echo "alloc,runtime,avg_pairwise_l1,message_distance" >"$rows"
IFS=, read -ra list <<<"$(allocators hilbert hindex)"
# The twelve replays are independent: run as many at once as there are cores.
running=0
for a in "${list[@]}"; do
	"$bin" sim --trace "$trace" --machine mesh:16x16 "${window[@]}" --drop-larger --comm n-body "${toggles[@]}" \
		--alloc "$a" --per-job "$out/perjob-$a.csv" >/dev/null &
	running=$((running + 1))
	if [ "$running" -ge "$(nproc)" ]; then
		wait -n # a failed replay stops the script (set -e)
		running=$((running - 1))
	fi
done
for ((; running > 0; running--)); do
	wait -n
done
for a in "${list[@]}"; do
	awk -F, -v a="$a" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["procs"] == 128 && $col["messages"] >= 39900 && $col["messages"] <= 44000 {
			print a "," ($col["end"] - $col["start"]) "," $col["avg_pairwise_l1"] "," $col["message_distance"] }' \
		"$out/perjob-$a.csv" >>"$rows"
done
awk -F, 'NR > 1 { n++; y = $2; for (k = 3; k <= 4; k++) { x = $k; sx[k] += x; sxx[k] += x*x; sxy[k] += x*y }; sy += y; syy += y*y }
	END {
		if (n < 3) { printf "too few 128-processor n-body jobs (%d) for a correlation\n", n; exit 1 }
		for (k = 3; k <= 4; k++) {
			r = (n*sxy[k] - sx[k]*sy) / sqrt((n*sxx[k] - sx[k]^2) * (n*syy - sy^2))
			printf "%s: Pearson r = %.3f over %d jobs\n", (k == 3 ? "run time vs average pairwise distance" : "run time vs average message distance"), r, n
		}
	}' "$rows" | tee "$out/fig9-10.txt"
echo "done in $(($(date +%s) - start)) s; results in $out/"

# The claims of §4 and §5, each reduced to checks with a verdict (and Figs. 9-10 per
# allocator, with and without MC): docs/comm-bunde2004.md.
python3 "$(dirname "$0")/bunde2004-claims.py" "$out" | tee "$out/claims.md"
