"""Building OpenTelemetry traces for tests, written from the specifications (OTLP/JSON and the SDK's span JSON)."""

from __future__ import annotations

import json
from typing import Any

T0 = 1_700_000_000_000_000_000  # nanoseconds since the epoch
TRACE = "5b8efff798038103d269b633813fc60c"


def any_value(v: Any) -> dict:
    """A Python value as an OTLP AnyValue."""
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, (list, tuple)):
        return {"arrayValue": {"values": [any_value(x) for x in v]}}
    if isinstance(v, dict):
        return {
            "kvlistValue": {"values": [{"key": k, "value": any_value(x)} for k, x in v.items()]}
        }
    return {"stringValue": str(v)}


def span(
    sid: int,
    name: str,
    start: float,
    end: float | None,
    parent: int | None = None,
    *,
    error: str = "",
    **attributes: Any,
) -> dict:
    """One OTLP span; ``start``/``end`` in seconds after T0; attribute names with ``__`` for dots."""
    attrs = {k.replace("__", "."): v for k, v in attributes.items()}
    out = {
        "traceId": TRACE,
        "spanId": f"{sid:016x}",
        "parentSpanId": f"{parent:016x}" if parent else "",
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(T0 + int(start * 1e9)),
        "endTimeUnixNano": str(T0 + int(end * 1e9)) if end is not None else "",
        "attributes": [{"key": k, "value": any_value(v)} for k, v in attrs.items()],
        "status": {"code": 2, "message": error} if error else {"code": 1},
    }
    return out


def tool(
    sid: int,
    name: str,
    start: float,
    end: float | None,
    parent: int | None = 1,
    *,
    args: Any = None,
    result: Any = None,
    call_id: str | None = None,
    error: str = "",
    **more: Any,
) -> dict:
    attrs = {"gen_ai__operation__name": "execute_tool", "gen_ai__tool__name": name, **more}
    if args is not None:
        attrs["gen_ai__tool__call__arguments"] = json.dumps(args)
    if result is not None:
        attrs["gen_ai__tool__call__result"] = json.dumps(result)
    if call_id:
        attrs["gen_ai__tool__call__id"] = call_id
    if error:
        attrs["error__type"] = error.split(":")[0]
    return span(sid, f"execute_tool {name}", start, end, parent, error=error, **attrs)


def chat(
    sid: int,
    start: float,
    end: float,
    parent: int | None = 1,
    *,
    tokens: tuple[int, int] = (10, 5),
    user: str | None = None,
    **more: Any,
) -> dict:
    attrs = {
        "gen_ai__operation__name": "chat",
        "gen_ai__request__model": "gpt-4o",
        "gen_ai__usage__input_tokens": tokens[0],
        "gen_ai__usage__output_tokens": tokens[1],
        **more,
    }
    if user is not None:
        attrs["gen_ai__input__messages"] = json.dumps(
            [{"role": "user", "parts": [{"type": "text", "content": user}]}]
        )
    return span(sid, "chat gpt-4o", start, end, parent, **attrs)


def agent(
    sid: int, start: float, end: float, parent: int | None = None, name: str = "helper", **more: Any
) -> dict:
    return span(
        sid,
        f"invoke_agent {name}",
        start,
        end,
        parent,
        gen_ai__operation__name="invoke_agent",
        gen_ai__agent__name=name,
        **more,
    )


def envelope(spans: list[dict]) -> dict:
    """The OTLP/JSON ExportTraceServiceRequest holding ``spans``."""
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "agent"}}]
                },
                "scopeSpans": [{"scope": {"name": "test"}, "spans": spans}],
            }
        ]
    }


def text(spans: list[dict]) -> str:
    return json.dumps(envelope(spans))


def react_trace(spans: int) -> dict:
    """A synthetic ReAct trace of ``spans`` spans: an agent, then a model call and a tool call in turn (a tool's
    argument now and then an earlier tool's result id), as OTLP/JSON: the shape the benchmarks scale."""
    out = [agent(1, 0, spans)]
    for i in range(2, spans + 1):
        t = float(i)
        if i % 2:
            out.append(chat(i, t, t + 0.4, tokens=(300 + i % 50, 20)))
        else:
            args = {"query": f"item {i}", "page": i % 7} if i % 10 else {"id": f"result-{i - 2}"}
            out.append(
                tool(
                    i, f"tool_{i % 13}", t, t + 0.5, args=args, result={"id": f"result-{i}", "n": i}
                )
            )
    return envelope(out)
