#!/usr/bin/env python3
# Issue 31's acceptance check on one small DOLFINx system (assemble_fem_systems.py --size small):
# where PETSc's method (--petsc KSP+PC, its defaults) converges, fgdd-solve with the given options
# must converge too: exit code 0 and ||b - A x|| / ||b|| <= 1e-8 recomputed here from the written
# x; with --max-ratio R also in at most R times PETSc's iterations. Exits 77 (CTest: skipped)
# when PETSc does not converge, since then there is nothing to match. --petsc none: no peer, fgdd
# must converge (issue 36's hard set, where PETSc's ILU(0) is not the bar). --partitioner P: the
# partitioner fgdd-solve's report must name (what the options are meant to exercise).
# usage: check_fem_system.py --fgdd-solve EXE --systems DIR --system NAME --petsc bcgs+ilu
#                            [--max-ratio 1.3] [--partitioner rcb] -- [fgdd-solve options]
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.io

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "perf_tests", "fem"))
import petsc_peer  # noqa: E402 (the benchmark's PETSc runs, so test and table agree)

TOL = 1e-8


def residual_bound(A, b, x):
    """1e-8 plus what rounding may change in ||b - A x|| / ||b|| between two evaluations:
    each entry of fl(b - A x) is within gamma (|b| + |A| |x|) of the exact one, where gamma is
    about (entries in the row + 1) unit roundoffs (Higham, Accuracy and Stability, 3.5)."""
    gamma = (np.diff(A.indptr).max() + 1) * np.finfo(float).eps / 2
    return TOL + 2 * gamma * np.linalg.norm(np.abs(b) + abs(A) @ np.abs(x)) / np.linalg.norm(b)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fgdd-solve", required=True)
    parser.add_argument("--systems", required=True)
    parser.add_argument("--system", required=True)
    parser.add_argument("--petsc", required=True,
                        help="KSP+PC, e.g. bcgs+ilu, cg+icc, cg+jacobi; none: fgdd alone")
    parser.add_argument("--max-ratio", type=float)
    parser.add_argument("--partitioner", help="the partitioner fgdd-solve must report")
    parser.add_argument("fgdd_args", nargs="*")
    args = parser.parse_args()
    with open(os.path.join(args.systems, "systems.json")) as f:
        system = next(s for s in json.load(f) if s["name"] == args.system)

    if args.petsc == "none" and args.max_ratio:
        parser.error("--max-ratio needs a PETSc method to compare with")
    if args.petsc != "none":
        comm = petsc_peer.PETSc.COMM_WORLD
        A_petsc, b_petsc = petsc_peer.petsc_system(system["matrix"], system["rhs"],
                                                   system["block_size"], comm)
        ksp_type, pc_type = args.petsc.split("+")
        peer = petsc_peer.solve(A_petsc, b_petsc, ksp_type, pc_type, comm, TOL, 10000)
        print(f"PETSc {args.petsc}: {peer['iterations']} iterations, converged "
              f"{peer['converged']} (reason {peer['reason']}), true relative residual "
              f"{peer['relative_true_residual']:.3e}")
        if not peer["converged"]:
            print("PETSc does not converge on this system: nothing to match (skipped)")
            return 77

    with tempfile.TemporaryDirectory() as tmp:
        solution, summary = os.path.join(tmp, "x.mtx"), os.path.join(tmp, "summary.json")
        command = [args.fgdd_solve, "--matrix", system["matrix"], "--rhs", system["rhs"],
                   "--max-iters", "10000", "--write-solution", solution, "--json", summary]
        proc = subprocess.run(command + args.fgdd_args, capture_output=True, text=True)
        print(" ".join(command + args.fgdd_args))
        print(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            peer_note = ", PETSc converged" if args.petsc != "none" else ""
            print(f"FAIL: fgdd-solve exited with {proc.returncode}{peer_note}")
            return 1
        with open(summary) as f:
            report = json.load(f)
        iterations = report["iterations"]
        x = np.asarray(scipy.io.mmread(solution)).ravel()
    A = scipy.io.mmread(system["matrix"]).tocsr()
    b = np.asarray(scipy.io.mmread(system["rhs"])).ravel()
    relative = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    bound = residual_bound(A, b, x)
    print(f"fgdd: {iterations} iterations, ||b - A x|| / ||b|| = {relative:.3e} "
          f"(recomputed; bound {bound:.3e})")
    failed = False
    if not relative <= bound:
        print("FAIL: the true residual is above the tolerance")
        failed = True
    if args.partitioner and report["partitioner"] != args.partitioner:
        print(f"FAIL: partitioned by {report['partitioner']} ({report['partitioner_reason']}), "
              f"not {args.partitioner}")
        failed = True
    if args.max_ratio and iterations > args.max_ratio * peer["iterations"]:
        print(f"FAIL: {iterations} iterations > {args.max_ratio} x PETSc's {peer['iterations']}")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
