/* Helpers shared by the matrix decomposition lowerings (linalg_*.c):
 * argument checks with PyTorch's messages, batch broadcasting, triangles,
 * identities and batched products over the last two dims. */
#ifndef TT_OPS_LINALG_UTIL_H
#define TT_OPS_LINALG_UTIL_H

#include "ops/common.h"

/* Tensor argument i is a float32/float64 batch of matrices (rank >= 2), square
 * when `square`; records PyTorch's error naming `api` and returns 0 otherwise. */
int tt_la_check_matrix(tt_lower_t *L, int i, const char *api, const char *name, int square);
/* Swaps the last two dims. */
tt_val_t tt_la_mT(tt_graph_t *g, tt_val_t x);
/* Keeps the lower (col <= row + k) or upper (col >= row + k) triangle, zeroes the rest. */
tt_val_t tt_la_tri(tt_graph_t *g, tt_val_t x, int lower, int64_t k);
/* Identity matrices shaped like x [..., n, n] (x's dtype). */
tt_val_t tt_la_eye_like(tt_graph_t *g, tt_val_t x);
/* Ones where row == col on the last two dims of a rank >= 2 shape, zeros
 * elsewhere (rectangular allowed), in any dtype. */
tt_val_t tt_la_eye(tt_graph_t *g, tt_dtype_t dt, int rank, const int64_t *dims);
/* The diagonal [..., min(m, n)] of x [..., m, n]. */
tt_val_t tt_la_diag(tt_graph_t *g, tt_val_t x);
/* x [..., m, k] @ y [..., k, n] with equal batch dims, in x's dtype. */
tt_val_t tt_la_matmul(tt_graph_t *g, tt_val_t x, tt_val_t y);
/* Broadcasts the batch dims (all but the last two) of *a and *b against each
 * other; records PyTorch's error on a mismatch and returns 0. */
int tt_la_broadcast_batch(tt_lower_t *L, tt_val_t *a, tt_val_t *b);

#endif
