"""configs/schema.json is what `runner schema` prints: it is generated, never edited by hand.

Usage: schema_current_test.py RUNNER_BINARY. Every variant is registered in every build (a CUDA
variant in a build without CUDA too, runner/api/registry.hpp), so the CPU-only and the CUDA build
print the same schema.
"""
import difflib
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "configs" / "schema.json"


def main():
    runner = sys.argv[1]
    printed = subprocess.run([runner, "schema"], check=True, capture_output=True, text=True).stdout
    committed = COMMITTED.read_text(encoding="utf-8")
    if printed == committed:
        print("configs/schema.json is current")
        return 0
    diff = list(difflib.unified_diff(committed.splitlines(), printed.splitlines(),
                                     "configs/schema.json (committed)", "runner schema", lineterm=""))
    print("\n".join(diff[:60]))
    if len(diff) > 60:
        print(f"... {len(diff) - 60} more lines of diff")
    print("configs/schema.json is stale: run `build/bin/runner schema --out configs/schema.json` "
          "and commit it")
    return 1


if __name__ == "__main__":
    sys.exit(main())
