/* Householder QR pieces shared by the QR, SVD and least-squares lowerings. */
#ifndef TT_OPS_LINALG_QR_H
#define TT_OPS_LINALG_QR_H

#include "ops/linalg_util.h"

/* x [..., m, n] -> [B, m, n] with the batch dims flattened, and back. */
tt_val_t tt_la_flat3(tt_graph_t *g, tt_val_t x);
tt_val_t tt_la_unflat(tt_graph_t *g, tt_val_t x, int nb, const int64_t *batch);
/* LAPACK's geqrf of a [B, m, n]: R above the diagonal and the reflectors
 * below it (packed), and tau [B, min(m, n)]. */
void tt_la_geqrf(tt_graph_t *g, tt_val_t a, tt_val_t *out_packed, tt_val_t *out_tau);
/* Q c, Q^T c (left) or c Q, c Q^T, Q = H_0 ... H_{k-1} from the packed
 * reflectors refl [B, m, >= k] and tau [B, k]; c [B, m, p] or [B, p, m]. */
tt_val_t tt_la_apply_reflectors(tt_graph_t *g, tt_val_t refl, tt_val_t tau, tt_val_t c, int left, int transpose);

#endif
