"""What a page's script reads as its snapshot, in Python: the packed data, then the no-script view's shared strings."""

from __future__ import annotations

import base64
import gzip
import json
import re

_PACKED = re.compile(r'<script type="application/octet-stream" id="planviz-data" data-encoding="gzip\+base64">'
                     r"([A-Za-z0-9+/=]*)</script>")
_SLOT = re.compile(r'data-planviz-slot="([^"]+)">(.*?)</div>', re.S)  # a picture or timeline: no div inside


def packed_text(page: str) -> str:
    """The page's data as its JSON text (gzip in base64 on the page)."""
    return gzip.decompress(base64.b64decode(_PACKED.search(page)[1])).decode("utf-8")


def page_data(page: str) -> dict:
    """The snapshot the page's script draws: its data, with each slot's string taken from the no-script view."""
    data = json.loads(packed_text(page))
    for path, inner in _SLOT.findall(page):
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        node = data
        for key in keys[:-1]:
            node = node[key]
        assert node[keys[-1]] == "", path  # left out of the data: the view holds the one copy
        node[keys[-1]] = inner
    return data
