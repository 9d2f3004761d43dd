"""The measured training step (`python -m attnlab.step`) and the GEMMs at its shapes
(`python -m attnlab.step.gemms`): train/README.md."""
