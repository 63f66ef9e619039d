/* Typed builders: append one StableHLO-level node, inferring its result type.
 * Every builder returns -1 once the graph has failed; check the graph once. */
#ifndef TT_IR_BUILDER_H
#define TT_IR_BUILDER_H

#include "ir/graph.h"

tt_val_t tt_b_param(tt_graph_t *g, const tt_type_t *type);
/* Rank-0 constants baked into the program. */
tt_val_t tt_b_const_f(tt_graph_t *g, tt_dtype_t dtype, double v);
tt_val_t tt_b_const_i(tt_graph_t *g, tt_dtype_t dtype, int64_t v);
/* Constant of any shape (a splat). */
tt_val_t tt_b_full_f(tt_graph_t *g, tt_dtype_t dtype, int rank, const int64_t *dims, double v);
tt_val_t tt_b_full_i(tt_graph_t *g, tt_dtype_t dtype, int rank, const int64_t *dims, int64_t v);
/* A splat shaped like x, in x's dtype unless dtype given (TT_DTYPE_INVALID). */
tt_val_t tt_b_like_f(tt_graph_t *g, tt_val_t x, double v);
tt_val_t tt_b_iota(tt_graph_t *g, tt_dtype_t dtype, int rank, const int64_t *dims, int dim);

tt_val_t tt_b_unary(tt_graph_t *g, tt_unary_t op, tt_val_t x);
tt_val_t tt_b_binary(tt_graph_t *g, tt_binary_t op, tt_val_t x, tt_val_t y);
tt_val_t tt_b_compare(tt_graph_t *g, tt_cmp_t cmp, tt_val_t x, tt_val_t y);
tt_val_t tt_b_select(tt_graph_t *g, tt_val_t pred, tt_val_t on_true, tt_val_t on_false);
tt_val_t tt_b_clamp(tt_graph_t *g, tt_val_t lo, tt_val_t x, tt_val_t hi);
tt_val_t tt_b_convert(tt_graph_t *g, tt_val_t x, tt_dtype_t dtype);
/* Reinterprets bits (stablehlo.bitcast_convert): to a narrower type adds a
 * trailing dim of the size ratio, to a wider one consumes it; not bool. */
tt_val_t tt_b_bitcast(tt_graph_t *g, tt_val_t x, tt_dtype_t dtype);

tt_val_t tt_b_reshape(tt_graph_t *g, tt_val_t x, int rank, const int64_t *dims);
tt_val_t tt_b_transpose(tt_graph_t *g, tt_val_t x, const int64_t *perm);
tt_val_t tt_b_broadcast(tt_graph_t *g, tt_val_t x, int rank, const int64_t *dims,
                        const int64_t *bdims);
/* NumPy-style: align trailing dims; size-1 dims stretch. */
tt_val_t tt_b_broadcast_to(tt_graph_t *g, tt_val_t x, int rank, const int64_t *dims);
tt_val_t tt_b_slice(tt_graph_t *g, tt_val_t x, const int64_t *start, const int64_t *limit,
                    const int64_t *stride);
/* Slice along one dimension. */
tt_val_t tt_b_slice_dim(tt_graph_t *g, tt_val_t x, int dim, int64_t start, int64_t limit,
                        int64_t stride);
tt_val_t tt_b_dus(tt_graph_t *g, tt_val_t operand, tt_val_t update, const int64_t *starts);
/* Dynamic slice with value indices (rank-0 integer values, one per dim). */
tt_val_t tt_b_dslice(tt_graph_t *g, tt_val_t operand, const tt_val_t *starts, const int64_t *sizes);
/* Dynamic update slice with value indices (rank-0 integer values, one per dim). */
tt_val_t tt_b_dus_v(tt_graph_t *g, tt_val_t operand, tt_val_t update, const tt_val_t *starts);
tt_val_t tt_b_concat(tt_graph_t *g, int n, const tt_val_t *xs, int dim);
tt_val_t tt_b_pad(tt_graph_t *g, tt_val_t x, tt_val_t padval, const int64_t *lo, const int64_t *hi,
                  const int64_t *interior);
tt_val_t tt_b_reverse(tt_graph_t *g, tt_val_t x, int ndims, const int64_t *dims);

/* Reduce over dims (sum, prod, max, min, and, or); result drops the dims. */
tt_val_t tt_b_reduce(tt_graph_t *g, tt_reduce_t kind, tt_val_t x, int ndims, const int64_t *dims);
/* Arg-reduce along one dim: values and int64 indices, first index on ties,
 * NaN propagates as the maximum/minimum as PyTorch does. */
tt_val_t tt_b_argreduce(tt_graph_t *g, tt_reduce_t kind, tt_val_t x, int dim, tt_val_t *out_index);
tt_val_t tt_b_reduce_window(tt_graph_t *g, tt_reduce_t kind, tt_val_t x, tt_val_t init,
                            const int64_t *window, const int64_t *strides, const int64_t *pad_lo,
                            const int64_t *pad_hi);
/* The smallest value of dtype as a rank-0 constant: -inf for floats, the
 * integer type's minimum (0 for uint8 and bool). */
tt_val_t tt_b_lowest(tt_graph_t *g, tt_dtype_t dtype);
/* Max-pool's (value, index) window reduction: per window the greatest value
 * and its index from `idx` (int64, same shape as x); ties keep the smaller
 * index, NaN wins and among NaNs the larger index (PyTorch CPU's scan order).
 * Padding reads (-inf, INT64_MAX); windows are dilated by `dilations`. Returns the values; the indices via out_index. */
tt_val_t tt_b_argmax_window(tt_graph_t *g, tt_val_t x, tt_val_t idx, const int64_t *window,
                            const int64_t *strides, const int64_t *dilations, const int64_t *pad_lo,
                            const int64_t *pad_hi, tt_val_t *out_index);
/* Max-pool backward: scatters `source` to the argmax of each window of operand. */
tt_val_t tt_b_select_scatter(tt_graph_t *g, tt_val_t operand, tt_val_t source,
                             const int64_t *window, const int64_t *strides, const int64_t *pad_lo,
                             const int64_t *pad_hi);

/* dot_general. Result dims: batch, lhs free, rhs free. */
tt_val_t tt_b_dot(tt_graph_t *g, tt_val_t lhs, tt_val_t rhs, int nbatch, const int64_t *lhs_batch,
                  const int64_t *rhs_batch, int ncontract, const int64_t *lhs_contract,
                  const int64_t *rhs_contract);
/* The same with a float32 precision mode (tt_precision_t; node sub). */
tt_val_t tt_b_dot_prec(tt_graph_t *g, int precision, tt_val_t lhs, tt_val_t rhs, int nbatch,
                       const int64_t *lhs_batch, const int64_t *rhs_batch, int ncontract,
                       const int64_t *lhs_contract, const int64_t *rhs_contract);

/* Convolution in NC(spatial) x OI(spatial) -> NC(spatial) layout with nsp
 * spatial dims; pads are per spatial dim. */
typedef struct tt_conv_params_s {
  int nsp;
  int64_t stride[3], pad_lo[3], pad_hi[3], lhs_dilation[3], rhs_dilation[3];
  int64_t feature_groups, batch_groups;
  int precision; /* tt_precision_t (node sub); 0 = HIGHEST */
} tt_conv_params_t;
tt_val_t tt_b_conv(tt_graph_t *g, tt_val_t lhs, tt_val_t rhs, const tt_conv_params_t *p);

/* Gather/scatter in the general StableHLO form; index_vector_dim is the last
 * dim of indices. */
typedef struct tt_gather_dims_s {
  int n_offset, n_collapsed, n_start_map, n_batch_operand;
  int64_t offset_dims[TT_MAX_RANK], collapsed[TT_MAX_RANK], start_index_map[TT_MAX_RANK];
  int64_t slice_sizes[TT_MAX_RANK];
} tt_gather_dims_t;
tt_val_t tt_b_gather(tt_graph_t *g, tt_val_t operand, tt_val_t indices, const tt_gather_dims_t *d);
typedef struct tt_scatter_dims_s {
  int n_window, n_inserted, n_to_operand;
  int64_t update_window_dims[TT_MAX_RANK], inserted_window_dims[TT_MAX_RANK],
      scatter_to_operand[TT_MAX_RANK];
} tt_scatter_dims_t;
tt_val_t tt_b_scatter(tt_graph_t *g, tt_reduce_t kind, tt_val_t operand, tt_val_t indices,
                      tt_val_t updates, const tt_scatter_dims_t *d);

/* rng_bit_generator (three-fry) on a ui64[2] state: returns bits of `type`
 * and the new state through out_state. */
tt_val_t tt_b_rng(tt_graph_t *g, tt_val_t state, const tt_type_t *type, tt_val_t *out_state);
/* Sort n operands along dim by the first; returns the node; use tt_b_get. */
tt_val_t tt_b_sort(tt_graph_t *g, int n, const tt_val_t *xs, int dim, int descending, int stable);
tt_val_t tt_b_get(tt_graph_t *g, tt_val_t multi, int index);

/* stablehlo.triangular_solve: solves op(a) x = b (left_side) or x op(a) = b
 * for x, a (batch.., k, k) triangular (lower or upper part read), b
 * (batch.., m, n) with the same batch dims; op transposes a when
 * transpose_a. Result has b's type. */
tt_val_t tt_b_triangular_solve(tt_graph_t *g, tt_val_t a, tt_val_t b, int left_side, int lower,
                               int unit_diagonal, int transpose_a);

/* ---- Loops: stablehlo.while ----
 *
 * A loop carries up to TT_LOOP_MAX_CARRIED tensors. Build it in three calls;
 * between them use the ordinary builders on the values they hand out:
 *
 *   tt_loop_t lp;
 *   tt_val_t c[2], init[2] = {x0, acc0};
 *   tt_b_while_begin(g, &lp, 2, init, c);     // opens the condition region
 *   tt_val_t more = tt_b_compare(g, TT_CMP_LT, c[0], limit);
 *   tt_b_while_body(g, &lp, more, c);         // closes it; opens the body
 *   tt_val_t next[2] = {..., ...};            // computed from c[]
 *   tt_val_t res[2];
 *   tt_b_while_end(g, &lp, next, res);        // res[] = final carried values
 *
 * Rules: the carried values handed out by a call are valid only until the
 * next call on the same loop; values built inside a region are not visible
 * after it closes (results leave through the carried values); values built
 * before the loop (parameters, constants, tensors) may be used freely
 * inside. Loops nest: open an inner loop inside a region and close it there.
 * next[i] must have the type of init[i]. On a graph error every out value
 * is -1 and the calls stay safe to make, so lowerings check the graph once.
 *
 * Counted loops (the common case) have their own pair, which carries an
 * int64 rank-0 counter i from lo up to hi (exclusive) in front of the user's
 * values:
 *
 *   tt_val_t i, c[1], res[1];
 *   tt_b_for_begin(g, &lp, 0, n, 1, init, &i, c);  // body open
 *   tt_val_t next = ... c[0] ... i ...;
 *   tt_b_for_end(g, &lp, &next, res);
 *
 * The fingerprint of a graph covers region contents like any other nodes, so
 * two loops that differ only inside their bodies never share an executable. */
#define TT_LOOP_MAX_CARRIED 32

typedef struct tt_loop_s {
  tt_val_t node;  /* the WHILE node; -1 after a failure */
  int n;          /* carried values, counter included */
  int stage;      /* 1: condition open, 2: body open, 3: closed */
  int counted;    /* opened by tt_b_for_begin: carried[0] is the counter */
  tt_val_t counter; /* counted loops: the counter inside the body */
  tt_type_t types[TT_LOOP_MAX_CARRIED];
} tt_loop_t;

void tt_b_while_begin(tt_graph_t *g, tt_loop_t *lp, int n, const tt_val_t *inits,
                      tt_val_t *out_carried);
/* pred: a rank-0 bool; true runs the body once more. */
void tt_b_while_body(tt_graph_t *g, tt_loop_t *lp, tt_val_t pred, tt_val_t *out_carried);
/* Returns the WHILE node (or -1); out_results may be NULL. */
tt_val_t tt_b_while_end(tt_graph_t *g, tt_loop_t *lp, const tt_val_t *next, tt_val_t *out_results);

/* for (i = lo; i < hi; i++): n user values (n < TT_LOOP_MAX_CARRIED);
 * out_i is the counter (int64, rank 0) inside the body. */
void tt_b_for_begin(tt_graph_t *g, tt_loop_t *lp, int64_t lo, int64_t hi, int n,
                    const tt_val_t *inits, tt_val_t *out_i, tt_val_t *out_carried);
tt_val_t tt_b_for_end(tt_graph_t *g, tt_loop_t *lp, const tt_val_t *next, tt_val_t *out_results);

/* Cholesky factor of the (batched) symmetric positive definite matrices a
 * [..., n, n]; the other triangle of the result is unspecified, and a matrix
 * that is not positive definite gives NaNs (XLA's expansion). */
tt_val_t tt_b_cholesky(tt_graph_t *g, tt_val_t a, int lower);

/* stablehlo.fft over the n (1..3) innermost dims with the given lengths:
 * FFT/IFFT complex -> complex, RFFT real -> complex (last dim length/2+1),
 * IRFFT complex (last dim length/2+1) -> real. Unnormalized forward; IFFT
 * and IRFFT divide by the product of the lengths (XLA's convention). */
tt_val_t tt_b_fft(tt_graph_t *g, tt_val_t x, tt_fft_t type, int n, const int64_t *lengths);

#endif
