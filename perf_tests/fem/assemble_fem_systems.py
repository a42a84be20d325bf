#!/usr/bin/env python3
# Assembles issue 31's finite-element test set with DOLFINx (run time, nothing committed) and
# writes each system as Matrix Market files (A: coordinate real general, b: array), full double
# precision, Dirichlet rows as DOLFINx leaves them (identity rows, explicit zeros kept).
# Systems: 3-D P1 elasticity in 3x3-blocked dof order (nu 0.3, 0.49), P2 Poisson with a
# coefficient jump of 1e3, P1 SUPG advection-diffusion in a recirculating flow at high Peclet
# number. With --set hard instead (issue 36's hard set, beside the generated reservoir): P1
# indefinite Helmholtz, where ILU(0) stagnates, and Taylor-Hood P2-P1 Stokes, a saddle point with a
# zero pressure block. Needs DOLFINx (Debian: python3-dolfinx; run it with /usr/bin/python3). Also
# writes OUT/systems.json, the list the benchmark and the tests read, and for each system whose
# block rows are mesh nodes (all but Stokes) NAME_coordinates.mtx, a point per block row, what a
# DOLFINx user would pass to fgdd-solve --coordinates.
import argparse
import json
import os
import sys
import time

import numpy as np
import ufl
from dolfinx import fem, mesh
from dolfinx.fem.petsc import apply_lifting, assemble_matrix, assemble_vector, set_bc
from mpi4py import MPI
from petsc4py import PETSc

# Cells per direction. small: a few thousand rows (CI); large: 50K-150K rows (benchmarks).
SIZES = {
    "small": {"elasticity": (16, 8, 8), "poisson_p2": 7, "supg": 15, "stokes": (8, 4, 4),
              "helmholtz": (64, 20.0)},
    "large": {"elasticity": (48, 24, 24), "poisson_p2": 24, "supg": 47, "stokes": (24, 12, 12),
              "helmholtz": (300, 40.0)},
}


def box(cells, length=(1.0, 1.0, 1.0)):
    return mesh.create_box(MPI.COMM_SELF, [np.zeros(3), np.array(length)], list(cells),
                           cell_type=mesh.CellType.tetrahedron)


def boundary_dofs(V, domain, where):
    facets = mesh.locate_entities_boundary(domain, domain.topology.dim - 1, where)
    return fem.locate_dofs_topological(V, domain.topology.dim - 1, facets)


def elasticity(cells, nu):
    """Cantilever 2x1x1 clamped at x = 0 under its own weight; E = 1, Poisson ratio nu."""
    domain = box(cells, (2.0, 1.0, 1.0))
    V = fem.VectorFunctionSpace(domain, ("Lagrange", 1))  # dof = 3 * node + component
    E = 1.0
    mu = E / (2 * (1 + nu))
    lmbda = E * nu / ((1 + nu) * (1 - 2 * nu))
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
    eps = lambda w: ufl.sym(ufl.grad(w))
    sigma = 2 * mu * eps(u) + lmbda * ufl.tr(eps(u)) * ufl.Identity(3)
    a = ufl.inner(sigma, eps(v)) * ufl.dx
    L = ufl.dot(fem.Constant(domain, np.array([0.0, 0.0, -1e-3])), v) * ufl.dx
    clamped = boundary_dofs(V, domain, lambda x: np.isclose(x[0], 0.0))
    bc = fem.dirichletbc(np.zeros(3, dtype=PETSc.ScalarType), clamped, V)
    return a, L, [bc]


def poisson_p2_jumps(n):
    """-div(kappa grad u) = 1 on the unit cube, P2; kappa = 1e3 in [0.25, 0.75]^3, else 1;
    u = 0 on x = 0 and x = 1."""
    domain = box((n, n, n))
    V = fem.FunctionSpace(domain, ("Lagrange", 2))
    K = fem.FunctionSpace(domain, ("DG", 0))
    kappa = fem.Function(K)
    inside = lambda x: np.all((x >= 0.25 - 1e-12) & (x <= 0.75 + 1e-12), axis=0)
    kappa.interpolate(lambda x: np.where(inside(x), 1e3, 1.0))
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
    a = kappa * ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx
    L = fem.Constant(domain, PETSc.ScalarType(1.0)) * v * ufl.dx
    dofs = boundary_dofs(V, domain, lambda x: np.isclose(x[0], 0.0) | np.isclose(x[0], 1.0))
    bc = fem.dirichletbc(PETSc.ScalarType(0.0), dofs, V)
    return a, L, [bc]


def supg_advection_diffusion(n):
    """-eps lap u + b.grad u = 1 on the unit cube, P1 with SUPG, eps = 1e-4, a recirculating
    b = (0.5 - y, x - 0.5, 0.1) (cell Peclet |b| h / (2 eps) from about 500 / n on the axis to
    3500 / n in the corners: no ordering follows the flow); u = 0 on the boundary."""
    domain = box((n, n, n))
    V = fem.FunctionSpace(domain, ("Lagrange", 1))
    eps = 1e-4
    x = ufl.SpatialCoordinate(domain)
    b = ufl.as_vector((0.5 - x[1], x[0] - 0.5, 0.1))
    h = ufl.CellDiameter(domain)
    b_norm = ufl.sqrt(ufl.dot(b, b))
    peclet = b_norm * h / (2 * eps)
    tau = h / (2 * b_norm) * (1 / ufl.tanh(peclet) - 1 / peclet)
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
    dx = ufl.dx(metadata={"quadrature_degree": 2})  # tau is not a polynomial: fix the rule
    # For P1 the element residual's diffusion term vanishes: SUPG adds tau (b.grad u)(b.grad v).
    a = (eps * ufl.inner(ufl.grad(u), ufl.grad(v)) + ufl.dot(b, ufl.grad(u)) * v
         + tau * ufl.dot(b, ufl.grad(u)) * ufl.dot(b, ufl.grad(v))) * dx
    L = fem.Constant(domain, PETSc.ScalarType(1.0)) * v * dx
    walls = boundary_dofs(V, domain, lambda x: np.full(x.shape[1], True))
    return a, L, [fem.dirichletbc(PETSc.ScalarType(0.0), walls, V)]


def stokes_channel(cells):
    """Taylor-Hood P2-P1 Stokes flow in the channel [0, 2] x [0, 1]^2: parabolic inflow at x = 0,
    no-slip walls, do-nothing outflow at x = 2 (which fixes the pressure's constant). The pressure
    block is zero; dofs in DOLFINx's mixed-space order."""
    domain = box(cells, (2.0, 1.0, 1.0))
    velocity = ufl.VectorElement("Lagrange", domain.ufl_cell(), 2)
    pressure = ufl.FiniteElement("Lagrange", domain.ufl_cell(), 1)
    W = fem.FunctionSpace(domain, ufl.MixedElement([velocity, pressure]))
    (u, p), (v, q) = ufl.TrialFunctions(W), ufl.TestFunctions(W)
    a = (ufl.inner(ufl.grad(u), ufl.grad(v)) - p * ufl.div(v) - q * ufl.div(u)) * ufl.dx
    L = ufl.inner(fem.Constant(domain, np.zeros(3)), v) * ufl.dx
    V, _ = W.sub(0).collapse()
    inflow, still = fem.Function(V), fem.Function(V)
    inflow.interpolate(lambda x: np.stack((16 * x[1] * (1 - x[1]) * x[2] * (1 - x[2]),
                                           0 * x[0], 0 * x[0])))
    fdim = domain.topology.dim - 1

    def velocity_dofs(where):
        facets = mesh.locate_entities_boundary(domain, fdim, where)
        return fem.locate_dofs_topological((W.sub(0), V), fdim, facets)

    on_wall = lambda x: (np.isclose(x[1], 0.0) | np.isclose(x[1], 1.0) | np.isclose(x[2], 0.0)
                         | np.isclose(x[2], 1.0))
    return a, L, [fem.dirichletbc(inflow, velocity_dofs(lambda x: np.isclose(x[0], 0.0)), W.sub(0)),
                  fem.dirichletbc(still, velocity_dofs(on_wall), W.sub(0))]


def helmholtz_indefinite(n, k):
    """-lap u - k^2 u = f on the unit square, P1 on n x n cells, u = 0 on the boundary, f a
    Gaussian source: indefinite (k^2 lies among the Laplacian's eigenvalues, k / (2 pi) waves
    across), so ILU(0) meets pivots of both signs and its GMRES stagnates."""
    domain = mesh.create_unit_square(MPI.COMM_SELF, n, n)
    V = fem.FunctionSpace(domain, ("Lagrange", 1))
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
    x = ufl.SpatialCoordinate(domain)
    f = ufl.exp(-100 * ((x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2))
    a = (ufl.inner(ufl.grad(u), ufl.grad(v)) - k * k * u * v) * ufl.dx
    walls = boundary_dofs(V, domain, lambda x: np.full(x.shape[1], True))
    return a, f * v * ufl.dx, [fem.dirichletbc(PETSc.ScalarType(0.0), walls, V)]


def assemble(a, L, bcs):
    """The usual DOLFINx linear-problem assembly: rows and columns of Dirichlet dofs zeroed,
    1 on their diagonal, the lifted right-hand side holding the boundary values."""
    a, L = fem.form(a), fem.form(L)
    A = assemble_matrix(a, bcs=bcs)
    A.assemble()
    b = assemble_vector(L)
    apply_lifting(b, [a], bcs=[bcs])
    b.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
    set_bc(b, bcs)
    return A, b


def write_matrix(path, A):
    indptr, indices, values = A.getValuesCSR()  # stored entries, explicit zeros included
    rows = np.repeat(np.arange(1, len(indptr)), np.diff(indptr))
    table = np.column_stack([rows, indices + 1, values]).astype(object)
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{A.getSize()[0]} {A.getSize()[1]} {len(values)}\n")
        np.savetxt(f, table, fmt=["%d", "%d", "%.17g"])


def write_vector(path, b):
    with open(path, "w") as f:
        f.write(f"%%MatrixMarket matrix array real general\n{b.getSize()} 1\n")
        np.savetxt(f, b.getArray(), fmt="%.17g")


def node_coordinates(a):
    """The point of each block row: the nodes of the trial space (one per block of a vector
    space, in DOLFINx's dof order, as the matrix's rows), or None for a mixed space, whose
    blocks are not one node each."""
    space = a.arguments()[1].ufl_function_space()
    if space.num_sub_spaces > 0 and space.dofmap.index_map_bs == 1:
        return None
    return space.tabulate_dof_coordinates()


def write_points(path, points):
    """A Matrix Market array file: one row per point, its coordinates column by column."""
    with open(path, "w") as f:
        f.write(f"%%MatrixMarket matrix array real general\n{points.shape[0]} {points.shape[1]}\n")
        np.savetxt(f, points.reshape(-1, order="F"), fmt="%.17g")


def symmetry_defect(A):
    """||A - A^T||_F / ||A||_F, for the manifest (SPD systems should give rounding only)."""
    At = A.transpose(PETSc.Mat())
    return (A - At).norm(PETSc.NormType.FROBENIUS) / A.norm(PETSc.NormType.FROBENIUS)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", choices=SIZES, default="small")
    parser.add_argument("--out", required=True, help="folder for the .mtx files")
    parser.add_argument("--set", choices=("peer", "hard"), default="peer",
                        help="peer: issue 31's set (PETSc comparisons); hard: issue 36's")
    args = parser.parse_args()
    if MPI.COMM_WORLD.size != 1:
        sys.exit("assemble_fem_systems.py: run on one process")
    os.makedirs(args.out, exist_ok=True)
    size = SIZES[args.size]
    problems = {"peer": [
        ("elasticity_nu030", True, 3, lambda: elasticity(size["elasticity"], 0.3)),
        ("elasticity_nu049", True, 3, lambda: elasticity(size["elasticity"], 0.49)),
        ("poisson_p2_jumps", True, 1, lambda: poisson_p2_jumps(size["poisson_p2"])),
        ("supg_advdiff", False, 1, lambda: supg_advection_diffusion(size["supg"])),
    ], "hard": [
        ("helmholtz_indefinite", False, 1, lambda: helmholtz_indefinite(*size["helmholtz"])),
        ("stokes_taylor_hood", False, 1, lambda: stokes_channel(size["stokes"])),
    ]}[args.set]
    manifest = []
    for name, spd, block_size, problem in problems:
        start = time.perf_counter()
        a, L, bcs = problem()
        A, b = assemble(a, L, bcs)
        matrix, rhs = os.path.join(args.out, name + ".mtx"), os.path.join(args.out, name + "_rhs.mtx")
        write_matrix(matrix, A)
        write_vector(rhs, b)
        entry = {"name": name, "matrix": matrix, "rhs": rhs, "spd": spd, "block_size": block_size,
                 "rows": A.getSize()[0], "entries": int(A.getInfo()["nz_used"]),
                 "symmetry_defect": symmetry_defect(A), "size": args.size}
        points = node_coordinates(a)
        if points is not None and points.shape[0] * block_size == A.getSize()[0]:
            entry["coordinates"] = os.path.join(args.out, name + "_coordinates.mtx")
            write_points(entry["coordinates"], points)
        entry["seconds"] = round(time.perf_counter() - start, 2)
        manifest.append(entry)
        print(json.dumps(entry), flush=True)
    with open(os.path.join(args.out, "systems.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
