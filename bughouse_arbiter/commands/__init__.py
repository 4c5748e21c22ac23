"""The `bughouse` subcommands: one module per verb, each with `register` and `run`.

The only layer that reads arguments, opens files given by the user and
prints to the terminal; the work is done by the layers below.
"""
