#!/usr/bin/env bash
# Compiles all of fgdd for AMD GPUs (HIP), with no AMD GPU needed: the library, fgdd-solve, the
# unit and MPI tests, perf_tests and the consumer example (built against the installed fgdd),
# warnings in fgdd's own code as errors.
#
#   scripts/check_hip.sh KOKKOS_SRC KOKKOS_KERNELS_SRC [ARCH ...]
#
# KOKKOS_SRC / KOKKOS_KERNELS_SRC: Kokkos 4.x and Kokkos-Kernels 4.x sources you downloaded
# (checked with Kokkos 4.6.99 develop and Kokkos-Kernels 4.7.00). ARCH: Kokkos AMD architecture
# names, default AMD_GFX90A (MI210/MI250, the seed paper's GPU) and AMD_GFX942 (MI300).
# Installs Debian's ROCm packages when missing (hipcc, HIP runtime and device libraries,
# rocSPARSE), builds Kokkos (HIP + Serial) and Kokkos-Kernels per architecture into
# ${FGDD_HIP_CACHE:-$HOME/.cache/fgdd-hip} (reused by later runs), and fgdd into
# ${FGDD_HIP_BUILD:-build-hip}/<arch>. Nothing runs: there is no AMD GPU here.
# An architecture this hipcc cannot compile for (Debian 12's hipcc 5.2.3 on LLVM 15 knows
# gfx90a but not gfx942, which needs LLVM 16 / ROCm 5.7) is reported as skipped.
# Exit status: 0 when every architecture compiled, 1 when one failed, 3 when none failed but
# one was skipped.
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
kokkos_src=$(cd "$1" && pwd)
kernels_src=$(cd "$2" && pwd)
shift 2
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(AMD_GFX90A AMD_GFX942)
cd "$(dirname "$0")/.."
root=$(pwd)

# fgdd's own dependencies and ROCm; neither Trilinos nor the FEM stack, which this build skips.
FGDD_TRILINOS_DEPS=0 FGDD_FEM_TEST_DEPS=0 scripts/install_deps.sh hipcc libamdhip64-dev \
  rocm-device-libs librocsparse-dev

jobs=$(nproc)
cache=${FGDD_HIP_CACHE:-$HOME/.cache/fgdd-hip}
builds=${FGDD_HIP_BUILD:-build-hip}
case $builds in /*) ;; *) builds=$root/$builds ;; esac  # the consumer's prefix path needs it
log_dir=$builds/logs
mkdir -p "$cache" "$log_dir"
status=0
skipped=0
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
printf '#include <hip/hip_runtime.h>\n__global__ void probe() {}\n' > "$probe_dir/probe.hip"
for arch in "${archs[@]}"; do
  prefix=$cache/$arch
  log=$log_dir/$arch
  echo "== $arch"
  gfx=$(echo "${arch#AMD_}" | tr '[:upper:]' '[:lower:]')
  if ! hipcc --offload-arch="$gfx" -c "$probe_dir/probe.hip" -o "$probe_dir/probe.o" \
       > "$log-probe.log" 2>&1; then
    echo "   SKIPPED: this hipcc cannot compile for $gfx ($(grep -m1 error "$log-probe.log"))"
    skipped=1
    continue
  fi
  # rocThrust is not packaged in Debian; Kokkos uses it only for sorting, which fgdd does not
  # take from Kokkos on HIP.
  if [ ! -e "$prefix/kokkos/.complete" ]; then
    echo "   building Kokkos (log $log-kokkos.log)"
    cmake -S "$kokkos_src" -B "$cache/build-kokkos-$arch" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER=hipcc -DCMAKE_CXX_STANDARD=17 -DCMAKE_INSTALL_PREFIX="$prefix/kokkos" \
      -DKokkos_ENABLE_HIP=ON -DKokkos_ENABLE_SERIAL=ON "-DKokkos_ARCH_$arch=ON" \
      -DKokkos_ENABLE_ROCTHRUST=OFF > "$log-kokkos.log" 2>&1 &&
      cmake --build "$cache/build-kokkos-$arch" -j"$jobs" >> "$log-kokkos.log" 2>&1 &&
      cmake --install "$cache/build-kokkos-$arch" >> "$log-kokkos.log" 2>&1 &&
      touch "$prefix/kokkos/.complete" || { echo "   Kokkos failed: $log-kokkos.log"; status=1; continue; }
  fi
  if [ ! -e "$prefix/kernels/.complete" ]; then
    echo "   building Kokkos-Kernels (log $log-kernels.log)"
    cmake -S "$kernels_src" -B "$cache/build-kernels-$arch" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER=hipcc -DCMAKE_INSTALL_PREFIX="$prefix/kernels" \
      -DKokkos_ROOT="$prefix/kokkos" -DKokkosKernels_ADD_DEFAULT_ETI=OFF \
      > "$log-kernels.log" 2>&1 &&
      cmake --build "$cache/build-kernels-$arch" -j"$jobs" >> "$log-kernels.log" 2>&1 &&
      cmake --install "$cache/build-kernels-$arch" >> "$log-kernels.log" 2>&1 &&
      touch "$prefix/kernels/.complete" || { echo "   Kokkos-Kernels failed: $log-kernels.log"; status=1; continue; }
  fi
  echo "   building fgdd (log $log-fgdd.log)"
  build=$builds/$arch
  if cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=hipcc \
       -DKokkos_ROOT="$prefix/kokkos" -DKokkosKernels_ROOT="$prefix/kernels" \
       -DFGDD_ENABLE_TESTS=ON -DFGDD_ENABLE_PERF_TESTS=ON -DFGDD_ENABLE_MPI=ON \
       -DFGDD_ENABLE_TRILINOS=OFF -DFGDD_WARNINGS_AS_ERRORS=ON > "$log-fgdd.log" 2>&1 &&
     cmake --build "$build" -j"$jobs" -- -k >> "$log-fgdd.log" 2>&1 &&
     cmake --install "$build" --prefix "$build/prefix" >> "$log-fgdd.log" 2>&1 &&
     cmake -S examples/consumer -B "$build/consumer" -DCMAKE_CXX_COMPILER=hipcc \
       -DCMAKE_PREFIX_PATH="$build/prefix;$prefix/kokkos;$prefix/kernels" >> "$log-fgdd.log" 2>&1 &&
     cmake --build "$build/consumer" >> "$log-fgdd.log" 2>&1; then
    echo "   fgdd: compiled (library, fgdd-solve, tests, perf_tests, the consumer example)"
  else
    echo "   fgdd failed: $log-fgdd.log"
    grep -E "error:|Error " "$log-fgdd.log" | head -20 || true
    status=1
  fi
done
[ $status -eq 0 ] && [ $skipped -eq 1 ] && status=3
exit $status
