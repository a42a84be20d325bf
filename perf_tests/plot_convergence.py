#!/usr/bin/env python3
"""Plots the residual histories of fgdd-solve --json reports (relative residual per iteration,
log scale) into one PNG, one line per report, labelled by solver and preconditioner.

Usage: plot_convergence.py OUT.png REPORT.json... [--title TEXT]
Needs matplotlib (Debian: python3-matplotlib)."""
import json
import sys


def main():
    args = sys.argv[1:]
    title = None
    if "--title" in args:
        i = args.index("--title")
        title = args[i + 1]
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    out, reports = args[0], args[1:]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_convergence.py needs matplotlib (Debian: apt-get install python3-matplotlib)")
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for path in reports:
        with open(path) as f:
            report = json.load(f)
        history = report["residual_history"]
        if not history or history[0] == 0:
            continue
        relative = [r / history[0] for r in history]
        label = f"{report['solver']} + {report['precond']} ({report['iterations']} it, {report['status']})"
        axes.semilogy(range(len(relative)), relative, label=label)
    axes.set_xlabel("iteration")
    axes.set_ylabel("residual / initial residual")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    if title:
        axes.set_title(title)
    figure.tight_layout()
    figure.savefig(out, dpi=120)


if __name__ == "__main__":
    main()
