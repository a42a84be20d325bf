#!/usr/bin/env bash
# Quick start step 2: dependencies (if missing), build, and the whole test suite through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh -DFGDD_ENABLE_TESTS=ON -DFGDD_ENABLE_PERF_TESTS=ON -DFGDD_ENABLE_MPI=ON
cd "${FGDD_BUILD_DIR:-build}"
ctest --output-on-failure
