# The two commands of README.md. Each does all of its set-up: installs missing Debian packages,
# configures and builds (scripts/setup.sh), then runs.
#   make run      installs only what running needs, builds only the runner (for this machine's GPU,
#                 or one architecture), runs configs/gemm.yaml (CPU points here; CUDA points too
#                 where a GPU is present)
#   make test     installs the test tools too, builds everything, runs the whole test suite (unit,
#                 CLI, Slurm, analysis, install; GPU tests where a GPU is present) in parallel, then
#                 the unit tests under ASan/UBSan and the config fuzzer (a clang build), then the
#                 HIP build's unit and CLI tests (scripts/hip-check.sh, build-hip/)
#   make install  the runner into PREFIX (default /usr/local): bin/, share/runner/, include/runner/,
#                 lib/cmake/runner/, module files (docs/install.md)
BUILD_DIR ?= build
CONFIG ?= configs/gemm.yaml
FUZZ_SECONDS ?= 60
PREFIX ?= /usr/local
export BUILD_DIR

.PHONY: build run test install clean
build:
	scripts/setup.sh test

run:
	scripts/setup.sh run
	$(BUILD_DIR)/bin/runner $(CONFIG)

test: build
	scripts/run-tests.sh $(FUZZ_SECONDS)

install:
	scripts/setup.sh run
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD_DIR) build-check build-hip
