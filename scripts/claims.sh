#!/usr/bin/env bash
# claims.sh (make claims): re-runs the figures that README.md and docs/ quote and that
# regenerate in reasonable time (about five minutes on two cores), checks each against
# the page that quotes it, and lists the claims it did not re-run, with why and the
# command that does.
#
# A check runs one command and names the figures the page quotes: it is "ok" when the
# command succeeds and every figure is in its output and in the page, "DIFFERS" when one
# is missing from either (the code or the page changed) or the command fails (the
# tests that pin figures: a failure is a figure that changed), "skipped" when an input
# is absent. Timings a
# page quotes are printed next to the check, never compared (they depend on the machine
# and its load). Exit status 1 when a check differs.
#
# usage: scripts/claims.sh [PROCALLOC]   (default bin/procalloc, as make build)
# Outputs are kept in out/claims/.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
pa=$(realpath "${1:-bin/procalloc}")
[[ -x $pa ]] || { echo "$0: $pa: no procalloc binary (run make build)" >&2; exit 1; }
out=out/claims
mkdir -p "$out"
GO=${GO:-go}
command -v jq >/dev/null || { echo "$0: jq not found (apt-get install jq)" >&2; exit 1; }
shared=${PROCALLOC_SHARED:-$root/../shared}
ok=0 differ=0 skipped=0

# check NAME PAGE FIGURES -- COMMAND...: FIGURES are separated by '|'; the command's
# output goes to out/claims/NAME.txt.
check() {
	local name=$1 page=$2 figs=$3
	shift 4
	local log="$out/$name.txt" missing=() fig t0 t1
	t0=$(date +%s.%N)
	if ! "$@" >"$log" 2>&1; then
		printf '%-28s DIFFERS  %s: the command failed (%s)\n' "$name" "$page" "$log"
		differ=$((differ + 1))
		return
	fi
	t1=$(date +%s.%N)
	local list=()
	[[ -n $figs ]] && IFS='|' read -r -a list <<<"$figs"
	for fig in "${list[@]}"; do
		grep -qF -- "$fig" "$log" || missing+=("'$fig' not in the output")
		grep -qF -- "$fig" "$page" || missing+=("'$fig' not in $page")
	done
	if ((${#missing[@]})); then
		printf '%-28s DIFFERS  %s: %s\n' "$name" "$page" "$(IFS=';'; echo "${missing[*]}")"
		differ=$((differ + 1))
	else
		printf '%-28s ok       %s (%d figures, %.1f s)\n' "$name" "$page" "${#list[@]}" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
		ok=$((ok + 1))
	fi
}

skip() { # NAME PAGE WHY
	printf '%-28s skipped  %s: %s\n' "$1" "$2" "$3"
	skipped=$((skipped + 1))
}

echo "== claims re-run ($(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg))"

check strips-32x32 README.md '2574|2640.25' -- \
	"$pa" evaluate --machine mesh:32x32 --curve strips2,hindex --weights exp:2:3
check strips-32x32-curves docs/curves.md '2574|2640.25|2648.75|2795.25' -- \
	"$pa" evaluate --machine mesh:32x32 --curve strips2,hindex,hilbert,snake --weights exp:2:3
# The README's Fig. 18 table: mean total pairwise L1 to six decimals.
fig18() {
	"$pa" compare --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 \
		--alloc mc1x1:tb=3,9,3,2,bf:hilbert,mc1x1,mm,genalg,bf:snake --sched fcfs --compat premas --json |
		jq -r '.runs[] | "\(.alloc) \(.mean_total_pairwise_l1)"' | awk '{ printf "%s %.6f\n", $1, $2 }'
}
check fig18-published README.md '5224.969845|5232.127187|5309.586221|5382.294752|5386.367913|5683.267645' -- fig18
if [[ -r $shared/qaplib/nug12.dat ]]; then
	check qaplib-nug12 README.md '578|optimal' -- "$pa" order --qap "$shared/qaplib/nug12.dat" --method auto
else
	skip qaplib-nug12 README.md "no $shared/qaplib/nug12.dat"
fi
check fattree-8192-optimal README.md 'optimal' -- \
	"$pa" order --machine fattree:16,16:16,16:32 --weights exp:2:4 --json
grep -o '"seconds": [0-9.]*' "$out/fattree-8192-optimal.txt" | sed 's/^/    README: "in under a second": /'
check mesh32-bound README.md '2481' -- \
	"$pa" order --machine mesh:32x32 --weights exp:2:3 --time-limit 10s
grep -E '^(objective|bound|gap)' "$out/mesh32-bound.txt" | sed 's/^/    README: "F about 2505 ... gap about 1 %": /'
check cluster-200 README.md 'optimal' -- "$pa" cluster --k 200 --json
grep -o '"seconds": [0-9.]*' "$out/cluster-200.txt" | sed 's/^/    README: "(0.2 s)": /'
fab=topo/testdata/fattree.ibnetdiscover map=topo/testdata/fattree.node-name-map
check fabric-F docs/fabric.md ' 88| 56' -- \
	"$pa" evaluate --graph "$fab" --node-name-map "$map" --curve name-order,rcm,bfs,spectral --weights list:1,0.5
check fabric-optimum docs/fabric.md '56' -- \
	"$pa" order --graph "$fab" --node-name-map "$map" --weights list:1,0.5 --method dp --flat -o "$out/fabric.opt.pairs"
check fabric-optimum-dp docs/fabric.md '' -- $GO test -count=1 -run 'TestFabricSampleOptimumByDP' ./order
check fabric-as-run docs/fabric.md '45.714|3.429|36.857|1.571|42.86|39.429|2.143|546.4' -- \
	"$pa" compare --graph "$fab" --node-name-map "$map" --trace sim/testdata/sacct-fattree.txt --sched as-run \
	--alloc as-run,bf:name-order,bf:"$out/fabric.opt.pairs",genalg
# The tests that pin published values and the bounds' soundness, in full (not -short).
check published-tests docs/sim.md '' -- \
	$GO test -tags highs -count=1 -run 'TestPublishedTables|TestPublishedClose|TestTieStatisticsFig4|TestSimPublishedJSON' ./sim ./cmd/procalloc
check liu-figures docs/io.md '' -- $GO test -tags highs -count=1 -run 'TestBatchLiuFigures' ./sim
check clusters-fig2 docs/exact.md '' -- $GO test -count=1 -run 'TestClustersPublished' ./exact
check bounds-sound docs/ilp.md '' -- \
	$GO test -tags highs -count=1 -run 'TestStructuralBoundsBelowOptimum|TestFabricTargetsAtScale|TestGridWindowTargets|TestDragonflyChain' ./order

# BookSim2 (fetched and built beside the repo, never committed): docs/comm.md's
# buffers table (BookSim2 and the flit engine side by side, seeds 1 and 2), every row
# re-made from the runs (seeds averaged as the table has them) and looked up in the
# page whole; about a minute on two cores.
booksim_rows() { # BOOKSIM: the table's rows, one a line
	SEEDS="1 2" GRID=buffers sh scripts/booksim-compare.sh "$1" "$pa" | awk -F'\t' '
	NR == 1 { next }
	{
		key = $1 " " $2 "x" $2 " | " $3 " | " $4
		if (!(key in seen)) { seen[key] = 1; order[++n] = key }
		if ($12 != "converged") failed = 1
		if ($6 == "0.002") { min[key] = $11; bl[key] += $10; pl[key] += $14; nl[key]++ }
		else { rate[key] = $6; ba[key] += $9; pa[key] += $13; na[key]++ }
	}
	END {
		if (failed || n == 0) { print "booksim-compare.sh: a BookSim2 run did not converge" > "/dev/stderr"; exit 1 }
		for (i = 1; i <= n; i++) {
			k = order[i]
			lat = "- | - | -"
			if (nl[k]) lat = sprintf("%s | %.1f | %.1f", min[k], bl[k] / nl[k], pl[k] / nl[k])
			b = ba[k] / na[k]; p = pa[k] / na[k]
			printf "| %s | %s | %s | %.4f | %.4f | %+.1f %% |\n", k, lat, rate[k], b, p, 100 * (p / b - 1)
		}
	}'
}
booksim=${BOOKSIM:-$root/booksim2/src/booksim}
if [[ -x $booksim ]]; then
	log=$out/booksim-buffers.txt
	if ! booksim_rows "$booksim" >"$log" 2>&1; then
		printf '%-28s DIFFERS  %s: the command failed (%s)\n' booksim-buffers docs/comm.md "$log"
		differ=$((differ + 1))
	else
		rows=0 missing=0
		while IFS= read -r line; do
			rows=$((rows + 1))
			grep -qxF -- "$line" docs/comm.md || { missing=$((missing + 1)); echo "    not in docs/comm.md: $line"; }
		done <"$log"
		if ((missing || rows != 6)); then
			printf '%-28s DIFFERS  %s: %d of %d rows not in the page (%s)\n' booksim-buffers docs/comm.md "$missing" "$rows" "$log"
			differ=$((differ + 1))
		else
			printf '%-28s ok       %s (%d rows of the buffers table)\n' booksim-buffers docs/comm.md "$rows"
			ok=$((ok + 1))
		fi
	fi
else
	skip booksim-buffers docs/comm.md "no BookSim2 binary (BOOKSIM=..., see scripts/booksim-compare.sh)"
fi

echo
echo "== claims not re-run here (each page says how it was measured)"
cat <<'EOF'
README.md benchmarks table        timings: make bench (or the go test -bench line of each row); machine- and load-dependent
README.md, docs/alloc.md PReMAS   needs PReMAS built beside the repo: scripts/premas-speed.sh
README.md, docs/fabric.md Slurm   needs Slurm: make test-slurm (root, Debian's 22.05); scripts/slurm-build.sh for 26.05
docs/comm.md BookSim2 tables      all rows: scripts/booksim-compare.sh (above: the buffers table when BookSim2 is built)
docs/comm-bunde2004.md            hours of replays: scripts/bunde2004.sh, then scripts/bunde2004-claims.py
docs/io.md §6 over several seeds  5 seeds x 1000 runs: scripts/liu.sh (the pinned figure points run above)
docs/ilp.md orderings table       60-300 s per machine: scripts/order-table.sh
docs/ilp.md LP, time, bb, qaplib  time limits of 60 s per instance: go run -tags highs ./ilp/internal/ilpreport -table T
docs/ilp.md, docs/exact.md,       solve and replay timings: the command given next to each figure
  docs/sim.md, docs/ptas.md timings
EOF
echo
echo "claims: $ok ok, $differ differ, $skipped skipped"
((differ == 0))
