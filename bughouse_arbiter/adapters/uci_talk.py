"""What every UCI-speaking adapter says and reads alike (UCI, team UCI).

``isready`` and its ``readyok`` (pings, option acknowledgements), ``setoption``,
the engine's ``option`` declarations, checked against the options a spec sets,
and its last scored ``info`` line. A mixin: the adapter gives ``send`` and
calls ``start_talk`` once, ``count_sent`` from its ``send``, ``heard`` from its
``receive``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..protocol.limits import engine_text, keep_announced
from .declared import Declared, refuse_option, uci_declared


def parse_option(text: str) -> tuple[str, dict[str, list[str]]]:
    """``option name X type combo default a var a var b`` -> ("X", {"type": [...], ...})."""
    keywords = ("name", "type", "default", "min", "max", "var")
    fields: dict[str, list[str]] = {}
    current: str | None = None
    values: list[str] = []
    parts: list[tuple[str, str]] = []
    for word in text.split():
        if word in keywords and not (current == "name" and word not in ("type",)):
            if current is not None:
                parts.append((current, " ".join(values)))
            current, values = word, []
        else:
            values.append(word)
    if current is not None:
        parts.append((current, " ".join(values)))
    for key, value in parts:
        fields.setdefault(key, []).append(value)
    name = fields.pop("name", [""])[0]
    return name, fields


class UciTalk:
    """The lines a UCI-speaking adapter shares with the others (see the module)."""

    if TYPE_CHECKING:

        def send(self, *lines: str) -> None: ...

    def start_talk(self) -> None:
        #: The options the engine declared, by name, with their fields.
        self.engine_options: dict[str, dict[str, list[str]]] = {}
        #: The last ``isready`` was answered.
        self.ready = False
        self._last_info = ""
        self._isready_sent = 0
        self._readyoks = 0

    def count_sent(self, lines: Sequence[str]) -> None:
        """Keeps count of the ``isready`` among ``lines`` being sent."""
        self._isready_sent += lines.count("isready")

    def ping(self) -> int:
        """``isready``; ``pinged(ticket)`` tells when its ``readyok`` came."""
        self.send("isready")
        return self._isready_sent

    def pinged(self, ticket: int) -> bool:
        return self._readyoks >= ticket

    def set_option(self, name: str, value: str | None) -> None:
        """``setoption name NAME [value VALUE]`` and ``isready``: ``option_done``
        tells when the ``readyok`` came."""
        self.ready = False
        self.send(f"setoption name {name}" + ("" if value is None else f" value {value}"))
        self.send("isready")

    @property
    def option_done(self) -> bool:
        return self.ready

    @property
    def declared_options(self) -> dict[str, Declared]:
        """The options the engine declared (``option name ...``), by name."""
        return {name: uci_declared(fields) for name, fields in self.engine_options.items()}

    def check_declared(self, options: Mapping[str, str]) -> None:
        """Raises the ``RefusedOption`` of the first of ``options`` the engine did not
        declare or whose value its declaration does not take (UCI option names, and
        combo choices, are matched whatever their letter case)."""
        declared = self.declared_options
        for name, value in options.items():
            refuse_option(name, value, declared, any_case=True)

    def take_info(self) -> str:
        """The last scored ``info`` of the search (then forgotten)."""
        info, self._last_info = self._last_info, ""
        return info

    def heard(self, head: str, rest: str) -> bool:
        """Reads an ``info``, ``readyok`` or ``option`` line; False for any other."""
        if head == "info":
            if " score " in f" {rest} ":
                self._last_info = rest
        elif head == "readyok":
            self.ready = True
            self._readyoks += 1
        elif head == "option":
            name, fields = parse_option(rest)
            name = engine_text(name)
            if name:
                keep_announced(self.engine_options, name, fields)
        else:
            return False
        return True
