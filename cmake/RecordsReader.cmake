# runner_records.py, the pandas reader of records (docs/analysis.md), generated from the column
# table at configure time into the build tree's prefix (build/share/runner/python/) and installed
# beside it: the table is inside the module, so a user can copy the one file anywhere. CMake
# configures again whenever columns.json changes (cmake/EmbedColumns.cmake watches it).
# runner_columns_json: the table as cmake/EmbedColumns.cmake read it.
if(runner_columns_json MATCHES "\"\"\"" OR runner_columns_json MATCHES "\\\\")
  message(FATAL_ERROR "runner/results/columns.json: a triple quote or a backslash would break "
                      "the raw string of cmake/runner_records.py.in")
endif()
set(RUNNER_COLUMN_TABLE "${runner_columns_json}")
set(RUNNER_VERSION ${PROJECT_VERSION})
set(RUNNER_RECORDS_READER ${CMAKE_BINARY_DIR}/share/runner/python/runner_records.py)
configure_file(${CMAKE_SOURCE_DIR}/cmake/runner_records.py.in ${RUNNER_RECORDS_READER} @ONLY)
install(FILES ${RUNNER_RECORDS_READER} DESTINATION ${CMAKE_INSTALL_DATADIR}/runner/python)
