"""The ``text/html`` rendering of a run: one self-contained, inline-styled table.

It has to read well in JupyterLab's light and dark themes, in the classic notebook and on GitHub,
with no stylesheet and no script: colours are solid badges with white text (legible on any
background), borders are translucent grey, all other text inherits the page's colour, and every
colour comes with a text label.  Long reasons fold into ``<details>`` (one click, no JavaScript).
No volatile figures (times, memory, pids): a saved notebook stays byte-identical from run to run.

Everything a candidate produced is untrusted and goes through ``html.escape``.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from .render import (
    SAVED_COLUMNS,
    Column,
    core_text,
    counts_summary,
    finished,
    groups_summary,
    isolation_summary,
    limits_summary,
    model_text,
    printable,
    progress,
    progress_summary,
    reason_text,
    shorten,
    shorten_reason,
    state_label,
    tie_summary,
)
from .verdicts import VERDICT_DOCS, verdict_style

if TYPE_CHECKING:
    from .results import CandidateResult, RunResult

# Badge colours come from verdicts.json (shared with the labextension): the light-theme pair,
# a solid background with white text, which reads at >= 4.5:1 on light and dark pages alike.

# Cells stay lean (a row is repeated K times); JupyterLab and GitHub add themed borders and stripes.
_TABLE = "border-collapse:collapse;font-size:12px;line-height:1.4;margin:2px 0;color:inherit"
_CELL = "text-align:left;vertical-align:top;padding:1px 8px"
_HEAD = _CELL + ";font-weight:600"
_MONO = "font-family:SFMono-Regular,Menlo,Consolas,'Liberation Mono',monospace"
_CAPTION = "caption-side:top;text-align:left;padding:2px 0 4px 0;color:inherit"
_REASON_WIDTH = 60
_PREVIEW_WIDTH = 40
_MODEL_WIDTH = 30  # as the text table's column
# More rows than this are summarised in one last row; the run's JSON and NAME[i] hold them all.
MAX_ROWS = 200


def badge(label: str, title: str = "") -> str:
    """A colour-coded label; the text is always there, the colour only repeats it."""
    colours = verdict_style(label)["light"]
    tip = f' title="{html.escape(title)}"' if title else ""
    return (
        f'<span style="display:inline-block;padding:0 6px;border-radius:10px;color:{colours["text"]};'
        f'background:{colours["background"]};font-weight:600;white-space:nowrap"{tip}>{html.escape(label)}</span>'
    )


def verdict_badge(candidate: CandidateResult) -> str:
    label = state_label(candidate)
    doc = VERDICT_DOCS[candidate.verdict][0] if candidate.verdict is not None else ""
    return badge(label, doc)


def folded(text: str, width: int = _REASON_WIDTH) -> str:
    """``text`` shortened, with the whole of it one click away when it does not fit."""
    short = shorten_reason(text, width)
    if short == printable(" ".join(text.split())):
        return html.escape(short)
    return (
        f'<details><summary style="cursor:pointer">{html.escape(short)}</summary>'
        f'<pre style="white-space:pre-wrap;margin:2px 0;{_MONO}">'
        f"{html.escape(printable_block(text))}</pre></details>"
    )


def printable_block(text: str) -> str:
    """Multi-line text with its line breaks kept and every other control character escaped."""
    return "\n".join(printable(line) for line in text.splitlines())


def _name_cell(candidate: CandidateResult) -> str:
    """The label in bold, the source preview under it in monospace (full text in the tooltip)."""
    parts = []
    if candidate.label:
        parts.append(f"<b>{html.escape(printable(candidate.label))}</b>")
    if candidate.source_preview:
        preview = printable(candidate.source_preview)
        parts.append(f'<span style="{_MONO};opacity:.8" title="{html.escape(preview)}">'
                     f"{html.escape(shorten(preview, _PREVIEW_WIDTH))}</span>")
    return "<br>".join(parts)


def _cell(candidate: CandidateResult, column: Column) -> str:
    """A column's cell: plain escaped text, or the markup a few columns need."""
    if column.key == "label":
        return _name_cell(candidate)
    if column.key == "verdict":
        return verdict_badge(candidate)
    if column.key == "reason":  # with the unsat core, so that an HTML export keeps it
        core = f"\ncore: {core_text(candidate)}" if candidate.unsat_core else ""
        return folded(reason_text(candidate) + core)
    if column.key == "model":  # the whole model or payload one click away (nbconvert HTML too)
        return folded(model_text(candidate), _MODEL_WIDTH)
    return html.escape(column.text(candidate))


_CELL_STYLE = {"index": "white-space:nowrap", "model": _MONO}


def candidate_row(candidate: CandidateResult, columns: tuple[Column, ...] = SAVED_COLUMNS) -> str:
    """One row: the cells of ``columns``, the same columns as the text table."""
    cells = (_td(_cell(candidate, column), _CELL_STYLE.get(column.key, "")) for column in columns)
    return "<tr>" + "".join(cells) + "</tr>"


def _td(body: str, extra: str = "") -> str:
    return f'<td style="{_CELL}{";" + extra if extra else ""}">{body}</td>'


def progress_bar(result: RunResult) -> str:
    """A styled bar (no script): the share of candidates done, with done/total and elapsed."""
    step = progress(result)
    share = 100 * step["done"] // max(step["total"], 1)
    fill = verdict_style("running")["light"]["background"]
    return (
        f'<span style="display:inline-block;vertical-align:middle;width:120px;height:8px;'
        f'border-radius:4px;background:rgba(128,128,128,.25)" role="progressbar" '
        f'aria-valuenow="{step["done"]}" aria-valuemax="{step["total"]}">'
        f'<span style="display:block;height:8px;border-radius:4px;width:{share}%;background:{fill}">'
        f"</span></span> {html.escape(progress_summary(result))}"
    )


def caption(result: RunResult) -> str:
    done = finished(result)
    vote = badge(result.verdict.value if done else "pending", "the vote over the candidates")
    parts = [f"<b>z3sandbox</b> {vote} &nbsp;{html.escape(counts_summary(result))}"]
    if not done:
        parts.append(progress_bar(result))
    if result.tie is not None:
        parts.append(f'{badge("tie")} {html.escape(tie_summary(result))}')
    if groups_summary(result):
        parts.append(html.escape(groups_summary(result)))
    parts.append(f"limits: {html.escape(limits_summary(result.limits))}")
    if result.isolation is not None:
        parts.append(f"isolation {html.escape(isolation_summary(result.isolation))}")
    if result.interrupted:
        parts.append(badge("interrupted", "interrupted: unfinished candidates were cancelled"))
    return " &middot; ".join(parts)


def run_html(result: RunResult, max_rows: int = MAX_ROWS) -> str:
    """The whole run as one ``<table>``: caption, header, one row per candidate, notes."""
    head = "".join(f'<th style="{_HEAD}">{column.title}</th>' for column in SAVED_COLUMNS)
    span = len(SAVED_COLUMNS)
    rows = [candidate_row(c) for c in result.candidates[:max_rows]]
    hidden = len(result.candidates) - max_rows
    if hidden > 0:
        rows.append(
            f'<tr><td colspan="{span}" style="{_CELL}">… {hidden} more candidates '
            f"(all of them are in the result object and its JSON)</td></tr>"
        )
    rows.extend(
        f'<tr><td colspan="{span}" style="{_CELL}">note: {html.escape(printable(note))}</td></tr>'
        for note in result.notes
    )
    return (
        f'<table style="{_TABLE}"><caption style="{_CAPTION}">{caption(result)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def candidate_html(candidate: CandidateResult) -> str:
    """A candidate alone: its row of the table, then its full reason, core and output."""
    from .render import candidate_alone_text

    return (
        f'<div style="font-size:12px;line-height:1.4">{verdict_badge(candidate)} '
        f'<pre style="white-space:pre-wrap;margin:2px 0;{_MONO}">'
        f"{html.escape(printable_block(candidate_alone_text(candidate)))}</pre></div>"
    )
