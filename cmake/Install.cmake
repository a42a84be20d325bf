# cmake --install: the library, headers under include/fgdd (so <fgdd/fgdd.hpp> works), and a
# package config for find_package(fgdd) that finds Kokkos, KokkosKernels and the optional deps.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS fgdd EXPORT fgddTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(FGDD_ENABLE_MPI)
  install(DIRECTORY src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fgdd
          FILES_MATCHING PATTERN "*.hpp")
else()  # the MPI layer's headers need <mpi.h>
  install(DIRECTORY src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fgdd
          FILES_MATCHING PATTERN "*.hpp" PATTERN "mpi" EXCLUDE)
endif()
if(FGDD_ENABLE_TRILINOS)
  install(TARGETS fgdd_trilinos EXPORT fgddTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY trilinos/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fgdd/trilinos
          FILES_MATCHING PATTERN "*.hpp")
endif()
install(EXPORT fgddTargets NAMESPACE fgdd:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fgdd)

set(FGDD_CONFIG_ENABLE_METIS ${FGDD_ENABLE_METIS})
set(FGDD_CONFIG_ENABLE_MPI ${FGDD_ENABLE_MPI})
set(FGDD_CONFIG_ENABLE_TRILINOS ${FGDD_ENABLE_TRILINOS})
if(FGDD_ENABLE_METIS)
  get_filename_component(FGDD_CONFIG_METIS_ROOT "${METIS_INCLUDE_DIR}" DIRECTORY)
endif()
configure_package_config_file(cmake/fgddConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/fgddConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fgdd)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/fgddConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fgddConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/fgddConfigVersion.cmake
              cmake/RepairDebianKokkos.cmake cmake/FindMETIS.cmake cmake/TrilinosStack.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fgdd)
