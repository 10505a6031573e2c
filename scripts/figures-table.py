#!/usr/bin/env python3
"""Prints the figures a performance note quotes from a results directory (no third-party modules):
transpose GB/s and % of copy, gemm GFLOP/s and % of cuBLAS, conv2d GB/s and % of copy, per size."""
import json
import sys
from collections import defaultdict


def load(path):
    records = []
    with open(path + "/records.jsonl") as f:
        for line in f:
            if line.endswith("\n"):
                records.append(json.loads(line))
    return records


def shape(r):
    b = f" {r['block_x']}x{r['block_y']}" if r.get("block_x") else ""
    t = f" t={r['threads']}" if r.get("threads") else ""
    g = f" grid={r['grid']}" if r.get("grid") is not None and r.get("variant") == "naive_1d" else ""
    path = f" [{r['path']}]" if r.get("path") else ""
    return r["variant"] + b + t + g + path


def main(directory):
    records = [r for r in load(directory) if r.get("status") == "ok"]
    groups = defaultdict(list)
    for r in records:
        key = (r["kernel"], r.get("dtype"), r.get("m"), r.get("n"), r.get("k"), r.get("kernel_size"), r["backend"])
        groups[key].append(r)
    print(f"\n== {directory}")
    for key in sorted(groups, key=lambda k: tuple(str(x) for x in k)):
        kernel, dtype, m, n, k, ks, backend = key
        rows = groups[key]
        # Best figure per variant (over block shapes / threads).
        best = {}
        for r in rows:
            v = r["variant"]
            if v not in best or r["time_ms_median"] < best[v]["time_ms_median"]:
                best[v] = r
        metric = "gflops" if kernel == "gemm" else "gbps"
        ref_name = {"gemm": "cublas" if backend == "cuda" else "openblas", "transpose": "copy"}.get(kernel)
        ref = best.get(ref_name, {}).get(metric) if ref_name else None
        size = f"{m}x{n}" + (f"x{k}" if k else "") + (f" k={ks}" if ks else "")
        print(f"-- {kernel} {dtype} {size} [{backend}]")
        for v, r in sorted(best.items(), key=lambda kv: kv[1]["time_ms_median"]):
            fig = r.get(metric)
            pct = f"{100 * fig / ref:6.1f} % of {ref_name}" if ref and fig else ""
            other = r.get("gbps") if metric == "gflops" else r.get("gflops")
            clock = f"  {r['sm_clock_mhz']:.0f} MHz" if kernel == "gemm" and r.get("sm_clock_mhz") else ""
            print(f"   {shape(r):<34} {r['time_ms_median']:10.4f} ms  {metric} {fig or 0:10.1f}  {pct}"
                  + (f"  (gflops {other:.1f})" if metric == "gbps" and other else "") + clock)


if __name__ == "__main__":
    for d in sys.argv[1:]:
        main(d)
