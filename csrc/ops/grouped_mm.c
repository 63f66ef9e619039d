/* aten::_grouped_mm (MoE expert matmuls): 2d x 3d, 3d x 2d, 2d x 2d grouped
 * by cumulative offsets, 3d x 3d as bmm. StableHLO has static shapes, so the
 * ragged groups are masks from offs: every group's product is computed and
 * each output row (column) takes its own group's; 2d x 2d masks each
 * group's contraction range on both sides. Computed in float32 for bf16/f16
 * and rounded once, as CPU's mm does per group. Rows (columns) that no group
 * covers (past offs[-1]) are zeros where CPU leaves them uninitialized.
 * Unlike CPU, no 16-byte stride alignment is required. The cost is G times
 * the ragged product's (all groups' products): correct first; a ragged dot
 * would do less work. */
#include "ops/common.h"
#include "ops/families.h"

static int supported(tt_dtype_t dt) { return dt == TT_F32 || dt == TT_BF16 || dt == TT_F16; }

/* Checks mat_a/mat_b/offs/bias/out_dtype as CPU's _grouped_mm_validate_inputs
 * and _resolve_grouped_mm_out_dtype do; 0 after recording an error. */
static int check_args(tt_lower_t *L, tt_dtype_t *out_dt) {
  tt_dtype_t da = tt_l_arg_dtype(L, 0), db = tt_l_arg_dtype(L, 1);
  if (da == TT_DTYPE_INVALID || db == TT_DTYPE_INVALID) {
    tt_l_fail(L, TT_TYPE_ERROR, "%s: mat_a and mat_b must be Tensors", L->op);
    return 0;
  }
  if (!supported(da) || !supported(db)) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "Expected %s to be Float32, BFloat16 or Float16 matrix, got %s",
              supported(da) ? "mat_b" : "mat_a", tt_op_type_name(supported(da) ? db : da));
    return 0;
  }
  if (da != db) {
    tt_l_fail(L, TT_INVALID_ARGUMENT,
              "%s: expected mat_a and mat_b to have the same dtype, but got: %s != %s (cast one of them first)", L->op,
              tt_op_type_name(da), tt_op_type_name(db));
    return 0;
  }
  int ra = tt_l_arg_rank(L, 0), rb = tt_l_arg_rank(L, 1);
  if (ra != 2 && ra != 3) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "mat_a has to be 2 or 3d (got %dd)", ra);
    return 0;
  }
  if (rb != 2 && rb != 3) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "mat_b has to be 2 or 3d (got %dd)", rb);
    return 0;
  }
  const int64_t *a = tt_l_arg_sizes(L, 0), *b = tt_l_arg_sizes(L, 1);
  /* 2d x 2d groups the contraction dim: both sides must have it whole. */
  if (a[ra - 1] != b[rb - 2]) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "contraction dimension of mat_a and mat_b must match (mat_a: %lld, mat_b: %lld)",
              (long long)a[ra - 1], (long long)b[rb - 2]);
    return 0;
  }
  int has_offs = !tt_l_is_none(L, 2);
  if (has_offs != (ra == 2 || rb == 2)) {
    tt_l_fail(L, TT_INVALID_ARGUMENT,
              "Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d (mat_a %dd, mat_b %dd)",
              ra, rb);
    return 0;
  }
  if (has_offs) {
    if (tt_l_arg_rank(L, 2) != 1) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "offs has to be 1D (got %dd)", tt_l_arg_rank(L, 2));
      return 0;
    }
    if (tt_l_arg_dtype(L, 2) != TT_I32) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "Offsets have to be int32 (got %s)", tt_op_type_name(tt_l_arg_dtype(L, 2)));
      return 0;
    }
    int64_t ng = tt_l_arg_sizes(L, 2)[0];
    if ((ra == 2) != (rb == 2) && ng != (ra == 3 ? a[0] : b[0])) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "matrix batch sizes have to match (offs has %lld groups, the 3d matrix %lld)",
                (long long)ng, (long long)(ra == 3 ? a[0] : b[0]));
      return 0;
    }
  } else if (a[0] != b[0]) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "batched dimension has to match (mat_a: %lld, mat_b: %lld)", (long long)a[0],
              (long long)b[0]);
    return 0;
  }
  if (L->nargs > 3 && !tt_l_is_none(L, 3)) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "Bias not supported yet");
    return 0;
  }
  tt_dtype_t od = L->nargs > 4 ? tt_l_dtype(L, 4) : TT_DTYPE_INVALID;
  if (od != TT_DTYPE_INVALID && od != da) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "Grouped gemm output dtype must match `mat_a` dtype (got %s for %s inputs)",
              tt_op_type_name(od), tt_op_type_name(da));
    return 0;
  }
  *out_dt = da;
  return 1;
}

/* bool [G, n]: position i is in group g, offs[g-1] <= i < offs[g] (offs[-1]
 * = 0), the rows (columns, contraction indices) CPU's loop gives group g. */
static tt_val_t group_ranges(tt_lower_t *L, int64_t ng, int64_t n) {
  tt_graph_t *g = L->g;
  tt_val_t ends = tt_l_tensor(L, 2);
  int64_t one = 1;
  tt_val_t parts[2] = {tt_b_full_i(g, TT_I32, 1, &one, 0), ends};
  tt_val_t starts = tt_b_slice_dim(g, tt_b_concat(g, 2, parts, 0), 0, 0, ng, 1);
  int64_t dims[2] = {ng, n}, d0 = 0;
  tt_val_t pos = tt_b_iota(g, TT_I32, 2, dims, 1);
  tt_val_t s = tt_b_broadcast(g, starts, 2, dims, &d0), e = tt_b_broadcast(g, ends, 2, dims, &d0);
  return tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_GE, pos, s), tt_b_compare(g, TT_CMP_LT, pos, e));
}

/* The group whose result each of n output positions holds: the last g whose
 * range holds it, as CPU's loop writes group after group (offsets that go
 * back make ranges overlap); -1 where none. An int32 [n] value. */
static tt_val_t group_ids(tt_lower_t *L, int64_t ng, int64_t n) {
  tt_graph_t *g = L->g;
  int64_t dims[2] = {ng, n}, rd = 0;
  tt_val_t id = tt_b_select(g, group_ranges(L, ng, n), tt_b_iota(g, TT_I32, 2, dims, 0),
                            tt_b_full_i(g, TT_I32, 2, dims, -1));
  return tt_b_reduce(g, TT_RED_MAX, id, 1, &rd);
}

/* A bool mask of dims: element is in group g (dim gdim) by the ids of dim pdim. */
static tt_val_t in_group(tt_graph_t *g, tt_val_t ids, int rank, const int64_t *dims, int gdim, int pdim) {
  int64_t bd = pdim;
  return tt_b_compare(g, TT_CMP_EQ, tt_b_broadcast(g, ids, rank, dims, &bd), tt_b_iota(g, TT_I32, rank, dims, gdim));
}

/* prod [G, ...] (math type): each position's own group's product, zeros
 * where it has none; the group dim is summed away (one term is nonzero). */
static tt_val_t pick(tt_graph_t *g, tt_val_t prod, tt_val_t ids, int pdim) {
  const tt_type_t *t = tt_graph_type(g, prod);
  int rank = t->rank;
  int64_t dims[TT_MAX_RANK];
  for (int i = 0; i < rank; i++) dims[i] = t->dims[i];
  tt_val_t zeros = tt_b_full_f(g, t->dtype, rank, dims, 0.0);
  tt_val_t sel = tt_b_select(g, in_group(g, ids, rank, dims, 0, pdim), prod, zeros);
  int64_t rd = 0;
  return tt_b_reduce(g, TT_RED_SUM, sel, 1, &rd);
}

static tt_status_t lower_grouped_mm(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  tt_dtype_t dt;
  if (!check_args(L, &dt)) return NULL;
  tt_dtype_t ct = tt_op_math_type(dt);
  int prec = tt_op_matmul_precision_for(L, dt);
  int ra = tt_l_arg_rank(L, 0), rb = tt_l_arg_rank(L, 1);
  const int64_t *as = tt_l_arg_sizes(L, 0), *bs = tt_l_arg_sizes(L, 1);
  tt_val_t a = tt_b_convert(g, tt_l_tensor(L, 0), ct), b = tt_b_convert(g, tt_l_tensor(L, 1), ct);
  tt_val_t out;
  if (ra == 3 && rb == 3) { /* bmm */
    int64_t bd = 0, lc = 2, rc = 1;
    out = tt_b_dot_prec(g, prec, a, b, 1, &bd, &bd, 1, &lc, &rc);
  } else if (ra == 2 && rb == 3) { /* [M,K] x [G,K,N]: rows grouped -> [M,N] */
    int64_t lc = 1, rc = 1, perm[3] = {1, 0, 2};
    /* dot: [M] x [G,N] -> [M,G,N]; groups first */
    tt_val_t p = tt_b_transpose(g, tt_b_dot_prec(g, prec, a, b, 0, NULL, NULL, 1, &lc, &rc), perm);
    out = pick(g, p, group_ids(L, bs[0], as[0]), 1);
  } else if (ra == 3 && rb == 2) { /* [G,M,K] x [K,N]: columns grouped -> [M,N] */
    int64_t lc = 2, rc = 0;
    tt_val_t p = tt_b_dot_prec(g, prec, a, b, 0, NULL, NULL, 1, &lc, &rc); /* [G,M,N] */
    out = pick(g, p, group_ids(L, as[0], bs[1]), 2);
  } else { /* [M,K] x [K,N]: the contraction grouped -> [G,M,N] */
    int64_t ng = tt_l_arg_sizes(L, 2)[0], m = as[0], k = as[1], n = bs[1];
    /* Each group its own range (each writes its own output: overlapping
     * ranges both count). Both sides masked (select, not multiply): a
     * non-finite value of another group never meets a zero. */
    tt_val_t in = group_ranges(L, ng, k);
    int64_t ad[3] = {ng, m, k}, bdims[3] = {ng, k, n}, abd[2] = {1, 2}, bbd[2] = {1, 2}, ain[2] = {0, 2},
            bin[2] = {0, 1};
    tt_val_t am = tt_b_select(g, tt_b_broadcast(g, in, 3, ad, ain), tt_b_broadcast(g, a, 3, ad, abd),
                              tt_b_full_f(g, ct, 3, ad, 0.0));
    tt_val_t bm = tt_b_select(g, tt_b_broadcast(g, in, 3, bdims, bin), tt_b_broadcast(g, b, 3, bdims, bbd),
                              tt_b_full_f(g, ct, 3, bdims, 0.0));
    int64_t bd = 0, lc = 2, rc = 1;
    out = tt_b_dot_prec(g, prec, am, bm, 1, &bd, &bd, 1, &lc, &rc);
  }
  tt_l_output(L, tt_b_convert(g, out, dt));
  return NULL;
}

const tt_op_def_t tt_ops_grouped_mm[] = {
    {"_grouped_mm", lower_grouped_mm, 0},
    {NULL, NULL, 0},
};
