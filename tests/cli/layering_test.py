#!/usr/bin/env python3
"""The layering of runner/ and kernels/ (docs/architecture.md), checked on every include.

runner/ is one folder per concept, in the order data flows through a run. A folder may include
itself and the folders before it in LAYERS, never one after it: an include that goes up the list
is a cycle waiting to happen and fails this test. kernels/ sees only the kernel author's API
(runner/api/, not its detail/) and kernels/ itself; nothing in runner/ includes kernels/. The
public headers of runner/api/ (installed for plugins, without detail/) include no detail/ header.
The command line (CLI11, runner/cli/) stays in runner/cli/.
"""
import pathlib
import re
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LAYERS = ["base", "api", "spec", "plugin", "measure", "results", "run", "slurm", "cli"]
SOURCES = (".cpp", ".hpp", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^>"]+)[>"]', re.MULTILINE)


def includes(path):
    return INCLUDE.findall(path.read_text(errors="replace"))


def violations(root):
    """Every include of `root`'s runner/ and kernels/ that breaks the layering, as text."""
    found = []
    runner = root / "runner"
    for path in sorted(p for p in runner.rglob("*") if p.suffix in SOURCES):
        layer = path.relative_to(runner).parts[0]
        if layer not in LAYERS:
            found.append(f"{path.relative_to(root)}: runner/{layer}/ is not a layer of {LAYERS}")
            continue
        for inc in includes(path):
            where = f"{path.relative_to(root)}: #include {inc}"
            if inc.startswith("kernels/"):
                found.append(f"{where}: runner/ must not depend on kernels/")
            if inc.startswith("CLI/") and layer != "cli":
                found.append(f"{where}: command-line code belongs in runner/cli/")
            if not inc.startswith("runner/"):
                continue
            if (layer == "api" and "detail" not in path.parts and path.suffix in (".hpp", ".cuh")
                    and "/detail/" in inc):
                found.append(f"{where}: a public api/ header (installed) may not include detail/")
            target = inc.split("/")[1]
            if target not in LAYERS:
                found.append(f"{where}: runner/{target}/ is not a layer")
            elif LAYERS.index(target) > LAYERS.index(layer):
                found.append(f"{where}: {layer}/ may not include {target}/ (it comes later)")
    kernels = root / "kernels"
    for path in sorted(p for p in kernels.rglob("*") if p.suffix in SOURCES):
        for inc in includes(path):
            where = f"{path.relative_to(root)}: #include {inc}"
            if inc.startswith("runner/") and not inc.startswith("runner/api/"):
                found.append(f"{where}: kernels see runner/api/ only")
            elif "/detail/" in inc and inc.startswith("runner/"):
                found.append(f"{where}: runner/api/**/detail/ is the runner's, not a kernel's")
    return found


class Layering(unittest.TestCase):
    def test_every_include_goes_down_the_layers(self):
        found = violations(ROOT)
        self.assertEqual(found, [], "\n" + "\n".join(found))

    def test_every_layer_exists(self):
        for layer in LAYERS:
            self.assertTrue((ROOT / "runner" / layer).is_dir(), layer)

    def test_an_upward_include_is_reported(self):
        # The checker itself: a tree with one include of each forbidden kind.
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            files = {
                "runner/api/a.hpp": '#include "runner/run/experiment.hpp"\n',
                "runner/api/cuda/i.hpp": '#include "runner/api/cuda/detail/event_clock.hpp"\n',
                "runner/spec/b.cpp": '#include "runner/spec/c.hpp"\n#include <CLI/CLI.hpp>\n',
                "runner/run/d.cpp": '#include "runner/results/e.hpp"\n',
                "runner/results/f.cpp": '#include "kernels/gemm/g.hpp"\n',
                "kernels/gemm/h.cu": '#include "runner/measure/sampling.hpp"\n'
                '#include "runner/api/cuda/detail/l2_flush.hpp"\n#include "runner/api/point.hpp"\n',
            }
            for name, text in files.items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(text)
            found = violations(root)
            self.assertEqual(len(found), 6, "\n".join(found))
            for culprit in ["api/a.hpp", "spec/b.cpp", "results/f.cpp", "measure/sampling",
                            "detail/l2_flush", "cuda/i.hpp"]:
                self.assertTrue(any(culprit in v for v in found), culprit)


if __name__ == "__main__":
    sys.exit(unittest.main())
