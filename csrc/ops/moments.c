/* Mean and squared deviations of groups of values (ops/moments.h).
 *
 * Why not sum(x) * (1/n): on a constant row x = v the float sum of n copies
 * of v is not n * v, so the mean came out an ulp or more off v; layer norm
 * then multiplied x - mean by rsqrt(0 + eps) (about 316) and a constant row
 * normalized to about -1.4e-5 where CPU's Welford moments give exactly 0
 * (graph fuzzer dynamic 3:145, 4:10). The same error, relative to the
 * spread instead of the value, made rows like 1000 + small noise lose
 * digits. Two passes over x, as before: sum, max and min; then the
 * deviations from the first estimate. The divisions by n are true ones
 * (tt_div_count). */
#include "ops/moments.h"

/* v / the rank-0 count c, broadcast */
static tt_val_t div_by(tt_graph_t *g, tt_val_t v, tt_val_t c) {
  if (v < 0) return -1;
  const tt_type_t *t = tt_graph_type(g, v);
  return tt_b_binary(g, TT_BIN_DIV, v, tt_b_broadcast(g, c, t->rank, t->dims, NULL));
}

tt_val_t tt_div_count(tt_lower_t *L, tt_val_t v, double n) {
  if (v < 0) return -1;
  return div_by(L->g, v, tt_l_scalar_runtime(L, tt_graph_type(L->g, v)->dtype, n));
}

tt_val_t tt_moments(tt_lower_t *L, tt_val_t x, int nd, const int64_t *dims, int64_t n, tt_val_t *m2) {
  tt_graph_t *g = L->g;
  *m2 = -1;
  if (x < 0) return -1;
  const tt_type_t t = *tt_graph_type(g, x);
  int64_t kept[TT_MAX_RANK];
  int nk = 0;
  for (int j = 0; j < t.rank; j++) {
    int reduced = 0;
    for (int k = 0; k < nd; k++) reduced |= dims[k] == j;
    if (!reduced) kept[nk++] = j;
  }
  tt_val_t s = tt_b_reduce(g, TT_RED_SUM, x, nd, dims);
  tt_val_t hi = tt_b_reduce(g, TT_RED_MAX, x, nd, dims);
  tt_val_t lo = tt_b_reduce(g, TT_RED_MIN, x, nd, dims);
  tt_val_t count = tt_l_scalar(L, t.dtype, (double)n, 0, 1);
  tt_val_t m1 = div_by(g, s, count);
  tt_val_t d = tt_b_binary(g, TT_BIN_SUB, x, tt_b_broadcast(g, m1, t.rank, t.dims, kept));
  tt_val_t s1 = tt_b_reduce(g, TT_RED_SUM, d, nd, dims);
  tt_val_t q = tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, d, d), nd, dims);
  tt_val_t c = div_by(g, s1, count); /* mean of the deviations */
  tt_val_t mean = tt_b_binary(g, TT_BIN_ADD, m1, c);
  /* sum((x - mean)^2) = sum(d^2) - n c^2; rounding may leave it below 0 */
  tt_val_t sq = tt_b_binary(g, TT_BIN_SUB, q, tt_b_binary(g, TT_BIN_MUL, s1, c));
  tt_val_t zero = tt_b_like_f(g, sq, 0.0);
  sq = tt_b_binary(g, TT_BIN_MAX, sq, zero);
  /* max - min == 0: every value equal and finite (inf - inf is NaN); the
   * sum not NaN, as XLA's CPU max/min reduce may drop a NaN the sum keeps */
  tt_val_t flat = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_EQ, tt_b_binary(g, TT_BIN_SUB, hi, lo), zero),
                              tt_b_compare(g, TT_CMP_EQ, s, s));
  *m2 = tt_b_select(g, flat, zero, sq);
  return tt_b_select(g, flat, hi, mean);
}
