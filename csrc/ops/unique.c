/* Lowerings of unique, unique_consecutive and their dim forms: sorted rows, group starts and counts on device.
 *
 * The number of unique values decides the output shape, so each op runs twice,
 * as nonzero does: its size companion computes the count on device
 * (downloaded by the Python trampoline), then the op itself is lowered again
 * with that count appended as a last INTS argument, building outputs of known
 * shape. Like CPU, unique always sorts (its `sorted` flag is ignored there too),
 * +0.0 and -0.0 fall in one group, and each NaN is a group of its own. */
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"
#include "ops/nn_util.h"
#include "ops/scan.h"

/* The problem as rows: self with `dim` moved to the front, [n, m] (dim < 0: all
 * elements, m = 1). `keys` is the same in a type that sorts and compares as
 * CPU does (bool as int32, -0.0 as +0.0). */
typedef struct rows_s {
  tt_val_t x, keys;
  int64_t n, m;
  int dim, rank;
  int64_t perm[TT_MAX_RANK], moved[TT_MAX_RANK]; /* moved: the transposed sizes */
} rows_t;

static int rows_of(tt_lower_t *L, int dim, rows_t *r) {
  tt_graph_t *g = L->g;
  r->rank = tt_l_arg_rank(L, 0);
  r->dim = dim;
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  tt_val_t x = tt_l_tensor(L, 0);
  if (tt_graph_failed(g)) return -1;
  int64_t numel = 1;
  for (int d = 0; d < r->rank; d++) numel *= sz[d];
  if (dim < 0) {
    r->n = numel;
    r->m = 1;
  } else {
    int j = 0;
    r->perm[j++] = dim;
    for (int d = 0; d < r->rank; d++)
      if (d != dim) r->perm[j++] = d;
    for (int d = 0; d < r->rank; d++) r->moved[d] = sz[r->perm[d]];
    x = tt_b_transpose(g, x, r->perm);
    r->n = sz[dim];
    r->m = r->n ? numel / r->n : 0;
    for (int d = 0; d < r->rank; d++)
      if (d != dim && sz[d] == 0) r->m = 0;
  }
  int64_t nm[2] = {r->n, r->m};
  r->x = tt_b_reshape(g, x, 2, nm);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (dt == TT_BOOL) {
    r->keys = tt_b_convert(g, r->x, TT_I32);
  } else if (tt_dtype_is_float(dt)) {
    tt_val_t z = tt_b_like_f(g, r->x, 0);
    r->keys = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, r->x, z), z, r->x);
  } else {
    r->keys = r->x;
  }
  return 0;
}

/* The row order that sorts rows lexicographically: stable sorts by each column,
 * last column first (ties keep the order of the later columns). */
static tt_val_t sort_perm(tt_graph_t *g, const rows_t *r) {
  tt_val_t perm = tt_b_iota(g, TT_I64, 1, &r->n, 0);
  for (int64_t c = r->m - 1; c >= 0; c--) {
    tt_val_t col = tt_b_reshape(g, tt_b_slice_dim(g, r->keys, 1, c, c + 1, 1), 1, &r->n);
    tt_val_t ops[2] = {c == r->m - 1 ? col : tt_nn_gather_dim(g, col, 0, perm, r->n), perm};
    perm = tt_b_get(g, tt_b_sort(g, 2, ops, 0, 0, 1), 1);
  }
  return perm;
}

/* is_new[i]: row i (of keys in order) starts a group: i == 0, or some column
 * differs from row i - 1 (NaN differs from everything). */
static tt_val_t group_starts(tt_graph_t *g, tt_val_t keys, int64_t n, int64_t m) {
  tt_val_t first = tt_b_full_i(g, TT_BOOL, 1, (int64_t[]){1}, 1);
  if (n == 1) return first;
  tt_val_t a = tt_b_slice_dim(g, keys, 0, 1, n, 1), b = tt_b_slice_dim(g, keys, 0, 0, n - 1, 1);
  int64_t one = 1;
  tt_val_t diff = tt_b_reduce(g, TT_RED_OR, tt_b_compare(g, TT_CMP_NE, a, b), 1, &one);
  if (m == 0) diff = tt_b_full_i(g, TT_BOOL, 1, (int64_t[]){n - 1}, 0);
  tt_val_t parts[2] = {first, diff};
  return tt_b_concat(g, 2, parts, 0);
}

/* Arguments of each op: where `dim` is (-1: none), whether it sorts, which
 * flags ask for inverse and counts (-1: always computed), and whether
 * outputs not asked for come back empty. */
typedef struct unique_form_s {
  int dim_arg, sorts, inverse_arg, counts_arg, outputs;
} unique_form_t;

static int form_dim(tt_lower_t *L, const unique_form_t *f) {
  if (f->dim_arg < 0 || tt_l_is_none(L, f->dim_arg)) return -1;
  int rank = tt_l_arg_rank(L, 0);
  if (rank == 0)
    return tt_l_fail(L, TT_INDEX_ERROR, "%s: dim %lld is out of range for a 0-dim tensor", L->op,
                     (long long)tt_l_int(L, f->dim_arg, 0)),
           -2;
  return tt_op_wrap_dim(L, tt_l_int(L, f->dim_arg, 0), rank);
}

static tt_status_t lower_unique(tt_lower_t *L, const unique_form_t *f, int size_only) {
  tt_graph_t *g = L->g;
  int dim = form_dim(L, f);
  if (tt_graph_failed(g)) return NULL;
  if (dim >= 0) { /* CPU's checks of zero-sized dims (_unique_dim_cpu_template) */
    int rank = tt_l_arg_rank(L, 0), zeros = 0;
    const int64_t *sizes = tt_l_arg_sizes(L, 0);
    for (int d = 0; d < rank; d++) zeros += sizes[d] == 0;
    if (dim < rank && sizes[dim] == 0 && zeros > 1)
      return tt_status_make(TT_INVALID_ARGUMENT, "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    if (dim < rank && sizes[dim] != 0 && zeros)
      return tt_status_make(TT_INVALID_ARGUMENT, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  }
  rows_t r;
  if (rows_of(L, dim, &r)) return NULL;
  int64_t n = r.n, m = r.m;
  tt_val_t perm = n && f->sorts ? sort_perm(g, &r) : tt_b_iota(g, TT_I64, 1, &n, 0);
  int64_t nm[2] = {n, m};
  tt_val_t keys = n && f->sorts ? tt_nn_gather_dim(g, r.keys, 0, perm, n) : r.keys;
  tt_val_t is_new = n ? group_starts(g, keys, n, m) : tt_b_full_i(g, TT_BOOL, 1, &n, 0);
  (void)nm;
  if (size_only) {
    int64_t d0 = 0;
    tt_l_output(L, tt_b_reduce(g, TT_RED_SUM, tt_b_convert(g, is_new, TT_I64), 1, &d0));
    return NULL;
  }
  int64_t k;
  if (tt_l_ints(L, L->nargs - 1, &k, 1) != 1) return tt_l_fail(L, TT_INTERNAL, "%s: missing unique count", L->op), NULL;
  if (k < 0 || k > n) return tt_l_fail(L, TT_INTERNAL, "%s: unique count %lld outside [0, %lld]", L->op, (long long)k, (long long)n), NULL;
  /* Group starts in order: a stable sort of "not a start" brings them to the front. */
  tt_val_t starts = tt_b_full_i(g, TT_I64, 1, &k, 0);
  if (k) {
    tt_val_t so[2] = {tt_b_convert(g, tt_b_unary(g, TT_UN_NOT, is_new), TT_I32), tt_b_iota(g, TT_I64, 1, &n, 0)};
    starts = tt_b_slice_dim(g, tt_b_get(g, tt_b_sort(g, 2, so, 0, 0, 1), 1), 0, 0, k, 1);
  }
  /* Values: the first row of each group, in the input's type. */
  tt_val_t vals = k ? tt_nn_gather_dim(g, r.x, 0, tt_nn_gather_dim(g, perm, 0, starts, k), k) : tt_b_slice_dim(g, r.x, 0, 0, 0, 1);
  if (dim < 0) {
    vals = tt_b_reshape(g, vals, 1, &k);
  } else {
    int64_t vd[TT_MAX_RANK], inv[TT_MAX_RANK];
    memcpy(vd, r.moved, sizeof vd);
    vd[0] = k;
    vals = tt_b_reshape(g, vals, r.rank, vd);
    for (int d = 0; d < r.rank; d++) inv[r.perm[d]] = d;
    vals = tt_b_transpose(g, vals, inv);
  }
  tt_l_output(L, vals);
  int want_inv = f->inverse_arg < 0 || tt_l_bool(L, f->inverse_arg, 0);
  int want_cnt = f->counts_arg < 0 || tt_l_bool(L, f->counts_arg, 0);
  int64_t zero = 0;
  if (want_inv) {
    /* inverse[perm[i]] = group of sorted row i. */
    tt_val_t gid = tt_b_binary(g, TT_BIN_SUB, tt_op_scan(g, TT_RED_SUM, tt_b_convert(g, is_new, TT_I64), 0),
                               tt_b_full_i(g, TT_I64, 1, &n, 1));
    tt_val_t inv = gid;
    if (f->sorts && n) {
      inv = tt_nn_scatter_dim0(g, TT_RED_SET, tt_b_full_i(g, TT_I64, 1, &n, 0), perm, gid, n);
    }
    if (dim < 0) inv = tt_b_reshape(g, inv, tt_l_arg_rank(L, 0), tt_l_arg_sizes(L, 0));
    tt_l_output(L, inv);
  } else if (f->outputs > 1) {
    tt_l_output(L, tt_b_full_i(g, TT_I64, 1, &zero, 0));
  }
  if (f->outputs < 3) return NULL;
  if (want_cnt && k) {
    tt_val_t nn = tt_b_full_i(g, TT_I64, 1, (int64_t[]){1}, n);
    tt_val_t ends[2] = {tt_b_slice_dim(g, starts, 0, 1, k, 1), nn};
    tt_l_output(L, tt_b_binary(g, TT_BIN_SUB, tt_b_concat(g, 2, ends, 0), starts));
  } else {
    tt_l_output(L, tt_b_full_i(g, TT_I64, 1, want_cnt ? &k : &zero, 0));
  }
  return NULL;
}

/* _unique2(self, sorted, return_inverse, return_counts) */
static const unique_form_t UNIQUE2 = {-1, 1, 2, 3, 3};
/* _unique(self, sorted, return_inverse) */
static const unique_form_t UNIQUE1 = {-1, 1, 2, -2, 2};
/* unique_dim(self, dim, sorted, return_inverse, return_counts): all outputs computed, as on CPU */
static const unique_form_t UNIQUE_DIM = {1, 1, -1, -1, 3};
/* unique_consecutive(self, return_inverse, return_counts, dim) */
static const unique_form_t CONSEC = {3, 0, 1, 2, 3};
/* unique_dim_consecutive(self, dim, return_inverse, return_counts) */
static const unique_form_t CONSEC_DIM = {1, 0, -1, -1, 3};

/* unique_consecutive with a dim computes all outputs, as CPU's unique_dim_consecutive. */
static tt_status_t consec(tt_lower_t *L, int size_only) {
  unique_form_t f = CONSEC;
  if (!tt_l_is_none(L, 3)) f.inverse_arg = f.counts_arg = -1;
  return lower_unique(L, &f, size_only);
}

static tt_status_t size_unique2(tt_lower_t *L) { return lower_unique(L, &UNIQUE2, 1); }
static tt_status_t do_unique2(tt_lower_t *L) { return lower_unique(L, &UNIQUE2, 0); }
static tt_status_t size_unique1(tt_lower_t *L) { return lower_unique(L, &UNIQUE1, 1); }
static tt_status_t do_unique1(tt_lower_t *L) { return lower_unique(L, &UNIQUE1, 0); }
static tt_status_t size_unique_dim(tt_lower_t *L) { return lower_unique(L, &UNIQUE_DIM, 1); }
static tt_status_t do_unique_dim(tt_lower_t *L) { return lower_unique(L, &UNIQUE_DIM, 0); }
static tt_status_t size_consec(tt_lower_t *L) { return consec(L, 1); }
static tt_status_t do_consec(tt_lower_t *L) { return consec(L, 0); }
static tt_status_t size_consec_dim(tt_lower_t *L) { return lower_unique(L, &CONSEC_DIM, 1); }
static tt_status_t do_consec_dim(tt_lower_t *L) { return lower_unique(L, &CONSEC_DIM, 0); }

const tt_op_def_t tt_ops_unique[] = {
    {"_unique2", do_unique2, 0, .size = size_unique2},
    {"_unique", do_unique1, 0, .size = size_unique1},
    {"unique_dim", do_unique_dim, 0, .size = size_unique_dim},
    {"unique_consecutive", do_consec, 0, .size = size_consec},
    {"unique_dim_consecutive", do_consec_dim, 0, .size = size_consec_dim},
    {NULL, NULL, 0},
};
