#!/usr/bin/env bash
# A multi-node Slurm on one machine: N slurmd on loopback (Debian 12's Slurm 22.05.8 is
# built with multiple-slurmd support), one slurmctld, one private MUNGE, all in DIR.
#
#   scripts/slurm-cluster.sh start --nodes N --dir DIR --port-base P
#                                  [--weights FILE] [--topology FILE] [--conf-extra FILE]
#   scripts/slurm-cluster.sh start --dir DIR --conf FILE    (a slurm.conf written by `conf`
#                                  and changed, e.g. by procalloc's slurm-weight merge)
#   scripts/slurm-cluster.sh conf  --nodes N --dir DIR --port-base P [...]  (write only)
#   scripts/slurm-cluster.sh stop  --dir DIR
#   scripts/slurm-cluster.sh restart ... (the options of start: stop, then start with a
#                                  new configuration; MUNGE keeps running)
#   scripts/slurm-cluster.sh status --dir DIR
#   scripts/slurm-cluster.sh free-base --nodes N   (print a port base whose N+1 ports
#                                  are free now: see "Ports" below)
#
# start writes DIR/slurm.conf for nodes node01..nodeNN or --names (NodeHostname=localhost,
# NodeAddr=127.0.0.1, slurmctld on port P, node i on port P+i, CPUs=1, %n in the
# slurmd spool/pid/log paths, select/cons_tres, one partition "all" with Nodes=ALL),
# starts a MUNGE daemon private to DIR unless DIR's is already running (it records in
# DIR/pids only what it started), slurmctld, then one slurmd per node that slurmctld
# knows (sinfo), and waits until every node is idle. Then, for clients:
#   export SLURM_CONF=DIR/slurm.conf
# Options:
#   --weights FILE    lines "NODE WEIGHT": Weight= on those NodeName lines.
#   --topology FILE   copied to DIR/topology.conf; TopologyPlugin=topology/tree (or
#                     topology/block when FILE has BlockName lines: Slurm >= 23.11).
#                     A topology.yaml (name ending .yaml/.yml, or a file starting with
#                     "- topology:"; Slurm >= 25.05, torus3d >= 26.05, so with --prefix)
#                     is copied to DIR/topology.yaml and no TopologyPlugin is set: each
#                     topology in it names its own plugin.
#   --names EXPR      the node names, a Slurm hostlist expression of --nodes names in
#                     NodeName line order (default node01..nodeNN), e.g.
#                     'x[1-9],x[010-016]' for names that mix zero padding.
#   --conf-extra FILE appended verbatim to slurm.conf (a later line overrides an earlier
#                     one for most keys, e.g. SchedulerParameters=...).
#   --prefix DIR      a Slurm built from source (scripts/slurm-build.sh, e.g. /opt/slurm-new,
#                     for topology/block): DIR/bin and DIR/sbin come first on PATH (give
#                     it to every command, stop too); nothing is installed, exit 3 when
#                     DIR has no slurmctld. Clients must then be DIR's as well.
# The configuration is tuned for tests: `salloc --no-shell -N K` is placed at
# submission (about 20 ms), `sbatch` at the main scheduler's next pass (slurmctld 22.05
# runs it from its background loop, once a second: up to 1 s); a cancelled job's nodes
# are idle again within about 0.1 s.
# Time (measured on a loaded 2-core machine): start about 1-2 s for 16 nodes, stop about
# 2-7 s (slurmd and slurmctld take up to 2 s each to exit on SIGTERM), restart 3 s.
#
# stop cancels every job of the cluster (whatever its partition or user), waits for
# them to end, then stops the daemons start recorded in DIR/pids (SIGTERM, SIGKILL
# after 10 s) and, by process id, any process left in their sessions or in the
# sessions of the cluster's slurmstepd (batch scripts, tasks, also of jobs that ignore
# SIGTERM). A failed start stops what it started (trap).
# restart stops slurmd and slurmctld the same way but with SIGKILL, keeps MUNGE, and
# starts again: about 3 s.
# Two clusters with different --dir and --port-base coexist.
#
# Ports: slurmctld listens on P, node i on P+i, on every IPv4 address. free-base draws
# bases at random from PROCALLOC_SLURM_PORTS (LO-HI) or else from 10000 up to below
# the kernel's ephemeral range (ip_local_port_range, where outgoing connections take
# their ports), and prints the first whose N+1 ports can be bound now (SO_REUSEADDR,
# as Slurm's daemons bind). Go tests: internal/slurmtest/ports (Base), the same rule.
# When slurmctld or a slurmd cannot bind its port (its log says "Address already in
# use": another cluster, or a stale one left by a killed run, took it after the
# check), start stops what it started and exits 4 naming the port, so that a caller
# can retry on another base (scripts/test-slurm.sh, ports.Start).
#
# Needs root (the daemons run as root here). Installs Debian's slurm-wlm, slurm-client,
# munge and libpmix-dev (whose libpmix.so Debian's mpi/pmix plugin opens) with
# apt-get when one is missing (idempotent); exits 3 when it is not root or cannot
# install, so that callers can skip. Exit 2: usage; 4: a port of the cluster was in
# use (see Ports); 1: other failures.
set -euo pipefail

usage() {
	sed -n '2,/^# start writes/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
}
log() { echo "slurm-cluster: $*" >&2; }

cmd=${1:-}
[ -n "$cmd" ] || usage
shift
nodes= dir= portbase= weights= topology= extra= conf= prefix= names=
while [ $# -gt 0 ]; do
	case $1 in
	--nodes) nodes=${2:?}; shift 2 ;;
	--dir) dir=${2:?}; shift 2 ;;
	--port-base) portbase=${2:?}; shift 2 ;;
	--weights) weights=$(realpath "${2:?}"); shift 2 ;;
	--topology) topology=$(realpath "${2:?}"); shift 2 ;;
	--conf-extra) extra=$(realpath "${2:?}"); shift 2 ;;
	--conf) conf=$(realpath "${2:?}"); shift 2 ;;
	--prefix) prefix=${2:?}; shift 2 ;;
	--names) names=${2:?}; shift 2 ;;
	*) log "unknown argument $1"; usage ;;
	esac
done
if [ "$cmd" != free-base ]; then
	[ -n "$dir" ] || { log "--dir is required"; usage; }
	mkdir -p "$dir"
	dir=$(realpath "$dir")
fi
export SLURM_CONF=$dir/slurm.conf
[ -z "$prefix" ] || export PATH=$prefix/bin:$prefix/sbin:$PATH

need_root_and_packages() {
	if [ "$(id -u)" -ne 0 ]; then
		log "needs root to run the Slurm daemons"
		exit 3
	fi
	local missing=() c
	if [ -n "$prefix" ] && [ ! -x "$prefix/sbin/slurmctld" ]; then
		log "no $prefix/sbin/slurmctld: build Slurm with scripts/slurm-build.sh"
		exit 3
	fi
	for c in slurmctld slurmd sbatch squeue sinfo scontrol scancel munged; do
		command -v "$c" >/dev/null || missing+=("$c")
	done
	# Debian's mpi/pmix plugin (slurm-wlm-basic-plugins) opens
	# /usr/lib/<arch>/pmix2/lib/libpmix.so, the unversioned name that only
	# libpmix-dev ships, at every slurmctld start without depending on it: without it
	# each start logs three "error: ... pmix" lines, and the tests that read
	# slurmctld's log for errors fail. Open MPI's -dev packages bring it.
	if [ -z "$prefix" ] && ! compgen -G '/usr/lib/*/pmix2/lib/libpmix.so' >/dev/null; then
		missing+=(libpmix-dev)
	fi
	[ ${#missing[@]} -eq 0 ] && return 0
	if ! command -v apt-get >/dev/null; then
		log "${missing[*]} not found and no apt-get: install Slurm and MUNGE"
		exit 3
	fi
	log "installing slurm-wlm slurm-client munge libpmix-dev (missing: ${missing[*]})"
	# The packages' own services are not started: policy-rc.d refuses them.
	local policy= status=0
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 0755 "$policy"
	fi
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends slurm-wlm slurm-client munge libpmix-dev; } >&2 || status=$?
	[ -n "$policy" ] && rm -f "$policy"
	if [ "$status" -ne 0 ]; then
		log "apt-get failed ($status)"
		exit 3
	fi
}

write_conf() {
	[[ $nodes =~ ^[1-9][0-9]*$ ]] || { log "--nodes must be a positive integer"; usage; }
	[[ $portbase =~ ^[1-9][0-9]*$ ]] && [ "$portbase" -ge 1024 ] && [ $((portbase + nodes)) -le 65535 ] ||
		{ log "--port-base must be an integer in [1024, $((65535 - nodes))]"; usage; }
	local width=2 i name w line
	local node_names=()
	[ "$nodes" -ge 100 ] && width=${#nodes}
	if [ -n "$names" ]; then
		mapfile -t node_names < <(expand_hostlist "$names")
		[ "${#node_names[@]}" -eq "$nodes" ] ||
			{ log "--names $names: ${#node_names[@]} names for --nodes $nodes"; usage; }
	else
		for i in $(seq "$nodes"); do node_names+=("$(printf "node%0${width}d" "$i")"); done
	fi
	mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
	{
		cat <<CONF
ClusterName=pa$portbase
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$portbase
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_min_interval=0,batch_sched_delay=0,bf_interval=30
MpiDefault=none
ReturnToService=2
MessageTimeout=5
TCPTimeout=2
KillWait=1
CompleteWait=0
InactiveLimit=0
MinJobAge=2
SlurmdTimeout=300
SlurmctldTimeout=300
CONF
		rm -f "$dir/topology.yaml" "$dir/topology.conf"
		if [ -n "$topology" ] && { [[ $topology == *.yaml || $topology == *.yml ]] ||
			grep -q '^- *topology:' "$topology"; }; then
			cp "$topology" "$dir/topology.yaml" # Slurm >= 25.05; no TopologyPlugin then
		elif [ -n "$topology" ]; then
			cp "$topology" "$dir/topology.conf"
			if grep -qi '^[[:space:]]*BlockName=' "$topology"; then
				echo "TopologyPlugin=topology/block"
			else
				echo "TopologyPlugin=topology/tree"
			fi
		fi
		for i in $(seq "$nodes"); do
			name=${node_names[i - 1]}
			line="NodeName=$name NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((portbase + i)) CPUs=1 RealMemory=100"
			if [ -n "$weights" ]; then
				w=$(awk -v n="$name" '$1 == n { print $2 }' "$weights" | tail -n 1)
				[ -n "$w" ] && line="$line Weight=$w"
			fi
			echo "$line State=UNKNOWN"
		done
		echo "PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
		if [ -n "$extra" ]; then cat "$extra"; fi
	} >"$dir/slurm.conf.tmp"
	mv "$dir/slurm.conf.tmp" "$dir/slurm.conf"
}

# expand_hostlist EXPR: the names of a Slurm hostlist expression, one per line, in
# its order: comma-separated items, each PREFIX[RANGES]SUFFIX or a plain name, RANGES
# comma-separated numbers and LO-HI ranges, zero-padded to LO's width (one bracket
# per item, enough for the test clusters).
expand_hostlist() {
	awk -v expr="$1" 'BEGIN {
		n = 0; depth = 0; item = ""
		for (i = 1; i <= length(expr); i++) {
			c = substr(expr, i, 1)
			if (c == "[") depth++
			if (c == "]") depth--
			if (c == "," && depth == 0) { items[++n] = item; item = ""; continue }
			item = item c
		}
		items[++n] = item
		for (k = 1; k <= n; k++) {
			it = items[k]
			if (it == "") { print "empty name in " expr > "/dev/stderr"; exit 1 }
			o = index(it, "[")
			if (o == 0) { print it; continue }
			cl = index(it, "]")
			if (cl < o || index(substr(it, cl + 1), "[") > 0) { print "cannot expand " it > "/dev/stderr"; exit 1 }
			pre = substr(it, 1, o - 1); suf = substr(it, cl + 1)
			m = split(substr(it, o + 1, cl - o - 1), r, ",")
			for (j = 1; j <= m; j++) {
				if (split(r[j], lh, "-") == 2) {
					if (lh[1] !~ /^[0-9]+$/ || lh[2] !~ /^[0-9]+$/ || lh[1] + 0 > lh[2] + 0) { print "bad range " r[j] > "/dev/stderr"; exit 1 }
					for (v = lh[1] + 0; v <= lh[2] + 0; v++) printf "%s%0*d%s\n", pre, length(lh[1]), v, suf
				} else if (r[j] ~ /^[0-9]+$/) {
					print pre r[j] suf
				} else { print "bad range " r[j] > "/dev/stderr"; exit 1 }
			}
		}
	}'
}

# alive PID: the process runs (a zombie waiting for PID 1 to reap it does not).
alive() {
	[ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null || return 1
	local st
	st=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) || return 0
	[ "$st" != Z ]
}

# port_range: "LO HI", the ports free-base draws from (see Ports in the header).
port_range() {
	local lo hi elo ehi
	if [ -n "${PROCALLOC_SLURM_PORTS:-}" ]; then
		[[ $PROCALLOC_SLURM_PORTS =~ ^([0-9]+)-([0-9]+)$ ]] ||
			{ log "PROCALLOC_SLURM_PORTS=$PROCALLOC_SLURM_PORTS: want LO-HI"; exit 2; }
		lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
	else
		read -r elo ehi </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || { elo=32768 ehi=60999; }
		lo=10000 hi=$((elo - 1))
		# an ephemeral range that starts low: above it instead
		[ "$hi" -ge $((lo + 1000)) ] || { lo=$((ehi + 1)) hi=65535; }
	fi
	echo "$lo $hi"
}

# ports_free BASE COUNT: ports BASE..BASE+COUNT-1 can be bound now on every IPv4
# address with SO_REUSEADDR, as slurmctld and slurmd bind them.
ports_free() {
	perl -MSocket -e '
		my ($b, $n) = @ARGV;
		for my $p ($b .. $b + $n - 1) {
			socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n";
			setsockopt($s, SOL_SOCKET, SO_REUSEADDR, 1) or die "setsockopt: $!\n";
			bind($s, pack_sockaddr_in($p, INADDR_ANY)) or exit 1;
			close $s;
		}' "$1" "$2"
}

# free_base: print a base whose --nodes + 1 ports are free now (random draws).
free_base() {
	[[ $nodes =~ ^[1-9][0-9]*$ ]] || { log "free-base needs --nodes N"; usage; }
	local lo hi span=$((nodes + 1)) base
	read -r lo hi < <(port_range)
	[ "$lo" -ge 1024 ] && [ "$hi" -le 65535 ] && [ $((hi - lo + 1)) -ge "$span" ] ||
		{ log "ports $lo-$hi cannot hold $span ports"; exit 2; }
	for _ in $(seq 50); do
		base=$((lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 2 - span)))
		if ports_free "$base" "$span"; then
			echo "$base"
			return 0
		fi
	done
	log "no $span consecutive free ports in $lo-$hi after 50 draws"
	exit 1
}

# in_use_port: "PORT (DAEMON)" for a daemon of this start that could not bind its
# port (its .out, which each start begins afresh, says so); nothing otherwise.
in_use_port() {
	local f p n
	for f in "$dir/log/slurmctld.out" "$dir"/log/slurmd-*.out; do
		[ -f "$f" ] && grep -q 'Address already in use' "$f" || continue
		if [ "$f" = "$dir/log/slurmctld.out" ]; then
			p=$(awk -F= '/^SlurmctldPort=/ { print $2 }' "$SLURM_CONF" | tail -n 1)
			echo "${p:-?} (slurmctld)"
		else
			p=$(sed -nE 's/.*listen port \(([0-9]+)\).*Address already in use.*/\1/p' "$f" | head -n 1)
			n=${f##*/slurmd-}
			echo "${p:-?} (slurmd of ${n%.out})"
		fi
		return 0
	done
	return 0
}

# record NAME PID: DIR/pids lists what start started, for stop.
record() { echo "$1 $2" >>"$dir/pids"; }

# step_sessions: the session ids of this cluster's slurmstepd processes: those whose
# environment has SLURM_CONF=DIR/slurm.conf (slurmd passes its own on) or that hold
# a file under DIR open (their slurmd log).
step_sessions() {
	local p sid mysid
	mysid=$(ps -o sid= -p $$ | tr -d ' ')
	for p in $(pgrep -x slurmstepd 2>/dev/null; ps -e -o pid=,args= | awk '$2 == "slurmstepd:" { print $1 }'); do
		if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$dir/slurm.conf" ||
			find "/proc/$p/fd" -mindepth 1 -maxdepth 1 -lname "$dir/*" -print -quit 2>/dev/null | grep -q .; then
			sid=$(ps -o sid= -p "$p" 2>/dev/null | tr -d ' ') || continue
			# never a session this script runs in (nor init's)
			[ -n "$sid" ] && [ "$sid" -gt 1 ] && [ "$sid" != "$mysid" ] && echo "$sid"
		fi
	done | sort -u
}

# stop_cluster [keep-munge]
stop_cluster() {
	[ -f "$dir/pids" ] || return 0
	local keep=${1:-} name pid sids=() left i pats=(slurmd slurmctld munged) sig=TERM
	# restart: MUNGE stays, and the Slurm daemons get SIGKILL once the jobs are gone
	# (their state is wiped at start anyway; SIGTERM takes them 2 s each).
	[ "$keep" = keep-munge ] && pats=(slurmd slurmctld) sig=KILL
	# Cancel the jobs first, so that their steps end normally: every job slurmctld
	# knows, whatever its partition or user (squeue --all also lists hidden ones).
	local ids
	if alive "$(awk '$1 == "slurmctld" { print $2 }' "$dir/pids")"; then
		ids=$(squeue -h --all -o %A 2>/dev/null | sort -u) || true
		if [ -n "$ids" ]; then
			# shellcheck disable=SC2086
			scancel --full $ids >/dev/null 2>&1 || true
		fi
		for i in $(seq 50); do
			[ -z "$(squeue -h --all -o %A 2>/dev/null)" ] && break
			sleep 0.1
		done
	fi
	# The job steps' sessions, while their slurmd still run (a step that has not
	# ended by now is killed with its session below).
	local stepsids
	stepsids=$(step_sessions)
	while read -r name pid; do
		# every daemon was started by setsid: its pid is its session id
		[ "$keep" = keep-munge ] && [ "$name" = munged ] && continue
		sids+=("$pid")
	done <"$dir/pids"
	# slurmd first, then slurmctld, MUNGE last.
	for pat in "${pats[@]}"; do
		while read -r name pid; do
			[ "${name%%:*}" = "$pat" ] && alive "$pid" && kill -s "$sig" "$pid" 2>/dev/null || true
		done <"$dir/pids"
		for i in $(seq 200); do
			left=0
			while read -r name pid; do
				[ "${name%%:*}" = "$pat" ] && alive "$pid" && left=1
			done <"$dir/pids"
			[ "$left" = 0 ] && break
			sleep 0.05
		done
		while read -r name pid; do
			[ "${name%%:*}" = "$pat" ] && alive "$pid" && kill -9 "$pid" 2>/dev/null || true
		done <"$dir/pids"
	done
	# Job steps: slurmstepd runs in a session of its own (slurmd's child calls
	# setsid and exits), with the batch script and the tasks; any process left in
	# those sessions or in the daemons' ends here, by process id.
	local p
	sids+=($stepsids $(step_sessions))
	for p in $(ps -e -o pid=,sid= | awk -v s=" ${sids[*]} " 'index(s, " " $2 " ") { print $1 }'); do
		kill -9 "$p" 2>/dev/null || true
	done
	if [ "$keep" = keep-munge ]; then
		grep '^munged ' "$dir/pids" >"$dir/pids.new" || true
		mv "$dir/pids.new" "$dir/pids"
		[ -s "$dir/pids" ] || rm -f "$dir/pids"
	else
		rm -f "$dir/pids"
	fi
}

start_cluster() {
	if [ -f "$dir/pids" ]; then
		local name pid
		while read -r name pid; do
			if [ "$name" != munged ] && alive "$pid"; then
				log "$dir already has a running cluster ($name pid $pid): stop it first"
				exit 1
			fi
		done <"$dir/pids"
		# A MUNGE that start started and that still runs is kept (restart).
		grep '^munged ' "$dir/pids" >"$dir/pids.new" || true
		mv "$dir/pids.new" "$dir/pids"
		alive "$(cat "$dir/munge/munged.pid" 2>/dev/null)" || rm -f "$dir/pids"
	fi
	local t0=$SECONDS
	# A daemon that could not bind its port: exit 4 naming it (callers retry elsewhere).
	trap 'status=$?; if [ "$status" -ne 0 ]; then inuse=$(in_use_port); log "start failed: stopping what it started"; stop_cluster
		if [ -n "$inuse" ]; then log "port $inuse already in use (another cluster, or a stale one): start it on another --port-base"; exit 4; fi; fi' EXIT
	rm -f "$dir/log/slurmctld.out" "$dir"/log/slurmd-*.out
	if [ -n "$conf" ]; then
		[ "$conf" = "$dir/slurm.conf" ] || cp "$conf" "$dir/slurm.conf"
		mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
	else
		write_conf
	fi
	rm -rf "$dir/state"/* "$dir/spool"/*

	# MUNGE, private to DIR (its key, socket and log), unless DIR's is already running.
	mkdir -p "$dir/munge"
	chmod 0700 "$dir/munge"
	if ! alive "$(cat "$dir/munge/munged.pid" 2>/dev/null)"; then
		if [ ! -s "$dir/munge/munge.key" ]; then
			head -c 1024 /dev/urandom >"$dir/munge/munge.key"
			chmod 0400 "$dir/munge/munge.key"
		fi
		setsid munged --foreground --force --key-file="$dir/munge/munge.key" \
			--socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
			--log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" \
			</dev/null >"$dir/log/munged.out" 2>&1 &
		record munged $!
		for _ in $(seq 50); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done
	fi

	setsid slurmctld -D -i -f "$SLURM_CONF" </dev/null >"$dir/log/slurmctld.out" 2>&1 &
	local ctld=$!
	record slurmctld $ctld
	local i ok=0
	for i in $(seq 300); do
		if scontrol ping 2>/dev/null | grep -q UP; then ok=1; break; fi
		alive "$ctld" || break
		sleep 0.1
	done
	if [ "$ok" != 1 ]; then
		log "slurmctld did not come up; its log:"
		tail -n 20 "$dir/log/slurmctld.out" "$dir/log/slurmctld.log" >&2 2>/dev/null || true
		exit 1
	fi
	local names
	names=$(sinfo -h -N -o %N | sort -u)
	local n
	n=$(echo "$names" | wc -l)
	for name in $names; do
		setsid slurmd -D -N "$name" -f "$SLURM_CONF" </dev/null >"$dir/log/slurmd-$name.out" 2>&1 &
		record "slurmd:$name" $!
	done
	# Up to two minutes: every node idle.
	local idle=0 dead
	for i in $(seq 600); do
		idle=$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u | awk '$2 == "idle"' | wc -l)
		[ "$idle" -eq "$n" ] && break
		dead=$(awk '{ print $2 }' "$dir/pids" | while read -r p; do alive "$p" || echo "$p"; done)
		if [ -n "$dead" ]; then
			log "a daemon died (pid $dead); logs:"
			tail -n 5 "$dir"/log/*.out >&2 || true
			exit 1
		fi
		sleep 0.2
	done
	if [ "$idle" -ne "$n" ]; then
		log "only $idle of $n nodes idle after two minutes:"
		sinfo -N >&2 || true
		exit 1
	fi
	trap - EXIT
	log "Slurm $(sinfo -V | cut -d' ' -f2) up in $((SECONDS - t0)) s: $n nodes, slurmctld port $(awk -F= '/^SlurmctldPort=/ { print $2 }' "$SLURM_CONF")"
	echo "export SLURM_CONF=$SLURM_CONF"
}

case $cmd in
start)
	if [ -z "$conf" ]; then [ -n "$nodes" ] && [ -n "$portbase" ] || { log "start needs --nodes and --port-base (or --conf)"; usage; }; fi
	need_root_and_packages
	start_cluster
	;;
conf)
	[ -n "$nodes" ] && [ -n "$portbase" ] || { log "conf needs --nodes and --port-base"; usage; }
	write_conf
	echo "$dir/slurm.conf"
	;;
stop)
	stop_cluster
	;;
restart)
	if [ -z "$conf" ]; then [ -n "$nodes" ] && [ -n "$portbase" ] || { log "restart needs --nodes and --port-base (or --conf)"; usage; }; fi
	need_root_and_packages
	stop_cluster keep-munge
	start_cluster
	;;
free-base)
	free_base
	;;
status)
	if [ -f "$dir/pids" ]; then
		while read -r name pid; do
			if alive "$pid"; then echo "$name $pid running"; else echo "$name $pid dead"; fi
		done <"$dir/pids"
		sinfo -N 2>/dev/null || true
	else
		echo "no cluster started in $dir"
	fi
	;;
*) usage ;;
esac
