"""The HTML of ``report.html``: tables written here, boards and plots drawn by an inline script.

Every string that comes from a file (titles, level names, configurations) is escaped here or,
inside the page, set as text by the script; the data travels as JSON in a
``<script type="application/json">`` block with ``<``, ``>`` and ``&`` escaped, so nothing in
it can end the block or be read as markup.
"""

from __future__ import annotations

import json
from html import escape
from importlib import resources
from typing import Any

from evosoko import __version__

__all__ = ["render_page"]


def render_page(data: dict[str, Any]) -> str:
    """The whole page for the report data of
    :func:`evosoko.experiment.report.writer.report_data`."""
    bodies = {
        "run": _run_body,
        "compare": _compare_body,
        "sweep": _sweep_body,
        "levels": _levels_body,
        "folders": _folders_body,
    }
    body = bodies[data["kind"]](data)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(data['title'])} · evosoko report</title>\n"
        f"<style>\n{_asset('report.css')}</style>\n</head>\n<body>\n"
        f"{_header(data)}<main>\n{body}</main>\n"
        f'<script type="application/json" id="report-data">{_json(data)}</script>\n'
        f"<script>\n{_asset('report.js')}</script>\n</body>\n</html>\n"
    )


def _asset(name: str) -> str:
    return resources.files("evosoko.experiment.report").joinpath("assets", name).read_text("utf-8")


def _json(data: dict[str, Any]) -> str:
    """Compact JSON that cannot end its ``<script>`` block."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# ---- pieces -------------------------------------------------------------------------------------


def _header(data: dict[str, Any]) -> str:
    status = str(data.get("status") or "")
    facts = [f"<b>{escape(data['folder'])}</b>"]
    if status:
        css = "status-" + "-".join(status.split())
        facts.append(f'<span class="{escape(css)}">{escape(status)}</span>')
    if data["kind"] == "compare":
        planned = data.get("jobs_planned")
        done = data.get("jobs_done", 0)
        facts.append(f"{done} of {planned} jobs" if planned else f"{done} jobs")
    for key, label in (("seed", "seed"), ("method", "method"), ("levels_file", "levels")):
        if data.get(key) is not None:
            facts.append(f"{label} {escape(str(data[key]))}")
    facts.append(f"written {escape(data['generated'])} by evosoko {escape(__version__)}")
    error = data.get("error")
    error_line = f'<p class="meta error">{escape(str(error))}</p>\n' if error else ""
    return (
        f"<header>\n<h1>{escape(data['title'])}</h1>\n"
        f'<p class="meta">{" · ".join(facts)}</p>\n{error_line}</header>\n'
    )


def _cell(value: Any, css: str = "", digits: int = 3) -> str:
    if value is None or value == "":
        text, sort = "–", ""
    elif isinstance(value, bool):
        text, sort = ("yes", "1") if value else ("no", "0")
        css = (css + " " + ("yes" if value else "no")).strip()
    elif isinstance(value, float):
        text = f"{value:,.{digits}f}" if abs(value) < 1e6 else f"{value:,.0f}"
        sort = repr(value)
    elif isinstance(value, int):
        text, sort = f"{value:,}", str(value)
    else:
        text, sort = str(value), None
    attributes = f' class="{css}"' if css else ""
    if sort is not None:
        attributes += f' data-value="{escape(sort)}"'
    return f"<td{attributes}>{escape(text)}</td>"


def _table(
    table_id: str, headers: list[tuple[str, str]], rows: list[str], sortable: bool = True
) -> str:
    classes = "sortable" if sortable else ""
    head = "".join(f'<th class="{css}">{escape(name)}</th>' for name, css in headers)
    return (
        f'<div class="scroll"><table id="{table_id}" class="{classes}">\n'
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n" + "".join(rows) + "</tbody></table></div>\n"
    )


def _config(text: str, title: str = "Configuration") -> str:
    return (
        f"<section><details><summary>{escape(title)}</summary>"
        f"<pre>{escape(text)}</pre></details></section>\n"
    )


# ---- a run --------------------------------------------------------------------------------------


RUN_HEADERS = [
    ("#", ""),
    ("level", "text"),
    ("solved", ""),
    ("stop", "text"),
    ("generations", ""),
    ("evaluations", ""),
    ("seconds", ""),
    ("moves", ""),
    ("pushes", ""),
    ("best distance", ""),
]


def _run_body(data: dict[str, Any]) -> str:
    rows = []
    for position, level in enumerate(data["levels"]):
        result = level["result"]
        cells = [_cell(level["index"]), _cell(level["name"], "text")]
        if result is None:
            cells.append('<td class="text" colspan="8">not finished</td>')
        else:
            distance = result.get("best_distance")
            cells += [
                _cell(bool(result.get("solved"))),
                _cell(result.get("stop_reason"), "text"),
                _cell(result.get("generations")),
                _cell(result.get("evaluations")),
                _cell(result.get("seconds")),
                _cell(result.get("moves")),
                _cell(result.get("pushes")),
                _cell(
                    int(distance)
                    if isinstance(distance, float) and distance.is_integer()
                    else distance
                ),
            ]
        rows.append(f'<tr class="pick" data-position="{position}">{"".join(cells)}</tr>\n')
    totals = data.get("totals") or {}
    summary = ""
    if totals:
        summary = (
            f'<p class="note">{totals.get("solved", 0)} of {totals.get("levels", len(rows))} '
            f"levels solved; {totals.get('finished', 0)} finished; "
            f"{totals.get('generations', 0):,} generations, "
            f"{totals.get('evaluations', 0):,} evaluations, {totals.get('seconds', 0)} s.</p>\n"
        )
    return (
        '<section id="results"><h2>Results</h2>\n'
        + summary
        + _table("results-table", RUN_HEADERS, rows)
        + '<p class="note">Click a row to see that level below.</p></section>\n'
        '<section id="level"><div class="picker"><h2 id="level-title">Level</h2>'
        '<select id="level-select" aria-label="level"></select></div>\n'
        '<div class="row">\n'
        '<div class="chart"><h3>Fitness</h3><canvas id="curve"></canvas>'
        '<div class="legend" id="curve-legend"></div><p class="note" id="curve-note"></p></div>\n'
        '<div class="player"><h3>The GA\'s best individual</h3>'
        '<p class="note" id="player-note"></p><div id="player"></div></div>\n'
        "</div></section>\n" + _config(data["config"])
    )


# ---- a comparison -------------------------------------------------------------------------------


SUMMARY_HEADERS = [
    ("solver", "text"),
    ("runs", ""),
    ("solved", ""),
    ("solve rate", ""),
    ("median s to solve", ""),
    ("ERT s", ""),
    ("ERT (own unit)", ""),
    ("median moves", ""),
    ("median pushes", ""),
]

JOB_HEADERS = [
    ("solver", "text"),
    ("seed", ""),
    ("status", "text"),
    ("solved", ""),
    ("seconds", ""),
    ("evaluations / nodes", ""),
    ("moves", ""),
    ("pushes", ""),
]


def _figure_cell(text: str, sort: Any, css: str = "") -> str:
    """A summary figure as summary.md writes it (with its interval), sorted by its value."""
    attributes = f' class="{css}"' if css else ""
    if isinstance(sort, (int, float)) and not isinstance(sort, bool):
        attributes += f' data-value="{escape(repr(sort))}"'
    return f"<td{attributes}>{escape(text)}</td>"


def _paired_tests(data: dict[str, Any]) -> str:
    """The paired tests between solvers and what they support, as in summary.md."""
    from evosoko.experiment.analysis.markdown import PAIRED_COLUMNS, TESTS_NOTE
    from evosoko.experiment.analysis.statistics import ALPHA

    tests = data.get("paired_tests") or []
    if not tests:
        return ""
    rows = [
        "<tr>"
        + "".join(_cell(cell, "text" if n in (0, 1, 6) else "") for n, cell in enumerate(cells))
        + "</tr>\n"
        for cells in tests
    ]
    claims = "".join(
        f"<li>{escape(line[2:])}</li>" for line in data.get("claims", []) if line.startswith("- ")
    )
    sentences = "".join(
        f'<p class="note">{escape(line)}</p>'
        for line in data.get("claims", [])
        if line and not line.startswith("- ")
    )
    return (
        '<section id="tests"><h2>Paired tests</h2>\n'
        f'<p class="note">Holm-adjusted together; * marks p ≤ {ALPHA:g}. {TESTS_NOTE}</p>\n'
        + _table(
            "tests-table",
            [(name, "text" if n in (0, 1, 6) else "") for n, name in enumerate(PAIRED_COLUMNS)],
            rows,
        )
        + sentences
        + (f"<ul>{claims}</ul>" if claims else "")
        + "</section>\n"
    )


def _compare_body(data: dict[str, Any]) -> str:
    rows = [
        "<tr>"
        + "".join(
            _figure_cell(text, sort, "text" if n == 0 else "") for n, (text, sort) in enumerate(row)
        )
        + "</tr>\n"
        for row in data["summary_table"]
    ]
    budget = data["budget"]
    unit = "CPU-s" if budget.get("clock") == "cpu" else "s"
    limits = [f"{budget['seconds']:g} {unit}"]
    if budget.get("evaluations"):
        limits.append(f"{budget['evaluations']:,} evaluations (GA)")
    if budget.get("nodes"):
        nodes = (
            "expanded nodes (search; mcts: iterations)"
            if "iterations" in data["units"]
            else "expanded nodes (search)"
        )
        limits.append(f"{budget['nodes']:,} {nodes}")
    units = [unit for unit in ("evaluations", "nodes", "iterations") if unit in data["units"]]
    unit_charts = "".join(
        f'<div class="chart"><h3>Solved runs against {unit}</h3>'
        f'<canvas id="ecdf-{unit}"></canvas><div class="legend" id="ecdf-{unit}-legend"></div>'
        "</div>\n"
        for unit in units
    )
    level_error = data.get("level_error")
    level_note = (
        f'<p class="note error">No boards: {escape(level_error)}</p>\n' if level_error else ""
    )
    return (
        '<section id="summary"><h2>Summary</h2>\n'
        f'<p class="note">Budget per job: {escape(", ".join(limits))}. Medians over solved runs; '
        "ERT counts a failed run at the full budget of that measure. [low, high]: the 95 % "
        "confidence interval over levels (summary.md says how it is made).</p>\n"
        + _table("summary-table", SUMMARY_HEADERS, rows)
        + "</section>\n"
        + _paired_tests(data)
        + '<section id="ecdf"><h2>Run-time ECDF</h2><div class="row">\n'
        '<div class="chart"><h3>Solved runs against time</h3><canvas id="ecdf-time"></canvas>'
        '<div class="legend" id="ecdf-time-legend"></div></div>\n'
        + unit_charts
        + "</div></section>\n"
        '<section id="who"><h2>Who solved what</h2>\n'
        '<p class="note">One column per level, darker green for more of its runs solved, pink '
        "for none; click a column to watch that level.</p>\n"
        '<div class="strip-box"><canvas id="strip"></canvas></div></section>\n'
        '<section id="level"><div class="picker"><h2 id="level-title">Level</h2>'
        '<select id="level-select" aria-label="level"></select></div>\n'
        + level_note
        + '<div id="player" class="player"></div>\n'
        + _table("jobs-table", JOB_HEADERS, [])
        + "</section>\n"
        + _config(data["config"])
    )


# ---- a sweep ------------------------------------------------------------------------------------


def _sweep_body(data: dict[str, Any]) -> str:
    columns = data["columns"]
    headers = [(name, "text" if name == "status" else "") for name in columns]
    best_trial = _best_trial(data)
    rows = []
    for trial in data["trials"]:
        css = ' class="best"' if best_trial is not None and trial[0] == best_trial else ""
        cells = "".join(_sweep_cell(value) for value in trial)
        rows.append(f"<tr{css}>{cells}</tr>\n")
    figures = "".join(
        f'<figure><img alt="{escape(figure["name"])}" '
        f'src="data:image/png;base64,{figure["png"]}"></figure>\n'
        for figure in data["figures"]
    )
    best = (
        _config(data["best"], "best.toml: the best trial, ready for evosoko run")
        if data["best"]
        else ""
    )
    return (
        '<section id="trials"><h2>Trials</h2>\n'
        f'<p class="note">{len(rows)} trials over {escape(", ".join(data["parameters"]))}; '
        "click a column to sort; the best trial is in bold.</p>\n"
        + _table("trials-table", headers, rows)
        + "</section>\n"
        + (f'<section class="figures"><h2>Figures</h2>\n{figures}</section>\n' if figures else "")
        + best
        + _config(data["config"])
    )


def _best_trial(data: dict[str, Any]) -> str | None:
    text = data.get("best") or ""
    marker = "trial "
    first = text.splitlines()[0] if text else ""
    if marker in first:
        return first.split(marker, 1)[1].split(",", 1)[0].strip()
    return None


def _sweep_cell(value: str) -> str:
    try:
        number = float(value)
    except ValueError:
        return _cell(value, "text")
    text = value if len(value) <= 10 else f"{number:.6g}"
    return f'<td data-value="{escape(value)}">{escape(text)}</td>'


# ---- a level run --------------------------------------------------------------------------------


LEVEL_HEADERS = [
    ("#", ""),
    ("level", "text"),
    ("size", "text"),
    ("boxes", ""),
    ("pushes", ""),
    ("moves", ""),
    ("box changes", ""),
    ("expanded", ""),
    ("cell", "text"),
    ("generation", ""),
]


def _levels_body(data: dict[str, Any]) -> str:
    rows = []
    archive_cells = data.get("archive") is not None
    headers = [h for h in LEVEL_HEADERS if archive_cells or h[0] != "cell"]
    for position, level in enumerate(data["levels"]):
        notes = level["notes"]
        cells = [
            _cell(level["index"]),
            _cell(level["name"], "text"),
            _cell(level["size"], "text"),
            _cell(level["boxes"]),
            *(_cell(_int(notes.get(key))) for key in ("Pushes", "Moves", "BoxChanges", "Expanded")),
            *([_cell(notes.get("Cell"), "text")] if archive_cells else []),
            _cell(_int(notes.get("Generation"))),
        ]
        rows.append(f'<tr class="pick" data-position="{position}">{"".join(cells)}</tr>\n')
    totals = data.get("totals") or {}
    stop = data.get("stop") or "running"
    if data.get("exhausted"):
        stop = f"{stop}: {data['exhausted']}"
    summary = (
        f'<p class="note">{escape(str(data.get("size")))} boards, '
        f"{escape(str(data.get('selection')))} selection; "
        f"{totals.get('generations', 0):,} generations, "
        f"{totals.get('evaluations', 0):,} candidates scored, "
        f"{totals.get('certifications', 0):,} certified in {totals.get('cpu_seconds', 0):,.1f} "
        f"CPU s; stopped: {escape(stop)}. Every level below carries its certificate "
        "(the solution plays on its board).</p>\n"
    )
    archive = _archive_table(data)
    figures = "".join(
        f'<figure><img alt="{escape(figure["name"])}" '
        f'src="data:image/png;base64,{figure["png"]}"></figure>\n'
        for figure in data["figures"]
    )
    return (
        '<section id="results"><h2>Levels</h2>\n'
        + summary
        + _table("levels-table", headers, rows)
        + '<p class="note">Click a row (or an archive cell) to play that level below.</p>'
        "</section>\n"
        + archive
        + '<section id="level"><div class="picker"><h2 id="level-title">Level</h2>'
        '<select id="level-select" aria-label="level"></select></div>\n'
        '<div class="row">\n'
        '<div class="player"><h3>Its certificate</h3><p class="note" id="player-note"></p>'
        '<div id="player"></div></div>\n'
        f'<div class="chart"><h3>{escape(data["objective"])} over the generations</h3>'
        '<canvas id="curve"></canvas><div class="legend" id="curve-legend"></div></div>\n'
        "</div></section>\n"
        + (f'<section class="figures"><h2>Figures</h2>\n{figures}</section>\n' if figures else "")
        + _config(data["config"])
    )


def _archive_table(data: dict[str, Any]) -> str:
    """The MAP-Elites archive as a grid: rows by the first feature (highest on top), columns by
    the second, each filled cell showing its elite's first objective."""
    archive = data.get("archive")
    if not archive:
        return ""
    (low_y, high_y), (low_x, high_x) = archive["ranges"]
    rows_count, columns_count = archive["bins"]
    y_name, x_name = archive["features"]
    step_y, step_x = (high_y - low_y) / rows_count, (high_x - low_x) / columns_count
    levels = data["levels"]
    filled = sum(cell is not None for row in archive["grid"] for cell in row)
    head = "".join(
        f"<th>{low_x + column * step_x:g}–{low_x + (column + 1) * step_x:g}</th>"
        for column in range(columns_count)
    )
    body = []
    for row in reversed(range(rows_count)):
        cells = [f'<th class="text">{low_y + row * step_y:g}–{low_y + (row + 1) * step_y:g}</th>']
        for position in archive["grid"][row]:
            if position is None:
                cells.append('<td class="empty"></td>')
            else:
                value = levels[position]["notes"].get("Pushes", "")
                cells.append(
                    f'<td class="pick filled" data-position="{position}" '
                    f'title="{escape(levels[position]["name"])}">{escape(str(value))}</td>'
                )
        body.append(f"<tr>{''.join(cells)}</tr>\n")
    return (
        '<section id="archive"><h2>Archive</h2>\n'
        f'<p class="note">{filled} of {rows_count * columns_count} cells filled: rows by '
        f"{escape(y_name)}, columns by {escape(x_name)}; each cell shows its elite's pushes.</p>\n"
        f'<div class="scroll"><table id="archive-table"><thead><tr><th class="text">'
        f"{escape(y_name)} \\ {escape(x_name)}</th>{head}</tr></thead>\n<tbody>\n"
        + "".join(body)
        + "</tbody></table></div></section>\n"
    )


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


# ---- several folders side by side ---------------------------------------------------------------


GROUP_COLUMNS = ("status", "cost", "seconds", "moves", "pushes")


def _folders_body(data: dict[str, Any]) -> str:
    """The page of :mod:`evosoko.experiment.report.side_by_side`."""
    has_curves = any(level["curves"] for level in data["levels"])
    return (
        _folders_table(data)
        + _groups_table(data)
        + _sweeps_table(data)
        + _joined_table(data)
        + (
            '<section id="level"><div class="picker"><h2 id="level-title">Level</h2>'
            '<select id="level-select" aria-label="level"></select></div>\n'
            '<div class="chart wide"><h3>Fitness of the runs, overlaid</h3>'
            '<canvas id="curve"></canvas><div class="legend" id="curve-legend"></div>'
            '<p class="note" id="curve-note"></p></div></section>\n'
            if has_curves
            else ""
        )
        + _differences_table(data)
        + _settings_files(data)
    )


def _folders_table(data: dict[str, Any]) -> str:
    rows = []
    for folder in data["folders"]:
        report = folder["report"]
        link = (
            f'<td class="text"><a href="{escape(report)}">report.html</a></td>'
            if report
            else _cell(None, "text")
        )
        rows.append(
            "<tr>"
            + _cell(folder["label"], "text")
            + _cell(folder["kind"], "text")
            + _cell(folder["rows"])
            + link
            + _cell(folder["path"], "text")
            + "</tr>\n"
        )
    headers = [("folder", "text"), ("kind", "text"), ("joined rows", ""), ("own report", "text")]
    return (
        '<section id="folders"><h2>Folders</h2>\n'
        + _table("folders-table", [*headers, ("path", "text")], rows, sortable=False)
        + "</section>\n"
    )


def _groups_table(data: dict[str, Any]) -> str:
    rows = []
    for group in data["groups"]:
        rate = group["solved"] / group["runs"] if group["runs"] else None
        rows.append(
            "<tr>"
            + _cell(group["label"], "text")
            + _cell(group["kind"], "text")
            + _cell(group["unit"], "text")
            + _cell(group["settings"], "text mono")
            + _cell(group["runs"])
            + _cell(group["solved"])
            + _cell(None if rate is None else f"{rate:.0%}")
            + "</tr>\n"
        )
    headers = [
        ("solver", "text"),
        ("kind", "text"),
        ("cost unit", "text"),
        ("settings digest", "text"),
        ("runs", ""),
        ("solved", ""),
        ("solve rate", ""),
    ]
    return (
        '<section id="solvers"><h2>Solvers</h2>\n<p class="note">One column group of the '
        "table below per solver of each folder. Equal settings digests: equal settings apart "
        "from the level and the seed, whatever folder they ran in.</p>\n"
        + _table("groups-table", headers, rows)
        + "</section>\n"
    )


def _sweeps_table(data: dict[str, Any]) -> str:
    sweeps = data.get("sweeps") or []
    if not sweeps:
        return ""
    rows = []
    for sweep in sweeps:
        params = ", ".join(f"{key} = {value}" for key, value in sweep["params"].items())
        figures = sweep["figures"]
        rows.append(
            "<tr>"
            + _cell(sweep["label"], "text")
            + _cell(sweep["trial"])
            + _cell(params, "text")
            + "".join(_sweep_cell(figures.get(key, "")) for key in ("runs", "solved"))
            + _cell(_percent(figures.get("solve_rate")))
            + "".join(
                _sweep_cell(figures.get(key, "")) for key in ("median_evaluations", "objective")
            )
            + "</tr>\n"
        )
    headers = [
        ("sweep", "text"),
        ("best trial", ""),
        ("its parameters", "text"),
        ("runs", ""),
        ("solved", ""),
        ("solve rate", ""),
        ("median evaluations", ""),
        ("objective", ""),
    ]
    return (
        '<section id="sweeps"><h2>Sweeps: the best trial of each</h2>\n<p class="note">A '
        "sweep joins the table below with its best trial (best.toml).</p>\n"
        + _table("sweeps-table", headers, rows, sortable=False)
        + "</section>\n"
    )


def _joined_table(data: dict[str, Any]) -> str:
    groups = data["groups"]
    top = '<th class="text" rowspan="2">#</th><th class="text" rowspan="2">level</th>' + "".join(
        f'<th class="group" colspan="{len(GROUP_COLUMNS)}">{escape(group["label"])}</th>'
        for group in groups
    )
    names = {"status": "status", "seconds": "seconds", "moves": "moves", "pushes": "pushes"}
    sub = "".join(
        "".join(
            f'<th class="{"text first" if column == "status" else ""}">'
            f"{escape(group['unit'] if column == 'cost' else names[column])}</th>"
            for column in GROUP_COLUMNS
        )
        for group in groups
    )
    rows = []
    for position, level in enumerate(data["levels"]):
        cells = [_cell(level["index"]), _cell(level["name"], "text")]
        for cell in level["cells"]:
            if cell is None:
                cells.append(f'<td class="first none" colspan="{len(GROUP_COLUMNS)}">–</td>')
                continue
            state = "yes" if cell["solved"] == cell["runs"] else "no" if not cell["solved"] else ""
            cells.append(_cell(cell["status"], f"text first {state}".strip()))
            cells += [_cell(_number(cell[key])) for key in ("cost", "seconds", "moves", "pushes")]
        rows.append(f'<tr class="pick" data-position="{position}">{"".join(cells)}</tr>\n')
    return (
        '<section id="joined"><h2>Results by level</h2>\n<p class="note">One row per level '
        "(its index in its file and its title), one column group per solver. Several runs of a "
        "solver on a level (seeds): the status when they agree, else how many solved; the "
        "median cost and seconds over its runs, the median moves and pushes over its solved "
        "runs; – : no run there.</p>\n"
        '<div class="scroll"><table id="joined-table">\n'
        f"<thead><tr>{top}</tr><tr>{sub}</tr></thead>\n<tbody>\n"
        + "".join(rows)
        + "</tbody></table></div></section>\n"
    )


def _percent(text: str | None) -> str | None:
    """A rate as index.csv writes it (``0.75``) as a percentage (``75%``)."""
    try:
        return f"{float(text or ''):.0%}"
    except ValueError:
        return None


def _number(value: Any) -> Any:
    """A median as it reads best: whole numbers without decimals."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    return value


def _differences_table(data: dict[str, Any]) -> str:
    differences = data.get("differences") or []
    labels = [folder["label"] for folder in data["folders"]]
    if not differences:
        text = "No setting that two folders share differs between them."
        return (
            '<section id="differences"><h2>Settings that differ</h2>'
            f'<p class="note">{text}</p></section>\n'
        )
    rows = [
        "<tr>" + "".join(_cell(value or None, "text") for value in row) + "</tr>\n"
        for row in differences
    ]
    headers = [("setting", "text"), *((label, "text") for label in labels)]
    return (
        '<section id="differences"><h2>Settings that differ</h2>\n<p class="note">The keys '
        "of the folders' settings files that at least two of them set, with different values; "
        "– : not set there.</p>\n" + _table("differences-table", headers, rows) + "</section>\n"
    )


def _settings_files(data: dict[str, Any]) -> str:
    columns = "".join(
        f'<div class="config-column"><h3>{escape(folder["label"])}: '
        f"{escape(folder['config_file'])}</h3><pre>{escape(folder['config'])}</pre></div>\n"
        for folder in data["folders"]
    )
    return (
        '<section id="settings"><details><summary>The settings files, side by side</summary>\n'
        f'<div class="config-row">{columns}</div></details></section>\n'
    )
