# How this build compiles its kernels, written into the binary so that `runner` compiles a user's
# plugin the same way (runner/plugin/plugin_toolchain.hpp): the compilers, the flags of the build
# type, the GPU architectures, the definitions of the api/ headers, the system include folders.
# The include folder of the runner's own headers is not here: the binary finds it from its prefix.
string(TOUPPER "${CMAKE_BUILD_TYPE}" runner_build_type)
set(runner_plugin_warnings "-Wall -Wextra -Wno-missing-field-initializers")

set(RUNNER_PLUGIN_CXX_FLAGS
    "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${runner_build_type}} -std=c++20 -fPIC ${OpenMP_CXX_FLAGS} ${runner_plugin_warnings}")

set(RUNNER_PLUGIN_DEFINES "")
foreach(def ${RUNNER_API_DEFINITIONS})
  string(APPEND RUNNER_PLUGIN_DEFINES " -D${def}")
endforeach()

# Include folders of what the api/ headers include beyond the standard library.
set(runner_plugin_includes "")
get_target_property(runner_json_includes nlohmann_json::nlohmann_json INTERFACE_INCLUDE_DIRECTORIES)
if(runner_json_includes)
  list(APPEND runner_plugin_includes ${runner_json_includes})
endif()

set(RUNNER_PLUGIN_CUDA_COMPILER "")
set(RUNNER_PLUGIN_CUDA_FLAGS "")
set(RUNNER_PLUGIN_CUDA_LIBRARY_DIR "")
if(RUNNER_HAVE_CUDA)
  list(APPEND runner_plugin_includes ${CUDAToolkit_INCLUDE_DIRS})
  set(RUNNER_PLUGIN_CUDA_COMPILER ${CMAKE_CUDA_COMPILER})
  set(runner_arch_flags "")
  foreach(arch ${CMAKE_CUDA_ARCHITECTURES})
    if(arch MATCHES "^(native|all|all-major)$")
      string(APPEND runner_arch_flags " -arch=${arch}")
    elseif(arch MATCHES "^([0-9]+[af]?)-real$")
      string(APPEND runner_arch_flags " --generate-code=arch=compute_${CMAKE_MATCH_1},code=sm_${CMAKE_MATCH_1}")
    elseif(arch MATCHES "^([0-9]+[af]?)-virtual$")
      string(APPEND runner_arch_flags " --generate-code=arch=compute_${CMAKE_MATCH_1},code=compute_${CMAKE_MATCH_1}")
    else()
      string(APPEND runner_arch_flags " --generate-code=arch=compute_${arch},code=[compute_${arch},sm_${arch}]")
    endif()
  endforeach()
  set(runner_host "")
  if(CMAKE_CUDA_HOST_COMPILER)
    set(runner_host "-ccbin ${CMAKE_CUDA_HOST_COMPILER}")
  endif()
  set(RUNNER_PLUGIN_CUDA_FLAGS
      "${runner_host} ${CMAKE_CUDA_FLAGS} ${CMAKE_CUDA_FLAGS_${runner_build_type}} -std=c++20 --expt-relaxed-constexpr -Xcompiler=-fPIC,${OpenMP_CXX_FLAGS},-Wall,-Wextra,-Wno-missing-field-initializers ${runner_arch_flags}")
  set(RUNNER_PLUGIN_CUDA_LIBRARY_DIR ${CUDAToolkit_LIBRARY_DIR})
endif()

set(RUNNER_PLUGIN_HIP_COMPILER "")
set(RUNNER_PLUGIN_HIP_FLAGS "")
if(RUNNER_HAVE_HIP)
  set(RUNNER_PLUGIN_HIP_COMPILER ${CMAKE_HIP_COMPILER})
  set(runner_arch_flags "")
  foreach(arch ${CMAKE_HIP_ARCHITECTURES})
    string(APPEND runner_arch_flags " --offload-arch=${arch}")
  endforeach()
  get_target_property(runner_hip_includes hip::host INTERFACE_INCLUDE_DIRECTORIES)
  if(runner_hip_includes)
    list(APPEND runner_plugin_includes ${runner_hip_includes})
  endif()
  get_target_property(runner_hip_definitions hip::host INTERFACE_COMPILE_DEFINITIONS)
  if(runner_hip_definitions)
    foreach(def ${runner_hip_definitions})
      string(APPEND RUNNER_PLUGIN_DEFINES " -D${def}")
    endforeach()
  endif()
  # No OpenMP: the runner's own HIP sources are compiled without it (clang's OpenMP runtime is not
  # the one the binary has loaded).
  set(RUNNER_PLUGIN_HIP_FLAGS
      "${CMAKE_HIP_FLAGS} ${CMAKE_HIP_FLAGS_${runner_build_type}} -std=c++20 -x hip -fPIC ${runner_plugin_warnings} ${runner_arch_flags}")
endif()

list(REMOVE_DUPLICATES runner_plugin_includes)
set(RUNNER_PLUGIN_SYSTEM_INCLUDES "")
foreach(dir ${runner_plugin_includes})
  if(NOT dir MATCHES "^\\$<" AND NOT dir STREQUAL "/usr/include")
    string(APPEND RUNNER_PLUGIN_SYSTEM_INCLUDES " -isystem ${dir}")
  endif()
endforeach()

configure_file(${PROJECT_SOURCE_DIR}/cmake/plugin_toolchain_data.cpp.in
               ${CMAKE_BINARY_DIR}/generated/plugin_toolchain_data.cpp @ONLY)
set(RUNNER_PLUGIN_TOOLCHAIN_CPP ${CMAKE_BINARY_DIR}/generated/plugin_toolchain_data.cpp)
