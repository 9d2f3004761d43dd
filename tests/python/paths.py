"""Puts the Python folders the training step uses on sys.path (train/, bench/, bench/peers/)."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
for folder in ("train", "bench", "bench/peers"):
    if str(REPO / folder) not in sys.path:
        sys.path.insert(0, str(REPO / folder))
