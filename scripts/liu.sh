#!/usr/bin/env bash
# Liu, Hsu and Wu, "I/O Processor Allocation for Mesh Cluster Computers", §6's
# conclusions over several seeds (docs/io.md, "§6 over several seeds"): one
# `procalloc batch` per seed (RUNS runs each, run i of seed s drawn from (s, i), so
# every allocator sees the same task sets within a seed), then per allocator and
# number of communications the mean over the seeds of the per-seed mean completion
# with a 95 % Student-t half-width over the seeds (t(n-1) x sd / sqrt(n)), and for each
# pair A-B the same over the per-seed differences of the means (paired: A and B see
# the same tasks). Times in milliseconds.
#
# Usage: scripts/liu.sh [bin/procalloc] [outdir]
# Environment: SEEDS (default "1 2 3 4 5"), RUNS (1000), COMMS (0,2,8,16), WORKERS
# (batch --workers: 0, the default, is one per core; 1 on a shared machine), ALLOCS
# (default bt,sbt:64,dbt:1/4,d-dbt:1/4,mbs: §6's conclusions 1 and 3 and Fig. 6),
# PAIRS (space-separated A-B with A and B in ALLOCS, e.g. "sbt:64-bt"). Conclusion 2
# (docs/io.md) is
#   ALLOCS=ind-sbt:64,d-sbt:64,ind-dbt:1/4,d-dbt:1/4 COMMS=0,2 \
#   PAIRS="ind-sbt:64-d-sbt:64 d-dbt:1/4-ind-dbt:1/4" scripts/liu.sh bin/procalloc out/liu-ncbt
# Each seed's JSON is kept in outdir/seed-S.json; a seed whose file exists is not
# rerun (a configuration missing from some seed is left out of the summary), so a run
# with other ALLOCS or COMMS for seeds already there needs an outdir of its own, e.g.
#   WORKERS=1 SEEDS="2 3 4 5 6" COMMS=16 scripts/liu.sh bin/procalloc out/liu16
# About 40 CPU seconds per allocator and seed at the defaults on an idle machine (the
# 16-communication runs are half of it; 68 s were measured at a load of 20): 17 CPU
# minutes or more for the defaults.
set -euo pipefail
bin=${1:-bin/procalloc}
out=${2:-out/liu}
SEEDS=${SEEDS:-1 2 3 4 5}
RUNS=${RUNS:-1000}
COMMS=${COMMS:-0,2,8,16}
WORKERS=${WORKERS:-0}
ALLOCS=${ALLOCS:-bt,sbt:64,dbt:1/4,d-dbt:1/4,mbs}
PAIRS=${PAIRS:-sbt:64-bt dbt:1/4-bt d-dbt:1/4-bt d-dbt:1/4-sbt:64 d-dbt:1/4-dbt:1/4 d-dbt:1/4-mbs bt-mbs}
command -v jq >/dev/null || { echo "liu.sh: needs jq" >&2; exit 1; }
mkdir -p "$out"
for s in $SEEDS; do
	f="$out/seed-$s.json"
	[ -s "$f" ] && continue
	start=$(date +%s)
	"$bin" batch --machine mesh:16x16:io=left --alloc "$ALLOCS" --comm-per-io "$COMMS" \
		--runs "$RUNS" --seed "$s" --workers "$WORKERS" --json -o "$f.tmp"
	mv "$f.tmp" "$f"
	echo "seed $s: $(($(date +%s) - start)) s wall" >&2
done
# One line per seed, allocator and count: seed alloc comm mean_ms.
for s in $SEEDS; do
	jq -r --arg s "$s" '.results[] | [$s, .alloc, .comm_per_io, .mean_completion*1000] | @tsv' "$out/seed-$s.json"
done | awk -F'\t' -v pairs="$PAIRS" '
function tq(df) { # Student t, 0.975 quantile
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", t, " ")
	return df <= 30 ? t[df] : 1.96
}
function summary(n, sum, sq,   m, sd) {
	m = sum / n
	sd = n > 1 ? sqrt(max0((sq - n * m * m) / (n - 1))) : 0
	return sprintf("%8.2f +- %5.2f", m, n > 1 ? tq(n - 1) * sd / sqrt(n) : 0)
}
function max0(x) { return x > 0 ? x : 0 }
{
	v[$2, $3, $1] = $4
	cnt[$2, $3]++
	if (!(($2) in seenA)) { seenA[$2] = 1; al[++na] = $2 }
	if (!(($3) in seenC)) { seenC[$3] = 1; co[++nc] = $3 }
	if (!(($1) in seenS)) { seenS[$1] = 1; se[++ns] = $1 }
}
END {
	printf "mean completion (ms) over %d seeds, 95%% half-width over the seeds\n%-14s", ns, "alloc"
	for (j = 1; j <= nc; j++) printf "  %16s", co[j] " comm"
	printf "\n"
	for (i = 1; i <= na; i++) {
		printf "%-14s", al[i]
		for (j = 1; j <= nc; j++) {
			if (cnt[al[i], co[j]] < ns) { printf "  %16s", "-"; continue }
			sum = sq = 0
			for (k = 1; k <= ns; k++) { x = v[al[i], co[j], se[k]]; sum += x; sq += x * x }
			printf "  %16s", summary(ns, sum, sq)
		}
		printf "\n"
	}
	np = split(pairs, P, " ")
	if (np == 0) exit
	printf "\npaired differences A - B (ms; negative: A faster), per-seed signs in brackets\n%-26s", "A - B"
	for (j = 1; j <= nc; j++) printf "  %16s %-*s", co[j] " comm", ns + 2, ""
	printf "\n"
	for (p = 1; p <= np; p++) {
		# split at the "-" that leaves two allocators seen in the data
		a = b = ""
		for (c = 1; c <= length(P[p]); c++)
			if (substr(P[p], c, 1) == "-" && (substr(P[p], 1, c - 1) in seenA) && (substr(P[p], c + 1) in seenA)) {
				a = substr(P[p], 1, c - 1); b = substr(P[p], c + 1)
			}
		if (a == "") { printf "pair %s: allocators not in the data\n", P[p] > "/dev/stderr"; continue }
		printf "%-26s", P[p]
		for (j = 1; j <= nc; j++) {
			if (cnt[a, co[j]] < ns || cnt[b, co[j]] < ns) { printf "  %16s %-*s", "-", ns + 2, ""; continue }
			sum = sq = 0; signs = ""
			for (k = 1; k <= ns; k++) {
				d = v[a, co[j], se[k]] - v[b, co[j], se[k]]
				sum += d; sq += d * d; signs = signs (d < 0 ? "-" : d > 0 ? "+" : "0")
			}
			printf "  %16s [%s]", summary(ns, sum, sq), signs
		}
		printf "\n"
	}
}'
