"""configs/schema.json against the configs it describes.

Every shipped configs/*.yaml must name the schema on its first line and validate against it; so
must a config that uses every key and the complete examples of docs/configuration.md; and every file of the bad-config corpus that YAML can
load must be rejected by the schema, unless its mistake is one only the runner can see (names
that need the registry, duplicate keys that YAML loaders silently merge, rules across values).

Runs under the system Python (Debian packages python3-jsonschema and python3-yaml).
"""
import json
import os
import pathlib
import sys
import unittest

import jsonschema
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "configs" / "schema.json"
CORPUS = ROOT / "tests" / "cli" / "bad_configs"
SCHEMA_COMMENT = "# yaml-language-server: $schema=schema.json"

# Mistakes the schema cannot express; the runner reports them.
ONLY_THE_RUNNER_SEES = {
    "10_unknown_kernel.yaml": "kernel names come from the binary's registry",
    "11_unknown_variant.yaml": "variant names come from the registry",
    "12_axis_not_used_by_variant.yaml": "which axes a variant uses comes from the registry",
    "13_axis_not_used_by_kernel.yaml": "which axes a kernel uses comes from the registry",
    "14_duplicate_top_level_key.yaml": "YAML loaders keep the last of duplicate keys",
    "15_duplicate_axis_in_sweep.yaml": "YAML loaders keep the last of duplicate keys",
    "62_duplicate_key_in_exclude.yaml": "YAML loaders keep the last of duplicate keys",
    "27_size_bytes_overflow.yaml": "bytes depend on the kernel and dtype",
    "29_gemm_size_without_k.yaml": "k is required for gemm only",
    "36_max_samples_below_min.yaml": "a rule between two values",
    "51_baseline_unknown_variant.yaml": "variant names come from the registry",
    "53_exclude_everything.yaml": "needs the expanded matrix",
    "60_no_kernel.yaml": "kernel may be given at the top level or in each sweep",
    "65_matrix_too_large.yaml": "a bound on the product of list lengths",
    "75_exclude_unknown_variant.yaml": "variant names come from the registry",
    "76_exclude_unknown_kernel.yaml": "kernel names come from the registry",
    "77_exclude_matches_nothing.yaml": "needs the expanded matrix",
    "78_baseline_fixes_unused_axis.yaml": "which axes a variant uses comes from the registry",
    "79_exclude_variant_of_another_kernel.yaml": "variant names come from the registry",
    "81_second_exclude_entry_matches_nothing.yaml": "needs the expanded matrix",
}

# Files whose YAML holds a cycle (an alias inside its own anchor): PyYAML builds it, and a schema
# validator would walk it forever; the runner refuses them.
CYCLES = {"68_alias_inside_itself.yaml"}

FULL_CONFIG = """
experiment: every_key
description: a config with every key
kernel: gemm
variant: omp_blocked
dtype: float
block: [32, 8]
threads: 4
kernel_size: 5
grid: 0
print: false
repeat: {warmup: 2, min_samples: 5, max_samples: 100, target_rsd: 0.005, min_seconds: 0.05, max_seconds: 2.0}
measure: cold
baseline: {variant: omp_naive, threads: 1}
verify: {seed: 42}
timeout_s: 120
sweeps:
  - {variant: [omp_blocked, openblas], size: [64, {m: 96, n: 64, k: 32}], threads: [1, 2]}
  - {kernel: transpose, size: 1024, block: [[32, 8], "16x16", 64, [128]], dtype: [float, double]}
  - {kernel: conv2d, size: 512, kernel_size: [3, 5, 7]}
  - {kernel: hello, grid: [1, 2], print: [true, false]}
exclude:
  - {size: 64, threads: 2}
slurm:
  partition: gpu
  account: proj
  qos: normal
  time: "00:30:00"
  gres: "gpu:1"
  constraint: h100
  cpus: 16
  throttle: 4
  extra: ["--exclusive"]
  mem: 16G
  exclude: node[01-03],gpu7
  setup: ["module load cuda/12.4", "source ~/venv/bin/activate"]
"""


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


class SchemaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(SCHEMA_FILE, encoding="utf-8") as f:
            cls.schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(cls.schema)
        cls.validator = jsonschema.Draft202012Validator(cls.schema)

    def test_a_config_with_every_key_is_valid(self):
        errors = [e.message for e in self.validator.iter_errors(yaml.safe_load(FULL_CONFIG))]
        self.assertEqual(errors, [])

    def test_shipped_configs_name_the_schema_and_validate(self):
        configs = sorted((ROOT / "configs").rglob("*.yaml"))
        if not configs:
            self.skipTest("no configs/*.yaml yet")
        for path in configs:
            with self.subTest(config=path.name):
                first_line = path.read_text(encoding="utf-8").split("\n", 1)[0]
                # a config in a folder of configs/ names the schema by its relative path
                relative = os.path.relpath(SCHEMA_FILE, path.parent)
                self.assertEqual(first_line, SCHEMA_COMMENT.replace("schema.json", relative))
                errors = [f"{list(e.absolute_path)}: {e.message}" for e in self.validator.iter_errors(load_yaml(path))]
                self.assertEqual(errors, [])

    def test_examples_of_the_configuration_reference_validate(self):
        text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
        blocks = [b.split("```", 1)[0] for b in text.split("```yaml\n")[1:]]
        complete = [b for b in blocks if b.startswith(SCHEMA_COMMENT)]
        self.assertGreaterEqual(len(complete), 3)
        for block in complete:
            with self.subTest(example=block.splitlines()[1]):
                errors = [f"{list(e.absolute_path)}: {e.message}" for e in self.validator.iter_errors(yaml.safe_load(block))]
                self.assertEqual(errors, [])

    def test_corpus_is_rejected_where_the_schema_can_tell(self):
        rejected = 0
        for path in sorted(CORPUS.glob("*.yaml")):
            try:
                document = load_yaml(path)
            except (yaml.YAMLError, UnicodeDecodeError):
                continue  # syntax, tabs, bytes: the YAML layer's business
            if path.name in CYCLES:
                continue  # a recursive structure: no validator walks it
            with self.subTest(config=path.name):
                valid = self.validator.is_valid(document)
                if path.name in ONLY_THE_RUNNER_SEES:
                    self.assertTrue(valid, f"{path.name} is now caught by the schema: drop it from ONLY_THE_RUNNER_SEES")
                else:
                    self.assertFalse(valid, f"the schema accepts {path.name}")
                    rejected += 1
        self.assertGreaterEqual(rejected, 30)

    def test_schema_rejects_typical_mistakes(self):
        cases = {
            "unknown top-level key": {"experiment": "e", "sweeps": [{"size": 8}], "repet": {}},
            "unknown axis": {"experiment": "e", "sweeps": [{"thread": [1]}]},
            "threads 0": {"experiment": "e", "sweeps": [{"threads": 0}]},
            "threads 100000": {"experiment": "e", "sweeps": [{"threads": [1, 100000]}]},
            "block [0, 16]": {"experiment": "e", "sweeps": [{"block": [0, 16]}]},
            "even kernel_size": {"experiment": "e", "sweeps": [{"kernel_size": 4}]},
            "empty list": {"experiment": "e", "sweeps": [{"threads": []}]},
            "empty sweeps": {"experiment": "e", "sweeps": []},
            "size as text": {"experiment": "e", "sweeps": [{"size": "big"}]},
            "slash in the name": {"experiment": "a/b", "sweeps": [{"size": 8}]},
            "list as a default": {"experiment": "e", "threads": [1, 2], "sweeps": [{"size": 8}]},
            "baseline with a kernel": {"experiment": "e", "baseline": {"variant": "x", "kernel": "y"}, "sweeps": [{"size": 8}]},
        }
        for name, document in cases.items():
            with self.subTest(case=name):
                self.assertFalse(self.validator.is_valid(document))


if __name__ == "__main__":
    sys.exit(unittest.main())
