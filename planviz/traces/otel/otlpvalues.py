"""The values of OpenTelemetry span records, each checked where it is read: span and trace ids (OTLP hex,
SDK ``0x`` text or integers), nanosecond times (digits or ISO 8601), finite numbers, and OTLP's
``[{"key", "value": AnyValue}]`` attributes as a plain mapping. A value out of shape raises the reader's
``bad(field, why)`` error, which names the field.

>>> def bad(field, why):
...     return ValueError(f"{field}: {why}")
>>> otlp_attributes([{"key": "n", "value": {"intValue": "3"}}], bad)
{'n': 3}
>>> otel_id("0xABC", "spanId", bad), nanos("2025-01-01T00:00:00Z", "start", bad)
('0000000000000abc', 1735689600000000000)
"""

from __future__ import annotations

import base64
import re
from typing import Any

from planviz.io.limits import read_float, read_int
from planviz.io.plaindata import iso_nanos

__all__ = ["any_value", "nanos", "number", "otel_id", "otlp_attributes", "short"]

HEX = re.compile(r"[0-9a-f]{1,32}")


def short(value: Any) -> str:
    """``value`` as an error message shows it: its repr, at most 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# the trace and parent ids seen last, one string for all who name them; forgotten whole past _SHARED_AT_MOST
# entries: a small table, never one entry per span of a big trace
_SHARED_IDS: dict[str, str] = {}
_SHARED_AT_MOST = 4096


def _shared_id(text: str, own: bool) -> str:
    """One string for the spans that name the same parent or trace; a span's own id is looked up, not kept.

    (``sys.intern`` would keep one entry per span in the interpreter's table for as long as the process
    runs: a megabyte per 20,000 spans that outlives the run, issue 43.)
    """
    found = _SHARED_IDS.get(text)
    if found is not None or own:
        return text if found is None else found
    if len(_SHARED_IDS) >= _SHARED_AT_MOST:
        _SHARED_IDS.clear()
    _SHARED_IDS[text] = text
    return text


def otel_id(
    value: Any, field: str, bad: Any, required: bool = False, own: bool = False
) -> str | None:
    """A span or trace id as lowercase hex: OTLP hex text, SDK ``0x...`` text or an integer (``own``: the
    span's own id, shared with an earlier span's parent id when one named it, not kept for later ones)."""
    if type(value) is str and len(value) >= 16 and HEX.fullmatch(value):
        # OTLP's own spelling, first (three ids a span): lowercase hex, 16 to 32 digits (no copy made)
        return _shared_id(value, own)
    if value is None or value == "" or value == 0:
        if required:
            raise bad(field, "missing: every span needs its id")
        return None
    if isinstance(value, bool):
        raise bad(field, f"expected a hex id or an integer, got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise bad(field, f"expected a non-negative id, got {value!r}")
        return _shared_id(f"{value:016x}", own)
    if isinstance(value, str):
        text = value.lower().removeprefix("0x")
        if HEX.fullmatch(text):
            return _shared_id(text.rjust(16, "0"), own)
    raise bad(field, f"expected a hex id or an integer, got {short(value)}")


def nanos(value: Any, field: str, bad: Any, required: bool = False) -> int | None:
    """A time as integer nanoseconds since the epoch: an integer, a string of digits (OTLP) or ISO 8601 text."""
    if type(value) is str and 0 < len(value) < 20 and value.isdigit() and value.isascii():
        digits = int(value)  # OTLP's own spelling, first (two times a span)
        if digits > 0:
            return digits
    if value is None or value == "" or value == "0" or value == 0:
        if required:
            raise bad(field, "missing: every span needs its start time")
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1 << 63:
        return value
    if isinstance(value, str):
        number = (
            (int(value) if value.isdigit() and value.isascii() else read_int(value))
            if len(value) < 20
            else None
        )
        if number is not None and number > 0:
            return number
        nanos = iso_nanos(value)
        if nanos is not None:
            return nanos
    raise bad(field, f"expected nanoseconds since the epoch or ISO 8601 time, got {short(value)}")


def number(value: Any, field: str, bad: Any) -> float | None:
    """A finite number, or None when absent; anything else (text, out of float range) is ``bad``."""
    if value is None:
        return None
    number = read_float(value) if isinstance(value, (int, float)) else None
    if number is None:
        raise bad(field, f"expected a finite number, got {short(value)}")
    return number


def otlp_attributes(items: Any, bad: Any) -> dict[str, Any]:
    """OTLP ``[{"key": k, "value": AnyValue}]`` as a plain mapping; a plain mapping as it is (the spans
    CloudWatch stores for X-Ray and AgentCore: OTLP's camelCase fields, attributes already flat)."""
    if items is None:
        return {}
    if isinstance(items, dict) and not {"key", "value"} <= items.keys():
        return items
    if not isinstance(items, list):
        raise bad("attributes", f"expected a list of {{key, value}} objects, got {short(items)}")
    out = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(key := item.get("key"), str):
            raise bad(
                f"attributes[{i}]",
                f'expected {{"key": name, "value": {{...}}}}, got {short(item)}',
            )
        value = item.get("value")
        if (
            type(value) is dict
            and len(value) == 1
            and type(text := value.get("stringValue")) is str
        ):
            out[key] = (
                text  # most attributes: a string, read without the field's name built for an error
            )
        else:
            out[key] = any_value(value, f"attributes[{i}].value", bad)
    return out


def any_value(v: Any, field: str, bad: Any, depth: int = 0) -> Any:
    """An OTLP AnyValue as a Python value."""
    if v is None or v == {}:
        return None
    if not isinstance(v, dict) or len(v) != 1 or depth > 32:
        raise bad(
            field,
            f"expected one of stringValue, boolValue, intValue, doubleValue, arrayValue, "
            f"kvlistValue, bytesValue, got {short(v)}",
        )
    ((kind, x),) = v.items()
    if kind == "stringValue" and isinstance(x, str):
        return x
    if kind == "boolValue" and isinstance(x, bool):
        return x
    if (
        kind == "intValue"
        and isinstance(x, int)
        and not isinstance(x, bool)
        and read_int(x) is not None
    ):
        return x
    if (
        kind == "intValue"
        and isinstance(x, str)
        and (number := int(x) if len(x) < 19 and x.isdigit() and x.isascii() else read_int(x))
        is not None
    ):
        return number  # read once: each read checks the digits against the limits
    if kind == "doubleValue" and (double := read_float(x)) is not None:
        return double
    # protobuf JSON's non-finite doubles
    if kind == "doubleValue" and x in (
        "NaN",
        "Infinity",
        "-Infinity",
    ):
        return x
    if kind == "arrayValue" and isinstance(x, dict):
        return [
            any_value(e, f"{field}.arrayValue.values[{i}]", bad, depth + 1)
            for i, e in enumerate(x.get("values") or [])
        ]
    if kind == "kvlistValue" and isinstance(x, dict):
        return otlp_attributes(x.get("values"), lambda f, why: bad(f"{field}.kvlistValue.{f}", why))
    if kind == "bytesValue" and isinstance(x, str):
        try:
            return base64.b64decode(x, validate=True).decode("utf-8", "replace")
        except ValueError:
            pass
    raise bad(field, f"{kind} holds {short(x)}, which is not a valid {kind}")
