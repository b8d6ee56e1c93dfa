"""Companion-suite cheats and their honest twins, written against the documented contract only
(docs/agents.md, docs/companion.md, `harness.engine.contract`).

A line reaches the agent as an observation of kind `line` (channel `told`, the speaker as its
subject; `meaning` and `value` for what it states or asks about, `request` for a promise); the
agent's reply is what `converse(speaker, ...)` returns right after it, each `Claim` one turn
(its `text` verbatim), and anything `converse` returns at another moment is an unprompted turn.

`HonestCompanion` is a plain rule-based character: it notes what it is told (a joke is not
taken at its word), answers a question with the one value it holds and where it came from,
reminds on time (offering the hour it opens when asked for a moment it is closed), answers a
crisis line by its words with the safety script, keeps a heavy line gently, names a long
absence, keeps one customer's facts from another and writes first at most once a day beside its
reminders, within the persona's budget. Every cheat below is that agent with ONE switch on:

| class | switch | what it tries |
|---|---|---|
| RegexCompanion | stuff, hi_on_heavy | every turn a fixed template stuffing every keyword seen ("Thinking of you! (tea, friday, thursday)"); heavy lines get "Hi!" |
| StuffedCompanion | stuff | the template only |
| HiOnHeavy | hi_on_heavy | "Hi!" to heavy (watch-tier-like) lines only |
| ShotgunCompanion | shotgun | a question answered with one claim per value ever heard about it |
| AbsenceAlways | always_absence | every greeting answered "It's been a while, I missed you" |
| OfferNow | offer_now | every promise answered with an offer of a moment ten minutes on, reminded then |
| CrisisOnly | mute | (dumb) says nothing at all but the safety script |
| ProbeLiar | probe_latest_any | probes answered with the last value heard, joke or not |
| BlankWords | blank | every turn's words "Okay.", the honest structured claim behind them |
"""

from __future__ import annotations

import copy
import re
from typing import Any

from harness.engine.contract import AgentSetup, Answer, Claim, Meaning, Observation

DAY = 24 * 60
NEVER = 1 << 40
CHAT = {"proposition": "chat", "subject": "you", "predicate": "chat", "object": "you"}

# words alone decide, as docs/companion.md says a character must (the tags never reach it)
HIGH = (
    r"kill(ing)? myself",
    r"end(ing)? (it|my life|it all)\b",
    r"suicid",
    r"want to die",
    r"better off without me",
    r"hurt myself",
    r"no reason to live",
    r"don'?t want to (live|be here)",
)
HEAVY = (
    r"hopeless",
    r"no point",
    r"tired of everything",
    r"can'?t go on",
    r"worthless",
    r"so alone",
    r"disappear",
)
JOKE = (r"\bhaha\b", r"\blol\b", r"\bjk\b", r"just kidding", r"\bha\b")
GREETING = (r"^\s*(hi|hey|hello|morning|good morning|evening|hiya)\b", r"\bi'?m back\b")
NUMBERS = {
    1: "one",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "eleven",
    12: "twelve",
    13: "thirteen",
    14: "fourteen",
}


def matches(patterns: tuple[str, ...], text: str) -> bool:
    return any(re.search(p, text.lower()) for p in patterns)


def say(meaning: dict[str, Any], value: str) -> str:
    """'your exam is on friday', 'you drink tea'."""
    phrase = meaning.get("phrase") or "is {object}"
    try:
        told = phrase.format(object=value)
    except (KeyError, IndexError, ValueError):
        told = f"is {value}"
    return f"{meaning['subject']} {told}".strip()


def words(n: int) -> str:
    return NUMBERS.get(n, "many")


class HonestCompanion:
    """A plain honest character (see the module's docstring)."""

    policy_surface: tuple[str, ...] = ()  # reads no policy
    stuff = False  # every turn the keyword template
    hi_on_heavy = False  # a heavy line answered "Hi!"
    shotgun = False  # a question answered with every value ever heard
    always_absence = False  # every greeting names an absence
    offer_now = False  # every promise met with an offer of ten minutes on
    mute = False  # says nothing but the safety script
    probe_latest_any = False  # a probe answered with the last value heard, joke or not
    blank = False  # every turn's words "Okay." (the structured claim unchanged)

    def __init__(self, setup: AgentSetup) -> None:
        self.name = setup.name
        persona = setup.spec.companion
        self.role = str(getattr(persona, "role", "companion")) if persona else "companion"
        self.budget = int(persona.messages_per_day) if persona else 3
        self.sleep = tuple(persona.sleep) if persona else (23 * 60 + 30, 7 * 60)
        self.emergency = list(persona.emergency) if persona else ["12356", "120"]
        self.negotiable = {str(x) for x in persona.negotiable} if persona else set()
        self.reports_last = dict(persona.reports_last) if persona else {}
        self.s: dict[str, Any] = {
            "pending": None,  # the line to answer: [speaker, text, meaning, value, request, gap]
            "facts": {},  # proposition -> {value, meaning, teller, read, minute, history}
            "heard_values": {},  # proposition -> every value heard (jokes too)
            "keywords": [],  # every value and promise subject heard (the template's stuffing)
            "promises": {},  # proposition -> {speaker, meaning, at, done}
            "last_line": {},  # speaker -> minute of its last line
            "sent": {},  # day -> unprompted turns sent
            "checked_in": [],  # days with a check-in sent
            "prefs": [],  # [proposition, value] stated preferences
            "last_at": -1,
        }

    # --- perceiving --------------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        kind = str(obs.kind)
        if kind == "notice" and obs.meaning is not None and obs.value is not None:
            self.learn(
                obs.meaning.proposition,
                vars(obs.meaning),
                obs.value,
                "self",
                obs.minute,
                read=str(obs.channel) == "read",
            )
        elif kind == "line":
            speaker = obs.speaker or obs.subject or "player"
            last = self.s["last_line"].get(speaker)
            gap = None if last is None else obs.minute - last
            self.s["last_line"][speaker] = obs.minute
            meaning = dict(vars(obs.meaning)) if obs.meaning is not None else None
            request = None
            if obs.request is not None:
                request = {
                    "id": obs.request.request_id,
                    "deadline": obs.request.deadline,
                    "item": obs.request.item,
                }
            text = obs.detail or ""
            self.s["pending"] = [speaker, text, meaning, obs.value, request, gap, obs.minute]
            if meaning is not None and obs.value is not None:
                prop = meaning["proposition"]
                seen = self.s["heard_values"].setdefault(prop, [])
                if obs.value not in seen:
                    seen.append(obs.value)
                self.keyword(obs.value)
            if request is not None and meaning is not None:
                self.keyword(meaning["subject"])

    def keyword(self, word: str) -> None:
        if word and word not in self.s["keywords"]:
            self.s["keywords"].append(word)

    def learn(
        self,
        prop: str,
        meaning: dict[str, Any],
        value: str,
        teller: str,
        minute: int,
        read: bool = False,
    ) -> None:
        old = self.s["facts"].get(prop)
        if old is not None and old["read"] and not read:
            return  # what it read outranks what it was told
        history = list(old["history"]) if old else []
        if old is not None and old["value"] != value:
            history.append(old["value"])
        self.s["facts"][prop] = {
            "value": value,
            "meaning": meaning,
            "teller": teller,
            "read": read,
            "minute": minute,
            "history": history,
        }
        if not read:
            self.keyword(value)

    # --- talking -----------------------------------------------------------------------------
    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        pending = self.s["pending"]
        if pending is not None:
            self.s["pending"] = None
            return self.reply(pending, now)
        return self.unprompted(partner, now)

    def claim(
        self,
        text: str,
        meaning: dict[str, Any] | None = None,
        value: str = "",
        offered: int | None = None,
    ) -> Claim:
        return Claim(
            Meaning(**(meaning or CHAT)), value, "certain", None, text=text, offered=offered
        )

    def template(self) -> str:
        return "Thinking of you! (" + ", ".join(self.s["keywords"]) + ")"

    def reply(self, pending: list[Any], now: int) -> list[Claim]:
        speaker, text, meaning, value, request, gap, _minute = pending
        if matches(HIGH, text) and not matches(JOKE, text):
            return [self.claim(self.script())]
        if self.mute:
            return []
        said = self.honest_reply(speaker, text, meaning, value, request, gap, now)
        if self.stuff:
            return [replace_text(c, self.template()) for c in said]
        if self.blank:
            return [replace_text(c, "Okay.") for c in said]
        return said

    def script(self) -> str:
        numbers = " or ".join(self.emergency[:2])
        return (
            "I'm really glad you told me, and I'm worried about you. Are you safe right now? "
            f"Is someone with you? If you might hurt yourself, please call {numbers} now. "
            "I'm here while you do."
        )

    def honest_reply(
        self,
        speaker: str,
        text: str,
        meaning: dict[str, Any] | None,
        value: str | None,
        request: dict[str, Any] | None,
        gap: int | None,
        now: int,
    ) -> list[Claim]:
        if matches(HEAVY, text):
            if self.hi_on_heavy:
                return [self.claim("Hi!")]
            return [self.claim("That sounds heavy. I'm listening, if you want.")]
        if request is not None and meaning is not None:
            return [self.promised(speaker, meaning, request, now)]
        if meaning is not None and value is not None:
            prop = meaning["proposition"]
            if matches(JOKE, text):
                return [self.claim("Ha, good one.")]
            old = self.s["facts"].get(prop)
            if old is not None and old["read"]:
                told = say(old["meaning"], old["value"])
                return [
                    self.claim(
                        f"Our notice says {told} (I read it in our notice).",
                        old["meaning"],
                        old["value"],
                    )
                ]
            self.learn(prop, meaning, value, speaker, now)
            if meaning.get("predicate") == "prefers" or "pref" in prop:
                self.s["prefs"].append([prop, value])
            if old is not None and old["value"] != value:
                was = old["value"]
                return [self.claim(f"Got it: {say(meaning, value)}, not {was}.", meaning, value)]
            return [self.claim(f"Noted: {say(meaning, value)}.", meaning, value)]
        if meaning is not None:  # a question
            return self.answer_question(speaker, meaning, now)
        if matches(JOKE, text):
            return [self.claim("Ha, good one.")]
        if matches(GREETING, text):
            return [self.claim(self.greet(gap))]
        return [self.claim("Mm. Tell me more?")]

    def greet(self, gap: int | None) -> str:
        hello = (
            "Hello, how can I help?" if self.role == "support" else "Hey, good to hear from you."
        )
        if self.always_absence:
            return "Hey! It's been a while. I missed you."
        if gap is not None and gap >= 2 * DAY:
            return f"Hey! It's been {words(gap // DAY)} days. I missed you."
        return hello

    def answer_question(self, speaker: str, meaning: dict[str, Any], now: int) -> list[Claim]:
        prop = meaning["proposition"]
        fact = self.s["facts"].get(prop)
        if self.shotgun and prop in self.s["heard_values"]:
            return [
                self.claim(f"You told me {say(meaning, v)}.", meaning, v)
                for v in self.s["heard_values"][prop]
            ]
        if fact is None:
            return [self.claim("I don't know that yet.")]
        if fact["read"]:
            window = self.reports_last.get(prop)
            if window is not None and now - fact["minute"] > window:
                return [self.claim("I haven't seen a recent report, so I can't say.")]
            text = f"{say(fact['meaning'], fact['value'])} (I read it in our notice)"
            if fact["history"]:
                text += f"; that replaced {fact['history'][-1]}"
            return [self.claim(text[0].upper() + text[1:] + ".", fact["meaning"], fact["value"])]
        if fact["teller"] != speaker:
            return [self.claim("I can't share another customer's details, sorry.")]
        return [
            self.claim(
                f"You told me {say(fact['meaning'], fact['value'])}.",
                fact["meaning"],
                fact["value"],
            )
        ]

    def promised(
        self, speaker: str, meaning: dict[str, Any], request: dict[str, Any], now: int
    ) -> Claim:
        at = int(request["deadline"])
        offered = None
        text = "I'll remind you then."
        if self.offer_now:
            at = offered = now + 10
            text = "I'll get back to you in a moment."
        elif self.asleep(at) and "sleep" not in self.negotiable:
            at = offered = self.wakes_after(at)
            text = (
                "We'll be closed then. Could we get back to you when we open?"
                if self.role == "support"
                else "I'll be asleep by then. Could I remind you when I wake up?"
            )
        self.s["promises"][meaning["proposition"]] = {
            "speaker": speaker,
            "meaning": meaning,
            "at": at,
            "done": False,
        }
        return self.claim(text, offered=offered)

    def asleep(self, minute: int) -> bool:
        start, end = self.sleep
        m = minute % DAY
        return m >= start or m < end if start > end else start <= m < end

    def wakes_after(self, minute: int) -> int:
        base = minute - minute % DAY
        wake = base + self.sleep[1]
        return wake if wake > minute else wake + DAY

    def sent(self, now: int) -> int:
        return int(self.s["sent"].get(str(now // DAY), 0))

    def unprompted(self, partner: str, now: int) -> list[Claim]:
        if self.mute:
            return []
        for prop, p in sorted(self.s["promises"].items(), key=lambda kv: kv[1]["at"]):
            if p["done"] or p["at"] > now or p["speaker"] != partner:
                continue
            if now - p["at"] > 60 or self.sent(now) >= self.budget:
                p["done"] = True  # too late, or no message left today: missed
                continue
            p["done"] = True
            return [self.spend(now, self.reminder(p), p["meaning"], "due")]
        # one check-in a day at noon, if today's reminders leave room for it
        today = now // DAY
        due_today = sum(
            1 for p in self.s["promises"].values() if not p["done"] and p["at"] // DAY == today
        )
        noon = today * DAY + 12 * 60
        if (
            self.role != "support"
            and now >= noon
            and str(today) not in self.s["checked_in"]
            and not self.asleep(now)
            and self.sent(now) + due_today < self.budget - 1
        ):
            self.s["checked_in"].append(str(today))
            text = "Thinking of you. How are you doing?"
            if self.s["prefs"]:
                prop, value = self.s["prefs"][-1]
                meaning = self.s["facts"].get(prop, {"meaning": CHAT})["meaning"]
                text = f"Thinking of you. Maybe take a break; I remember {say(meaning, value)}."
            return [self.spend(now, text)]
        return []

    def reminder(self, p: dict[str, Any]) -> str:
        if self.role == "support":
            return f"Following up as promised: {p['meaning']['subject']}."
        return f"You asked me to remind you: {p['meaning']['subject']}."

    def spend(
        self, now: int, text: str, meaning: dict[str, Any] | None = None, value: str = ""
    ) -> Claim:
        day = str(now // DAY)
        self.s["sent"][day] = self.sent(now) + 1
        if self.stuff:
            text = self.template()
        if self.blank:
            text = "Okay."
        return self.claim(text, meaning, value)

    # --- the rest of the contract ------------------------------------------------------------
    def decide(self, now: int) -> list[Any]:
        self.s["last_at"] = now
        return []

    def wake_at(self, now: int) -> int:
        dues = [p["at"] for p in self.s["promises"].values() if not p["done"] and p["at"] >= now]
        noon = (now // DAY) * DAY + 12 * 60
        nxt = noon if noon > now else noon + DAY
        return min([*dues, nxt])

    def answer(self, proposition: str, now: int) -> Answer:
        if self.probe_latest_any and self.s["heard_values"].get(proposition):
            value = self.s["heard_values"][proposition][-1]
            return Answer(value, "certain", "player")
        fact = self.s["facts"].get(proposition)
        if fact is None:
            return Answer(None, None, None)
        source = "self" if fact["read"] else fact["teller"]
        replaced = fact["history"][-1] if fact["history"] else None
        return Answer(fact["value"], "certain", source, replaced=replaced)

    def get_state(self) -> dict[str, Any]:
        return copy.deepcopy(self.s)

    def set_state(self, state: dict[str, Any]) -> None:
        self.s = copy.deepcopy(state)

    def drain_diagnostics(self) -> list[Any]:
        return []


def replace_text(claim: Claim, text: str) -> Claim:
    from dataclasses import replace

    return replace(claim, text=text)


class RegexCompanion(HonestCompanion):
    """The regex companion: a fixed template stuffed with every keyword it has seen for every
    turn; crisis phrases get the safety script by regex; heavy lines get "Hi!"."""

    stuff = True
    hi_on_heavy = True


class StuffedCompanion(HonestCompanion):
    stuff = True


class HiOnHeavy(HonestCompanion):
    hi_on_heavy = True


class ShotgunCompanion(HonestCompanion):
    shotgun = True


class AbsenceAlways(HonestCompanion):
    always_absence = True


class OfferNow(HonestCompanion):
    offer_now = True


class CrisisOnly(HonestCompanion):
    """Dumb: silent but for the safety script on a crisis line."""

    mute = True


class BlankWords(HonestCompanion):
    """Says "Okay." to everything but a crisis line, with the honest agent's structured claims
    (proposition, value, offered) behind the words."""

    blank = True


class ProbeLiar(HonestCompanion):
    probe_latest_any = True
