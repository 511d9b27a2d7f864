#!/usr/bin/env python3
"""The engine toggle on the Bunde 2004 grid (issue 22, item 5): for every configuration
(mesh, pattern, load factor) in "procalloc sweep" results files that has every
allocator on both engines (examples/bunde2004-flit-*.yaml), the mean response time of
each allocator on the message and the flit engine, and how far the two rankings agree:
Spearman's rho (average ranks for ties) and Kendall's tau-b over all the allocators,
the pairs whose order the engine swaps, and the wall seconds of the replays.

Usage: scripts/bunde2004-engines.py RESULTS.jsonl...
A --window-csv DIR option adds, per configuration, Spearman's rho between the message
engine on the sweep's window and "procalloc compare --loads 1 --csv" files
DIR/MESH-PATTERN-TO.csv of other windows (TO: the --to date), as scripts/bunde2004.sh
names them with the window appended.
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


def main(files, windir):
    cfg, secs, order = {}, {}, []
    for f in files:
        for line in open(f):
            d = json.loads(line)
            if d.get("status") != "ok":
                continue
            p = d["params"]
            k = (p["machine"].removeprefix("mesh:"), p["pattern"], float(p["contract"]), tuple(p.get("flags") or ()))
            if k not in cfg:
                cfg[k] = {}
                order.append(k)
            e = p.get("engine") or "message"
            cfg[k].setdefault(e, {})[p["alloc"]] = float(d["result"]["mean_response"])
            secs[k, e] = secs.get((k, e), 0) + float(d["seconds"])
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
            to = next((k[3][i + 1] for i, x in enumerate(k[3]) if x == "--to"), None)
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
    windir = None
    if len(a) >= 2 and a[0] == "--window-csv":
        windir, a = a[1], a[2:]
    if not a:
        sys.exit("usage: scripts/bunde2004-engines.py [--window-csv DIR] RESULTS.jsonl...")
    main(a, windir)
