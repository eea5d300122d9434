"""``evosoko import`` refuses what it cannot read in one line (issue 55, items 3, 4 and 6):
``--size 0x0`` divided by zero, and a 20000x20000 PNG raised Pillow's DecompressionBombError;
a picture too large to decode is refused from its header, before any pixel is read."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.errors import ConfigError, LevelFormatError
from evosoko.learn import screenshots
from evosoko.learn.screenshots import MAX_PICTURE_PIXELS, import_picture, read_image_file
from evosoko.sokoban.render import save_png

SEEDS = Path(__file__).resolve().parents[2] / "levels" / "seeds.xsb"


def png_header_only(path: Path, width: int, height: int) -> None:
    """A PNG file whose header says ``width`` x ``height`` with one tiny data chunk: a few
    hundred bytes that a reader that trusts the header would decode into gigabytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


@pytest.fixture
def board_png(tmp_path):
    from evosoko.sokoban.formats import read_levels

    path = tmp_path / "board.png"
    save_png(read_levels(SEEDS)[0], path)
    return path


@pytest.mark.parametrize("size", [(0, 0), (2, 7), (10, 0), (2000, 2000)])
def test_a_board_size_no_level_has_is_refused(board_png, size):
    with pytest.raises(ConfigError, match=f"a board of {size[0]}x{size[1]} cells cannot be read"):
        import_picture(board_png, size)


@pytest.mark.parametrize(("width", "height"), [(20_000, 20_000), (9_000, 8_000)])
def test_a_picture_too_large_is_refused_from_its_header(tmp_path, width, height):
    path = tmp_path / "huge.png"
    png_header_only(path, width, height)
    assert path.stat().st_size < 1000
    with pytest.raises(LevelFormatError, match="the picture is too large") as caught:
        read_image_file(path)
    assert caught.value.path == str(path)


def test_the_ceiling_holds_the_largest_board_at_the_smallest_cell():
    assert MAX_PICTURE_PIXELS == 1000 * 1000 * screenshots.SMALLEST_CELL**2


def test_running_out_of_memory_while_decoding_is_one_error(board_png, monkeypatch):
    from evosoko.errors import OutOfMemory

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(screenshots.np, "asarray", no_memory)
    with pytest.raises(OutOfMemory, match="not enough memory to read this picture"):
        read_image_file(board_png)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--size", "0x0"], "error: a board of 0x0 cells cannot be read"),
        (["--size", "1x1"], "error: a board of 1x1 cells cannot be read"),
    ],
)
def test_import_refuses_a_bad_size_in_one_line(board_png, tmp_path, arguments, message):
    result = CliRunner().invoke(
        app, ["import", str(board_png), "--out", str(tmp_path / "out.xsb"), *arguments]
    )
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.startswith(message) and len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "out.xsb").exists()


def test_import_refuses_a_decompression_bomb_in_one_line(tmp_path):
    path = tmp_path / "bomb.png"
    png_header_only(path, 20_000, 20_000)
    result = CliRunner().invoke(app, ["import", str(path), "--out", str(tmp_path / "out.xsb")])
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.startswith(f"error: {path}: the picture is too large")
    assert len(result.stderr.splitlines()) == 1
