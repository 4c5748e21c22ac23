"""A tiny terminal emulator for console tests: enough ANSI to check the screen.

It understands what ``console_screen.ScreenPainter`` writes (cursor
addressing, erase line, erase screen, SGR, cursor show/hide) plus plain
text and CR/LF, and keeps an 80×24 grid and the cursor position.
"""

from __future__ import annotations

import re

_CSI = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])")


class VirtualTerminal:
    def __init__(self, columns: int = 80, rows: int = 24) -> None:
        self.columns = columns
        self.rows = rows
        self.grid = [[" "] * columns for _ in range(rows)]
        self.row = 0
        self.column = 0
        self._partial = ""

    def feed(self, data: str) -> None:
        data = self._partial + data
        self._partial = ""
        escape = data.rfind("\x1b")
        if escape != -1 and not _CSI.match(data, escape) and len(data) - escape < 16:
            # An escape sequence cut at the end of this chunk: finish it next time.
            data, self._partial = data[:escape], data[escape:]
        index = 0
        while index < len(data):
            match = _CSI.match(data, index)
            if match:
                self._csi(match.group(1), match.group(2))
                index = match.end()
                continue
            char = data[index]
            index += 1
            if char == "\r":
                self.column = 0
            elif char == "\n":
                self._line_feed()
            elif char.isprintable():
                if self.column >= self.columns:
                    self.column = 0
                    self._line_feed()
                self.grid[self.row][self.column] = char
                self.column += 1

    def _line_feed(self) -> None:
        if self.row == self.rows - 1:
            self.grid.pop(0)
            self.grid.append([" "] * self.columns)
        else:
            self.row += 1

    def _csi(self, params: str, final: str) -> None:
        if final == "H":
            parts = [int(p) if p else 1 for p in params.split(";")] if params else [1, 1]
            row, column = [*parts, 1][:2]
            self.row = min(max(row, 1), self.rows) - 1
            self.column = min(max(column, 1), self.columns) - 1
        elif final == "K":
            for column in range(self.column, self.columns):
                self.grid[self.row][column] = " "
        elif final == "J" and params == "2":
            self.grid = [[" "] * self.columns for _ in range(self.rows)]

    def line(self, row: int) -> str:
        return "".join(self.grid[row]).rstrip()

    @property
    def text(self) -> str:
        return "\n".join(self.line(r) for r in range(self.rows))
