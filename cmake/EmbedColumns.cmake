# The column table (runner/results/columns.json) is compiled into the runner as a string, so that
# the binary needs no file beside it; analysis/ reads the same file. Written at configure time;
# CMake configures again whenever the JSON changes.
set(RUNNER_COLUMNS_JSON ${CMAKE_SOURCE_DIR}/runner/results/columns.json)
set(RUNNER_COLUMNS_CPP ${CMAKE_BINARY_DIR}/generated/columns_json.cpp)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${RUNNER_COLUMNS_JSON})
file(READ ${RUNNER_COLUMNS_JSON} runner_columns_json)
file(CONFIGURE OUTPUT ${RUNNER_COLUMNS_CPP} CONTENT
"// Generated from runner/results/columns.json by cmake/EmbedColumns.cmake: do not edit.
namespace runner::detail {
extern const char* const kColumnsJson;
const char* const kColumnsJson = R\"runner_columns(@runner_columns_json@)runner_columns\";
}  // namespace runner::detail
" @ONLY)
