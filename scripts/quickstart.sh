#!/usr/bin/env bash
# Quick start step 1: dependencies, build, and the main job on a generated 7-point Laplacian
# (64³ = 262,144 rows): BiCGSTAB with the DD ILDU0 preconditioner (fgdd's default).
set -euo pipefail
cd "$(dirname "$0")/.."
# The main job needs no FEM test stack (DOLFINx, PETSc); scripts/test.sh installs it.
FGDD_FEM_TEST_DEPS=0 scripts/install_deps.sh
scripts/build.sh
"${FGDD_BUILD_DIR:-build}"/tools/fgdd-solve --matrix gen:lap7:64 --tol 1e-8
