"""The first minutes of a new user, timed: clone, `make lab`, a running server, notebook 01's first diagram.

Not part of `make bench` (it clones and installs, which takes minutes). Run it from a checkout whose
.venv has the test extra (it drives Chromium with playwright, as the browser tests do):

    .venv/bin/python benchmarks/first_minutes.py [REPOSITORY] [--runs N] [--keep]

REPOSITORY (default: this checkout) is cloned into a fresh temporary folder; the clock starts before
`git clone`. Then `make lab` runs there, as a new user would type it, with options that only pick a
free port and a token (and no browser). "server" is when the server first answers /api/status;
"first diagram" is when notebook 01, opened in JupyterLab and run with Run > Run All as soon as its
kernel is idle, shows its first planviz diagram. The clicks take no human time, so this is the
machine's share. pip uses whatever index and cache the machine is configured with; say which when
you quote the figures, and the machine's load (printed), since the 2 cores may be shared.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_run(repository: str, keep: bool) -> dict[str, float]:
    tmp = Path(tempfile.mkdtemp(prefix="planviz-first-minutes-"))
    clone, port, token = tmp / "planviz", _free_port(), secrets.token_hex(16)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("VIRTUAL_ENV", "JUPYTER", "PYTHONPATH"))
    }
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR"):
        (tmp / name.lower()).mkdir()
        env[name] = str(tmp / name.lower())
    lab_args = (
        f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} --ServerApp.port_retries=0 "
        f"--IdentityProvider.token={token} --LabApp.user_settings_dir={tmp / 'settings'} "
        f"--LabApp.workspaces_dir={tmp / 'ws'}"
    )
    notify = (
        tmp / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    )
    notify.parent.mkdir(parents=True)
    notify.write_text('{"fetchNews": "false", "checkForUpdates": false}')
    start = time.monotonic()
    subprocess.run(["git", "clone", "--quiet", repository, str(clone)], check=True, env=env)
    cloned = time.monotonic() - start
    log = open(tmp / "make-lab.log", "wb")
    make = subprocess.Popen(
        ["make", "lab", f"LAB_ARGS={lab_args}"],
        cwd=clone,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        while True:
            if make.poll() is not None:
                raise RuntimeError(
                    f"make lab exited with {make.returncode}; see {tmp / 'make-lab.log'}"
                )
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2
                ):
                    break
            except OSError:
                time.sleep(0.2)
        server = time.monotonic() - start
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(300_000)
            page.goto(
                f"http://127.0.0.1:{port}/lab/tree/01_checklist_to_plan.ipynb?reset&token={token}"
            )
            page.get_by_text("Python 3 (ipykernel) | Idle").wait_for()
            page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
            page.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()
            page.locator(".planviz-diagram svg g.node").first.wait_for(state="attached")
            diagram = time.monotonic() - start
            browser.close()
    finally:
        os.killpg(make.pid, signal.SIGTERM)
        make.wait(timeout=30)
        if not keep:
            subprocess.run(["rm", "-rf", str(tmp)], check=False)
    return {"clone": cloned, "server": server, "first diagram": diagram}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repository", nargs="?", default=str(HERE.parent))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the clone and its logs")
    args = parser.parse_args(argv)
    for k in range(args.runs):
        load = os.getloadavg()
        times = one_run(args.repository, args.keep)
        shown = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in times.items())
        print(
            f"run {k + 1}: {shown} (load average before: {load[0]:.1f}, {os.cpu_count()} cores)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
