#!/usr/bin/env bash
# scripts/setup.sh [run|test]: installs what is missing on Debian/Ubuntu, then configures and
# builds into build/. Safe to run again: it installs only what is missing and rebuilds only what
# changed (through ccache where it is installed).
#
#   run   what running needs: the compilers and the libraries the runner links; builds the runner
#         alone, for the GPU of this machine (its compute capability) or, without a GPU, for one
#         architecture (sm_90). `make run` uses it: a first result in minutes.
#   test  (default) everything the test suite needs besides (GoogleTest, the Python of the
#         reports, a real Slurm and munge, clang for the sanitizer build, LibreOffice Calc for the
#         spreadsheet tests, Lmod for the module file); builds every target. `make test` uses it.
#
# CUDA is used when a toolkit is found (nvcc on PATH or /usr/local/cuda). CMAKE_ARGS is passed to
# the first configure; a -DCMAKE_CUDA_ARCHITECTURES there wins over the choice above. Plain CMake
# (cmake -S . -B build) builds for sm_80 and sm_90, the default for users (README.md).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-test}
case $mode in run | test) ;; *)
  echo "usage: scripts/setup.sh [run|test]" >&2
  exit 2
  ;;
esac

packages=(
  cmake ninja-build g++ make git pkg-config
  libyaml-cpp-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev libopenblas-dev
)
if [[ $mode == test ]]; then
  packages+=(
    libgtest-dev
    python3-pandas python3-matplotlib python3-jsonschema python3-yaml
    slurm-wlm munge
    clang
    # The hostile suite opens records.csv in a real spreadsheet (headless LibreOffice Calc).
    libreoffice-calc-nogui
    # The install test loads the generated module file with the real Lmod.
    lmod
  )
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  t0=$(date +%s)
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup: packages installed in $(($(date +%s) - t0)) s"
fi

build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
configure_args=()
if [[ ! -f $build_dir/build.ninja && ${CMAKE_ARGS:-} != *CMAKE_CUDA_ARCHITECTURES* && $mode == run ]]; then
  # The GPU of this machine when it has one; one architecture otherwise (a build for two takes
  # about twice as long in the CUDA kernels).
  arch=""
  if command -v nvidia-smi >/dev/null 2>&1; then
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .' || true)
  fi
  [[ $arch =~ ^[0-9]+$ ]] || arch=90
  configure_args+=("-DCMAKE_CUDA_ARCHITECTURES=$arch")
  echo "setup: CUDA kernels for sm_$arch (CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=... to choose)"
fi
t0=$(date +%s)
if [[ ! -f $build_dir/build.ninja ]]; then
  # shellcheck disable=SC2086 # CMAKE_ARGS holds several words on purpose
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${configure_args[@]}" ${CMAKE_ARGS:-}
elif [[ $mode == test ]]; then
  # Configured by `make run` before GoogleTest was installed: look again, so the tests are built.
  cmake -S . -B "$build_dir" >/dev/null
fi
if [[ $mode == run ]]; then
  cmake --build "$build_dir" -j "$jobs" --target runner_cli
else
  cmake --build "$build_dir" -j "$jobs"
fi
echo "setup: configured and built in $(($(date +%s) - t0)) s"
