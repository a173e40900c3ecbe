"""Shared fixtures: the repository, and the `omen` CLI binary that cargo built (for cross-checks)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def _cli() -> Path | None:
    given = os.environ.get("OMEN_BIN")
    if given:
        return Path(given)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("debug", "release"):
        candidate = target / profile / "omen"
        if candidate.exists():
            return candidate
    return None


@pytest.fixture(scope="session")
def omen_cli():
    """Runs `omen ARGS… --format json` and returns the parsed JSON."""
    binary = _cli()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("no omen binary: build it with `cargo build -p omen-cli` or set OMEN_BIN")
        pytest.skip("no omen binary: build it with `cargo build -p omen-cli` or set OMEN_BIN")

    def run(*args: str) -> dict:
        done = subprocess.run(
            [str(binary), *args, "--format", "json"],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "NO_COLOR": "1"},
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    run.binary = binary
    return run
