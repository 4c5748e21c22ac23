"""One club evening: sign-up, check-in at the slot, teams, rounds, results.

The life of an event: ``signup`` (people sign up, alone or naming a
partner; from ``checkin_from`` on they check in), ``running`` (from the
slot's start or the host's word: teams are formed from who checked in and
the rounds are played one after another), ``finished``. Times are passed in
(``now``: the runtime's clock).

A round's games are handed out by ``next_games(present, now)``: each says
who sits where. A player that is not present (not connected when the game
is set up, or a connected bot that does not play the event's time control:
``refused`` says why, for the log) gets a computer in their seat if the
host allows it; if not, their team forfeits that game (both teams short:
the game counts as a draw). ``result`` takes a game's BPGN result; once every game of the round
is in, the next round is paired (Swiss, from the standings so far) or the
event is finished. A game that could not be started (a player did not take
the seat) is handed out once more; failing again it counts as a draw.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Literal

import attrs

from ..config.specs import TimeControl
from ..core.model import Seat
from ..core.model import Team as Side
from ..lobby.identity import COMPUTER, Identity
from .pairings import Pairing, round_robin, swiss
from .standings import SCORES, Match, Row, points, standings
from .teams import Entrant, Formation, Team, form_teams

EventState = Literal["signup", "running", "finished"]
Format = Literal["round-robin", "swiss"]
#: Players one event takes at most.
MAX_PLAYERS = 64
#: Attempts a game gets when a seat stays empty before it counts as a draw.
ATTEMPTS = 2


@attrs.frozen(kw_only=True)
class EventSpec:
    """What the host set: the slot, the format, the games."""

    title: str
    #: When the slot starts (the runtime's clock); teams are formed then.
    starts: float
    #: When check-in opens.
    checkin_from: float
    tc: TimeControl
    format: Format = "round-robin"
    #: Rounds to play (None: a full round robin; a Swiss needs a number).
    rounds: int | None = None
    #: Games per match (colours swapped each game).
    games: int = 1
    #: Computers partner an odd player and sit for a missing one.
    computers: bool = True
    #: Start at the slot's time by itself (else the host starts it).
    auto_start: bool = True


@attrs.frozen
class GameKey:
    round: int
    match: int
    game: int

    def shown(self) -> str:
        return f"r{self.round}m{self.match}g{self.game}"


@attrs.frozen
class GameToPlay:
    """A game to set up now: who sits where (computers where allowed)."""

    key: GameKey
    seats: Mapping[Seat, Identity]
    #: The side the match's first team plays this game.
    first_side: Side
    notes: tuple[str, ...]


@attrs.frozen
class SwissQuestion:
    """What pairing one Swiss round needs (``pairings.swiss``'s arguments)."""

    seeds: list[str]
    points: dict[str, float]
    played: set[frozenset[str]]
    byes: set[str]

    def answer(self) -> list[Pairing]:
        return swiss(self.seeds, self.points, self.played, self.byes)


@attrs.define
class Event:
    """One event's state (see the module docstring)."""

    id: str
    spec: EventSpec
    host: str | None = None
    state: EventState = "signup"
    entrants: list[Entrant] = attrs.field(factory=list)
    checked_in: set[str] = attrs.field(factory=set)
    formation: Formation | None = None
    #: Round robin: every round's pairings, fixed at the start.
    schedule: list[list[Pairing]] = attrs.field(factory=list)
    matches: list[Match] = attrs.field(factory=list)
    round: int = 0
    #: Games handed out and not yet scored, and how often each was tried.
    out: set[GameKey] = attrs.field(factory=set)
    attempts: dict[GameKey, int] = attrs.field(factory=dict)
    #: Table ids of the round's games, for the page.
    tables: dict[GameKey, str] = attrs.field(factory=dict)
    log: list[str] = attrs.field(factory=list)
    version: int = 0
    #: Set by a server that pairs a Swiss round off its loop: the round's question
    #: (``swiss``'s arguments) then waits in ``wanted`` until ``paired`` answers it.
    defer_pairing: bool = False
    wanted: SwissQuestion | None = None

    # -- sign-up and check-in ----------------------------------------------------------

    def entrant(self, name: str) -> Entrant | None:
        return next((e for e in self.entrants if e.name == name), None)

    def sign_up(self, who: Identity, partner: str | None, now: float) -> str | None:
        """Signs ``who`` up (naming ``partner``, who must name them back); why not, if not."""
        if self.state != "signup":
            return f"{self.spec.title} has started: sign-up is closed"
        if who.kind == "computer":
            return "the computer does not sign up"
        if partner == who.name:
            return "name someone else as your partner"
        old = self.entrant(who.name)
        if old is None and len(self.entrants) >= MAX_PLAYERS:
            return f"{self.spec.title} is full ({MAX_PLAYERS} players)"
        entrant = Entrant(who, partner)
        if old is None:
            self.entrants.append(entrant)
        else:
            self.entrants[self.entrants.index(old)] = entrant
        with_whom = f" with {partner}" if partner else ""
        self._note(f"{who.name} signed up{with_whom}")
        return None

    def withdraw(self, name: str) -> str | None:
        old = self.entrant(name)
        if old is None:
            return f"{name} has not signed up"
        if self.state != "signup":
            return f"{self.spec.title} has started: ask the host"
        self.entrants.remove(old)
        self.checked_in.discard(name)
        self._note(f"{name} withdrew")
        return None

    def check_in(self, name: str, now: float) -> str | None:
        if self.entrant(name) is None:
            return "sign up first"
        if self.state != "signup":
            return f"{self.spec.title} has started"
        if now < self.spec.checkin_from:
            return f"check-in opens in {_seconds(self.spec.checkin_from - now)}"
        if name not in self.checked_in:
            self.checked_in.add(name)
            self._note(f"{name} checked in")
        return None

    def partner_state(self, entrant: Entrant) -> str:
        """``together``, ``waiting`` (the partner has not named them back) or ``alone``."""
        if entrant.partner is None:
            return "alone"
        mate = self.entrant(entrant.partner)
        return "together" if mate is not None and mate.partner == entrant.name else "waiting"

    # -- starting and the rounds ----------------------------------------------------------

    def next_deadline(self) -> float | None:
        """When ``tick`` has something to do (the slot's start, for an automatic start)."""
        if self.state == "signup" and self.spec.auto_start:
            return self.spec.starts
        return None

    def tick(self, now: float) -> None:
        if self.state == "signup" and self.spec.auto_start and now >= self.spec.starts:
            problem = self.start(now)
            if problem is not None:
                self._note(f"not started: {problem}")
                self.state = "finished"

    def start(self, now: float) -> str | None:
        """Forms the teams from who checked in and pairs round 1; why not, if not."""
        if self.state != "signup":
            return f"{self.spec.title} has started already"
        came = [e for e in self.entrants if e.name in self.checked_in]
        formation = form_teams(came, computer_partner=self.spec.computers)
        if len(formation.teams) < 2:
            return f"{len(came)} checked in: two teams of two are needed"
        self.formation = formation
        for note in formation.notes:
            self._note(note)
        for team in formation.teams:
            self._note(f"team {team.id}: {team.name}")
        ids = self.seeds()
        if self.spec.format == "round-robin":
            self.schedule = round_robin(ids)[: self.spec.rounds or None]
        self.state = "running"
        self._pair_round()
        return None

    def seeds(self) -> list[str]:
        """Team ids, strongest first (the Swiss seed and the last tie-break)."""
        assert self.formation is not None
        teams = sorted(
            enumerate(self.formation.teams), key=lambda it: (-it[1].rating, it[0])
        )
        return [team.id for _, team in teams]

    def team(self, team_id: str) -> Team:
        assert self.formation is not None
        return next(t for t in self.formation.teams if t.id == team_id)

    def total_rounds(self) -> int:
        if self.spec.format == "round-robin":
            return len(self.schedule)
        return self.spec.rounds or 1

    def _pair_round(self) -> None:
        if self.spec.format == "round-robin":
            self._start_round(self.schedule[self.round])
            return
        done = self.matches
        played = {frozenset((m.first, m.second)) for m in done if m.second is not None}
        byes = {m.first for m in done if m.second is None}
        question = SwissQuestion(self.seeds(), dict(points(self.standings())), played, byes)
        if self.defer_pairing:
            self.wanted = question
            self.version += 1
        else:
            self._start_round(question.answer())

    def paired(self, question: SwissQuestion, pairs: list[Pairing]) -> None:
        """The answer to ``wanted`` (worked out elsewhere); an outdated one is ignored."""
        if self.wanted is question:
            self.wanted = None
            self._start_round(pairs)

    def _start_round(self, pairs: list[Pairing]) -> None:
        self.round += 1
        self.version += 1
        for first, second in pairs:
            games = self.spec.games
            self.matches.append(Match(self.round, first, second, (None,) * games))
            if second is None:
                self._note(f"round {self.round}: {self.team(first).name} has a bye")
        self._note(f"round {self.round} of {self.total_rounds()} paired")

    def round_matches(self, round_no: int | None = None) -> list[tuple[int, Match]]:
        wanted = self.round if round_no is None else round_no
        return [(i, m) for i, m in enumerate(self.matches) if m.round == wanted]

    def next_games(
        self, present: Collection[str], now: float, refused: Mapping[str, str] | None = None
    ) -> list[GameToPlay]:
        """The round's games to set up now (each once; forfeits are scored here).

        ``refused``: why a connected player is not in ``present`` (one line each,
        for the log: a bot that does not play the event's time control).
        """
        if self.state != "running":
            return []
        games: list[GameToPlay] = []
        for index, match in self.round_matches():
            if match.second is None:
                continue
            for g, score in enumerate(match.scores):
                key = GameKey(self.round, index, g)
                if score is not None or key in self.out:
                    continue
                if g > 0 and match.scores[g - 1] is None:
                    break  # a match's games are played one after another
                game = self._game(key, match, present, refused or {})
                if game is not None:
                    self.out.add(key)
                    self.attempts[key] = self.attempts.get(key, 0) + 1
                    games.append(game)
                break
        self._advance()
        return games

    def _game(
        self, key: GameKey, match: Match, present: Collection[str], refused: Mapping[str, str]
    ) -> GameToPlay | None:
        assert match.second is not None
        first, second = self.team(match.first), self.team(match.second)
        side = Side.ONE if key.game % 2 == 0 else Side.TWO
        seats: dict[Seat, Identity] = {}
        for team, team_side in ((first, side), (second, side.other)):
            for who, seat in zip(team.players, team_side.seats, strict=True):
                seats[seat] = who
        missing = [w.name for w in seats.values() if w.kind != "computer" and w.name not in present]
        notes: list[str] = []
        if missing and self.spec.computers:
            people = [n for n in missing if self._kind(n) != "bot"]
            bots = [n for n in missing if self._kind(n) == "bot"]
            for seat, who in list(seats.items()):
                if who.name in missing:
                    # a bot not connected is played by the server's engine, under its name
                    seats[seat] = COMPUTER if who.name in people else Identity(who.name, "computer")
            if people:
                notes.append(f"a computer plays for {', '.join(people)} (not here)")
            absent = [n for n in bots if n not in refused]
            if absent:
                notes.append(f"the server's engine plays {', '.join(absent)}")
            notes += [f"{refused[n]}: the server's engine plays it" for n in bots if n in refused]
        elif missing:
            short = {t.id for t in (first, second) if any(p.name in missing for p in t.players)}
            score = 0.5 if len(short) == 2 else (0.0 if first.id in short else 1.0)
            absent = [n for n in missing if n not in refused]
            whys = [f"{', '.join(absent)} not here"] if absent else []
            whys += [refused[n] for n in missing if n in refused]
            why = f"{'; '.join(whys)}: forfeit"
            self._score(key, score, why)
            return None
        for note in notes:
            self._note(f"round {key.round}, {first.name} v {second.name}: {note}")
        return GameToPlay(key, seats, side, tuple(notes))

    def _kind(self, name: str) -> str:
        entrant = self.entrant(name)
        return "guest" if entrant is None else entrant.who.kind

    def result(self, key: GameKey, result: str, now: float) -> None:
        """A game's BPGN result (team one's score first); ``*`` counts as a draw."""
        if key not in self.out:
            return
        self.out.discard(key)
        match = self.matches[key.match]
        side = Side.ONE if key.game % 2 == 0 else Side.TWO
        one = SCORES.get(result, 0.5)
        score = one if side is Side.ONE else 1.0 - one
        self._score(key, score, None if result in SCORES else f"result {result}: a draw")
        self._note(
            f"round {key.round}: {self.team(match.first).name} {_score(score)}-"
            f"{_score(1 - score)} {self.team(match.second or '').name}"
        )
        self._advance()

    def failed(self, key: GameKey, why: str, now: float) -> None:
        """A game could not be started: it is handed out again, or counts as a draw."""
        if key not in self.out:
            return
        self.out.discard(key)
        self.tables.pop(key, None)
        if self.attempts.get(key, 0) >= ATTEMPTS:
            self._score(key, 0.5, f"not played ({why}): a draw")
            self._advance()
        else:
            self._note(f"round {key.round}: game set up again ({why})")

    def _score(self, key: GameKey, score: float, why: str | None) -> None:
        match = self.matches[key.match]
        scores = list(match.scores)
        scores[key.game] = score
        notes = match.notes + ((why,) if why else ())
        self.matches[key.match] = attrs.evolve(match, scores=tuple(scores), notes=notes)
        if why:
            self._note(f"round {key.round}: {why}")
        self.version += 1

    def _advance(self) -> None:
        if self.state != "running" or self.out or self.wanted is not None:
            return
        if not all(m.done for _, m in self.round_matches()):
            return
        if self.round >= self.total_rounds():
            self.state = "finished"
            top = self.standings()[0]
            self._note(f"finished: {self.team(top.team).name} win the evening")
            return
        self._pair_round()

    def standings(self) -> list[Row]:
        return standings(self.seeds(), self.matches) if self.formation else []

    def _note(self, text: str) -> None:
        self.log.append(text)
        self.version += 1

    # -- the page's view ------------------------------------------------------------------

    def shown(self, now: float) -> dict[str, object]:
        """The ``event`` message the event page draws."""
        teams = self.formation.teams if self.formation else ()
        return {
            "type": "event",
            "id": self.id,
            "title": self.spec.title,
            "state": self.state,
            "format": self.spec.format,
            "tc": str(self.spec.tc),
            "games": self.spec.games,
            "computers": self.spec.computers,
            "starts_in": max(0.0, self.spec.starts - now),
            "checkin_open": now >= self.spec.checkin_from,
            "round": self.round,
            "rounds": self.total_rounds() if self.formation else self.spec.rounds,
            "entrants": [
                {
                    "name": e.name,
                    "kind": e.who.kind,
                    "rating": e.who.rating,
                    "partner": e.partner,
                    "partner_state": self.partner_state(e),
                    "checked_in": e.name in self.checked_in,
                }
                for e in self.entrants
            ],
            "teams": [t.shown() for t in teams],
            "sits_out": list(self.formation.sits_out) if self.formation else [],
            "matches": [
                {
                    "round": m.round,
                    "first": m.first,
                    "second": m.second,
                    "scores": list(m.scores),
                    "match_points": list(m.match_points()),
                    "game_points": list(m.game_points()),
                    "notes": list(m.notes),
                    "tables": [
                        self.tables[k]
                        for k in sorted(self.tables, key=lambda k: k.game)
                        if k.match == i
                    ],
                }
                for i, m in enumerate(self.matches)
            ],
            "standings": [r.shown() for r in self.standings()],
            "log": self.log[-50:],
        }


def _score(value: float) -> str:
    return {1.0: "1", 0.0: "0", 0.5: "½"}.get(value, f"{value:g}")


def _seconds(value: float) -> str:
    minutes, seconds = divmod(int(value + 0.999), 60)
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"
