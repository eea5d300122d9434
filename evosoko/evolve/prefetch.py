"""A software prefetch for compiled kernels that read a little of each of many genomes.

Replay reads a genome from its first gene and usually stops long before its last (at the
solution, or before a push that loses), so a batch's kernel jumps from the start of one genome
to the start of the next: a stride the processor's own prefetcher does not follow, and every
genome's first genes would miss the caches. :func:`prefetch` asks for them a few genomes ahead
(LLVM's ``llvm.prefetch``, which never faults, whatever the address). Measured with
``benchmarks/bench_kernel.py`` (20,000 random genomes of 200 genes, of which replay reads about
30), this took a fifth off the move kernel's time.
"""

from __future__ import annotations

import numba
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CACHE_LINE_ITEMS = 16
"""Genes (int32) per 64-byte cache line."""


@intrinsic
def prefetch(typingctx, array, index):  # pragma: no cover - compiled
    """Hint that ``array[index]`` will be read soon (compiled code only; no bounds needed)."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(
            context, builder, array_type, view, [args[1]], wraparound=False, boundscheck=False
        )
        byte_pointer = ir.IntType(8).as_pointer()
        word = ir.IntType(32)
        function_type = ir.FunctionType(ir.VoidType(), [byte_pointer, word, word, word])
        # the typed-pointer name, which LLVM versions with opaque pointers also take
        name = "llvm.prefetch.p0i8"
        function = cgutils.get_or_insert_function(builder.module, function_type, name)
        # read (0), keep in all cache levels (3), data cache (1)
        builder.call(function, [builder.bitcast(pointer, byte_pointer), word(0), word(3), word(1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


AHEAD = 2
"""How many genomes ahead of the one replayed :func:`prefetch_ahead` asks for."""

LINES = 2
"""Cache lines asked for per genome: replay of random genomes mostly stops within them."""


@numba.njit(cache=True, inline="always")
def first_ahead(lengths):  # pragma: no cover - compiled
    """Where genome :data:`AHEAD` of a packed batch starts (the first one asked for)."""
    start = 0
    for i in range(min(AHEAD, lengths.shape[0])):
        start += lengths[i]
    return start


@numba.njit(cache=True, inline="always")
def prefetch_ahead(genes, lengths, i, ahead):  # pragma: no cover - compiled
    """Ask for the first genes of genome ``i + AHEAD``, which starts at ``ahead``; return where
    the genome after it starts. Call once per genome ``i``, in order."""
    if i + AHEAD >= lengths.shape[0]:
        return ahead
    for line in range(LINES):
        prefetch(genes, ahead + line * CACHE_LINE_ITEMS)
    return ahead + lengths[i + AHEAD]
