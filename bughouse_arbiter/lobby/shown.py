"""What the members were last shown of the lobby, and the ``lobby-diff`` from it to now.

A member gets the whole ``lobby`` view once (when it joins, or asks) and then
``lobby-diff`` messages: the tables whose entry changed (whole entries, by
id), the ids of those ``gone``, and each other part (``queue``, ``online``)
only if it changed. Views and diffs carry a ``version``: a diff is version
N+1 of the view it applies to, so a member that missed one can tell.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

Entry = dict[str, object]


@attrs.define
class Shown:
    """The one record of what the last diff (or the first view) showed everyone."""

    version: int = 0
    tables: dict[str, Entry] = attrs.field(factory=dict)
    parts: dict[str, object] = attrs.field(factory=dict)
    #: Tables and parts a whole view showed as they were between two diffs: the next
    #: diff carries them as they are then, whether or not they differ from ``tables``.
    _seen_tables: set[str] = attrs.field(factory=set)
    _seen_parts: set[str] = attrs.field(factory=set)

    def whole(self, tables: Mapping[str, Entry], parts: Mapping[str, object]) -> dict[str, object]:
        """The ``lobby`` message of the lobby now, of ``version`` (the next diff applies)."""
        ids = tables.keys() | self.tables.keys()
        self._seen_tables |= {i for i in ids if not _same(tables.get(i), self.tables.get(i))}
        self._seen_parts |= {k for k, v in parts.items() if not _same(self.parts.get(k), v)}
        return {"type": "lobby", "version": self.version, "tables": list(tables.values()), **parts}

    def diff(
        self, tables: Mapping[str, Entry], parts: Mapping[str, object]
    ) -> dict[str, object] | None:
        """The ``lobby-diff`` from what was shown to now (None: nothing to show), now shown."""
        changed = {
            i: e
            for i, e in tables.items()
            if i in self._seen_tables or not _same(self.tables.get(i), e)
        }
        gone = [i for i in (*self.tables, *sorted(self._seen_tables)) if i not in tables]
        moved = {
            k: v
            for k, v in parts.items()
            if k in self._seen_parts or not _same(self.parts.get(k), v)
        }
        if not changed and not gone and not moved:
            return None
        self.version += 1
        self.tables, self.parts = dict(tables), dict(parts)
        self._seen_tables, self._seen_parts = set(), set()
        return {
            "type": "lobby-diff",
            "version": self.version,
            "tables": changed,
            "gone": list(dict.fromkeys(gone)),
            **moved,
        }


def _same(a: object, b: object) -> bool:
    """Equal (a table's entry is the same object while the table is unchanged: quick)."""
    return a is b or a == b


def apply_diff(view: Mapping[str, Any], diff: Mapping[str, Any]) -> dict[str, Any] | None:
    """The view ``diff`` makes of ``view`` (a new dict); None if it is not the next version."""
    if diff.get("version") != view.get("version", 0) + 1:
        return None
    changed: Mapping[str, Any] = diff.get("tables", {})
    gone = set(diff.get("gone", ()))
    tables = []
    for entry in view.get("tables", []):
        if entry["id"] in gone:
            continue
        tables.append(changed.get(entry["id"], entry))
    known = {entry["id"] for entry in tables}
    tables += [entry for i, entry in changed.items() if i not in known]
    parts = {k: v for k, v in diff.items() if k not in ("type", "tables", "gone")}
    return {**view, **parts, "type": "lobby", "tables": tables}
