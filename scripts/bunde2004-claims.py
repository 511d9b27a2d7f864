#!/usr/bin/env python3
"""Judges the claims of Bunde, Leung and Mache, "Communication patterns and allocation
strategies" (2004), §4 and §5, against one run of scripts/bunde2004.sh.

Usage: scripts/bunde2004-claims.py OUTDIR   (OUTDIR: the script's output directory)
       scripts/bunde2004-claims.py --sweep ENGINE RESULTS.jsonl... [--per-job DIR]

Reads OUTDIR/MESH-PATTERN.csv (procalloc compare --loads 1,0.8,0.6,0.4,0.2 --csv) and,
for Figs. 9-10, OUTDIR/perjob-ALLOC.csv (procalloc sim --per-job). Configurations that
are missing are skipped. With --sweep it reads instead the results files of
"procalloc sweep" (examples/bunde2004-flit-*.yaml) and takes the items of one engine
(message or flit), and for Figs. 9-10 the per-job files that "sweep --per-job DIR"
wrote for the 16x16 n-body items of that engine. An item of a later file replaces an
earlier file's item of the same mesh, pattern, load factor and allocator, so that a
toggle run on some allocators only can be laid over the grid's other allocators. The load factors judged are those
present in every configuration (all five for the script's grid); a claim about load
factors that are absent, or about a change across loads when there is one load
factor, is listed as not judged. Every claim is reduced to checks on mean response times (or,
for §4.3, on per-job rows and contiguity), and the verdict follows from the share of
checks that hold: yes from 90 %, partly from 60 %, no below. Orderings are compared on
the nine allocators the paper's figures show (First Fit omitted), by the average rank
over the five load factors, counting the paper's strict pairs that hold (a tie in
procalloc's ranking counts half). docs/comm-bunde2004.md discusses the results.
"""
import csv
import glob
import json
import math
import os
import sys

LOADS = ["1", "0.8", "0.6", "0.4", "0.2"]
CENTER = ["mc", "mc1x1", "genalg"]
NINE = ["FL:H", "BF:H", "FL:X", "BF:X", "FL:S", "BF:S"] + CENTER
CURVES = [p + ":" + c for c in "HXS" for p in ("FL", "FF", "BF")]


def lf(s):
    return [float(x) for x in LOADS].index(float(s))


def complete(raw):
    """Keeps the configurations in which every allocator has every load factor of
    LOADS, which becomes the load factors present in all of them (descending)."""
    global LOADS
    if raw:
        common = set.intersection(*({l for a in t.values() for l in a} for t in raw.values()))
        common = {l for l in common if all(l in a for t in raw.values() for a in t.values())}
        LOADS = [f"{l:g}" for l in sorted(common, reverse=True)]
    return {k: {a: [v[float(l)] for l in LOADS] for a, v in t.items()} for k, t in raw.items() if LOADS}


def load(out):
    raw, extra = {}, {}
    for mesh in ("16x22", "16x16"):
        for pat in ("all-to-all", "n-body", "random"):
            f = os.path.join(out, f"{mesh}-{pat}.csv")
            if not os.path.exists(f):
                continue
            t = {}
            for r in csv.DictReader(open(f)):
                t.setdefault(r["alloc"], {})[float(r["load_factor"])] = float(r["mean_response"])
                if float(r["load_factor"]) == 1:
                    extra[(mesh, pat, r["alloc"])] = r
            raw[(mesh, pat)] = t
    return complete(raw), extra


def load_sweep(files, engine):
    """The items of one engine ("message" or "flit") in sweep results files, and the
    keys of the 16x16 n-body items (for their per-job files)."""
    raw, extra, keys = {}, {}, {}
    for f in files:
        for line in open(f):
            d = json.loads(line)
            p = d["params"]
            if d.get("status") != "ok" or (p.get("engine") or "message") != engine:
                continue
            mesh, r = p["machine"].removeprefix("mesh:"), d["result"]
            raw.setdefault((mesh, p["pattern"]), {}).setdefault(p["alloc"], {})[float(p["contract"])] = float(r["mean_response"])
            if float(p["contract"]) == 1:
                extra[(mesh, p["pattern"], p["alloc"])] = {k: str(r.get(k, "")) for k in ("pct_contiguous", "mean_components")}
                if (mesh, p["pattern"]) == ("16x16", "n-body"):
                    keys[p["alloc"]] = d["key"]
    return complete(raw), extra, keys


def name(mesh, s):
    """The paper's allocator name (BF:H, ...) as a procalloc allocator on mesh."""
    if s in CENTER:
        return s
    p, c = s.split(":")
    c = {"H": "hilbert", "X": "hindex", "S": "snake"}[c]
    if mesh == "16x22" and c != "snake":
        c += "-trunc"
    return {"FL": "freelist", "FF": "ff", "BF": "bf"}[p] + ":" + c


def verdict(held, total):
    f = held / total
    return "yes" if f >= 0.9 else "partly" if f >= 0.6 else "no"


def spearman(a, b):
    ks = list(a)

    def rk(d):
        return {k: sum(d[j] < d[k] for j in ks) + (sum(d[j] == d[k] for j in ks) + 1) / 2 for k in ks}

    ra, rb = rk(a), rk(b)
    ma, mb = sum(ra.values()) / len(ks), sum(rb.values()) / len(ks)
    num = sum((ra[k] - ma) * (rb[k] - mb) for k in ks)
    return num / math.sqrt(sum((ra[k] - ma) ** 2 for k in ks) * sum((rb[k] - mb) ** 2 for k in ks))


def pearson(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def main(out):
    data, extra, keys = out
    NL, rows = len(LOADS), []
    LR = range(NL)

    def at(*lfs):
        """The indices of the load factors lfs that were run."""
        return [i for i, x in enumerate(LOADS) for f in lfs if float(x) == f]

    def skip(cid, text, why):
        rows.append((cid, text, 0, 0, "not judged", why))

    def claim(cid, text, held, total, detail):
        if total == 0:  # e.g. 16x22 against 16x16 with one mesh run
            rows.append((cid, text, 0, 0, "not judged", "nothing to compare in the configurations run"))
        else:
            rows.append((cid, text, held, total, verdict(held, total), detail))

    def rt(cfg, s, i):
        return data[cfg][name(cfg[0], s)][i]

    def ranks(cfg, i, names=NINE):
        v = {s: rt(cfg, s, i) for s in names}
        return {s: sum(v[t] < v[s] for t in names) + (sum(v[t] == v[s] for t in names) + 1) / 2 for s in names}

    def avgrank(cfg, names=NINE):
        r = [ranks(cfg, i, names) for i in LR]
        return {s: sum(x[s] for x in r) / NL for s in names}

    def best(cfg, i, names=NINE):
        return min(names, key=lambda s: rt(cfg, s, i))

    def worst(cfg, i, names=NINE):
        return max(names, key=lambda s: rt(cfg, s, i))

    def order(cid, text, cfg, paper):
        ar = avgrank(cfg, list(paper))
        held = tot = 0
        for i in paper:
            for j in paper:
                if paper[i] < paper[j]:
                    tot += 1
                    held += 1 if ar[i] < ar[j] else 0.5 if ar[i] == ar[j] else 0
        ks = sorted(ar, key=lambda k: ar[k])
        seq = " > ".join(f"{k} {ar[k]:.1f}" for k in ks)
        per = ", ".join(f"{spearman(paper, ranks(cfg, i, list(paper))):.2f}" for i in LR)
        claim(cid, text, held, tot, f"{seq}; Spearman {spearman(paper, ar):.2f} (by load: {per})")

    def have(*cfgs):
        return all(c in data for c in cfgs)

    A, NB, R = "all-to-all", "n-body", "random"
    if data:
        cells = [(c, cv, i) for c in data for cv in "HXS" for i in LR]
        n = sum(min(rt(c, "FL:" + cv, i), rt(c, "BF:" + cv, i)) <= rt(c, "FF:" + cv, i)
                <= max(rt(c, "FL:" + cv, i), rt(c, "BF:" + cv, i)) for c, cv, i in cells)
        claim("4", "First Fit generally between free list and Best Fit", n, len(cells),
              f"FF between FL and BF in {n}/{len(cells)} (configuration, curve, load)")
    c = ("16x22", A)
    if have(c):
        hi, lo = at(0.4, 0.2), at(1, 0.8)
        if hi:
            claim("4.1a", "MC best at high load", sum(best(c, i) == "mc" for i in hi), len(hi),
                  "best of 9 at LF " + ", ".join(LOADS[i] for i in hi) + ": " + ", ".join(best(c, i) for i in hi))
        else:
            skip("4.1a", "MC best at high load", "load factors 0.4 and 0.2 not run")
        if lo:
            claim("4.1a", "Hilbert BF or S-curve BF best at lower load", sum(best(c, i) in ("BF:H", "BF:S") for i in lo), len(lo),
                  "best of 9 at LF " + ", ".join(LOADS[i] for i in lo) + ": " + ", ".join(best(c, i) for i in lo))
        else:
            skip("4.1a", "Hilbert BF or S-curve BF best at lower load", "load factors 1 and 0.8 not run")
        claim("4.1a", "H-index free list consistently worst", sum(worst(c, i) == "FL:X" for i in LR), NL,
              "worst of 9 by load: " + ", ".join(worst(c, i) for i in LR))
        n = sum(rt(c, p + ":" + cv, i) < rt(c, "FL:" + cv, i) for cv in "HXS" for p in ("FF", "BF") for i in LR)
        claim("4.1a", "Paging better with packing (FF, BF) than with the free list", n, 6 * NL, f"{n}/{6 * NL} (curve, FF|BF, load)")
        n = sum(rt(c, a, i) < rt(c, b, i) for a, b in (("mc", "genalg"), ("genalg", "mc1x1"), ("mc", "mc1x1")) for i in LR)
        claim("4.1a", "MC best, then Gen-Alg, then MC1x1", n, 3 * NL,
              "best of the three by load: " + ", ".join(best(c, i, CENTER) for i in LR))
    c = ("16x22", NB)
    if have(c):
        order("4.1b", "16x22 n-body: S-curve BF > Hilbert FL > H-index FL > S-curve FL > Hilbert BF > H-index BF > MC > MC1x1 > Gen-Alg",
              c, {"BF:S": 1, "FL:H": 2, "FL:X": 3, "FL:S": 4, "BF:H": 5, "BF:X": 6, "mc": 7, "mc1x1": 8, "genalg": 9})
        n = sum(rt(c, "FL:" + cv, i) < rt(c, "BF:" + cv, i) for cv in "HX" for i in LR)
        claim("4.1b", "Hilbert and H-index: free list beats Best Fit", n, 2 * NL, f"{n}/{2 * NL} (curve, load)")
        n = sum(rt(c, "FF:" + cv, i) < rt(c, p + ":" + cv, i) for cv in "HX" for p in ("FL", "BF") for i in LR)
        claim("4.1b", "First Fit faster than free list and Best Fit", n, 4 * NL, f"{n}/{4 * NL} (Hilbert|H-index, FL|BF, load)")
    c = ("16x22", R)
    if have(c):
        claim("4.1c", "Hilbert free list consistently best", sum(best(c, i) == "FL:H" for i in LR), NL,
              "best of 9 by load: " + ", ".join(best(c, i) for i in LR) + "; Hilbert FL's rank: "
              + ", ".join(f"{ranks(c, i)['FL:H']:g}" for i in LR))
        claim("4.1c", "H-indexing consistently worst", sum(worst(c, i) in ("FL:X", "BF:X") for i in LR), NL,
              "worst of 9 by load: " + ", ".join(worst(c, i) for i in LR))
        n = sum(rt(c, "FL:X", i) < rt(c, "BF:X", i) for i in LR)
        claim("4.1c", "H-indexing: free list generally better than Best Fit", n, NL, f"{n}/{NL} loads")
        n = sum(rt(c, "FF:" + cv, i) < rt(c, p + ":" + cv, i) for cv in "HX" for p in ("FL", "BF") for i in LR)
        claim("4.1c", "First Fit faster than free list and Best Fit", n, 4 * NL, f"{n}/{4 * NL} (Hilbert|H-index, FL|BF, load)")
        spread = [max(rt(c, s, i) for s in CENTER) / min(rt(c, s, i) for s in CENTER) - 1 for i in LR]
        orders = [tuple(sorted(CENTER, key=lambda s: rt(c, s, i))) for i in LR]
        n = sum(x <= 0.15 for x in spread) + NL * (len(set(orders)) > 1)
        if NL == 1:
            skip("4.1c", "MC, MC1x1, Gen-Alg similar, order depending on load", "one load factor: a change with load cannot be seen")
        else:
            claim("4.1c", "MC, MC1x1, Gen-Alg similar, order depending on load", n, 2 * NL,
                  "spread (max/min - 1) by load: " + ", ".join(f"{x:.0%}" for x in spread)
                  + f"; {len(set(orders))} different orders of the three (within 15 % at a load and a changing order count)")
    c = ("16x16", A)
    if have(c):
        order("4.2a", "16x16 all-to-all: MC = Hilbert BF > Gen-Alg = MC1x1 = H-index BF > Hilbert FL > S-curve BF > H-index FL = S-curve FL",
              c, {"mc": 1.5, "BF:H": 1.5, "genalg": 4, "mc1x1": 4, "BF:X": 4, "FL:H": 6, "BF:S": 7, "FL:X": 8.5, "FL:S": 8.5})
        n = sum(rt(c, "mc", i) < rt(c, "mc1x1", i) for i in LR)
        claim("4.2a", "16x16 all-to-all: MC beats MC1x1 (shape)", n, NL, f"{n}/{NL} loads")
        n = sum(ranks(c, i)["BF:H"] <= 2 for i in LR) + sum(ranks(c, i)[s] >= 7 for s in ("BF:S", "FL:S") for i in LR)
        claim("4.2a", "Hilbert BF tied for best; S-curve always poor", n, 3 * NL,
              "Hilbert BF's rank of 9 by load: " + ", ".join(f"{ranks(c, i)['BF:H']:g}" for i in LR)
              + "; S-curve BF, FL: " + ", ".join(f"{ranks(c, i)['BF:S']:g}/{ranks(c, i)['FL:S']:g}" for i in LR))
    c = ("16x16", NB)
    if have(c):
        order("4.2b", "16x16 n-body: Hilbert BF > H-index BF > Hilbert FL > H-index FL > S-curve BF > S-curve FL > MC > MC1x1 > Gen-Alg",
              c, {"BF:H": 1, "BF:X": 2, "FL:H": 3, "FL:X": 4, "BF:S": 5, "FL:S": 6, "mc": 7, "mc1x1": 8, "genalg": 9})
        six = ["BF:H", "BF:X", "FL:H", "FL:X", "BF:S", "FL:S"]
        n = sum(sorted(six, key=lambda s: rt(c, s, i)) == six for i in LR)
        claim("4.2b", "16x16 n-body: the six curve allocators in the paper's order", n, NL,
              "loads with exactly the paper's curve order: " + ", ".join(LOADS[i] for i in LR if sorted(six, key=lambda s: rt(c, s, i)) == six)
              + "; H-index FL against S-curve BF by load: " + ", ".join(f"{rt(c, 'FL:X', i):,.0f}/{rt(c, 'BF:S', i):,.0f}" for i in LR))
    c = ("16x16", R)
    if have(c):
        order("4.2c", "16x16 random: Hilbert BF > MC = H-index BF > MC1x1 = Gen-Alg = Hilbert FL > H-index FL > S-curve BF > S-curve FL",
              c, {"BF:H": 1, "mc": 2.5, "BF:X": 2.5, "mc1x1": 5, "genalg": 5, "FL:H": 5, "FL:X": 7, "BF:S": 8, "FL:S": 9})
    ca, cr = ("16x16", A), ("16x16", R)
    if have(ca, cr):
        a, r = avgrank(ca), avgrank(cr)
        checks = [a["BF:H"] <= 3, r["BF:H"] <= 3, a["BF:S"] >= 7, a["FL:S"] >= 7, r["BF:S"] >= 7, r["FL:S"] >= 7,
                  a["mc"] < r["mc"], a["BF:X"] < r["BF:X"], a["FL:X"] < r["FL:X"]]
        claim("4.2c", "random against all-to-all: Hilbert BF good and S-curve poor in both; MC better, H-indexing worse, for all-to-all",
              sum(checks), len(checks),
              "average rank of 9, all-to-all/random: " + ", ".join(f"{s} {a[s]:.1f}/{r[s]:.1f}" for s in ("BF:H", "BF:S", "FL:S", "mc", "BF:X", "FL:X")))
    # §4.3, Figs. 9-10
    jobs = []
    for al, f in keys:
        for r in csv.DictReader(open(f)):
            if r["procs"] == "128" and 39900 <= int(r["messages"]) <= 44000:
                jobs.append((al, int(r["end"]) - int(r["start"]), float(r["avg_pairwise_l1"]), float(r["message_distance"])))
    if len(jobs) >= 3:
        def corr(js, k):
            return pearson([j[k] for j in js], [j[1] for j in js])
        nomc = [j for j in jobs if j[0] != "mc"]
        claim("4.3", "Fig. 9: no clear relation of run time with average pairwise distance",
              (abs(corr(jobs, 2)) < 0.3) + (abs(corr(nomc, 2)) < 0.3), 2,
              f"Pearson r = {corr(jobs, 2):.3f} over {len(jobs)} jobs, {corr(nomc, 2):.3f} over {len(nomc)} without MC (|r| < 0.3 counts)")
        claim("4.3", "Fig. 10: tight relation of run time with average message distance",
              (corr(jobs, 3) >= 0.8) + (corr(nomc, 3) >= 0.8), 2,
              f"Pearson r = {corr(jobs, 3):.3f} over {len(jobs)} jobs, {corr(nomc, 3):.3f} without MC (r >= 0.8 counts)")
    c = ("16x16", A)
    if have(c) and (c[0], c[1], "mc") in extra and extra[(c[0], c[1], "mc")].get("pct_contiguous"):
        paper = {"BF:S": 81.5, "BF:H": 81.3, "FF:H": 80.7, "BF:X": 79.8, "FF:S": 79.3, "FF:X": 79.1, "mc": 68.5, "mc1x1": 67.5,
                 "FL:S": 67.5, "FL:X": 65.8, "genalg": 65.6, "FL:H": 64.6}
        pct = {s: float(extra[(c[0], c[1], name(c[0], s))]["pct_contiguous"]) for s in paper}
        comp = {s: float(extra[(c[0], c[1], name(c[0], s))]["mean_components"]) for s in paper}
        top = sorted(paper, key=lambda s: -pct[s])[:6]
        packing = [s for s in paper if s[:2] in ("FF", "BF")]
        n = sum(s in packing for s in top)
        claim("4.3", "Fig. 11 (16x16 all-to-all, load 1): curves with packing most often contiguous", n, 6,
              f"{n}/6 of the six most contiguous are FF/BF curves; Spearman with the paper's percentages "
              f"{spearman({s: -paper[s] for s in paper}, {s: -pct[s] for s in paper}):.2f}; contiguous "
              + ", ".join(f"{s} {pct[s]:.1f}" for s in sorted(paper, key=lambda s: -pct[s])))
        curves = [s for s in paper if s not in CENTER]
        n = sum(comp[a] < comp[b] for a in curves for b in CENTER)
        claim("4.3", "Fig. 11: curve-based strategies allocate into fewer components than the others", n, len(curves) * 3,
              f"{n}/{len(curves) * 3} (curve, center-based) pairs; mean components "
              + ", ".join(f"{s} {comp[s]:.2f}" for s in sorted(paper, key=lambda s: comp[s])))
    # §5
    checks, det = [], []
    for m in ("16x22", "16x16"):
        if have((m, A), (m, NB)):
            a, n = avgrank((m, A)), avgrank((m, NB))
            checks += [a["mc"] <= 3, n["mc"] >= 7]
            det.append(f"{m}: {a['mc']:.1f}/{n['mc']:.1f}")
    if checks:
        claim("5", "MC among the best for all-to-all, poor for n-body", sum(checks), len(checks),
              "MC's average rank of 9, all-to-all/n-body: " + "; ".join(det))
    checks, det = [], []
    for m in ("16x22", "16x16"):
        if have((m, A), (m, NB)):
            a, n = avgrank((m, A)), avgrank((m, NB))
            for s in ("BF:S", "FL:S", "BF:X", "FL:X"):
                checks += [a[s] >= 6, n[s] < a[s]]
                det.append(f"{m} {s} {a[s]:.1f}/{n[s]:.1f}")
    if checks:
        claim("5", "S-curve and H-indexing the reverse of MC: among the worst for all-to-all, better for n-body", sum(checks), len(checks),
              "average rank of 9, all-to-all/n-body (worst = rank 6 or below, better = a lower rank): " + "; ".join(det))
    cfgs = [x for x in (("16x16", A), ("16x16", NB), ("16x16", R), ("16x22", A)) if have(x)]
    if cfgs:
        n = sum(avgrank(x)["BF:H"] <= 3 for x in cfgs)
        claim("5", "Hilbert BF closest to overall best: among the best (top 3 of 9) for all patterns on 16x16 and all-to-all on 16x22", n, len(cfgs),
              "Hilbert BF's average rank of 9: " + ", ".join(f"{x[0]} {x[1]} {avgrank(x)['BF:H']:.1f}" for x in cfgs))
    cfgs = [x for x in (("16x22", A), ("16x22", NB), ("16x22", R)) if have(x)]
    if cfgs:
        imp = {cv: sum(rt(x, p + ":" + cv, i) < rt(x, "FL:" + cv, i) for x in cfgs for p in ("FF", "BF") for i in LR) for cv in "SHX"}
        tot = 2 * NL * len(cfgs)
        n = (imp["S"] == tot) + (imp["H"] < tot) + (imp["X"] < tot)
        claim("5", "16x22: only the S-curve is always improved by the packing heuristics", n, 3,
              f"(pattern, FF|BF, load) improved over the free list: S-curve {imp['S']}/{tot}, Hilbert {imp['H']}/{tot}, H-index {imp['X']}/{tot}")
        pats = [p for p in (A, NB, R) if have(("16x22", p), ("16x16", p))]
        n = sum(avgrank(("16x22", p))[s] < avgrank(("16x16", p))[s] for p in pats for s in ("BF:S", "FL:S"))
        claim("5", "the S-curve does relatively well on 16x22", n, 2 * len(pats),
              "S-curve BF, FL average rank of 9, 16x22 against 16x16: " + "; ".join(
                  f"{p} {avgrank(('16x22', p))['BF:S']:.1f},{avgrank(('16x22', p))['FL:S']:.1f} / {avgrank(('16x16', p))['BF:S']:.1f},{avgrank(('16x16', p))['FL:S']:.1f}" for p in pats))
        n = sum(avgrank(x)["FL:H"] <= 3 for x in cfgs)
        claim("5", "Hilbert free list performs very well (16x22)", n, len(cfgs),
              "Hilbert FL's average rank of 9 on 16x22 (top 3 counts): " + ", ".join(f"{x[1]} {avgrank(x)['FL:H']:.1f}" for x in cfgs))
    if data:
        cd = fw = bb = cells = 0
        for c in data:
            for i in LR:
                L = {(p, cv): math.log(rt(c, p + ":" + cv, i)) for p in ("FL", "FF", "BF") for cv in "HXS"}
                curv = [sum(L[p, cv] for p in ("FL", "FF", "BF")) / 3 for cv in "HXS"]
                pack = [sum(L[p, cv] for cv in "HXS") / 3 for p in ("FL", "FF", "BF")]
                cells += 1
                cd += max(curv) - min(curv) > max(pack) - min(pack)
                for cv in "HXS":
                    v = {p: L[p, cv] for p in ("FL", "FF", "BF")}
                    fw += max(v, key=v.get) == "FL"
                    bb += min(v, key=v.get) == "BF"
        claim("5", "the choice of curve dominates Paging's performance", cd, cells,
              f"{cd}/{cells} (configuration, load): the spread over the three curves exceeds that over FL/FF/BF (geometric means)")
        claim("5", "generally the free list worst and Best Fit best for a curve", fw + bb, 6 * cells,
              f"free list the slowest of FL/FF/BF in {fw}/{3 * cells}, Best Fit the fastest in {bb}/{3 * cells} (configuration, curve, load)")
        per = [f"{c[0]} {c[1]} {sum(rt(c, 'mc', i) < rt(c, 'mc1x1', i) for i in LR)}/{NL}" for c in data]
        n = sum(rt(c, "mc", i) < rt(c, "mc1x1", i) for c in data for i in LR)
        claim("5", "MC consistently outperforms MC1x1", n, NL * len(data), "loads where MC is faster: " + ", ".join(per))
    print("| § | claim | checks held | verdict | measured |")
    print("|---|---|---:|---|---|")
    for cid, text, held, total, v, detail in rows:
        print(f"| {cid} | {text} | {f'{held:g}/{total}' if total else '-'} | {v} | {detail} |")
    if jobs:
        print()
        print("| Figs. 9-10 jobs | n | r with pairwise distance | r with message distance | mean run time (s) | mean pairwise | mean message distance |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        groups = [("all twelve", jobs), ("without MC", [j for j in jobs if j[0] != "mc"]),
                  ("curves only (no MC, MC1x1, Gen-Alg)", [j for j in jobs if j[0] not in CENTER])]
        for al in sorted({j[0] for j in jobs}, key=lambda a: (a in CENTER, a)):
            groups.append((f"`{al}`", [j for j in jobs if j[0] == al]))
        for g, js in groups:
            rt_ = [j[1] for j in js]
            print(f"| {g} | {len(js)} | {pearson([j[2] for j in js], rt_):.3f} | {pearson([j[3] for j in js], rt_):.3f} | "
                  f"{sum(rt_) / len(js):,.0f} | {sum(j[2] for j in js) / len(js):.2f} | {sum(j[3] for j in js) / len(js):.3f} |")


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 1 and not a[0].startswith("-"):
        data, extra = load(a[0])
        pj = sorted(glob.glob(os.path.join(a[0], "perjob-*.csv")))
        main((data, extra, [(os.path.basename(f)[len("perjob-"):-len(".csv")], f) for f in pj]))
    elif len(a) >= 3 and a[0] == "--sweep" and a[1] in ("message", "flit"):
        pjdir = None
        if len(a) >= 5 and a[-2] == "--per-job":
            pjdir, a = a[-1], a[:-2]
        data, extra, keys = load_sweep(a[2:], a[1])
        pj = [(al, os.path.join(pjdir, k + ".csv")) for al, k in sorted(keys.items())] if pjdir else []
        main((data, extra, [(al, f) for al, f in pj if os.path.exists(f)]))
    else:
        sys.exit("usage: scripts/bunde2004-claims.py OUTDIR | --sweep message|flit RESULTS.jsonl... [--per-job DIR]")
