# The two commands of README.md. Each does all of its set-up: installs missing Debian packages,
# configures and builds (scripts/setup.sh), then runs.
#   make run    runs configs/gemm.yaml (CPU points here; CUDA points too where a GPU is present)
#   make test   runs the whole test suite (unit, CLI, Slurm, analysis; GPU tests where a GPU is present)
BUILD_DIR ?= build
CONFIG ?= configs/gemm.yaml
export BUILD_DIR

.PHONY: build run test clean
build:
	scripts/setup.sh

run: build
	$(BUILD_DIR)/bin/runner $(CONFIG)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure --timeout 900

clean:
	rm -rf $(BUILD_DIR)
