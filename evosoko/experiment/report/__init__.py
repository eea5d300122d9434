"""``evosoko report``: one self-contained HTML page for a run, a comparison or a sweep."""
