#!/usr/bin/env python3
# The PETSc peer of issue 31's benchmark: solves Matrix Market systems with petsc4py the way
# users do and prints one JSON line per (system, method): iterations, setup (PCSetUp: the
# factorization) and solve seconds, the true relative residual ||b - A x|| / ||b||; with
# --refactor-solves N, also the fastest numeric refactorization and solve of N more rounds.
# Methods: BiCGSTAB + ILU(0), right preconditioning; with --spd also CG + ICC(0) (PETSc's
# default shift for ICC: positive definite; CG supports only left preconditioning in PETSc).
# Both stop on the unpreconditioned residual, rtol 1e-8, x0 = 0. Under `mpirun -np N`, N > 1,
# the preconditioners are block Jacobi with ILU(0) / ICC(0) per rank, PETSc's parallel default.
# Run with /usr/bin/python3 (Debian's python3-petsc4py).
import argparse
import json
import os
import sys

import numpy as np
from mpi4py import MPI
import petsc4py

petsc4py.init(sys.argv[:1])
from petsc4py import PETSc  # noqa: E402 (petsc4py.init must run first)


def read_coordinate(path):
    """A 'coordinate real general' Matrix Market file as CSR arrays (explicit zeros kept)."""
    with open(path) as f:
        header = f.readline()
        if "coordinate" not in header or "general" not in header:
            sys.exit(f"{path}: expected 'coordinate real general', got {header.strip()}")
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        rows, cols, entries = (int(word) for word in line.split())
        table = np.fromfile(f, sep=" ").reshape(-1, 3)
    if table.shape[0] != entries:
        sys.exit(f"{path}: {table.shape[0]} entries read, the header says {entries}")
    row, col = table[:, 0].astype(np.int64) - 1, table[:, 1].astype(np.int32) - 1
    order = np.lexsort((col, row))
    indptr = np.zeros(rows + 1, dtype=np.int32)
    np.add.at(indptr, row + 1, 1)
    return rows, cols, np.cumsum(indptr, dtype=np.int32), col[order], table[order, 2].copy()


def read_array(path):
    with open(path) as f:
        f.readline()
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        return np.fromfile(f, sep=" ")


def petsc_system(matrix_path, rhs_path, block_size, comm):
    """A (AIJ, block size set as DOLFINx sets it) and b, each rank owning PETSc's row range."""
    n, _, indptr, indices, values = read_coordinate(matrix_path)
    layout = PETSc.Vec().createMPI(n, bsize=block_size, comm=comm)  # ranks own whole blocks
    first, last = layout.getOwnershipRange()
    local_ptr = indptr[first:last + 1] - indptr[first]
    local = slice(indptr[first], indptr[last])
    A = PETSc.Mat().createAIJ(size=((last - first, n), (last - first, n)), bsize=block_size,
                              comm=comm, csr=(local_ptr, indices[local], values[local]))
    A.assemble()
    b = layout.duplicate()
    b.setArray(read_array(rhs_path)[first:last])
    return A, b


def timed_setup_and_solve(ksp, b, comm):
    """The preconditioner's setup (the factorization, numeric only when A's pattern is the one
    already factored) and the solve from x = 0, each timed; x and their seconds."""
    x = b.duplicate()
    x.set(0.0)
    comm.tompi4py().Barrier()
    start = MPI.Wtime()
    ksp.setUp()
    ksp.getPC().setUpOnBlocks()  # the factorization, which KSPSolve would otherwise do
    comm.tompi4py().Barrier()
    setup = MPI.Wtime() - start
    start = MPI.Wtime()
    ksp.solve(b, x)
    comm.tompi4py().Barrier()
    return x, setup, MPI.Wtime() - start


def refactor_solves(ksp, A, b, comm, rounds):
    """rounds more solves, each after A's values changed state (A scaled by 2, then by 1/2:
    the same values, exactly, but PETSc then refactors numerically, as for a time step's new
    matrix of the same pattern; a scale by 1 changes nothing): the fastest refactorization and
    solve, the iteration range and how many converged."""
    refactors, solves, iterations, converged = [], [], [], 0
    for _ in range(rounds):
        A.scale(2.0)  # new values as far as the preconditioner knows: outside the timings
        A.scale(0.5)
        ksp.setOperators(A)
        _, refactor, solve_seconds = timed_setup_and_solve(ksp, b, comm)
        refactors.append(refactor)
        solves.append(solve_seconds)
        iterations.append(ksp.getIterationNumber())
        converged += ksp.getConvergedReason() > 0
    return {"refactor_solves": rounds, "refactor_seconds": min(refactors),
            "resolve_seconds": min(solves), "resolve_iterations_min": min(iterations),
            "resolve_iterations_max": max(iterations), "resolves_converged": converged}


def solve(A, b, ksp_type, pc_type, comm, rtol, max_it, rounds=0):
    ksp = PETSc.KSP().create(comm)
    ksp.setOperators(A)
    ksp.setType(ksp_type)
    ksp.setPCSide(PETSc.PC.Side.LEFT if ksp_type == "cg" else PETSc.PC.Side.RIGHT)
    ksp.setNormType(PETSc.KSP.NormType.UNPRECONDITIONED)
    ksp.setTolerances(rtol=rtol, atol=0.0, max_it=max_it)
    pc = ksp.getPC()
    if comm.size == 1:
        pc.setType(pc_type)
        pc.setFactorLevels(0)
    else:
        pc.setType("bjacobi")
        options = PETSc.Options()
        options["sub_pc_type"] = pc_type
        options["sub_pc_factor_levels"] = 0
    ksp.setFromOptions()  # options in PETSC_OPTIONS (e.g. -ksp_view) still apply
    x, setup, solve_seconds = timed_setup_and_solve(ksp, b, comm)
    r = b.duplicate()
    A.mult(x, r)
    r.aypx(-1.0, b)
    result = {"iterations": ksp.getIterationNumber(), "setup_seconds": setup,
              "solve_seconds": solve_seconds,
              "relative_true_residual": r.norm() / b.norm(),
              "converged": ksp.getConvergedReason() > 0,
              "reason": str(ksp.getConvergedReason())}
    if rounds > 0:
        result.update(refactor_solves(ksp, A, b, comm, rounds))
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--matrix", required=True)
    parser.add_argument("--rhs", required=True)
    parser.add_argument("--name", help="system name for the JSON; default: the file's stem")
    parser.add_argument("--block-size", type=int, default=1)
    parser.add_argument("--spd", action="store_true", help="also run CG + ICC(0)")
    parser.add_argument("--rtol", type=float, default=1e-8)
    parser.add_argument("--max-it", type=int, default=10000)
    parser.add_argument("--refactor-solves", type=int, default=0,
                        help="after the solve, this many more, each after a numeric refactorization")
    args = parser.parse_args()
    comm = PETSc.COMM_WORLD
    A, b = petsc_system(args.matrix, args.rhs, args.block_size, comm)
    name = args.name or os.path.splitext(os.path.basename(args.matrix))[0]
    methods = [("bcgs", "ilu")] + ([("cg", "icc")] if args.spd else [])
    for ksp_type, pc_type in methods:
        result = solve(A, b, ksp_type, pc_type, comm, args.rtol, args.max_it,
                       args.refactor_solves)
        label = f"petsc {ksp_type}+{pc_type}0" if comm.size == 1 else \
            f"petsc {ksp_type}+bjacobi-{pc_type}0"
        if comm.rank == 0:
            print(json.dumps({"system": name, "solver": label, "ranks": comm.size,
                              "rows": A.getSize()[0], **result}), flush=True)


if __name__ == "__main__":
    main()
