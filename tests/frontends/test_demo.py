"""The first ten minutes: `make demo` writes its files and they parse; the README's code (and the docs pages it
leads to) runs as written."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from planviz import load_trace, parse_plan, validate
from planviz.frontends.cli.demo import FILES, main

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}svg"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """Run ``python -m planviz.frontends.cli.demo OUT`` once, as ``make demo`` does; (out dir, stdout)."""
    out = tmp_path_factory.mktemp("demo") / "out"
    done = subprocess.run(
        [sys.executable, "-m", "planviz.frontends.cli.demo", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return out, done.stdout


def test_writes_every_file_and_says_so(demo):
    out, stdout = demo
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    for name in FILES:
        assert f"wrote {out / name}" in stdout


@pytest.mark.parametrize("name", ["plan.svg", "side_effect.svg"])
def test_svgs_are_xml(demo, name):
    root = ET.parse(demo[0] / name).getroot()
    assert root.tag == SVG
    assert root.iter("{http://www.w3.org/2000/svg}g")


def test_side_effect_picture_shows_voided_and_kept(demo):
    svg = (demo[0] / "side_effect.svg").read_text(encoding="utf-8")
    assert "status-invalidated" in svg
    plan_svg = (demo[0] / "plan.svg").read_text(encoding="utf-8")
    assert "status-invalidated" not in plan_svg


def test_png_is_a_png(demo):
    assert (demo[0] / "plan.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_is_self_contained_html_with_the_stepper(demo):
    html = (demo[0] / "report.html").read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html")
    assert "<script" in html and "range" in html  # the stepper's slider
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html


def test_trace_is_json_lines_and_loads_back(demo):
    path = demo[0] / "trace.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert all(isinstance(json.loads(line), dict) for line in lines)
    run = load_trace(path)
    assert run.outcome == "plan_complete"
    assert [p.version for p in run.plans] == [1, 2]


@pytest.mark.parametrize(
    "needle",
    [
        "makespan 29 min",
        "serial time 32 min",
        "S0 -> S1 -> S3 -> S4",  # critical path
        "forbidden_step",
        "missing_required",  # the broken plan's findings
        "refused by prepare(), unsatisfiable=('deploy_credentials',)",  # refusal
        "voided: S3, S4; kept: S0, S1, S2",  # the side effect's scope
        "direct",
        "workflow",
        "planner",  # the comparison
    ],
)
def test_prints_what_it_found(demo, needle):
    assert needle in demo[1]


def test_bad_usage_exits_2(capsys):
    assert main(["a", "b"]) == 2
    assert "usage" in capsys.readouterr().err


# The pages whose Python runs as written, in this order (the README first; later pages may use out/).
PYTHON_PAGES = (
    "README.md",
    "docs/api-tour.md",
    "docs/rules.md",
    "docs/evaluation.md",
    "docs/traces.md",
    "docs/importers.md",
)


def _blocks(page: str, lang: str = "python") -> list[str]:
    text = (ROOT / page).read_text(encoding="utf-8")
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def test_readme_python_runs_and_prints_what_it_says(tmp_path):
    """The Python of the README's tours and of the docs pages it sends readers to (the API tour, the rules, the
    campaigns, traces, importers) runs as written (in a scratch dir) and prints its comments."""
    assert len(_blocks("README.md")) >= 2
    for page in PYTHON_PAGES:
        blocks = _blocks(page)
        assert blocks, f"{page} has no python block"
        for block in blocks:
            done = subprocess.run(
                [sys.executable, "-c", block],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, f"{page}:\n{done.stderr}"
            for line in block.splitlines():
                call, _, comment = line.partition("  # ")
                if call.startswith("print(") and comment.strip():
                    assert comment.strip() in done.stdout, (
                        f"{page} says {comment.strip()!r} for {call.strip()}"
                    )
    assert {"plan.svg", "trace.jsonl", "report.html", "run.gif"} <= {
        p.name for p in (tmp_path / "out").iterdir()
    }


def _section(page: str, title: str) -> str:
    text = (ROOT / page).read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


@pytest.mark.parametrize(
    "page, title",
    [("docs/plan-format.md", "Plan files"), ("docs/importers.md", "Importing planner outputs")],
)
def test_readme_plan_examples_load_and_validate_clean(page, title):
    """Every YAML/JSON/text plan shown in these sections (moved from the README) loads as shown and has no error."""
    blocks = re.findall(r"```(yaml|json|text)\n(.*?)```", _section(page, title), re.S)
    assert blocks
    for lang, block in blocks:
        plan = parse_plan(block)
        report = validate(plan, plan.contract)
        assert report.ok, f"{page} {lang} example does not validate:\n{block}\n{report.to_text()}"


def _fresh_clone(dest: Path) -> Path:
    """What a fresh clone holds: the files git tracks (as they are in the working tree), nothing else."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip(
            f"not a git checkout, so a fresh clone cannot be imitated: {listed.stderr.strip()}"
        )
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def test_readme_command_line_runs_as_written_in_a_fresh_clone(tmp_path):
    """The shell examples (docs/cli.md, the README's engineer tour), run by bash from the root of a fresh
    clone whose .venv is this environment (what `make lab` makes): every command succeeds and writes the
    files it names."""
    if sys.prefix == sys.base_prefix or not (Path(sys.prefix) / "bin" / "activate").is_file():
        pytest.skip(
            "the tests are not running in a virtual environment, so there is no .venv to activate"
        )
    blocks = re.findall(r"```sh\n(.*?)```", _section("docs/cli.md", "Command line"), re.S)
    assert blocks, "docs/cli.md's Command line section has no sh block"
    tour = re.findall(
        r"```sh\n(.*?)```", _section("README.md", "Tour: debugging a failed agent run"), re.S
    )
    assert tour, "the README's engineer tour has no sh block"
    blocks += tour
    clone = _fresh_clone(tmp_path / "clone")
    (clone / ".venv").symlink_to(Path(sys.prefix))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    for block in blocks:
        assert ".venv/bin/" in block, "the example must say how to get the planviz command"
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", block],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, (
            f"command line example failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
        written = re.findall(r"(?:-o|--trace|--report|>)\s+(\S+)", block)
        assert written
        for name in written:
            assert (clone / name).is_file() and (clone / name).stat().st_size > 0, (
                f"{name} was not written"
            )
        expected = re.findall(r'echo "exit code \$\?"\s+#.*exit code (\d+)', block)
        assert sorted(re.findall(r"^exit code (\d+)$", done.stdout, re.M)) == sorted(expected)
