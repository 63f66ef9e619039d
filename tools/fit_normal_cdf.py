"""Fit the float32 upper normal tail used by exact GELU (csrc/ops/normal_cdf.c).

q(a) = Phi(-a) = 0.5 * erfc(a / sqrt 2) = exp(-a*a / 2) * P(a) / Q(a),
a = |x| >= 0, P and Q polynomials (degree M, N; Q(0) = 1, P(0) = 0.5 so
Phi(0) is exactly 0.5).  For x > 0 the C code evaluates P/Q as
0.5 - a * D(a) / Q(a) with D = (0.5 Q - P) / a (positive coefficients):
the 0.5 is then not rounded through the Horner loops and the divide, which
cost up to 3.8 ulp of GELU near x = 0+ (Phi = 1 - q, q near 0.5); for
x < 0 it keeps P / Q, which has no cancellation as a grows (the relative
error of q is GELU's there).  P/Q is fitted here in float64 to
0.5*erfcx(a / sqrt 2) = q(a) exp(a^2 / 2) (scipy's erfcx) by linearized
least squares on the relative error (P - f Q) / (f Q_previous), iterated,
then reweighted toward the worst points (Lawson) to approach minimax.

The variable is |x| itself, which is exact: a variable such as
t = 1 / (1 + p z) carries its own rounding, which the polynomial amplifies
(3-5e-7 relative near z = 0 in float32).  A rational, not a polynomial in
such a t, also keeps the divide out of the Horner loop: XLA CPU would not
fuse a divide used eight times and materialized it as a second pass.

a only matters up to about 5.6: for x <= -5.554 float32 GELU is saturated
to -0 on purpose (CPU's erff form is), and for x > 0, 1 - q rounds to 1
once q < 3e-8 (x > 5.4).  Past the fit range P/Q only needs to stay finite
(Q has no positive root; checked below).

Prints the coefficients (constant term first) and the max relative error of
P/Q by band of x, in float64 and evaluated in float32 as the C code does.

Usage: python tools/fit_normal_cdf.py [--m 4] [--n 4] [--amax 5.7]
"""
import argparse

import numpy as np
from scipy.special import erfcx

XBANDS = ((0, 0.35), (0.35, 1.41), (1.41, 2.83), (2.83, 5.56))


def fit(m, n, amax, iters=40, pts=4000):
    k = np.arange(pts)
    a = amax / 2 - amax / 2 * np.cos(np.pi * (k + 0.5) / pts)  # Chebyshev nodes
    f = 0.5 * erfcx(a / np.sqrt(2))
    qa = np.ones(pts)
    w = np.ones(pts)
    for it in range(iters):
        # unknowns p1..pm, q1..qn:  sum p_i a^i - f sum q_j a^j = f - 0.5
        cols = np.hstack([np.vander(a, m + 1, increasing=True)[:, 1:],
                          -f[:, None] * np.vander(a, n + 1, increasing=True)[:, 1:]])
        scale = 1 / (f * qa)
        sw = np.sqrt(w)
        c, *_ = np.linalg.lstsq(cols * (scale * sw)[:, None], (f - 0.5) * scale * sw, rcond=None)
        pc = np.concatenate([[0.5], c[:m]])
        qc = np.concatenate([[1.0], c[m:]])
        qa = np.polyval(qc[::-1], a)
        r = np.abs(np.polyval(pc[::-1], a) / qa / f - 1)
        if it >= 10:
            w = w * r
            w /= w.sum()
    return pc, qc


def to_d(pc, qc):
    """D = (0.5 Q - P) / a, constant first (P(0) = 0.5 Q(0))."""
    n = max(len(pc), len(qc))
    pp = np.pad(pc, (0, n - len(pc)))
    qq = np.pad(qc, (0, n - len(qc)))
    return (0.5 * qq - pp)[1:]


def band_errors(pc, qc, dtype, form):
    xs = np.linspace(0, 5.56, 400001).astype(np.float32)
    f = 0.5 * erfcx(xs.astype(np.float64) / np.sqrt(2))
    a = xs.astype(dtype)
    p = np.zeros_like(a)
    q = np.zeros_like(a)
    for c in (to_d(pc, qc) if form == "D" else pc)[::-1]:
        p = p * a + dtype(np.float32(c))
    for c in qc[::-1]:
        q = q * a + dtype(np.float32(c))
    r = dtype(0.5) - a * p / q if form == "D" else p / q
    e = np.abs(r.astype(np.float64) / f - 1)
    return [e[(xs >= lo) & (xs < hi)].max() for lo, hi in XBANDS]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=4)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--amax", type=float, default=5.7)
    a = ap.parse_args()
    pc, qc = fit(a.m, a.n, a.amax)
    print(f"P/Q degree {a.m}/{a.n}, fitted on |x| in [0, {a.amax}]")
    print("P (constant first):", ", ".join(repr(float(np.float32(c))) for c in pc))
    print("D = (0.5 Q - P) / a:", ", ".join(repr(float(np.float32(c))) for c in to_d(pc, qc)))
    print("Q (constant first):", ", ".join(repr(float(np.float32(c))) for c in qc))
    roots = [r for r in np.roots(qc[::-1]) if abs(r.imag) < 1e-12 and r.real >= 0]
    print("Q's real roots >= 0:", roots or "none")
    print("max rel err of P/Q by band of |x|: " + "  ".join(f"[{lo},{hi})" for lo, hi in XBANDS))
    for name, dt in (("float64", np.float64), ("float32", np.float32)):
        for form, use in (("P/Q", "x < 0"), ("D", "x > 0")):
            print(f"  {name} {form:3} ({use}): " + "  ".join(f"{e:.2e}" for e in band_errors(pc, qc, dt, form)))
    print(f"(float32 half-ulp, relative: {2.0**-24:.2e} to {2.0**-23:.2e})")


if __name__ == "__main__":
    main()
