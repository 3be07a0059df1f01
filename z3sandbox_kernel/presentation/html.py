"""The ``text/html`` rendering of a run: one self-contained, inline-styled table.

It has to read well in JupyterLab's light and dark themes, in the classic notebook and on GitHub,
with no stylesheet and no script: colours are solid badges with white text (legible on any
background), borders are translucent grey, all other text inherits the page's colour, and every
colour comes with a text label.  Long reasons fold into ``<details>`` (one click, no JavaScript).
The final table has each candidate's wall, CPU and memory, and the caption the elapsed time (a
shared notebook, nbconvert's HTML, is where they are compared), each in an element of class
``z3-figure``, which the saved notebooks' checks mask (notebooks/sanitize.cfg); a live table and
the text have none.

Everything a candidate produced is untrusted and goes through ``html.escape``.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Collection
from typing import TYPE_CHECKING

from ..protocol.verdicts import VERDICT_DOCS, verdict_style
from .phrases import (
    SAVED_COLUMNS,
    TABLE_COLUMNS,
    Column,
    isolation_shortfall,
    limits_summary,
    model_text,
    progress_summary,
    shorten,
    shorten_tail,
    tie_summary,
)
from .printable import printable, printable_lines
from .reasons import REASONS_KEPT, fit_reason, is_cut, row_reason, unconfirmed_why
from .row_details import (
    core_summary,
    further_models,
    inline_output,
    model_count,
    objective_summary,
    shown_style,
    shown_verdict,
    shows_output,
)
from .summary import Summary, summarize
from .textview import candidate_alone_text

if TYPE_CHECKING:
    from ..contracts.results import CandidateResult, RunResult

# Badge colours come from verdicts.json (shared with the labextension): the light-theme pair,
# a solid background with white text, which reads at >= 4.5:1 on light and dark pages alike.

# Cells stay lean (a row is repeated K times); JupyterLab and GitHub add themed borders and stripes.
_TABLE = "border-collapse:collapse;font-size:12px;line-height:1.4;margin:2px 0;color:inherit"
_CELL = "text-align:left;vertical-align:top;padding:1px 8px"
_HEAD = _CELL + ";font-weight:600"
_MONO = "font-family:SFMono-Regular,Menlo,Consolas,'Liberation Mono',monospace"
_CAPTION = "caption-side:top;text-align:left;padding:2px 0 4px 0;color:inherit"
_REASON_WIDTH = 60
# A measured figure: masked where saved outputs are compared (notebooks/sanitize.cfg).
FIGURE_CLASS = "z3-figure"
_FIGURE_STYLE = "text-align:right;white-space:nowrap"
_PREVIEW_WIDTH = 40
_MODEL_WIDTH = 30  # as the text table's column
# More rows than this are summarised in one last row; the run's JSON and NAME[i] hold them all.
MAX_ROWS = 200


def badge(label: str, title: str = "", style: str | None = None, outline: bool = False) -> str:
    """A colour-coded label; the text is always there, the colour only repeats it.  ``outline``:
    the colour as a dashed border around the page's own text colour (an answer nobody confirmed:
    it must not look like a confirmed one)."""
    colours = verdict_style(style or label)["light"]
    tip = f' title="{html.escape(title)}"' if title else ""
    paint = (f"color:inherit;border:2px dashed {colours['background']};padding:0 4px" if outline else
             f"color:{colours['text']};background:{colours['background']};padding:0 6px")
    return (
        f'<span style="display:inline-block;border-radius:10px;{paint};'
        f'font-weight:600;white-space:nowrap"{tip}>{html.escape(label)}</span>'
    )


def verdict_badge(candidate: CandidateResult) -> str:
    """The shown verdict ("proved", "sat · no payload", ...) in its colour; the tooltip names the
    verdict itself and what it means.  An answer nobody confirmed is outlined, not filled, and
    its tooltip says why."""
    label = shown_verdict(candidate)
    doc = VERDICT_DOCS[candidate.verdict][0] if candidate.verdict is not None else ""
    if candidate.verdict is not None and label != candidate.verdict.value:
        doc = f"{candidate.verdict.value}: {doc}"
    why = unconfirmed_why(candidate)
    if why is not None:
        doc = f"unconfirmed: {why} ({doc})"
    return badge(label, printable(doc), style=shown_style(label), outline=why is not None)


def folded(text: str, width: int = _REASON_WIDTH) -> str:
    """``text`` shortened, with the whole of it one click away when it does not fit."""
    return _expander(shorten_tail(text, width), text)


def _expander(short: str, text: str) -> str:
    """``short`` with the whole ``text`` one click away (no JavaScript), or ``short`` alone when
    it says it all."""
    if not is_cut(short, text):
        return html.escape(short)
    return (
        f'<details><summary style="cursor:pointer">{html.escape(short)}</summary>'
        f'<pre style="white-space:pre-wrap;margin:2px 0;{_MONO}">'
        f"{html.escape(printable_lines(text))}</pre></details>"
    )


def reason_cell(candidate: CandidateResult, shared: Collection[str] = ()) -> str:
    """The row's reason, its message whole (the room wraps it), its quoted source line cut to
    fit; the whole reason (a traceback too) one click away."""
    return _reason_expander(row_reason(candidate, shared))


@functools.lru_cache(maxsize=REASONS_KEPT)  # a run's rows mostly say the same few reasons
def _reason_expander(reason: str) -> str:
    return _expander(fit_reason(reason, _REASON_WIDTH), reason)


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


def _cell(candidate: CandidateResult, column: Column, shared: Collection[str]) -> str:
    """A column's cell: plain escaped text, or the markup a few columns need."""
    if column.key == "label":
        return _name_cell(candidate)
    if column.key == "verdict":
        return verdict_badge(candidate)
    if column.key == "reason":  # with the unsat core in sight, so that an HTML export keeps it
        core = core_summary(candidate)
        shown = f"<div>core: <code>{html.escape(core)}</code></div>" if core else ""
        optimum = objective_summary(candidate)
        if optimum:
            shown += f"<div>objective: <code>{html.escape(optimum)}</code></div>"
        return reason_cell(candidate, shared) + shown
    if column.key == "model":  # the whole model or payload one click away (nbconvert HTML too)
        shown = folded(model_text(candidate), _MODEL_WIDTH)
        more = further_models(candidate)
        if more:  # models=N: the count in sight, each further model one click away
            shown += (f"<details><summary>{model_count(candidate)} models</summary>"
                      f'<pre style="white-space:pre-wrap;margin:0">'
                      f"{html.escape(chr(10).join(more))}</pre></details>")
        return shown
    if column.volatile:
        return f'<span class="{FIGURE_CLASS}">{html.escape(column.text(candidate))}</span>'
    return html.escape(column.text(candidate))


_CELL_STYLE = {"index": "white-space:nowrap", "model": _MONO, "wall_s": _FIGURE_STYLE,
               "cpu_s": _FIGURE_STYLE, "peak_rss_mb": _FIGURE_STYLE}


def candidate_row(candidate: CandidateResult, columns: tuple[Column, ...] = SAVED_COLUMNS,
                  alone: bool = False, shared: Collection[str] = ()) -> str:
    """One row: the cells of ``columns``, the same columns as the text table; then its stdout in
    a row of its own when the row shows it (``shown.shows_output``).  ``shared``: the reason's
    clauses the caption says once."""
    cells = (_td(_cell(candidate, column, shared), _CELL_STYLE.get(column.key, ""))
             for column in columns)
    row = "<tr>" + "".join(cells) + "</tr>"
    if shows_output(candidate, alone):
        text, more = inline_output(candidate)
        tail = f"\n… ({more} more lines: NAME[{candidate.index}].stdout)" if more else ""
        row += (f'<tr><td style="{_CELL}"></td><td colspan="{len(columns) - 1}" style="{_CELL}">'
                f'<pre style="white-space:pre-wrap;margin:0;{_MONO}" title="stdout">'
                f"{html.escape(text + tail)}</pre></td></tr>")
    return row


def _td(body: str, extra: str = "") -> str:
    return f'<td style="{_CELL}{";" + extra if extra else ""}">{body}</td>'


def progress_bar(summary: Summary, elapsed_s: float) -> str:
    """A styled bar (no script): the share of candidates done, with done/total and elapsed."""
    step = summary.progress
    share = 100 * step["done"] // max(step["total"], 1)
    fill = verdict_style("running")["light"]["background"]
    return (
        f'<span style="display:inline-block;vertical-align:middle;width:120px;height:8px;'
        f'border-radius:4px;background:rgba(128,128,128,.25)" role="progressbar" '
        f'aria-valuenow="{step["done"]}" aria-valuemax="{step["total"]}">'
        f'<span style="display:block;height:8px;border-radius:4px;width:{share}%;background:{fill}">'
        f"</span></span> {html.escape(progress_summary(step, elapsed_s))}"
    )


def caption(result: RunResult, summary: Summary) -> str:
    """The table's caption: the vote and counts (or progress), tie, groups, limits, isolation."""
    done = summary.finished
    if summary.total == 1 and done:  # one candidate: its verdict, no vote or counts
        parts = [f"<b>z3sandbox</b> {verdict_badge(result.candidates[0])}"]
    else:
        shown = summary.vote if done else "pending"
        vote = badge(shown, "the vote over the candidates", style=shown_style(shown))
        parts = [f"<b>z3sandbox</b> {vote} &nbsp;{html.escape(summary.states)}"]
    if not done:  # a live table: saved now, or its kernel gone, it stays as it is
        parts.append(progress_bar(summary, result.elapsed_s))
        parts.append(badge("incomplete", "a live table: it is final only once the run ends"))
    if summary.tie is not None:
        parts.append(f'{badge("tie")} {html.escape(tie_summary(summary.tie))}')
    if summary.groups:
        parts.append(html.escape(summary.groups))
    if summary.said_once_caption:
        parts.append(html.escape(summary.said_once_caption))
    parts.append(f"limits: {html.escape(limits_summary(result.limits))}")
    if isolation_shortfall(result.isolation):
        parts.append(f"isolation {html.escape(isolation_shortfall(result.isolation))}")
    if result.interrupted:
        parts.append(badge("interrupted", "interrupted: unfinished candidates were cancelled"))
    if done and result.elapsed_s:
        parts.append(f'<span class="{FIGURE_CLASS}">{result.elapsed_s:.2f} s elapsed</span>')
    return " &middot; ".join(parts)


def run_html(result: RunResult, max_rows: int = MAX_ROWS, summary: Summary | None = None) -> str:
    """The whole run as one ``<table>``: caption, header, one row per candidate (with its wall,
    CPU and memory once the run is done), notes.  ``summary``: the run's, when the caller has it."""
    summary = summary or summarize(result)
    columns = TABLE_COLUMNS if summary.finished else SAVED_COLUMNS
    head = "".join(f'<th style="{_HEAD}">{column.title}</th>' for column in columns)
    span = len(columns)
    alone = len(result.candidates) == 1
    rows = [candidate_row(c, columns, alone=alone, shared=summary.said_once)
            for c in result.candidates[:max_rows]]
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
        f'<table style="{_TABLE}"><caption style="{_CAPTION}">{caption(result, summary)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def live_html(result: RunResult, rows: list[CandidateResult], summary: Summary,
              made: list[str] | None = None) -> str:
    """A live refresh: the caption (progress, counts) and only ``rows`` (``live.LiveTable``);
    ``made``: their ``candidate_row``, when the caller kept them."""
    head = "".join(f'<th style="{_HEAD}">{column.title}</th>' for column in SAVED_COLUMNS)
    body = list(made) if made is not None else [candidate_row(c) for c in rows]
    hidden = len(result.candidates) - len(rows)
    if hidden > 0:
        body.append(f'<tr><td colspan="{len(SAVED_COLUMNS)}" style="{_CELL}">… {hidden} other '
                    f"candidates: the whole table is shown when the run ends</td></tr>")
    return (
        f'<table style="{_TABLE}"><caption style="{_CAPTION}">{caption(result, summary)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def candidate_html(candidate: CandidateResult) -> str:
    """A candidate alone: its row of the table, then its full reason, core and output, and what
    it took (wall, CPU, memory)."""
    figures = ", ".join(f"{column.title} {column.text(candidate)}" for column in TABLE_COLUMNS
                        if column.volatile) if candidate.verdict is not None else ""
    took = f' <span class="{FIGURE_CLASS}">{html.escape(figures)}</span>' if figures else ""
    return (
        f'<div style="font-size:12px;line-height:1.4">{verdict_badge(candidate)}{took}'
        f'<pre style="white-space:pre-wrap;margin:2px 0;{_MONO}">'
        f"{html.escape(printable_lines(candidate_alone_text(candidate)))}</pre></div>"
    )
