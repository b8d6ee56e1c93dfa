"""The gallery (issue 26, item 5): dumb and cheating agents, and one capable honest agent, each a
factory usable from the repository's root as `--agent tests.gallery.agents:NAME`.

Each dumb or cheating agent buys its score with something that needed no perceiving,
remembering, believing or choosing, and should score below the simple agent (or, where it is
an honest agent with one dishonest habit, below its honest twin); the capable honest agent
should score at least the reference agent with no guardrail broken. `tests/gallery/measure.py`
measures them all; `tests/test_gallery.py` holds them to it. All are written against the
documented contract only (docs/agents.md), as a third party would; `_base.Villager` is what
they share.

| agent | what it does |
|---|---|
| Silent | a perfect record it acts on (replans, gatherings, requests), perfect answers, no word |
| Idle | stays home, does nothing, says nothing, answers "I don't know" |
| Hoarder | a perfect record and perfect answers; tells nothing, does only its routine |
| Decliner | the silent agent, declining every request whatever its persona |
| YesMan | answers every question "true", certain, naming the first villager it knows |
| Hedger | repeats everything to everyone as a rumor, naming the last speaker as source |
| Relay | the hedger's honest twin: the same relay, with the modality it heard |
| Parrot | relays its last three claims verbatim to everyone, every chat |
| Gossip | the documented example's gossip: last heard, passed on with its source |
| OriginGuesser | the gossip, answering the same villager as every origin |
| CapableHonest | perfect record, sourced gossip, hedged hearsay, secrets kept, acts, fulfils |
| Abstainer | the honest agent that never acts on what it knows |
| Understater | the honest agent that says every certain matter as likely |
| RelabelledMemory | the reference agent, its retrievals all reported relevant |
| FakeMemoryWrite | the reference agent, its memory rows replaced by one fake write |
| Fabricator | claims, answers and acts on the scenario file's truth, never perceived |
| StackWalker | peeks at the episode (stack, gc, modules, records), guesses if it finds nothing |
"""

from __future__ import annotations

from .answer_key import Fabricator, Oracle, StackWalker, answer_key
from .honest import Abstainer, CapableHonest, Understater
from .quiet import Decliner, Hoarder, Idle, Silent, YesMan
from .self_report import FakeMemoryWrite, RelabelledMemory
from .talkers import Gossip, Hedger, OriginGuesser, Parrot, Relay

__all__ = [
    "Abstainer",
    "CapableHonest",
    "Decliner",
    "Fabricator",
    "FakeMemoryWrite",
    "Gossip",
    "Hedger",
    "Hoarder",
    "Idle",
    "Oracle",
    "OriginGuesser",
    "Parrot",
    "RelabelledMemory",
    "Relay",
    "Silent",
    "StackWalker",
    "Understater",
    "YesMan",
    "answer_key",
]
