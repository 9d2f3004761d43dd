"""Where a measurement ran: the gpu, driver, cuda_version, commit and date columns every results row carries."""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
from dataclasses import dataclass


@dataclass
class Environment:
    gpu: str
    driver: str
    cuda_version: str
    version: str  # PyTorch's version: a peer row's commit column (results/README.md)
    date: str


def read_environment(torch) -> Environment:
    driver = ""
    if shutil.which("nvidia-smi"):
        q = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True, text=True
        )
        driver = q.stdout.strip().splitlines()[0] if q.returncode == 0 and q.stdout.strip() else ""
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Environment(
        torch.cuda.get_device_name(), driver, torch.version.cuda or "", f"torch {torch.__version__}", date
    )


def commit_column(torch_version: str) -> str:
    """The `commit` of a row of attnlab's own code run through PyTorch (the step, the GEMMs):
    attnlab's commit ($ATTNLAB_COMMIT) and PyTorch's version."""
    return f"{os.environ.get('ATTNLAB_COMMIT', '')} {torch_version}".strip()


def environment_columns(torch) -> dict:
    """The gpu, driver, cuda_version, commit (commit_column) and date cells of such a row."""
    env = read_environment(torch)
    return {
        "gpu": env.gpu,
        "driver": env.driver,
        "cuda_version": env.cuda_version,
        "commit": commit_column(env.version),
        "date": env.date,
    }
