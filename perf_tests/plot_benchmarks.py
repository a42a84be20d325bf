#!/usr/bin/env python3
"""Plots benchmark JSON lines into PNGs for docs/: speedup bars per matrix (BiCGSTAB time to
solution and DD apply against the vendor ILU0, one bar group per device when several files are
given) and the subdomain-size sweep (iterations and time to solution against subdomain rows).

Usage: plot_benchmarks.py OUT_PREFIX FILE.jsonl...
Writes OUT_PREFIX_speedup.png when the input holds solve or apply records, OUT_PREFIX_sweep.png
when it holds solve records at several subdomain sizes, and OUT_PREFIX_subdomain_sweep.png when
it holds fgdd_subdomain_sweep_bench records.
Needs matplotlib (Debian: python3-matplotlib)."""
import json
import sys
from collections import defaultdict


def records(paths):
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.strip().startswith("{"):
                    yield json.loads(line)


def short(matrix):
    return matrix.replace("gen:", "")


def speedup_plot(plt, out, solves, applies):
    """Bars: time-to-solution speedup (solve bench) and apply speedup (apply bench)."""
    panels = [(solves, "BiCGSTAB time to solution vs vendor ILU0",
               lambda r: r.get("speedup_tts_ec_vs_vendor", -1)),
              (applies, "DD apply vs vendor sptrsv (undropped)",
               lambda r: (r["kernels"]["kk_sptrsv_global"]["min_s"] /
                          r["kernels"]["dag_ec_ILDU0_fused"]["min_s"])
               if "kk_sptrsv_global" in r["kernels"] else -1)]
    panels = [p for p in panels if p[0]]
    if not panels:
        return
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4), squeeze=False)
    for ax, (items, title, value) in zip(axes[0], panels):
        devices = sorted({f"{r['device']} ({r['backend']})" for r in items})
        matrices = sorted({short(r["matrix"]) for r in items if value(r) > 0})
        width = 0.8 / len(devices)
        for k, device in enumerate(devices):
            by_matrix = {short(r["matrix"]): value(r) for r in items
                         if f"{r['device']} ({r['backend']})" == device}
            xs = [i + k * width for i, m in enumerate(matrices) if by_matrix.get(m, -1) > 0]
            ys = [by_matrix[m] for m in matrices if by_matrix.get(m, -1) > 0]
            ax.bar(xs, ys, width, label=device)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(matrices))])
        ax.set_xticklabels(matrices, rotation=20)
        ax.set_ylabel("speedup (×)")
        ax.set_yscale("log")
        ax.axhline(1, color="gray", linewidth=0.8)
        ax.set_title(title)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(f"{out}_speedup.png", dpi=120)


def sweep_plot(plt, out, solves):
    """Iterations and time to solution of the DD solve against the subdomain size."""
    by_matrix = defaultdict(list)
    for r in solves:
        by_matrix[(r["device"], short(r["matrix"]))].append(r)
    swept = {f"{m} ({device})": sorted(rs, key=lambda r: r["subdomain_rows_max"])
             for (device, m), rs in by_matrix.items() if len({r.get("cap_rows") for r in rs}) > 1}
    if not swept:
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
    for m, rs in swept.items():
        ec = [r["configs"]["fgdd_dag_ec_ILDU0_fused"] for r in rs]
        sizes = [r["subdomain_rows_max"] for r in rs]
        left.plot(sizes, [c["iterations"] for c in ec], marker="o", label=m)
        right.plot(sizes, [1e3 * (c["refactor_s"] + c["solve_s"]) for c in ec], marker="o", label=m)
    for ax, label in ((left, "BiCGSTAB iterations"), (right, "refactor + solve (ms)")):
        ax.set_xscale("log")
        ax.set_xlabel("largest subdomain (rows)")
        ax.set_ylabel(label)
        ax.legend(fontsize=8)
    fig.suptitle("Subdomain size sweep, dag_ec_ILDU0_fused")
    fig.tight_layout()
    fig.savefig(f"{out}_sweep.png", dpi=120)


def subdomain_sweep_plot(plt, out, sweeps):
    """fgdd_subdomain_sweep_bench: time to solution and iterations against the subdomain cap,
    one line per matrix (and device); the best time to solution of each line circled."""
    lines = defaultdict(dict)
    for r in sweeps:
        if "skipped" not in r and r["verified"]:
            # A later record at the same size (a repeated run) replaces the earlier one.
            lines[f"{short(r['matrix'])} ({r['device']})"][r["cap_rows"]] = r
    if not lines:
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for label, by_size in sorted(lines.items()):
        sizes = sorted(by_size)
        tts = [1e3 * by_size[s]["time_to_solution_s"] for s in sizes]
        line, = left.plot(sizes, tts, marker="o", label=label)
        best = min(range(len(sizes)), key=lambda k: tts[k])
        left.plot([sizes[best]], [tts[best]], marker="o", markersize=14, fillstyle="none",
                  color=line.get_color())
        right.plot(sizes, [by_size[s]["iterations"] for s in sizes], marker="o", label=label,
                   color=line.get_color())
    for ax, label in ((left, "time to solution = setup + solve (ms)"),
                      (right, "BiCGSTAB iterations")):
        ax.set_xscale("log")
        ax.set_xlabel("subdomain rows (cap)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", linewidth=0.3)
        ax.legend(fontsize=8)
    left.set_yscale("log")
    kernels = sorted({r["kernel"] for r in sweeps if "kernel" in r})
    fig.suptitle(f"Subdomain size sweep, DD ILDU0 applied by {', '.join(kernels)}")
    fig.tight_layout()
    fig.savefig(f"{out}_subdomain_sweep.png", dpi=120)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    items = list(records(sys.argv[2:]))
    solves = [r for r in items if r.get("benchmark") == "bicgstab_solve"]
    applies = [r for r in items if r.get("benchmark") == "dd_apply"]
    sweeps = [r for r in items if r.get("benchmark") == "subdomain_sweep"]
    speedup_plot(plt, sys.argv[1], solves, applies)
    sweep_plot(plt, sys.argv[1], solves)
    subdomain_sweep_plot(plt, sys.argv[1], sweeps)


if __name__ == "__main__":
    main()
