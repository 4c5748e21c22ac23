"""Engines by name: the built-in external engines and a TOML engines file.

A file names engines in ``[engines.NAME]`` tables::

    [engines.sjeng]
    protocol = "xboard"                 # native | uci | xboard | tcs | team-uci
    command = ["/usr/games/sjeng"]      # a list, or one string split like a shell
    cwd = "/tmp/sjeng"                  # optional; "~" is expanded
    options = { Hash = "16" }           # optional; strings, numbers or booleans
    init = ["nopost"]                   # optional lines sent after the handshake
    movetime = 500                      # optional: ms per move (UCI/native go movetime, xboard st)
    depth = 6                           # optional: search depth per move (go depth, xboard sd)
    nodes = 100000                      # optional: nodes per move (go nodes, xboard nps + st 1)

``movetime``, ``depth`` and ``nodes`` bound every move: in timed play they
are sent beside the clocks (the engine stops at whichever ends first), in
untimed play instead of them (1000 ms a move when none is given).

Names resolve in this order, later ones winning: the built-in external
engines (``sjeng``, ``fairy-stockfish``, ``fairy-stockfish-xboard``), the user
file (``$XDG_CONFIG_HOME/bughouse-arbiter/engines.toml``, else
``~/.config/bughouse-arbiter/engines.toml``), then a file given with
``--engines-file``. Every bad entry is a ``ConfigError`` naming file and key.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .specs import PROTOCOLS, EngineSpec, Protocol

KEYS = ("protocol", "command", "cwd", "options", "init", "movetime", "depth", "nodes")


def _program(name: str) -> str:
    """``/usr/games/NAME`` when it is there (often not on PATH), else ``NAME``."""
    games = Path("/usr/games") / name
    if shutil.which(name) is None and games.is_file():
        return str(games)
    return name


#: The built-in sjeng's working folder, under this machine's temporary folder.
SJENG_FOLDER = "bughouse-arbiter-sjeng"


def sjeng_folder() -> Path:
    """The built-in sjeng's working folder on this machine, made if missing
    (sjeng writes its learning files there); the temporary folder if it cannot be."""
    folder = Path(tempfile.gettempdir()) / SJENG_FOLDER
    try:
        folder.mkdir(exist_ok=True)
    except OSError:
        return Path(tempfile.gettempdir())
    return folder


def builtin_external_engines() -> dict[str, EngineSpec]:
    """Debian's bughouse engines, usable as ``--engine A-white=sjeng`` without any file."""
    stockfish = _program("fairy-stockfish")
    return {
        "sjeng": EngineSpec(
            name="sjeng",
            protocol="xboard",
            command=(_program("sjeng"),),
            cwd=str(sjeng_folder()),
        ),
        "fairy-stockfish": EngineSpec(
            name="fairy-stockfish",
            protocol="uci",
            command=(stockfish,),
            options={"Threads": "1", "Hash": "16"},
        ),
        "fairy-stockfish-xboard": EngineSpec(
            name="fairy-stockfish-xboard",
            protocol="xboard",
            command=(stockfish,),
            options={"Threads": "1", "Hash": "16"},
        ),
    }


def user_engines_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the user's engines file lives (it need not exist)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "bughouse-arbiter" / "engines.toml"


def load_engines_file(path: str | Path) -> dict[str, EngineSpec]:
    """Reads one engines file.

    Raises:
        ConfigError: the file cannot be read, is not TOML, or has a bad entry.
    """
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such engines file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read the engines file: {exc}") from None
    return parse_engines(text, where)


def parse_engines(text: str, where: str = "<engines file>") -> dict[str, EngineSpec]:
    """Reads the TOML text of an engines file (see the module docstring)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"engines"})
    if unknown:
        raise ConfigError(
            f"{where}: unknown top-level key {unknown[0]!r} (expected [engines.NAME])"
        )
    engines = data.get("engines", {})
    if not isinstance(engines, dict):
        raise ConfigError(f"{where}: 'engines' must be a table of [engines.NAME] tables")
    specs: dict[str, EngineSpec] = {}
    for name, entry in engines.items():
        specs[name] = _spec(name, entry, f"{where}: engines.{name}")
    return specs


def _spec(name: str, entry: Any, where: str) -> EngineSpec:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: must be a table with protocol and command")
    for key in entry:
        if key not in KEYS:
            raise ConfigError(f"{where}.{key}: unknown key (known: {', '.join(KEYS)})")
    protocol = entry.get("protocol", "native")
    if protocol not in PROTOCOLS:
        raise ConfigError(f"{where}.protocol: {protocol!r} is not one of {', '.join(PROTOCOLS)}")
    return EngineSpec(
        name=name,
        protocol=_protocol(protocol),
        command=_command(entry.get("command"), f"{where}.command"),
        cwd=_cwd(entry.get("cwd"), f"{where}.cwd"),
        options=_options(entry.get("options", {}), f"{where}.options"),
        init=_init(entry.get("init", []), f"{where}.init"),
        movetime=_count(entry.get("movetime"), f"{where}.movetime"),
        depth=_count(entry.get("depth"), f"{where}.depth"),
        nodes=_count(entry.get("nodes"), f"{where}.nodes"),
    )


def _count(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{where}: must be a whole number above 0, not {value!r}")
    return value


def _protocol(value: str) -> Protocol:
    for protocol in PROTOCOLS:
        if value == protocol:
            return protocol
    raise AssertionError(value)


def _command(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        raise ConfigError(f'{where}: missing (the program to run, e.g. ["/usr/games/sjeng"])')
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise ConfigError(f"{where}: cannot be split: {exc}") from None
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        argv = list(value)
    else:
        raise ConfigError(f"{where}: must be a string or a list of strings")
    if not argv or not argv[0]:
        raise ConfigError(f"{where}: is empty")
    return (os.path.expanduser(argv[0]), *argv[1:])


def _cwd(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: must be a folder name")
    return os.path.expanduser(value)


def _options(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be a table like {{ Hash = 16 }}")
    options: dict[str, str] = {}
    for key, item in value.items():
        if isinstance(item, bool):
            options[key] = "true" if item else "false"
        elif isinstance(item, int | float | str):
            options[key] = str(item)
        else:
            raise ConfigError(f"{where}.{key}: must be a string, number or boolean")
    return options


def _init(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: must be a list of strings (lines sent to the engine)")
    for line in value:
        if "\n" in line or "\r" in line:
            raise ConfigError(f"{where}: a line cannot contain a line break: {line!r}")
    return tuple(value)


def known_engines(
    engines_file: str | Path | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> dict[str, EngineSpec]:
    """Every engine name usable in ``--engine SEAT=NAME``: built-ins, user file, given file."""
    known = builtin_external_engines()
    user = user_engines_path(environ)
    if user.is_file():
        known.update(load_engines_file(user))
    if engines_file is not None:
        known.update(load_engines_file(engines_file))
    return known
