#!/usr/bin/env python3
# Issue 31's peer benchmark: runs fgdd-solve (default ildu0-dd, the exact global ilu0, and for
# SPD systems cg + ic0-dd) and the PETSc peer (petsc_peer.py) on the systems that
# assemble_fem_systems.py wrote, and prints one JSON line per (system, solver, threads): iterations,
# setup / solve seconds (the fastest of --repeats runs), the true relative residual, and the
# ratios to PETSc's iterations and time (BiCGSTAB runs against PETSc BiCGSTAB + ILU(0), CG
# against CG + ICC(0), where PETSc converged; with T OpenMP threads against PETSc's block Jacobi
# on T MPI ranks). With --refactor-solves N both also solve N more times, each after a numeric
# refactorization with the same pattern (the time-stepping case): the fastest refactorization
# and solve, and the ratio of their sum to PETSc's (step_time_ratio). Where a system comes with
# the mesh nodes' coordinates (assemble_fem_systems.py writes them), the DD configurations run
# once more with --coordinates (rows "..., coordinates": the default partitioner is then
# recursive coordinate bisection instead of METIS), unless --no-coordinates.
# OMP_NUM_THREADS is swept only when fgdd's backend is OpenMP; the backend is in every line.
# The repeats run in rounds (PETSc, then each fgdd configuration, then again), not one side's
# runs in a row, so that a slow spell of a shared machine does not fall on one side only.
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# IC0 with the positive-definite shift, as PETSc's ICC shifts by default (fgdd shifts only when
# asked: a shift that nobody asked for would hide a failing factorization).
FGDD_CONFIGS = [("bicgstab+ildu0-dd", []), ("bicgstab+ilu0", ["--precond", "ilu0"]),
                ("cg+ic0-dd", ["--solver", "cg", "--precond", "ic0-dd",
                               "--shift", "positive-definite"])]


def fgdd_configs(system, with_coordinates):
    """FGDD_CONFIGS that apply to the system, and the DD ones again with its coordinates."""
    configs = [(name, flags) for name, flags in FGDD_CONFIGS
               if system["spd"] or not name.startswith("cg")]
    if with_coordinates and system.get("coordinates"):
        configs += [(name + ", coordinates", flags + ["--coordinates", system["coordinates"]])
                    for name, flags in configs if name.endswith("-dd")]
    return configs


def fastest(runs):
    """The run with the smallest setup + solve; iterations and residuals are the same in all."""
    return min(runs, key=lambda r: (r.get("setup_seconds") or 0) + (r.get("solve_seconds") or 0))


def run_fgdd(exe, system, flags, threads, max_iters, extra):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="spread")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "summary.json")
        proc = subprocess.run([exe, "--matrix", system["matrix"], "--rhs", system["rhs"],
                               "--block-size", str(system["block_size"]),
                               "--max-iters", str(max_iters), "--json", out] + flags + extra,
                              env=env, capture_output=True, text=True)
        if not os.path.exists(out):  # invalid usage or input (exit code 2): no summary
            return {"exit_code": proc.returncode, "error": proc.stderr.strip()[-300:]}
        with open(out) as f:
            summary = json.load(f)
    return {"exit_code": proc.returncode, "backend": summary["backend"],
            "subdomains": summary.get("subdomains"), "partitioner": summary.get("partitioner"),
            "iterations": summary["iterations"], "status": summary["status"],
            "setup_seconds": summary["setup_seconds"], "solve_seconds": summary["solve_seconds"],
            "relative_true_residual": summary["relative_true_residual"],
            **{key: summary[key] for key in REFACTOR_KEYS if key in summary}}


# What both sides report for --refactor-solves.
REFACTOR_KEYS = ("refactor_solves", "refactor_seconds", "resolve_seconds",
                 "resolve_iterations_min", "resolve_iterations_max", "resolves_converged")


def step_seconds(result):
    """A time step's cost after the first: the fastest refactorization plus the fastest solve."""
    return result["refactor_seconds"] + result["resolve_seconds"]


def run_petsc(python, mpirun, system, ranks, max_iters, refactor_solves):
    command = [python, os.path.join(HERE, "petsc_peer.py"), "--matrix", system["matrix"],
               "--rhs", system["rhs"], "--name", system["name"], "--max-it", str(max_iters),
               "--block-size", str(system["block_size"]),
               "--refactor-solves", str(refactor_solves)] + (["--spd"] if system["spd"] else [])
    if ranks > 1:
        command = mpirun + ["-np", str(ranks)] + command
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--systems", required=True, help="folder holding systems.json")
    parser.add_argument("--fgdd-solve", required=True, help="path of the fgdd-solve executable")
    parser.add_argument("--threads", default="1,2", help="OMP_NUM_THREADS values (OpenMP only)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each; the fastest counts")
    parser.add_argument("--max-iters", type=int, default=10000, help="for fgdd and PETSc alike")
    parser.add_argument("--python", default=sys.executable, help="Python with petsc4py")
    parser.add_argument("--mpirun", default="mpirun --oversubscribe --allow-run-as-root",
                        help="launcher of PETSc's multi-rank runs")
    parser.add_argument("--fgdd-args", default="", help="extra fgdd-solve arguments for every run")
    parser.add_argument("--refactor-solves", type=int, default=0,
                        help="more solves after a refactorization with the same pattern, each side")
    parser.add_argument("--no-coordinates", dest="coordinates", action="store_false",
                        help="skip the DD runs with the systems' coordinates")
    args = parser.parse_args()
    with open(os.path.join(args.systems, "systems.json")) as f:
        systems = json.load(f)
    extra = args.fgdd_args.split()
    refactor = ["--refactor-solves", str(args.refactor_solves)] if args.refactor_solves else []
    probe = run_fgdd(args.fgdd_solve, systems[0], [], 1, 1, extra)
    openmp = probe.get("backend", "").lower().startswith("openmp")
    threads = [int(t) for t in args.threads.split(",")] if openmp else [1]
    for system in systems:
        for count in threads:
            configs = fgdd_configs(system, args.coordinates)
            petsc, fgdd = {}, {name: [] for name, _ in configs}
            for _ in range(args.repeats):
                for result in run_petsc(args.python, args.mpirun.split(), system, count,
                                        args.max_iters, args.refactor_solves):
                    petsc.setdefault(result["solver"].split("+")[0], []).append(result)
                for name, flags in configs:
                    fgdd[name].append(run_fgdd(args.fgdd_solve, system, flags + refactor, count,
                                               args.max_iters, extra))
            peers = {method: fastest(runs) for method, runs in petsc.items()}
            for peer in peers.values():
                print(json.dumps({**peer, "threads": 1, "ranks": count}), flush=True)
            for name, _ in configs:
                result = fastest(fgdd[name])
                line = {"system": system["name"], "rows": system["rows"], "solver": "fgdd " + name,
                        "threads": count, "ranks": 1, **result}
                peer = peers.get("petsc " + name.split("+")[0].replace("bicgstab", "bcgs"))
                if peer and peer["converged"] and "iterations" in result:
                    line["petsc_solver"] = peer["solver"]
                    line["iterations_ratio"] = result["iterations"] / max(peer["iterations"], 1)
                    line["time_ratio"] = ((result["setup_seconds"] + result["solve_seconds"]) /
                                          (peer["setup_seconds"] + peer["solve_seconds"]))
                    if "refactor_seconds" in result and "refactor_seconds" in peer:
                        line["step_time_ratio"] = step_seconds(result) / step_seconds(peer)
                print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
