"""The core of the TaskBench/HuggingGPT importer: one task list (with its links) into a plan.

:mod:`planviz.plan.importers.taskbench` finds the task lists in an input
(records, chat messages, text that is not quite JSON); this module turns one
list into drafts, resolves its references and links, and builds the plan with
every defect as an import finding.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from planviz.plan.importers._build import Draft, Ref, build, call_text, finding, short, strings_in
from planviz.plan.model import Finding, Plan

__all__ = ["record_plan", "nodes_plan"]

_REF = re.compile(
    r"<node-(\d+)>|<GENERATED>-(\d+)|<GENERATED-(\d+)>|<node_?(\d+)>"
    r"|<output[ _\-]of[ _\-]node[ _\-]?(\d+)>|\$\{\{\s*TaskNodes\[(\d+)\][^}]{0,60}\}\}",
    re.IGNORECASE,
)
# a template left in an argument, of any length and punctuation real planners write
# (<sentiment determined by Text Sentiment Analysis>, <task_nodes[2].arguments[0].value>); not a URL or address
_PLACEHOLDER = re.compile(
    r"<([A-Za-z][^<>:/@\"]{0,80})>|%\{[^}]{0,60}\}%?|\$\([^)]{0,60}\)|\$\{[^}]{0,60}\}"
)
_NODE_KEYS = {"task", "arguments", "id"}
_HGPT_KEYS = {"task", "id", "dep", "args"}
_LINK_KEYS = {"source", "target"}


def record_plan(rec: Any, *, prefix: str) -> Plan:
    place = prefix.rstrip(", ")
    if not isinstance(rec, dict):
        return Plan(
            "",
            import_findings=[
                finding(
                    "malformed_record",
                    "error",
                    f"expected a TaskBench record (a mapping), got {short(rec)}",
                    where=place,
                )
            ],
        )
    wrapped = rec.get("result")
    if "task_nodes" not in rec and isinstance(wrapped, dict) and "task_nodes" in wrapped:
        # newer TaskBench harnesses: {"id", "user_request", "result": {"task_steps", "task_nodes", ...}}
        rec = {**{k: v for k, v in rec.items() if k != "result"}, **wrapped}
        prefix = f"{prefix}result."
    # predictions put the request in user_request, the benchmark's gold records in instruction
    goal = next(
        (rec[k] for k in ("user_request", "instruction") if isinstance(rec.get(k), str)), ""
    )
    nodes = rec.get("task_nodes")
    findings: list[Finding] = []
    if not isinstance(nodes, list):
        findings.append(
            finding(
                "malformed_record",
                "error",
                f"task_nodes should be a list of tasks, got {short(nodes)}",
                where=f"{prefix}task_nodes",
            )
        )
        nodes = []
    links = rec.get("task_links", [])
    if not isinstance(links, list):
        findings.append(
            finding(
                "malformed_link",
                "error",
                f"task_links should be a list of links, got {short(links)}; links ignored",
                where=f"{prefix}task_links",
            )
        )
        links = []
    described = rec.get("task_steps")
    if isinstance(described, list) and len(described) > len(nodes):
        findings.append(
            finding(
                "steps_nodes_mismatch",
                "warning",
                f"task_steps describes {len(described)} steps but task_nodes has {len(nodes)} task(s): "
                f"{len(described) - len(nodes)} described step(s) have no tool call, "
                f"e.g. {short(described[len(nodes)])}; "
                "the plan has only the task_nodes",
                where=f"{prefix}task_steps",
            )
        )
    name = rec.get("id")
    plan = nodes_plan(
        nodes,
        goal=goal,
        prefix=prefix,
        findings=findings,
        links=links,
        field=f"{prefix}task_nodes",
        has_links="task_links" in rec,
    )
    return (
        plan.replace(name=str(name))
        if isinstance(name, (str, int)) and not isinstance(name, bool)
        else plan
    )


def nodes_plan(
    nodes: list[Any],
    *,
    goal: str,
    prefix: str,
    findings: list[Finding],
    links: Sequence[Any] = (),
    field: str | None = None,
    has_links: bool = False,
) -> Plan:
    field = field if field is not None else prefix
    hgpt = any(isinstance(n, dict) and ("dep" in n or "args" in n) for n in nodes)
    drafts: list[Draft] = []
    explicit: dict[str, str] = {}
    deps: list[tuple[int, Any]] = []
    for i, node in enumerate(nodes):
        where = f"{field}[{i}]"
        sid = f"node-{i}"
        if not isinstance(node, dict):
            findings.append(
                finding(
                    "malformed_node",
                    "error",
                    f"task {i} is not a task object: {short(node)}",
                    [sid],
                    where,
                )
            )
            drafts.append(
                Draft(sid, f"unreadable task {short(node)}", "nothing: the task could not be read")
            )
            continue
        if hgpt:
            nid = node.get("id")
            if isinstance(nid, int) and not isinstance(nid, bool):
                sid = f"node-{nid}"
            else:
                findings.append(
                    finding(
                        "malformed_node",
                        "error",
                        f"HuggingGPT task {i} has no integer id (got {short(nid)}); called {sid!r}",
                        [sid],
                        f"{where}.id",
                    )
                )
            deps.append((len(drafts), node.get("dep", [])))
        elif isinstance(node.get("id"), str):
            explicit[node["id"]] = sid
        known = _HGPT_KEYS if hgpt else _NODE_KEYS
        for key in sorted(k for k in node if k not in known):
            findings.append(
                finding(
                    "unknown_field",
                    "warning",
                    f"task {sid!r} has field {key!r} = {short(node[key])}, which the format does "
                    f"not define (expected {', '.join(sorted(known))}); it is ignored",
                    [sid],
                    f"{where}.{key}",
                )
            )
        tool = node.get("task")
        if not isinstance(tool, str) or not tool.strip():
            findings.append(
                finding(
                    "malformed_node",
                    "error",
                    f"task {sid!r} names no tool (task = {short(tool)})",
                    [sid],
                    f"{where}.task",
                )
            )
            tool = None
        arg_field = "args" if hgpt else "arguments"
        arguments, positional = _arguments(
            node.get(arg_field), sid, f"{where}.{arg_field}", findings
        )
        for key, value in arguments.items():
            if value == "" or value == []:
                place = (
                    f"{where}.{arg_field}[{key}]" if key.isdigit() else f"{where}.{arg_field}.{key}"
                )
                findings.append(
                    finding(
                        "empty_argument",
                        "warning",
                        f"argument {key!r} of {sid!r} is empty: no value is given and no "
                        "output is referenced",
                        [sid],
                        place,
                    )
                )
        refs = _refs(arguments, sid, f"{where}.{arg_field}", hgpt, findings)
        name = tool or "unnamed tool"
        drafts.append(
            Draft(
                sid,
                call_text(name, arguments, positional),
                f"the {name} result",
                tool=tool,
                arguments=arguments,
                refs=refs,
                where=where,
                result=f"{sid}.output",
            )
        )
    index: dict[
        str, int
    ] = {}  # step id -> its first position (linear lookups; ids.index was quadratic)
    for i, d in enumerate(drafts):
        index.setdefault(d.id, i)
    ref_edges = {
        (r.producer, d.id)
        for d in drafts
        for r in d.refs
        if r.producer in index and r.producer != d.id
    }
    covered: set[tuple[str, str]] = set()
    for pos, dep in deps:
        _deps(drafts, index, pos, dep, f"{drafts[pos].where}.dep", ref_edges, covered, findings)
    users: dict[Any, list[str]] = {}  # tool name -> the steps that use it, in order
    for d in drafts:
        if d.tool is not None:
            users.setdefault(d.tool, []).append(d.id)
    literal = not any(d.refs for d in drafts)
    links_state = _Links(
        drafts, index, users, explicit, ref_edges, covered, findings, compare=not literal
    )
    # nodes with no arguments at all (UltraTool/RestBench-style data): the links are the only data flow
    argumentless = all(not d.arguments for d in drafts)
    for j, link in enumerate(links):
        links_state.link(link, f"{prefix}task_links[{j}]")
    links_state.report_ambiguous()
    if has_links and literal and not argumentless:
        edges = sorted(covered, key=lambda e: (index[e[1]], index[e[0]]))
        if edges:
            findings.append(
                finding(
                    "link_mismatch",
                    "warning",
                    f"task_links connects {len(edges)} pair(s) of tasks, but no argument reads another task's output "
                    "(every argument is a literal value): the data flow is stated only by the links; "
                    "write <node-k> where a task consumes task k's output",
                    sorted({s for e in edges for s in e}, key=index.__getitem__),
                    f"{prefix}task_links",
                    edges,
                )
            )
    elif has_links or deps:
        for producer, consumer in sorted(
            ref_edges - covered, key=lambda e: (index[e[1]], index[e[0]])
        ):
            kind = "dep" if deps else "task_links"
            findings.append(
                finding(
                    "link_mismatch",
                    "warning",
                    f"step {consumer!r} reads the output of {producer!r}, but {kind} has no link "
                    f"{producer!r} -> {consumer!r}; links and argument references disagree",
                    [producer, consumer],
                    drafts[index[consumer]].where,
                    [(producer, consumer)],
                )
            )
    _one_based(drafts, findings, field)
    return build(goal, drafts, findings)


def _one_based(drafts: list[Draft], findings: list[Finding], where: str) -> None:
    """Say so when the references are wrong as written but every one would point back if counted from 1."""
    pairs = [
        (i, int(r.producer.removeprefix("node-")))
        for i, d in enumerate(drafts)
        for r in d.refs
        if r.producer.removeprefix("node-").isdigit()
    ]
    if pairs and not all(k < i for i, k in pairs) and all(0 <= k - 1 < i for i, k in pairs):
        findings.append(
            finding(
                "one_based_references",
                "warning",
                "every reference in this plan would name an earlier task if node numbers counted from 1, but "
                "they count from 0 (<node-0> is the first task): the planner probably numbered from 1; the "
                "reference findings read them as written",
                [d.id for d in drafts if d.refs],
                where,
            )
        )


def _arguments(
    raw: Any, sid: str, where: str, findings: list[Finding]
) -> tuple[dict[str, Any], bool]:
    """Arguments as a mapping, and whether they were positional (a list of values)."""
    if raw is None:
        return {}, True
    if isinstance(raw, dict):
        if set(raw) <= {"name", "value"} and "name" in raw:
            findings.append(
                finding(
                    "malformed_arguments",
                    "warning",
                    f"arguments of {sid!r} are one name/value object, not a list of them; "
                    "read as that one argument",
                    [sid],
                    where,
                )
            )
            raw = [raw]
        else:
            return dict(raw), False
    if not isinstance(raw, list):
        findings.append(
            finding(
                "malformed_arguments",
                "warning",
                f"arguments of {sid!r} should be a list, got {short(raw)}; read as one argument",
                [sid],
                where,
            )
        )
        return {"0": raw}, True
    out: dict[str, Any] = {}
    positional = True
    for k, item in enumerate(raw):
        if (
            isinstance(item, dict)
            and set(item) == {"name", "value"}
            and isinstance(item["name"], str)
            and item["name"]
            and item["name"] not in out
        ):
            out[item["name"]] = item["value"]
            positional = False
            continue
        if isinstance(item, dict) and set(item) == {"name", "value"}:
            # a repeated, empty or non-text name: the value is kept under its position, and that is said
            repeated = isinstance(item["name"], str) and item["name"] in out
            problem = (
                f"repeats the name {item['name']!r}"
                if repeated
                else f"has no usable name (name = {short(item['name'])})"
            )
            findings.append(
                finding(
                    "malformed_arguments",
                    "warning",
                    f"argument {k} of {sid!r} {problem}; its value is kept under its position "
                    f"{str(k)!r}",
                    [sid],
                    f"{where}[{k}].name",
                )
            )
            out[str(k)] = item["value"]
            continue
        if isinstance(item, dict):
            findings.append(
                finding(
                    "malformed_arguments",
                    "warning",
                    f"argument {k} of {sid!r} is {short(item)}, not a {{name, value}} object; "
                    "kept as written",
                    [sid],
                    f"{where}[{k}]",
                )
            )
        out[str(k)] = item
    return out, positional


def _refs(
    arguments: dict[str, Any], sid: str, where: str, hgpt: bool, findings: list[Finding]
) -> list[Ref]:
    refs: list[Ref] = []
    for key, value in arguments.items():
        name = key if re.fullmatch(r"[A-Za-z_]\w*", key) else "output"
        place = f"{where}[{key}]" if key.isdigit() else f"{where}.{key}"
        _name_refs(key, value, sid, place, findings, refs)
        for _path, text in strings_in(value, keys=True):
            for m in _REF.finditer(text):
                k = next(g for g in m.groups() if g is not None)
                # as the format spells it
                standard = m.group(0) == (f"<GENERATED>-{k}" if hgpt else f"<node-{k}>")
                if not standard:
                    expected = "<GENERATED>-k" if hgpt else "<node-k>"
                    findings.append(
                        finding(
                            "nonstandard_reference",
                            "warning",
                            f"step {sid!r} writes {m.group(0)!r}, not the format's {expected}; "
                            f"read as a reference to node-{k}",
                            [sid],
                            place,
                        )
                    )
                refs.append(Ref(f"node-{k}", f"node-{k}.{name}", place, m.group(0)))
            for m in _PLACEHOLDER.finditer(_REF.sub("", text)):
                if (m.group(1) or "").lower().startswith(("node", "generated")):
                    continue
                findings.append(
                    finding(
                        "unresolved_placeholder",
                        "warning",
                        f"step {sid!r} has the template placeholder {m.group(0)!r} as an argument: "
                        "no input is bound to it; reference a step's output or give the value",
                        [sid],
                        place,
                    )
                )
    return refs


def _name_refs(
    key: str, value: Any, sid: str, place: str, findings: list[Finding], refs: list[Ref]
) -> None:
    """References written as an argument's name (``{"name": "<node-0>", "value": "..."}``): read, and said.

    Real planners put the reference in ``name`` (the value then holds a literal or the same reference);
    the output named there is an input of the step, so it becomes a reference unless the value already
    reads that same output.
    """
    named = list(_REF.finditer(key))
    if not named:  # (the usual case: the value is scanned once, by the caller)
        return
    in_value = {
        m.group(0) for _path, text in strings_in(value, keys=True) for m in _REF.finditer(text)
    }
    for m in named:
        k = next(g for g in m.groups() if g is not None)
        findings.append(
            finding(
                "malformed_arguments",
                "warning",
                f"argument of {sid!r} has the reference {m.group(0)!r} as its name, not a parameter name; "
                f"read as a reference to node-{k}'s output, value kept as written",
                [sid],
                place,
            )
        )
        if m.group(0) not in in_value:
            refs.append(Ref(f"node-{k}", f"node-{k}.output", place, m.group(0)))


def _deps(
    drafts: list[Draft],
    index: dict[str, int],
    pos: int,
    dep: Any,
    where: str,
    ref_edges: set[Any],
    covered: set[Any],
    findings: list[Finding],
) -> None:
    consumer = drafts[pos].id
    if isinstance(dep, int) and not isinstance(dep, bool):
        dep = [dep]
    if not isinstance(dep, list):
        findings.append(
            finding(
                "malformed_link",
                "error",
                f"dep of {consumer!r} should be a list of task ids, got {short(dep)}; ignored",
                [consumer],
                where,
            )
        )
        return
    for k in dep:
        if k == -1:
            continue
        producer = f"node-{k}"
        if isinstance(k, bool) or not isinstance(k, int) or producer not in index:
            findings.append(
                finding(
                    "dangling_link",
                    "error",
                    f"{consumer!r} depends on task {k!r}, which the list does not have",
                    [consumer],
                    where,
                )
            )
        elif producer == consumer:
            findings.append(
                finding(
                    "self_link",
                    "error",
                    f"{consumer!r} lists itself in dep",
                    [consumer],
                    where,
                    [(consumer, consumer)],
                )
            )
        else:
            covered.add((producer, consumer))
            drafts[pos].links.append((producer, where))
            if (producer, consumer) not in ref_edges:
                findings.append(
                    finding(
                        "link_mismatch",
                        "warning",
                        f"{consumer!r} depends on {producer!r} (dep), but none of its arguments reads "
                        f"<GENERATED>-{k}; links and argument references disagree",
                        [producer, consumer],
                        where,
                        [(producer, consumer)],
                    )
                )


class _Links:
    """The task_links of one list, resolved by tool name (or explicit id) in time linear in the links and
    tasks: ambiguous links naming the same two tools are one finding, listing where each was written."""

    def __init__(
        self,
        drafts: list[Draft],
        index: dict[str, int],
        users: dict[Any, list[str]],
        explicit: dict[str, str],
        ref_edges: set[Any],
        covered: set[Any],
        findings: list[Finding],
        compare: bool,
    ) -> None:
        self.drafts, self.index, self.users, self.explicit = drafts, index, users, explicit
        self.compare = compare  # whether a link no argument reference backs is a link_mismatch
        self.ref_edges, self.covered, self.findings = ref_edges, covered, findings
        self.seen: set[tuple[str, str]] = set()
        self.ambiguous: dict[
            tuple[str, str], list[str]
        ] = {}  # (source, target) names -> where each link is
        self.refs_into: dict[str, list[str]] = {}
        for producer, consumer in ref_edges:
            self.refs_into.setdefault(consumer, []).append(producer)

    def resolve(self, name: Any) -> list[str]:
        if isinstance(name, str) and name in self.explicit:
            return [self.explicit[name]]
        try:
            return self.users.get(name, [])
        except TypeError:  # an unhashable name (a list, a mapping) is no tool
            return []

    def link(self, link: Any, where: str) -> None:
        findings = self.findings
        if not isinstance(link, dict):
            findings.append(
                finding(
                    "malformed_link",
                    "error",
                    f"expected a {{source, target}} link, got {short(link)}",
                    where=where,
                )
            )
            return
        for key in sorted(k for k in link if k not in _LINK_KEYS | {"targets"}):
            findings.append(
                finding(
                    "unknown_field",
                    "warning",
                    f"link has field {key!r} = {short(link[key])}, which the format does not define "
                    "(expected source, target); it is ignored",
                    where=f"{where}.{key}",
                )
            )
        source, targets = link.get("source"), [link.get("target")]
        for key in ("target", "targets"):
            if isinstance(link.get(key), list) and (key == "target" or "target" not in link):
                targets = link[key]
                findings.append(
                    finding(
                        "malformed_link",
                        "warning",
                        f"link from {short(source)} has {key!r} = {short(link[key])}, a list instead "
                        "of one tool name; read as one link per target",
                        where=f"{where}.{key}",
                    )
                )
        for target in targets:
            self._one(source, target, where)

    def _one(self, source: Any, target: Any, where: str) -> None:
        sources, sinks = self.resolve(source), self.resolve(target)
        if not sources or not sinks:
            missing = [repr(n) for n, found in ((source, sources), (target, sinks)) if not found]
            self.findings.append(
                finding(
                    "dangling_link",
                    "error",
                    f"link {short(source)} -> {short(target)} names {' and '.join(missing)}, which no task in the plan "
                    "uses; the link is not drawn",
                    sources + sinks,
                    where,
                )
            )
            return
        if len(sources) > 1 or len(sinks) > 1:
            self.ambiguous.setdefault((source, target), []).append(where)
            return
        s, t = sources[0], sinks[0]
        if s == t:
            self.findings.append(
                finding(
                    "self_link",
                    "error",
                    f"link {short(source)} -> {short(target)} connects "
                    f"{s!r} to itself; it is not drawn",
                    [s],
                    where,
                    [(s, s)],
                )
            )
            return
        if (s, t) in self.seen:
            self.findings.append(
                finding(
                    "duplicate_link",
                    "warning",
                    f"link {s!r} -> {t!r} is listed twice",
                    [s, t],
                    where,
                    [(s, t)],
                )
            )
            return
        self.seen.add((s, t))
        self.covered.add((s, t))
        self.drafts[self.index[t]].links.append((s, where))
        if self.compare and (s, t) not in self.ref_edges:
            self.findings.append(
                finding(
                    "link_mismatch",
                    "warning",
                    f"link {s!r} -> {t!r} ({source} -> {target}), but {t!r}'s arguments do not read {s!r}'s output; "
                    "links and argument references disagree",
                    [s, t],
                    where,
                    [(s, t)],
                )
            )

    def report_ambiguous(self) -> None:
        """One finding per pair of tool names whose links are ambiguous, at its first link."""
        for (source, target), places in self.ambiguous.items():
            sources, sinks = self.resolve(source), self.resolve(target)
            from_source = set(sources)
            backed = sorted(
                {
                    (s, t)
                    for t in dict.fromkeys(sinks)
                    for s in self.refs_into.get(t, ())
                    if s in from_source and s != t
                },
                key=lambda e: (self.index[e[1]], self.index[e[0]]),
            )
            self.covered.update(backed)
            used = [
                f"{n!r} is used by {_listed(c)}"
                for n, c in ((source, sources), (target, sinks))
                if len(c) > 1
            ]
            verdict = (
                f"the argument reference{'s' if len(backed) > 1 else ''} "
                f"{_listed([f'{s} -> {t}' for s, t in backed])} match{'es' if len(backed) == 1 else ''} it"
                if backed
                else "no argument reference matches any reading"
            )
            again = f"; written {len(places)} times ({_listed(places)})" if len(places) > 1 else ""
            self.findings.append(
                finding(
                    "ambiguous_link",
                    "warning",
                    f"link {short(source)} -> {short(target)} is ambiguous: {'; '.join(used)}; no edge is guessed from "
                    f"it ({verdict}); name tasks by id or reference outputs in arguments{again}",
                    sorted(set(sources + sinks), key=self.index.__getitem__),
                    places[0],
                )
            )


def _listed(items: list[str], most: int = 8) -> str:
    """Items joined by commas, the first ``most`` of them and how many more."""
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")
