"""The rules core's command line: ``simulate`` prints a whole match, bad input is an error."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.__main__ import main


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion.games", *args], check=False,
                          capture_output=True, text=True, timeout=120)


def test_simulate_json_shape():
    done = run("simulate", "mexican-train", "--players", "4", "--seed", "7",
               "--option", "double_blank=0", "--json")
    assert done.returncode == 0, done.stderr
    match = json.loads(done.stdout)
    assert set(match) == {"game", "options", "rounds", "totals", "winners"}
    assert match["game"] == "mexican-train" and match["options"]["double_blank"] == 0
    assert [r["engine"] for r in match["rounds"]] == [f"{n}-{n}" for n in range(12, -1, -1)]
    assert match["totals"] == [sum(r["scores"][s] for r in match["rounds"]) for s in range(4)]
    assert all(match["totals"][w] == min(match["totals"]) for w in match["winners"])


def test_simulate_text_and_bad_options():
    assert run("simulate", "cf", "--players", "3", "--seed", "1").stdout.startswith("Chicken Foot")
    bad = run("simulate", "mt", "--option", "double_rule=sometimes")
    assert bad.returncode == 2 and "double_rule" in bad.stderr
    assert run("simulate", "poker").returncode == 2


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game=st.sampled_from(["mt", "cf"]), players=st.integers(2, 8), seed=st.integers(0, 10**9),
       blank=st.sampled_from(["0", "50"]))
def test_simulate_never_raises_for_any_seed(game, players, seed, blank, capsys):
    capsys.readouterr()
    assert main(["simulate", game, "--players", str(players), "--seed", str(seed),
                 "--option", f"double_blank={blank}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["winners"]


@pytest.mark.slow
def test_bench_prints_name_value_unit_lines():
    done = run("bench")
    lines = [line.split() for line in done.stdout.splitlines()]
    assert lines and all(len(parts) == 3 for parts in lines)
    names = {parts[0] for parts in lines}
    assert "mexican-train.table_checked_plays" in names
    assert "mexican-train.match_13_rounds_8p_double12" in names
