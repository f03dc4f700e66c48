"""The library's use cases: run, resume, metrics of a stored run, score, rerun."""
