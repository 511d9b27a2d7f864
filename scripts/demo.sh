#!/usr/bin/env bash
# make demo: procalloc's main jobs on built-in examples; every result lands in out/.
set -euo pipefail
bin=${1:-bin/procalloc}
out=${DEMO_OUT:-out} # DEMO_OUT: another directory (the test that runs this script)
mkdir -p "$out"
say() { printf '\n== %s\n' "$*"; }

say "0. procalloc plan: a fabric, its slurm.conf and its job history in, a deployable Slurm configuration out"
echo "   topo/testdata/fattree.ibnetdiscover (16 hosts, 4 leaves cabled round-robin), plan/testdata/slurm.conf,"
echo "   sim/testdata/sacct-fattree.txt; Slurm 22.05; files in $out/plan/"
"$bin" plan --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map \
	--slurm-conf plan/testdata/slurm.conf --trace sim/testdata/sacct-fattree.txt --slurm-version 22.05 \
	-o "$out/plan" | tee "$out/plan.txt"
echo "   RECOMMENDATION: $(sed -n 's/^recommendation  //p' "$out/plan.txt")"
echo "   steps: $out/plan/apply.txt; report: $out/plan/report.html"

say "1. Node orderings: curves, ranking files and pictures for a few machines"
for spec in mesh:16x16 mesh:16x22 torus:8x8 mesh:8x8x5:wrap=yz; do
	name=${spec//[:=]/_}
	case $spec in
	mesh:16x16) curves="hilbert gilbert hindex snake morton" ;;
	mesh:16x22) curves="gilbert hilbert-trunc snake" ;;
	torus:8x8) curves="snake-ring gilbert-ring hilbert hindex" ;;
	*) curves="gilbert3d hilbert3d-trunc snake3d" ;;
	esac
	for curve in $curves; do
		"$bin" curve --machine "$spec" --curve "$curve" --format pairs \
			-o "$out/$name.$curve.pairs" --svg "$out/$name.$curve.svg"
	done
	ring=""
	[[ $spec == torus:* ]] && ring="--ring"
	say "   $spec: ordering quality F (w = exp:2:8$([[ -n $ring ]] && echo ', ring')) and steps"
	"$bin" evaluate --machine "$spec" --curve "$(echo $curves | tr ' ' ,)" --weights exp:2:8 $ring \
		| tee "$out/$name.evaluate.txt"
done
"$bin" curve --machine mesh:16x16 --curve hilbert --format json -o "$out/mesh_16x16.hilbert.json"
"$bin" curve --machine mesh:16x16 --curve hilbert --format order -o "$out/mesh_16x16.hilbert.order"
echo "   wrote $(ls "$out"/*.pairs | wc -l) ranking files and $(ls "$out"/*.svg | wc -l) SVG pictures"

say "2. Trace replay: Johnson et al. 2010 Fig. 18 (LLNL-T3D, 16x16 mesh, FCFS), --compat premas"
echo "   published mean total pairwise L1: (3,9,3,2) 5224.970, Hilbert BF 5232.127, MC1x1 5309.586,"
echo "   MM 5382.295, Gen-Alg 5386.368, snake BF 5683.268"
"$bin" compare --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 \
	--alloc mc1x1:tb=3,9,3,2,bf:hilbert,mc1x1,mm,genalg,bf:snake --sched fcfs --compat premas \
	--csv "$out/fig18.csv" --svg "$out/fig18.svg" | tee "$out/fig18.txt"

say "3. Beyond the paper: more allocators on KTH-SP2 (10x10 mesh), EASY backfilling"
"$bin" compare --trace sim/testdata/KTH-SP2-1996-2.converted.txt.gz --machine mesh:10x10 \
	--alloc mc1x1,mc1x1:tb=2,13,20,6,mc1x1-greedy,mm,mminc,bf:gilbert,ff:gilbert,sos:gilbert,freelist:gilbert,mbs \
	--sched easy --compat premas --csv "$out/kth-easy.csv" | tee "$out/kth-easy.txt"

say "4. Optimal orderings (Leung et al. 2002 §2.2) with certificates: HiGHS MIP, bounds, DP"
"$bin" order --machine torus:3x3 --weights list:1,0.5,0.25 --ring --time-limit 60s \
	-o "$out/torus_3x3.optimal.pairs" | tee "$out/torus_3x3.order.txt"
"$bin" order --machine mesh:16x16 --weights list:1,0.5 --ring -o "$out/mesh_16x16.optimal-ring.pairs" \
	| tee "$out/mesh_16x16.order.txt"
"$bin" order --graph order/testdata/cplant-dev.txt --weights list:1,0.5,0.25 --no-mip \
	-o "$out/cplant-dev.pairs" | tee "$out/cplant-dev.order.txt"

say "5. k-subsets on the free nodes of a 16x16 mesh (about half busy): approximations vs the optimum"
# A fixed pseudo-random occupancy (a linear congruential generator, so no tool is needed).
seed=12345
: >"$out/free-16x16.txt"
for ((i = 0; i < 256; i++)); do
	seed=$(((seed * 1103515245 + 12345) % 2147483648))
	((seed / 65536 % 2 == 0)) && echo "$i" >>"$out/free-16x16.txt"
done
subset_row() { # ALGO K FREEFILE [FLAGS...]: one table row from the JSON result
	local algo=$1 k=$2 free=$3 json
	shift 3
	json="$out/subset-$algo-$k-$(basename "$free" .txt).json"
	"$bin" subset --algo "$algo" --k "$k" --machine mesh:16x16 --free "$free" "$@" --json >"$json"
	printf '%8s %8s %10s %10.4g %8s\n' "$algo" "$k" \
		"$(grep -o '"total": *[0-9.e+]*' "$json" | grep -o '[0-9.e+]*$')" \
		"$(grep -o '"guarantee": *[0-9.e+]*' "$json" | grep -o '[0-9.e+]*$')" \
		"$(grep -o '"optimal": *[a-z]*' "$json" | grep -o '[a-z]*$' || echo -)"
}
printf '%8s %8s %10s %10s %8s\n' algo k total guarantee optimal
for k in 8 16; do
	for algo in mc1x1 genalg mm mminc exact; do
		subset_row "$algo" "$k" "$out/free-16x16.txt" --time-limit 20s
	done
done
# The PTAS enumeration is exponential in 1/eps: a smaller instance (the first 30 free nodes).
head -n 30 "$out/free-16x16.txt" >"$out/free-30.txt"
echo "   the first 30 free nodes:"
for algo in mm ptas exact; do
	eps=()
	[[ $algo == ptas ]] && eps=(--eps 0.5) # only the PTAS takes an eps (subset refuses it elsewhere)
	subset_row "$algo" 8 "$out/free-30.txt" "${eps[@]}" --time-limit 20s
done

say "6. Optimal unconstrained clusters of Z^2 (Bender et al. 2005 Fig. 2)"
for k in 5 12 21; do
	"$bin" cluster --k "$k" --svg "$out/cluster-$k.svg" | tee "$out/cluster-$k.txt"
done

say "7. The network model: latency against offered load on an 8x8 mesh (uniform traffic)"
"$bin" netsim --machine mesh:8x8 --traffic uniform --rate 0.05:0.4:0.05 | tee "$out/netsim-8x8.txt"

say "8. Communication decides run times (Bunde et al. 2004): LLNL-T3D on 16x16, n-body, three allocators"
"$bin" compare --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 \
	--alloc bf:hilbert,freelist:hilbert,mc1x1 --comm n-body --msgs-per-second 0.01 --cycle-seconds 10 \
	--loads 1,0.5 --metric mean_response --svg "$out/comm-nbody.svg" --csv "$out/comm-nbody.csv" |
	grep -E "metric|mean response|message distance|routes on a link" | tee "$out/comm-nbody.txt"

say "9. A sweep in two shards (as two Slurm array tasks would run it), merged and plotted"
rm -f "$out"/demo-sweep.shard-*.jsonl
for i in 0 1; do
	"$bin" sweep examples/demo-sweep.yaml --shard "$i/2" -o "$out/demo-sweep.shard-$i.jsonl"
done
"$bin" merge "$out"/demo-sweep.shard-*.jsonl --spec examples/demo-sweep.yaml -o "$out/demo-sweep.jsonl" --csv "$out/demo-sweep.csv"
"$bin" plot "$out/demo-sweep.jsonl" --where pattern=n-body --y mean_response --svg "$out/demo-sweep.svg"

say "10. A real fabric: from ibnetdiscover output to an optimal ordering, slurm.conf weights and a replay"
fab=topo/testdata/fattree.ibnetdiscover
map=topo/testdata/fattree.node-name-map
echo "   two-level InfiniBand fat tree (4 leaves, 2 spines, 16 hosts cabled round-robin), names from a node-name-map"
"$bin" order --graph "$fab" --node-name-map "$map" --weights list:1,0.5 --method dp --flat \
	-o "$out/fabric.opt.pairs" | tee "$out/fabric.order.txt"
"$bin" curve --graph "$fab" --node-name-map "$map" --curve "$out/fabric.opt.pairs" --format slurm-weight \
	-o "$out/fabric.slurm-weight.conf"
"$bin" curve --graph "$fab" --node-name-map "$map" --curve "$out/fabric.opt.pairs" --format slurm-topology \
	-o "$out/fabric.topology.conf"
echo "   wrote $out/fabric.slurm-weight.conf (NodeName=... Weight=rank+1) and $out/fabric.topology.conf:"
sed 's/^/   /' "$out/fabric.topology.conf"
say "   the sacct sample replayed on production's own schedule (--sched as-run): where production put the jobs"
echo "   (as-run), Slurm's natural name order, the optimal ordering (Best Fit), Gen-Alg; only placement differs"
"$bin" compare --graph "$fab" --node-name-map "$map" --trace sim/testdata/sacct-fattree.txt --sched as-run \
	--alloc as-run,bf:name-order,bf:"$out/fabric.opt.pairs",genalg --csv "$out/fabric.compare.csv" 2>/dev/null |
	grep -E "metric|pairwise|span|components|contiguous|wait|message distance" | tee "$out/fabric.compare.txt"

say "11. I/O-aware allocation (Liu et al.): a batch of 16 tasks on a 16x16 mesh with I/O nodes on its left side"
echo "   pure I/O (0 communications per I/O phase) and 8; mean time until all finish, 100 seeded runs each"
"$bin" batch --machine mesh:16x16:io=left --alloc dbt:1/4,d-dbt:1/4,mbs,plas --comm-per-io 0,8 --runs 100 \
	--svg "$out/io-batch.svg" | tee "$out/io-batch.txt"

echo
echo "done: results in $out/"
