#!/usr/bin/env bash
# order-table.sh: the ordering table of docs/ilp.md ("Orderings of today's machines"):
# for each machine, F of the orderings in use (Slurm's name order, BFS / switch order,
# Hilbert where it applies, H-index, snake, RCM), procalloc's ordering, its proven
# bound and gap, the solve's seconds and the whole process's peak memory.
#
# usage: scripts/order-table.sh [PROCALLOC] > table.md
#   PROCALLOC  the binary (default: bin/procalloc, as make build)
# The bound is printed rounded down to two decimals (still a bound).
# Environment: LIMIT_SMALL (default 60s) and LIMIT_LARGE (default 300s) are the
# --time-limit of the machines below and above 50,000 nodes; MACHINES overrides the
# list (space-separated specs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pa=$(realpath "${1:-$root/bin/procalloc}")
for tool in jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "$0: $tool not found" >&2; exit 1; }
done
[[ -x $pa ]] || { echo "$0: $pa: no procalloc binary (run make build)" >&2; exit 1; }
small=${LIMIT_SMALL:-60s}
large=${LIMIT_LARGE:-300s}
machines=${MACHINES:-"mesh:32x32 mesh:64x64 torus:32x32x32 torus:48x48x48
fattree:4,4:4,4:8 fattree:8,8:8,8:16 fattree:16,16:16,16:32
dragonfly:hosts_per_router=4,routers_per_group=16,intergroup_links=1,num_groups=16
dragonfly:hosts_per_router=4,routers_per_group=32,intergroup_links=3,num_groups=80
torus:24x23x24x2x3x2"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# weights: exp:2:3 on grids (the w of Leung et al. 2002's experiments, K = 3), exp:2:4
# on fabrics, whose leaf switches hold 4 or more hosts. The 6D torus is Fugaku's Tofu-D
# shape, 24x23x24x2x3x2 = 158,976 nodes, every axis a ring (a ring of 2 or 3 has a
# mesh's hop distances, so this is Tofu's distance).
weights_of() { case $1 in mesh:* | torus:*) echo exp:2:3 ;; *) echo exp:2:4 ;; esac; }

echo "| machine | n | w | name order | BFS | Hilbert | H-index | snake | RCM | procalloc | bound | gap | status | seconds | peak MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for m in $machines; do
	w=$(weights_of "$m")
	# The curves in use, scored by evaluate (a curve that does not apply prints "-").
	declare -A f=()
	for c in name-order bfs hilbert hindex snake rcm; do
		f[$c]=-
		# Hilbert: the first Hilbert curve that applies (named when not the 2D one).
		alts=$c
		if [[ $c == hilbert ]]; then alts="hilbert hilbert3d gilbert gilbert3d"; fi
		for a in $alts; do
			if "$pa" evaluate --machine "$m" --curve "$a" --weights "$w" --json >"$tmp/e.json" 2>/dev/null; then
				f[$c]=$(jq -r '.objective' "$tmp/e.json")
				if [[ $a != "$c" ]]; then f[$c]="${f[$c]} ($a)"; fi
				break
			fi
		done
	done
	"$pa" evaluate --machine "$m" --curve name-order --weights "$w" --json >"$tmp/e.json"
	n=$(jq -r '.n' "$tmp/e.json" 2>/dev/null || echo -)
	lim=$small
	if [[ $n != - && $n -gt 50000 ]]; then lim=$large; fi
	/usr/bin/time -f '%M' -o "$tmp/mem" "$pa" order --machine "$m" --weights "$w" \
		--time-limit "$lim" --json >"$tmp/o.json" 2>"$tmp/o.err" || true
	if jq -e . "$tmp/o.json" >/dev/null 2>&1; then
		IFS=$'\t' read -r obj bound gap status secs < <(jq -r '[.objective, (if .bound == null then "-" else ((.bound*100|floor)/100) end), (if .gap == null then "-" else ((.gap*10000|round)/100|tostring)+"%" end), .status, ((.seconds*10|round)/10)] | @tsv' "$tmp/o.json")
		n=$(jq -r '.n' "$tmp/o.json")
	else
		obj="failed: $(head -c 80 "$tmp/o.err")"; bound=-; gap=-; status=-; secs=-
	fi
	mem=$(( $(tail -1 "$tmp/mem") / 1024 ))
	echo "| $m | $n | $w | ${f[name-order]} | ${f[bfs]} | ${f[hilbert]} | ${f[hindex]} | ${f[snake]} | ${f[rcm]} | $obj | $bound | $gap | $status | $secs | $mem |"
	unset f
done
