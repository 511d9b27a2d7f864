#!/usr/bin/env bash
# make demo: procalloc's main jobs on built-in examples; every result lands in out/.
set -euo pipefail
bin=${1:-bin/procalloc}
out=out
mkdir -p "$out"
say() { printf '\n== %s\n' "$*"; }

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
