"""Bad names of plugin parts are configuration errors, never tracebacks (issue 55, item 6).

``"../x:y"`` and ``".x:y"`` reached ``importlib`` as relative imports (a TypeError), a function
that does not fit the part's contract (``"os:getpid"``) raised a TypeError, and a plugin module
that raises or has a syntax error escaped the registry, which caught only ImportError.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.config import load_config
from evosoko.errors import ConfigError

DEFAULT = Path(__file__).resolve().parents[2] / "configs" / "default.toml"


@pytest.fixture
def plugin_folder(tmp_path, monkeypatch):
    (tmp_path / "raising_plugin.py").write_text('raise RuntimeError("boom at import")\n')
    (tmp_path / "syntax_plugin.py").write_text("def swap(genome:\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("raising_plugin", "syntax_plugin"):
        sys.modules.pop(name, None)


CASES = [
    ('"../x:y"', "'../x:y' is not a function's name"),
    ('".x:y"', "'.x:y' is not a function's name"),
    ('"os:"', "'os:' is not a function's name"),
    ('"x:../y"', "'x:../y' is not a function's name"),
    ('"os:getpid"', "'os:getpid' cannot be a mutation: a mutation takes genome first"),
    ('"raising_plugin:swap"', "RuntimeError: boom at import"),
    ('"syntax_plugin:swap"', "SyntaxError: '(' was never closed"),
]


@pytest.mark.parametrize(("kind", "message"), CASES)
def test_a_bad_plugin_name_is_a_config_error(plugin_folder, kind, message):
    with pytest.raises(ConfigError) as caught:
        load_config(None, [f"ga.mutation.kind={kind}"])
    assert "ga.mutation.kind: " in str(caught.value)
    assert message in str(caught.value)


@pytest.mark.parametrize(("kind", "message"), CASES[:1] + CASES[4:])
def test_a_bad_plugin_name_in_a_file_names_its_line(plugin_folder, kind, message):
    path = plugin_folder / "bad.toml"
    path.write_text(f'[run]\nname = "x"\n\n[ga.mutation]\nkind = {kind}\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert (caught.value.path, caught.value.line) == (str(path), 5)
    assert message in str(caught.value)


@pytest.mark.parametrize("kind", ['"../x:y"', '"os:getpid"', '"raising_plugin:swap"'])
def test_the_command_line_prints_one_error_line(plugin_folder, kind):
    result = CliRunner().invoke(app, ["run", str(DEFAULT), "--set", f"ga.mutation.kind={kind}"])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.startswith("error: --set: ga.mutation.kind: ")
    assert len(result.stderr.strip().splitlines()) == 1
