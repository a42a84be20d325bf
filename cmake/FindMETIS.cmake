# Finds METIS (no CMake config ships with it). Hints: METIS_ROOT. Defines METIS::METIS.
find_path(METIS_INCLUDE_DIR metis.h HINTS ${METIS_ROOT} ENV METIS_ROOT PATH_SUFFIXES include)
find_library(METIS_LIBRARY NAMES metis HINTS ${METIS_ROOT} ENV METIS_ROOT
             PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(METIS REQUIRED_VARS METIS_LIBRARY METIS_INCLUDE_DIR)
if(METIS_FOUND AND NOT TARGET METIS::METIS)
  add_library(METIS::METIS UNKNOWN IMPORTED)
  set_target_properties(METIS::METIS PROPERTIES IMPORTED_LOCATION "${METIS_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${METIS_INCLUDE_DIR}")
endif()
mark_as_advanced(METIS_INCLUDE_DIR METIS_LIBRARY)
