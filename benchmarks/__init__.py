"""Benchmarks run by ``wec bench``; each prints ratios against a yardstick of the same run."""
