"""Reading, writing, detecting and selecting levels (evosoko.sokoban.formats)."""

from __future__ import annotations

import codecs
import os
import re
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st
from level_strategies import levels, quiet_level

from evosoko.errors import EvosokoError, EvosokoWarning, LevelFormatError
from evosoko.sokoban.formats import (
    FORMATS,
    detect_format,
    format_levels,
    parse_levels,
    read_levels,
    select_levels,
    write_levels,
)
from evosoko.sokoban.rle import rle_encode_rows

SMALL = "#####\n#@$.#\n#####\n"


def quiet_parse(text: str, path: str = "<text>", format: str | None = None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvosokoWarning)
        return parse_levels(text, path, format)


def notes_of(parsed) -> list:
    return [level.notes for level in parsed]


# ---- round trips ------------------------------------------------------------------------------
@given(st.lists(levels(), min_size=1, max_size=4))
def test_format_then_parse_gives_equal_levels_and_notes(collection):
    parsed = quiet_parse(format_levels(collection))
    assert parsed == collection
    assert notes_of(parsed) == notes_of(collection)
    assert [level.origin.index for level in parsed] == list(range(1, len(collection) + 1))


@given(st.lists(levels(), min_size=1, max_size=3))
def test_crlf_endings_parse_the_same(collection):
    text = format_levels(collection)
    assert quiet_parse(text.replace("\n", "\r\n")) == quiet_parse(text)
    assert notes_of(quiet_parse(text.replace("\n", "\r\n"))) == notes_of(collection)


@given(st.lists(levels(), min_size=1, max_size=3), st.data())
def test_hand_written_variants_parse_the_same(collection, data):
    """Comment titles, '-'/'_' floor, indentation, blank and space-only separators."""
    blocks = []
    for level in collection:
        floor = data.draw(st.sampled_from([" ", "-", "_"]))
        indent = " " * data.draw(st.integers(0, 3))
        lines = [indent + row.replace(" ", floor) for row in level.rows()]
        if level.title is not None and data.draw(st.booleans()):
            lines.insert(0, f";{' ' * data.draw(st.integers(0, 2))}{level.title}")
        elif level.title is not None:
            lines.append(f"Title: {level.title}")
        lines += [f"{key}: {value}" for key, value in level.notes]
        blocks.append("\n".join(lines))
    separator = data.draw(st.sampled_from(["\n\n", "\n   \n", "\n\n\n"]))
    parsed = quiet_parse(separator.join(blocks))
    assert parsed == collection
    assert notes_of(parsed) == notes_of(collection)


@given(levels())
def test_run_length_encoded_board_parses_to_the_same_level(level):
    text = rle_encode_rows(level.rows()) + "\n"
    (parsed,) = quiet_parse(text)
    assert parsed.rows() == level.rows()


def test_write_then_read(tmp_path):
    collection = quiet_parse("; one\n" + SMALL + "Author: me\n\n" + SMALL.replace("@$", "$@"))
    target = tmp_path / "out.xsb"
    target.write_text("old content")
    write_levels(collection, target)
    assert read_levels(target) == collection
    assert b"\r" not in target.read_bytes()
    assert os.listdir(tmp_path) == ["out.xsb"]  # no temporary file left behind


def test_format_levels_writes_the_canonical_collection():
    text = "; first\n#####\n#@$.#\n#####\nSolution: R\n\n--####\n--#@$.#\n--#####\nTitle: b\n"
    assert format_levels(quiet_parse(text)) == (
        "#####\n#@$.#\n#####\nTitle: first\nSolution: R\n\n####\n#@$.#\n#####\nTitle: b\n"
    )


def test_a_row_of_floor_only_is_written_so_that_it_stays_in_the_board():
    # a numeric matrix can hold a wall piece below an empty row of padding
    (level,) = parse_levels("111110\n134210\n111110\n000000\n011000\n", "x.num")
    text = format_levels([level])
    assert "\n-\n" in text
    assert parse_levels(text) == [level]


@pytest.mark.parametrize(
    "title, notes, words",
    [
        ("two\nlines", (), "line break"),
        (" padded", (), "blanks"),
        ("", (), "empty"),
        ("ok", (("Title", "x"),), "note key"),
        ("ok", (("two: colons", "x"),), "note key"),
        ("ok", (("Author", "a\rb"),), "line break"),
    ],
)
def test_writing_refuses_what_would_not_read_back(tmp_path, title, notes, words):
    level = quiet_level(["#####", "#@$.#", "#####"], title=title, notes=notes)
    with pytest.raises(LevelFormatError, match=words):
        write_levels([level], tmp_path / "out.xsb")
    assert not list(tmp_path.iterdir())


def test_writing_into_a_missing_folder_names_the_path(tmp_path):
    target = tmp_path / "no" / "such" / "out.xsb"
    with pytest.raises(LevelFormatError) as error:
        write_levels(quiet_parse(SMALL), target)
    assert error.value.path == str(target)


# ---- format detection --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "path, text, expected",
    [
        ("a.xsb", "000\n", "xsb"),
        ("a.SOK", SMALL, "xsb"),
        ("a.grid", SMALL, "grid"),
        ("a.num", SMALL, "num"),
        ("a.txt", SMALL, "xsb"),
        ("a.txt", "3#|#@$.#|3#\n", "xsb"),
        ("<text>", "; title\n00000\n08420\n00000\n", "grid"),
        ("<text>", "; a\n0a\n", "grid"),
        ("<text>", "11111\n14231\n11111\n", "num"),
        ("levels", "Author: someone\n", "xsb"),
    ],
)
def test_detect_format(path, text, expected):
    assert detect_format(path, text) == expected


def test_format_override_wins_over_the_extension():
    assert parse_levels("11111\n14231\n11111\n", "board.xsb", format="num")[0].rows() == [
        "#####",
        "#@$.#",
        "#####",
    ]
    assert parse_levels(SMALL, "board.num", format=" XSB ")[0].rows() == SMALL.split()


def test_unknown_format_name_is_an_error():
    with pytest.raises(LevelFormatError, match="unknown level format 'png'") as error:
        parse_levels(SMALL, "a.xsb", format="png")
    assert error.value.path == "a.xsb"
    assert set(FORMATS) == {"xsb", "grid", "num"}


# ---- reading files ---------------------------------------------------------------------------
def test_missing_file(tmp_path):
    with pytest.raises(LevelFormatError, match="no such file") as error:
        read_levels(tmp_path / "absent.xsb")
    assert error.value.path == str(tmp_path / "absent.xsb")


def test_directory(tmp_path):
    with pytest.raises(LevelFormatError, match="directory"):
        read_levels(tmp_path)


def test_binary_file(tmp_path):
    path = tmp_path / "image.xsb"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(LevelFormatError, match="binary") as error:
        read_levels(path)
    assert str(path) in str(error.value)


@pytest.mark.parametrize("content", ["", "\n\n", "; only a comment\nAuthor: x\n"])
def test_file_without_a_level(tmp_path, content):
    path = tmp_path / "empty.xsb"
    path.write_text(content)
    with pytest.raises(LevelFormatError, match="no level found") as error:
        read_levels(path)
    assert error.value.path == str(path)


@pytest.mark.parametrize(
    "data",
    [
        ("; caf\u00e9\n" + SMALL).encode("latin-1"),
        codecs.BOM_UTF8 + ("; caf\u00e9\n" + SMALL).encode("utf-8"),
        ("; caf\u00e9\n" + SMALL).encode("utf-16"),
    ],
    ids=["latin-1", "utf-8 with BOM", "utf-16"],
)
def test_text_encodings(tmp_path, data):
    path = tmp_path / "level.xsb"
    path.write_bytes(data)
    (level,) = read_levels(path)
    assert level.title == "caf\u00e9"
    assert level.origin.line == 2


# ---- selecting levels --------------------------------------------------------------------------
COLLECTION = "; 2\n" + SMALL + "\n; two\n" + SMALL + "\n" + SMALL


def test_select_by_index_and_title_keeps_the_order_of_the_specs():
    first, second, third = quiet_parse(COLLECTION, "c.xsb")
    assert select_levels([first, second, third], [3, "two", "3"]) == [third, second, third]


def test_a_number_that_is_an_index_and_another_levels_title_is_ambiguous():
    first, second, third = quiet_parse(COLLECTION, "c.xsb")
    for spec in ("2", 2, " 2 "):
        with pytest.raises(EvosokoError) as error:
            select_levels([first, second, third], [spec])
        assert str(error.value) == (
            "c.xsb: level 2 is ambiguous: index 2 is level #2 'two', title '2' is level #1 '2'; "
            "write #2 for the index or title:2 for the title"
        )


def test_the_explicit_spellings_choose_the_index_or_the_title():
    first, second, third = quiet_parse(COLLECTION, "c.xsb")
    levels = [first, second, third]
    assert select_levels(levels, ["#2", "title:2", "# 3", "TITLE:two", "title: 2"]) == [
        second,
        first,
        third,
        second,
        first,
    ]


def test_an_unambiguous_number_keeps_working():
    first, second, third = quiet_parse(COLLECTION, "c.xsb")
    # 3 is an index only; 1 is an index and no title; a level whose own title is its index
    assert select_levels([first, second, third], [3, "3", 1]) == [third, third, first]
    own = quiet_parse("; 1\n" + SMALL + "\n; x\n" + SMALL, "d.xsb")
    assert select_levels(own, ["1", 1]) == [own[0], own[0]]
    titled_only = quiet_parse("; 7\n" + SMALL, "e.xsb")
    assert select_levels(titled_only, ["7", 7]) == [titled_only[0], titled_only[0]]


@pytest.mark.parametrize(
    "spec, reason",
    [("#4", "no level '#4' (the file has 3 levels"), ("#x", "'#' must be followed by a number")],
)
def test_explicit_index_out_of_range(spec, reason):
    with pytest.raises(EvosokoError, match=re.escape(reason)):
        select_levels(quiet_parse(COLLECTION, "c.xsb"), [spec])


def test_explicit_title_that_is_missing():
    with pytest.raises(EvosokoError, match=re.escape("no level 'title:3'")):
        select_levels(quiet_parse(COLLECTION, "c.xsb"), ["title:3"])


@pytest.mark.parametrize("spec, shown", [("foo", "'foo'"), (4, "4"), (0, "0"), ("-1", "'-1'")])
def test_unknown_level_names_the_file_and_the_choices(spec, shown):
    collection = quiet_parse(COLLECTION, "c.xsb")
    with pytest.raises(EvosokoError) as error:
        select_levels(collection, [1, spec])
    assert str(error.value) == (
        f"c.xsb: no level {shown} (the file has 3 levels; titles like '2', 'two')"
    )


def test_unknown_level_in_a_file_without_titles():
    with pytest.raises(EvosokoError, match=r"the file has 1 level, none with a title"):
        select_levels(quiet_parse(SMALL, "c.xsb"), ["x"])


# ---- collections with an invalid level --------------------------------------------------------
BROKEN = "; one\n" + SMALL + "\n; two\n#####\n#@$x#\n#####\n\n; three\n" + SMALL + "\n" + SMALL


def test_an_invalid_level_is_left_out_with_one_warning_and_the_others_keep_their_index():
    with pytest.warns(EvosokoWarning) as caught:
        levels = parse_levels(BROKEN, "b.xsb")
    messages = [str(w.message) for w in caught if issubclass(w.category, EvosokoWarning)]
    assert messages == [
        "b.xsb:8: level 2 (two): unknown character 'x' in column 4 (this level is left out)"
    ]
    assert [(level.index, level.title) for level in levels] == [(1, "one"), (3, "three"), (4, None)]
    assert [(bad.index, bad.title, bad.error.line) for bad in levels.invalid] == [(2, "two", 8)]


def test_selecting_the_invalid_level_is_its_error_and_the_others_are_selectable():
    levels = quiet_parse(BROKEN, "b.xsb")
    assert select_levels(levels, ["#3", 4, "one", "title:three"]) == [
        levels[1],
        levels[2],
        levels[0],
        levels[1],
    ]
    for spec in (2, "2", "#2", "two", "title:two"):
        with pytest.raises(LevelFormatError) as error:
            select_levels(levels, [spec])
        assert str(error.value) == (
            "b.xsb:8: level 2 (two): unknown character 'x' in column 4 "
            "(this level cannot be selected)"
        )


def test_an_invalid_level_counts_in_ambiguity():
    text = SMALL + "\n#####\n#@$.#\n###\n\n; 2\n" + SMALL  # level 2 is open, level 3 titled '2'
    with pytest.raises(EvosokoError, match="index 2 is level #2 \\(untitled\\), title '2'"):
        select_levels(quiet_parse(text, "c.xsb"), ["2"])


def test_strict_reading_refuses_the_collection(tmp_path):
    path = tmp_path / "b.xsb"
    path.write_text(BROKEN)
    with pytest.raises(LevelFormatError, match=r"b.xsb:8: level 2 \(two\): unknown character"):
        read_levels(path, strict=True)
    assert len(quiet_read(path)) == 3


def test_a_file_whose_every_level_is_invalid_raises_the_first_error():
    with pytest.raises(LevelFormatError, match=r"<text>:2: level 1: unknown character"):
        parse_levels("#####\n#@$x#\n#####\n\n#####\n#@$y#\n#####\n")


def quiet_read(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvosokoWarning)
        return read_levels(path)
