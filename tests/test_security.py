"""Security: a private local Ray cluster, credentials that never leave the process, names that
stay in their folder, and user text that reaches a terminal only as text."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness.engine.integrity import keyed_seal, seal
from harness.engine.store import join_uri, within
from villagelab.safe_text import printable, redact, remember, scrub

from .conftest import ROOT, villagelab
from .servers import free_port, wait_until

LOOPBACK = ("127.0.0.1", "::1", "::ffff:127.0.0.1")


# --- redaction and terminal text, as functions ---------------------------------------------------
@pytest.mark.parametrize(
    ("uri", "shown"),
    [
        ("s3://AKID123:SECRET456@bucket/p?region=eu", "s3://***:***@bucket/p?region=eu"),
        ("postgresql://alice:pw0rd99@db:5432/optuna", "postgresql://alice:***@db:5432/optuna"),
        ("http://bob:tok3n55@mlflow:5000", "http://bob:***@mlflow:5000"),
        (
            "gs://b/p?access_key=AK11&secret_key=SK22&scheme=http",
            "gs://b/p?access_key=***&secret_key=***&scheme=http",
        ),
        ("file:///mnt/shared/traces", "file:///mnt/shared/traces"),
        ("postgresql://alice@db/optuna", "postgresql://alice@db/optuna"),
    ],
)
def test_redact_masks_credentials_and_keeps_the_rest(uri, shown):
    assert redact(uri) == shown


def test_scrub_masks_a_remembered_secret_wherever_it_appears():
    remember("s3://KEYIDREMEMBERED:VERYSECRETVALUE@bucket/x")
    text = "AWS error: access denied for key KEYIDREMEMBERED (signature VERYSECRETVALUE)"
    assert "KEYIDREMEMBERED" not in scrub(text) and "VERYSECRETVALUE" not in scrub(text)


def test_printable_escapes_controls_and_bidi_overrides():
    shown = printable("a\x1b[2Jb\x07c\u202ed\x9be\nf\tg")
    assert shown == "a\\x1b[2Jb\\x07c\\u202ed\\x9be\nf\tg"


def test_join_uri_puts_segments_before_the_query():
    assert (
        join_uri("s3://b/p?endpoint_override=h:1", "study", "trial-3")
        == "s3://b/p/study/trial-3?endpoint_override=h:1"
    )
    assert join_uri("file:///x/", "traces") == "file:///x/traces"


def test_within_refuses_a_path_outside_its_folder(tmp_path):
    assert within(tmp_path, tmp_path / "a" / "b") == tmp_path / "a" / "b"
    with pytest.raises(ValueError, match="outside"):
        within(tmp_path, tmp_path / ".." / "elsewhere")


# --- names ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    ["../../escaped", "/tmp/absolute", "a/b", "..", ".hidden", "x" * 65, "spa ce", "semi;colon"],
)
def test_a_study_name_that_is_not_a_plain_name_is_refused_before_anything_is_written(
    tmp_path, name
):
    runs = tmp_path / "runs"
    result = villagelab(
        "search",
        "--study",
        name,
        "--trials",
        "1",
        "--runs-dir",
        str(runs),
        "--serial",
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    assert "study name" in result.stderr and "Traceback" not in result.stderr
    assert not runs.exists() and sorted(p.name for p in tmp_path.iterdir()) == []
    report = villagelab("report", "--study", name, "--runs-dir", str(runs), cwd=tmp_path)
    assert report.returncode == 2 and not runs.exists()


def test_the_runs_folder_never_hands_out_a_study_folder_outside_it(tmp_path):
    from experiments.search.loop import RunsDir
    from policies import InputError

    with pytest.raises(InputError, match="study name"):
        RunsDir(tmp_path).study_dir("../outside")


# --- a manifest points only at its own folder or at a URI given again -------------------------
@pytest.fixture(scope="module")
def written_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("security-run")
    shared = root / "shared"
    out = root / "out"
    result = villagelab(
        "run",
        "--scenario",
        "public_fact",
        "--policy",
        str(ROOT / "policies" / "baseline.yaml"),
        "--seeds",
        "0",
        "--out",
        str(out),
        "--serial",
        "--traces-uri",
        shared.as_uri(),
        cwd=root,
    )
    assert result.returncode in (0, 1), result.stderr
    return root, out, shared


def test_score_follows_a_manifests_uri_only_when_it_is_given_again(written_run):
    root, out, shared = written_run
    refused = villagelab("score", str(out), cwd=root)
    assert refused.returncode == 2 and "--traces-uri" in refused.stderr
    other = villagelab("score", str(out), "--traces-uri", (root / "other").as_uri(), cwd=root)
    assert other.returncode == 2 and "not at" in other.stderr
    scored = villagelab("score", str(out), "--traces-uri", shared.as_uri(), cwd=root)
    assert scored.returncode == 0, scored.stderr
    assert "objective" in scored.stdout


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("traces", "file:///etc", "--traces-uri"),
        (
            "episodes",
            [{"scenario": "../../../etc", "seed": 0, "status": "failed"}],
            "scenario name",
        ),
        ("episodes", "nonsense", "not a complete manifest"),
    ],
)
def test_a_crafted_manifest_is_refused_with_exit_2(tmp_path, written_run, field, value, says):
    _, out, _ = written_run
    meta = json.loads((out / "manifest.json").read_text())
    meta.update({field: value})
    if field == "episodes":
        meta["traces"] = "traces"
        if isinstance(value, list):  # the run's own list of what it was given, to match
            meta.update(scenarios=[e["scenario"] for e in value], seeds=[0])
    # whoever crafts a manifest with this user's key can seal it (as the run does), so the
    # checks behind the seal must refuse it too
    meta["seal"] = keyed_seal(meta)
    meta["sha256"] = seal(meta)
    crafted = tmp_path / "crafted"
    crafted.mkdir()
    (crafted / "manifest.json").write_text(json.dumps(meta))
    result = villagelab("score", str(crafted), cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert says in result.stderr and "Traceback" not in result.stderr


# --- user text on the terminal ---------------------------------------------------------------------
def test_markup_and_escape_sequences_in_a_users_file_are_shown_as_text(tmp_path):
    policy = tmp_path / "evil.yaml"
    policy.write_text(
        'sharing:\n  proactive: "[/][link=http://evil]x\\e[2J\\e]8;;http://evil\\a"\n'
    )
    result = villagelab("policy", "validate", str(policy), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "\x1b" not in result.stderr and "\a" not in result.stderr
    assert "[/][link=http://evil]" in result.stderr and "\\x1b[2J" in result.stderr
    assert "Traceback" not in result.stderr


def test_control_characters_in_a_file_name_never_reach_the_terminal_raw(tmp_path):
    policy = tmp_path / "a\x1b[2J\x1b]8;;evil\x07b.yaml"
    policy.write_text("sharing: [1, 2]\n")
    result = villagelab("policy", "validate", str(policy), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "a\\x1b[2J\\x1b]8;;evil\\x07b.yaml" in result.stderr


def test_an_overlong_value_is_cut_with_a_note_of_its_length(tmp_path):
    policy = tmp_path / "long.yaml"
    policy.write_text(f'sharing:\n  proactive: "{"A" * 5000}"\n')
    result = villagelab("policy", "validate", str(policy), cwd=tmp_path)
    assert result.returncode == 2
    assert "A" * 5000 not in result.stderr and "characters in all" in result.stderr


# --- the local Ray cluster -------------------------------------------------------------------------
HOLD = textwrap.dedent("""
    import sys
    from experiments.cli.main import cli
    try:
        cli.main(sys.argv[1:], standalone_mode=False)  # a real run; Ray stays up until exit
    except SystemExit:
        pass
    print("READY", flush=True)
    sys.stdin.readline()
""")


@pytest.mark.slow
def test_a_local_cluster_listens_on_loopback_only_and_refuses_a_client_without_its_token(tmp_path):
    import psutil

    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    driver = subprocess.Popen(
        [
            sys.executable,
            "-c",
            HOLD,
            "run",
            "--scenario",
            "public_fact",
            "--policy",
            str(ROOT / "policies" / "baseline.yaml"),
            "--seeds",
            "0-3",
            "--workers",
            "2",
            "--out",
            str(tmp_path / "out"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**env, "HOME": str(home)},
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        printed = []
        for line in driver.stdout:  # the run's own output, then READY while Ray is still up
            printed.append(line)
            if line.startswith("READY"):
                break
        assert printed and printed[-1].startswith("READY"), "".join(printed)
        family = [driver.pid] + [p.pid for p in psutil.Process(driver.pid).children(True)]
        listening = [
            c
            for c in psutil.net_connections(kind="inet")
            if c.pid in family and c.status in (psutil.CONN_LISTEN, psutil.CONN_NONE)
        ]
        names = {c.laddr.port: psutil.Process(c.pid).name() for c in listening}
        assert len(listening) >= 4, f"expected the GCS, raylet and workers: {names}"
        exposed = [(c.laddr, names[c.laddr.port]) for c in listening if c.laddr.ip not in LOOPBACK]
        assert exposed == [], f"listening beyond loopback: {exposed}"
        gcs_server = next(c for c in listening if names[c.laddr.port] == "gcs_server")
        gcs = gcs_server.laddr.port
        # the cluster's processes inherited the token from the driver's environment
        token = psutil.Process(gcs_server.pid).environ()["RAY_AUTH_TOKEN"]

        def attach(**extra: str) -> subprocess.CompletedProcess[str]:
            code = (
                f"import os, ray; ray.init(address='127.0.0.1:{gcs}'); "
                "print('ATTACHED', ray.get(ray.remote(lambda: os.getpid()).remote()))"
            )
            return subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
                env={**env, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", **extra},
            )

        for refused in (attach(), attach(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN="guess")):
            assert refused.returncode != 0 and "ATTACHED" not in refused.stdout
            assert "token" in refused.stderr.lower()
        # the same client with the cluster's token does attach: the refusal above is the
        # token's doing, not a wrong address
        allowed = attach(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token)
        assert "ATTACHED" in allowed.stdout, allowed.stderr
        assert not (home / ".ray").exists()  # the token was never written to disk
    finally:
        driver.stdin.close()
        try:
            driver.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(driver.pid, signal.SIGKILL)


# --- credentials never leave the process -----------------------------------------------------------
S3_KEY, S3_SECRET = "AKIDPLANTED7Q", "S3SECRETPLANTED9Z"
PG_PASSWORD, MLFLOW_PASSWORD = "PGPASSWORDPLANTED3", "MLFLOWPASSWORDPLANTED5"
PLANTED = (S3_KEY, S3_SECRET, PG_PASSWORD, MLFLOW_PASSWORD)


@pytest.fixture(scope="module")
def s3_endpoint(tmp_path_factory):
    """A real S3 endpoint on loopback (moto's server) with one bucket."""
    import pyarrow.fs as pafs

    port = free_port()
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("moto_server")), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    query = f"endpoint_override=127.0.0.1:{port}&scheme=http&region=us-east-1"

    def up() -> bool:
        try:
            fs, _ = pafs.FileSystem.from_uri(
                f"s3://{S3_KEY}:{S3_SECRET}@villagelab?{query}&allow_bucket_creation=true"
            )
            fs.create_dir("villagelab")
            return True
        except OSError:
            return False

    try:
        wait_until(up, 60, "moto's S3 server")
        yield f"s3://{S3_KEY}:{S3_SECRET}@villagelab/traces?{query}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def _files_holding(root: Path, secrets: tuple[str, ...]) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += [f"{path}: {s}" for s in secrets if s.encode() in data]
    return found


@pytest.mark.slow
def test_planted_credentials_are_found_nowhere_a_run_and_a_search_write(
    tmp_path, s3_endpoint, postgres, mlflow_server
):
    import optuna
    import pyarrow.fs as pafs
    from mlflow.tracking import MlflowClient

    pg_url = postgres.replace("villagelab@", f"villagelab:{PG_PASSWORD}@")
    tracking = mlflow_server.replace("http://", f"http://villager:{MLFLOW_PASSWORD}@")
    config = tmp_path / "tiny.yaml"
    config.write_text(
        "scenarios: [public_fact]\nseeds: 0-1\nconfirmation_seeds: 2\n"
        f"first: [{ROOT / 'policies' / 'careful.yaml'}]\n"
    )
    policy = str(ROOT / "policies" / "baseline.yaml")
    commands = [
        (
            "run",
            "--scenario",
            "public_fact",
            "--policy",
            policy,
            "--seeds",
            "0-1",
            "--out",
            str(tmp_path / "out"),
            "--workers",
            "2",
            "--traces-uri",
            s3_endpoint,
        ),
        (
            "score",
            str(tmp_path / "out"),
            "--traces-uri",
            s3_endpoint,
            "--json",
            str(tmp_path / "scored" / "card.json"),
        ),
        (
            "search",
            "--study",
            "planted",
            "--trials",
            "2",
            "--config",
            str(config),
            "--runs-dir",
            str(tmp_path / "runs"),
            "--storage",
            pg_url,
            "--tracking-uri",
            tracking,
            "--traces-uri",
            s3_endpoint,
            "--workers",
            "2",
        ),
        (
            "report",
            "--study",
            "planted",
            "--runs-dir",
            str(tmp_path / "runs"),
            "--storage",
            pg_url,
            "--tracking-uri",
            tracking,
        ),
        ("champion", "history", "--tracking-uri", tracking),
    ]
    found = []
    for command in commands:
        result = villagelab(*command, cwd=tmp_path)
        assert result.returncode in (0, 1), f"{command[0]}: {result.stderr[-3000:]}"
        found += [
            f"{command[0]} output: {s}" for s in PLANTED if s in result.stdout + result.stderr
        ]
    found += _files_holding(tmp_path, PLANTED)
    client = MlflowClient(tracking_uri=mlflow_server)
    experiment = client.get_experiment_by_name("planted")
    runs = client.search_runs([experiment.experiment_id])
    assert len(runs) >= 3  # a parent and two trials: the search really logged there
    for run in runs:
        text = json.dumps([run.data.params, run.data.tags])
        found += [f"MLflow run {run.info.run_name}: {s}" for s in PLANTED if s in text]
    for version in client.search_model_versions("name='villagelab-policy'"):
        text = json.dumps([version.tags, version.description, version.source])
        found += [f"model version {version.version}: {s}" for s in PLANTED if s in text]
    study = optuna.load_study(study_name="planted", storage=postgres)
    text = json.dumps([study.user_attrs, [t.user_attrs for t in study.trials]], default=str)
    found += [f"Optuna study: {s}" for s in PLANTED if s in text]
    fs, base = pafs.FileSystem.from_uri(s3_endpoint)
    stored = [
        f
        for f in fs.get_file_info(pafs.FileSelector(base, recursive=True))
        if f.type == pafs.FileType.File
    ]
    assert stored, "the workers wrote no traces to the S3 endpoint"
    assert found == [], "\n".join(found)


@pytest.mark.parametrize(
    ("flag", "uri"),
    [
        ("--tracking-uri", f"http://villager:{MLFLOW_PASSWORD}@127.0.0.1:{{port}}"),
        ("--storage", f"postgresql://villagelab:{PG_PASSWORD}@127.0.0.1:{{port}}/optuna"),
    ],
)
def test_an_unreachable_store_is_exit_2_with_its_address_masked(tmp_path, flag, uri):
    address = uri.format(port=free_port())  # nothing listens there
    result = villagelab(
        "search",
        "--study",
        "nowhere",
        "--trials",
        "1",
        "--serial",
        "--runs-dir",
        str(tmp_path / "runs"),
        flag,
        address,
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    assert redact(address) in result.stderr
    assert "Traceback" not in result.stderr
    assert not any(s in result.stdout + result.stderr for s in PLANTED)
