#!/usr/bin/env bash
# Installs what building, running and testing the runner needs on Debian/Ubuntu, then configures
# and builds into build/. Safe to run again: it installs only what is missing and rebuilds only
# what changed. CUDA is used when a toolkit is found (nvcc on PATH or /usr/local/cuda).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build g++ make git pkg-config
  libyaml-cpp-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev libopenblas-dev
  libgtest-dev
  python3-pandas python3-matplotlib python3-jsonschema python3-yaml
  slurm-wlm munge
  clang
  # The hostile suite opens records.csv in a real spreadsheet (headless LibreOffice Calc).
  libreoffice-calc-nogui
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
if [[ ! -f $build_dir/build.ninja ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-}
fi
cmake --build "$build_dir" -j "$jobs"
