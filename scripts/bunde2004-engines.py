#!/usr/bin/env python3
"""The engine toggle on the Bunde 2004 grid (issue 22, item 5): for every configuration
(mesh, pattern, load factor) in "procalloc sweep" results files that has every
allocator on both engines (examples/bunde2004-flit-*.yaml), the mean response time of
each allocator on the message and the flit engine, and how far the two rankings agree:
Spearman's rho (average ranks for ties) and Kendall's tau-b over all the allocators,
the pairs whose order the engine swaps, and the wall seconds of the replays.

Usage: scripts/bunde2004-engines.py [--window-csv DIR] [--per-job DIR] RESULTS.jsonl...
An item of a later file replaces an earlier file's item of the same configuration,
engine and allocator (a toggle run on some allocators laid over the grid); items are
grouped by mesh, pattern and load factor, whatever their other flags.
A --window-csv DIR option adds, per configuration, Spearman's rho between the message
engine on the sweep's window and "procalloc compare --loads 1 --csv" files
DIR/MESH-PATTERN-TO.csv of other windows (TO: the --to date), as scripts/bunde2004.sh
names them with the window appended.
A --per-job DIR option (the directory of "sweep --per-job") adds Figs. 9-10 on both
engines: over the 16x16 n-body items' jobs of 128 processors, Pearson's r of the run
time per message (replayed run time / messages sent: a job's run time is the time its
messages take, so this compares jobs of any length, where the paper kept jobs of
39,900-44,000 messages) with the average pairwise distance and with the average
message distance, with and without MC.
"""
import csv
import glob
import json
import math
import os
import sys


def ranks(v):
    ks = list(v)
    return {k: sum(v[j] < v[k] for j in ks) + (sum(v[j] == v[k] for j in ks) + 1) / 2 for k in ks}


def spearman(a, b):
    ks = list(a)
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra.values()) / len(ks), sum(rb.values()) / len(ks)
    num = sum((ra[k] - ma) * (rb[k] - mb) for k in ks)
    den = math.sqrt(sum((ra[k] - ma) ** 2 for k in ks) * sum((rb[k] - mb) ** 2 for k in ks))
    return num / den if den else float("nan")


def kendall(a, b):
    ks = list(a)
    c = d = ta = tb = 0
    for i in range(len(ks)):
        for j in range(i + 1, len(ks)):
            x = (a[ks[i]] > a[ks[j]]) - (a[ks[i]] < a[ks[j]])
            y = (b[ks[i]] > b[ks[j]]) - (b[ks[i]] < b[ks[j]])
            if x == 0 and y == 0:
                continue
            if x == 0:
                ta += 1
            elif y == 0:
                tb += 1
            elif x == y:
                c += 1
            else:
                d += 1
    den = math.sqrt((c + d + ta) * (c + d + tb))
    return (c - d) / den if den else float("nan")


def pearson(xs, ys):
    n = len(xs)
    if n < 3:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def figs910(files, pjdir):
    jobs = {}
    for f in files:
        for line in open(f):
            d = json.loads(line)
            p = d["params"]
            if d.get("status") != "ok" or p["machine"] != "mesh:16x16" or p["pattern"] != "n-body" or float(p["contract"]) != 1:
                continue
            pj = os.path.join(pjdir, d["key"] + ".csv")
            if not os.path.exists(pj):
                continue
            for r in csv.DictReader(open(pj)):
                if r["procs"] == "128" and float(r["messages"]) > 0:
                    jobs.setdefault(p.get("engine") or "message", []).append(
                        (p["alloc"], (float(r["end"]) - float(r["start"])) / float(r["messages"]), float(r["avg_pairwise_l1"]), float(r["message_distance"])))
    if not jobs:
        return
    print("\n| Figs. 9-10, 16x16 n-body, 128-processor jobs | engine | jobs | r(time per message, pairwise) | r(time per message, message distance) | mean time per message (ms) |")
    print("|---|---|---:|---:|---:|---:|")
    for e in ("message", "flit"):
        js = jobs.get(e, [])
        groups = [("all twelve", js), ("without MC", [j for j in js if j[0] != "mc"])]
        groups += [(f"`{a}`", [j for j in js if j[0] == a]) for a in sorted({j[0] for j in js})]
        for g, js in groups:
            if js:
                st = [j[1] for j in js]
                print(f"| {g} | {e} | {len(js)} | {pearson([j[2] for j in js], st):.3f} | {pearson([j[3] for j in js], st):.3f} | {1000 * sum(st) / len(st):.2f} |")


def main(files, windir):
    cfg, secs, order, window = {}, {}, [], {}
    for f in files:
        for line in open(f):
            d = json.loads(line)
            if d.get("status") != "ok":
                continue
            p = d["params"]
            k = (p["machine"].removeprefix("mesh:"), p["pattern"], float(p["contract"]))
            if k not in cfg:
                cfg[k] = {}
                order.append(k)
            fl = p.get("flags") or []
            window[k] = next((fl[i + 1] for i, x in enumerate(fl[:-1]) if x == "--to"), None)
            e = p.get("engine") or "message"
            cfg[k].setdefault(e, {})[p["alloc"]] = float(d["result"]["mean_response"])
            secs[k, e] = secs.get((k, e), 0) + float(d["seconds"])  # a replaced item's seconds stay counted
    rows = []
    for k in order:
        m, f = cfg[k].get("message", {}), cfg[k].get("flit", {})
        if not m or set(m) != set(f):
            print(f"{k[0]} {k[1]} LF {k[2]:g}: {len(f)} of {len(m)} allocators on the flit engine; skipped", file=sys.stderr)
            continue
        rm, rf = ranks(m), ranks(f)
        swaps = [(a, b) for a in m for b in m if m[a] < m[b] and f[a] > f[b]]
        rows.append((k, m, f, rm, rf, swaps))
        print(f"### {k[0]}, {k[1]}, load factor {k[2]:g}\n")
        print("| allocator | message (s) | rank | flit (s) | rank | flit / message |")
        print("|---|---:|---:|---:|---:|---:|")
        for a in sorted(m, key=lambda a: (rm[a], a)):
            print(f"| `{a}` | {m[a]:,.0f} | {rm[a]:g} | {f[a]:,.0f} | {rf[a]:g} | {f[a] / m[a]:.2f} |")
        extra = ""
        if windir:
            to = window[k]
            for w in sorted(glob.glob(os.path.join(windir, f"{k[0]}-{k[1]}-*.csv"))):
                wto = w[len(os.path.join(windir, f"{k[0]}-{k[1]}-")):-len(".csv")]
                if wto == to:
                    continue
                o = {r["alloc"]: float(r["mean_response"]) for r in csv.DictReader(open(w)) if float(r["load_factor"]) == k[2]}
                if set(o) == set(m):
                    extra += f"; message engine to {wto} against to {to}: Spearman {spearman(o, m):.3f}"
        print(f"\nSpearman {spearman(m, f):.3f}, Kendall {kendall(m, f):.3f}; pairs swapped by the flit engine: "
              + (", ".join(f"{a} < {b}" for a, b in swaps) or "none") + f" ({len(swaps)} of {len(m) * (len(m) - 1) // 2}){extra}; "
              + f"replay seconds (wall, summed over the items): message {secs[k, 'message']:,.0f}, flit {secs[k, 'flit']:,.0f}\n")
    if rows:
        print("| mesh | pattern | LF | Spearman | Kendall | pairs swapped | flit / message response (range) |")
        print("|---|---|---:|---:|---:|---:|---|")
        for k, m, f, rm, rf, swaps in rows:
            r = [f[a] / m[a] for a in m]
            print(f"| {k[0]} | {k[1]} | {k[2]:g} | {spearman(m, f):.3f} | {kendall(m, f):.3f} | {len(swaps)}/{len(m) * (len(m) - 1) // 2} | {min(r):.2f}-{max(r):.2f} |")


if __name__ == "__main__":
    a = sys.argv[1:]
    windir = pjdir = None
    while len(a) >= 2 and a[0] in ("--window-csv", "--per-job"):
        if a[0] == "--window-csv":
            windir = a[1]
        else:
            pjdir = a[1]
        a = a[2:]
    if not a:
        sys.exit("usage: scripts/bunde2004-engines.py [--window-csv DIR] [--per-job DIR] RESULTS.jsonl...")
    main(a, windir)
    if pjdir:
        figs910(a, pjdir)
