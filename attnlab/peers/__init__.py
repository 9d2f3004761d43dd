"""The PyTorch peers (`python -m attnlab.peers`) and the GPU's ceilings
(`python -m attnlab.peers.ceilings`): bench/README.md."""
