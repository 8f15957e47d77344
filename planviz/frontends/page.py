"""What every self-contained planviz page needs: data that is safe inside a script, and a locked CSP.

The one-run report and the two-run report are offline HTML files: no network,
no external file, and a Content-Security-Policy that lets only the page's own
inline script run (by its sha256 hash), inline styles and ``data:`` images.

>>> script_json({"a": "</script><b>&\\u2028"})
'{"a": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026\\\\u2028"}'
>>> content_security_policy("x").startswith("default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-")
True
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from importlib.resources import files
from typing import Any

from ..pictures.escape import SHOWN_IN_PAGES

__all__ = ["script_json", "content_security_policy", "asset"]


def script_json(data: Any) -> str:
    """JSON safe inside an HTML ``<script>`` block: no ``<``, ``>``, ``&``, U+2028, U+2029 or lone surrogate
    left raw; bidi controls shown as their code points (``<U+202E>``, as the pictures show them); no NaN."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, allow_nan=False).translate(SHOWN_IN_PAGES)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def content_security_policy(script: str) -> str:
    """The policy of a page whose only script is ``script``: nothing loads, nothing else runs."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; img-src data:; "
            "base-uri 'none'; form-action 'none'")


@functools.lru_cache(maxsize=None)
def asset(name: str) -> str:
    """A page asset shipped beside this module (``stepper.js``, ``report.js``, ``report.css``...), as text."""
    return files(__package__).joinpath(name).read_text(encoding="utf-8")
