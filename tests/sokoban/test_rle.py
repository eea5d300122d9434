"""Run-length encoding of boards (evosoko.sokoban.rle)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evosoko.sokoban.rle import (
    MAX_EXPANDED_LENGTH,
    RunLengthError,
    is_run_length_encoded,
    rle_decode,
    rle_decode_rows,
    rle_encode_rows,
)

CELL = st.sampled_from("#@+$*.- ")
ROWS = st.lists(st.text(CELL, max_size=12).map(str.rstrip), min_size=1, max_size=8)


@st.composite
def encoded(draw, depth: int = 3) -> tuple[str, str]:
    """A random run-length expression and its expansion, built together."""
    parts = draw(st.lists(_piece(depth), min_size=1, max_size=4))
    return "".join(text for text, _ in parts), "".join(expansion for _, expansion in parts)


@st.composite
def _piece(draw, depth: int) -> tuple[str, str]:
    count = draw(st.integers(1, 12))
    prefix = str(count) if count > 1 or draw(st.booleans()) else ""
    if depth > 0 and draw(st.booleans()):
        inner, expansion = draw(encoded(depth - 1))
        return f"{prefix}({inner})", expansion * count
    char = draw(st.sampled_from("#@+$*.-_|"))
    return f"{prefix}{char}", char * count


@given(encoded())
def test_decoding_expands_counts_and_nested_groups(case):
    text, expansion = case
    assert rle_decode(text) == expansion


@given(ROWS)
def test_encode_then_decode_gives_the_rows_back(rows):
    encoded_rows = rle_encode_rows(rows)
    assert " " not in encoded_rows
    assert rle_decode_rows(encoded_rows) == [row.replace(" ", "-") or "-" for row in rows]


@pytest.mark.parametrize(
    "text, rows",
    [
        ("3#|#@$.#|3#", ["###", "#@$.#", "###"]),
        ("2(3(#-)#)", ["#-#-#-##-#-#-#"]),
        ("3#|", ["###"]),
        ("3#||3#", ["###", "", "###"]),
        ("2(#-|)", ["#-", "#-"]),
        ("10-", ["-" * 10]),
        ("#|2|#", ["#", "", "", "#"]),
    ],
)
def test_decode_rows(text, rows):
    assert rle_decode_rows(text) == rows


def test_encoding_collapses_runs():
    assert rle_encode_rows(["#####", "#@ $.#", "  ###"]) == "5#|#@-$.#|2-3#"


@pytest.mark.parametrize(
    "text, column, words",
    [
        ("3#2", 3, "at the end"),
        ("3#|2(#", 5, "never closed"),
        ("#-)", 3, "no group is open"),
        ("2(3)", 3, "before ')'"),
        ("0#", 1, "count of 0"),
    ],
)
def test_errors_name_the_column(text, column, words):
    with pytest.raises(RunLengthError, match=re.escape(words)) as error:
        rle_decode(text)
    assert error.value.column == column


def test_expansion_is_bounded():
    with pytest.raises(RunLengthError, match="expands to more than"):
        rle_decode("9(9(9(9(9(9(9(#)))))))")
    assert len(rle_decode("1000(1000#)")) == MAX_EXPANDED_LENGTH


def test_is_run_length_encoded():
    assert is_run_length_encoded("3#")
    assert is_run_length_encoded("#|#")
    assert not is_run_length_encoded("#@$.#")
