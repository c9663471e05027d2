#!/usr/bin/env python3
"""Writes baseline.csv: synthetic baseline runs for joule-advisor's worked
example (docs/advisor.md), until the emulated card records real ones.

Times and energies follow joule-advisor's model (model.hpp) with the
parameters below, times a deterministic +-3% noise; per-core thread counts
come from the same compact / scatter rules as runtime/placement.
The plan is Ramapantulu's (thesis §5.2): compact on one core (1..4
threads), scatter with one thread per core (1..60 cores), a few mixed
points; the host at 4 frequencies.
"""
import math
import random

CARD = dict(cores=60, ctx=4, freqs=[1.053], W=2e11, a=0.35, m=0.6, u=0.7,
            idle=90.0, core=1.2, thread=0.15, gamma=2.0)
HOST = dict(cores=16, ctx=2, freqs=[1.2, 1.8, 2.4, 2.7], W=6e10, a=0.6, m=0.4, u=0.5,
            idle=60.0, core=6.0, thread=1.5, gamma=2.5)


def shape(d, t, placement):
    """(active cores, busiest-core threads, contiguity) on one package."""
    if placement == "compact":
        core_of = [i // d["ctx"] for i in range(t)]
    else:
        core_of = [i % d["cores"] for i in range(t)]
    per = {}
    for c in core_of:
        per[c] = per.get(c, 0) + 1
    same = sum(core_of[i] == core_of[i + 1] for i in range(t - 1))
    return len(per), max(per.values()), same / (t - 1) if t > 1 else 0.0


def predict(d, t, placement, f):
    c, tau, _ = shape(d, t, placement)
    rel = f / max(d["freqs"])
    inter = d["m"] * rel / (1 - d["u"] * c / d["cores"])
    time = d["W"] / t * (1 + max(d["a"] * (tau - 1), inter)) / (f * 1e9)
    power = d["idle"] + (d["core"] * c + d["thread"] * t) * rel ** d["gamma"]
    return time, power * time


def main():
    rng = random.Random(17)
    rows = ["device,threads,placement,freq_ghz,time_s,energy_j"]
    plan = [("card", t, "compact", 1.053) for t in (1, 2, 3, 4, 32, 120, 240)]
    plan += [("card", t, "scatter", 1.053) for t in (1, 2, 4, 8, 15, 30, 45, 60, 180)]
    for f in HOST["freqs"]:
        plan += [("host", t, "scatter", f) for t in (1, 2, 8, 16, 32)]
    plan += [("host", t, "compact", 2.7) for t in (2, 4, 12)]
    for dev, t, placement, f in plan:
        time, energy = predict(CARD if dev == "card" else HOST, t, placement, f)
        time *= rng.uniform(0.97, 1.03)
        energy *= rng.uniform(0.97, 1.03)
        rows.append(f"{dev},{t},{placement},{f},{time:.4g},{energy:.4g}")
    with open("baseline.csv", "w") as out:
        out.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
