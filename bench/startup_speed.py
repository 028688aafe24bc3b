"""Seconds from `loci serve` to a ready service: cold (fresh data dir and model cache) and warm.

Why a benchmark and not a timed test: start-up time depends on the machine and its load;
the targets (warm <= 5 s, cold with the model export <= 20 s, on a 2-core VM) are read
here and written in the issue notes, not asserted where a busy CI machine would flake.

    python -m bench.startup_speed [--warm-runs 3] [--keep-model-cache]

"Ready" is `GET /readyz` answering 200, what a deployment's probe waits for. Each run
stops the service with SIGINT and checks that nothing it started is left running.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil

READY_TIMEOUT_S = 180.0
"""A cold start on a loaded 2-core machine exports the model (~15 s); far beyond that is a hang."""
POLL_S = 0.05


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _left_running(data_dir: Path) -> list[int]:
    left = []
    for proc in psutil.process_iter(attrs=["cmdline", "cwd"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if str(data_dir) in cmdline or str(data_dir) in (proc.info["cwd"] or ""):
            left.append(proc.pid)
    return left


def time_to_ready(data_dir: Path, model_cache: Path) -> float:
    """One start: seconds until /readyz says 200, then SIGINT and wait for the exit."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update({"HF_HUB_OFFLINE": "1", "LOCI_EMBEDDING_ONNX_CACHE_DIR": str(model_cache), "LOCI_LOG_LEVEL": "WARNING"})
    args = [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data-dir", str(data_dir)]
    began = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        while time.perf_counter() - began < READY_TIMEOUT_S:
            if proc.poll() is not None:
                raise SystemExit(f"serve exited ({proc.returncode}): {proc.stderr.read() if proc.stderr else ''}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                    return time.perf_counter() - began
            except httpx.HTTPError:
                pass
            time.sleep(POLL_S)
        raise SystemExit(f"not ready after {READY_TIMEOUT_S:.0f} s")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
        if left := _left_running(data_dir):
            raise SystemExit(f"left running after SIGINT: pids {left}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warm-runs", type=int, default=3)
    parser.add_argument(
        "--keep-model-cache", action="store_true", help="cold start with the user's ONNX cache (no export)"
    )
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="loci-startup-") as tmp:
        root = Path(tmp)
        os.chmod(root, 0o755)  # embedded PostgreSQL runs as another user under root
        data_dir = root / "data"
        cache = Path.home() / ".cache" / "loci" / "onnx" if opts.keep_model_cache else root / "onnx"
        cold = time_to_ready(data_dir, cache)
        how = "model cache kept" if opts.keep_model_cache else "model export included"
        print(f"cold start to ready: {cold:.1f} s ({how})")
        warm = [time_to_ready(data_dir, cache) for _ in range(opts.warm_runs)]
        print(
            f"warm start to ready: median {statistics.median(warm):.1f} s (runs: {', '.join(f'{w:.1f}' for w in warm)})"
        )


if __name__ == "__main__":
    main()
