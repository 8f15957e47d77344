"""Real-browser fixtures: JupyterLab and Voila served on 127.0.0.1, headless Chromium.

Every server runs on a free port with a random token and fresh Jupyter
config/runtime/IPython directories under a tmp dir, and is terminated (its
whole process group, kernels included) at teardown. The notebooks the tests
open are written into that tmp dir by :func:`write_notebook`.

Without /usr/bin/chromium the tests skip, saying why; with the ``CI``
environment variable set they fail instead, so CI cannot go green by skipping.
See ../../../shared/TESTING.md for the recipe and its pitfalls.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = ROOT / "out" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
START_TIMEOUT = 60.0


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium():
    """A headless Chromium driven by playwright (the system /usr/bin/chromium)."""
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is not installed (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Page:
    """A browser page plus what it reported: console errors, page errors, CSP violations, dialogs."""

    page: object
    errors: list
    csp: list
    dialogs: list


_WATCH_CSP = """
document.addEventListener('securitypolicyviolation', e => {
  (window.__planvizCsp = window.__planvizCsp || []).push(e.violatedDirective + ' ' + e.blockedURI);
});
"""


@pytest.fixture
def page(chromium):
    """A fresh 1280x900 page in its own context that records errors, CSP violations and dialogs."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    seen = Page(pg, [], [], [])
    pg.add_init_script(_WATCH_CSP)
    pg.on("console", lambda m: seen.errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: seen.errors.append(str(e)))

    def on_dialog(dialog):
        seen.dialogs.append(dialog.message)
        dialog.dismiss()

    pg.on("dialog", on_dialog)
    try:
        yield seen
    finally:
        context.close()


def screenshot(locator, name: str) -> Path:
    """Save a screenshot of one element to out/screenshots/NAME.png (gitignored)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    locator.screenshot(path=str(path))
    return path


def write_notebook(folder: Path, name: str, *sources: str) -> Path:
    """Write a notebook of code cells with the python3 kernelspec (no kernel-picker dialog)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src) for src in sources]
    path = folder / name
    nbformat.write(nb, str(path))
    return path


EXPLORE_CELL = """\
import planviz
explorer = planviz.explore(planviz.examples.load("cache_isolation"))
explorer"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A running Jupyter server: where it is, its token, its tmp dir and log."""

    url: str
    token: str
    root: Path
    log: Path
    process: subprocess.Popen

    def describe(self) -> str:
        return (
            f"server at {self.url} (log {self.log}):\n"
            + self.log.read_text(errors="replace")[-3000:]
        )

    def wait_for_kernel(self, timeout: float = 90.0) -> None:
        """Until a kernel of this server is idle with a browser connected (the REST view of "ready to run").

        A front end's own idle indicator can read idle before its kernel has even started, so a "run all"
        clicked then does nothing; the server's sessions say what is really there.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with urllib.request.urlopen(
                f"{self.url}/api/sessions?token={self.token}", timeout=5
            ) as r:
                kernels = [s.get("kernel") or {} for s in json.load(r)]
            if any(
                k.get("execution_state") == "idle" and k.get("connections", 0) >= 1 for k in kernels
            ):
                return
            time.sleep(0.25)
        raise TimeoutError(
            f"no kernel was idle and connected within {timeout:.0f} s; " + self.describe()
        )


def _environment(tmp: Path) -> dict:
    env = dict(os.environ)
    for name in (
        "JUPYTER_CONFIG_DIR",
        "JUPYTER_RUNTIME_DIR",
        "IPYTHONDIR",
        "JUPYTER_DATA_DIR_UNUSED",
    ):
        (tmp / name.lower()).mkdir(parents=True, exist_ok=True)
        env[name] = str(tmp / name.lower())
    env.pop("JUPYTER_DATA_DIR_UNUSED")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    return env


def _start(command: list[str], *, tmp: Path, token: str, port: int, status_path: str) -> Server:
    log = tmp / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command,
            cwd=tmp / "nb",
            env=_environment(tmp),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    server = Server(f"http://127.0.0.1:{port}", token, tmp / "nb", log, process)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}; " + server.describe())
        try:
            with urllib.request.urlopen(f"{server.url}{status_path}?token={token}", timeout=2) as r:
                if r.status == 200:
                    return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    _stop(process)
    raise RuntimeError(f"server did not answer within {START_TIMEOUT:.0f} s; " + server.describe())


def _stop(process: subprocess.Popen) -> None:
    """Terminate the server's process group (kernels included); kill it if it lingers."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # stragglers (kernels) left in the group
    except ProcessLookupError:
        pass
    process.wait(timeout=10)


@pytest.fixture(scope="session")
def lab_dir(tmp_path_factory) -> Path:
    """The tmp dir of the JupyterLab session, with its notebooks already written."""
    tmp = tmp_path_factory.mktemp("lab")
    (tmp / "nb").mkdir()
    write_notebook(tmp / "nb", "explore.ipynb", EXPLORE_CELL)
    return tmp


def _jupyter(module: str, app: str, tmp: Path):
    """Serve ``tmp/nb`` with ``python -m MODULE`` (JupyterLab or Notebook 7, whose app class is ``app``), no
    news toast, fresh workspace and settings; yields the Server and terminates it at teardown."""
    token, port = secrets.token_hex(16), _free_port()
    notify = (
        tmp / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    )
    notify.parent.mkdir(parents=True)
    notify.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    command = [
        sys.executable,
        "-m",
        module,
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={tmp / 'nb'}",
        f"--{app}.workspaces_dir={tmp / 'ws'}",
        f"--{app}.user_settings_dir={tmp / 'settings'}",
    ]
    server = _start(command, tmp=tmp, token=token, port=port, status_path="/api/status")
    try:
        yield server
    finally:
        _stop(server.process)


@pytest.fixture(scope="session")
def jupyterlab(chromium, lab_dir) -> Server:
    """JupyterLab 4 on 127.0.0.1, a free port and a random token; terminated at teardown."""
    yield from _jupyter("jupyterlab", "LabApp", lab_dir)


@pytest.fixture(scope="session")
def notebook7(chromium, tmp_path_factory) -> Server:
    """Jupyter Notebook 7 (the ``notebook`` package) on 127.0.0.1 with a random token; terminated at teardown."""
    tmp = tmp_path_factory.mktemp("notebook7")
    (tmp / "nb").mkdir()
    write_notebook(tmp / "nb", "explore.ipynb", EXPLORE_CELL)
    yield from _jupyter("notebook", "JupyterNotebookApp", tmp)


@pytest.fixture(scope="session")
def voila(chromium, tmp_path_factory) -> Server:
    """Voila serving the explorer notebook on 127.0.0.1 with a random token; terminated at teardown."""
    tmp, token, port = tmp_path_factory.mktemp("voila"), secrets.token_hex(16), _free_port()
    (tmp / "nb").mkdir()
    write_notebook(tmp / "nb", "explore.ipynb", EXPLORE_CELL)
    command = [
        sys.executable,
        "-m",
        "voila",
        "explore.ipynb",
        "--no-browser",
        "--Voila.ip=127.0.0.1",
        f"--Voila.port={port}",
        "--Voila.port_retries=0",
        f"--Voila.token={token}",
    ]
    server = _start(command, tmp=tmp, token=token, port=port, status_path="/voila/static/voila.js")
    try:
        yield server
    finally:
        _stop(server.process)


# Step ids and classes of the diagram's node groups, as the browser sees them.
NODE_CLASSES_BODY = """
  const out = {};
  for (const g of document.querySelectorAll(root + ' svg g.node:not(.legend)')) {
    const title = g.querySelector('title');
    const id = g.getAttribute('data-step') || (title ? title.textContent : g.id);
    out[id] = g.getAttribute('class') || '';
  }
"""
NODE_CLASSES_JS = "(root) => {" + NODE_CLASSES_BODY + "return out; }"
INVALIDATED_JS = (
    "([root, ids]) => {"
    + NODE_CLASSES_BODY
    + "return ids.every(id => /\\bstatus-invalidated\\b/.test(out[id] || '')); }"
)


# Where the explorer's picture and legend sit, what the legend lists, and how much of the picture the plan fills.
LEGEND_JS = """() => {
  const svg = document.querySelector('.planviz-diagram .pv-version:not([hidden]) svg');
  const legend = document.querySelector('.planviz-legend');
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const nodes = [...svg.querySelectorAll('g.node')].map(g => g.getBoundingClientRect());
  const height = svg.getBoundingClientRect().height;
  const [p, frame] = [box(svg), box(svg.closest('.planviz-diagram'))];  // what shows of a picture that scrolls
  const seen = [Math.max(p[0], frame[0]), Math.max(p[1], frame[1]), Math.min(p[2], frame[2]), Math.min(p[3], frame[3])];
  return {picture: seen, legend: box(legend), inside: !!svg.querySelector('g.legend, g#clust1'),
          items: [...legend.querySelectorAll('li')].map(li => li.className.replace('pv-legend-', '')),
          plan_share: (Math.max(...nodes.map(r => r.bottom)) - Math.min(...nodes.map(r => r.top))) / height};
}"""


def legend_of(pg) -> dict:
    """The explorer's legend as the browser lays it out (see LEGEND_JS)."""
    return pg.evaluate(LEGEND_JS)


PICTURE = (
    ".planviz-diagram .pv-version:not([hidden])"  # the picture on screen (one per plan version)
)


def node_classes(pg, root: str = PICTURE) -> dict:
    """{step id: class attribute} of every node group of the diagram under ``root``."""
    return pg.evaluate(NODE_CLASSES_JS, root)


def drive_explorer(pg) -> dict:
    """Use the explorer as a person would: step once, then inject S4:side_effect through the fault panel.

    Returns what was seen: the node classes before and after, and the captions.
    """
    pg.locator(PICTURE + " svg g.node").first.wait_for(state="attached", timeout=120_000)
    before, legend_before = node_classes(pg), legend_of(pg)
    caption = pg.locator(".pv-caption").first
    first_caption = caption.inner_text()
    pg.locator("button.planviz-forward").click()
    pg.wait_for_function(
        "(old) => document.querySelector('.pv-caption').innerText !== old", arg=first_caption
    )
    stepped = node_classes(pg)
    second_caption = caption.inner_text()
    # the fault panel: the kernel re-simulates
    pg.locator(".planviz-fault-step select").select_option("S4")
    pg.locator(".planviz-fault-kind select").select_option("side_effect")
    pg.locator("button.planviz-fault-inject").click()
    pg.wait_for_function(INVALIDATED_JS, arg=[PICTURE, ["S3", "S4"]], timeout=60_000)
    return {
        "before": before,
        "stepped": stepped,
        "after": node_classes(pg),
        "captions": [first_caption, second_caption, caption.inner_text()],
        "fault_status": pg.locator(".planviz-fault-status").inner_text(),
        "legend": [legend_before, legend_of(pg)],
    }


def check_notebook_explorer(pg, seen: dict, name: str) -> None:
    """What the explorer must have done in a notebook front end (JupyterLab, Notebook 7) driven by
    :func:`drive_explorer`: stepped, recoloured, voided S3 and S4 and kept the rest; no error output."""
    assert {"S0", "S1", "S2", "S3", "S4"} <= set(seen["before"])
    assert "Event 0 " in seen["captions"][0] and "Event 1 " in seen["captions"][1]
    assert seen["stepped"] != seen["before"]  # stepping recoloured the diagram
    for step in ("S3", "S4"):
        assert "status-invalidated" not in seen["before"][step]
        assert "status-invalidated" in seen["after"][step]
    for step in ("S0", "S1", "S2"):
        assert "status-invalidated" not in seen["after"][step]
    assert "S3" in seen["fault_status"] and "voided" in seen["fault_status"]
    check_legend(seen["legend"])
    shot = screenshot(pg.locator(".jp-NotebookPanel"), name)
    assert shot.stat().st_size > 10_000
    assert not [
        e
        for e in pg.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
        ).all_inner_texts()
        if "Traceback" in e or "Error" in e
    ]


def check_legend(legends: list) -> None:
    """The legend sits beside the picture (to its right, overlapping it vertically), not inside it; it lists
    the looks on screen (voided and kept only once a failure voids work); the plan fills most of the picture."""
    for legend in legends:
        picture, box = legend["picture"], legend["legend"]
        assert box[0] >= picture[2] - 1 and box[1] < picture[3] and box[3] > picture[1], legend
        assert not legend["inside"] and legend["plan_share"] > 0.6, legend
    before, after = (set(legend["items"]) for legend in legends)
    assert {"pending", "ready"} <= before and not before & {"invalidated", "kept", "failed"}
    assert {"invalidated", "kept"} <= after


@pytest.fixture
def ui():
    """The helpers tests drive pages with: ``drive``, ``check``, ``check_legend``, ``node_classes``, ``screenshot``."""
    from types import SimpleNamespace

    return SimpleNamespace(
        drive=drive_explorer,
        check=check_notebook_explorer,
        check_legend=check_legend,
        node_classes=node_classes,
        screenshot=screenshot,
    )
