"""TaskBench and HuggingGPT task lists as plans.

TaskBench records (``user_request``, ``task_nodes``, ``task_links``) name the
output of the k-th task ``<node-k>`` inside arguments, and link tasks by tool
name; HuggingGPT task lists (``[{task, id, dep, args}]``) write
``<GENERATED>-k`` for task k's output and list dependencies in ``dep``
(``[-1]`` for none). Step ``node-k`` is task k (position in TaskBench, the
``id`` field in HuggingGPT) and produces ``node-k.output``; a reference
becomes a dependency plus the fact ``node-k.<argument name>``
(``node-k.output`` for a positional argument).

Links are read too, and where they disagree with the argument references
that is a finding (``link_mismatch``), as are links naming a tool used twice
(``ambiguous_link``: no edge is guessed), links naming no task
(``dangling_link``), odd reference spellings (``nonstandard_reference``, still
mapped), template placeholders left in arguments (``unresolved_placeholder``:
``<text>``, ``%{output}%``, ``$(step-2)``), empty arguments
(``empty_argument``), argument objects that are not ``{name, value}``
(``malformed_arguments``), unknown fields (``unknown_field``, ignored), text that is not valid JSON
(``invalid_json``: the task objects it contains are still read), and a hint
when every reference is off by one (``one_based_references``).

>>> rec = {"user_request": "caption then speak", "task_nodes": [
...     {"task": "Image-to-Text", "arguments": ["example.jpg"]},
...     {"task": "Text-to-Speech", "arguments": ["<node-0>"]}],
...     "task_links": [{"source": "Image-to-Text", "target": "Text-to-Speech"}]}
>>> [plan] = import_plans("", rec, source="<dict>")
>>> plan.step("node-1").depends_on, plan.step("node-1").requires, plan.import_findings
(('node-0',), ('node-0.output',), ())
>>> plan.step("node-1").action
'Text-to-Speech("<node-0>")'
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..model import Finding, Plan
from ._build import Draft, Ref, build, call_text, finding, short, strings_in

__all__ = ["import_plans", "looks_like"]

_REF = re.compile(r"<node-(\d+)>|<GENERATED>-(\d+)|<GENERATED-(\d+)>|<node_?(\d+)>"
                  r"|<output[ _\-]of[ _\-]node[ _\-]?(\d+)>|\$\{\{\s*TaskNodes\[(\d+)\][^}]{0,60}\}\}", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"<([A-Za-z][\w \-]{0,40})>|%\{[^}]{0,60}\}%?|\$\([^)]{0,60}\)|\$\{[^}]{0,60}\}")
_NODE_KEYS = {"task", "arguments", "id"}
_HGPT_KEYS = {"task", "id", "dep", "args"}
_LINK_KEYS = {"source", "target"}
_MAX_ATTEMPTS = 10_000


def looks_like(text: str, data: Any) -> bool:
    """Whether the input reads as TaskBench/HuggingGPT task lists."""
    if isinstance(data, dict):
        return "task_nodes" in data or _is_task(data) or _is_chat(data)
    if isinstance(data, list) and data:
        return all(isinstance(x, dict) for x in data) and (
            any("task_nodes" in x for x in data)
            or all(_is_task(x) for x in data)
            or (all(_is_chat(x) for x in data) and any(_tasky(x.get("content")) for x in data)))
    if data is None or isinstance(data, str):
        return '"task_nodes"' in text or _tasky(text)
    return False


def _is_task(x: dict) -> bool:
    return isinstance(x.get("task"), str) and ("args" in x or "dep" in x or "arguments" in x)


def _is_chat(x: Any) -> bool:
    return isinstance(x, dict) and "role" in x and "content" in x


def _tasky(text: Any) -> bool:
    return isinstance(text, str) and re.search(r'"task"\s*:', text) is not None and (
        re.search(r'"(dep|args|arguments)"\s*:', text) is not None)


def import_plans(text: str, data: Any, *, source: str = "<string>") -> list[Plan]:
    """Every plan in the input: one per TaskBench record, HuggingGPT task list or assistant message."""
    if isinstance(data, dict):
        if _is_chat(data):
            return [_from_text(str(data.get("content", "")), goal="", prefix="")]
        if "task_nodes" in data:
            return [_record(data, prefix="")]
        return [_nodes([data], goal="", prefix="", findings=[])]
    if isinstance(data, list):
        if data and all(_is_chat(x) for x in data):
            return _chat(data)
        if data and all(isinstance(x, dict) and _is_task(x) for x in data):
            return [_nodes(data, goal="", prefix="", findings=[])]
        lines = _record_lines(text, len(data))
        return [_record(rec, prefix=f"record {i}{lines[i]}, ") for i, rec in enumerate(data)]
    return _from_any_text(text)


def _record_lines(text: str, n: int) -> list[str]:
    numbers = [i + 1 for i, line in enumerate(text.splitlines()) if line.strip()]
    if len(numbers) == n and text.lstrip().startswith("{"):
        return [f" (line {k})" for k in numbers]
    return [""] * n


def _from_any_text(text: str) -> list[Plan]:
    lines = [(i + 1, line) for i, line in enumerate(text.splitlines()) if line.strip()]
    if len(lines) > 1 and all(line.lstrip().startswith("{") for _, line in lines) and '"task_nodes"' in text:
        plans = []
        for r, (number, line) in enumerate(lines):
            prefix = f"record {r} (line {number}), "
            try:
                rec = json.loads(line)
            except ValueError as exc:
                plans.append(Plan("", import_findings=[finding(
                    "invalid_json", "error", f"this JSON Lines record is not valid JSON ({exc}); "
                    "no task could be read from it", where=prefix.rstrip(", "))]))
                continue
            plans.append(_record(rec, prefix=prefix))
        return plans
    if '"task_nodes"' in text:
        try:
            rec = json.loads(text)
        except ValueError as exc:
            return [Plan("", import_findings=[finding(
                "invalid_json", "error", f"the TaskBench record is not valid JSON ({exc})")])]
        if isinstance(rec, dict):
            return [_record(rec, prefix="")]
    return [_from_text(text, goal="", prefix="")]


def _chat(messages: list[dict]) -> list[Plan]:
    """HuggingGPT demos: each assistant message is a plan for the user message before it."""
    plans, goal = [], ""
    for i, msg in enumerate(messages):
        content = msg.get("content")
        if msg.get("role") == "user":
            goal = content if isinstance(content, str) else ""
        elif msg.get("role") == "assistant":
            plans.append(_from_text(content if isinstance(content, str) else json.dumps(content),
                                    goal=goal, prefix=f"message {i}, "))
    return plans


def _from_text(text: str, *, goal: str, prefix: str) -> Plan:
    """A task list given as text; invalid JSON is a finding, and the task objects in it are still read."""
    findings: list[Finding] = []
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        tasks, skipped = _scan_objects(text)
        where = _line_col(text, getattr(exc, "pos", 0))
        extra = f"; skipped text {', '.join(skipped)}" if skipped else ""
        findings.append(finding(
            "invalid_json", "error",
            f"the task list is not valid JSON as written ({getattr(exc, 'msg', exc)} at {where}); "
            f"read the {len(tasks)} task object(s) it contains{extra}. Fix the JSON so the planner's "
            "own parser accepts it", where=prefix + where))
        return _nodes(tasks, goal=goal, prefix=prefix, findings=findings)
    if isinstance(data, dict):
        if "task_nodes" in data:
            return _record(data, prefix=prefix)
        data = [data]
    if not isinstance(data, list):
        findings.append(finding("malformed_record", "error",
                                f"expected a list of task objects, got {short(data)}", where=prefix.rstrip(", ")))
        return Plan(goal, import_findings=findings)
    return _nodes(data, goal=goal, prefix=prefix, findings=findings)


def _line_col(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line} column {pos - (text.rfind(chr(10), 0, pos) + 1) + 1}"


def _scan_objects(text: str) -> tuple[list[Any], list[str]]:
    """The top-level ``{...}`` task objects in text that is not valid JSON, and what lay between them.

    At most :data:`_MAX_ATTEMPTS` failed starts are tried, so hostile text cannot make this quadratic;
    what is left unread then shows among the skipped text.
    """
    decoder = json.JSONDecoder()
    tasks, skipped, pos, gap, failures = [], [], 0, 0, 0
    while failures < _MAX_ATTEMPTS:
        start = text.find("{", pos)
        if start < 0:
            break
        try:
            obj, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            pos, failures = start + 1, failures + 1
            continue
        if isinstance(obj, dict) and "task" in obj:
            between = text[gap:start].strip().strip(",[").strip()
            if between:
                skipped.append(f"{_clip(between)!r} at {_line_col(text, gap + text[gap:start].find(between[0]))}")
            tasks.append(obj)
            pos = gap = end
        else:
            pos, failures = start + 1, failures + 1
    tail = text[gap:].strip().strip(",]").strip()
    if tail:
        skipped.append(f"{_clip(tail)!r} at {_line_col(text, gap + text[gap:].find(tail[0]))}")
    return tasks, skipped


def _clip(text: str) -> str:
    return text if len(text) <= 40 else text[:39] + "\u2026"


def _record(rec: Any, *, prefix: str) -> Plan:
    place = prefix.rstrip(", ")
    if not isinstance(rec, dict):
        return Plan("", import_findings=[finding(
            "malformed_record", "error", f"expected a TaskBench record (a mapping), got {short(rec)}", where=place)])
    goal = rec.get("user_request") if isinstance(rec.get("user_request"), str) else ""
    nodes = rec.get("task_nodes")
    findings: list[Finding] = []
    if not isinstance(nodes, list):
        findings.append(finding("malformed_record", "error",
                                f"task_nodes should be a list of tasks, got {short(nodes)}",
                                where=f"{prefix}task_nodes"))
        nodes = []
    links = rec.get("task_links", [])
    if not isinstance(links, list):
        findings.append(finding("malformed_link", "error",
                                f"task_links should be a list of links, got {short(links)}; links ignored",
                                where=f"{prefix}task_links"))
        links = []
    return _nodes(nodes, goal=goal, prefix=prefix, findings=findings, links=links,
                  field=f"{prefix}task_nodes", has_links="task_links" in rec)


def _nodes(nodes: list[Any], *, goal: str, prefix: str, findings: list[Finding], links: list[Any] = (),
           field: str | None = None, has_links: bool = False) -> Plan:
    field = field if field is not None else prefix
    hgpt = any(isinstance(n, dict) and ("dep" in n or "args" in n) for n in nodes)
    drafts: list[Draft] = []
    explicit: dict[str, str] = {}
    deps: list[tuple[int, Any]] = []
    for i, node in enumerate(nodes):
        where = f"{field}[{i}]"
        sid = f"node-{i}"
        if not isinstance(node, dict):
            findings.append(finding("malformed_node", "error",
                                    f"task {i} is not a task object: {short(node)}", [sid], where))
            drafts.append(Draft(sid, f"unreadable task {short(node)}", "nothing: the task could not be read"))
            continue
        if hgpt:
            nid = node.get("id")
            if isinstance(nid, int) and not isinstance(nid, bool):
                sid = f"node-{nid}"
            else:
                findings.append(finding("malformed_node", "error",
                                        f"HuggingGPT task {i} has no integer id (got {short(nid)}); called {sid!r}",
                                        [sid], f"{where}.id"))
            deps.append((len(drafts), node.get("dep", [])))
        elif isinstance(node.get("id"), str):
            explicit[node["id"]] = sid
        known = _HGPT_KEYS if hgpt else _NODE_KEYS
        for key in sorted(k for k in node if k not in known):
            findings.append(finding("unknown_field", "warning",
                                    f"task {sid!r} has field {key!r} = {short(node[key])}, which the format does "
                                    f"not define (expected {', '.join(sorted(known))}); it is ignored",
                                    [sid], f"{where}.{key}"))
        tool = node.get("task")
        if not isinstance(tool, str) or not tool.strip():
            findings.append(finding("malformed_node", "error",
                                    f"task {sid!r} names no tool (task = {short(tool)})", [sid], f"{where}.task"))
            tool = None
        arg_field = "args" if hgpt else "arguments"
        arguments, positional = _arguments(node.get(arg_field), sid, f"{where}.{arg_field}", findings)
        for key, value in arguments.items():
            if value == "" or value == []:
                place = f"{where}.{arg_field}[{key}]" if key.isdigit() else f"{where}.{arg_field}.{key}"
                findings.append(finding("empty_argument", "warning",
                                        f"argument {key!r} of {sid!r} is empty: no value is given and no "
                                        "output is referenced", [sid], place))
        refs = _refs(arguments, sid, f"{where}.{arg_field}", hgpt, findings)
        name = tool or "unnamed tool"
        drafts.append(Draft(sid, call_text(name, arguments, positional), f"the {name} result", tool=tool,
                            arguments=arguments, refs=refs, where=where, result=f"{sid}.output"))
    ids = [d.id for d in drafts]
    ref_edges = {(r.producer, d.id) for d in drafts for r in d.refs if r.producer in ids and r.producer != d.id}
    covered: set[tuple[str, str]] = set()
    for pos, dep in deps:
        _deps(drafts, pos, dep, f"{drafts[pos].where}.dep", ref_edges, covered, findings)
    tools = [(d.id, d.tool) for d in drafts]
    seen_links: set[tuple[str, str]] = set()
    literal = not any(d.refs for d in drafts)
    for j, link in enumerate(links):
        _link(drafts, tools, explicit, link, f"{prefix}task_links[{j}]", ref_edges, covered, seen_links, findings,
              compare=not literal)
    if has_links and literal:
        edges = sorted(covered, key=lambda e: (ids.index(e[1]), ids.index(e[0])))
        if edges:
            findings.append(finding(
                "link_mismatch", "warning",
                f"task_links connects {len(edges)} pair(s) of tasks, but no argument reads another task's output "
                "(every argument is a literal value): the data flow is stated only by the links; "
                "write <node-k> where a task consumes task k's output",
                sorted({s for e in edges for s in e}, key=ids.index), f"{prefix}task_links", edges))
    elif has_links or deps:
        for producer, consumer in sorted(ref_edges - covered, key=lambda e: (ids.index(e[1]), ids.index(e[0]))):
            kind = "dep" if deps else "task_links"
            findings.append(finding(
                "link_mismatch", "warning",
                f"step {consumer!r} reads the output of {producer!r}, but {kind} has no link "
                f"{producer!r} -> {consumer!r}; links and argument references disagree",
                [producer, consumer], drafts[ids.index(consumer)].where, [(producer, consumer)]))
    _one_based(drafts, findings, field)
    return build(goal, drafts, findings)


def _one_based(drafts: list[Draft], findings: list[Finding], where: str) -> None:
    """Say so when the references are wrong as written but every one would point back if counted from 1."""
    pairs = [(i, int(r.producer.removeprefix("node-"))) for i, d in enumerate(drafts) for r in d.refs
             if r.producer.removeprefix("node-").isdigit()]
    if pairs and not all(k < i for i, k in pairs) and all(0 <= k - 1 < i for i, k in pairs):
        findings.append(finding(
            "one_based_references", "warning",
            "every reference in this plan would name an earlier task if node numbers counted from 1, but "
            "they count from 0 (<node-0> is the first task): the planner probably numbered from 1; the "
            "reference findings read them as written", [d.id for d in drafts if d.refs], where))


def _arguments(raw: Any, sid: str, where: str, findings: list[Finding]) -> tuple[dict[str, Any], bool]:
    """Arguments as a mapping, and whether they were positional (a list of values)."""
    if raw is None:
        return {}, True
    if isinstance(raw, dict):
        if set(raw) <= {"name", "value"} and "name" in raw:
            findings.append(finding("malformed_arguments", "warning",
                                    f"arguments of {sid!r} are one name/value object, not a list of them; "
                                    "read as that one argument", [sid], where))
            raw = [raw]
        else:
            return dict(raw), False
    if not isinstance(raw, list):
        findings.append(finding("malformed_arguments", "warning",
                                f"arguments of {sid!r} should be a list, got {short(raw)}; read as one argument",
                                [sid], where))
        return {"0": raw}, True
    out: dict[str, Any] = {}
    positional = True
    for k, item in enumerate(raw):
        if isinstance(item, dict) and set(item) == {"name", "value"} and isinstance(item["name"], str) \
                and item["name"] and item["name"] not in out:
            out[item["name"]] = item["value"]
            positional = False
            continue
        if isinstance(item, dict) and set(item) == {"name", "value"}:
            out[str(k)] = item["value"]
            continue
        if isinstance(item, dict):
            findings.append(finding("malformed_arguments", "warning",
                                    f"argument {k} of {sid!r} is {short(item)}, not a {{name, value}} object; "
                                    "kept as written", [sid], f"{where}[{k}]"))
        out[str(k)] = item
    return out, positional


def _refs(arguments: dict[str, Any], sid: str, where: str, hgpt: bool, findings: list[Finding]) -> list[Ref]:
    refs: list[Ref] = []
    for key, value in arguments.items():
        name = key if re.fullmatch(r"[A-Za-z_]\w*", key) else "output"
        place = f"{where}[{key}]" if key.isdigit() else f"{where}.{key}"
        for _path, text in strings_in(value):
            for m in _REF.finditer(text):
                k = next(g for g in m.groups() if g is not None)
                standard = m.group(2) if hgpt else m.group(1)
                if standard is None:
                    expected = "<GENERATED>-k" if hgpt else "<node-k>"
                    findings.append(finding("nonstandard_reference", "warning",
                                            f"step {sid!r} writes {m.group(0)!r}, not the format's {expected}; "
                                            f"read as a reference to node-{k}", [sid], place))
                refs.append(Ref(f"node-{k}", f"node-{k}.{name}", place, m.group(0)))
            for m in _PLACEHOLDER.finditer(_REF.sub("", text)):
                if (m.group(1) or "").lower().startswith(("node", "generated")):
                    continue
                findings.append(finding("unresolved_placeholder", "warning",
                                        f"step {sid!r} has the template placeholder {m.group(0)!r} as an argument: "
                                        "no input is bound to it; reference a step's output or give the value",
                                        [sid], place))
    return refs


def _deps(drafts: list[Draft], pos: int, dep: Any, where: str, ref_edges: set, covered: set,
          findings: list[Finding]) -> None:
    consumer = drafts[pos].id
    ids = [d.id for d in drafts]
    if isinstance(dep, int) and not isinstance(dep, bool):
        dep = [dep]
    if not isinstance(dep, list):
        findings.append(finding("malformed_link", "error",
                                f"dep of {consumer!r} should be a list of task ids, got {short(dep)}; ignored",
                                [consumer], where))
        return
    for k in dep:
        if k == -1:
            continue
        producer = f"node-{k}"
        if isinstance(k, bool) or not isinstance(k, int) or producer not in ids:
            findings.append(finding("dangling_link", "error",
                                    f"{consumer!r} depends on task {k!r}, which the list does not have", [consumer],
                                    where))
        elif producer == consumer:
            findings.append(finding("self_link", "error", f"{consumer!r} lists itself in dep", [consumer], where,
                                    [(consumer, consumer)]))
        else:
            covered.add((producer, consumer))
            drafts[pos].links.append((producer, where))
            if (producer, consumer) not in ref_edges:
                findings.append(finding(
                    "link_mismatch", "warning",
                    f"{consumer!r} depends on {producer!r} (dep), but none of its arguments reads "
                    f"<GENERATED>-{k}; links and argument references disagree",
                    [producer, consumer], where, [(producer, consumer)]))


def _link(drafts: list[Draft], tools: list[tuple[str, str | None]], explicit: dict[str, str], link: Any,
          where: str, ref_edges: set, covered: set, seen: set, findings: list[Finding], compare: bool) -> None:
    if not isinstance(link, dict):
        findings.append(finding("malformed_link", "error", f"expected a {{source, target}} link, got {short(link)}",
                                where=where))
        return
    for key in sorted(k for k in link if k not in _LINK_KEYS | {"targets"}):
        findings.append(finding("unknown_field", "warning",
                                f"link has field {key!r} = {short(link[key])}, which the format does not define "
                                "(expected source, target); it is ignored", where=f"{where}.{key}"))
    source, targets = link.get("source"), [link.get("target")]
    for key in ("target", "targets"):
        if isinstance(link.get(key), list) and (key == "target" or "target" not in link):
            targets = link[key]
            findings.append(finding("malformed_link", "warning",
                                    f"link from {short(source)} has {key!r} = {short(link[key])}, a list instead "
                                    "of one tool name; read as one link per target", where=f"{where}.{key}"))
    ids = [d.id for d in drafts]

    def resolve(name: Any) -> list[str]:
        if isinstance(name, str) and name in explicit:
            return [explicit[name]]
        return [sid for sid, tool in tools if tool is not None and tool == name]

    for target in targets:
        sources, sinks = resolve(source), resolve(target)
        if not sources or not sinks:
            missing = [repr(n) for n, found in ((source, sources), (target, sinks)) if not found]
            findings.append(finding(
                "dangling_link", "error",
                f"link {short(source)} -> {short(target)} names {' and '.join(missing)}, which no task in the plan "
                "uses; the link is not drawn", sources + sinks, where))
            continue
        if len(sources) > 1 or len(sinks) > 1:
            pairs = [(s, t) for s in sources for t in sinks if s != t]
            backed = [p for p in pairs if p in ref_edges]
            covered.update(backed)
            used = [f"{n!r} is used by {', '.join(c)}" for n, c in ((source, sources), (target, sinks)) if len(c) > 1]
            verdict = (f"the argument reference {' and '.join(f'{s} -> {t}' for s, t in backed)} matches it"
                       if backed else "no argument reference matches any reading")
            findings.append(finding(
                "ambiguous_link", "warning",
                f"link {short(source)} -> {short(target)} is ambiguous: {'; '.join(used)}; no edge is guessed from "
                f"it ({verdict}); name tasks by id or reference outputs in arguments",
                sorted(set(sources + sinks), key=ids.index), where))
            continue
        s, t = sources[0], sinks[0]
        if s == t:
            findings.append(finding("self_link", "error", f"link {short(source)} -> {short(target)} connects "
                                    f"{s!r} to itself; it is not drawn", [s], where, [(s, s)]))
            continue
        if (s, t) in seen:
            findings.append(finding("duplicate_link", "warning", f"link {s!r} -> {t!r} is listed twice",
                                    [s, t], where, [(s, t)]))
            continue
        seen.add((s, t))
        covered.add((s, t))
        drafts[ids.index(t)].links.append((s, where))
        if compare and (s, t) not in ref_edges:
            findings.append(finding(
                "link_mismatch", "warning",
                f"link {s!r} -> {t!r} ({source} -> {target}), but {t!r}'s arguments do not read {s!r}'s output; "
                "links and argument references disagree", [s, t], where, [(s, t)]))
