/* Mean and squared deviations of groups of values (ops/moments.h).
 *
 * Why not sum(x) * (1/n): on a constant row x = v the float sum of n copies
 * of v is not n * v, so the mean came out an ulp or more off v; layer norm
 * then multiplied x - mean by rsqrt(0 + eps) (about 316) and a constant row
 * normalized to about -1.4e-5 where CPU's Welford moments give exactly 0
 * (graph fuzzer dynamic 3:145, 4:10). The same error, relative to the
 * spread instead of the value, made rows like 1000 + small noise lose
 * digits. One pass over x, shifted by a pivot, each group's first value:
 * d = x - pivot, mean = pivot + sum(d) / n, m2 = sum(d^2) - sum(d)^2 / n.
 * A constant group has d = 0 exactly, so its mean is its value and m2 is
 * 0; elsewhere the shift keeps the sums near the spread's scale, not the
 * values' (a pivot far out in its group, e.g. one outlier first, costs
 * digits of m2 as a one-pass variance does). Two reductions, one pass
 * (the two-pass form with a max/min test for constant groups added three
 * reductions per norm: transformer inference 1.10x slower). The divisions
 * by n are true ones (tt_div_count). */
#include "ops/moments.h"

/* v / the rank-0 count c, broadcast */
static tt_val_t div_by(tt_graph_t *g, tt_val_t v, tt_val_t c) {
  if (v < 0) return -1;
  const tt_type_t *t = tt_graph_type(g, v);
  return tt_b_binary(g, TT_BIN_DIV, v, tt_b_broadcast(g, c, t->rank, t->dims, NULL));
}

tt_val_t tt_div_count(tt_lower_t *L, tt_val_t v, double n) {
  if (v < 0) return -1;
  return div_by(L->g, v, tt_l_scalar(L, tt_graph_type(L->g, v)->dtype, n, 0, 1));
}

tt_val_t tt_moments(tt_lower_t *L, tt_val_t x, int nd, const int64_t *dims, int64_t n, tt_val_t *m2) {
  tt_graph_t *g = L->g;
  *m2 = -1;
  if (x < 0) return -1;
  const tt_type_t t = *tt_graph_type(g, x);
  int64_t kept[TT_MAX_RANK], start[TT_MAX_RANK] = {0}, lim[TT_MAX_RANK], one[TT_MAX_RANK];
  int nk = 0;
  for (int j = 0; j < t.rank; j++) {
    int reduced = 0;
    for (int k = 0; k < nd; k++) reduced |= dims[k] == j;
    if (!reduced) kept[nk++] = j;
    lim[j] = reduced ? 1 : t.dims[j];
    one[j] = 1;
  }
  /* The pivot: each group's first value (0 for empty groups), broadcast over the group. */
  tt_val_t p = n > 0 ? tt_b_slice(g, x, start, lim, one) : tt_b_full_f(g, t.dtype, t.rank, lim, 0.0);
  tt_val_t pb = tt_b_broadcast_to(g, p, t.rank, t.dims);
  tt_val_t d = tt_b_binary(g, TT_BIN_SUB, x, pb);
  tt_val_t s1 = tt_b_reduce(g, TT_RED_SUM, d, nd, dims);
  tt_val_t q = tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, d, d), nd, dims);
  int64_t od[TT_MAX_RANK];
  for (int k = 0; k < nk; k++) od[k] = t.dims[kept[k]];
  tt_val_t po = tt_b_reshape(g, p, nk, od); /* the pivot in the outer shape */
  tt_val_t c = tt_div_count(L, s1, (double)n); /* mean of the deviations (0 / 0: NaN for an empty group, as CPU) */
  tt_val_t mean = tt_b_binary(g, TT_BIN_ADD, po, c);
  /* sum((x - mean)^2) = sum(d^2) - n c^2; rounding may leave it below 0 */
  tt_val_t sq = tt_b_binary(g, TT_BIN_SUB, q, tt_b_binary(g, TT_BIN_MUL, s1, c));
  *m2 = tt_b_binary(g, TT_BIN_MAX, sq, tt_b_like_f(g, sq, 0.0));
  return mean;
}
