#!/usr/bin/env bash
# Rank correlation of the allocators between two "procalloc compare --csv" tables of
# the same allocators (e.g. --engine message and --engine flit): per load factor, the
# allocators are ranked by a metric in each table and the two rankings compared by
# Spearman's rho (average ranks for ties) and Kendall's tau-b.
#
# Usage: scripts/rankcorr.sh A.csv B.csv [metric]   (metric: a CSV column, default mean_response)
set -euo pipefail
a=$1 b=$2 metric=${3:-mean_response}
awk -F, -v metric="$metric" '
	FNR == 1 { f++; for (i = 1; i <= NF; i++) col[f, $i] = i
		if (!((f, metric) in col)) { printf "%s: no column %s\n", FILENAME, metric > "/dev/stderr"; exit 2 }
		next }
	{ lf = $col[f, "load_factor"]; al = $col[f, "alloc"]; v[f, lf, al] = $col[f, metric]
	  if (f == 1) { if (!(lf in n)) { loads[++nl] = lf }; names[lf, ++n[lf]] = al } }
	function rank(ff, lf, m,    i, j, less, eq) {
		for (i = 1; i <= m; i++) { less = 0; eq = 0
			for (j = 1; j <= m; j++) {
				if (v[ff, lf, names[lf, j]] + 0 < v[ff, lf, names[lf, i]] + 0) less++
				else if (v[ff, lf, names[lf, j]] + 0 == v[ff, lf, names[lf, i]] + 0) eq++ }
			r[ff, i] = less + (eq + 1) / 2 } }
	END {
		for (k = 1; k <= nl; k++) { lf = loads[k]; m = n[lf]
			for (i = 1; i <= m; i++) if (!((2, lf, names[lf, i]) in v)) { printf "%s: no %s at load %s\n", ARGV[2], names[lf, i], lf > "/dev/stderr"; exit 2 }
			rank(1, lf, m); rank(2, lf, m)
			sa = sb = saa = sbb = sab = 0
			for (i = 1; i <= m; i++) { x = r[1, i]; y = r[2, i]; sa += x; sb += y; saa += x*x; sbb += y*y; sab += x*y }
			rho = (m*sab - sa*sb) / sqrt((m*saa - sa*sa) * (m*sbb - sb*sb))
			c = d = ta = tb = 0
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) {
				x = v[1, lf, names[lf, i]] - v[1, lf, names[lf, j]]; y = v[2, lf, names[lf, i]] - v[2, lf, names[lf, j]]
				if (x == 0 && y == 0) continue
				if (x == 0) { ta++; continue }
				if (y == 0) { tb++; continue }
				if (x * y > 0) c++; else d++ }
			tau = (c - d) / sqrt((c + d + ta) * (c + d + tb))
			printf "load factor %s: %d allocators, Spearman rho = %.3f, Kendall tau-b = %.3f (%d concordant, %d discordant pairs)\n", lf, m, rho, tau, c, d
			for (i = 1; i <= m; i++) printf "  %-24s %12.1f rank %4.1f   %12.1f rank %4.1f\n", names[lf, i], v[1, lf, names[lf, i]], r[1, i], v[2, lf, names[lf, i]], r[2, i] } }' "$a" "$b"
