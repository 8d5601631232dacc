#!/usr/bin/env python3
"""An independent reference for trailgate-core's reliability statistics (docs/reliability.md and
docs/baselines.md).

Writes `reference.tsv` (pass rate, pass@k, pass^k, the Wilson interval, the runs to resolve,
the pass^k decay) and `newcombe.tsv` (Newcombe's interval for a difference) next to this
file. Python's own integers and `fractions.Fraction` only: no floating point, no code shared
with the Rust side, and where the Rust side takes a shortcut this script takes the long way
(README.md says which). Run it with any Python 3.9+; the output is byte-stable.
"""

import math
import sys
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent

# docs/reliability.md: z as exact decimals.
Z = {
    90: Fraction("1.6449"),
    95: Fraction("1.96"),
    99: Fraction("2.5758"),
}


def floor100(x):
    """floor(100 x) for an exact Fraction."""
    return math.floor(100 * x)


def ceil100(x):
    """ceil(100 x) for an exact Fraction."""
    return math.ceil(100 * x)


def pass_rate(n, c):
    return floor100(Fraction(c, n))


def pass_at_k(n, c, k):
    # math.comb(a, k) is 0 when k > a, as the definition wants.
    return floor100(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


def pass_hat_k(n, c, k):
    return floor100(Fraction(math.comb(c, k), math.comb(n, k)))


def wilson_parts(n, c, z):
    """The closed form of the Wilson bounds, (A -/+ z sqrt(D)) / B, as exact A, D, B."""
    p = Fraction(c, n)
    a = p + z * z / (2 * n)
    d = p * (1 - p) / n + z * z / (4 * n * n)
    b = 1 + z * z / n
    return a, d, b


def wilson(n, c, z):
    """Whole-percent Wilson bounds, lower rounded down and upper rounded up.

    Not from the inequality of docs/reliability.md but from the closed-form roots:
    L/100 <= (A - z sqrt(D))/B
    exactly when r = A - B L/100 >= 0 and z^2 D <= r^2 (both sides of z sqrt(D) <= r are
    non-negative, so squaring keeps the order). Every percent of the grid is tried.
    """
    a, d, b = wilson_parts(n, c, z)
    lower = max(
        v for v in range(0, 101)
        if (a - b * Fraction(v, 100)) >= 0 and z * z * d <= (a - b * Fraction(v, 100)) ** 2
    )
    upper = min(
        v for v in range(0, 101)
        if (b * Fraction(v, 100) - a) >= 0 and (b * Fraction(v, 100) - a) ** 2 >= z * z * d
    )
    return lower, upper


def runs_to_resolve(z):
    """The smallest n with z sqrt(1/(4n) + z^2/(4n^2)) / (1 + z^2/n) <= 0.05, searched.

    Both sides are positive, so the inequality holds exactly when its square does.
    """
    n = 1
    while z * z * (Fraction(1, 4 * n) + z * z / (4 * n * n)) > Fraction(1, 400) * (1 + z * z / n) ** 2:
        n += 1
    return n


# ---- Newcombe: rational enclosures of the irrational bounds, refined until decided ----


def sqrt_enclosure(x, bits):
    """[lo, hi] with lo <= sqrt(x) <= hi, exact when x is the square of a fraction."""
    if x <= 0:
        return Fraction(0), Fraction(0)
    num, den = x.numerator, x.denominator
    rn, rd = math.isqrt(num), math.isqrt(den)
    if rn * rn == num and rd * rd == den:
        return Fraction(rn, rd), Fraction(rn, rd)
    # sqrt(num/den) = sqrt(num*den)/den, scaled by 2^bits.
    scaled = num * den << (2 * bits)
    root = math.isqrt(scaled)
    return Fraction(root, den << bits), Fraction(root + 1, den << bits)


def square_enclosure(lo, hi):
    """The square of a non-negative quantity known to lie in [lo, hi]."""
    lo = max(lo, Fraction(0))
    return lo * lo, hi * hi


def wilson_enclosure(n, c, z, bits):
    """Enclosures of p - l and u - p for the exact Wilson bounds l <= p <= u."""
    a, d, b = wilson_parts(n, c, z)
    root_lo, root_hi = sqrt_enclosure(d, bits)
    p = Fraction(c, n)
    lower_lo, lower_hi = (a - z * root_hi) / b, (a - z * root_lo) / b
    upper_lo, upper_hi = (a + z * root_lo) / b, (a + z * root_hi) / b
    return (p - lower_hi, p - lower_lo), (upper_lo - p, upper_hi - p)


def newcombe(first, second, z):
    """Newcombe (1998) method 10 for p1 - p2; lower rounded down, upper rounded up."""
    (n1, c1), (n2, c2) = first, second
    d = Fraction(c1, n1) - Fraction(c2, n2)
    bits = 64
    while bits <= 1 << 14:
        below1, above1 = wilson_enclosure(n1, c1, z, bits)
        below2, above2 = wilson_enclosure(n2, c2, z, bits)
        sq_b1, sq_a1 = square_enclosure(*below1), square_enclosure(*above1)
        sq_b2, sq_a2 = square_enclosure(*below2), square_enclosure(*above2)
        delta = (sqrt_enclosure(sq_b1[0] + sq_a2[0], bits)[0], sqrt_enclosure(sq_b1[1] + sq_a2[1], bits)[1])
        eps = (sqrt_enclosure(sq_a1[0] + sq_b2[0], bits)[0], sqrt_enclosure(sq_a1[1] + sq_b2[1], bits)[1])
        low = {floor100(d - delta[1]), floor100(d - delta[0])}
        high = {ceil100(d + eps[0]), ceil100(d + eps[1])}
        if len(low) == 1 and len(high) == 1:
            return low.pop(), high.pop()
        bits *= 2
    sys.exit(f"newcombe {first} {second} at z = {z}: undecided at {bits} bits")


# ---- the grids ----

SINGLE = [
    # (n, passed counts, k values)
    (1, [0, 1], [1]),
    (5, [0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5]),
    (10, [0, 3, 7, 10], [1, 3, 10]),
    (20, [0, 1, 10, 18, 19, 20], [1, 2, 5, 10, 20]),
    (100, [0, 1, 50, 73, 99, 100], [1, 2, 10, 50, 100]),
    (1000, [0, 1, 500, 900, 999, 1000], [1, 10, 100, 1000]),
    (36000, [0, 1, 18000, 34200, 35999, 36000], [1, 10, 1000, 18000, 36000]),
]

# 1 and 2 of 2, and 3 runs with 1, 2 and 3 passing, are pass rates of the `trailgate diff`
# fixtures (`fixtures/diff-*`), whose intervals are checked against this table.
SAMPLES = [
    (1, 0), (1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (3, 3), (5, 0), (5, 4), (5, 5), (7, 2), (7, 6),
    (10, 0), (10, 3), (10, 9), (10, 10), (20, 0), (20, 10), (20, 20), (29, 0), (56, 5), (70, 56), (80, 48), (1000, 500),
]


def main():
    rows = ["confidence\tn\tc\tk\tpass_rate\tpass_at_k\tpass_hat_k\tlower\tupper\truns_to_resolve\tdecay"]
    for confidence, z in Z.items():
        resolve = runs_to_resolve(z)
        for n, passed, ks in SINGLE:
            for c in passed:
                rate = pass_rate(n, c)
                lower, upper = wilson(n, c, z)
                assert lower <= rate <= upper, (n, c, confidence)
                decay = ",".join(str(pass_hat_k(n, c, k)) for k in range(1, min(n, 10) + 1))
                for k in ks:
                    at, hat = pass_at_k(n, c, k), pass_hat_k(n, c, k)
                    assert hat <= rate <= at, (n, c, k)
                    rows.append(
                        "\t".join(str(x) for x in (confidence, n, c, k, rate, at, hat, lower, upper, resolve, decay))
                    )
    (HERE / "reference.tsv").write_text("\n".join(rows) + "\n")

    rows = ["confidence\tn1\tc1\tn2\tc2\tlower\tupper"]
    for confidence, z in Z.items():
        for first in SAMPLES:
            for second in SAMPLES:
                lower, upper = newcombe(first, second, z)
                rows.append("\t".join(str(x) for x in (confidence, *first, *second, lower, upper)))
    (HERE / "newcombe.tsv").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
