#!/usr/bin/env python3
# Renders run_fem_benchmark.py's JSON lines (stdin or a file) as the markdown table of
# docs/PERFORMANCE.md: one row per (system, solver, threads / ranks), times in milliseconds;
# with --refactor-solves runs, also the fastest refactorization, the solve after it, their sum
# (a time step of the same pattern) and that sum against PETSc's.
import fileinput
import json


def cell(value, digits=1):
    return "—" if value is None else f"{value:,.{digits}f}"


def main():
    lines = [json.loads(line) for line in fileinput.input() if line.startswith("{")]
    stepping = any("refactor_seconds" in r for r in lines)
    print("| system | rows | solver | threads / ranks | iterations | setup ms | solve ms "
          "| total ms | true rel. residual | status | iterations / PETSc | time / PETSc |"
          + (" refactor ms | solve after ms | step ms | step / PETSc |" if stepping else ""))
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"
          + ("---:|---:|---:|---:|" if stepping else ""))
    for r in lines:
        if "iterations" not in r:  # fgdd-solve refused the input (exit code 2)
            print(f"| {r['system']} | {r['rows']:,} | {r['solver']} | {r['threads']} | — | — "
                  f"| — | — | — | error: {r['error'].replace('|', '/')} | — | — |"
                  + (" — | — | — | — |" if stepping else ""))
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
              f"| {'' if petsc else ratio('time_ratio', 2)} |", end="")
        if stepping:
            refactor, after = r.get("refactor_seconds"), r.get("resolve_seconds")
            step = None if refactor is None else (refactor + after) * 1e3
            print(f" {cell(None if refactor is None else refactor * 1e3, 2)} "
                  f"| {cell(None if after is None else after * 1e3)} | {cell(step)} "
                  f"| {'' if petsc else ratio('step_time_ratio', 2)} |", end="")
        print()


if __name__ == "__main__":
    main()
