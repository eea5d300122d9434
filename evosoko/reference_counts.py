"""The two ways a compiled kernel treats numba's reference counts of arrays.

numba counts a reference for every array a compiled function binds: each argument, each array
of a tuple argument, each field read into a local. In the push searches' successor loop that was
29 % of the CPU (docs/xsokoban.md, round 36), so the loop and the kernels it calls per expansion
and per child are :data:`uncounted`. Such a kernel makes no array (numba refuses to compile one
that does), returns none, and takes none from a :data:`counted` kernel: a count taken on one
side and not given back on the other frees an array too early or never. Every kernel an
uncounted one calls is one of the two (or inlined), since numba compiles a kernel that says
nothing with the setting of its first caller. tests/test_reference_counts.py checks these rules.
"""

from __future__ import annotations

import numba

uncounted = numba.njit(cache=True, _nrt=False)  # type: ignore[call-overload]
"""Compile a kernel (cached) without reference counts."""

counted = numba.njit(cache=True, _nrt=True)  # type: ignore[call-overload]
"""Compile a kernel (cached) with reference counts, as ``numba.njit`` does by default, whatever
kernel calls it first."""
