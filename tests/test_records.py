"""Records made with `quick_init` are the records the dataclass itself would make."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError, asdict, dataclass, fields, replace

import pytest

from harness.engine.contract import Channel, Observation, ObservationKind
from harness.engine.diagnostics import MemoryOp, StateSample
from harness.engine.records import quick_init


class Checked:
    def __post_init__(self) -> None:
        if self.minute < 0:  # type: ignore[attr-defined]
            raise ValueError("minute")


@dataclass(frozen=True)
class Plain(Checked):
    minute: int
    kind: str
    detail: str | None = None
    tags: tuple[str, ...] = ()


@quick_init
@dataclass(frozen=True)
class Quick(Checked):
    minute: int
    kind: str
    detail: str | None = None
    tags: tuple[str, ...] = ()


@pytest.mark.parametrize(
    "args, kwargs",
    [((1, "a"), {}), ((1,), {"kind": "b", "tags": ("x",)}), ((), {"minute": 2, "kind": "c"})],
)
def test_a_quick_record_equals_the_plain_one(args, kwargs):
    plain, quick = Plain(*args, **kwargs), Quick(*args, **kwargs)
    assert asdict(plain) == asdict(quick)
    assert list(vars(quick)) == [f.name for f in fields(Quick)]  # the fields in their order
    assert repr(quick) == repr(plain).replace("Plain", "Quick")
    assert replace(quick, kind="z").kind == "z"
    assert pickle.loads(pickle.dumps(quick)) == quick
    with pytest.raises(FrozenInstanceError):
        quick.kind = "y"  # type: ignore[misc]


def test_a_quick_record_refuses_what_the_plain_one_refuses():
    for bad in [((), {}), ((1, "a", None, (), 5), {}), ((1,), {"kind": "a", "nope": 1})]:
        with pytest.raises(TypeError):
            Plain(*bad[0], **bad[1])
        with pytest.raises(TypeError):
            Quick(*bad[0], **bad[1])
    with pytest.raises(ValueError):
        Quick(-1, "a")  # __post_init__ still runs


def test_the_contracts_records_coerce_and_compare_as_before():
    obs = Observation("chat", 3, 4, "heard", "a0002")
    assert obs.kind is ObservationKind.CHAT and obs.channel is Channel.HEARD
    assert obs == Observation(ObservationKind.CHAT, 3, 4, Channel.HEARD, "a0002")
    with pytest.raises(ValueError):
        Observation("shout", 3, 4, "heard", "a0002")
    assert MemoryOp(1, 0, "a", "write").size is None
    assert StateSample(1, 0, "a", "valence", 0.5) == StateSample(1, 0, "a", "valence", 0.5)


def test_quick_init_takes_plain_fields_only():
    @dataclass(frozen=True, slots=True)
    class Slotted:
        minute: int

    with pytest.raises(TypeError):
        quick_init(Slotted)
