#!/usr/bin/env bash
# Installs fgdd's Debian 12 dependencies when any is missing (Kokkos and Kokkos-Kernels 3.4
# Serial, METIS, OpenMPI, Catch2, CMake, g++), Trilinos' Tpetra, Belos and Ifpack2 for the
# adapter in trilinos/ unless FGDD_TRILINOS_DEPS=0, what the FEM tests need (DOLFINx, petsc4py,
# SciPy) unless FGDD_FEM_TEST_DEPS=0, and the packages given as arguments (check_hip.sh's ROCm).
# Runs apt-get as root, or through sudo.
set -euo pipefail
packages=(cmake g++ make libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev libmetis-dev
          libopenmpi-dev openmpi-bin catch2 "$@")
# trilinos/: Debian's libtrilinos-tpetra-dev does not depend on the -dev packages its CMake
# config includes (Teuchos, Epetra, Thyra, ...), so they are listed here (about 30 MB).
if [ "${FGDD_TRILINOS_DEPS:-1}" != 0 ]; then
  packages+=(libtrilinos-teuchos-dev libtrilinos-tpetra-dev libtrilinos-belos-dev
             libtrilinos-ifpack2-dev libtrilinos-epetra-dev libtrilinos-epetraext-dev
             libtrilinos-triutils-dev libtrilinos-thyra-dev libtrilinos-rtop-dev
             libtrilinos-xpetra-dev libtrilinos-zoltan-dev libtrilinos-zoltan2-dev
             libtrilinos-amesos2-dev libtrilinos-shylu-dev libtrilinos-aztecoo-dev
             libtrilinos-trilinosss-dev)
fi
# unit_tests/fem: DOLFINx assembles the systems, PETSc is the peer. About 160-220 more packages
# (~180 MB download, ~1 GB installed; 2.5 minutes here). Without them those tests are not
# registered (configure says so).
if [ "${FGDD_FEM_TEST_DEPS:-1}" != 0 ]; then
  packages+=(python3-dolfinx python3-petsc4py python3-scipy)
fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "fgdd: all Debian dependencies are installed"
  exit 0
fi
echo "fgdd: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "${missing[@]}"
