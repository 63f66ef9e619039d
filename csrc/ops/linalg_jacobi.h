/* Jacobi rotations shared by the symmetric eigensolver and the SVD: plane
 * rotations of rows/columns p, q of [B, n, n] batches inside while loops,
 * and the sort and sign fix-up of the resulting vectors. */
#ifndef TT_OPS_LINALG_JACOBI_H
#define TT_OPS_LINALG_JACOBI_H

#include "ops/linalg_util.h"

/* Sweeps stop when the off-diagonal mass is this small relative to the
 * whole (scaled by n and the dtype's epsilon), or after this many sweeps. */
#define TT_JACOBI_MAX_SWEEPS 30
double tt_jac_tol(tt_dtype_t dt, int64_t n);

/* Rows (axis 1) or columns (axis 2) p, q of x [B, r, c] replaced by
 * c*x_p - s*x_q and s*x_p + c*x_q; p, q rank-0 i64, c, s [B]. */
tt_val_t tt_jac_rotate(tt_graph_t *g, tt_val_t x, tt_val_t p, tt_val_t q, tt_val_t c, tt_val_t s, int axis);
/* Element (i, j) of x [B, r, c] as [B]. */
tt_val_t tt_jac_at(tt_graph_t *g, tt_val_t x, tt_val_t i, tt_val_t j);
/* The (c, s) that zero the off-diagonal of the symmetric 2x2 [[app, apq],
 * [apq, aqq]] under J^T A J (Golub & Van Loan's sym.schur2); identity where
 * `active` is false or apq is 0. */
void tt_jac_schur2(tt_graph_t *g, tt_val_t app, tt_val_t aqq, tt_val_t apq, tt_val_t active, tt_val_t *out_c,
                   tt_val_t *out_s);
/* Sorts w [B, n] (descending or not) and permutes the columns of each of the
 * nv matrices vs[i] [B, r, n] alike; in place in w and vs. */
void tt_jac_sort(tt_graph_t *g, tt_val_t *w, int descending, int nv, tt_val_t *vs);
/* Per column of v [B, r, n]: +1 or -1 making the entry of largest magnitude
 * positive (a fixed choice for vectors defined up to sign); [B, n]. */
tt_val_t tt_jac_sign(tt_graph_t *g, tt_val_t v);
/* v [B, r, n] times sign [B, n] per column. */
tt_val_t tt_jac_scale_cols(tt_graph_t *g, tt_val_t v, tt_val_t sign);

/* Thin SVD of a [B, m, n], k = min(m, n): u [B, m, k], s [B, k] descending,
 * v [B, n, k], a = u diag(s) v^T (linalg_svd.c). */
void tt_la_svd(tt_graph_t *g, tt_val_t a, tt_val_t *out_u, tt_val_t *out_s, tt_val_t *out_v);

#endif
