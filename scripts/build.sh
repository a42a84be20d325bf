#!/usr/bin/env bash
# Configures and builds fgdd into ${FGDD_BUILD_DIR:-build} with every core of the machine.
# Extra arguments go to CMake's configure step (e.g. -DKokkos_ROOT=/opt/kokkos-cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${FGDD_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release} "$@"
cmake --build "$build_dir" -j"$(nproc)"
