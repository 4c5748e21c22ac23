"""The project's own engines: standalone BUG/1 programs (see README.md).

Each program here is a script run as a separate process (``python
engines/searcher.py``); it needs only the standard library and python-chess
and never imports ``bughouse_arbiter``. A wheel ships this folder as
``bughouse_arbiter/engines`` so that the built-in engine names work from any
install.
"""
