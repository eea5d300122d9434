"""``evosoko compare``: solvers against levels and seeds under one budget, resumably."""
