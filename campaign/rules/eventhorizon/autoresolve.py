"""Event Horizon's dice alternative to a tactical battle: dice counts, resolution and exact odds.

Pure Python (standard library only). Rule book: ``seeds/003_…``, "Optional Campaign Rules",
"Alternative to a Tactical Battle" (and its "Force Multipliers"); project ruling: ``RULINGS.md``
"Auto-resolve odds"; further rulings made here are listed in ``docs/rulings.md`` and repeated
beside the code below.

In short:

* the weaker side (smaller BP total) rolls 1d6; the stronger side rolls its BP ratio
  (stronger / weaker) in dice, rounded to the nearest whole number with a half rounding up, never
  fewer than 1; equal totals roll 1d6 each;
* force multipliers then add one die each: a Star Cruiser against a fleet with none; a Destroyer
  against a fleet with neither Destroyers nor Star Cruisers; planetary defences in the attacked
  hex (to their owner);
* the side with more 6s wins; if the 6s tie, more 5s; … down to 1s. If every face count ties it
  is a draw: the bigger BP total wins and destroys one enemy ship on top of what the 6s destroyed;
  with equal BP totals as well the round is void and both sides roll again;
* each 6 a side rolls destroys one enemy ship (which ship is the loser's standing loss order,
  chosen by the caller: this module only counts).

``resolve`` plays a battle with a ``Dice`` object; ``odds`` computes the exact chances and the
expected losses without rolling (no Monte Carlo), by counting outcomes with integers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from campaign.rules.dice import Dice

RULE = "003 Alternative to a Tactical Battle"
MULTIPLIER_RULE = "003 Alternative to a Tactical Battle: Force Multipliers"
ODDS_RULING = "house ruling: Auto-resolve odds"
PURPOSE = "003 Alternative to a Tactical Battle"  # every roll is logged under the rule's name

SIDES = 6
FACES_HIGH_TO_LOW = (6, 5, 4, 3, 2, 1)  # "most 6s wins … if no 5s are rolled count 4s etc."
MAX_ROUNDS = 1000  # a re-roll chain this long means broken dice, not bad luck (P <= 6**-1000)

A, B = "a", "b"


@dataclass(frozen=True)
class Side:
    """One side of the battle, as the rule needs it.

    ``bp`` is the fleet's BP total: the sum of its ships' BP, hero crews included (RULINGS.md
    "Auto-resolve odds"); planetary defences are not part of it, they are ``has_defences`` (they
    belong to the hex, not the fleet). ``ships`` caps the ships a side can actually lose in
    ``resolve``; ``None`` means "not known" (the odds calculator never needs it) and leaves the
    losses uncapped.
    """

    bp: int
    has_star_cruiser: bool = False
    has_destroyer: bool = False
    has_defences: bool = False
    ships: int | None = None

    def __post_init__(self) -> None:
        # bool is an int subclass; True BP would be a caller's bug, not a 1 BP fleet.
        if isinstance(self.bp, bool) or not isinstance(self.bp, int):
            raise TypeError(f"{RULE}: a fleet's BP total must be a whole number, not {self.bp!r}")
        if self.bp < 0:
            raise ValueError(f"{RULE}: a fleet's BP total cannot be negative ({self.bp})")
        if self.ships is not None:
            if isinstance(self.ships, bool) or not isinstance(self.ships, int):
                raise TypeError(f"{RULE}: a fleet's ship count must be a whole number, not {self.ships!r}")
            if self.ships < 0:
                raise ValueError(f"{RULE}: a fleet's ship count cannot be negative ({self.ships})")
        # A Star Cruiser (40 BP) or a Destroyer adds BP, so a 0 BP fleet holding one is a
        # contradiction in the caller's data; refusing it keeps the zero-BP ruling simple.
        if self.bp == 0 and (self.has_star_cruiser or self.has_destroyer):
            raise ValueError(f"{RULE}: a fleet with a Star Cruiser or Destroyer cannot have 0 BP")


@dataclass(frozen=True)
class AutoResult:
    """What ``resolve`` decided.

    ``a_faces`` / ``b_faces`` are the deciding round's faces; ``rolls`` holds every round's
    ``(a_faces, b_faces)`` in order (more than one only after equal-BP full ties). Losses are
    ship counts, capped at each side's ``ships`` when that is known; ``drawn_on_faces`` says the
    deciding round tied on every face and the bigger BP total won. ``notes`` explain every die and
    every loss, for the battle report.
    """

    a_dice: int
    b_dice: int
    a_faces: tuple[int, ...]
    b_faces: tuple[int, ...]
    rolls: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    winner: str
    a_losses: int
    b_losses: int
    drawn_on_faces: bool
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Odds:
    """Exact chances of ``odds(a, b)``; the ``*_exact`` fields are Fractions, the rest floats.

    ``expected_*_losses`` are not capped by fleet size: they are the expected number of 6s the
    enemy rolls in the deciding round, plus the one ship a draw costs the smaller BP total.
    ``p_draw`` is the chance the battle is settled by the draw rule (0 with equal BP totals,
    where a full tie is re-rolled); ``expected_rounds`` counts those re-rolls.
    """

    a_dice: int
    b_dice: int
    p_a_wins: float
    p_b_wins: float
    expected_a_losses: float
    expected_b_losses: float
    p_a_wins_exact: Fraction
    p_b_wins_exact: Fraction
    expected_a_losses_exact: Fraction
    expected_b_losses_exact: Fraction
    p_draw: Fraction
    expected_rounds: Fraction


# --- Dice counts -----------------------------------------------------------------------------


def _round_half_up(value: Fraction) -> int:
    """Nearest whole number, a half rounding up (RULINGS: "a half rounds up"); exact, no floats."""
    return (value.numerator * 2 + value.denominator) // (value.denominator * 2)


def _describe_ratio(ratio: Fraction) -> str:
    if ratio.denominator == 1:
        return f"{ratio.numerator} to 1"
    return f"{ratio.numerator} to {ratio.denominator} ({float(ratio):.2f} to 1)"


def _check_pair(a: Side, b: Side) -> None:
    if a.bp == 0 and b.bp == 0:
        raise ValueError(f"{RULE}: both fleets have 0 BP; there is no battle to resolve")
    if a.has_defences and b.has_defences:
        # Only one player can own the attacked hex's planetary defences.
        raise ValueError(f"{MULTIPLIER_RULE}: only one side can own the attacked hex's planetary defences")


def dice_counts(a: Side, b: Side) -> tuple[int, int, tuple[str, ...]]:
    """``(a_dice, b_dice, notes)``: how many d6 each side rolls, and why (one note per reason).

    Zero BP (ruling, docs/rulings.md): a side with 0 BP has nothing to set against the other, so
    it rolls no base dice and the other side rolls the rule's minimum of 1; force multipliers
    still apply, so planetary defences in an empty hex fight on their own with one die. A side
    that ends up with no dice at all cannot out-roll anyone and loses. Both sides 0 BP is refused.
    """
    _check_pair(a, b)
    notes: list[str] = []
    if a.bp == b.bp:
        a_dice = b_dice = 1
        notes.append(f"Both fleets have {a.bp} BP: 1d6 each ({RULE}).")
    elif min(a.bp, b.bp) == 0:
        zero, other = (A, B) if a.bp == 0 else (B, A)
        a_dice, b_dice = (0, 1) if zero == A else (1, 0)
        notes.append(
            f"Fleet {zero.upper()} has 0 BP: it rolls no base dice and fleet {other.upper()} rolls "
            f"the minimum 1d6 ({ODDS_RULING}; site ruling A2)."
        )
    else:
        strong, weak = (A, B) if a.bp > b.bp else (B, A)
        strong_bp, weak_bp = max(a.bp, b.bp), min(a.bp, b.bp)
        ratio = Fraction(strong_bp, weak_bp)
        strong_dice = max(1, _round_half_up(ratio))  # ratio > 1 here; the floor is the rule's
        a_dice, b_dice = (strong_dice, 1) if strong == A else (1, strong_dice)
        rounding = "" if ratio.denominator == 1 else f", rounded to {strong_dice} (a half rounds up; {ODDS_RULING})"
        notes.append(
            f"Fleet A {a.bp} BP, fleet B {b.bp} BP: odds {_describe_ratio(ratio)} in favour of "
            f"{strong.upper()}{rounding}; {strong.upper()} rolls {strong_dice}d6, "
            f"{weak.upper()} rolls 1d6 ({RULE})."
        )

    extra = {A: 0, B: 0}
    for me, mine, theirs in ((A, a, b), (B, b, a)):
        if mine.has_star_cruiser and not theirs.has_star_cruiser:
            extra[me] += 1
            notes.append(f"Fleet {me.upper()} +1 die: a Star Cruiser against a fleet with none ({MULTIPLIER_RULE}).")
        if mine.has_destroyer and not (theirs.has_destroyer or theirs.has_star_cruiser):
            extra[me] += 1
            notes.append(
                f"Fleet {me.upper()} +1 die: a Destroyer against a fleet with no Destroyers or "
                f"Star Cruisers ({MULTIPLIER_RULE})."
            )
        if mine.has_defences:
            extra[me] += 1
            notes.append(f"Fleet {me.upper()} +1 die: owns the attacked hex's planetary defences ({MULTIPLIER_RULE}).")
    a_dice += extra[A]
    b_dice += extra[B]
    if extra[A] or extra[B]:
        notes.append(f"Fleet A rolls {a_dice}d6, fleet B rolls {b_dice}d6.")
    return a_dice, b_dice, tuple(notes)


# --- Comparing faces -------------------------------------------------------------------------


def face_counts(faces: Sequence[int]) -> tuple[int, ...]:
    """How many 6s, 5s, … 1s: the vector the rule compares, highest face first."""
    return tuple(sum(1 for face in faces if face == value) for value in FACES_HIGH_TO_LOW)


def compare(a_faces: Sequence[int], b_faces: Sequence[int]) -> int:
    """+1 if A's faces win, -1 if B's do, 0 for a full tie (every face count equal).

    RULINGS.md "Auto-resolve odds": "most 6s, else most 5s, …" compares counts face by face, so
    this is a lexicographic comparison of the count vectors (6s first). A side with no dice has
    all-zero counts and loses to any roll.
    """
    a_counts, b_counts = face_counts(a_faces), face_counts(b_faces)
    if a_counts == b_counts:
        return 0
    return 1 if a_counts > b_counts else -1


def _deciding_face(a_faces: Sequence[int], b_faces: Sequence[int]) -> str:
    for value, a_count, b_count in zip(FACES_HIGH_TO_LOW, face_counts(a_faces), face_counts(b_faces)):
        if a_count != b_count:
            return f"{value}s: {a_count} to {b_count}"
    return "every face tied"


# --- Resolution ------------------------------------------------------------------------------


def _roll(dice: Dice, count: int) -> tuple[int, ...]:
    # A side with no dice (0 BP, no multipliers) makes no roll: a 0d6 roll cannot be logged.
    if count == 0:
        return ()
    return dice.roll(count, SIDES, PURPOSE).faces


def _capped(losses: int, ships: int | None) -> int:
    return losses if ships is None else min(losses, ships)


def resolve(a: Side, b: Side, dice: Dice) -> AutoResult:
    """Fight the battle with ``dice``: per round, roll A's dice, then B's (two rolls).

    Equal-BP full ties void the round (ruling, docs/rulings.md: no losses, both sides roll again
    with the same dice), so only the deciding round's 6s destroy ships.
    """
    a_dice, b_dice, count_notes = dice_counts(a, b)
    notes = list(count_notes)
    rounds: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    while True:
        if len(rounds) >= MAX_ROUNDS:
            raise RuntimeError(f"{RULE}: {MAX_ROUNDS} full ties running; the dice cannot be fair")
        a_faces = _roll(dice, a_dice)
        b_faces = _roll(dice, b_dice)
        rounds.append((a_faces, b_faces))
        result = compare(a_faces, b_faces)
        if result != 0 or a.bp != b.bp:
            break
        notes.append(
            f"Round {len(rounds)}: A {list(a_faces)}, B {list(b_faces)}: every face tied and both "
            f"fleets have {a.bp} BP; the round is void and both sides roll again ({ODDS_RULING})."
        )

    drawn = result == 0
    a_losses = b_faces.count(6)  # each 6 B rolled destroys one of A's ships
    b_losses = a_faces.count(6)
    prefix = f"Round {len(rounds)}: " if len(rounds) > 1 else ""
    if drawn:
        winner = A if a.bp > b.bp else B
        if winner == A:
            b_losses += 1
        else:
            a_losses += 1
        notes.append(
            f"{prefix}A {list(a_faces)}, B {list(b_faces)}: every face tied, a draw; fleet "
            f"{winner.upper()} has the bigger BP total, wins and destroys one more ship ({RULE})."
        )
    else:
        winner = A if result > 0 else B
        notes.append(
            f"{prefix}A {list(a_faces)}, B {list(b_faces)}: fleet {winner.upper()} wins on "
            f"{_deciding_face(a_faces, b_faces)} ({RULE})."
        )
    notes.append(
        f"Fleet A loses {a_losses} ship(s), fleet B loses {b_losses} ship(s): one per enemy 6"
        f"{' plus one for the draw' if drawn else ''}, chosen by the loser's standing loss order."
    )
    capped_a, capped_b = _capped(a_losses, a.ships), _capped(b_losses, b.ships)
    for name, raw, capped in ((A, a_losses, capped_a), (B, b_losses, capped_b)):
        if capped < raw:
            notes.append(f"Fleet {name.upper()} has only {capped} ship(s) to lose.")
    return AutoResult(
        a_dice=a_dice,
        b_dice=b_dice,
        a_faces=a_faces,
        b_faces=b_faces,
        rolls=tuple(rounds),
        winner=winner,
        a_losses=capped_a,
        b_losses=capped_b,
        drawn_on_faces=drawn,
        notes=tuple(notes),
    )


# --- Exact odds ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Counts:
    """Outcome counts of one round out of ``6**(a_dice + b_dice)`` equally likely rolls."""

    total: int
    a_wins: int
    b_wins: int
    ties: int
    sixes_in_ties: int  # sum over fully tied outcomes of A's 6s (equal to B's 6s in a tie)


def _round_counts(a_dice: int, b_dice: int) -> _Counts:
    """Count one round's outcomes exactly, with integers only.

    Why this works: compare the face-count vectors from 6 down. While the counts are tied, the
    dice not yet accounted for all show faces at or below the current face ``f``. Of ``r`` such
    dice, ``C(r, c) * (f-1)**(r-c)`` assignments have exactly ``c`` showing ``f`` (the rest
    below it); summing over ``c`` gives ``f**r``, every assignment once. A state is the number of
    A's dice still unaccounted for; B's is that minus ``a_dice - b_dice``, which ties never
    change, so the states form a line and a face costs O(n**2) big-integer products at worst.
    ``tied[r]`` counts the ways the already-matched dice could have come up (their faces only).
    """
    offset = a_dice - b_dice
    tied: dict[int, int] = {a_dice: 1}
    sixes: dict[int, int] = {a_dice: 0}  # sum of A's 6s over the tied ways into each state
    a_wins = b_wins = 0
    for face in FACES_HIGH_TO_LOW:
        below = face - 1
        next_tied: dict[int, int] = {}
        next_sixes: dict[int, int] = {}
        for ra, ways in tied.items():
            rb = ra - offset
            lowest = min(ra, rb)
            # w_x[c]: ways x's remaining dice show exactly c of this face (c <= lowest suffices:
            # a count above the other side's remaining dice is a win whatever it is).
            w_a = [comb(ra, c) * below ** (ra - c) for c in range(lowest + 1)]
            w_b = [comb(rb, c) * below ** (rb - c) for c in range(lowest + 1)]
            # at_least_x[k]: ways x shows k or more of this face = face**r minus the counts below k.
            total_a, total_b = face**ra, face**rb
            win_a = win_b = 0
            below_a = below_b = 0
            for c in range(lowest + 1):
                # A wins with more of this face than B's c: at_least_a(c+1) = total - sum(w_a[0..c]).
                below_a += w_a[c]
                below_b += w_b[c]
                win_a += w_b[c] * (total_a - below_a)
                win_b += w_a[c] * (total_b - below_b)
                # Tied on this face with c each: the c dice are fixed, the rest carry on down.
                pairs = comb(ra, c) * comb(rb, c)
                key = ra - c
                next_tied[key] = next_tied.get(key, 0) + ways * pairs
                carried = sixes[ra] * pairs + (ways * pairs * c if face == 6 else 0)
                next_sixes[key] = next_sixes.get(key, 0) + carried
            a_wins += ways * win_a
            b_wins += ways * win_b
        tied, sixes = next_tied, next_sixes
    # After the 1s every die is accounted for; a tie can only end with none left on either side.
    ties = tied.get(0, 0) if offset == 0 else 0
    sixes_in_ties = sixes.get(0, 0) if offset == 0 else 0
    total = SIDES ** (a_dice + b_dice)
    assert a_wins + b_wins + ties == total  # every outcome counted exactly once
    return _Counts(total=total, a_wins=a_wins, b_wins=b_wins, ties=ties, sixes_in_ties=sixes_in_ties)


def odds(a: Side, b: Side) -> Odds:
    """Exact chances and expected (uncapped) losses of resolving ``a`` against ``b``.

    Unequal BP: a full tie is a draw won by the bigger BP total, costing the other side one more
    ship, so ``E[B's losses] = a_dice/6 + P(draw)`` when A is bigger. Equal BP: a full tie is void
    and re-rolled (ruling), so the deciding round is a round conditioned on not tying:
    ``P(A wins) = P(A wins a round) / (1 - P(tie))`` and ``E[6s] = (n/6 - E[6s; tie]) / (1 - P(tie))``.
    """
    a_dice, b_dice, _ = dice_counts(a, b)
    counts = _round_counts(a_dice, b_dice)
    total = counts.total
    if counts.ties and a.bp == b.bp:
        deciding = total - counts.ties  # outcomes of the round that ends the battle
        p_a = Fraction(counts.a_wins, deciding)
        p_b = Fraction(counts.b_wins, deciding)
        # Tied rounds have equal dice, so A's and B's 6s in a tie are the same total.
        a_sixes = Fraction(a_dice * total, SIDES) - counts.sixes_in_ties
        b_sixes = Fraction(b_dice * total, SIDES) - counts.sixes_in_ties
        exp_b_losses = a_sixes / deciding
        exp_a_losses = b_sixes / deciding
        p_draw = Fraction(0)
        rounds = Fraction(total, deciding)  # geometric number of rounds
    else:
        p_draw = Fraction(counts.ties, total)
        bigger_a = a.bp > b.bp
        p_a = Fraction(counts.a_wins, total) + (p_draw if bigger_a else 0)
        p_b = Fraction(counts.b_wins, total) + (0 if bigger_a else p_draw)
        exp_b_losses = Fraction(a_dice, SIDES) + (p_draw if bigger_a else 0)
        exp_a_losses = Fraction(b_dice, SIDES) + (0 if bigger_a else p_draw)
        rounds = Fraction(1)
    return Odds(
        a_dice=a_dice,
        b_dice=b_dice,
        p_a_wins=float(p_a),
        p_b_wins=float(p_b),
        expected_a_losses=float(exp_a_losses),
        expected_b_losses=float(exp_b_losses),
        p_a_wins_exact=p_a,
        p_b_wins_exact=p_b,
        expected_a_losses_exact=exp_a_losses,
        expected_b_losses_exact=exp_b_losses,
        p_draw=p_draw,
        expected_rounds=rounds,
    )
