# The runner as an installed tool (docs/install.md): what `cmake --install` puts under the prefix,
# and the same shape in the build tree, so that a binary finds its files the same way in both
# (runner/base/install_layout.hpp: PREFIX/share/runner beside PREFIX/bin).
#
#   bin/runner
#   share/runner/analysis/ jobs/ configs/ examples/ columns.json    what the commands read
#   share/runner/plugin/                                             the plugin build's extra source
#   share/runner/python/runner_records.py                            the pandas reader (generated)
#   include/runner/runner/api/ include/runner/kernels/               the kernel author's headers
#   lib/cmake/runner/                                                find_package(runner)
#   share/modulefiles/runner/VERSION.lua, share/modulefiles-tcl/runner/VERSION   module files
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(RUNNER_SHARE_SOURCES analysis jobs configs examples)

# Build tree: build/share/runner and build/include/runner link to the source tree (developers edit
# the sources and the build sees them at once; nothing is copied).
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/share/runner ${CMAKE_BINARY_DIR}/include/runner)
foreach(entry ${RUNNER_SHARE_SOURCES})
  if(EXISTS ${PROJECT_SOURCE_DIR}/${entry})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${entry} ${CMAKE_BINARY_DIR}/share/runner/${entry} SYMBOLIC)
  endif()
endforeach()
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/runner/results/columns.json
     ${CMAKE_BINARY_DIR}/share/runner/columns.json SYMBOLIC)
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/runner/plugin/stamp
     ${CMAKE_BINARY_DIR}/share/runner/plugin SYMBOLIC)
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/runner ${CMAKE_BINARY_DIR}/include/runner/runner SYMBOLIC)
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/kernels ${CMAKE_BINARY_DIR}/include/runner/kernels SYMBOLIC)

# Generated into the build tree's prefix and installed from there: the pandas reader.
include(${PROJECT_SOURCE_DIR}/cmake/RecordsReader.cmake)

# The installed prefix.
install(TARGETS runner_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY analysis/ DESTINATION ${CMAKE_INSTALL_DATADIR}/runner/analysis
        USE_SOURCE_PERMISSIONS PATTERN __pycache__ EXCLUDE PATTERN *.pyc EXCLUDE)
install(DIRECTORY jobs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/runner/jobs
        FILES_MATCHING PATTERN *.sbatch PATTERN *.md)
install(DIRECTORY configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/runner/configs
        FILES_MATCHING PATTERN *.yaml PATTERN *.json PATTERN *.md)
if(EXISTS ${PROJECT_SOURCE_DIR}/examples)
  install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/runner/examples)
endif()
install(FILES runner/results/columns.json DESTINATION ${CMAKE_INSTALL_DATADIR}/runner)
install(DIRECTORY runner/plugin/stamp/ DESTINATION ${CMAKE_INSTALL_DATADIR}/runner/plugin)
# The kernel author's headers: runner/api/ without its detail/ (the runtime side, compiled into
# the binary), and the families' problems and workload bases. In the same tree shape as the
# sources, so that a variant's include lines are the same in-tree and as a plugin
# (-I PREFIX/include/runner).
install(DIRECTORY runner/api/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/runner/runner/api
        FILES_MATCHING PATTERN *.hpp PATTERN *.cuh PATTERN detail EXCLUDE)
install(DIRECTORY kernels/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/runner/kernels
        FILES_MATCHING PATTERN *.hpp PATTERN *.cuh)

if(RUNNER_HAVE_CUDA)
  set(RUNNER_PLUGIN_BACKEND cuda)
elseif(RUNNER_HAVE_HIP)
  set(RUNNER_PLUGIN_BACKEND hip)
else()
  set(RUNNER_PLUGIN_BACKEND none)
endif()
set(RUNNER_PLUGIN_DEFINITIONS "${RUNNER_API_DEFINITIONS}")

# find_package(runner): runner::runner (the executable), runner::plugin (what a plugin compiles
# against) and runner_add_plugin() (cmake/runnerConfig.cmake.in).
set(RUNNER_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/runner)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/runnerConfig.cmake.in
  ${CMAKE_BINARY_DIR}/generated/runnerConfig.cmake
  INSTALL_DESTINATION ${RUNNER_PACKAGE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/runnerConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/generated/runnerConfig.cmake
              ${CMAKE_BINARY_DIR}/generated/runnerConfigVersion.cmake
        DESTINATION ${RUNNER_PACKAGE_DIR})

# Module files that find the prefix from their own location (a moved prefix keeps working).
configure_file(${PROJECT_SOURCE_DIR}/cmake/modulefile.lua.in
               ${CMAKE_BINARY_DIR}/generated/modulefiles/runner/${PROJECT_VERSION}.lua @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/modulefile.tcl.in
               ${CMAKE_BINARY_DIR}/generated/modulefiles-tcl/runner/${PROJECT_VERSION} @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/generated/modulefiles/runner/${PROJECT_VERSION}.lua
        DESTINATION ${CMAKE_INSTALL_DATADIR}/modulefiles/runner)
install(FILES ${CMAKE_BINARY_DIR}/generated/modulefiles-tcl/runner/${PROJECT_VERSION}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/modulefiles-tcl/runner)
