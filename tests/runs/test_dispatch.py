"""Where a campaign runs: a Dask cluster (a LocalCluster on loopback, two workers) gives the in-process answer."""

from __future__ import annotations

import pytest

from planviz import FaultModel, ablation, campaign, examples

MODEL = FaultModel({"transient": 0.1, "side_effect": 0.1, "tool_error": 0.02}, seed=4)


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            protocol="tcp",
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def plans():
    return [
        examples.load(name) for name in ("cache_isolation", "parser_fix", "delete_failing_test")
    ]


def test_a_dask_cluster_gives_the_in_process_result(client, plans):
    here = campaign(plans, MODEL, samples=120, per_plan=True)
    assert campaign(plans, MODEL, samples=120, per_plan=True, executor=client) == here
    assert ablation(plans, MODEL, samples=20, executor=client) == ablation(plans, MODEL, samples=20)


def test_an_executor_with_only_map_is_used_too(plans):
    class Mapper:
        def __init__(self):
            self.calls = 0

        def map(self, fn, tasks):
            self.calls += 1
            return map(fn, tasks)

    mapper = Mapper()
    assert campaign(plans, MODEL, samples=10, executor=mapper) == campaign(plans, MODEL, samples=10)
    assert mapper.calls == 1


def test_a_campaign_in_this_process_never_imports_dask():
    import subprocess
    import sys

    code = (
        "import sys, planviz\n"
        "planviz.campaign([planviz.examples.load('cache_isolation')], planviz.FaultModel({'transient': 0.2}), "
        "samples=3)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'pandas')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_command_line_sends_the_work_to_a_scheduler_address(client, plans, cli):
    import json

    from planviz import Campaign

    files = ["planviz/examples/cache_isolation.yaml", "planviz/examples/parser_fix.yaml"]
    args = [
        "campaign",
        *files,
        "--samples",
        "20",
        "--rates",
        "transient=0.1,side_effect=0.1",
        "--seed",
        "3",
        "--json",
    ]
    there = cli(*args, "--scheduler", client.scheduler.address)
    assert there.returncode == 0, there.stderr
    assert Campaign.from_dict(json.loads(there.stdout)) == Campaign.from_dict(
        json.loads(cli(*args).stdout)
    )
