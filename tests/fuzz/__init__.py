"""A seeded fuzz suite over every input path: transcript files, BFCL files, suite files and
hostile `python:` agents. `python -m pytest tests/fuzz` runs a small sample per input kind;
`benchmarks/fuzz.py` runs thousands."""
