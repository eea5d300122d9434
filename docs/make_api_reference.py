"""Write docs/api.md, the reference of evosoko's Python API, from the docstrings.

    python docs/make_api_reference.py          # rewrite docs/api.md
    python docs/make_api_reference.py --check  # exit 1 when docs/api.md is out of date

The test suite runs the check, so the reference never drifts from the code.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import sys
from pathlib import Path

import evosoko
from evosoko import api
from evosoko.evolve import callbacks, registry

TARGET = Path(__file__).resolve().parent / "api.md"

INTRO = """# The Python API

Generated from the docstrings by `python docs/make_api_reference.py`; do not edit by hand.

Everything below is importable from the package itself (`import evosoko`), which loads each
part on first use. Examples that run as tests: `examples/custom_mutation.py` (a mutation of
your own, compared with the built-in one), `examples/custom_fitness.py` (a fitness term of your
own) and `examples/tour.ipynb` (load, solve, evolve, compare, plot, in a notebook).
"""

FUNCTIONS = [
    "load_levels",
    "select_levels",
    "load_config",
    "preset",
    "presets",
    "evolve",
    "solve",
    "verify",
    "stored_solutions",
    "run",
    "resume",
    "open_run",
    "compare",
    "sweep",
    "report",
    "plot",
    "export",
    "load_levels_config",
    "evolve_levels",
    "resume_levels",
    "open_levels",
]
"""The functions of :mod:`evosoko.api`, in the order a reader meets them."""

OBJECTS = [
    ("evosoko.Config", evosoko.Config, ["set", "to_toml"]),
    ("evosoko.Budget", evosoko.Budget, ["exhausted", "share", "replace"]),
    ("evosoko.Result", evosoko.Result, ["to_dict", "from_dict"]),
    ("evosoko.History", evosoko.History, ["column", "to_pandas"]),
    ("evosoko.GenerationStats", evosoko.GenerationStats, []),
    (
        "evosoko.Callback",
        evosoko.Callback,
        [
            "on_level_start",
            "on_generation",
            "on_checkpoint",
            "on_level_end",
        ],
    ),
    ("evosoko.Generation", evosoko.Generation, ["stop"]),
]


def signature(function) -> str:
    """``name(parameters) -> return`` with annotations as written in the source."""
    parameters = []
    seen_keyword_only = False
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is parameter.KEYWORD_ONLY and not seen_keyword_only:
            parameters.append("*")
            seen_keyword_only = True
        text = parameter.name
        if parameter.kind is parameter.VAR_POSITIONAL:
            text, seen_keyword_only = "*" + text, True
        elif parameter.kind is parameter.VAR_KEYWORD:
            text = "**" + text
        if parameter.annotation is not parameter.empty:
            text += f": {_annotation(parameter.annotation)}"
        if parameter.default is not parameter.empty:
            text += f" = {parameter.default!r}"
        parameters.append(text)
    returns = inspect.signature(function).return_annotation
    arrow = "" if returns is inspect.Signature.empty else f" -> {_annotation(returns)}"
    return f"{function.__name__}({', '.join(parameters)}){arrow}"


def _annotation(annotation) -> str:
    return (
        annotation
        if isinstance(annotation, str)
        else getattr(annotation, "__name__", str(annotation))
    )


def document() -> str:
    lines = [INTRO, "## Functions", ""]
    assert sorted(FUNCTIONS) == sorted(api.__all__), "docs: list every function of the API"
    for name in FUNCTIONS:
        function = getattr(api, name)
        lines += [f"### `evosoko.{signature(function)}`", "", inspect.getdoc(function), ""]
    lines += ["## Objects", ""]
    for title, obj, methods in OBJECTS:
        lines += [f"### `{title}`", "", inspect.getdoc(obj), ""]
        if dataclasses.is_dataclass(obj):
            fields = ", ".join(f"`{f.name}`" for f in dataclasses.fields(obj))
            lines += [f"Fields: {fields}.", ""]
        for method in methods:
            member = getattr(obj, method)
            lines += [f"- `{signature(member)}`: {inspect.getdoc(member)}", ""]
    lines += [
        "## Parts of your own",
        "",
        inspect.getdoc(registry),
        "",
        (
            "Decorators: `evosoko.register_mutation`, `evosoko.register_crossover`, "
            "`evosoko.register_parent_selection`, `evosoko.register_survival`, "
            "`evosoko.register_fitness_term`, and for level evolution "
            "`evosoko.register_level_mutation`, `evosoko.register_level_crossover`, "
            "`evosoko.register_level_objective` (options: `maximize` for fitness terms and "
            "level objectives, `multi_objective` for survivals)."
        ),
        "",
        "| kind | leading parameters | contract |",
        "|---|---|---|",
    ]
    for kind, (leading, contract) in registry.CONTRACTS.items():
        lines.append(f"| {kind} | {', '.join(leading)} | {contract} |")
    lines += ["", "| context parameter | what the engine passes |", "|---|---|"]
    for name, meaning in registry.CONTEXT.items():
        lines.append(f"| `{name}` | {meaning} |")
    lines += ["", "## Callbacks", "", inspect.getdoc(callbacks), ""]
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check that it is current")
    args = parser.parse_args()
    text = document()
    if args.check:
        if not TARGET.is_file() or TARGET.read_text() != text:
            print(f"{TARGET} is out of date: python docs/make_api_reference.py", file=sys.stderr)
            raise SystemExit(1)
        return
    TARGET.write_text(text)
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
