#!/usr/bin/env python3
"""bound.py - a fluid bound on the job energy of the EAMC reproduction.

Reads candidates.txt (the predictor's T and P per app, partition and
frequency for the eamc scenario) and, for each mix, compares with
min_runtime in a fluid model where every app's work is spread over its
candidates and each partition's load (node-seconds) is what min_runtime
puts there:

  min_runtime: each app at its least-T frequency on each partition, the
               same share of every app on p1, loads of p1 and p2 equal;
  min_energy:  the same at each partition's least-E frequency;
  floor:       the least energy of any split of every app's work over its
               candidates with each partition's load at most (1 + slack)
               times min_runtime's: a linear programme, solved here by its
               dual (max over node-time prices mu_p of
               sum_a B_a min_c (E_c + mu_p T_c) - sum_p mu_p cap_p).

No queueing is modelled: the floor assumes perfect packing and a
clairvoyant, static split, so no online policy does better than it at the
same load. Usage: python3 doc/eval/eamc-bound/bound.py (from the project
root or this directory); output: bound.txt's text.
"""
import os

here = os.path.dirname(os.path.abspath(__file__))
apps = {}
for line in open(os.path.join(here, "candidates.txt")):
    if line.startswith("#"):
        continue
    a, p, f, t, pw = line.split()
    apps.setdefault(a, []).append((int(p) - 1, int(f), float(t), float(t) * float(pw)))
names = list(apps)


def shares(mix):
    # work (node-seconds at p1 nominal) per app; STREAM is the one app
    # favouring p2
    if mix == "13":
        return {a: 1 / len(names) for a in names}
    m = float(mix) / 100
    return {a: (m if a == "STREAM" else (1 - m) / (len(names) - 1)) for a in names}


def balanced(B, key):
    c = [{a: min((x for x in apps[a] if x[0] == p), key=key) for a in names} for p in (0, 1)]
    L = [sum(B[a] * c[p][a][2] for a in names) for p in (0, 1)]
    s = L[1] / (L[0] + L[1])  # share on p1 that equalises the loads
    E = sum(B[a] * (s * c[0][a][3] + (1 - s) * c[1][a][3]) for a in names)
    return E, s * L[0]


def floor(B, cap):
    best = -1e300
    for i in range(0, 1201):
        for j in range(0, 1201, 4):
            mu = (i * 0.5, j * 0.5)  # W per node
            d = sum(B[a] * min(x[3] + mu[x[0]] * x[2] for x in apps[a]) for a in names)
            best = max(best, d - (mu[0] + mu[1]) * cap)
    return best


print("mix  min_energy (load)   floor at min_runtime's load +0% / +2% / +5%")
for mix in ("13", "33", "50"):
    B = shares(mix)
    e0, load = balanced(B, key=lambda x: (x[2], -x[1]))
    em, lm = balanced(B, key=lambda x: x[3])
    fl = [floor(B, load * (1 + s)) / e0 - 1 for s in (0, 0.02, 0.05)]
    print(f"{mix}%  {em / e0 - 1:+.1%} ({lm / load - 1:+.1%})    "
          + " / ".join(f"{x:+.1%}" for x in fl))
