#!/usr/bin/env bash
# premas-speed.sh: CPU time of PReMAS and procalloc on the LLNL-T3D 16x16 FCFS replay
# (Johnson et al. 2010 Fig. 18), as whole processes, paired: for each allocator one
# PReMAS run, then three procalloc runs and three with --no-memo; then the six Fig. 18
# replays in one procalloc compare, three times each way. docs/alloc.md, "Speed
# against PReMAS", quotes its output.
#
# usage: scripts/premas-speed.sh PREMAS_DIR [PROCALLOC]
#   PREMAS_DIR  a checkout of github.com/long1710/Network-Topology (855d5b1 measured);
#               simulator/Main.java is compiled there with javac when not yet built
#   PROCALLOC   the procalloc binary to time (default: bin/procalloc, as make build)
# Prints one line per allocator: PReMAS's CPU seconds (user + system), peak memory
# and mean total pairwise L1, then procalloc's, each run's CPU seconds.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
	echo "usage: $0 PREMAS_DIR [PROCALLOC]" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
premas=$(cd "$1" && pwd)
pa=$(realpath "${2:-$root/bin/procalloc}")
trace=$root/sim/testdata/LLNL-T3D-1996-2.converted.txt.gz
for tool in java javac /usr/bin/time python3; do
	command -v "$tool" >/dev/null || { echo "$0: $tool not found" >&2; exit 1; }
done
[[ -x $pa ]] || { echo "$0: $pa: no procalloc binary (run make build)" >&2; exit 1; }
if [[ ! -f $premas/simulator/Main.class ]]; then
	(cd "$premas" && javac simulator/Main.java)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
zcat "$trace" >"$work/LLNL-T3D.txt"
for c in hilbert snake; do
	"$pa" curve --machine mesh:16x16 --curve $c --format pairs -o "$work/$c.pairs"
done

declare -A ref=(
	[bf:hilbert]="linear-best[$work/hilbert.pairs]"
	[bf:snake]="linear-best[$work/snake.pairs]"
	[mc1x1]='OldMC1x1'
	[mc1x1:tb=3,9,3,2]='nearest[free,LInf,LInf[3,9,3,2]]'
	[mm]='MM'
	[genalg]='genAlg'
	[mc1x1-greedy]='MC1x1'
)
cpu() { awk '{printf "%.2f", $1 + $2}' "$1"; }

for name in bf:hilbert bf:snake mc1x1 mc1x1:tb=3,9,3,2 mm genalg mc1x1-greedy; do
	dir=$work/run-${name//[:=,]/_}
	mkdir -p "$dir"
	(cd "$dir" && /usr/bin/time -o time.txt -f '%U %S %M' java -cp "$premas" simulator.Main \
		'machine=mesh[16,16,1]' 'scheduler=pqueue[fifo]' "allocator=${ref[$name]}" \
		"trace=$work/LLNL-T3D.txt" logs=alloc,ties >out.txt 2>err.txt)
	pmean=$(grep -v '^#' "$dir/LLNL-T3D.txt.alloc" | awk 'NF >= 3 {n++; s += $3} END {printf "%.6f", s / n}')
	runs="" plain=""
	for _ in 1 2 3; do
		/usr/bin/time -o "$dir/t.txt" -f '%U %S %M' "$pa" sim --trace "$trace" --machine mesh:16x16 \
			--alloc "$name" --sched fcfs --compat premas --json >"$dir/pa.json"
		runs="$runs $(cpu "$dir/t.txt")"
		/usr/bin/time -o "$dir/t.txt" -f '%U %S %M' "$pa" sim --trace "$trace" --machine mesh:16x16 \
			--alloc "$name" --sched fcfs --compat premas --json --no-memo >/dev/null
		plain="$plain $(cpu "$dir/t.txt")"
	done
	mean=$(python3 -c "import json, sys; print('%.6f' % json.load(open(sys.argv[1]))['mean_total_pairwise_l1'])" "$dir/pa.json")
	echo "$name: PReMAS $(cpu "$dir/time.txt") s ($(awk '{print $3}' "$dir/time.txt") KB, mean $pmean);" \
		"procalloc$runs s (mean $mean); --no-memo$plain s; $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
done

six=mc1x1:tb=3,9,3,2,bf:hilbert,mc1x1,mm,genalg,bf:snake
runs="" plain=""
for _ in 1 2 3; do
	/usr/bin/time -o "$work/t.txt" -f '%U %S %M %e' "$pa" compare --trace "$trace" --machine mesh:16x16 \
		--alloc "$six" --sched fcfs --compat premas >/dev/null
	runs="$runs $(cpu "$work/t.txt") ($(awk '{print $3 " KB, " $4 " s wall"}' "$work/t.txt"))"
	/usr/bin/time -o "$work/t.txt" -f '%U %S %M' "$pa" compare --trace "$trace" --machine mesh:16x16 \
		--alloc "$six" --sched fcfs --compat premas --no-memo >/dev/null
	plain="$plain $(cpu "$work/t.txt")"
done
echo "six Fig. 18 replays in one compare: procalloc$runs; --no-memo$plain; $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
