"""The runner and configs/schema.json accept and refuse the same values.

Each case is a small config that differs from a valid one in one value; `runner validate` and the
schema (python-jsonschema on the YAML as PyYAML reads it) must both accept it or both refuse it.
The few mistakes the schema cannot see (rules between the numbers of a range) are listed apart:
the runner refuses them and the schema lets them through, never the other way round, so an editor
never flags a config the runner would run.

Usage: schema_agreement_test.py RUNNER_BINARY (the system Python: python3-yaml, python3-jsonschema).
"""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

import jsonschema
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNNER = None

# A config for each axis, with one line left for the value under test.
TEMPLATES = {
    "gemm": "experiment: e\nkernel: gemm\nsweeps:\n  - variant: omp_blocked\n    size: 64\n    {}\n",
    "transpose": "experiment: e\nkernel: transpose\nsweeps:\n  - variant: omp_serial\n    {}\n",
    "conv2d": "experiment: e\nkernel: conv2d\nsweeps:\n  - variant: omp_serial\n    size: 64\n    {}\n",
    "hello": "experiment: e\nkernel: hello\nsweeps:\n  - {}\n",
    "cuda": "experiment: e\nkernel: transpose\nsweeps:\n  - variant: naive_row\n    size: 64\n    {}\n",
    "top": "experiment: e\nkernel: gemm\n{}\nsweeps:\n  - {{variant: omp_serial, size: 64}}\n",
    "raw": "{}",
}

# (template, the line, whether both accept it)
BOTH = [
    # booleans: YAML 1.2's spellings and YAML 1.1's words
    ("hello", "print: true", True),
    ("hello", "print: [true, false]", True),
    ("hello", "print: [True, FALSE]", True),
    ("hello", "print: [yes, no, on, off, Yes, OFF]", True),
    ("hello", "print: ['yes', \"false\"]", True),
    ("hello", "print: maybe", False),
    ("hello", "print: 1", False),
    ("hello", "print: y", False),
    # integers, as YAML writes them
    ("gemm", "threads: 2", True),
    ("gemm", "threads: [1, 2.0, +3]", True),
    ("gemm", "threads: 2.5", False),
    ("gemm", "threads: \"2\"", False),
    ("gemm", "threads: two", False),
    ("gemm", "threads: 0", False),
    ("gemm", "threads: 4097", False),
    ("gemm", "threads: []", False),
    ("top", "timeout_s: 30", True),
    ("top", "timeout_s: 2.5", True),
    ("top", "timeout_s: '30'", False),
    ("top", "timeout_s: 0", False),
    ("top", "repeat: {warmup: 0, min_samples: 3.0, max_samples: 3}", True),
    ("top", "repeat: {target_rsd: 1.5}", False),
    ("top", "verify: {seed: 9223372036854775807}", True),
    ("top", "verify: {seed: -1}", False),
    # sizes
    ("transpose", "size: 64", True),
    ("transpose", "size: {m: 64, n: 32}", True),
    ("transpose", "size: [64, {m: 64, n: 32}]", True),
    ("transpose", "size: 0", False),
    ("transpose", "size: '64'", False),
    ("transpose", "size: {m: 64}", False),
    ("transpose", "size: {m: 64, n: 32, q: 1}", False),
    # ranges
    ("transpose", "size: {pow2: [128, 8192]}", True),
    ("transpose", "size: {range: [1024, 9216, 1024]}", True),
    ("transpose", "size: {range: [1024, 2048]}", True),
    ("transpose", "size: [100, {pow2: [128, 1024]}, 5000]", True),
    ("transpose", "size: {pow2: [100, 1024]}", False),
    ("transpose", "size: {pow2: [128]}", False),
    ("transpose", "size: {pow2: [128, 256, 512]}", False),
    ("transpose", "size: {range: [1024]}", False),
    ("transpose", "size: {range: [1024, 9216, 0]}", False),
    ("transpose", "size: {range: [1024, 9216, -1024]}", False),
    ("transpose", "size: {range: [1, 8.5]}", False),
    ("transpose", "size: {pow3: [128, 1024]}", False),
    ("transpose", "size: {pow2: [128, 1024], range: [1, 2]}", False),
    ("transpose", "size: {}", False),
    ("gemm", "threads: {pow2: [1, 16]}", True),
    ("gemm", "threads: [1, {range: [2, 8, 2]}, 12]", True),
    ("gemm", "threads: {pow2: [1, 8192]}", False),
    ("conv2d", "kernel_size: {range: [3, 9, 2]}", True),
    ("conv2d", "kernel_size: [1, {range: [5, 7, 2]}]", True),
    ("conv2d", "kernel_size: 4", False),
    ("conv2d", "kernel_size: {pow2: [1, 4]}", False),
    ("hello", "grid: {pow2: [1, 1024]}", True),
    ("hello", "grid: {range: [0, 4]}", True),
    ("hello", "grid: {range: [-1, 4]}", False),
    ("cuda", "block: [32, 8]", True),
    ("cuda", "block: [[32, 8], \"16x16\", 64, \"128\"]", True),
    ("cuda", "block: [\"64\", \"8x4\"]", True),
    ("cuda", "block: {pow2: [32, 1024]}", False),
    ("cuda", "block: [0, 8]", False),
    ("top", "threads: {pow2: [1, 4]}", False),
    ("top", "baseline: {variant: omp_serial, threads: {pow2: [1, 4]}}", False),
    # names from the registry
    ("gemm", "dtype: [float, fp64]", True),
    ("gemm", "dtype: half", False),
    ("transpose", "size: 64\n  - {kernel: gemm, variant: [omp_serial, omp_tiled], size: 64}", True),
    ("transpose", "size: 64\n  - {kernel: gemm, variant: omp_serail, size: 64}", False),
    ("transpose", "size: 64\n  - {kernel: gemm, variant: naive_row, size: 64}", False),
    ("transpose", "size: 64\n  - {kernel: gemn, size: 64}", False),
    ("top", "baseline: omp_serial", True),
    ("top", "baseline: omp_serail", False),
    ("top", "measure: hot", True),
    ("top", "measure: warm", False),
    # names of experiments
    ("raw", "experiment: e-1.b_2\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: 8}\n", True),
    ("raw", "experiment: 2024\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: 8}\n", True),
    ("raw", "experiment: a/b\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: 8}\n", False),
    ("raw", "experiment: .e\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: 8}\n", False),
    # what YAML reads as a boolean or a fraction is no name (issue 34: the runner took them)
    ("raw", "experiment: true\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: 8}\n", False),
    ("raw", "experiment: yes\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: 8}\n", False),
    ("raw", "experiment: 1.5\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: 8}\n", False),
    ("raw", "experiment: 'true'\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: 8}\n", True),
    ("raw", "experiment: \"1.5\"\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: 8}\n", True),
    # YAML's hexadecimal integers are integers (issue 34: the schema took 0x40, the runner not)
    ("transpose", "size: 0x40", True),
    ("gemm", "threads: [0x1, 0x2]", True),
    ("transpose", "size: {pow2: [0x40, 0x100]}", True),
    ("top", "timeout_s: 0x1e", True),
    ("transpose", "size: 0x0", False),
    ("transpose", "size: 0xZZ", False),
    # Slurm time limits in sbatch's forms (issue 34: validate took "1 hour", submit refused it)
    ("top", "slurm: {time: \"1 hour\"}", False),
    ("top", "slurm: {time: \"1h\"}", False),
    ("top", "slurm: {time: \"00:30:00\"}", True),
    ("top", "slurm: {time: \"2-00:00:00\"}", True),
    ("top", "slurm: {time: \"2-12\"}", True),
    ("top", "slurm: {time: 30}", True),
    ("top", "slurm: {time: UNLIMITED}", True),
    ("top", "slurm: {time: -5}", False),
]

# Refused by the runner, accepted by the schema: rules JSON Schema cannot state.
ONLY_THE_RUNNER = [
    ("transpose", "size: {range: [9216, 1024, 1024]}", "start <= stop"),
    ("transpose", "size: {range: [1024, 9000, 1024]}", "stop - start is a multiple of step"),
    ("transpose", "size: {range: [1, 1000000]}", "at most 100000 values"),
    ("conv2d", "kernel_size: {range: [3, 9]}", "every value odd, not only the ends"),
    ("cuda", "block: [64, \"8\"]", "a list that starts with a number is one block [x, y]: telling "
     "the first item apart needs prefixItems, which ajv's strict mode flags on a list"),
]


def config_text(template, line):
    return TEMPLATES[template].format(line)


class SchemaAgreementTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(ROOT / "configs" / "schema.json", encoding="utf-8") as f:
            cls.validator = jsonschema.Draft202012Validator(json.load(f))
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def verdicts(self, text):
        path = pathlib.Path(self.tmp.name) / "case.yaml"
        path.write_text(text, encoding="utf-8")
        r = subprocess.run([RUNNER, "validate", str(path)], capture_output=True, text=True,
                           timeout=30)
        self.assertIn(r.returncode, (0, 2), r.stderr)
        errors = [e.message for e in self.validator.iter_errors(yaml.safe_load(text))]
        return r.returncode == 0, r.stderr.strip(), errors

    def test_both_accept_or_both_refuse(self):
        for template, line, accepted in BOTH:
            with self.subTest(case=line):
                runner_ok, runner_says, schema_says = self.verdicts(config_text(template, line))
                self.assertEqual(runner_ok, accepted, f"runner: {runner_says}")
                self.assertEqual(not schema_says, accepted, f"schema: {schema_says}")

    def test_what_only_the_runner_refuses(self):
        for template, line, rule in ONLY_THE_RUNNER:
            with self.subTest(case=line, rule=rule):
                runner_ok, _, schema_says = self.verdicts(config_text(template, line))
                self.assertFalse(runner_ok)
                self.assertEqual(schema_says, [], "the schema now sees it: move it to BOTH")


if __name__ == "__main__":
    RUNNER = sys.argv.pop(1)
    sys.exit(unittest.main())
