"""Reads the instant engines' stamp files (eng-*.json) of one run and derives
harness-independent figures, seen from the engines' side:

- hop: per move, from the mover WRITING its ``bestmove`` to the next player on
  that board READING its ``go`` (perf_counter = CLOCK_MONOTONIC, shared by all
  processes): everything the harness adds between two engine turns, pipes and
  scheduling included;
- play_s: per game, first ``go`` read to last ``bestmove`` written, summed;
- engine CPU (user+sys of the four engine processes, as they measured it).
"""

from __future__ import annotations

import bisect
import glob
import json
import os
import statistics


def load(folder: str) -> dict:
    stamps = []  # (t, kind, board, v, file)
    cpu = 0.0
    cpu_run = 0.0
    parent = []
    hwm = []
    wakeups = 0
    files = sorted(glob.glob(os.path.join(folder, "eng-*.json")))
    for index, path in enumerate(files):
        with open(path) as fh:
            data = json.load(fh)
        cpu += data["cpu"]
        wakeups += data.get("nvcsw", 0)
        marks = data.get("parent_marks", [])
        hwm.extend(m[8] for m in marks if len(m) > 8)
        # harness CPU during play, as one engine per game saw it (first go at v 0 -> gameover)
        for start, end in zip(
            [m for m in marks if m[0] == "start"], [m for m in marks if m[0] == "end"], strict=False
        ):
            if "a-white" in data.get("seats", []) or data.get("seats") == []:
                parent.append(
                    (
                        end[2] - start[2],
                        end[3] - start[3],
                        end[4] - start[4],
                        (end[5] - start[5]) if len(end) > 5 else float("nan"),
                        (end[6] - start[6]) if len(end) > 6 else float("nan"),
                    )
                )
        cpu_run += data.get("cpu_after_start", data["cpu"])
        for kind, board, v, t in data["stamps"]:
            stamps.append((t, kind, board, v, index))
    stamps.sort()
    hops = []
    gos = {"a": [], "b": []}
    for t, kind, board, v, _ in stamps:
        if kind == "go":
            gos[board].append((t, v))
    go_times = {b: [t for t, _ in gos[b]] for b in gos}
    plies = 0
    for t, kind, board, v, _ in stamps:
        if kind != "bm":
            continue
        plies += 1
        i = bisect.bisect_right(go_times[board], t)
        if i < len(gos[board]):
            gt, gv = gos[board][i]
            if gv > v:  # same game (a new game starts again at v 0)
                hops.append(gt - t)
    # games: split where a go with v == 0 follows a bestmove
    play = 0.0
    start = None
    last_bm = None
    games = 0
    for t, kind, board, v, _ in stamps:
        # a new game: the go at v 0 on board a (both harnesses open board a
        # first; board b's first go may be read after the first moves on a)
        new_game = kind == "go" and v == 0 and board == "a"
        if new_game:
            if start is not None and last_bm is not None:
                play += last_bm - start
            start, last_bm = t, None
            games += 1
        elif kind == "bm":
            last_bm = t
    if start is not None and last_bm is not None:
        play += last_bm - start
    hops.sort()
    return {
        "games": games,
        "plies": plies,
        "play_s": play,
        "plies_per_s": plies / play if play else float("nan"),
        "tree_engines": len(files),
        "hop_median_ms": statistics.median(hops) * 1e3 if hops else float("nan"),
        "hop_p90_ms": hops[int(0.9 * (len(hops) - 1))] * 1e3 if hops else float("nan"),
        "hop_p99_ms": hops[int(0.99 * (len(hops) - 1))] * 1e3 if hops else float("nan"),
        "hops": len(hops),
        "harness_play_cpu_s": sum(p[0] for p in parent),
        "harness_play_run_s": sum(p[1] for p in parent),
        "harness_play_rqwait_s": sum(p[2] for p in parent),
        "harness_play_run_ms_per_ply": sum(p[1] for p in parent) / plies * 1e3
        if plies
        else float("nan"),
        "harness_play_vcsw_per_ply": sum(p[3] for p in parent) / plies if plies else float("nan"),
        "harness_play_ivcsw_per_ply": sum(p[4] for p in parent) / plies if plies else float("nan"),
        "engine_wakeups_per_ply": wakeups / plies if plies else float("nan"),
        "harness_vmhwm_mib": max(hwm) / 1024 if hwm else float("nan"),
        "engine_cpu_s": cpu,
        "engine_cpu_run_s": cpu_run,
        "engine_cpu_run_ms_per_ply": cpu_run / plies * 1e3 if plies else float("nan"),
    }


if __name__ == "__main__":
    import sys

    for folder in sys.argv[1:]:
        print(
            folder,
            json.dumps(
                {k: round(v, 4) if isinstance(v, float) else v for k, v in load(folder).items()}
            ),
        )
