"""Measures of the field over results: ERT, ECDFs, intervals, tests, IOHprofiler files."""
