"""``evosoko run``: a configuration over its levels, in a resumable run folder."""
