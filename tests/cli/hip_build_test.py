"""The HIP build (-DRUNNER_GPU=hip): what `runner list` says of every GPU variant, and a run of
tests/cli/hip_small.yaml. Registered with CTest in HIP builds only.

Usage: hip_build_test.py RUNNER_BINARY [-v]. On a machine without an AMD GPU (CI) every HIP point
is recorded `skipped` with "no HIP device" and the run exits 0; where a device is present the
portable variants must run and verify (status ok).
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNNER = None  # set from argv

# The seed variants the HIP build compiles from the CUDA sources (runner/api/gpu/runtime.hpp).
PORTABLE = {
    "gemm": {"naive_1d", "naive_2d", "shared"},
    "transpose": {"naive_row", "naive_col", "smem", "smem_pad", "tiled_rows", "copy"},
    "conv2d": {"naive", "shared"},
    "hello": {"hello"},
}
# The variants that need what only NVIDIA GPUs have, and a word of each reason.
NVIDIA_ONLY = {
    ("gemm", "cublas"): "cuBLAS",
    ("gemm", "cublas_tf32"): "cuBLAS",
    ("gemm", "dmma"): "mma.sync",
    ("gemm", "regtile"): "32-thread warps",
    ("transpose", "tiled_vec"): "__stwb",
    ("conv2d", "shared_reg"): "cp.async",
    ("conv2d", "cudnn"): "cuDNN",
}


def run(*args, check=True):
    return subprocess.run([RUNNER, *args], capture_output=True, text=True, check=check, cwd=ROOT)


def list_rows():
    """(kernel, variant) -> (backend, availability) from `runner list`, and its GPU line."""
    out = run("list").stdout
    rows = {}
    for line in out.splitlines()[1:]:
        m = re.match(r"(\S+)\s+(\S+)\s+(cpu|cuda|hip)\s+(yes|no \(.*?\))(?=\s)", line)
        if m:
            rows[(m[1], m[2])] = (m[3], m[4])
    gpu = re.search(r"^GPU: (.*)$", out, re.M)[1]
    return rows, gpu


class HipList(unittest.TestCase):
    def test_every_gpu_variant_is_hip_and_says_whether_it_runs(self):
        rows, gpu = list_rows()
        have_device = not gpu.startswith("no HIP device")
        for kernel, variants in PORTABLE.items():
            for v in variants:
                backend, available = rows[(kernel, v)]
                self.assertEqual(backend, "hip", (kernel, v))
                self.assertEqual(available, "yes" if have_device else "no (no HIP device)", (kernel, v))
        for (kernel, v), word in NVIDIA_ONLY.items():
            backend, available = rows[(kernel, v)]
            self.assertEqual(backend, "hip", (kernel, v))
            self.assertTrue(available.startswith("no (not available on HIP: needs "), available)
            self.assertIn(word, available)
        self.assertFalse([k for k, (b, _) in rows.items() if b == "cuda"], "no cuda rows in HIP")

    def test_seed003_config_validates(self):
        out = run("validate", "configs/seeds/seed003-dgemm.yaml").stdout
        self.assertRegex(out, r"ok, experiment 'seed003-dgemm', \d+ points \(\d+ HIP, \d+ CPU\)")


class HipRun(unittest.TestCase):
    def test_small_config_runs_and_gpu_points_say_why_not(self):
        _, gpu = list_rows()
        have_device = not gpu.startswith("no HIP device")
        with tempfile.TemporaryDirectory() as tmp:
            out_dir = pathlib.Path(tmp) / "out"
            done = run("tests/cli/hip_small.yaml", "--out", str(out_dir), "-q", "--no-calibrate",
                       check=False)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            records = [json.loads(l) for l in (out_dir / "records.jsonl").read_text().splitlines()]
            manifest = json.loads((out_dir / "manifest.json").read_text())
        self.assertEqual(len(records), 27)
        for r in records:
            key, status, message = (r["kernel"], r["variant"]), r["status"], r["message"]
            if r["backend"] == "cpu":
                self.assertEqual(status, "ok", r["point_key"])
            elif key in NVIDIA_ONLY:
                self.assertEqual(r["backend"], "hip")
                self.assertEqual(status, "skipped")
                self.assertIn("not available on HIP: needs " , message)
            else:
                self.assertIn(r["variant"], PORTABLE[r["kernel"]])
                self.assertEqual(r["backend"], "hip")
                if have_device:
                    self.assertEqual(status, "ok", r["point_key"] + ": " + message)
                else:
                    self.assertEqual(status, "skipped", r["point_key"])
                    self.assertTrue(message.startswith("no HIP device"), message)
        env = manifest["environment"]
        # The architectures the build was configured for (gfx906 and gfx90a by default).
        expected = os.environ.get("RUNNER_HIP_ARCHITECTURES", "gfx906,gfx90a").split(",")
        self.assertEqual(env["hip_architectures"].split(","), expected)
        self.assertTrue(env["hip_compiler"])
        self.assertEqual(env["gpu"]["present"], have_device)


class HipPlugin(unittest.TestCase):
    def test_the_tutorials_cuda_plugin_compiles_with_the_hip_compiler(self):
        """A .cu plugin on a HIP build is compiled by the HIP compiler, and its variant is hip."""
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, RUNNER_PLUGIN_CACHE=str(pathlib.Path(tmp) / "cache"))
            listed = subprocess.run(
                [RUNNER, "list", "--plugin", str(ROOT / "examples/own-kernel/my_tile.cu")],
                capture_output=True, text=True, cwd=ROOT, env=env)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        row = [l for l in listed.stdout.splitlines() if l.startswith("transpose ")]
        self.assertEqual(len(row), 1, listed.stdout)
        self.assertRegex(row[0], r"^transpose\s+my_tile\s+hip\s")
        self.assertIn("[plugin my_tile.cu@", row[0])


if __name__ == "__main__":
    RUNNER = sys.argv.pop(1)
    unittest.main()
