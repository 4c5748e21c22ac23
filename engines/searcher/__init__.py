"""Searcher, a bughouse engine: alpha-beta over python-chess boards (see ../searcher.py)."""
