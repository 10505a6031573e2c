# Generates build_info.cpp at every build (not only at configure time), so that records carry the
# git revision the binary was really built from, with "-dirty" when the tree had changes.
string(REPLACE ";" "," runner_cuda_archs "${CMAKE_CUDA_ARCHITECTURES}")
set(runner_hip_archs "")
if(RUNNER_HAVE_HIP)
  string(REPLACE ";" "," runner_hip_archs "${CMAKE_HIP_ARCHITECTURES}")
endif()
set(RUNNER_BUILD_INFO_CPP ${CMAKE_BINARY_DIR}/generated/build_info.cpp)
add_custom_target(runner_build_info
  COMMAND ${CMAKE_COMMAND}
    -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${RUNNER_BUILD_INFO_CPP}
    -DVERSION=${PROJECT_VERSION}
    -DCXX_COMPILER=${CMAKE_CXX_COMPILER_ID}\ ${CMAKE_CXX_COMPILER_VERSION}
    -DCUDA_COMPILER=${CMAKE_CUDA_COMPILER_ID}\ ${CMAKE_CUDA_COMPILER_VERSION}
    -DCUDA_ARCHITECTURES=${runner_cuda_archs}
    -DHIP_COMPILER=${RUNNER_HIP_COMPILER_TEXT}
    -DHIP_ARCHITECTURES=${runner_hip_archs}
    -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
    -DTOOLCHAIN_FILE=${CMAKE_BINARY_DIR}/generated/plugin_toolchain_data.cpp
    -P ${CMAKE_SOURCE_DIR}/cmake/WriteBuildInfo.cmake
  BYPRODUCTS ${RUNNER_BUILD_INFO_CPP}
  COMMENT "Recording git revision"
  VERBATIM)
