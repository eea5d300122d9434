"""Level evolution: a GA over Sokoban boards whose fitness is a certificate.

A board within a size (or mask) is a genome of cell codes (:mod:`~evosoko.levelgen.space`),
varied by registered level operators (:mod:`~evosoko.levelgen.operators`) and repaired into a
legal level (:mod:`~evosoko.levelgen.repair`); each candidate is certified by a chosen search
within a node cap (:mod:`~evosoko.levelgen.certificate`, push-optimal by default), and the
objectives (:mod:`~evosoko.levelgen.objectives`) read the certificate. Selection and survival
are the GA's own: (mu + lambda), tournaments, NSGA-II and the MAP-Elites archive.
"""
