"""Titles, notes and separators of collection files (evosoko.sokoban.collection)."""

from __future__ import annotations

import pytest

from evosoko.sokoban.collection import has_word, split_collection, text_lines
from evosoko.sokoban.xsb import is_board_line

BOARD = "#####\n#@$.#\n#####"


def split(text: str):
    return split_collection(text, is_board_line)


def titles(text: str) -> list:
    return [board.title for board in split(text)]


def test_single_comment_line_before_the_board_is_its_title():
    assert titles(f"; first\n{BOARD}\n\n;second\n\n\n{BOARD}") == ["first", "second"]


def test_a_multi_line_comment_block_is_not_a_title():
    text = f"; A collection\n; by someone\n{BOARD}\n\n; x\n; y\n\n{BOARD}"
    assert titles(text) == [None, None]


def test_the_last_comment_block_counts_and_text_lines_in_between_are_ignored():
    # Microban: a long header, a line of spaces, then '; 1'; later "; 44" then "'Duh!'"
    text = f"; header one\n; header two\n\n   \n; 1\n\n{BOARD}\n\n; 44\n'Duh!'\n\n{BOARD}"
    assert titles(text) == ["1", "44"]


def test_title_line_after_the_board_wins_over_the_comment():
    assert titles(f"; comment\n{BOARD}\nTitle: Real name\n") == ["Real name"]
    assert titles(f"{BOARD}\ntitle:   spaced  \n") == ["spaced"]
    assert titles(f"; kept\n{BOARD}\nTitle:\n") == ["kept"]


def test_an_empty_comment_is_no_title():
    assert titles(f";\n{BOARD}") == [None]


def test_notes_after_a_board_belong_to_it():
    text = f"{BOARD}\nAuthor: Ann\nDate Created: 2000-01-01\n\n{BOARD}\nComment:\n"
    (first, second) = split(text)
    assert first.notes == [("Author", "Ann"), ("Date Created", "2000-01-01")]
    assert second.notes == [("Comment", "")]


def test_notes_before_the_first_board_are_not_attached():
    (board,) = split(f"Collection: demo\nAuthor: Ann\n\n{BOARD}")
    assert board.notes == []


def test_comments_between_a_board_and_its_notes_do_not_title_the_next_board():
    text = f"{BOARD}\n; a remark\nAuthor: Ann\n\n{BOARD}"
    assert titles(text) == [None, None]
    text = f"{BOARD}\nAuthor: Ann\n; next\n{BOARD}"
    assert titles(text) == [None, "next"]


@pytest.mark.parametrize(
    "solution",
    [
        "Solution\nrrLL\nuuDD\n",
        "Solution (moves 8, pushes 4):\nrrLL\n  uuDD  \n",
        "Solution: rrLL\nuuDD\n",
        "solution:\nrrLL\nuuDD",
        "Solution: rrLLuuDD",
    ],
)
def test_solution_notes_may_span_lines_up_to_a_blank_line(solution):
    (board, following) = split(f"{BOARD}\n{solution}\n\n{BOARD}")
    assert board.notes == [(solution[0] + "olution", "rrLLuuDD")]
    assert following.notes == []


def test_a_solution_block_stops_at_a_board_or_a_note():
    (board, following) = split(f"{BOARD}\nSolution\n3r2(dL)\nAuthor: A\n{BOARD}")
    assert board.notes == [("Solution", "3r2(dL)"), ("Author", "A")]
    assert following.lines[0][1] == "#####"


def test_board_lines_carry_their_file_line_numbers():
    (first, second) = split(f"\n; t\n{BOARD}\n \n{BOARD}")
    assert [number for number, _ in first.lines] == [3, 4, 5]
    assert second.first_line == 7


def test_text_lines_handles_every_line_ending():
    assert text_lines("\ufeffa\r\nb\rc\nd") == ["a", "b", "c", "d"]


def test_has_word():
    assert has_word("Copyright 2000")
    assert not has_word("#@$x.#")
    assert not has_word("0abba0", letters_allowed="abcdef")
    assert has_word("0 bad grid", letters_allowed="abcdef")
