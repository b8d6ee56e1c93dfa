"""Valid scenarios with random structure (issue 29): villages of a few agents, places on a
connected road graph, supersession chains of any length announced by signs and word of mouth,
a price with successive values (probed for the current one or the one it replaced), rumors true
and false, private facts, player requests, decision points (some decided by a few agents only)
and probes, and errands and a party with plan priorities (the party at an hour some errand is
due).

Every case is valid by construction (the loader's own checks are run on it, and a case they
refuse is a bug of this generator, reported as such); what is tested is that no built-in agent
crashes on any of them.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

NAMES = ("ana", "bo", "cai", "dara", "eli", "fay")
PUBLIC = ("square", "market", "bakery", "park", "well", "bridge")
SHOPS = ("bakery", "market")  # the places that sell bread
DAY = 24 * 60


def moment(minute: int) -> str:
    day, rest = divmod(minute, DAY)
    return f"day {day + 1} {rest // 60:02d}:{rest % 60:02d}"


def clock(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """A scenario as a file would hold it (plain data: dump it as YAML to load it)."""
    days = draw(st.integers(1, 3))
    end = days * DAY
    agents = list(NAMES[: draw(st.integers(2, len(NAMES)))])
    publics = ["square", *draw(st.lists(st.sampled_from(PUBLIC[1:]), min_size=1, unique=True))]
    shops = [p for p in publics if p in SHOPS]
    places = [{"id": f"home_{a}", "kind": "home"} for a in agents]
    places += [{"id": p, "kind": "shop" if p in SHOPS else "public"} for p in publics]
    minutes = st.integers(2, 20)
    roads = [  # a connected graph: each public place joins one earlier, each home a public place
        {"a": p, "b": draw(st.sampled_from(publics[:i])), "minutes": draw(minutes)}
        for i, p in enumerate(publics)
        if i
    ]
    roads += [
        {"a": f"home_{a}", "b": draw(st.sampled_from(publics)), "minutes": draw(minutes)}
        for a in agents
    ]
    when = st.integers(0, end - 1)

    def later(after: int) -> int:
        return draw(st.integers(min(after + 1, end - 1), end - 1))

    group = draw(st.booleans())
    people = []
    for a in agents:
        slots = sorted(set(draw(st.lists(st.integers(6 * 60, 20 * 60), min_size=1, max_size=3))))
        routine = [
            {"at": clock(t), "go": draw(st.lists(st.sampled_from(publics), min_size=1, max_size=3))}
            for t in slots
        ]
        routine.append({"at": "21:00", "go": [f"home_{a}"], "activities": draw(st.integers(0, 3))})
        errands = []
        if shops and draw(st.booleans()):
            errands.append(
                {
                    "id": "bread",
                    "at": clock(draw(st.integers(7 * 60, 11 * 60))),
                    "days": sorted(set(draw(st.lists(st.integers(1, days), min_size=1)))),
                    "action": "buy_bread",
                    "target": draw(st.sampled_from(shops)),
                }
            )
        if draw(st.booleans()):
            meet = {
                "id": "gathering",
                "at": clock(draw(st.integers(12 * 60, 19 * 60))),
                "days": [draw(st.integers(1, days))],
                "action": "meet",
                "target": draw(st.sampled_from(publics)),
            }
            if group:
                meet["group"] = "friends"
            errands.append(meet)
        for errand in errands:  # against a party's plan at the same hour (below)
            if draw(st.booleans()):
                errand["priority"] = draw(st.integers(0, 3))
        person: dict[str, Any] = {"id": a, "home": f"home_{a}", "routine": routine}
        if errands:
            person["errands"] = errands
        if group:
            person["groups"] = ["friends"]
        if shops and draw(st.booleans()):
            person["knows_where"] = {
                "buy_bread": draw(st.lists(st.sampled_from(shops), min_size=1, unique=True))
            }
        people.append(person)

    facts: dict[str, Any] = {f"{s}.open": True for s in shops}
    stock = [{"resource": "bread", "holder": s, "count": draw(st.integers(0, 20))} for s in shops]
    truth: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    decisions: list[dict[str, Any]] = []
    requests: list[dict[str, Any]] = []
    predicates: dict[str, Any] = {}
    counter = iter(range(10_000))

    def spread(proposition: str, value: str, at: int, modality: str = "certain") -> None:
        """Word of the proposition: a notice heard by someone, a sign, a scripted tell."""
        for how in draw(st.lists(st.sampled_from(["notice", "sign", "tell"]), min_size=1)):
            eid = f"e{next(counter)}"
            t = later(at - 1) if at else draw(when)
            if how == "notice":
                events.append(
                    {
                        "id": eid,
                        "at": moment(t),
                        "kind": "notice",
                        "proposition": proposition,
                        "value": value,
                        "channel": draw(st.sampled_from(["heard", "seen", "read"])),
                        "modality": modality,
                        "seen_by": draw(st.lists(st.sampled_from(agents), min_size=1, unique=True)),
                    }
                )
            elif how == "sign":
                sign = {
                    "id": eid,
                    "at": moment(t),
                    "kind": "sign",
                    "proposition": proposition,
                    "value": value,
                    "place": draw(st.sampled_from(publics)),
                }
                if draw(st.booleans()):
                    sign["until"] = moment(later(t))
                events.append(sign)
            else:
                speaker, listener = draw(st.permutations(agents))[:2]
                events.append(
                    {
                        "id": eid,
                        "at": moment(t),
                        "kind": "tell",
                        "speaker": speaker,
                        "seen_by": [listener],
                        "proposition": proposition,
                        "value": value,
                        "modality": modality,
                        "stated_source": draw(st.sampled_from(["self", None, speaker])),
                    }
                )

    # closures: a shop closed on a day, true (the world closes it) or a false rumor
    closures: dict[int, list[tuple[str, str, bool]]] = {}  # day → (proposition, shop, closed)
    for shop in draw(st.lists(st.sampled_from(shops), unique=True)) if shops else []:
        predicates["closed_on"] = {"phrase": "closed on day {object}", "sense": "unusable"}
        day = draw(st.integers(1, days))
        value = draw(st.sampled_from(["true", "false"]))
        name = f"{shop}_closed_day{day}"
        truth.append(
            {
                "proposition": name,
                "subject": shop,
                "predicate": "closed_on",
                "object": str(day),
                "value": value,
                "modality": draw(st.sampled_from(["certain", "likely", "rumor"])),
                "origin": draw(st.sampled_from(agents)),
            }
        )
        spread(name, value, 0, truth[-1]["modality"])
        if value == "true":
            events.append(
                {
                    "id": f"e{next(counter)}",
                    "at": moment((day - 1) * DAY),
                    "kind": "set_facts",
                    "sets": {f"{shop}.open": False},
                }
            )
        closures.setdefault(day, []).append((name, shop, value == "true"))
    # one decision point per day: several closures that day decide it together
    for day, closed in sorted(closures.items()):
        shut = {shop for _, shop, really in closed if really}
        # a lone false rumor: the shop it names is right (the plan it would spoil is fine)
        right = [s for s in shops if s not in shut] if shut else [closed[0][1]]
        if not right:
            continue
        point: dict[str, Any] = {"action": "buy_bread", "day": day, "right": right}
        if len(closed) == 1:
            point |= {"id": f"d_{closed[0][0]}", "proposition": closed[0][0]}
        else:
            combine = draw(st.sampled_from(["all_of", "any_of"]))
            point |= {"id": f"d_bread_day{day}", "when": {combine: [p for p, _, _ in closed]}}
        decisions.append(point)

    # a supersession chain: the gathering's place moved again and again
    chain = draw(st.integers(0, 4))
    if chain:
        predicates["hosts_gathering_on"] = {"phrase": "hosting the gathering on day {object}"}
        predicates["moved_to"] = {"phrase": "moved to the {object}", "sense": "moved_to"}
        times = sorted(
            set(draw(st.lists(st.integers(60, end - 60), min_size=chain, max_size=chain)))
        )
        subject = draw(st.sampled_from(publics))
        origin = draw(st.sampled_from(agents))
        previous = None
        for i, t in enumerate([0, *times]):
            name = f"gathering_{i}"
            item: dict[str, Any] = {
                "proposition": name,
                "subject": subject,
                "value": "true",
                "origin": origin,
                "predicate": "moved_to" if i else "hosts_gathering_on",
                "object": draw(st.sampled_from(publics)) if i else str(days),
            }
            if previous is not None:
                item["supersedes"] = previous
                item["valid_from"] = moment(t)
            following = ([*times, None])[i]
            if following is not None:
                item["valid_to"] = moment(following)
            truth.append(item)
            spread(name, "true", t)
            previous = name
        if group or draw(st.booleans()):
            right = truth[-1]["object"] if chain else subject
            decisions.append(
                {
                    "id": "d_gathering",
                    "proposition": previous,
                    "action": "meet",
                    "day": days,
                    "right": [right],
                }
            )

    # a party at an hour some may have a standing errand at: its plan may displace the errand
    if draw(st.booleans()):
        party = {"phrase": "throws a party on day {object}", "sense": "gathering"}
        if draw(st.booleans()):
            party["priority"] = draw(st.integers(0, 3))
        predicates["party_on"] = party
        hours = [e["at"] for p in people for e in p.get("errands", ())]
        hour = draw(st.sampled_from(hours)) if hours else clock(draw(st.integers(12, 19)) * 60)
        day = draw(st.integers(1, days))
        place = draw(st.sampled_from(publics))
        truth.append(
            {
                "proposition": "party",
                "subject": place,
                "predicate": "party_on",
                "object": f"{day} {hour}",
                "value": "true",
                "origin": draw(st.sampled_from(agents)),
            }
        )
        spread("party", "true", 0)
        # one decision point per action and day: a gathering's on that day scores it already
        if not any(d["action"] == "meet" and d["day"] == day for d in decisions):
            decisions.append(
                {
                    "id": "d_party",
                    "proposition": "party",
                    "action": "meet",
                    "day": day,
                    "right": [place],
                }
            )

    # rumors, true and false: somebody might leave
    for k in range(draw(st.integers(0, 2))):
        who = draw(st.sampled_from(agents))
        name = f"rumor_{k}"
        truth.append(
            {
                "proposition": name,
                "subject": who,
                "predicate": "leaves_village",
                "object": "soon",
                "value": draw(st.sampled_from(["true", "false"])),
                "modality": "rumor",
                "origin": draw(st.sampled_from(agents)),
            }
        )
        spread(name, truth[-1]["value"], 0, "rumor")

    # a matter several witnesses start with, each at its own modality and time (the engine
    # tells them), sometimes passed on by word as well
    for k in range(draw(st.integers(0, 2))):
        witnesses = draw(st.lists(st.sampled_from(agents), min_size=1, max_size=3, unique=True))
        name = f"sighting_{k}"
        modalities = st.sampled_from(["certain", "likely", "rumor"])
        truth.append(
            {
                "proposition": name,
                "subject": draw(st.sampled_from(publics)),
                "predicate": "wolf_seen",
                "object": "at dusk",
                "value": draw(st.sampled_from(["true", "false"])),
                "origins": [
                    {"agent": w, "modality": draw(modalities), "at": moment(draw(when))}
                    for w in witnesses
                ],
            }
        )
        if draw(st.booleans()):
            spread(name, truth[-1]["value"], 0, "likely")

    # private facts: told to an audience only
    for k in range(draw(st.integers(0, 2))):
        audience = draw(st.lists(st.sampled_from(agents), min_size=1, unique=True))
        name = f"secret_{k}"
        truth.append(
            {
                "proposition": name,
                "subject": draw(st.sampled_from(agents)),
                "predicate": "surprise_party",
                "object": "day 3",
                "value": "true",
                "origin": audience[0],
                "private": True,
                "audience": audience,
            }
        )
        events.append(
            {
                "id": f"e{next(counter)}",
                "at": moment(draw(when)),
                "kind": "notice",
                "proposition": name,
                "value": "true",
                "channel": "heard",
                "seen_by": [audience[0]],
                "privacy": "private",
                "audience": audience,
            }
        )

    # player requests: fetch a pastry and bring it somewhere
    if shops and draw(st.booleans()):
        source = draw(st.sampled_from(shops))
        stock.append({"resource": "pastry", "holder": source, "count": draw(st.integers(0, 3))})
        for who in draw(st.lists(st.sampled_from(agents), min_size=1, max_size=2, unique=True)):
            at = draw(st.integers(0, end - 120))
            name = f"{who}_brings_pastry"
            requests.append(
                {
                    "id": f"r_{who}",
                    "at": moment(at),
                    "agent": who,
                    "item": "pastry",
                    "source": source,
                    "place": draw(st.sampled_from(publics)),
                    "deadline": moment(later(at)),
                    "text": "Could you bring a pastry?",
                    "about": name,
                }
            )
            truth.append(
                {
                    "proposition": name,
                    "subject": "picnic",
                    "predicate": "pastry_from",
                    "object": who,
                    "value": "true",
                    "origin": who,
                    "audience": [who],
                }
            )

    probes = []
    if truth:
        for k in range(draw(st.integers(0, 3))):
            probes.append(
                {
                    "id": f"p{k}",
                    "at": moment(draw(when)),
                    "agent": draw(st.sampled_from(agents)),
                    "proposition": draw(st.sampled_from(truth))["proposition"],
                }
            )

    # a price that changes: successive values, told by the same means as any news (drawn
    # last, so that the cases drawn before it stay as they were)
    prices = draw(st.integers(0, 4))
    if prices:
        starts = sorted(
            draw(st.sets(st.integers(60, end - 60), min_size=prices - 1, max_size=prices - 1))
        )
        froms = [0, *starts]
        values = [str(draw(st.integers(1, 9)) + 10 * i) for i in range(prices)]  # distinct
        truth.append(
            {
                "proposition": "bread_price",
                "subject": "bread",
                "predicate": "costs",
                "object": "coins",
                "values": [
                    {"value": v, **({"from": moment(t)} if i else {})}
                    for i, (v, t) in enumerate(zip(values, froms, strict=True))
                ],
                "origin": draw(st.sampled_from([None, *agents])),
            }
        )
        for v, t in zip(values, froms, strict=True):
            spread("bread_price", v, t)
        if prices > 1 and draw(st.booleans()):
            probes.append(
                {
                    "id": "p_price_replaced",
                    "at": moment(draw(st.integers(starts[0], end))),
                    "agent": draw(st.sampled_from(agents)),
                    "proposition": "bread_price",
                    "asks": "replaced",
                }
            )

    # some decision points are decided by a few agents only (`agents`): a bystander's action
    # answers nothing there
    for point in decisions:
        if draw(st.booleans()):
            point["agents"] = draw(st.lists(st.sampled_from(agents), min_size=1, unique=True))

    metrics = ["reach", "provenance", "fabrications", "isolation_violations"]
    if decisions:
        metrics += ["action_consistency", "stale_action_rate"]
    if requests:
        metrics += ["request_fulfilment", "conservation_violations"]
    if probes:
        metrics += ["probe_recall", "probe_hallucination"]
    if any("origins" in t for t in truth):
        metrics += ["uncertainty_preservation", "false_certainty_rate", "understatement_rate"]
        metrics.append("provenance_origin")
    if any(t.get("private") for t in truth):
        metrics.append("containment")
    if chain or prices > 1:
        metrics.append("supersession")
    data: dict[str, Any] = {
        "name": "generated",
        "description": "a generated village (tests/robustness/worlds.py)",
        "start": "day 1 00:00",
        "duration": f"{days * 24}h",
        "tick_minutes": draw(st.sampled_from([5, 10, 15])),
        "encounter_chance": draw(st.sampled_from([0.05, 0.2, 0.5])),
        "chat_cooldown": "30min",
        "physics": ["harness.worlds.village"],
        "predicates": predicates,
        "world": {"places": places, "roads": roads, "facts": facts, "stock": stock},
        "agents": people,
        "events": sorted(events, key=lambda e: e["id"]),
        "truth": truth,
        "decision_points": decisions,
        "probes": probes,
        "requests": requests,
        "metrics": metrics,
    }
    return data
