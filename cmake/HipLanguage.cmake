# enable_language(HIP) for -DRUNNER_GPU=hip, with a ROCm install (/opt/rocm, as `module load rocm`
# gives on a cluster) or Debian's packages (hipcc: HIP 5.2, clang-15, rocm-device-libs), which
# CMake 3.25 does not find alone:
#   - Debian installs hip-lang's CMake package under /usr/lib/<multiarch>/cmake, and CMake looks
#     for it only in <ROCm root>/lib/cmake: a ROCm root folder in the build tree links it there;
#   - its clang needs --rocm-path and the device libraries' folder, and is clang++-15, not the
#     default clang++.
# Sets RUNNER_HIP_COMPILER_TEXT (for build_info) and defaults CMAKE_HIP_ARCHITECTURES to gfx906
# (MI50 / DCU class) and gfx90a (MI200); -DCMAKE_HIP_ARCHITECTURES overrides.
if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)
  set(CMAKE_HIP_ARCHITECTURES gfx906 gfx90a)
endif()

set(debian_hip_lang /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/hip-lang)
set(debian_rocm_root ${CMAKE_BINARY_DIR}/debian-rocm-root)
if(NOT DEFINED CMAKE_HIP_COMPILER_ROCM_ROOT AND NOT EXISTS /opt/rocm/lib/cmake/hip-lang
   AND NOT EXISTS /usr/lib/cmake/hip-lang AND EXISTS ${debian_hip_lang}/hip-lang-config.cmake)
  file(MAKE_DIRECTORY ${debian_rocm_root}/lib/cmake)
  file(CREATE_LINK ${debian_hip_lang} ${debian_rocm_root}/lib/cmake/hip-lang SYMBOLIC)
  set(CMAKE_HIP_COMPILER_ROCM_ROOT ${debian_rocm_root} CACHE PATH "ROCm root (links to Debian's HIP)")
  if(NOT DEFINED CMAKE_HIP_COMPILER)
    find_program(debian_hip_clang NAMES clang++-15 REQUIRED)
    set(CMAKE_HIP_COMPILER ${debian_hip_clang} CACHE FILEPATH "HIP compiler (Debian's hipcc uses it)")
  endif()
  set(CMAKE_HIP_FLAGS
      "--rocm-path=/usr --rocm-device-lib-path=/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/amdgcn/bitcode ${CMAKE_HIP_FLAGS}"
      CACHE STRING "Flags of the HIP compiler" FORCE)
  message(STATUS "runner: HIP from Debian's packages (ROCm root ${debian_rocm_root})")
endif()
if(CMAKE_HIP_COMPILER_ROCM_ROOT STREQUAL debian_rocm_root)
  # hip-lang's dependency amd_comgr is in the multiarch folder too; CMake loads hip-lang at every
  # configure, compiler checks included (nested projects, which see the environment).
  if(DEFINED ENV{CMAKE_PREFIX_PATH} AND NOT "$ENV{CMAKE_PREFIX_PATH}" STREQUAL "")
    set(ENV{CMAKE_PREFIX_PATH} "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake:$ENV{CMAKE_PREFIX_PATH}")
  else()
    set(ENV{CMAKE_PREFIX_PATH} "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake")
  endif()
endif()

include(CheckLanguage)
check_language(HIP)
if(NOT CMAKE_HIP_COMPILER)
  message(FATAL_ERROR "RUNNER_GPU=hip but no HIP compiler was found: install hipcc (Debian 12) or "
                      "load ROCm (module load rocm), or pass -DCMAKE_HIP_COMPILER=")
endif()
enable_language(HIP)
find_package(hip REQUIRED CONFIG
  HINTS ${CMAKE_HIP_COMPILER_ROCM_ROOT} /opt/rocm /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/hip)
set(CMAKE_HIP_STANDARD 20)
set(CMAKE_HIP_STANDARD_REQUIRED ON)
set(CMAKE_HIP_EXTENSIONS OFF)
set(RUNNER_HIP_COMPILER_TEXT "${CMAKE_HIP_COMPILER_ID} ${CMAKE_HIP_COMPILER_VERSION} (HIP ${hip_VERSION})")
message(STATUS "runner: HIP kernels for ${CMAKE_HIP_ARCHITECTURES} (${RUNNER_HIP_COMPILER_TEXT})")
