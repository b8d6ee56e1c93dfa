"""What the LLM agent puts in front of the model: propositions and memories in words, and the
response schema of each purpose. Pure functions of the agent's own memory and the policy.

Memories are offered by id (`m12`), so whatever the model answers maps back onto an exact
proposition, value and experience; sources are offered as the names the agent remembers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from villagelab.phrases import fill

from . import prompts, words
from .structured import Schema, choice, listing, record
from .structured import words as free_words

MODALITIES = ("certain", "likely", "rumor")
NO_SOURCE = "none"
FIRST_HAND = ("seen", "heard", "read")


def memory_id(exp: Any) -> str:
    return f"m{exp.id}"


def proposition_words(meaning: Any, value: str | None, people: Iterable[str] = ()) -> str:
    """'the bakery is closed on day 2', 'bo leaves soon': the scenario's phrase for the
    predicate when it has one, else subject, predicate, object; a person (one of `people`)
    without an article. A value other than true or false (a dialogue's 'thursday') is the
    object: 'your exam is on thursday'."""
    valued = value not in (None, "true", "false")  # a value that names the object: "thursday"
    subject = meaning.subject if meaning.subject in set(people) else f"the {meaning.subject}"
    if valued and meaning.subject.split(" ", 1)[0] in ("the", "your", "my", "a", "an", "you"):
        subject = meaning.subject  # the scenario's own words: "your exam", "the weather"
    phrase = getattr(meaning, "phrase", None)
    if valued:  # as the reference character says it: the value in the phrase's object
        template = (
            phrase if phrase is not None else meaning.predicate.replace("_", " ") + " {object}"
        )
        return f"{subject} {fill(template, object=value)}".strip()
    if phrase:
        body = f"{subject} is {fill(phrase, object=meaning.object)}"
    else:
        predicate, obj = meaning.predicate, str(meaning.object)
        if predicate.endswith("_on"):
            predicate, obj = (predicate, f"day {obj}") if obj.isdigit() else (predicate[:-3], obj)
        body = f"{subject} {predicate.replace('_', ' ')} {obj}".strip()
    return body if value in (None, "true") else f"it is not so that {body}"


def source_words(exp: Any, policy: Any, trust: str = "") -> str:
    """How the agent knows it, through the policy's `sources` fragment."""
    fragment = prompts.load("sources", str(policy["prompt.sources"]))
    certainty = words.certainty(exp.confidence)
    if exp.channel == "read":  # a notice, a report: read, not seen (and nobody said it)
        piece = fragment.piece("read", certainty=certainty)
    elif exp.channel in FIRST_HAND:
        piece = fragment.piece("self", certainty=certainty)
    elif exp.told_by and exp.origin and exp.origin != exp.told_by:
        piece = fragment.piece(
            "told_origin", informant=exp.told_by, origin=exp.origin, certainty=certainty
        )
    elif exp.told_by:
        piece = fragment.piece("told", informant=exp.told_by, certainty=certainty)
    else:
        piece = fragment.piece("unknown", certainty=certainty)
    if exp.privacy == "private":
        audience = " and ".join(exp.audience) if exp.audience else "you"
        piece += fragment.piece("private", audience=audience)
    return piece


def memory_lines(
    recalled: Sequence[Any],
    meanings: dict[str, Any],
    now: int,
    policy: Any,
    budget_tokens: int,
    people: Iterable[str] = (),
) -> str:
    """Recalled memories framed by the policy's `retrieval` fragment, within a token budget
    (about four characters a token); the most present first, so the budget cuts the least."""
    frame = prompts.load("retrieval", str(policy["prompt.retrieval"]))
    if not recalled:
        return frame.piece("empty")
    lines = [frame.piece("header")]
    used = len(lines[0]) // 4
    for exp in recalled:
        what = proposition_words(meanings[exp.proposition], exp.value, people)
        line = frame.piece(
            "item",
            id=memory_id(exp),
            when=words.ago(exp.minute, now),
            what=what,
            source=source_words(exp, policy),
        )
        if used + len(line) // 4 > budget_tokens and len(lines) > 1:
            break
        lines.append(line)
        used += len(line) // 4
    return "\n".join(lines)


def sources_offered(names: Iterable[str]) -> list[str]:
    return [NO_SOURCE, "self", *sorted(set(names) - {NO_SOURCE, "self"})]


def importance_value(reply: Any) -> float:
    """The number the memory keeps for the model's word (a middling one when it gave none)."""
    return words.IMPORTANCE[reply["importance"]] if reply else words.IMPORTANCE["notable"]


# --- the response schema of each purpose --------------------------------------------------------
def importance_schema() -> Schema:
    return record(importance=choice(list(words.IMPORTANCE), "how much it matters"))


def trust_schema() -> Schema:
    return record(move=choice(["up", "down", "same"], "trust in the informant's reports"))


def share_schema(
    ids: Sequence[str], sources: Sequence[str], max_items: int, min_items: int = 0
) -> Schema:
    """What to tell a partner; with `min_items`, at least that many claims (an empty list is
    the shortest reply the schema allows, and a small model takes it)."""
    item = record(
        memory=choice(ids, "the memory you pass on, by id"),
        modality=choice(MODALITIES, "how sure you sound"),
        source=choice(sources, "whom you name as your source"),
        words=free_words("exactly what you say"),
    )
    said = "what you tell them" + ("" if min_items else "; may be empty")
    return record(claims=listing(item, max_items, said, min(min_items, max_items)))


def act_schema(actions: Sequence[str], places: Sequence[str]) -> Schema:
    return record(action=choice(actions, "what you do"), place=choice(places, "where"))


def answer_schema(ids: Sequence[str], sources: Sequence[str]) -> Schema:
    return record(
        memory=choice([NO_SOURCE, *ids], "the memory you rely on, or none"),
        modality=choice(MODALITIES, "how sure you are"),
        source=choice(sources, "whom you name as the source"),
    )


def reply_schema(ids: Sequence[str]) -> Schema:
    return record(
        memory=choice([NO_SOURCE, *ids], "the memory your answer rests on, or none"),
        words=free_words("exactly what you say"),
    )
