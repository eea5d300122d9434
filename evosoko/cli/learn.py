"""The ``learn`` commands (deadlock data, training, evaluation) and ``import`` (screenshots)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from evosoko.cli.common import (
    JsonOption,
    app,
    fail,
    print_json,
    reports_errors,
    stderr,
    stdout,
)

learn_app = typer.Typer(
    name="learn",
    help="Learn a deadlock detector from search: make data, train (PyTorch), evaluate.",
    no_args_is_help=True,
)
app.add_typer(learn_app, name="learn")


def _bar(description: str):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        TextColumn(description),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr,
        transient=True,
        disable=not stderr.is_terminal,
    )


@learn_app.command("data")
@reports_errors
def data_command(
    out: Annotated[Path, typer.Argument(metavar="OUT", help="Folder to write the data to.")],
    train: Annotated[
        list[Path] | None,
        typer.Option("--train", help="A level file for training and validation (repeatable)."),
    ] = None,
    test: Annotated[
        list[Path] | None,
        typer.Option("--test", help="A level file for held-out testing only (repeatable)."),
    ] = None,
    generate: Annotated[
        int, typer.Option("--generate", help="Generated levels added to training.")
    ] = 0,
    first: Annotated[
        int | None, typer.Option("--first", help="Use only the first N levels of each file.")
    ] = None,
    positions: Annotated[
        int, typer.Option("--positions", help="Positions sampled per level.")
    ] = 60,
    max_pushes: Annotated[
        int, typer.Option("--max-pushes", help="Longest random push sequence.")
    ] = 40,
    node_budget: Annotated[
        int, typer.Option("--node-budget", help="Search expansions to decide one label.")
    ] = 20_000,
    validation: Annotated[
        float, typer.Option("--validation", help="Fraction of training levels for validation.")
    ] = 0.1,
    seed: Annotated[int, typer.Option("--seed", help="Sampling and split seed.")] = 0,
    workers: Annotated[int, typer.Option("--workers", help="Labelling processes.")] = 1,
) -> None:
    """Sample positions by random pushes, label them dead/alive by exact search, split by level."""
    from evosoko.learn.data import DataSettings, LevelSource, build_dataset, generated_sources
    from evosoko.sokoban.formats import read_levels

    settings = DataSettings(positions, max_pushes, node_budget, seed, validation)
    settings.check()
    if first is not None and first < 1:
        fail("--first must be at least 1")
    if workers < 1:
        fail("--workers must be at least 1")

    def sources(files: list[Path] | None) -> list[LevelSource]:
        found = []
        for file in files or []:
            levels = read_levels(file)[: first or None]
            found += [LevelSource(level, str(file), k) for k, level in enumerate(levels, 1)]
        return found

    train_sources, test_sources = sources(train), sources(test)
    if generate:
        with _bar("generating levels") as progress:
            progress.add_task("generate", total=None)
            train_sources += generated_sources(generate, seed)
    if not train_sources and not test_sources:
        fail("name level files with --train and/or --test (or --generate N)")
    with _bar("labelling positions") as progress:
        task = progress.add_task("label", total=len(train_sources) + len(test_sources))
        manifest = build_dataset(
            out,
            train_sources,
            test_sources,
            settings,
            workers,
            on_progress=lambda done, total: progress.update(task, completed=done),
        )
    table = Table(title=f"{out}: positions per split")
    for column in ("split", "levels", "sampled", "undecided", "dead", "alive", "kept"):
        table.add_column(column, justify="right" if column != "split" else "left")
    for split, counts in manifest["splits"].items():
        table.add_row(
            split,
            *(str(counts[key]) for key in ("levels", "sampled", "undecided", "dead", "alive")),
            str(counts["kept"]),
        )
    stdout.print(table)
    stdout.print(f"labelled in {manifest['seconds']} s; manifest: {out / 'manifest.json'}")


@learn_app.command("train")
@reports_errors
def train_command(
    data: Annotated[Path, typer.Argument(metavar="DATA", help="A folder made by `learn data`.")],
    out: Annotated[Path, typer.Option("--out", help="Folder for model.npz and metrics.json.")],
    epochs: Annotated[int, typer.Option(help="Most epochs.")] = 40,
    patience: Annotated[
        int, typer.Option(help="Stop after this many epochs without a better validation loss.")
    ] = 5,
    batch_size: Annotated[int, typer.Option(help="Positions per batch.")] = 128,
    learning_rate: Annotated[float, typer.Option(help="Adam's step size.")] = 2e-3,
    channels: Annotated[int, typer.Option(help="Feature maps per convolution.")] = 24,
    minutes: Annotated[float | None, typer.Option(help="Stop after this long.")] = None,
    threads: Annotated[int, typer.Option(help="PyTorch threads.")] = 2,
    seed: Annotated[int, typer.Option(help="Initialisation and shuffling seed.")] = 0,
) -> None:
    """Train the deadlock network (needs PyTorch: the `learn` extra)."""
    from evosoko.learn.network import Architecture
    from evosoko.learn.training import TrainSettings, require_torch, train_model

    require_torch()
    default = Architecture()
    architecture = Architecture(
        convolutions=tuple((channels, dilation) for _, dilation in default.convolutions),
        hidden=default.hidden,
    )
    settings = TrainSettings(
        epochs=epochs,
        patience=patience,
        batch_size=batch_size,
        learning_rate=learning_rate,
        seed=seed,
        minutes=minutes,
        threads=threads,
        architecture=architecture,
    )
    with _bar("epoch") as progress:
        task = progress.add_task("batches", total=None)

        def on_batch(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        def on_epoch(record) -> None:
            progress.console.print(
                f"epoch {record.epoch}: train loss {record.train_loss:.4f}, valid loss "
                f"{record.valid_loss:.4f}, valid accuracy {record.valid_accuracy:.4f} "
                f"({record.seconds:.1f} s)",
                markup=False,
            )

        metrics = train_model(data, out, settings, on_epoch=on_epoch, on_batch=on_batch)
    stdout.print(
        f"best epoch {metrics['best_epoch']} (valid loss {metrics['best_valid_loss']:.4f}, "
        f"{metrics['stop_reason']}); wrote {out / 'model.npz'} and {out / 'metrics.json'}",
        markup=False,
    )


@learn_app.command("eval")
@reports_errors
def eval_command(
    data: Annotated[
        Path, typer.Argument(metavar="DATA", help="A folder made by `learn data`, or a .npz split.")
    ],
    model: Annotated[
        str, typer.Option(help="A model.npz file ('default': the model shipped with evosoko).")
    ] = "default",
    split: Annotated[str, typer.Option(help="train, valid or test.")] = "test",
    threshold: Annotated[
        float, typer.Option(help="Probability from which a position is dead.")
    ] = 0.5,
    json_output: JsonOption = False,
) -> None:
    """Precision, recall and F1 per class on held-out positions, beside the exact detectors."""
    from evosoko.learn.evaluation import evaluate
    from evosoko.learn.network import load_model

    if split not in ("train", "valid", "test"):
        fail(f"--split must be train, valid or test, not {split!r}")
    if not 0 < threshold < 1:
        fail("--threshold must lie strictly between 0 and 1")
    report = evaluate(load_model(model), data, split, threshold)
    if json_output:
        print_json(report)
        return
    stdout.print(f"{report['data']}: model {report['model']}, dead from p >= {threshold}")
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)  # 80 columns
    table.add_column("positions", min_width=10, overflow="fold")
    for column in ("n", "dead P/R/F1", "alive P/R/F1", "exact R", "agree", "beyond"):
        table.add_column(column, justify="right", no_wrap=True)
    groups = [("all", report["all"]), *report["by_file"].items()]
    for name, group in groups:
        net, detectors = group["network"], group["detectors"]
        table.add_row(
            Text(_short(name)),  # a file name, never markup
            str(group["positions"]),
            *(
                "/".join(_fraction(net[kind][key]) for key in ("precision", "recall", "f1"))
                for kind in ("dead", "alive")
            ),
            _fraction(detectors["dead_recall"]),
            _fraction(detectors["network_agrees"]),
            _fraction(detectors["network_recall_beyond"]),
        )
    stdout.print(table)
    stdout.print(
        "exact R: recall of the exact detectors (dead squares, freeze, bipartite) on the "
        "dead class; agree: the network calls dead what they call dead; beyond: the "
        "network's recall on the dead positions they miss. --json has every figure unrounded.",
        markup=False,
    )


def _fraction(value: float) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.2f}"


def _short(name: str) -> str:
    """A level file named by its last two path parts (``hard/000.txt``)."""
    parts = Path(name).parts
    return str(Path(*parts[-2:])) if len(parts) > 2 else name


@learn_app.command("cells")
@reports_errors
def cells_command(
    out: Annotated[Path, typer.Option("--out", help="The classifier file to write (.npz).")],
    pictures: Annotated[int, typer.Option("--pictures", help="Pictures drawn per tile set.")] = 100,
    seed: Annotated[int, typer.Option(help="Drawing and training seed.")] = 0,
) -> None:
    """Train the cell classifier that `evosoko import` reads pictures with (scikit-learn)."""
    from evosoko.learn.cell_training import require_sklearn, train_cell_classifier

    require_sklearn()
    if pictures < 1:
        fail("--pictures must be at least 1")
    with _bar("cells") as progress:
        task = progress.add_task("cells", total=None)
        metrics = train_cell_classifier(
            out,
            pictures,
            seed=seed,
            on_stage=lambda stage: progress.update(task, description=stage),
        )
    stdout.print(
        f"wrote {out}: {metrics['held_out_read_right']:.4f} of {metrics['held_out']} cells of "
        f"{metrics['held_out_pictures']} held-out pictures read right "
        f"({metrics['held_out_accuracy']:.4f} with outside and floor told apart; "
        f"{metrics['cells']} cells, {metrics['seconds']} s)",
        markup=False,
    )


@app.command("import")
@reports_errors
def import_command(
    image: Annotated[Path, typer.Argument(metavar="IMAGE", help="A picture of a board (PNG...).")],
    out: Annotated[Path, typer.Option("--out", help="The XSB file to write.")],
    size: Annotated[
        str | None, typer.Option("--size", help="The board's WIDTHxHEIGHT in cells, if known.")
    ] = None,
    title: Annotated[str | None, typer.Option(help="Title of the level written.")] = None,
    cells: Annotated[
        Path | None, typer.Option("--cells", help="A cell classifier from `learn cells`.")
    ] = None,
) -> None:
    """Read a level from a picture of its board and write it as a validated XSB level."""
    from evosoko.generate import parse_size
    from evosoko.learn.screenshots import import_picture, load_cell_classifier
    from evosoko.sokoban.formats import write_levels

    board_size = parse_size(size) if size else None
    classifier = load_cell_classifier(cells)
    level, reading = import_picture(image, board_size, title or image.stem, classifier)
    write_levels([level], out)
    low = float(reading.confidence.min())
    stdout.print(
        f"wrote {out}: {level.width}x{level.height} cells of {reading.grid.cell:.1f} px, "
        f"{level.box_count} boxes (least sure cell: {low:.2f})",
        markup=False,
    )
    stdout.print("\n".join(level.rows()), markup=False)
