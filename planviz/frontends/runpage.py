"""The offline page of a run (or of several): the front-end module on the runs' snapshot, and a no-script view.

The HTML report, the explorer's static fallback, the two-run report and
``animate``'s flipbook are this page; the shell (CSP, the script JSON, the
module) is :func:`planviz.frontends.page.module_page`. Without script the
report shows the run's last frame: its picture, caption, facts, ready set,
legend, event log, timeline and metrics, all from the snapshot; the flipbook
shows its frames in turn, by CSS alone.

>>> from planviz import examples, simulate
>>> from planviz.frontends.snapshot import run_snapshot
>>> page = run_page(run_snapshot(simulate(examples.load("cache_isolation")), legend=False))
>>> "Content-Security-Policy" in page and 'id="planviz-app"' in page and "https://" not in page
True
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from planviz.frontends.page import module_page, shared_slot
from planviz.frontends.panels import caption_line
from planviz.pictures.escape import escape_html as escape

__all__ = [
    "run_page",
    "pair_page",
    "fallback_html",
    "noscript_html",
    "flipbook_page",
    "flipbook_figures",
    "svg_size",
]

NOSCRIPT_ROWS = 500  # log rows the no-script view shows: the last ones
# facts (and ready steps) the no-script view lists; a 100k-span run holds 50,000
NOSCRIPT_ITEMS = 500
NOSCRIPT_TIMELINE = 200_000  # characters of timeline SVG the no-script view shows; a bigger one is left to the script
_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)
_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([0-9.]+)pt"[^>]*?\bheight="([0-9.]+)pt"')


def _items(names: list[str]) -> str:
    """The list's items: the first :data:`NOSCRIPT_ITEMS` names, then how many more the script shows."""
    if not names:
        return '<li class="pv-empty">(none)</li>'
    more = len(names) - NOSCRIPT_ITEMS
    shown = "".join(f"<li>{escape(x)}</li>" for x in names[:NOSCRIPT_ITEMS])
    return shown + (
        f'<li class="pv-empty">\u2026 and {more:,} more; allow scripts to see every one</li>'
        if more > 0
        else ""
    )


def _static_legend(snap: dict[str, Any]) -> str:
    spec = snap["versions"][-1]
    on = set(spec["legend"]) | {snap["look_legend"][look] for look in spec["looks"]}
    items = "".join(
        f'<li class="pv-legend-{key}"><span class="pv-swatch" style="background:{fill};border:{width}px '
        f'{style} {stroke}"></span>{escape(text)}</li>'
        for key, text, fill, stroke, width, style in snap["legend"]
        if key in on
    )
    return f'<p class="pv-legend-title">Legend</p><ul class="pv-legend">{items}</ul>'


def noscript_html(snap: dict[str, Any], at: str = "") -> str:
    """The run's last frame as static HTML (what a reader without script sees); its picture and timeline are
    the page's one copy of them (:func:`~planviz.frontends.page.shared_slot`), ``at`` the snapshot's place
    in the page's data (``pair.0.``, or the top). A long run's log shows its last :data:`NOSCRIPT_ROWS` events,
    its lists of facts and ready steps their first :data:`NOSCRIPT_ITEMS`,
    and a timeline of more than :data:`NOSCRIPT_TIMELINE` characters is left to the script (it travels in the
    page's compressed data): without that a 10k-span report was 5.4 MB of no-script view."""
    n, last = len(snap["log"]), len(snap["versions"]) - 1
    picture, timeline = shared_slot(f"{at}versions.{last}.svg"), shared_slot(f"{at}gantt")
    head, rest = caption_line(
        n - 1, n, snap["log"][-1], snap["unit"], snap["versions"][-1]["version"]
    )
    # a long run's log: its last rows (the script shows every one)
    first = max(0, n - NOSCRIPT_ROWS)
    rows = "".join(
        f'<tr class="pv-kind-{escape(r[1])}{" pv-current" if i == n - 1 else ""}"><td>{i}</td>'
        f"<td>{escape(r[0])}</td><td>{escape(r[1])}</td><td>{escape(r[2])}</td><td>{escape(r[3])}</td></tr>"
        for i, r in enumerate(snap["log"][first:], first)
    )
    skipped = (
        (
            f'<p class="static-note">The log below shows the last {n - first:,} of {n:,} events; allow scripts '
            "to see every one.</p>"
        )
        if first
        else ""
    )
    if len(snap["gantt"]) <= NOSCRIPT_TIMELINE:
        gantt = f'<div class="pv-panel" {timeline}>{snap["gantt"]}</div>'
    else:  # a picture of megabytes: it travels once, compressed in the page's data, for the script to show
        gantt = (
            '<p class="static-note">This run\'s timeline is too large to show without script.</p>'
        )
    metrics = "".join(
        f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in snap["metrics"]
    )
    unfinished = (
        " The run is <b>unfinished</b>: it has no stop event (the agent stopped recording), so this is "
        "where it stopped."
        if snap.get("unfinished")
        else ""
    )
    return f"""<div class="planviz-explorer">
<header class="pv-head"><p class="pv-title">{escape(snap["goal"])}</p>
<p class="pv-sub">outcome <span class="pv-badge pv-{snap["badge"]}">{escape(snap["outcome"])}</span> &middot;
events 0..{n - 1} &middot; generated by planviz, works offline</p></header>
<p class="static-note">Without script this page shows the run's last frame; allow scripts to step through
every frame.{unfinished}</p>
<p class="pv-caption"><b>{escape(head)}</b>{escape(rest)}</p>
<div class="pv-picture"><div class="planviz-diagram pv-fit" {picture}>{snap["versions"][-1]["svg"]}</div>
<div class="pv-side"><div class="planviz-legend">{_static_legend(snap)}</div></div></div>
<div class="pv-lower"><div class="pv-tabbox">
<h2>Facts held</h2><ul class="pv-list pv-facts">{_items([snap["facts"][k] for k in snap["last_facts"]])}</ul>
<h2>Ready</h2><ul class="pv-list pv-ready">{_items([snap["steps"][k] for k in snap["last_ready"]])}</ul>
<h2>Metrics (whole run)</h2><table class="pv-log pv-metrics">{metrics}</table>
<h2>Event log</h2>{skipped}<div class="pv-panel"><table class="pv-log"><thead><tr><th>#</th><th>time</th><th>kind</th>
<th>step</th><th>message</th></tr></thead><tbody>{rows}</tbody></table></div>
<h2>Timeline: the run against the critical path</h2>{gantt}
</div></div></div>"""


def run_page(snap: dict[str, Any], mode: str = "") -> str:
    """The offline page of one run's snapshot (:func:`~planviz.frontends.snapshot.run_snapshot`)."""
    return module_page(f"planviz run: {snap['goal']}", snap, noscript_html(snap), mode=mode)


def pair_page(snap: dict[str, Any]) -> str:
    """The offline page of two runs on one stepper (:func:`~planviz.frontends.snapshot.pair_snapshot`)."""
    halves = "".join(
        f"<section><h2>{escape(label)}</h2>{noscript_html(one, f'pair.{k}.')}</section>"
        for k, (label, one) in enumerate(zip(snap["labels"], snap["pair"]))
    )
    halves = f'<pre class="pv-diff">{escape(snap.get("diff", ""))}</pre>' + halves
    return module_page("planviz: " + " vs ".join(snap["labels"]), snap, halves)


def fallback_html(snap: dict[str, Any], mode: str = "") -> str:
    """The explorer's static fallback: the offline page of its snapshot in a sandboxed ``iframe`` (scripts run
    in it, with no access to the notebook's page), for hosts with no widget manager."""
    if not snap:
        return '<p class="pv-empty">this run has no events</p>'
    # no second copy of the pictures for readers without script: an iframe that shows nothing runs script anyway
    title = (
        "planviz: " + " vs ".join(snap["labels"])
        if "pair" in snap
        else f"planviz run: {snap['goal']}"
    )
    page = module_page(
        title,
        snap,
        '<p class="static-note">This view of the run needs '
        "script; open the notebook in Jupyter to use the live explorer.</p>",
        mode=mode,
    )
    # single-quoted: the page's many double quotes (JSON, SVG) stay as they are; its data escapes '&' already
    quoted = page.replace("&", "&amp;").replace("'", "&#39;")
    return (
        f'<iframe class="planviz-fallback" title="planviz explorer (static)" sandbox="allow-scripts" '
        f"style=\"width:100%;height:900px;border:1px solid #ddd\" srcdoc='{quoted}'></iframe>"
    )


# The flipbook without script: one figure per frame, shown in turn by CSS alone, paused under the pointer, every
# frame listed when printed or when the reader asks for reduced motion.
_FLIPBOOK_STYLE = """.pv-flipbook { display: grid; font-family: system-ui, sans-serif; }
.pv-frame { grid-area: 1 / 1; margin: 0; visibility: hidden; animation: pv-flip %(total)ss step-end infinite; }
.pv-frame svg { max-width: 100%%; height: auto; }
.pv-frame figcaption { font-size: 14px; margin: 4px 8px 0; }
.pv-frames { display: flex; gap: 8px; }
.pv-frames.pv-column { flex-direction: column; }
.pv-frames section { flex: 1 1 0; min-width: 0; border-top: 2px solid #999999; }
.pv-frames h2 { font-size: 16px; margin: 2px 8px; }
.pv-flipbook:hover .pv-frame { animation-play-state: paused; }
@keyframes pv-flip { 0%% { visibility: visible; } %(share)s%% { visibility: hidden; } }
@media (prefers-reduced-motion: reduce), print {
  .pv-flipbook { display: block; }
  .pv-frame { animation: none; visibility: visible; margin-bottom: 24px; }
}
"""


def svg_size(svg: str) -> tuple[float, float]:
    """The width and height (points) an SVG from render declares."""
    found = _SIZE.search(svg)
    return (float(found.group(1)), float(found.group(2))) if found else (1.0, 1.0)


def flipbook_figures(
    frames: Sequence[Sequence[str]],
    heads: Sequence[Sequence[str]],
    captions: Sequence[str],
    how: str,
    seconds: float,
) -> tuple[str, str]:
    """The flipbook's no-script view and its style: one figure per frame (each run's SVG from
    :func:`planviz.render`, under its label when there are several, in a row or a column), shown in turn."""
    n = len(frames)

    def panels(svgs: Sequence[str], labels: Sequence[str]) -> str:
        if len(svgs) == 1:
            return _PROLOG.sub("", svgs[0], count=1)
        cells = "".join(
            f"<section><h2>{escape(label)}</h2>{_PROLOG.sub('', svg, count=1)}</section>"
            for svg, label in zip(svgs, labels)
        )
        return f'<div class="pv-frames pv-{how}">{cells}</div>'

    figures = "\n".join(
        f'<figure class="pv-frame" id="frame-{k}" style="animation-delay: {k * seconds:g}s">'
        f"{panels(svgs, head)}<figcaption>{escape(caption)}</figcaption></figure>"
        for k, (svgs, head, caption) in enumerate(zip(frames, heads, captions))
    )
    what = "a run" if len(frames[0]) == 1 else f"{len(frames[0])} runs side by side"
    label = escape(f"{n} frames of {what}, {seconds:g} s each; hover to pause")
    # each frame's share of the loop, rounded down: at the instant one frame hands over to the next, only the
    # next shows (rounded up, both did)
    style = _FLIPBOOK_STYLE % {
        "total": f"{n * seconds:g}",
        "share": f"{(1_000_000 // n) / 10_000:.4f}",
    }
    return f'<main class="pv-flipbook" aria-label="{label}">\n{figures}\n</main>', style


def flipbook_page(snap: dict[str, Any], figures: tuple[str, str]) -> str:
    """``animate``'s HTML flipbook: the offline page of ``snap``
    (:func:`~planviz.frontends.pages.slides.flipbook_snapshot`), which the module plays by itself, and
    ``figures`` (:func:`flipbook_figures`) for readers without script."""
    n, seconds = len(snap["ticks"]), snap["autoplay"]["ms"] / 1000
    title = f"planviz animation: {snap['goal']}"
    mode = f"flipbook of {n} frames, {seconds:g} s each"
    return module_page(title, snap, figures[0], mode=mode, style=figures[1])
