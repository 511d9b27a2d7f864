#!/usr/bin/env bash
# `make test-mpi`: runs procalloc's hosts files and rankfiles through the real MPI
# launchers, Open MPI's mpirun and MPICH's hydra mpiexec (Debian's openmpi-bin and
# mpich, installed when missing and we are root), and checks that every rank lands on
# the host procalloc's ordering gives it, and that a rankfile's ranks are not pinned
# to one core (cmd/procalloc/mpi_test.go). The hosts are names only: the launchers'
# ssh is a stand-in that runs each daemon on this machine.
# Without root or the packages it says so and exits 0, as make test-slurm does.
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
have() { command -v "$1" >/dev/null 2>&1; }
missing=()
have mpirun.openmpi || missing+=(openmpi-bin)
have mpiexec.hydra || missing+=(mpich)
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ] || ! have apt-get; then
		echo "mpi: skipped (no ${missing[*]}, and no root/apt-get to install Debian's packages)"
		exit 0
	fi
	echo "mpi: installing Debian's ${missing[*]} (apt-get install)" >&2
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/procalloc-mpi-install.log 2>&1; then
		echo "mpi: skipped (apt-get install ${missing[*]} failed; see /tmp/procalloc-mpi-install.log)"
		exit 0
	fi
fi
# lstopo (Debian's hwloc-nox) writes the two-socket topology of the binding test, which
# skips that part without it.
if ! have lstopo-no-graphics && [ "$(id -u)" -eq 0 ] && have apt-get; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends hwloc-nox >>/tmp/procalloc-mpi-install.log 2>&1 || true
fi
t0=$SECONDS
# Not -short: the launcher tests skip under -short.
status=0
"$go" test -count=1 -timeout 30m -run 'MPILaunchers|OpenMPIHostNames|OpenMPIRankfile' -v ./cmd/procalloc >/tmp/procalloc-mpi-test.log 2>&1 || status=$?
grep -E '^(--- |    |ok|FAIL|PASS)' /tmp/procalloc-mpi-test.log || true
ok=$(grep -c 'ranks on the hosts expected' /tmp/procalloc-mpi-test.log || true)
bad=$(grep -c -E '(rank [0-9]+ on .*, procalloc|failed or lost ranks|ranks started, want|took it as written|may run on CPUs|unlike Open MPI)' /tmp/procalloc-mpi-test.log || true)
echo "mpi: $ok launches with every rank on the host expected, $bad checks failed; $((SECONDS - t0)) s"
exit "$status"
