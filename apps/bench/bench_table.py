#!/usr/bin/env python3
"""Prints the markdown table of scripts/bench micro from the Google Benchmark JSON
files in a directory (joule.json, libgomp.json, libomp.json, tbb.json,
starpu.json); a missing file reads n/a in its columns.

Rows are workload x workers; columns the median ns per task of each runtime,
the ratios joule/peer (< 1: joule is faster) and whether joule meets the
issue's target for that row."""
import json
import sys
from pathlib import Path

RUNTIMES = ["joule", "libgomp", "libomp", "tbb", "starpu"]
PEERS = ["libgomp", "libomp", "tbb", "starpu"]
WORKLOADS = ["independent", "chain", "wavefront", "wavefront8", "fan"]
WORKERS = [1, 2]


def load(directory):
    """{runtime: {(name, workers): ns_per_task}} from the median aggregates."""
    results = {}
    for runtime in RUNTIMES:
        path = Path(directory) / f"{runtime}.json"
        if not path.exists():
            continue
        data = json.loads(path.read_text())
        table = results.setdefault(runtime, {})
        for b in data.get("benchmarks", []):
            # Only medians (or the single run when there is one repetition).
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue
            if b.get("error_occurred") or "ns_per_task" not in b:
                continue
            name, workers = b["run_name"].split("/")[:2]
            table[(name, int(workers.split(":")[1]))] = float(b["ns_per_task"])
    return results


def target(workload, joule, peers):
    """The issue's target for this row: a short verdict, or '' if none."""
    if joule is None:
        return "pending"
    if workload == "independent":
        return "yes (<=150)" if joule <= 150 else "NO (<=150)"
    verdicts = []
    if workload == "wavefront":
        verdicts.append("yes (<=300)" if joule <= 300 else "NO (<=300)")
    omp = [peers[p] for p in ("libgomp", "libomp") if peers.get(p) is not None]
    if omp:
        verdicts.append("yes (<omp)" if all(joule < v for v in omp) else "NO (<omp)")
    return ", ".join(verdicts)


def fmt(v):
    return "n/a" if v is None else f"{v:.0f}" if v >= 10 else f"{v:.1f}"


def main():
    results = load(sys.argv[1] if len(sys.argv) > 1 else ".")
    header = ["workload", "workers"] + [f"{r} ns/task" for r in RUNTIMES]
    header += [f"joule/{p}" for p in PEERS] + ["target met", "tbb prebuilt ns/task"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for workload in WORKLOADS:
        for workers in WORKERS:
            key = (workload, workers)
            ns = {r: results.get(r, {}).get(key) for r in RUNTIMES}
            joule = ns["joule"]
            cells = [workload, str(workers)]
            cells += ["pending" if r == "joule" and v is None else fmt(v) for r, v in ns.items()]
            for p in PEERS:
                ok = joule is not None and ns[p] is not None and ns[p] > 0
                cells.append(f"{joule / ns[p]:.2f}" if ok else "n/a")
            cells.append(target(workload, joule, ns))
            prebuilt = results.get("tbb", {}).get((f"prebuilt_{workload}", workers))
            cells.append(fmt(prebuilt) if prebuilt is not None else "")
            print("| " + " | ".join(cells) + " |")
    if "joule" not in results:
        print("\njoule: pending (no results from bench_joule)")


if __name__ == "__main__":
    main()
