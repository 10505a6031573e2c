"""Where a run ran, in words for titles: the GPU's name, the host and its CPU, and
the calibrated ceilings of both (ceilings.py).  Read from manifest.json's
"environment" (and "calibration"), falling back to the records' host and gpu
columns for runs whose manifest lacks them.

A figure's title names the machine it shows: "NVIDIA H100 80GB HBM3, host
gpu-node07" for GPU points, "Intel Xeon (16 cores), host gpu-node07" for CPU
points, both when a figure holds both.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

import pandas as pd

from ceilings import Ceilings


class RunInfo(NamedTuple):
    host: str
    gpu: str       # the GPU's name, empty without one
    cpu: str       # the CPU model, empty when not recorded
    cores: int     # 0 when not recorded
    ceilings: Ceilings

    @classmethod
    def from_run(cls, manifest: dict, df: pd.DataFrame) -> "RunInfo":
        env = manifest.get("environment") if isinstance(manifest, dict) else None
        env = env if isinstance(env, dict) else {}
        gpu = env.get("gpu")
        if isinstance(gpu, dict):
            gpu = gpu.get("name") if gpu.get("present", True) else ""
        gpu = str(gpu or _one_value(df, "gpu"))
        host = str(env.get("host") or _one_value(df, "host"))
        cores = env.get("cores")
        return cls(host=host, gpu=gpu, cpu=str(env.get("cpu_model") or ""),
                   cores=int(cores) if isinstance(cores, (int, float)) else 0,
                   ceilings=Ceilings.from_manifest(manifest))

    def device_line(self, backends: Iterable[str]) -> str:
        """The machine that measured points of these backends, for a title."""
        backends = set(backends)
        parts = []
        if backends - {"cpu"} and self.gpu:  # a GPU backend: cuda or hip
            parts.append(self.gpu)
        if "cpu" in backends and self.cpu:
            parts.append(self.cpu + (f" ({self.cores} cores)" if self.cores else ""))
        if self.host:
            parts.append(f"host {self.host}")
        return ", ".join(parts)


def _one_value(df: pd.DataFrame, col: str) -> str:
    values = sorted(v for v in df[col].unique() if v) if col in df else []
    return ", ".join(values)
