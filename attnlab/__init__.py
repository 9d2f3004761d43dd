"""attnlab's Python side: the PyTorch operator, the measured training step, the PyTorch peers
and ceilings, and the results tables (attnlab/README.md).

Importing the package, or any module of it that says "plain Python", needs no torch; the
modules that run on the GPU import it when they run.
"""
