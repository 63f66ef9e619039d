/* Lowerings of tril_indices and triu_indices: the [2, count] coordinates of a
 * row x col matrix's lower/upper triangle (diagonal shifted by offset), in
 * row-major order. The count is known on the host; the coordinates are the
 * kept cells of the grid, placed by a prefix count and a scatter. */
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/scan.h"

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Cells with c - r <= offset: row r holds clamp(r + offset + 1, 0, col).
 * Rows before `a` hold none, rows from `b` on are full, rows between grow
 * by one each, so the sum has a closed form (huge shapes stay cheap). */
static int64_t tril_count(int64_t row, int64_t col, int64_t offset) {
  if (row == 0 || col == 0) return 0;
  int64_t a = clamp64(-offset, 0, row), b = clamp64(col - offset - 1, 0, row);
  if (b < a) b = a;
  int64_t first = a + offset + 1, last = b - 1 + offset + 1;
  int64_t mid = b > a ? (first + last) * (b - a) / 2 : 0;
  return mid + (row - b) * col;
}

/* [size] coordinates (row or col index) of the kept grid cells, in order. */
static tt_val_t place(tt_graph_t *g, tt_val_t coord, tt_val_t pos, int64_t n, int64_t size) {
  int64_t cd[2] = {n, 1};
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  sd.n_inserted = 1;
  sd.n_to_operand = 1;
  return tt_b_scatter(g, TT_RED_SET, tt_b_full_i(g, TT_I64, 1, &size, 0), tt_b_reshape(g, pos, 2, cd), coord, &sd);
}

/* tril_indices/triu_indices(row, col, offset=0, *, dtype=long, layout, device, pin_memory) */
static tt_status_t tri_indices(tt_lower_t *L, int lower) {
  const char *name = lower ? "tril_indices" : "triu_indices";
  int64_t row = tt_l_int(L, 0, 0), col = tt_l_int(L, 1, 0), offset = tt_l_int(L, 2, 0);
  tt_dtype_t dt = tt_l_dtype(L, 3);
  if (dt == TT_DTYPE_INVALID) dt = TT_I64;
  if (row < 0) return tt_status_make(TT_INVALID_ARGUMENT, "row must be non-negative, got%lld", (long long)row);
  if (col < 0) return tt_status_make(TT_INVALID_ARGUMENT, "col must be non-negative, got%lld", (long long)col);
  if (dt != TT_I64 && dt != TT_I32)
    return tt_op_refuse_dtype(dt, "%s", name);
  /* triu keeps c - r >= offset: everything but tril's c - r <= offset - 1. */
  int64_t size = lower ? tril_count(row, col, offset) : row * col - tril_count(row, col, offset - 1);
  tt_graph_t *g = L->g;
  int64_t od[2] = {2, size};
  if (size == 0) {
    tt_l_output(L, tt_b_full_i(g, dt, 2, od, 0));
    return NULL;
  }
  int64_t gd[2] = {row, col}, n = row * col;
  tt_val_t r = tt_b_iota(g, TT_I64, 2, gd, 0), c = tt_b_iota(g, TT_I64, 2, gd, 1);
  tt_val_t diff = tt_b_binary(g, TT_BIN_SUB, c, r);
  tt_val_t keep = tt_b_compare(g, lower ? TT_CMP_LE : TT_CMP_GE, diff, tt_b_full_i(g, TT_I64, 2, gd, offset));
  keep = tt_b_reshape(g, keep, 1, &n);
  if (tt_graph_failed(g)) return NULL;
  /* Position of each kept cell among the kept ones; the others go past the
   * end, where the scatter drops them. */
  tt_val_t pos = tt_b_binary(g, TT_BIN_SUB, tt_op_scan(g, TT_RED_SUM, tt_b_convert(g, keep, TT_I64), 0), tt_b_full_i(g, TT_I64, 1, &n, 1));
  pos = tt_b_select(g, keep, pos, tt_b_full_i(g, TT_I64, 1, &n, size));
  tt_val_t rows = place(g, tt_b_reshape(g, r, 1, &n), pos, n, size);
  tt_val_t cols = place(g, tt_b_reshape(g, c, 1, &n), pos, n, size);
  int64_t one[2] = {1, size};
  tt_val_t both[2] = {tt_b_reshape(g, rows, 2, one), tt_b_reshape(g, cols, 2, one)};
  tt_l_output(L, tt_b_convert(g, tt_b_concat(g, 2, both, 0), dt));
  return NULL;
}

static tt_status_t lower_tril_indices(tt_lower_t *L) { return tri_indices(L, 1); }
static tt_status_t lower_triu_indices(tt_lower_t *L) { return tri_indices(L, 0); }

const tt_op_def_t tt_ops_tri_indices[] = {
    {"tril_indices", lower_tril_indices, 0},
    {"triu_indices", lower_triu_indices, 0},
    {NULL, NULL, 0},
};
