"""Percentiles printed one line per operation."""

from __future__ import annotations

import math

__all__ = ["pct", "print_latencies"]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def print_latencies(label: str, times: dict[str, list[float]]) -> None:
    print(f"  {label} (ms):", flush=True)
    for name, values in times.items():
        if values:
            print(f"    {name:<22} n={len(values):4d} p50={pct(values, 50):7.2f} p95={pct(values, 95):7.2f} "
                  f"p99={pct(values, 99):7.2f}", flush=True)  # fmt: skip
