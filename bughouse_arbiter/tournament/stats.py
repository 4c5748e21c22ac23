"""Tournament statistics: pure functions of game results, no I/O.

Scores are from one side's point of view: 1 a win, 0.5 a draw, 0 a loss.
Games are paired by opening (the same opening with the teams swapped), and a
pair's total (0, 0.5, 1, 1.5 or 2 points) is one of the five pentanomial
outcomes LL, LD, DD/WL, WD, WW.

- ``elo_from_score``: logistic Elo, ``-400 log10(1/s - 1)``.
- ``Summary``: W/L/D, score, Elo and normalized Elo (nElo) with 95%
  intervals, and LOS, all from one model as fastchess computes them: the
  pentanomial variance when there are pairs, the game variance otherwise.
  ``LOS = Phi((score - 0.5) / stderr)``, so LOS is above 97.5% exactly when
  the interval is above 0. While the variance is 0 (one game, or all pairs
  alike) there is no interval (``interval_known``).
- ``Sprt``: the generalized SPRT on the pentanomial model as fishtest and
  fastchess compute it (Michel Van den Bergh, "Comments on Normalized Elo"):
  the log-likelihood ratio of the maximum-likelihood pentanomial
  distributions whose expected score (``logistic``) or normalized Elo
  (``normalized``) is elo0 and elo1; empty categories count 1e-3. Its
  ``bayesian`` model is fastchess's: the trinomial (W/D/L) of all games, the
  expected scores of elo0 and elo1 under BayesElo with the draw Elo the
  games show.
- ``fit_ratings``: a maximum-likelihood Bradley–Terry (logistic Elo) fit of
  any number of entities from game scores, where each side of a game is a
  weighted sum of entities (a participant, or the two engines of a mixed
  team, so that a team's strength is the sum of its members'); intervals
  from the inverse Fisher information.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import attrs

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054
#: What an empty pentanomial category counts as in the SPRT (as fastchess).
EMPTY_CATEGORY = 1e-3
#: Pair scores of the five pentanomial categories (points out of 2, halved).
PENTA_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: A game's scores: loss, draw, win.
WDL_SCORES = (0.0, 0.5, 1.0)
#: The SPRT's models (``Sprt.model``).
SPRT_MODELS = ("normalized", "logistic", "bayesian")
_NELO_SCALE = 800.0 / math.log(10.0)
#: Largest |elo0|, |elo1| of the normalized model (its fixed point starts from the
#: uniform distribution, which cannot reach a much larger normalized Elo).
MAX_NELO = 200.0


def elo_from_score(score: float) -> float:
    """The logistic Elo difference that expects ``score`` (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@attrs.frozen
class Pentanomial:
    """Counts of opening pairs by points scored in the pair (0, 0.5, 1, 1.5, 2).

    ``counts[2]`` holds both DD and WL pairs (one point each).
    """

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @classmethod
    def from_pairs(cls, pair_points: Iterable[float]) -> Pentanomial:
        counts = [0] * 5
        for points in pair_points:
            index = round(points * 2)
            if not 0 <= index <= 4 or abs(index - points * 2) > 1e-9:
                raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {points}")
            counts[index] += 1
        return cls((counts[0], counts[1], counts[2], counts[3], counts[4]))

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def as_dict(self) -> dict[str, int]:
        return dict(zip(("LL", "LD", "DD+WL", "WD", "WW"), self.counts, strict=True))


@attrs.frozen(kw_only=True)
class Summary:
    """One side's results against another, with the usual statistics."""

    wins: int
    losses: int
    draws: int
    penta: Pentanomial = Pentanomial()

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.5

    @property
    def draw_ratio(self) -> float:
        return self.draws / self.games if self.games else 0.0

    @property
    def elo(self) -> float:
        return elo_from_score(self.score)

    def _model(self) -> tuple[float, int]:
        """The variance of one game's score, and how many samples the mean is of:
        from the pairs (twice the variance of a pair's score per game, as
        fastchess) when there are two or more, else from the games."""
        if self.penta.pairs >= 2:
            n = self.penta.pairs
            probs = [c / n for c in self.penta.counts]
            mean = sum(p * a for p, a in zip(probs, PENTA_SCORES, strict=True))
            var = sum(p * (a - mean) ** 2 for p, a in zip(probs, PENTA_SCORES, strict=True))
            return 2.0 * var, 2 * n
        n = self.games
        if n == 0:
            return 0.0, 0
        s = self.score
        var = (self.wins * (1 - s) ** 2 + self.draws * (0.5 - s) ** 2 + self.losses * s**2) / n
        return var, n

    def score_stderr(self) -> float:
        """Standard error of the mean score per game (pentanomial when there are pairs)."""
        var, n = self._model()
        return math.sqrt(var / n) if n else 0.0

    @property
    def interval_known(self) -> bool:
        """Whether the results bound the score at all (their variance is not 0)."""
        return self.score_stderr() > 0.0

    def elo_interval(self) -> tuple[float, float]:
        """The 95% interval of the Elo difference (±inf when the score bound leaves
        (0, 1), and both while ``interval_known`` is False)."""
        s, se = self.score, self.score_stderr()
        if se == 0.0:
            return -math.inf, math.inf
        return elo_from_score(s - Z95 * se), elo_from_score(s + Z95 * se)

    def elo_margin(self) -> float:
        """Half the interval's width (inf if unbounded)."""
        low, high = self.elo_interval()
        return (high - low) / 2

    @property
    def nelo(self) -> float | None:
        """Normalized Elo, ``(score - 0.5) / sigma * 800 / ln 10`` with ``sigma`` the
        standard deviation of one game's score (None while it is 0)."""
        var, _ = self._model()
        if var <= 0.0:
            return None
        return (self.score - 0.5) / math.sqrt(var) * _NELO_SCALE

    def nelo_margin(self) -> float | None:
        """Half the 95% interval of the normalized Elo (None while it is unknown)."""
        var, n = self._model()
        if var <= 0.0:
            return None
        return Z95 / math.sqrt(n) * _NELO_SCALE

    @property
    def los(self) -> float:
        """Likelihood of superiority, ``Phi((score - 0.5) / stderr)``, from the
        interval's own model (1 or 0 for a certain score, 0.5 with no game)."""
        se = self.score_stderr()
        if se == 0.0:
            return 0.5 if self.score == 0.5 else float(self.score > 0.5)
        return normal_cdf((self.score - 0.5) / se)


@attrs.define
class Tally:
    """One side's W/L/D and pentanomial, kept game by game: its ``summary`` is
    what ``results.pairing_summary`` gives for the same games, in any order."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    counts: list[int] = attrs.Factory(lambda: [0] * 5)
    #: The points of the one game seen so far of each pair not yet complete.
    halves: dict[int, float] = attrs.Factory(dict)

    def add(self, pair: int, points: float) -> None:
        """Counts a game of opening pair ``pair`` in which the side scored ``points``."""
        if points not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game scores 0, 0.5 or 1 point, not {points}")
        self.wins += points == 1.0
        self.losses += points == 0.0
        self.draws += points == 0.5
        other = self.halves.pop(pair, None)
        if other is None:
            self.halves[pair] = points
        else:
            self.counts[round((points + other) * 2)] += 1

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def penta(self) -> Pentanomial:
        c = self.counts
        return Pentanomial((c[0], c[1], c[2], c[3], c[4]))

    def summary(self) -> Summary:
        return Summary(wins=self.wins, losses=self.losses, draws=self.draws, penta=self.penta)


# -- SPRT ---------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Sprt:
    """A GSPRT of H0: elo = elo0 against H1: elo = elo1 on pentanomial counts."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    #: ``normalized`` (nElo, fishtest's and fastchess's default), ``logistic``
    #: Elo (both on the pentanomial) or ``bayesian`` (BayesElo, on W/D/L).
    model: str = "normalized"

    def __attrs_post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("elo0 must be below elo1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("alpha and beta must lie in (0, 1) and add up to less than 1")
        if self.model not in SPRT_MODELS:
            raise ValueError(
                f"unknown SPRT model {self.model!r} (normalized, logistic or bayesian)"
            )
        if self.model == "normalized" and max(abs(self.elo0), abs(self.elo1)) > MAX_NELO:
            raise ValueError(
                f"normalized Elo bounds beyond ±{MAX_NELO:g} are not supported; "
                "use model=logistic for such differences"
            )

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr_of(self, record: Summary | Tally) -> float:
        """The log-likelihood ratio after ``record``'s games (its pairs, or its
        W/D/L under the bayesian model)."""
        return self.llr(record.penta, (record.wins, record.draws, record.losses))

    def llr(self, penta: Pentanomial, wdl: tuple[int, int, int] | None = None) -> float:
        """The log-likelihood ratio after ``penta``'s pairs (0 with none); under
        the bayesian model after the games' ``wdl`` (wins, draws, losses) instead."""
        if self.model == "bayesian":
            if wdl is None:
                raise ValueError("the bayesian SPRT model counts games: give their W/D/L")
            return self._bayesian_llr(*wdl)
        if penta.pairs == 0:
            return 0.0
        counts = [c if c else EMPTY_CATEGORY for c in penta.counts]
        total = sum(counts)
        probs = [c / total for c in counts]
        if self.model == "logistic":
            p0 = mle_with_mean(PENTA_SCORES, probs, score_from_elo(self.elo0))
            p1 = mle_with_mean(PENTA_SCORES, probs, score_from_elo(self.elo1))
        else:
            t0 = math.sqrt(2.0) * self.elo0 / _NELO_SCALE
            t1 = math.sqrt(2.0) * self.elo1 / _NELO_SCALE
            p0 = mle_with_t(PENTA_SCORES, probs, 0.5, t0)
            p1 = mle_with_t(PENTA_SCORES, probs, 0.5, t1)
        return total * sum(
            p * (math.log(a) - math.log(b)) for p, a, b in zip(probs, p1, p0, strict=True)
        )

    def _bayesian_llr(self, wins: int, draws: int, losses: int) -> float:
        """fastchess's bayesian LLR: 0 until both a win and a loss are in."""
        if wins == 0 or losses == 0:
            return 0.0
        counts = [c if c else EMPTY_CATEGORY for c in (losses, draws, wins)]
        total = sum(counts)
        probs = [c / total for c in counts]
        lose, win = probs[0], probs[2]
        draw_elo = 200.0 * math.log10((1 - lose) / lose * (1 - win) / win)
        p0 = mle_with_mean(WDL_SCORES, probs, bayeselo_score(self.elo0, draw_elo))
        p1 = mle_with_mean(WDL_SCORES, probs, bayeselo_score(self.elo1, draw_elo))
        return total * sum(
            p * (math.log(a) - math.log(b)) for p, a, b in zip(probs, p1, p0, strict=True)
        )

    def decision(self, llr: float) -> str | None:
        """``H1`` (elo1 accepted), ``H0``, or None while undecided."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


def bayeselo_score(elo: float, draw_elo: float) -> float:
    """The expected score of a BayesElo difference ``elo`` with draw Elo ``draw_elo``."""
    win = 1.0 / (1.0 + math.pow(10.0, (draw_elo - elo) / 400.0))
    loss = 1.0 / (1.0 + math.pow(10.0, (draw_elo + elo) / 400.0))
    return win + 0.5 * (1.0 - win - loss)


def mle_with_mean(scores: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution on ``scores`` nearest ``probs`` (maximum likelihood) with mean ``s``.

    ``p_i = phat_i / (1 + theta (a_i - s))`` with theta the root of
    ``sum phat_i (a_i - s) / (1 + theta (a_i - s)) = 0`` (found by bisection).
    """
    lo = -1.0 / (max(scores) - s)
    hi = -1.0 / (min(scores) - s)
    terms = [(p * (a - s), a - s) for a, p in zip(scores, probs, strict=True)]
    theta = _bisect_terms(terms, lo, hi)
    return [p / (1.0 + theta * (a - s)) for a, p in zip(scores, probs, strict=True)]


def mle_with_t(
    scores: Sequence[float], probs: Sequence[float], mu_ref: float, t_star: float
) -> list[float]:
    """The maximum-likelihood distribution with ``(mu - mu_ref) / sigma = t_star``
    (normalized Elo), by the fixed-point iteration of Van den Bergh's section 4.1."""
    n = len(scores)
    p = [1.0 / n] * n
    for _ in range(50):
        mu = sum(a * q for a, q in zip(scores, p, strict=True))
        sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(scores, p, strict=True)))
        phi = [a - mu_ref - 0.5 * t_star * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in scores]
        if not min(phi) < 0.0 < max(phi):
            break  # no distribution on these scores reaches t_star: keep the nearest so far
        lo, hi = -1.0 / max(phi), -1.0 / min(phi)
        terms = [(q * g, g) for q, g in zip(probs, phi, strict=True)]
        theta = _bisect_terms(terms, lo, hi)
        new = [q / (1.0 + theta * g) for q, g in zip(probs, phi, strict=True)]
        change = max(abs(a - b) for a, b in zip(new, p, strict=True))
        p = new
        if change < 1e-12:
            break
    return p


def _bisect_terms(terms: Sequence[tuple[float, float]], lo: float, hi: float) -> float:
    """The root strictly inside (lo, hi) of the decreasing ``sum(c / (1 + theta g))``
    over ``terms`` of ``(c, g)``, by bisection (``c`` is ``p g``, computed once)."""
    a, b = lo, hi
    for _ in range(200):
        mid = (a + b) / 2
        if mid in (a, b):
            break
        if sum([c / (1.0 + mid * g) for c, g in terms]) > 0:
            a = mid
        else:
            b = mid
    return (a + b) / 2


# -- rating fits --------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class RatedGame:
    """One game (or ``weight`` identical games): ``side`` scored ``score`` against ``other``.

    Each side maps entity names to their weight in that side's strength
    (``{"X": 1}`` for a participant, ``{"X": 1, "Y": 1}`` for a mixed team).
    """

    side: Mapping[str, float]
    other: Mapping[str, float]
    score: float
    weight: float = 1.0


@attrs.frozen(kw_only=True)
class Rating:
    elo: float
    #: Half-width of the 95% interval (inf when the data cannot bound it).
    margin: float


def fit_ratings(
    games: Sequence[RatedGame], *, prior_draws: float = 0.0, iterations: int = 100
) -> dict[str, Rating]:
    """Maximum-likelihood logistic-Elo ratings, centred on 0 (their mean).

    Maximizes ``sum w [s log F(d) + (1 - s) log F(-d)]`` with ``d`` the
    difference of the sides' strengths and ``F(d) = 1 / (1 + 10^(-d/400))``.
    ``prior_draws`` adds that many virtual draws to every distinct pairing, so
    a perfect score still gets a finite rating (0: the plain MLE). Intervals
    are ``1.96 sqrt`` of the diagonal of the inverse information, for the
    ratings relative to their mean.
    """
    games = _merged(games)
    names = sorted({name for g in games for name in (*g.side, *g.other)})
    if len(names) < 2:
        return {name: Rating(elo=0.0, margin=math.inf) for name in names}
    index = {name: i for i, name in enumerate(names)}
    rows: list[tuple[list[float], float, float]] = []  # (design row, score, weight)
    pairings: dict[tuple[float, ...], list[float]] = {}
    for g in games:
        row = [0.0] * len(names)
        for name, w in g.side.items():
            row[index[name]] += w
        for name, w in g.other.items():
            row[index[name]] -= w
        rows.append((row, g.score, g.weight))
        pairings.setdefault(tuple(row), row)
    if prior_draws > 0:
        rows += [(row, 0.5, prior_draws) for row in pairings.values()]
    k = math.log(10.0) / 400.0
    m = len(names) - 1  # free parameters: ratings of names[1:], names[0] fixed at 0
    x = [0.0] * m
    info = [[0.0] * m for _ in range(m)]
    for _ in range(iterations):
        grad = [0.0] * m
        info = [[0.0] * m for _ in range(m)]
        for row, s, w in rows:
            d = sum(row[j + 1] * x[j] for j in range(m))
            p = 1.0 / (1.0 + math.exp(-k * d))
            for a in range(m):
                ra = row[a + 1]
                if ra == 0:
                    continue
                grad[a] += w * k * (s - p) * ra
                for b in range(m):
                    info[a][b] += w * k * k * p * (1 - p) * ra * row[b + 1]
        step = _solve(info, grad)
        if step is None:
            break
        biggest = max(abs(v) for v in step)
        if biggest > 400:  # keep Newton steps sane while far from the optimum
            step = [v * 400 / biggest for v in step]
        x = [a + b for a, b in zip(x, step, strict=True)]
        if biggest < 1e-9:
            break
    cov = _inverse(info)
    full = [0.0, *x]
    mean = sum(full) / len(full)
    ratings: dict[str, Rating] = {}
    n = len(names)
    for i, name in enumerate(names):
        # r_i - mean as a linear map of the free parameters x_1..x_m.
        coef = [(1.0 if j + 1 == i else 0.0) - 1.0 / n for j in range(m)]
        if cov is None:
            margin = math.inf
        else:
            var = sum(coef[a] * cov[a][b] * coef[b] for a in range(m) for b in range(m))
            margin = Z95 * math.sqrt(max(var, 0.0))
        ratings[name] = Rating(elo=full[i] - mean, margin=margin)
    return ratings


def _merged(games: Sequence[RatedGame]) -> list[RatedGame]:
    """``games`` with identical ones made one of their summed weight, in a fixed
    order: the fit costs the same for 100,000 games as for 10, and does not
    depend on the order the games came in."""
    weights: dict[tuple[tuple[tuple[str, float], ...], tuple[tuple[str, float], ...], float], float]
    weights = {}
    for g in games:
        key = (tuple(sorted(g.side.items())), tuple(sorted(g.other.items())), g.score)
        weights[key] = weights.get(key, 0.0) + g.weight
    return [
        RatedGame(side=dict(side), other=dict(other), score=score, weight=weight)
        for (side, other, score), weight in sorted(weights.items())
    ]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float] | None:
    inverse = _inverse(matrix)
    if inverse is None:
        return None
    return [sum(r[j] * vector[j] for j in range(len(vector))) for r in inverse]


def _inverse(matrix: list[list[float]]) -> list[list[float]] | None:
    """Gauss–Jordan inverse with partial pivoting; None if (nearly) singular."""
    n = len(matrix)
    a = [list(row) + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    scale = max((abs(v) for row in matrix for v in row), default=0.0)
    if scale == 0.0:
        return None
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) <= 1e-12 * scale:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        lead = a[col][col]
        a[col] = [v / lead for v in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0.0:
                factor = a[r][col]
                a[r] = [v - factor * w for v, w in zip(a[r], a[col], strict=True)]
    return [row[n:] for row in a]
