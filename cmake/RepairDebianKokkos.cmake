# Debian 12's Trilinos packages ship a faulty Kokkos CMake config: Kokkos::kokkos points its
# include dir at <prefix>/include instead of <prefix>/include/trilinos, and Kokkos-Kernels only
# exports trilinos_kokkoskernels. Repair both when detected; a proper Kokkos install is untouched.

function(fgdd_repair_debian_kokkos)
  if(TARGET Kokkos::kokkos)
    # Only Debian's broken config sets an include dir on Kokkos::kokkos itself; a proper
    # Kokkos 4 install carries its includes on Kokkos::kokkoscore and is left alone.
    get_target_property(_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
    if(_inc)
      list(GET _inc 0 _dir)
    endif()
    if(_inc AND NOT _dir MATCHES "^\\$<" AND NOT EXISTS "${_dir}/Kokkos_Core.hpp")
      # Kokkos_DIR is <prefix>/lib/<triplet>/cmake/Kokkos; the headers are <prefix>/include/trilinos.
      find_path(FGDD_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp NO_DEFAULT_PATH
                PATHS "${Kokkos_DIR}/../../../../include/trilinos" /usr/include/trilinos)
      if(NOT FGDD_KOKKOS_INCLUDE_DIR)
        message(FATAL_ERROR "Kokkos::kokkos names ${_dir} for its headers, but Kokkos_Core.hpp is not there")
      endif()
      message(STATUS "fgdd: repairing Kokkos::kokkos include dir ${_dir} -> ${FGDD_KOKKOS_INCLUDE_DIR}")
      set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                                                      "${FGDD_KOKKOS_INCLUDE_DIR}")
    endif()
  endif()
  if(NOT TARGET Kokkos::kokkoskernels AND TARGET trilinos_kokkoskernels)
    message(STATUS "fgdd: aliasing Debian's trilinos_kokkoskernels as Kokkos::kokkoskernels")
    add_library(Kokkos::kokkoskernels INTERFACE IMPORTED)
    set_target_properties(Kokkos::kokkoskernels PROPERTIES
      INTERFACE_LINK_LIBRARIES "trilinos_kokkoskernels;Kokkos::kokkos")
  endif()
endfunction()
