#!/usr/bin/env python3
# Renders run_fem_benchmark.py's JSON lines (stdin or a file) as the markdown table of
# docs/PERFORMANCE.md: one row per (system, solver, threads / ranks), times in milliseconds.
import fileinput
import json


def cell(value, digits=1):
    return "—" if value is None else f"{value:,.{digits}f}"


def main():
    lines = [json.loads(line) for line in fileinput.input() if line.startswith("{")]
    print("| system | rows | solver | threads / ranks | iterations | setup ms | solve ms "
          "| total ms | true rel. residual | status | iterations / PETSc | time / PETSc |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    for r in lines:
        if "iterations" not in r:  # fgdd-solve refused the input (exit code 2)
            print(f"| {r['system']} | {r['rows']:,} | {r['solver']} | {r['threads']} | — | — "
                  f"| — | — | — | error: {r['error'].replace('|', '/')} | — | — |")
            continue
        petsc = r["solver"].startswith("petsc")
        status = ("converged" if r["converged"] else f"not converged ({r['reason']})") if petsc \
            else r["status"]
        setup, solve = r["setup_seconds"] * 1e3, r["solve_seconds"] * 1e3
        ratio = lambda key, d: cell(r.get(key), d) + ("×" if r.get(key) is not None else "")
        print(f"| {r['system']} | {r['rows']:,} | {r['solver']} "
              f"| {r['ranks'] if petsc else r['threads']} | {r['iterations']:,} | {cell(setup)} "
              f"| {cell(solve)} | {cell(setup + solve)} | {r['relative_true_residual']:.1e} "
              f"| {status} | {'' if petsc else ratio('iterations_ratio', 2)} "
              f"| {'' if petsc else ratio('time_ratio', 2)} |")


if __name__ == "__main__":
    main()
