#!/usr/bin/env python3
"""The "every size and shape" table of docs/performance.md, with each target judged met or missed.

    scripts/shapes-targets.py RESULTS_DIR [RESULTS_DIR ...]

Reads the records of runs of configs/tuning/transpose-shapes.yaml, conv2d-shapes.yaml and
gemm-shapes.yaml (any of them, each directory one run) and prints, per tuned variant and problem,
its figure as a % of the reference of the same problem in the same directory (the same run):

- transpose: the best own variant (`tiled_vec`, `tiled_rows`, `smem_pad`, best block) against the
  `copy` kernel, target >= 90 % wherever both sides are >= 1024; `tiled_vec` against cudaMemcpy
  (the record's pct_peak_bw, from `runner calibrate`) >= 95 % at 8192² and 16384².
- conv2d `shared_reg`: against the transpose `copy` kernel on the same image (the same bytes read
  and written): >= 90 % at k = 3, 5, 7 and >= 70 % at k = 9..15 on images from 4096² up;
  never slower than `naive` (its best block) at any k.
- gemm `regtile` (float) against cuBLAS SGEMM: >= 95 % at 4096³ and 8192³, >= 90 % wherever
  m, n, k >= 2048, >= 75 % at 1024³, >= 50 % on deep K (k >= 16 · max(m, n)); `dmma` (double)
  against cuBLAS DGEMM: >= 85 % at 4096³ and 8192³, >= 60 % at 1024³.

The small, skinny and narrow targets (configs/tuning/small-shapes.yaml; they cover every record):
- transpose `tiled_vec` >= 90 % of `copy` on every shape of at least 2^20 elements, and never
  more than 2 % slower than `tiled_rows` (its best block), the simpler variant of its family;
- conv2d `shared_reg` >= 85 % of `copy` at k = 3, 5, 7 on every image of at least 2^20 pixels,
  and >= 80 % at k = 9 from 4096² pixels;
- gemm `regtile` >= 90 % of SGEMM and `dmma` >= 85 % of DGEMM wherever m, n, k >= 512, both
  >= 75 % wherever the smallest of m, n, k is from 256 to 511.

A target is "met" or "missed by X points"; a problem no target covers shows "—". The last
section counts them. Only records with status ok and verified true count (the others are listed).
Standard library only: runs under any python3.
"""
import json
import sys
from collections import defaultdict


def load(directory):
    records = []
    with open(directory + "/records.jsonl") as f:
        for line in f:
            if line.endswith("\n"):  # a torn last line of a killed run is skipped
                records.append(json.loads(line))
    return records


def fmt_pct(x):
    return "—" if x is None else f"{x:.1f} %"


def size_text(m, n, k=None):
    if k is not None:
        return f"{m}³" if m == n == k else f"{m} × {n} × {k}"
    return f"{m}²" if m == n else f"{m} × {n}"


class Verdicts:
    """Every target judged, for the count at the end."""

    def __init__(self):
        self.counts = defaultdict(lambda: [0, 0])  # target -> [met, missed]

    def judge(self, target, value, goal):
        if value is None:
            return "no figure"
        met = value >= goal
        self.counts[target][0 if met else 1] += 1
        gap = goal - value  # under 0.05 the one-decimal figure shown would read as the goal
        return "met" if met else f"**missed by {gap:.1f}**" if gap >= 0.05 else "**missed by < 0.1**"


def best_by(records, key):
    """The fastest record per key(record) (over block shapes)."""
    best = {}
    for r in records:
        k = key(r)
        if k not in best or r["time_ms_median"] < best[k]["time_ms_median"]:
            best[k] = r
    return best


def transpose_section(recs, verdicts):
    copy = best_by([r for r in recs if r["variant"] == "copy"], lambda r: (r["_run"], r["dtype"], r["m"], r["n"]))
    own_variants = ("tiled_vec", "tiled_rows", "smem_pad")
    own = [r for r in recs if r["variant"] in own_variants]
    if not own:
        return []
    per_variant = best_by(own, lambda r: (r["_run"], r["dtype"], r["m"], r["n"], r["variant"]))
    lines = ["### transpose: best own variant against `copy` (same problem, same run)", "",
             "| dtype | m × n | `copy` GB/s | `tiled_vec` GB/s | path | `tiled_vec` % | best `tiled_rows` % "
             "| `smem_pad` % | best own % | target ≥ 90 % (sides ≥ 1024) | `tiled_vec` % of cudaMemcpy "
             "| `tiled_vec` ≥ 90 % (≥ 2^20 elements) | `tiled_vec` % of `tiled_rows` (≥ 98 %) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    problems = sorted({(r["_run"], r["dtype"], r["m"], r["n"]) for r in own},
                      key=lambda p: (p[0], p[1] != "float", p[2] * p[3], p[2]))
    for run, dtype, m, n in problems:
        ref = copy.get((run, dtype, m, n))
        pct = {}
        for v in own_variants:
            r = per_variant.get((run, dtype, m, n, v))
            pct[v] = 100 * r["gbps"] / ref["gbps"] if r and ref and r.get("gbps") and ref.get("gbps") else None
        known = [p for p in pct.values() if p is not None]
        best = max(known) if known else None
        verdict = verdicts.judge("transpose ≥ 90 % of copy", best, 90) if min(m, n) >= 1024 else "—"
        tv = per_variant.get((run, dtype, m, n, "tiled_vec"))
        memcpy = "—"
        if tv and m == n and m in (8192, 16384):
            memcpy = f"{fmt_pct(tv.get('pct_peak_bw'))}: " + verdicts.judge(
                "transpose ≥ 95 % of cudaMemcpy", tv.get("pct_peak_bw"), 95)
        every_shape, sibling = "—", "—"
        if m * n >= TRANSPOSE_MIN_ELEMENTS:
            every_shape = verdicts.judge("tiled_vec ≥ 90 % of copy, ≥ 2^20 elements", pct["tiled_vec"], 90)
            if pct["tiled_vec"] is not None and pct["tiled_rows"] is not None:
                versus = 100 * pct["tiled_vec"] / pct["tiled_rows"]
                sibling = f"{versus:.1f} %: " + verdicts.judge(
                    "tiled_vec within 2 % of tiled_rows, ≥ 2^20 elements", versus, 98)
        lines.append(f"| {dtype} | {size_text(m, n)} | {ref['gbps']:.0f} | " if ref else f"| {dtype} | {size_text(m, n)} | — | ")
        lines[-1] += (f"{tv['gbps']:.0f} | {tv.get('path') or ''} | " if tv else "— | | ") + \
            f"{fmt_pct(pct['tiled_vec'])} | {fmt_pct(pct['tiled_rows'])} | {fmt_pct(pct['smem_pad'])} | " \
            f"{fmt_pct(best)} | {verdict} | {memcpy} | {every_shape} | {sibling} |"
    return lines + [""]


# "Every shape of at least 2^20 elements" (transpose) and "every image of at least 2^20 pixels"
# (conv2d): 1024², and any aspect ratio of as many.
TRANSPOSE_MIN_ELEMENTS = 1 << 20
CONV2D_MIN_PIXELS_ANY_SHAPE = 1 << 20

# "Images from 4096² up (odd sizes included)": as many pixels as 4095², so that the odd sizes next
# to 4096² (4097 × 4095 has one pixel fewer) count, tall and wide images too.
CONV2D_MIN_PIXELS = 4095 * 4095


def conv2d_section(recs, copy_recs, verdicts):
    sr = [r for r in recs if r["variant"] == "shared_reg"]
    if not sr:
        return []
    copy = best_by([r for r in copy_recs if r["variant"] == "copy" and r["dtype"] == "float"],
                   lambda r: (r["_run"], r["m"], r["n"]))
    naive = best_by([r for r in recs if r["variant"] == "naive"],
                    lambda r: (r["_run"], r["m"], r["n"], r["kernel_size"]))
    lines = ["### conv2d `shared_reg` against `copy` (the same bytes) and `naive` (same problem, same run)", "",
             "| image | k | path | `copy` GB/s | `shared_reg` GB/s | TFLOP/s | % of `copy` | target | "
             "× faster than `naive` | never slower than `naive` | any shape: ≥ 85 % (k = 3, 5, 7, ≥ 2^20 pixels), "
             "≥ 80 % (k = 9, from 4096²) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(sr, key=lambda r: (r["_run"], r["kernel_size"], r["m"] * r["n"], r["m"])):
        m, n, ks = r["m"], r["n"], r["kernel_size"]
        ref = copy.get((r["_run"], m, n))
        pct = 100 * r["gbps"] / ref["gbps"] if ref and ref.get("gbps") else None
        target = "—"
        if m * n >= CONV2D_MIN_PIXELS and ks in (3, 5, 7):
            target = f"≥ 90 %: " + verdicts.judge("conv2d ≥ 90 % of copy, k = 3, 5, 7", pct, 90)
        elif m * n >= CONV2D_MIN_PIXELS and 9 <= ks <= 15:
            target = f"≥ 70 %: " + verdicts.judge("conv2d ≥ 70 % of copy, k = 9..15", pct, 70)
        nv = naive.get((r["_run"], m, n, ks))
        faster, never = "—", "—"
        if nv:
            ratio = nv["time_ms_median"] / r["time_ms_median"]
            faster = f"{ratio:.2f} ×"
            never = verdicts.judge("conv2d never slower than naive", ratio, 1.0).replace("missed by", "slower by")
        lines.append(f"| {size_text(m, n)} | {ks} | {r.get('path') or ''} | {ref['gbps']:.0f} | " if ref else
                     f"| {size_text(m, n)} | {ks} | {r.get('path') or ''} | — | ")
        any_shape = "—"
        if m * n >= CONV2D_MIN_PIXELS_ANY_SHAPE and ks in (3, 5, 7):
            any_shape = "≥ 85 %: " + verdicts.judge("conv2d ≥ 85 % of copy, k = 3, 5, 7, ≥ 2^20 pixels", pct, 85)
        elif m * n >= CONV2D_MIN_PIXELS and ks == 9:
            any_shape = "≥ 80 %: " + verdicts.judge("conv2d ≥ 80 % of copy, k = 9, from 4096²", pct, 80)
        lines[-1] += f"{r['gbps']:.0f} | {r['gflops'] / 1000:.1f} | {fmt_pct(pct)} | {target} | {faster} | {never} | {any_shape} |"
    return lines + [""]


def gemm_targets(dtype, m, n, k):
    """(target name, goal %) of every target that covers this problem."""
    cube = m == n == k
    out = []
    if dtype == "float":
        if cube and m in (4096, 8192):
            out.append(("FP32 gemm ≥ 95 % at 4096³ / 8192³", 95))
        if min(m, n, k) >= 2048:
            out.append(("FP32 gemm ≥ 90 % at m, n, k ≥ 2048", 90))
        if cube and m == 1024:
            out.append(("FP32 gemm ≥ 75 % at 1024³", 75))
        if k >= 16 * max(m, n):
            out.append(("FP32 gemm ≥ 50 % on deep K", 50))
    elif dtype == "double":
        if cube and m in (4096, 8192):
            out.append(("FP64 gemm ≥ 85 % at 4096³ / 8192³", 85))
        if cube and m == 1024:
            out.append(("FP64 gemm ≥ 60 % at 1024³", 60))
    # Small and skinny: every m, n, k from 512 up, and from 256.
    name, goal = ("FP32", 90) if dtype == "float" else ("FP64", 85)
    if min(m, n, k) >= 512:
        out.append((f"{name} gemm ≥ {goal} % at m, n, k ≥ 512", goal))
    elif min(m, n, k) >= 256:
        out.append((f"{name} gemm ≥ 75 % at m, n, k ≥ 256", 75))
    return out


def gemm_section(recs, verdicts):
    own = [r for r in recs if r["variant"] in ("regtile", "dmma")]
    if not own:
        return []
    cublas = best_by([r for r in recs if r["variant"] == "cublas"],
                     lambda r: (r["_run"], r["dtype"], r["m"], r["n"], r["k"]))
    lines = ["### gemm `regtile` (FP32) and `dmma` (FP64) against cuBLAS (same problem, same run)", "",
             "| dtype | m × n × k | cuBLAS TFLOP/s (SM MHz) | own | own TFLOP/s (SM MHz) | path | % of cuBLAS | target |",
             "|---|---|---|---|---|---|---|---|"]
    for r in sorted(own, key=lambda r: (r["_run"], r["dtype"] != "float", r["m"] * r["n"] * r["k"], r["m"], r["n"])):
        dtype, m, n, k = r["dtype"], r["m"], r["n"], r["k"]
        ref = cublas.get((r["_run"], dtype, m, n, k))
        pct = 100 * r["gflops"] / ref["gflops"] if ref and ref.get("gflops") else None
        verdict = "; ".join(f"≥ {goal} %: " + verdicts.judge(name, pct, goal)
                            for name, goal in gemm_targets(dtype, m, n, k)) or "—"

        def fig(x):
            clock = f" ({x['sm_clock_mhz']:.0f})" if x.get("sm_clock_mhz") else ""
            return f"{x['gflops'] / 1000:.1f}{clock}"
        lines.append(f"| {dtype} | {size_text(m, n, k)} | {fig(ref) if ref else '—'} | `{r['variant']}` | {fig(r)} | "
                     f"{r.get('path') or ''} | {fmt_pct(pct)} | {verdict} |")
    return lines + [""]


def main(dirs):
    # A reference counts only from the same results directory (the same run) as the figure.
    records = [dict(r, _run=i) for i, d in enumerate(dirs) for r in load(d)]
    usable = [r for r in records if r.get("status") == "ok" and r.get("verified") is True
              and r.get("backend") in ("cuda", "hip")]
    by_kernel = defaultdict(list)
    for r in usable:
        by_kernel[r["kernel"]].append(r)
    verdicts = Verdicts()
    out = []
    gpus = sorted({r["gpu"] for r in usable if r.get("gpu")})
    out.append(f"GPU: {', '.join(gpus) or '(none recorded)'}; {len(usable)} verified points of {len(records)} records.")
    out.append("")
    out += transpose_section(by_kernel["transpose"], verdicts)
    out += conv2d_section(by_kernel["conv2d"], by_kernel["transpose"], verdicts)
    out += gemm_section(by_kernel["gemm"], verdicts)
    out += ["### Targets", "", "| target | met | missed |", "|---|---|---|"]
    out += [f"| {name} | {met} | {missed} |" for name, (met, missed) in verdicts.counts.items()]
    others = [r for r in records if not (r.get("status") == "ok" and r.get("verified") is True)
              and r.get("backend") in ("cuda", "hip")]
    if others:
        out += ["", "Not counted (not ok or not verified):", ""]
        out += [f"- {r['kernel']} {r['variant']} {r.get('dtype')} {r.get('m')} × {r.get('n')}"
                f"{' × ' + str(r['k']) if r.get('k') else ''}{' k = ' + str(r['kernel_size']) if r.get('kernel_size') else ''}: "
                f"{r.get('status')} {r.get('message') or ''}" for r in others]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
