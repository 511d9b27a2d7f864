#!/usr/bin/env bash
# claims.sh (make claims): re-runs the figures that README.md and docs/ quote and that
# regenerate in reasonable time (about ten minutes on two shared cores, 2026-12-07),
# checks each against the page that quotes it, and lists the claims it did not re-run,
# with why and the
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
# CLAIMS_ONLY=REGEX runs only the checks whose whole name matches the extended regular
# expression (e.g. CLAIMS_ONLY='ptas-.*|clusters-fig2'), for a page just edited; the
# others are not counted. Set-up steps between checks still run.
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
only=${CLAIMS_ONLY:-}

# selected NAME: whether CLAIMS_ONLY lets check NAME run.
selected() { [[ -z $only || $1 =~ ^($only)$ ]]; }

# check NAME PAGE FIGURES -- COMMAND...: FIGURES are separated by '|'; the command's
# output goes to out/claims/NAME.txt.
check() {
	selected "$1" || return 0
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
	selected "$1" || return 0
	printf '%-28s skipped  %s: %s\n' "$1" "$2" "$3"
	skipped=$((skipped + 1))
}

# check_lines NAME PAGE MODE ROWS -- COMMAND...: every line the command prints must be
# in PAGE: MODE "line", a whole line of it; "prefix", the start of one of its lines;
# "part", anywhere in one of them. ROWS is how many lines the command must print (so
# that a command printing nothing fails). Used where the page quotes a table or an
# output block rather than single figures.
check_lines() {
	selected "$1" || return 0
	local name=$1 page=$2 mode=$3 want=$4
	shift 5
	local log="$out/$name.txt" rows=0 missing=0 line t0 t1
	t0=$(date +%s.%N)
	if ! "$@" >"$log" 2>"$out/$name.err"; then
		printf '%-28s DIFFERS  %s: the command failed (%s)\n' "$name" "$page" "$out/$name.err"
		differ=$((differ + 1))
		return
	fi
	t1=$(date +%s.%N)
	while IFS= read -r line; do
		rows=$((rows + 1))
		case $mode in
		line) grep -qxF -- "$line" "$page" ;;
		prefix) awk -v l="$line" 'index($0, l) == 1 { f = 1 } END { exit !f }' "$page" ;;
		*) grep -qF -- "$line" "$page" ;;
		esac || { missing=$((missing + 1)); echo "    not in $page: $line"; }
	done <"$log"
	if ((missing || rows != want)); then
		printf '%-28s DIFFERS  %s: %d of %d lines not in the page, %d expected (%s)\n' "$name" "$page" "$missing" "$rows" "$want" "$log"
		differ=$((differ + 1))
	else
		printf '%-28s ok       %s (%d lines, %.1f s)\n' "$name" "$page" "$rows" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
		ok=$((ok + 1))
	fi
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
grep -E '^(objective|bound|gap)' "$out/mesh32-bound.txt" | sed 's/^/    README: "F about 2503 ... gap about 1 %": /'
check cluster-200 README.md 'optimal' -- "$pa" cluster --k 200 --json
grep -o '"seconds": [0-9.]*' "$out/cluster-200.txt" | sed 's/^/    README: "(0.2 s)": /'
fab=topo/testdata/fattree.ibnetdiscover map=topo/testdata/fattree.node-name-map
check fabric-F docs/fabric.md ' 88| 56' -- \
	"$pa" evaluate --graph "$fab" --node-name-map "$map" --curve name-order,rcm,bfs,spectral --weights list:1,0.5
check fabric-optimum docs/fabric.md '56' -- \
	"$pa" order --graph "$fab" --node-name-map "$map" --weights list:1,0.5 --method dp --flat -o "$out/fabric.opt.pairs"
# TestFabricSampleOptimumByDP fails unless the DP finds 56 on each of the sample's three
# files; the page quotes its state count.
fabric_dp() {
	$GO test -count=1 -run 'TestFabricSampleOptimumByDP' -v ./order |
		awk '/DP optimum .* states/ { n = $(NF-1); s = ""; while (length(n) > 3) { s = "," substr(n, length(n) - 2) s; n = substr(n, 1, length(n) - 3) }
			print n s " subset states" }'
	test "${PIPESTATUS[0]}" = 0
}
check_lines fabric-optimum-dp docs/fabric.md part 3 -- fabric_dp
check fabric-as-run docs/fabric.md '45.714|3.429|36.857|1.571|42.86|39.429|2.143|546.4' -- \
	"$pa" compare --graph "$fab" --node-name-map "$map" --trace sim/testdata/sacct-fattree.txt --sched as-run \
	--alloc as-run,bf:name-order,bf:"$out/fabric.opt.pairs",genalg
# The tests that pin published values and the bounds' soundness, in full (not -short).
check published-tests docs/sim.md '' -- \
	$GO test -tags highs -count=1 -run 'TestPublishedTables|TestPublishedClose|TestTieStatisticsFig4|TestSimPublishedJSON' ./sim ./cmd/procalloc
check liu-figures docs/io.md '' -- $GO test -tags highs -count=1 -run 'TestBatchLiuFigures' ./sim
check clusters-fig2 docs/exact.md '' -- $GO test -count=1 -run 'TestClustersPublished' ./exact
check bounds-sound docs/ilp.md '' -- \
	$GO test -tags highs -count=1 -v -run 'TestStructuralBoundsBelowOptimum|TestFabricTargetsAtScale|TestGridWindowTargets|TestDragonflyChain' ./order


# docs/sim.md's "Reproduced figures" beyond Fig. 18: procalloc's column to six decimals
# (TestPublishedTables holds them to the published three), and mminc's 5364.154.
published_rows() {
	local kth=sim/testdata/KTH-SP2-1996-2.converted.txt.gz llnl=sim/testdata/LLNL-T3D-1996-2.converted.txt.gz
	{
		"$pa" compare --trace "$kth" --machine mesh:10x10 --alloc mc1x1,mc1x1:tb=2,13,20,6 --sched fcfs --compat premas --json
		"$pa" compare --trace "$llnl" --machine mesh:16x16 --alloc mc1x1:tb=2,13,20,6,mc1x1:tb=3,13,20,6,mc1x1:tb=4,13,20,6 --sched fcfs --compat premas --json
		"$pa" compare --trace "$kth" --machine mesh:10x10 --alloc mc1x1,mc1x1:tb=2,13,20,6 --sched easy --compat premas --json
		"$pa" compare --trace "$llnl" --machine mesh:16x16 --alloc mc1x1,mc1x1:tb=3,9,3,2 --sched easy --compat premas --json
	} | jq -r '.runs[] | "\(.alloc) \(.mean_total_pairwise_l1)"' | awk '{ printf "| `%s` | %.6f |\n", $1, $2 }'
	"$pa" sim --trace "$llnl" --machine mesh:16x16 --alloc mminc --compat premas --json |
		jq -r '.mean_total_pairwise_l1' | awk '{ printf "`mminc`'"'"'s %.3f\n", $1 }'
}
check_lines published-rows docs/sim.md part 10 -- published_rows
# docs/alloc.md: PReMAS's greedy MC1x1, procalloc's figure to nine decimals.
greedy() {
	"$pa" sim --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --alloc mc1x1-greedy --compat premas --json |
		jq -r '.mean_total_pairwise_l1' | awk '{ printf "| `procalloc sim --alloc mc1x1-greedy --compat premas` | %.9f |\n", $1 }'
}
check_lines greedy-mc1x1 docs/alloc.md line 1 -- greedy
# docs/sim.md's "Close but not exact" rows (TestPublishedClose holds them to the
# published values within the relative differences the page gives): procalloc's
# column, to three decimals with thousands separators as printed. About a minute.
close_rows() {
	local t=$shared/traces
	{
		"$pa" compare --trace "$t/LANL-CM5-1994-4.1-cln.swf.gz" --machine mesh:32x32 --compat premas --json \
			--alloc mc1x1,mc1x1:tb=12,42,41,15,mc1x1:tb=2,13,20,6,mc1x1:tb=3,13,20,6,mc1x1:tb=6,13,20,6,mc1x1:tb=7,13,20,6
		"$pa" compare --trace "$t/LANL-CM5-1994-4.1-cln.swf.gz" --machine mesh:32x32 --compat premas --json --sched easy --alloc mc1x1
		"$pa" compare --trace "$t/SDSC-Par-1996-3.1-cln.swf.gz" --machine mesh:20x20 --compat premas --json \
			--alloc mc1x1:tb=2,13,20,6,mc1x1:tb=3,13,20,6,mc1x1:tb=4,13,20,6
	} 2>/dev/null | jq -r '.runs[].mean_total_pairwise_l1' | awk '
	function sep(x,   s, ip, fp) { # 1234567.891 -> 1,234,567.891
		s = sprintf("%.3f", x); ip = substr(s, 1, index(s, ".") - 1); fp = substr(s, index(s, "."))
		while (length(ip) > 3) { fp = "," substr(ip, length(ip) - 2) fp; ip = substr(ip, 1, length(ip) - 3) }
		return ip fp
	}
	{ print sep($1) }'
}
if [[ -r $shared/traces/LANL-CM5-1994-4.1-cln.swf.gz && -r $shared/traces/SDSC-Par-1996-3.1-cln.swf.gz ]]; then
	check_lines published-close docs/sim.md part 10 -- close_rows
else
	skip published-close docs/sim.md "no $shared/traces/LANL-CM5-1994-4.1-cln.swf.gz or SDSC-Par-1996-3.1-cln.swf.gz"
fi
# docs/io.md's table of compact allocations (TestCompactnessOfAllocators logs them).
compact_rows() {
	$GO test -count=1 -run 'TestCompactnessOfAllocators$' -v ./alloc |
		awk '/compact after/ { for (i = 1; i <= NF; i++) if ($i == "after") print "| " $(i-2) " | " $(i+1) " of " $(i+3) " |" }'
}
check_lines compactness docs/io.md line 10 -- compact_rows
# docs/comm.md's message-engine tables against theory: the rows the page shows
# (it elides the others with "..."), the header and the saturation line.
netsim_rows() { # MACHINE RATES SHOWN
	"$pa" netsim --engine message --machine "$1" --traffic uniform --rate "$2" |
		awk -v shown="$3" 'BEGIN { n = split(shown, s, ","); for (i = 1; i <= n; i++) keep[s[i]] = 1 }
		NR <= 2 || /^saturation/ || ($1 in keep)'
}
netsim_both() {
	netsim_rows mesh:8x8 0.05:0.6:0.05 0.0500,0.1000,0.1500,0.2000,0.2500,0.3000,0.6000 &&
		netsim_rows mesh:16x16 0.02:0.3:0.02 0.0200,0.0400,0.0600,0.0800,0.1000,0.3000
}
check_lines netsim-message docs/comm.md line 19 -- netsim_both
# docs/ilp.md's QAPLIB table: every instance's proven optimum and root Gilmore-Lawler
# bound (the optima are QAPLIB's, pinned in qap's TestBranchAndBoundQAPLIB; nodes and
# seconds vary and are not compared).
qaplib_rows() {
	$GO run -tags highs ./ilp/internal/ilpreport -table qaplib -limit 0 -qaplib "$shared/qaplib" |
		awk -F'|' 'NR > 2 { for (i = 2; i <= 6; i++) gsub(/^ +| +$/, "", $i) }
		NR > 2 && $5 == "optimal" { print "| " $2 " | " $3 " | " $4 " | " $6 " | " }'
}
if [[ -r $shared/qaplib/nug12.dat ]]; then
	check_lines qaplib-table docs/ilp.md prefix 7 -- qaplib_rows
else
	skip qaplib-table docs/ilp.md "no $shared/qaplib"
fi
# docs/ptas.md's table of MM's ratio on the tight examples (Fig. 4 at k = 8, Lemma 6's
# cross-polytope in 3D): TestTightExamples logs each ratio to five decimals; every
# figure of the page's two rows must be that value rounded to the page's decimals.
tight_rows() {
	$GO test -count=1 -run 'TestTightExamples$' -v ./ptas | awk '
	FNR == NR { if (/MM\/OPT/) { split($0, a, ": MM/OPT = ")
			if (/fig4 d=2 k=8 /) f[++nf] = a[2]; if (/cross-polytope d=3 k=24 /) c[++nc] = a[2] }
		next }
	/^ *[|] Fig. 4, 2D [|]/ { row = "f" }
	/^ *[|] cross-polytope, 3D [|]/ { row = "c" }
	row != "" {
		split($0, p, "|"); seen[row] = 1
		for (i = 3; i <= 8; i++) {
			x = p[i]; gsub(/ /, "", x); want = row == "f" ? f[i - 2] : c[i - 2]
			d = length(x) - index(x, ".")
			tol = 0.5 * 10 ^ -d + 0.5e-5 + 1e-12
			if (want == "" || x - want > tol || want - x > tol) { print row ": page " x ", test " want; bad = 1 }
			else print row ": page " x ", test " want
		}
		row = ""
	}
	END { exit bad || !seen["f"] || !seen["c"] || nf != 6 || nc != 6 }' - docs/ptas.md
}
check tight-examples docs/ptas.md '' -- tight_rows
# docs/curves.md's four procalloc evaluate examples: every row (the page shortens the
# weights of the first "machine" line, so those lines are left out).
evaluate_rows() {
	{
		"$pa" evaluate --machine mesh:16x16 --curve hilbert,hindex,gilbert,snake,morton,rowmajor &&
			"$pa" evaluate --machine mesh:8x8x5 --curve hilbert3d-trunc,gilbert3d,snake3d,snake,snake-ring &&
			"$pa" evaluate --machine mesh:16x22 --curve gilbert,hilbert-trunc,snake &&
			"$pa" evaluate --machine torus:8x8 --curve hindex,snake-ring,gilbert-ring,snake,hilbert --ring
	} | grep -v '^machine '
}
check_lines evaluate-examples docs/curves.md line 23 -- evaluate_rows
# docs/ilp.md's "Orderings of today's machines": F of the orderings in use (name order,
# BFS, Hilbert, H-index, snake, RCM) on every machine, the table's first nine columns
# as scripts/order-table.sh makes them; its solves get 1 s here (their F, bound and
# time depend on the limit and the machine, and are not compared). About a minute.
order_table_rows() {
	LIMIT_SMALL=1s LIMIT_LARGE=1s bash scripts/order-table.sh "$pa" |
		awk -F' [|] ' 'NR > 2 { s = $1; for (i = 2; i <= 9; i++) s = s " | " $i; print s " | " }'
}
check_lines order-table-curves docs/ilp.md prefix 10 -- order_table_rows
# docs/ilp.md's "Bounds that scale" table: the structural bounds and the orderings built
# from the switch hierarchy at scale, as the three tests log them (the rows' figures
# that the tests print as the page has them; the gaps follow from them).
targets_log() { $GO test -count=1 -run 'TestGridWindowTargets|TestFabricTargetsAtScale|TestDragonflyChain' -v ./order; }
check order-targets docs/ilp.md '34236.5|34256|46710.25|46723.25|1304.25|3270.25|3289.25|1790.25|1839.375|2481.07|283058.25' -- targets_log
# docs/exact.md's PlaneMM against MM: the table is the test's log (300 seeded instances
# per k; the test fails above 5 % of instances improved).
planemm_rows() {
	$GO test -count=1 -run 'TestPlaneMMRarelyBeatsMM$' -v ./exact | sed -n 's/^ *planemm_table_test.go:[0-9]*: //p'
	test "${PIPESTATUS[0]}" = 0
}
check_lines planemm-table docs/exact.md line 4 -- planemm_rows
# docs/io.md's "Which labels coincide": bt, sbt:256, dbt:1/2 and sbt:128 print one row
# at 50 runs, sbt:64 another (the four identical rows are counted).
labels_rows() {
	"$pa" batch --machine mesh:16x16:io=left --alloc bt,sbt:256,dbt:1/2,sbt:128,sbt:64 --comm-per-io 2 --runs 50 >"$out/labels.raw" || return 1
	cat "$out/labels.raw"
	local same
	same=$(awk '$4 == "0.055677" && $6 == "4.72" && $8 == "2.98" { n++ } END { print n + 0 }' "$out/labels.raw")
	echo "rows alike: $same (4 wanted)"
	test "$same" = 4
}
check batch-labels docs/io.md '0.055677|4.72|2.98|0.057413' -- labels_rows
# docs/io.md: the Fig. 3 command's table is docs/io/fig3.txt byte for byte (about 30 s
# of CPU; the charts are not compared: the chart writer changed after they were drawn).
fig3_cmp() {
	"$pa" batch --machine mesh:16x16:io=left --alloc sbt:4,sbt:16,sbt:64,sbt:256 --comm-per-io 0,2,8,16 --runs 200 -o "$out/fig3.txt" &&
		cmp "$out/fig3.txt" docs/io/fig3.txt && echo "fig3.txt byte for byte"
}
check batch-fig3 docs/io.md 'fig3.txt' -- fig3_cmp
# docs/ilp.md's "Orderings proven", the row README's --method bb example runs.
check order-bb-torus44 docs/ilp.md '39 (bb)' -- \
	"$pa" order --machine torus:4x4 --weights list:1,0.5,0.25 --ring --method bb
grep -E '^(status|objective)' "$out/order-bb-torus44.txt" | sed 's/^/    docs\/ilp.md "| torus:4x4 | 16 | 3 | true | 39 | optimal": /'
# README's slurm-weight recipe: the merge into a slurm.conf with a NodeName range and a
# Port range splits it into 16 lines, node03 at weight 15.
weight_recipe() {
	local d=$out/weight-recipe
	rm -rf "$d" && mkdir -p "$d" || return 1
	printf 'node%02d\n' $(seq 1 16) >"$d/nodes.txt"
	printf '%s\n' 'ClusterName=claims' 'NodeName=node[01-16] NodeHostname=localhost Port=[17101-17116] CPUs=1' \
		'PartitionName=all Nodes=node[01-16] Default=YES' >"$d/slurm.conf"
	"$pa" curve --machine mesh:4x4 --curve hilbert --format slurm-weight --hosts "$d/nodes.txt" \
		--slurm-conf "$d/slurm.conf" -o "$d/slurm.conf.new" || return 1
	grep '^NodeName=node01 ' "$d/slurm.conf.new" | sed 's/ Weight=.*//'
	grep -o '^NodeName=node01 .* Weight=1$' "$d/slurm.conf.new" | grep -o 'Weight=1$'
	grep '^NodeName=node03 ' "$d/slurm.conf.new" | grep -o 'Weight=15$'
	echo "($(grep -c '^NodeName=node[0-9]* .*Weight=' "$d/slurm.conf.new") lines)"
}
check weight-recipe README.md 'NodeName=node01 NodeHostname=localhost Port=17101 CPUs=1|Weight=15|(16 lines)' -- weight_recipe
# README.md's plan example: every line of procalloc plan's table but the last (the
# output directory differs).
plan_lines() {
	rm -rf "$out/plan"
	"$pa" plan --graph "$fab" --node-name-map "$map" --slurm-conf plan/testdata/slurm.conf \
		--trace sim/testdata/sacct-fattree.txt --slurm-version 22.05 -o "$out/plan" | grep -v '^written to ' | grep -v '^$'
}
check_lines plan-sample README.md line 12 -- plan_lines

# The user pages' figures that the thirty-second round's audit (wt-docsaudit) found
# without a command here; each is cheap (seconds, opt-20000 about 40 s).
# README.md: PReMAS's greedy MC1x1 to six decimals (docs/alloc.md's nine: greedy-mc1x1).
greedy6() {
	"$pa" sim --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --alloc mc1x1-greedy --compat premas --json |
		jq -r '.mean_total_pairwise_l1' | awk '{ printf "%.6f\n", $1 }'
}
check greedy-readme README.md '5344.034986' -- greedy6
# README.md's sweep sizes: the Bunde 2004 sweep (180 replays, a shard of 12 holds 15),
# the dragonfly example (24 replays) and the demo sweep (12 items).
sweep_sizes() {
	local n
	n=$("$pa" sweep examples/bunde2004.yaml --list | wc -l) && echo "$n replays"
	n=$("$pa" sweep examples/bunde2004.yaml --list --shard 0/12 | wc -l) && echo "($n items)"
	n=$("$pa" sweep examples/comm-dragonfly.yaml --list | wc -l) && echo "$n replays"
	n=$("$pa" sweep examples/demo-sweep.yaml --list | wc -l) && echo "the demo sweep as a 4-task array: $n items"
}
check sweep-sizes README.md '180 replays|(15 items)|24 replays' -- sweep_sizes
# docs/sim.md's Fig. 4 table: procalloc's column (TestTieStatisticsFig4 pins the same
# counts against the figure's).
ties_rows() {
	local kth=sim/testdata/KTH-SP2-1996-2.converted.txt.gz llnl=sim/testdata/LLNL-T3D-1996-2.converted.txt.gz s
	for s in fcfs easy; do
		"$pa" sim --trace "$kth" --machine mesh:10x10 --alloc mc1x1 --sched $s --compat premas --json |
			jq -r --arg r "KTH-SP2, 10x10, ${s^^}" '"\($r) \(.ties.tied) \(.ties.pct_tied) \(.ties.avg_num_tied)"' || return 1
		"$pa" sim --trace "$llnl" --machine mesh:16x16 --alloc mc1x1 --sched $s --compat premas --json |
			jq -r --arg r "LLNL-T3D, 16x16, ${s^^}" '"\($r) \(.ties.tied) \(.ties.pct_tied) \(.ties.avg_num_tied)"' || return 1
	done | awk '{ n = $(NF-2); s = ""; while (length(n) > 3) { s = "," substr(n, length(n) - 2) s; n = substr(n, 1, length(n) - 3) }
		r = $1; for (i = 2; i <= NF - 3; i++) r = r " " $i
		printf "| %s | %s%s, %.1f %%, %.1f |\n", r, n, s, $(NF-1), $NF }'
}
check_lines ties-fig4 docs/sim.md part 4 -- ties_rows
# docs/sim.md: the exact solver as an allocator with a budget of 20,000 search nodes
# (decisions counted in nodes, not time: the same on every machine).
opt_budget() {
	"$pa" sim --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --alloc opt:nodes=20000 --compat premas --json |
		jq -r '"\(.mean_total_pairwise_l1) \(.fallbacks.fallbacks) \(.fallbacks.decisions)"' | awk '
		function sep(n,   s) { s = ""; while (length(n) > 3) { s = "," substr(n, length(n) - 2) s; n = substr(n, 1, length(n) - 3) }; return n s }
		{ printf "%.3f\n%s of %s\n", $1, sep($2), sep($3) }'
}
check opt-20000 docs/sim.md '5347.576|5,156 of 21,323' -- opt_budget
# docs/sim.md's jobs that waited for a block: LANL-CM5 on mesh:32x32 with bt under the
# three schedulers (about 10 s; the EASY row found the backfill memo's undercount of
# 2026-12-04, fixed in the thirty-second round).
block_waits() {
	local s
	for s in fcfs easy cplant; do
		"$pa" sim --trace "$shared/traces/LANL-CM5-1994-4.1-cln.swf.gz" --machine mesh:32x32 --alloc bt --sched $s --metrics sched --json 2>/dev/null |
			jq -r '"\(.block_waits.jobs) \(.block_waits.mean_block_wait)"' || return 1
	done | awk 'function sep(n,   s) { s = ""; while (length(n) > 3) { s = "," substr(n, length(n) - 2) s; n = substr(n, 1, length(n) - 3) }; return n s }
		{ printf "%s jobs%s, mean %s s\n", sep($1), NR == 1 ? " waited for a block" : "", sep(sprintf("%.0f", $2)) }'
}
if [[ -r $shared/traces/LANL-CM5-1994-4.1-cln.swf.gz ]]; then
	check block-waits docs/sim.md '14,117 jobs waited for a block, mean 1,465 s|19,079 jobs, mean 15,551 s|9,553 jobs, mean 5,736 s' -- block_waits
else
	skip block-waits docs/sim.md "no $shared/traces/LANL-CM5-1994-4.1-cln.swf.gz"
fi
# docs/exact.md: the ring whose optimum is no arc (TestRingOptimumNotAnArc pins it).
ring_counter() {
	printf '%s\n' 0 12 15 18 20 32 41 42 44 50 62 64 | "$pa" subset --algo ring --k 10 --points - --circumference 65 --json |
		jq -e -r 'select(.optimal) | "the optimum \(.total) leaves out \([range(12)] - .indices | map([0,12,15,18,20,32,41,42,44,50,62,64][.]) | join(" and "))"'
}
check ring-not-an-arc docs/exact.md 'the optimum 755 leaves out 32 and 50' -- ring_counter
# docs/ptas.md: the scheme on Fig. 4's instance (k = 8, L = 100), PTAS/OPT with m = 4
# and MM/OPT, as TestPTASFig4AgainstBruteForce logs them.
check ptas-fig4 docs/ptas.md '1.371|1.737' -- $GO test -count=1 -run 'TestPTASFig4AgainstBruteForce$' -v ./ptas
# docs/ilp.md: the Cplant development machine ordered switch by switch and flat.
cplant_dev() {
	"$pa" order --graph order/testdata/cplant-dev.txt --weights list:1,0.5,0.25 --no-mip --json |
		jq -r '"F = \(.objective)", "bound \(.bound)"' &&
		"$pa" order --graph order/testdata/cplant-dev.txt --weights list:1,0.5,0.25 --no-mip --flat --json | jq -r '"\(.objective) for the flat"'
}
check cplant-dev docs/ilp.md 'F = 609|bound 498.5|649 for the flat' -- cplant_dev
# docs/ilp.md's selection of TestStructuralBoundsBelowOptimum's rows: every row the
# page shows is one the test logged in bounds-sound above (dragonflies abbreviated as
# the page has them).
sbbo_rows() {
	local log=$out/bounds-sound.txt rows=0 bad=0 l
	[[ -s $log ]] || { echo "no $log"; return 1; }
	sed -n 's/^ *structure_test.go:[0-9]*: //p' "$log" |
		sed -E 's/dragonfly:hosts_per_router=([0-9]+),routers_per_group=([0-9]+),intergroup_links=([0-9]+),num_groups=([0-9]+)/dragonfly \1\/\2\/\3\/\4/' >"$out/sbbo.rows"
	while IFS= read -r l; do
		rows=$((rows + 1))
		grep -qxF -- "$l" "$out/sbbo.rows" || { bad=1; echo "not logged: $l"; }
	done < <(awk '/^[|] machine [|] n [|] weights [|] ring [|] bound [|] source [|] optimum/ { f = 1; next }
		f && /^[|]---/ { next } f && /^[|]/ { print; next } f { exit }' docs/ilp.md)
	echo "$rows rows of the page checked"
	((rows > 0 && !bad))
}
check sbbo-selection docs/ilp.md '' -- sbbo_rows
# docs/ilp.md's "LP bounds side by side" and "Orderings proven" on their quick rows
# (about 20 s): every figure but the times (and the bb table's node counts, which vary
# with two workers) as the page has it. The other rows: the skip list below.
# ILP_ROWS TABLE ONLY AWK-PROJECTION: the rows ilpreport prints, projected, must be
# rows of the page's table with as many columns, projected the same way.
ilp_rows() {
	local table=$1 only=$2 proj=$3 rows=0 bad=0 l
	$GO run -tags highs ./ilp/internal/ilpreport -table "$table" -limit 60s -only "$only" >"$out/ilp-$table.raw" || return 1
	local cols
	cols=$(awk -F'|' 'NR == 1 { print NF }' "$out/ilp-$table.raw")
	awk -F'|' -v c="$cols" 'NF == c && /^[|] [a-z]/' docs/ilp.md | awk -F'|' "$proj" >"$out/ilp-$table.page"
	while IFS= read -r l; do
		rows=$((rows + 1))
		grep -qxF -- "$l" "$out/ilp-$table.page" || { bad=1; echo "not in docs/ilp.md: $l"; }
		echo "$l"
	done < <(awk 'NR > 2' "$out/ilp-$table.raw" | awk -F'|' "$proj")
	echo "$rows rows compared"
	((rows > 0 && !bad))
}
check ilp-lp-quick docs/ilp.md '' -- ilp_rows lp mesh:3x3,rr3-10 '{ gsub(/ [(][0-9.]+s[)]/, ""); print }'
check ilp-bb-quick docs/ilp.md '' -- ilp_rows bb mesh:4x3,torus:4x4,rr3-16 '{ print $2 "|" $3 "|" $4 "|" $5 "|" $6 "|" $7 "|" $8 "|" $12 }'
check ilp-time-quick docs/ilp.md '' -- ilp_rows time mesh:3x3,torus:3x3,rr3-8 '{ print $2 "|" $3 "|" $4 "|" $5 "|" $6 "|" $7 "|" $8 "|" $10 "|" $11 }'

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
docs/ilp.md orderings table       60-300 s per machine: scripts/order-table.sh (its curve columns re-run above)
docs/ilp.md LP, time, large, bb   time limits of 60 s per instance: go run -tags highs ./ilp/internal/ilpreport -table T
                                  (qaplib's optima and root bounds are re-run above, and the quick rows of lp, bb
                                  and time: -only picks instances)
docs/io.md Figs. 4-6 files        2 CPU minutes: the last three procalloc batch commands on the page (TestBatchLiuFigures
                                  above re-runs two points of each; batch-fig3 the whole Fig. 3 table)
docs/sim.md baseline, fat tree    30 s of CPU each: the procalloc sim --baseline exact commands on the page
docs/ilp.md, docs/exact.md,       solve and replay timings: the command given next to each figure
  docs/sim.md, docs/ptas.md timings
EOF
echo
echo "claims: $ok ok, $differ differ, $skipped skipped"
((differ == 0))
