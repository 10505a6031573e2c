# The two commands of README.md. Each does all of its set-up: installs missing Debian packages,
# configures and builds (scripts/setup.sh), then runs.
#   make run    runs configs/gemm.yaml (CPU points here; CUDA points too where a GPU is present)
#   make test   runs the whole test suite (unit, CLI, Slurm, analysis; GPU tests where a GPU is
#               present), then the unit tests under ASan/UBSan and the config fuzzer (a clang build),
#               then the HIP build's unit and CLI tests (scripts/hip-check.sh, build-hip/)
BUILD_DIR ?= build
CONFIG ?= configs/gemm.yaml
FUZZ_SECONDS ?= 60
export BUILD_DIR

.PHONY: build run test clean
build:
	scripts/setup.sh

run: build
	$(BUILD_DIR)/bin/runner $(CONFIG)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure --timeout 900
	scripts/sanitize-and-fuzz.sh $(FUZZ_SECONDS)
	scripts/hip-check.sh

clean:
	rm -rf $(BUILD_DIR) build-check build-hip
