# fgdd_find_trilinos_stack(<found_var> <why_var>): finds Tpetra, Belos and Ifpack2 (Trilinos'
# CMake configs) and defines the interface target fgdd::trilinos_stack with their headers and
# libraries and MPI. Sets <found_var> FALSE, with the reason in <why_var>, when they are missing
# or were built on another Kokkos than the one fgdd uses (their headers carry their own Kokkos).
# Debian 12's Trilinos 13.2 configs name imported targets without include dirs, and its
# libtrilinos-tpetra-dev does not pull in the -dev packages its config includes (Teuchos,
# Epetra, Thyra, ...): scripts/install_deps.sh installs those.
function(fgdd_find_trilinos_stack found_var why_var)
  set(${found_var} FALSE PARENT_SCOPE)
  if(TARGET fgdd::trilinos_stack)
    set(${found_var} TRUE PARENT_SCOPE)
    return()
  endif()
  foreach(package IN ITEMS Tpetra Belos Ifpack2)
    find_package(${package} CONFIG QUIET)
    if(NOT ${package}_FOUND)
      set(${why_var} "${package}'s CMake config was not found (Debian: libtrilinos-${package}-dev)"
          PARENT_SCOPE)
      return()
    endif()
  endforeach()
  # Trilinos' Kokkos must be fgdd's: compare the folders their configs sit in.
  get_filename_component(_kokkos_prefix "${Kokkos_DIR}/.." REALPATH)
  get_filename_component(_tpetra_prefix "${Tpetra_DIR}/.." REALPATH)
  if(NOT _kokkos_prefix STREQUAL _tpetra_prefix)
    set(${why_var} "Tpetra (${Tpetra_DIR}) was built on another Kokkos than fgdd's (${Kokkos_DIR})"
        PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET MPI::MPI_CXX)
    find_package(MPI QUIET COMPONENTS CXX)
    if(NOT MPI_CXX_FOUND)
      set(${why_var} "Tpetra needs MPI, which was not found" PARENT_SCOPE)
      return()
    endif()
  endif()
  add_library(fgdd::trilinos_stack INTERFACE IMPORTED GLOBAL)
  set_target_properties(fgdd::trilinos_stack PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${Ifpack2_INCLUDE_DIRS};${Ifpack2_TPL_INCLUDE_DIRS}"
    INTERFACE_LINK_LIBRARIES
      "${Ifpack2_LIBRARIES};${Belos_LIBRARIES};${Tpetra_LIBRARIES};MPI::MPI_CXX")
  set(${found_var} TRUE PARENT_SCOPE)
endfunction()
