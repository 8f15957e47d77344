"""What a program prints under several hash seeds: each seed's child started side by side (they import planviz
at once, not in turn), the set of their outputs returned, so a test can ask that it has one member."""

from __future__ import annotations

import os
import subprocess
import sys


def outputs_under_hash_seeds(program: str, seeds: range = range(6)) -> set[str]:
    """The stripped standard output of ``python -c program`` under each ``PYTHONHASHSEED`` of ``seeds``; a child
    that fails fails the test with its standard error."""
    children = [
        subprocess.Popen(
            [sys.executable, "-c", program],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        )
        for seed in seeds
    ]
    outputs = set()
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        outputs.add(out.strip())
    return outputs
