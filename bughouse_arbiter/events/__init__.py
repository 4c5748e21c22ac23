"""A club evening the server runs (sans-IO): sign-up, teams, rounds, results, standings.

``teams`` forms teams of two from who came, ``pairings`` pairs teams per
round (round robin or Swiss), ``standings`` scores the rounds, ``event``
holds one evening's state and its transitions (times passed in).
"""
