"""WorFBench workflow graphs as plans.

A WorFBench record is a chat (``conversations``: system, user, assistant) whose
last assistant turn holds the graph as text, numbered subtasks then edges
from ``START`` to ``END``::

    Node:
    1: go to countertop
    2: take potato from countertop
    Edge: (START,1) (1,2) (2,END)

Node ``k`` becomes step ``k`` (its text the action); ``START`` and ``END``
become explicit steps (kinds ``start`` and ``finish``, duration 0), so the
structure checks see where the workflow ends (``dead_end``, ``isolated_step``);
edge ``(u, v)`` makes v depend on u. The task in the user turn is the goal and
the record's ``id`` the plan's name. The bare graph text reads too.

Real text is noisy, and what is not read is said: prose around the graph and
numbered lists in it, before the ``Node:`` list or after the edges
(``unparsed_line``, an info note per block, or a warning when it holds edges
that are not read), an edge naming no node
(``dangling_link``), a node to itself (``self_link``), an edge listed twice
(``duplicate_link``), an edge into START or out of END (``malformed_link``,
not drawn), a node numbered twice (``duplicate_label``, the first is read),
steps no edge reaches from START (``not_from_start``) and an edge from START to
a step that also follows another step after START (``redundant_start_edge``).
``Node:``/``Nodes:``, ``Edge:``/``Edges:`` and ``Graph:`` headers, ``1:``,
``1.`` and ``1)`` numbering and ``(START, 1)`` spacing all read.

Edges are read as written wherever a line begins with them, and an info
finding (``edge_variant``) names the layouts other than ``Edge: (START,1) (1,2)``
or one pair a line that a graph used: a bullet list under ``Edge:``
(``- (START, 1)``), ``Edge:**`` with the list below, one ``Edge: (1, 2)`` line
per edge, pairs followed by prose on the same line (``- (1, 3) transitions
from ...``), and edges after prose or under another heading. A pair inside a
sentence (``Also (1, END) would work.``) is not read: the ``unparsed_line``
warning quotes it.

>>> text = "Node:\\n1: find the key\\n2: open the door\\nEdge: (START, 1) (1,2) (2,END)"
>>> [plan] = import_plans(text, None)
>>> plan.ids, plan.step("2").depends_on, plan.step("END").kind
(('START', '1', '2', 'END'), ('1',), 'finish')
>>> [plan] = import_plans("Node:\\n1: find the key\\nEdge:**\\n- (START, 1) first\\n- (1, END)", None)
>>> plan.step("END").depends_on, [f.message for f in plan.import_findings]  # doctest: +NORMALIZE_WHITESPACE
(('1',), ['edges read from an Edge: header in Markdown markup (`Edge:**`, `**Edge:**`); a bullet or numbered
list (`- (START, 1)`); pairs followed by prose on the same line (`- (1, 3) transitions from ...`): 2 pair(s) in
all'])
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from planviz.plan.branches import connected_branches
from planviz.plan.importers._build import Draft, build, finding, short
from planviz.plan.model import Finding, Plan, natural_key

__all__ = ["import_plans", "looks_like", "UNSTATED", "TITLE"]

TITLE = "WorFBench"
UNSTATED = ("expected_evidence", "produces")
START, END = "START", "END"

_HEADER = re.compile(r"(?:\*\*)?(nodes?|edges?|graph)(?:\*\*)?\s*:(.*)", re.IGNORECASE)
_NUMBERED = re.compile(r"(\d{1,6})\s*(?::|\.(?!\d)|\))(.*)")
_PAIR = re.compile(r"\(([^(),\n]{0,80}),([^(),\n]{0,80})\)")
_SEPARATORS = re.compile(r"(?:[\s,;.]|\band\b)*", re.IGNORECASE)
_LIST_MARK = re.compile(r"(?:[-*\u2022+]|\d{1,3}[.)])\s+")
_LABEL = re.compile(r"edges?\b[\s*_`]{0,6}:?", re.IGNORECASE)
_GRAPH = re.compile(r"\(\s{0,5}START\s{0,5},", re.IGNORECASE)
_TASK_MARKERS = (
    "Your task is to:",
    "My problem is:",
    "Instruction: [SEP]",
    "Instruction:",
    "Task:",
)
_TASK_ENDS = (
    "The action list",
    "The api list",
    "The tool list",
    "api_list",
    "The database tables",
    "[SEP]",
    "\n",
)


def looks_like(text: str, data: Any) -> bool:
    """Whether the input reads as WorFBench: records with ``conversations``, or graph text (``Node:`` and
    ``Edge:`` headers, or one of them and a ``(START, k)`` edge)."""
    if isinstance(data, dict) and isinstance(data.get("conversations"), list):
        return True
    if isinstance(data, list) and data and all(isinstance(x, dict) for x in data):
        return all(isinstance(x.get("conversations"), list) for x in data)
    if not isinstance(text, str):
        return False
    kinds = _headers(text)
    return {"node", "edge"} <= kinds or (bool(kinds) and _GRAPH.search(text) is not None)


def _headers(text: str) -> set[str]:
    """The kinds of graph headers in a text: ``node``, ``edge``, ``graph``."""
    found = (_HEADER.match(line.strip()) for line in text.splitlines())
    return {m.group(1).lower().rstrip("s") for m in found if m}


def import_plans(text: str, data: Any, *, source: str = "<string>") -> list[Plan]:
    """One plan per WorFBench record (or one for the bare graph text)."""
    if isinstance(data, dict) and isinstance(data.get("conversations"), list):
        return [_record(data, "")]
    if isinstance(data, list) and any(isinstance(x, dict) and "conversations" in x for x in data):
        return [
            _record(rec, f"record {i}, ")
            if isinstance(rec, dict)
            else _failed(
                f"record {i}, ", f"expected a WorFBench record (a mapping), got {short(rec)}", ""
            )
            for i, rec in enumerate(data)
        ]
    return [_plan(text, "", "", "")]


def _record(rec: dict[str, Any], prefix: str) -> Plan:
    turns = rec.get("conversations")
    name = str(rec.get("id", "")) if isinstance(rec.get("id"), (str, int)) else ""
    if not isinstance(turns, list):
        return _failed(
            prefix, f"conversations should be a list of chat turns, got {short(turns)}", name
        )
    graph, goal = None, ""
    for i, turn in enumerate(turns):
        if not isinstance(turn, dict) or not isinstance(turn.get("content"), str):
            continue
        if turn.get("role") in ("assistant", "gpt"):
            graph = (i, turn["content"])
        elif turn.get("role") in ("user", "human") and graph is None:
            goal = _task(turn["content"])
    if graph is None:
        return _failed(prefix, "the record has no assistant turn holding the graph", name)
    i, body = graph
    return _plan(body, goal, f"{prefix}conversations[{i}].content, ", name)


def _failed(prefix: str, why: str, name: str) -> Plan:
    return Plan(
        "",
        import_findings=[
            finding("malformed_record", "error", why, where=prefix.rstrip(", ") or "record")
        ],
        name=name,
    )


def _task(text: str) -> str:
    """The task of a WorFBench user turn: after ``Task:`` (or ``Your task is to:``...), up to the tool list."""
    for marker in _TASK_MARKERS:
        at = text.find(marker)
        if at < 0:
            continue
        rest = text[at + len(marker) :].lstrip()
        cuts = [k for k in (rest.find(end) for end in _TASK_ENDS) if k > 0]
        task = rest[: min(cuts, default=len(rest))].strip().strip('"').strip()
        if task:
            return task
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


class _Reader:
    """The state of reading one graph text: nodes, edges and what was skipped, line by line."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.nodes: dict[str, tuple[str, int]] = {}
        self.edges: list[tuple[str, str, int]] = []
        self.findings: list[Finding] = []
        self.skipped: list[tuple[int, str]] = []
        self.variants: dict[str, int] = {}  # way of writing edges -> first line that used it

    def where(self, number: int) -> str:
        return f"{self.prefix}line {number}"

    def node(self, number: int, key: str, text: str) -> None:
        if key in self.nodes:
            first, line = self.nodes[key]
            if text == first:  # the same node again: a repeat, noted with the other skipped lines
                self.skipped.append((number, f"{key}: {text}"))
            else:
                self.findings.append(
                    finding(
                        "duplicate_label",
                        "warning",
                        f"node {key} is numbered twice in the node list: line {line} says {short(first)}, this line "
                        f"{short(text)}; the first is read, so an edge to {key} means {short(first)}",
                        [key],
                        self.where(number),
                    )
                )
            return
        self.nodes[key] = (text, number)

    def pairs(self, number: int, line: str, *, header: bool = False) -> bool:
        """Read the edge pairs of a line; False (nothing read) when the line holds other text too.

        On the ``Edge:`` line itself every pair is read, and only the other text is skipped.
        """
        found = list(_PAIR.finditer(line))
        rest = _PAIR.sub(" ", line)
        if not header and (not found or not _SEPARATORS.fullmatch(rest)):
            return False
        if header and not _SEPARATORS.fullmatch(rest):
            self.skipped.append((number, " ".join(rest.split())))
        for m in found:
            self.edges.append((_token(m.group(1)), _token(m.group(2)), number))
        return bool(found)

    def edge_line(self, number: int, line: str, phase: str) -> bool:
        """Read a line that begins with edge pairs once its list mark, markup and ``Edge`` label are set aside
        (``- (START, 1)``, ``- **Edge: (2, 3)**: prose``, ``4. **Edge**: (2, 3)``); False for any other line.

        Prose after the pairs is part of the line; pairs inside that prose are not read (a warning quotes them).
        """
        mark = _LIST_MARK.match(line)
        body = line[mark.end() :] if mark else line
        body = body.lstrip("*_` ")
        label = _LABEL.match(body)
        if label:
            body = body[label.end() :].lstrip("*_`: ")
        found, at = [], 0
        while (m := _PAIR.match(body, at)) is not None:
            found.append(m)
            gap = _SEPARATORS.match(body, m.end())
            at = gap.end() if gap else m.end()
        if not found:
            return False
        rest = body[at:].strip(" *_`:-\u2013\u2014")
        uses = {
            "bullet": mark is not None,
            "prose": bool(rest),
            "scattered": phase in ("after", "between"),
            "label": label is not None and (phase == "edges" or "label" in self.variants),
        }
        for variant in (v for v, used in uses.items() if used):
            self.variants.setdefault(variant, number)
        if rest and _PAIR.search(rest):
            self.skipped.append((number, rest))
        for m in found:
            self.edges.append((_token(m.group(1)), _token(m.group(2)), number))
        return True


def _token(text: str) -> str:
    word = text.strip()
    return word.upper() if word.upper() in (START, END) else word


def _plan(text: str, goal: str, prefix: str, name: str) -> Plan:
    reader = _Reader(prefix)
    # with a Node: header, numbered lines before it are prose (a plan talked through), not nodes
    listed = "node" in _headers(text)
    phase = "before"  # before -> nodes -> (between: prose after the node list) -> edges -> after
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        header = _HEADER.match(line)
        kind, tail = (header.group(1).lower(), header.group(2)) if header else ("", "")
        numbered = _NUMBERED.fullmatch(line)
        if numbered and _is_node(reader, numbered, phase, listed):
            phase = "nodes"
            reader.node(number, str(int(numbered.group(1))), numbered.group(2).strip())
        elif kind.startswith("node") and phase == "before":
            phase = "nodes"
            first = _NUMBERED.fullmatch(tail.strip())
            if first:  # Node: 1: subtask, on one line
                reader.node(number, str(int(first.group(1))), first.group(2).strip())
            elif tail.strip():
                reader.skipped.append((number, line))
        elif kind == "graph" and not tail.strip() and phase != "after":
            continue
        elif kind.startswith("edge") and phase != "after":
            rest = tail.strip()
            if rest.strip("*_` "):
                if phase == "edges" and _PAIR.search(rest):
                    reader.variants.setdefault("label", number)
                reader.pairs(number, rest, header=True)
            elif rest:
                reader.variants.setdefault("markup", number)
            phase = "edges"
        elif reader.edge_line(number, line, phase):
            phase = "edges"
        else:
            phase = {"edges": "after", "nodes": "between"}.get(phase, phase)
            reader.skipped.append((number, line))
    if not reader.nodes:  # the one finding says it all; the skipped text is what it quotes
        what = (
            "no edge either"
            if not reader.edges
            else f"{len(reader.edges)} edge(s) with no node to join"
        )
        reader.findings.append(
            finding(
                "no_steps",
                "error",
                f"read as WorFBench (format='worfbench'), the text holds no numbered node (`1: subtask`) and {what}; "
                f"it begins {short(text.strip()[:60])}",
                where=prefix.rstrip(", ") or "text",
            )
        )
        return Plan(goal, import_findings=tuple(reader.findings), name=name)
    _report_skipped(reader)
    _report_variants(reader)
    return _build(goal, reader, name)


def _is_node(reader: _Reader, numbered: re.Match[str], phase: str, listed: bool) -> bool:
    """Whether a numbered line is a node: in the node list, or (no Node: header) before the edges; after prose
    that follows the node list, only a number not yet listed continues it (a restated list is prose)."""
    if phase == "nodes" or (phase == "before" and not listed):
        return True
    return phase == "between" and str(int(numbered.group(1))) not in reader.nodes


_VARIANTS = {  # how a graph's edges were written, when not as `Edge: (START,1) (1,2)` or one pair a line
    "markup": "an Edge: header in Markdown markup (`Edge:**`, `**Edge:**`)",
    "bullet": "a bullet or numbered list (`- (START, 1)`)",
    "label": "one `Edge: (1, 2)` line per edge",
    "prose": "pairs followed by prose on the same line (`- (1, 3) transitions from ...`)",
    "scattered": "lines outside one Edge: list (after prose, or under another heading)",
}


def _report_variants(reader: _Reader) -> None:
    """One info finding naming the ways of writing edges this graph used, at the first line of the first."""
    if not reader.variants:
        return
    used = sorted(reader.variants, key=list(_VARIANTS).index)
    reader.findings.append(
        finding(
            "edge_variant",
            "info",
            f"edges read from {'; '.join(_VARIANTS[v] for v in used)}: {len(reader.edges)} pair(s) in all",
            where=reader.where(min(reader.variants.values())),
        )
    )


def _report_skipped(reader: _Reader) -> None:
    """One finding per block of skipped lines (blank lines join a block)."""
    blocks: list[list[tuple[int, str]]] = []
    read = sorted({n for _, n in reader.nodes.values()} | {n for *_, n in reader.edges})
    for number, line in sorted(reader.skipped):
        if blocks and _nothing_read_between(read, blocks[-1][-1][0], number):
            blocks[-1].append((number, line))
        else:
            blocks.append([(number, line)])
    for block in blocks:
        first, last = block[0][0], block[-1][0]
        span = f"line {first}" if first == last else f"lines {first}-{last}"
        texts = [line for _, line in block]
        edges = sum(len(_PAIR.findall(t)) for t in texts)
        listed = sorted(
            {m.group(1) for t in texts if (m := _NUMBERED.fullmatch(t))}, key=natural_key
        )
        if edges:
            what, severity = (
                (
                    f"it holds {edges} edge pair(s) outside the Edge: list, which are not read; move them "
                    "into the Edge: list if they belong to the graph"
                ),
                "warning",
            )
        elif listed:
            what, severity = (
                (
                    f"a numbered list in prose, items {', '.join(listed[:8])}; nodes are read from the "
                    "node list only"
                ),
                "info",
            )
        else:
            what, severity = "prose, not part of the graph", "info"
        reader.findings.append(
            finding(
                "unparsed_line",
                severity,
                f"{span} not read ({what}): {short(texts[0])}",
                where=reader.where(first)
                if first == last
                else f"{reader.prefix}lines {first}-{last}",
            )
        )


def _nothing_read_between(read: list[int], previous: int, number: int) -> bool:
    """Whether no line read as part of the graph lies between two skipped lines (``read`` is sorted)."""
    at = bisect.bisect_right(read, previous)
    return at == len(read) or read[at] >= number


def _build(goal: str, reader: _Reader, name: str) -> Plan:
    findings = reader.findings
    ids = sorted(reader.nodes, key=natural_key)
    known = {START, END, *ids}
    deps: dict[str, list[tuple[str, str]]] = {sid: [] for sid in (START, *ids, END)}
    seen: set[tuple[str, str]] = set()
    for u, v, number in reader.edges:
        where, shown = reader.where(number), f"({u}, {v})"
        missing = [x for x in (u, v) if x not in known]
        if missing:
            findings.append(
                finding(
                    "dangling_link",
                    "error",
                    f"edge {shown} names {' and '.join(map(repr, missing))}, which is neither START, END nor a numbered "
                    f"node (nodes: {', '.join(ids[:12])}{', ...' if len(ids) > 12 else ''}); the edge is not drawn",
                    [x for x in (u, v) if x in known],
                    where,
                )
            )
        elif u == v:
            findings.append(
                finding(
                    "self_link",
                    "error",
                    f"edge {shown} joins node {u} to itself; it is not drawn",
                    [u],
                    where,
                    [(u, u)],
                )
            )
        elif v == START or u == END:
            end = (
                "START begins the workflow: nothing comes before it"
                if v == START
                else "END finishes the workflow: nothing comes after it"
            )
            findings.append(
                finding(
                    "malformed_link",
                    "error",
                    f"edge {shown} is backwards ({end}); it is not drawn",
                    [x for x in (u, v) if x not in (START, END)],
                    where,
                )
            )
        elif (u, v) in seen:
            findings.append(
                finding(
                    "duplicate_link",
                    "warning",
                    f"edge {shown} is listed twice",
                    [u, v],
                    where,
                    [(u, v)],
                )
            )
        else:
            seen.add((u, v))
            deps[v].append((u, where))
    _start_findings(reader, ids, deps, findings)
    drafts = [Draft(START, "START", "", links=deps[START], kind="start", duration=0.0)]
    drafts += [
        Draft(
            sid, reader.nodes[sid][0], "", links=deps[sid], where=reader.where(reader.nodes[sid][1])
        )
        for sid in ids
    ]
    drafts.append(Draft(END, "END", "", links=deps[END], kind="finish", duration=0.0))
    return build(goal, drafts, findings, name=name)


def _start_findings(
    reader: _Reader, ids: list[str], deps: dict[str, list[tuple[str, str]]], findings: list[Finding]
) -> None:
    """not_from_start (branches no edge reaches from START) and redundant_start_edge."""
    children: dict[str, list[str]] = {sid: [] for sid in deps}
    for v, ps in deps.items():
        for u, _ in ps:
            children[u].append(v)
    reached, stack = {START}, [START]
    while stack:
        for v in children[stack.pop()]:
            if v not in reached:
                reached.add(v)
                stack.append(v)
    for sid in ids:
        starts = [w for u, w in deps[sid] if u == START]
        others = [u for u, _ in deps[sid] if u != START and u in reached]
        if starts and others:
            findings.append(
                finding(
                    "redundant_start_edge",
                    "warning",
                    f"edge (START, {sid}) says {sid} is a first step, but {sid} also follows {others[0]}, which comes "
                    f"after START; the START edge adds nothing: drop it, or the edge ({others[0]}, {sid}) if {sid} "
                    "really comes first",
                    [sid, others[0]],
                    starts[0],
                    [(START, sid)],
                )
            )
    lost = {sid for sid in ids if sid not in reached and (deps[sid] or children[sid])}
    for branch in connected_branches(lost, {u: [p for p, _ in deps[u]] for u in lost}):
        heads = [u for u in branch if not deps[u]] or branch[:1]
        what = f"node {branch[0]}" if len(branch) == 1 else f"the branch {', '.join(branch[:8])}"
        findings.append(
            finding(
                "not_from_start",
                "warning",
                f"{what} is not reached from START: no edge leads to it from START or a step after it, so the "
                f"workflow never starts it; add (START, {heads[0]}) or the edge it is missing",
                branch,
                reader.where(reader.nodes[heads[0]][1]),
            )
        )
