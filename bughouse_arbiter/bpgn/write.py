"""Writing a match as extended BPGN, chunk by chunk as it is played.

The arbiter builds one ``BpgnRecorder`` per game and hands the text it
returns to a ``BpgnFile`` (``bpgn/file.py``)::

    recorder = BpgnRecorder(game, GameHeader(players={Seat.A_WHITE: "sjeng", ...}))
    header = recorder.streamed_header()        # tags, the outcome slot says [Result "*"]
    out.start_game(header.text, slot=header.slot)
    ...                                        # after every move, message or board end:
    out.append(recorder.update(info={played.ply: SearchInfo(score_cp=35, depth=12)}))
    ...
    out.end_game(recorder.outcome_slot(), recorder.closing_text())

The tags that may change by the game's end (the four players, ``Result``
and ``Termination*``) close the tag section in a slot of ``SLOT_BYTES``
bytes, padded with spaces at the end of its last line, so the file can fill
it in place when the game ends. A killed arbiter
leaves the header and every move so far: a game without its result token,
which ``read_games`` reads as unfinished. ``format_game`` writes a finished
(or unfinished) game in one go, without padding. Per move the work is flat
in the game's length (move numbers are counted as moves are written). The
format and its extensions are described in ``docs/bpgn.md``. Pure: no clock,
no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from ..core.board import STARTING_FEN
from ..core.game import BoardResult, BughouseGame, DrawOffer, PartnerMessage, PlayedMove
from ..core.model import BoardId, Outcome, Result, Seat, Termination
from .notation import SEAT_TAGS, closing_phrase, escape, escape_tag, seconds

#: Bytes of the outcome slot in a streamed game's tag section (see ``BpgnFile``).
SLOT_BYTES = 640

#: Terminations a board reaches by itself; its end is written after its last move.
_BOARD_MADE = frozenset(
    {Termination.CHECKMATE, Termination.STALEMATE, Termination.DEADLOCK, Termination.REPETITION}
)


@attrs.frozen(kw_only=True)
class GameHeader:
    """What the tags say besides the rules and start positions (taken from the game).

    ``players`` names the four seats (handles or engine names), ``engines``
    optionally the engine behind each seat (name and version, written as
    ``[WhiteAEngine "..."]``). ``date`` is ``YYYY.MM.DD`` and ``time`` the
    start time ``HH:MM:SS`` (UTC); the caller reads the clock, not this module.
    ``extra`` tags are written after ours, in order.
    """

    players: Mapping[Seat, str] = attrs.field(factory=dict)
    engines: Mapping[Seat, str] = attrs.field(factory=dict)
    event: str = "bughouse-arbiter match"
    site: str = "?"
    date: str = "????.??.??"
    time: str | None = None
    round: str = "-"
    extra: tuple[tuple[str, str], ...] = ()


#: Largest magnitude a ``SearchInfo`` number may have; beyond it the number
#: counts as absent (an engine's digits are not trusted).
INFO_NUMBER_LIMIT = 10**12


def _bounded(value: int | None) -> int | None:
    if value is None or -INFO_NUMBER_LIMIT <= value <= INFO_NUMBER_LIMIT:
        return value
    return None


@attrs.frozen(kw_only=True)
class HeaderText:
    """A streamed game's tag section and where its outcome slot is, as
    (byte offset, size) in ``text`` encoded as UTF-8."""

    text: str
    slot: tuple[int, int]


@attrs.frozen(kw_only=True)
class SearchInfo:
    """What an engine said about its move: score (centipawns or mate in N, from
    the mover's side) and search depth. Every field is optional."""

    score_cp: int | None = attrs.field(default=None, converter=_bounded)
    mate: int | None = attrs.field(default=None, converter=_bounded)
    depth: int | None = attrs.field(default=None, converter=_bounded)
    #: The network round-trip measured for the move (a seat played over ``bughouse serve``).
    lag_ms: int | None = attrs.field(default=None, converter=_bounded)

    def command(self) -> str | None:
        """``[%eval +0.35,12]`` (lichess style: pawns, then depth), or None if empty."""
        if self.mate is not None:
            score = f"#{self.mate}"
        elif self.score_cp is not None:
            # Integer arithmetic: a huge score must not overflow a float.
            cp = self.score_cp
            score = f"{'-' if cp < 0 else '+'}{abs(cp) // 100}.{abs(cp) % 100:02d}"
        elif self.depth is not None:
            score = "?"
        else:
            return None
        depth = f",{self.depth}" if self.depth is not None else ""
        return f"[%eval {score}{depth}]"


class BpgnRecorder:
    """Turns one ``BughouseGame`` into BPGN text while it is being played.

    ``header_text()`` gives the tag section of the running game; each
    ``update()`` gives the movetext for whatever the game recorded since the
    last call (moves, partner messages, boards ended under
    ``board_end=continue``), one line per event; ``final_text()`` gives the
    whole game with its final tags, result and closing comment. Call
    ``update`` after every event to keep the exact order of moves and
    messages; one call at the end orders them by their time stamps.
    """

    def __init__(self, game: BughouseGame, header: GameHeader | None = None) -> None:
        self.game = game
        self.header = header if header is not None else GameHeader()
        self._lines: list[str] = []
        self._moves_seen = 0
        self._messages_seen = 0
        self._offers_seen = 0
        self._ends_seen: set[BoardId] = set()
        self._infos: dict[int, SearchInfo] = {}
        #: Moves written so far on each board (for the move numbers).
        self._written: dict[BoardId, int] = dict.fromkeys(BoardId, 0)
        self._starts = {b: _start_counters(game.start_fens[b]) for b in BoardId}

    # -- the texts -------------------------------------------------------------

    def header_text(self) -> str:
        """The tag section with ``[Result "*"]`` (unpadded), then a blank line."""
        return _tags_text(self._tags() + self._outcome_tags(final=False))

    def streamed_header(self) -> HeaderText:
        """The tag section for a streamed file: the outcome slot, padded to
        ``SLOT_BYTES``, closes it; then a blank line."""
        before = _tags_text(self._tags()).encode("utf-8")
        slot = self._slot_text(final=False)
        return HeaderText(
            text=before.decode("utf-8") + slot + "\n\n", slot=(len(before), SLOT_BYTES)
        )

    def outcome_slot(self) -> str:
        """The outcome tags of the game as it stands, exactly ``SLOT_BYTES`` long
        (a reason too long for it is cut; the closing comment has it whole)."""
        return self._slot_text(final=True)

    def closing_text(self) -> str:
        """The rest of the movetext, the closing comment and the result token."""
        return self.update() + _closing_line(self.game.outcome)

    def update(self, info: Mapping[int, SearchInfo] | None = None) -> str:
        """Movetext for the events since the last call ("" if none).

        ``info`` maps a move's ply to what its engine reported; it may also be
        given for a later ply before that move is written.
        """
        if info:
            self._infos.update(info)
        game = self.game
        moves = game.moves
        if (
            len(moves) == self._moves_seen + 1
            and len(game.messages) == self._messages_seen
            and len(game.draw_offers) == self._offers_seen
            and len(game.board_results) == len(self._ends_seen)
        ):
            # The usual call, after one move and nothing else: its line alone.
            played = moves[-1]
            self._moves_seen += 1
            self._written[played.board] += 1
            line = self._move_line(played)
            self._lines.append(line)
            return line
        new_moves = moves[self._moves_seen :]
        new_messages = game.messages[self._messages_seen :]
        new_offers = game.draw_offers[self._offers_seen :]
        self._moves_seen = len(game.moves)
        self._messages_seen = len(game.messages)
        self._offers_seen = len(game.draw_offers)
        events: list[tuple[float, int, str]] = []
        order = 0
        for played in new_moves:
            order += 1
            self._written[played.board] += 1
            events.append((_when(played.at), order, self._move_line(played)))
        for message in new_messages:
            order += 1
            events.append((_when(message.at), order, _message_line(message)))
        for offer in new_offers:
            order += 1
            events.append((_when(offer.at), order, _offer_line(offer)))
        # Moves before messages on a tie: a message sent in reply to a move.
        events.sort(key=lambda event: (event[0], event[1]))
        lines = [text for _, _, text in events]
        for board_id, result in game.board_results.items():
            if board_id in self._ends_seen:
                continue
            self._ends_seen.add(board_id)
            line = _board_end_line(result)
            last = _last_move_line(lines, board_id)
            if result.termination in _BOARD_MADE and last is not None:
                lines.insert(last + 1, line)
            else:
                lines.append(line)
        self._lines.extend(lines)
        return "".join(lines)

    def final_text(self) -> str:
        """The whole game: final tags, every event, the closing comment and result."""
        self.update()
        tags = self._tags() + self._outcome_tags(final=True)
        closing = _closing_line(self.game.outcome)
        return _tags_text(tags) + "".join(self._lines) + closing + "\n"

    # -- pieces --------------------------------------------------------------------

    def _move_line(self, played: PlayedMove) -> str:
        start = self._starts[played.board]
        earlier = self._written[played.board] - 1  # counted before this line is made
        number = start[0] + (earlier + (0 if start[1] else 1)) // 2
        letter = _MOVE_LETTER[played.seat]
        parts = [f"{number}{letter}. {bpgn_san(played.san)}"]
        if played.clock is not None:
            parts.append(f"{{{seconds(played.clock)}}}")
        commands = []
        if played.at is not None:
            commands.append(f"[%ts {seconds(played.at)}]")
        info = self._infos.get(played.ply)
        if info is not None and (command := info.command()) is not None:
            commands.append(command)
        if info is not None and info.lag_ms is not None:
            commands.append(f"[%lag {info.lag_ms}]")
        if commands:
            parts.append("{" + " ".join(commands) + "}")
        return " ".join(parts) + "\n"

    def _outcome_tags(self, *, final: bool) -> list[tuple[str, str]]:
        """The tags that may change by the game's end: who sat where (a seat's
        engine may be replaced) and how it ended."""
        players = [(SEAT_TAGS[seat], self.header.players.get(seat, "?")) for seat in SEAT_TAGS]
        outcome = self.game.outcome if final else None
        if outcome is None:
            return [*players, ("Result", Result.UNFINISHED.value)]
        return [*players, ("Result", outcome.result.value), *_outcome_tags(outcome)]

    def _slot_text(self, *, final: bool) -> str:
        """The final tags padded with spaces to ``SLOT_BYTES`` (no final newline:
        the slot ends with the last tag's line, whose line end follows it).
        Too long, the reason and then the names are cut (with ``…``)."""
        tags = self._outcome_tags(final=final)
        for reason_room, name_room in ((None, None), (120, None), (120, 60), (40, 40)):
            cut = [
                (name, _cut(value, reason_room if name == "TerminationReason" else name_room))
                for name, value in tags
            ]
            text = _tags_text(cut)[:-2]  # without the blank line
            room = SLOT_BYTES - len(text.encode("utf-8"))
            if room >= 0:
                return text + " " * room
        raise ValueError(f"final tags do not fit in {SLOT_BYTES} bytes: {text!r}")

    def _tags(self) -> list[tuple[str, str]]:
        """Every tag but the final ones (players and outcome, see ``_outcome_tags``)."""
        game, header = self.game, self.header
        rules = game.rules
        tags = [
            ("Event", header.event),
            ("Site", header.site),
            ("Date", header.date),
            ("Round", header.round),
        ]
        timing = f"{rules.time:g}+{rules.increment:g}" if rules.clock else "-"
        tags.append(("TimeControl", timing))
        if header.time is not None:
            tags.append(("Time", header.time))
        tags.append(("Variant", "bughouse"))
        fens = game.start_fens
        if any(fens[b] != _STANDARD_FEN for b in BoardId):
            tags.append(("SetUp", "1"))
            tags.append(("FEN", f"{fens[BoardId.A]} | {fens[BoardId.B]}"))
        pairs = [("profile", rules.profile), *rules.to_pairs()]
        tags.append(("Rules", " ".join(f"{name}={value}" for name, value in pairs)))
        for seat, tag in SEAT_TAGS.items():
            if seat in header.engines:
                tags.append((f"{tag}Engine", header.engines[seat]))
        tags += list(header.extra)
        return tags


_STANDARD_FEN = STARTING_FEN
#: A move number's board letter: upper case for White's moves (``12A.``), lower for Black's.
_MOVE_LETTER = {
    seat: seat.board.value if seat.color else seat.board.value.lower() for seat in Seat
}


def _cut(value: str, limit: int | None) -> str:
    return value if limit is None or len(value) <= limit else value[: limit - 1] + "…"


def format_game(
    game: BughouseGame,
    header: GameHeader | None = None,
    *,
    info: Mapping[int, SearchInfo] | None = None,
) -> str:
    """The whole game as BPGN in one go (moves and messages ordered by time stamp)."""
    recorder = BpgnRecorder(game, header)
    recorder.update(info)
    return recorder.final_text()


def bpgn_san(san: str) -> str:
    """SAN as BPGN writes it: python-chess's pawn drop ``@e4`` becomes ``P@e4``."""
    return "P" + san if san.startswith("@") else san


def _outcome_tags(outcome: Outcome) -> list[tuple[str, str]]:
    tags = [("Termination", outcome.termination.value)]
    if outcome.board is not None:
        tags.append(("TerminationBoard", outcome.board.value))
    if outcome.seat is not None:
        tags.append(("TerminationSeat", outcome.seat.bpgn))
    tags.append(("TerminationReason", outcome.reason))
    return tags


def _tags_text(tags: list[tuple[str, str]]) -> str:
    return "".join(f'[{name} "{escape_tag(value)}"]\n' for name, value in tags) + "\n"


def _message_line(message: PartnerMessage) -> str:
    at = seconds(message.at) if message.at is not None else "-"
    return f"{{[%tell {message.seat.bpgn} {at}] {escape(message.text)}}}\n"


def _offer_line(offer: DrawOffer) -> str:
    at = seconds(offer.at) if offer.at is not None else "-"
    return f"{{[%draw {offer.seat.bpgn} {at}]}}\n"


def _board_end_line(result: BoardResult) -> str:
    seat = result.seat.bpgn if result.seat is not None else "-"
    score = Result.won_by(result.winner).value
    return (
        f"{{[%boardend {result.board.value} {score} {result.termination.value} {seat}] "
        f"{escape(result.reason)}}}\n"
    )


def _closing_line(outcome: Outcome | None) -> str:
    if outcome is None:
        return "*"
    phrase = closing_phrase(
        outcome.termination, outcome.seat, outcome.reason, decisive=outcome.winner is not None
    )
    # A comment may not hold "}"; the exact reason is in [TerminationReason].
    phrase = phrase.replace("{", "(").replace("}", ")").replace("\n", " ")
    return f"{{{phrase}}} {outcome.result.value}"


def _when(at: float | None) -> float:
    return at if at is not None else float("inf")


def _last_move_line(lines: list[str], board_id: BoardId) -> int | None:
    """Index in ``lines`` of the last move line on ``board_id``, if any."""
    index = None
    for i, line in enumerate(lines):
        if line.startswith("{"):
            continue
        head = line.split(".", 1)[0]
        if head[-1:].upper() == board_id.value:
            index = i
    return index


def _start_counters(fen: str) -> tuple[int, bool]:
    """(full-move number, white to move) of a start FEN."""
    fields = fen.split()
    white = len(fields) < 2 or fields[1] != "b"
    try:
        number = max(1, int(fields[5])) if len(fields) > 5 else 1
    except ValueError:
        number = 1
    return number, white
