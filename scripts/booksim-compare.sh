#!/bin/sh
# booksim-compare.sh: run BookSim2 and procalloc's flit engine side by side, the same
# configuration, offered load, seed and measurement window, and print one
# tab-separated line per run:
#
#   topology k vcs buf traffic rate seed delays booksim_accepted booksim_latency
#   booksim_min booksim_state procalloc_accepted procalloc_latency procalloc_zero_load
#
# Equal windows: BookSim2 runs warmup_periods = 1 and sample_period = $SAMPLE with
# its convergence thresholds off (-1), so it warms up for SAMPLE cycles and measures
# for 3 x SAMPLE (it stops after three "converged" sample periods); procalloc runs
# --warmup SAMPLE --measure 3xSAMPLE. Rows below saturation use sim_type = latency
# (both drain the measured packets); the saturation rows use sim_type = throughput
# (BookSim2 stops at the end of the window instead of draining a backlog that never
# ends) and only their accepted rate is compared. booksim_min is BookSim2's minimum
# packet latency (a lone packet's at light load). booksim_state is "converged" when
# BookSim2 printed its overall statistics, else "failed" (its output is kept in
# $KEEP when set).
#
# Usage: scripts/booksim-compare.sh [BOOKSIM] [PROCALLOC]
#   BOOKSIM    the booksim binary (default: $BOOKSIM, else ./booksim2/src/booksim);
#              BookSim2 is booksim/booksim2 on GitHub, built in its src/ with make
#              (flex, bison, g++); nothing of it is kept in this repository
#   PROCALLOC  the procalloc binary (default: built from this checkout)
# Environment:
#   GRID       what to run (default: patterns):
#              patterns  every traffic pattern on mesh 8x8 and torus 8x8, 2 VCs,
#                        8-flit buffers: zero load (offered 0.002) and saturation
#                        (offered 0.9; hotspot 0.1)
#              zeroload  every pattern at offered 0.002 only (with SAMPLE=50000 its
#                        mean latency rests on about 2,000 packets a seed)
#              curve     latency against offered load, uniform, mesh 8x8, 1 and 8 VCs
#              buffers   mesh 8x8, 1 VC, buffers of 1 to 4 flits; torus 8x8 with 3
#                        and 5 VCs (BookSim2 overlaps the dateline classes)
#              delays    stage delays: routing 0 and 2, switch traversal 2, at light
#                        neighbor traffic (booksim_min: a lone one-hop packet) and
#                        at saturation
#              sat       the uniform saturation grid of docs/comm.md (mesh 8x8 and
#                        16x16 with 1-8 VCs, torus 8x8 with 2-8 VCs, 8-flit buffers)
#              all       all of the above
#   SEEDS      seeds (default "1 2 3 4"); SAMPLE (default 6000) as above;
#   PATTERNS   the patterns of GRID=patterns and zeroload; SATONLY=1 skips the
#              zero-load rows of GRID=patterns
#   SKIP_PROCALLOC=1 runs BookSim2 only; SKIP_BOOKSIM=1 procalloc only.
set -eu
BOOKSIM=${1:-${BOOKSIM:-./booksim2/src/booksim}}
PROCALLOC=${2:-}
SEEDS=${SEEDS:-1 2 3 4}
SAMPLE=${SAMPLE:-6000}
if [ "${SKIP_BOOKSIM:-}" != 1 ] && [ ! -x "$BOOKSIM" ]; then
	echo "booksim-compare.sh: no BookSim2 binary at $BOOKSIM (see the usage in this script)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
if [ -z "$PROCALLOC" ] && [ "${SKIP_PROCALLOC:-}" != 1 ]; then
	go build -o "$tmp/procalloc" ./cmd/procalloc
	PROCALLOC="$tmp/procalloc"
fi

# Stage delays of the next rows, as procalloc flags (BookSim2's keys follow).
RT=1 ST=1

# booksim_traffic PATTERN: BookSim2's spelling of a procalloc --traffic pattern,
# then its extra keys (randperm's seed). BookSim2's parameters are one braced list:
# hotspot({{0,63},{3,1}}) (hotspot({0,63},{3,1}) would read as hotspot 0 of weight 63).
booksim_traffic() {
	case "$1" in
	hotspot:*:*)
		n=${1#hotspot:}
		echo "traffic = hotspot({{${n%%:*}},{${n#*:}}});"
		;;
	hotspot:*) echo "traffic = hotspot({{${1#hotspot:}}});" ;;
	randperm:*) printf 'traffic = randperm;\nperm_seed = %s;\n' "${1#randperm:}" ;;
	*) echo "traffic = $1;" ;;
	esac
}

# run_booksim TOPOLOGY K VCS BUF TRAFFIC RATE SEED SIMTYPE: prints
# "accepted latency min state".
run_booksim() {
	routing=dor
	[ "$1" = torus ] && routing=dim_order
	{
		cat <<EOF
topology = $1;
k = $2;
n = 2;
routing_function = $routing;
num_vcs = $3;
vc_buf_size = $4;
packet_size = 32;
injection_rate_uses_flits = 1;
injection_rate = $6;
seed = $7;
sim_type = $8;
routing_delay = $RT;
st_final_delay = $ST;
latency_thres = -1.0;
warmup_thres = -1.0;
acc_warmup_thres = -1.0;
stopping_thres = -1.0;
acc_stopping_thres = -1.0;
warmup_periods = 1;
sample_period = $SAMPLE;
max_samples = 4;
EOF
		booksim_traffic "$5"
	} >"$tmp/cfg"
	"$BOOKSIM" "$tmp/cfg" >"$tmp/out" 2>&1 || true
	if grep -q 'Overall Traffic Statistics' "$tmp/out"; then
		acc=$(sed -n '/Overall Traffic/,$ s/^Accepted flit rate average = \([^ ]*\).*/\1/p' "$tmp/out" | head -1)
		lat=$(sed -n '/Overall Traffic/,$ s/^Packet latency average = \([^ ]*\).*/\1/p' "$tmp/out" | head -1)
		min=$(sed -n '/Overall Traffic/,$ p' "$tmp/out" | sed -n '/^Packet latency average/{n;s/.*minimum = \([^ ]*\).*/\1/p;}' | head -1)
		[ "$8" = latency ] || lat=-
		echo "$acc $lat ${min:--} converged"
	else
		[ -n "${KEEP:-}" ] && cp "$tmp/out" "$KEEP"
		echo "- - - failed"
	fi
}

# run_procalloc TOPOLOGY K VCS BUF TRAFFIC RATE SEED: prints "accepted latency zero_load".
run_procalloc() {
	"$PROCALLOC" netsim --machine "$1:$2x$2" --traffic "$5" --rate "$6" --seed "$7" --engine flit \
		--vcs "$3" --vc-buffer "$4" --routing-delay "$RT" --st-delay "$ST" \
		--warmup "$SAMPLE" --measure $((3 * SAMPLE)) --json >"$tmp/pa.json" 2>"$tmp/pa.err" || true
	acc=$(sed -n 's/.*"accepted": *\([^,]*\),.*/\1/p' "$tmp/pa.json" | head -1)
	lat=$(sed -n 's/.*"mean_latency": *\([^,]*\),.*/\1/p' "$tmp/pa.json" | head -1)
	zl=$(sed -n 's/.*"zero_load_latency": *\([^,]*\),.*/\1/p' "$tmp/pa.json" | head -1)
	echo "${acc:--} ${lat:--} ${zl:--}"
}

# row TOPOLOGY K VCS BUF TRAFFIC RATE SIMTYPE: one line per seed.
row() {
	# (sh has no local variables: the names here are row's own.)
	for row_seed in $SEEDS; do
		row_b="- - - skipped"
		[ "${SKIP_BOOKSIM:-}" = 1 ] || row_b=$(run_booksim "$1" "$2" "$3" "$4" "$5" "$6" "$row_seed" "$7")
		row_p="- - -"
		[ "${SKIP_PROCALLOC:-}" = 1 ] || row_p=$(run_procalloc "$1" "$2" "$3" "$4" "$5" "$6" "$row_seed")
		# shellcheck disable=SC2086
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$row_seed" "rt=$RT,st=$ST" $row_b $row_p
	done
}

PATTERNS=${PATTERNS:-uniform transpose bitcomp bitrev shuffle tornado neighbor randperm:1 hotspot:0,63:3,1}

patterns() {
	for topo in mesh torus; do
		for t in $PATTERNS; do
			[ -n "${SATONLY:-}" ] || row $topo 8 2 8 "$t" 0.002 latency
			sat=0.9
			case $t in hotspot*) sat=0.1 ;; esac
			row $topo 8 2 8 "$t" $sat throughput
		done
	done
}

zeroload() {
	for topo in mesh torus; do
		for t in $PATTERNS; do row $topo 8 2 8 "$t" 0.002 latency; done
	done
}

curve() {
	for r in 0.05 0.1 0.15 0.2 0.25; do row mesh 8 1 8 uniform $r latency; done
	for r in 0.05 0.1 0.15 0.2 0.25 0.3 0.35; do row mesh 8 8 8 uniform $r latency; done
}

buffers() {
	for b in 1 2 3 4; do
		row mesh 8 1 $b uniform 0.002 latency
		row mesh 8 1 $b uniform 0.6 throughput
	done
	for v in 3 5; do row torus 8 $v 8 uniform 0.9 throughput; done
}

delays() {
	for d in "0 1" "2 1" "1 2"; do
		set -- $d
		RT=$1 ST=$2
		row mesh 8 2 8 neighbor 0.002 latency
		row mesh 8 2 8 uniform 0.002 latency
		row mesh 8 2 8 uniform 0.9 throughput
	done
	RT=1 ST=1
}

sat() {
	for v in 1 2 4 8; do row mesh 8 $v 8 uniform 0.6 throughput; done
	for v in 2 4 8; do row torus 8 $v 8 uniform 0.7 throughput; done
	for v in 1 2 4 8; do row mesh 16 $v 8 uniform 0.25 throughput; done
}

printf 'topology\tk\tvcs\tbuf\ttraffic\trate\tseed\tdelays\tbooksim_accepted\tbooksim_latency\tbooksim_min\tbooksim_state\tprocalloc_accepted\tprocalloc_latency\tprocalloc_zero_load\n'
case "${GRID:-patterns}" in
patterns) patterns ;;
zeroload) zeroload ;;
curve) curve ;;
buffers) buffers ;;
delays) delays ;;
sat) sat ;;
all) patterns; curve; buffers; delays; sat ;;
*)
	echo "booksim-compare.sh: GRID=${GRID}: patterns, curve, buffers, delays, sat or all" >&2
	exit 2
	;;
esac
