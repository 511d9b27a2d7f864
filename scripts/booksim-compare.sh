#!/bin/sh
# booksim-compare.sh: run BookSim2 and procalloc's flit engine side by side on the
# configurations of docs/comm.md ("The flit engine against BookSim2") and print one
# tab-separated line per configuration and offered load:
#
#   topology k vcs buf rate booksim_accepted booksim_latency booksim_state procalloc_accepted procalloc_latency
#
# booksim_state is "converged" when BookSim2 printed its overall statistics and
# "unstable" when it did not converge within max_samples (saturation): then the
# accepted rate is that of its last sample period (cumulative since the warmup) and
# the latency is left empty.
#
# Usage: scripts/booksim-compare.sh [BOOKSIM] [PROCALLOC]
#   BOOKSIM    the booksim binary (default: $BOOKSIM, else ./booksim2/src/booksim);
#              build it with: git clone https://github.com/booksim/booksim2 &&
#              (cd booksim2/src && make)   # needs flex, bison, g++
#   PROCALLOC  the procalloc binary (default: go run ./cmd/procalloc)
# Environment: GRID=quick runs a subset (mesh 8x8 and torus 8x8, buffer 8);
#              GRID=sat runs only the highest offered load of each list (above
#              saturation in every configuration: accepted is flat there);
#              SKIP_PROCALLOC=1 runs BookSim2 only;
#              SIMTYPE=throughput runs BookSim2's loaded points with sim_type =
#              throughput: the same simulation, but it stops once the accepted rate
#              has converged instead of draining every measured packet, which at
#              saturation takes longer than the run itself (the zero-load rows always
#              use sim_type = latency).
set -eu
BOOKSIM=${1:-${BOOKSIM:-./booksim2/src/booksim}}
PROCALLOC=${2:-}
if [ ! -x "$BOOKSIM" ]; then
	echo "booksim-compare.sh: no BookSim2 binary at $BOOKSIM (see the usage in this script)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
if [ -z "$PROCALLOC" ]; then
	go build -o "$tmp/procalloc" ./cmd/procalloc
	PROCALLOC="$tmp/procalloc"
fi

# run_booksim TOPOLOGY K VCS BUF RATE: prints "accepted latency state".
run_booksim() {
	simtype=${SIMTYPE:-latency}
	[ "$5" = 0.002 ] && simtype=latency
	routing=dor
	[ "$1" = torus ] && routing=dim_order
	cat >"$tmp/cfg" <<EOF
topology = $1;
k = $2;
n = 2;
routing_function = $routing;
num_vcs = $3;
vc_buf_size = $4;
traffic = uniform;
packet_size = 32;
injection_rate_uses_flits = 1;
injection_rate = $5;
sim_type = $simtype;
latency_thres = -1.0;
warmup_periods = 3;
sample_period = 2000;
max_samples = 12;
seed = 1;
EOF
	"$BOOKSIM" "$tmp/cfg" >"$tmp/out" 2>&1 || true
	if grep -q 'Overall Traffic Statistics' "$tmp/out"; then
		acc=$(sed -n '/Overall Traffic/,$ s/^Accepted flit rate average = \([^ ]*\).*/\1/p' "$tmp/out" | head -1)
		lat=$(sed -n '/Overall Traffic/,$ s/^Packet latency average = \([^ ]*\).*/\1/p' "$tmp/out" | head -1)
		[ "$simtype" = latency ] || lat=-
		echo "$acc $lat converged"
	else
		acc=$(sed -n 's/^Accepted flit rate average= *\([^ ]*\).*/\1/p' "$tmp/out" | tail -1)
		echo "$acc - unstable"
	fi
}

# run_procalloc TOPOLOGY K VCS BUF RATE: prints "accepted latency".
run_procalloc() {
	"$PROCALLOC" netsim --machine "$1:$2x$2" --traffic uniform --rate "$5" --engine flit \
		--vcs "$3" --vc-buffer "$4" --warmup 6000 --measure 18000 --json >"$tmp/pa.json" 2>/dev/null || true
	acc=$(sed -n 's/.*"accepted": *\([^,]*\),.*/\1/p' "$tmp/pa.json" | head -1)
	lat=$(sed -n 's/.*"mean_latency": *\([^,]*\),.*/\1/p' "$tmp/pa.json" | head -1)
	echo "${acc:--} ${lat:--}"
}

row() {
	set -- "$@"
	b=$(run_booksim "$@")
	p="- -"
	[ "${SKIP_PROCALLOC:-}" = 1 ] || p=$(run_procalloc "$@")
	# shellcheck disable=SC2086
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" $b $p
}

printf 'topology\tk\tvcs\tbuf\trate\tbooksim_accepted\tbooksim_latency\tbooksim_state\tprocalloc_accepted\tprocalloc_latency\n'
if [ "${GRID:-}" != sat ]; then
	row mesh 8 1 8 0.002
	row mesh 16 1 8 0.002
	row torus 8 2 8 0.002
fi
bufs="8 32"
r8="0.3 0.4 0.5 0.6" r16="0.12 0.15 0.2 0.25" rt="0.3 0.4 0.5 0.6 0.7"
case "${GRID:-}" in
quick) bufs=8 ;;
sat) r8=0.6 r16=0.25 rt=0.7 ;;
esac
for buf in $bufs; do
	for v in 1 2 4 8; do
		for r in $r8; do row mesh 8 $v $buf $r; done
	done
	for v in 2 4 8; do
		for r in $rt; do row torus 8 $v $buf $r; done
	done
	[ "${GRID:-}" = quick ] && continue
	for v in 1 2 4 8; do
		for r in $r16; do row mesh 16 $v $buf $r; done
	done
done
