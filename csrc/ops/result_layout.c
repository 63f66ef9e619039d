/* Result layouts as PyTorch's CPU kernels choose them (ops/result_layout.h):
 * TensorIterator's dim order, suggest_memory_format's channels_last test,
 * empty_like's preserve_format. Written from PyTorch's documented behaviour
 * and checked against CPU by tests/python/test_result_layout.py. */
#include "ops/result_layout.h"

#include <string.h>

#include "base/dtype.h"

#define MAX_OPERANDS 8

enum { FMT_CONTIGUOUS, FMT_CHANNELS_LAST, FMT_CHANNELS_LAST_3D };

static int view_row_major(const tt_view_t *v) {
  if (tt_view_numel(v) == 0) return 1;
  int64_t expect = 1;
  for (int d = v->rank - 1; d >= 0; d--) {
    if (v->sizes[d] != 1 && v->strides[d] != expect) return 0;
    expect *= v->sizes[d];
  }
  return 1;
}

int tt_layout_args_strided(const tt_arg_t *args, int nargs) {
  for (int i = 0; i < nargs; i++)
    if (args[i].kind == TT_ARG_TENSOR && args[i].t[0].storage && !view_row_major(&args[i].t[0].view)) return 1;
  return 0;
}

/* c10's channels_last stride test (dims visited fastest first: C, W, H[, D],
 * N); ambiguous cases (a trivial channel stride, N111) read as row-major. */
static int strides_like_channels_last(const tt_view_t *v) {
  static const int order4[] = {1, 3, 2, 0}, order5[] = {1, 4, 3, 2, 0};
  const int *order = v->rank == 4 ? order4 : v->rank == 5 ? order5 : NULL;
  if (!order || v->strides[1] == 0) return 0;
  int64_t min = 0;
  for (int k = 0; k < v->rank; k++) {
    int d = order[k];
    if (v->sizes[d] == 0 || v->strides[d] < min) return 0;
    if (d == 0 && min == v->strides[1]) return 0;
    min = v->strides[d];
    if (v->sizes[d] > 1) min *= v->sizes[d];
  }
  return 1;
}

static int suggest_format(const tt_view_t *v) {
  if (!strides_like_channels_last(v)) return FMT_CONTIGUOUS;
  return v->rank == 4 ? FMT_CHANNELS_LAST : FMT_CHANNELS_LAST_3D;
}

/* Dense strides with dims in `order` (slowest first). */
static void dense_strides(int rank, const int64_t *sizes, const int64_t *order, int64_t *strides) {
  int64_t acc = 1;
  for (int k = rank - 1; k >= 0; k--) {
    strides[order[k]] = acc;
    acc *= sizes[order[k]] > 1 ? sizes[order[k]] : 1;
  }
}

/* channels_last: N, spatial dims, C. */
static void format_order(int rank, int64_t *order) {
  order[0] = 0;
  for (int k = 1; k < rank - 1; k++) order[k] = k + 1;
  order[rank - 1] = 1;
}

typedef struct operand_s {
  const tt_view_t *v;
  int64_t itemsize;
} operand_t;

/* The operand's byte stride along result dim d (broadcast dims: 0). */
static int64_t stride_bytes(const operand_t *op, int rank, const int64_t *sizes, int d) {
  int od = d - (rank - op->v->rank);
  if (od < 0 || (op->v->sizes[od] == 1 && sizes[d] != 1)) return 0;
  return op->v->strides[od] * op->itemsize;
}

/* TensorIterator's comparison of two dims: >0 swaps them (dim0 is slower). */
static int should_swap(const operand_t *ops, int nops, int rank, const int64_t *sizes, int d0, int d1) {
  for (int i = 0; i < nops; i++) {
    int64_t s0 = stride_bytes(&ops[i], rank, sizes, d0), s1 = stride_bytes(&ops[i], rank, sizes, d1);
    if (s0 == 0 || s1 == 0) continue;
    if (s0 < s1) return -1;
    if (s0 > s1) return 1;
    if (sizes[d0] > sizes[d1]) return 1; /* equal strides: the smaller dim goes first */
  }
  return 0;
}

/* TensorIterator's permutation (perm[0] fastest), by insertion sort with
 * ambiguous comparisons, as reorder_dimensions does; 0 when it stays the
 * row-major order. */
static int iterator_perm(const operand_t *ops, int nops, int rank, const int64_t *sizes, int64_t *perm) {
  for (int i = 0; i < rank; i++) perm[i] = rank - 1 - i;
  for (int i = 1; i < rank; i++) {
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; d0--) {
      int c = should_swap(ops, nops, rank, sizes, (int)perm[d0], (int)perm[d1]);
      if (c > 0) {
        int64_t t = perm[d0];
        perm[d0] = perm[d1];
        perm[d1] = t;
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  for (int i = 0; i < rank; i++)
    if (perm[i] != rank - 1 - i) return 1;
  return 0;
}

/* Order and strides from a permutation (fastest first), as TensorIterator
 * allocates its output. */
static int from_perm(int rank, const int64_t *sizes, const int64_t *perm, int64_t *order, int64_t *strides) {
  int64_t acc = 1;
  for (int k = 0; k < rank; k++) {
    order[rank - 1 - k] = perm[k];
    strides[perm[k]] = acc;
    if (sizes[perm[k]] > 1) acc *= sizes[perm[k]]; /* a size-0 dim counts as 1: no elements anyway */
  }
  return 1;
}

static int same_sizes(const tt_view_t *v, int rank, const int64_t *sizes) {
  return v->rank == rank && !memcmp(v->sizes, sizes, sizeof(int64_t) * (size_t)rank);
}

/* A dense view's own strides; its order is its dims by stride (size-1 dims
 * anywhere: they hold no data). 0 when the strides are row-major. */
static int like_dense(const tt_view_t *v, int64_t *order, int64_t *strides) {
  int rank = v->rank, n = 0;
  for (int d = 0; d < rank; d++)
    if (v->sizes[d] == 1) order[n++] = d;
  for (int d = 0; d < rank; d++) {
    if (v->sizes[d] == 1) continue;
    int k = n++;
    while (k > 0 && v->sizes[order[k - 1]] != 1 && v->strides[order[k - 1]] < v->strides[d]) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = d;
  }
  memcpy(strides, v->strides, sizeof(int64_t) * (size_t)rank);
  int64_t rm[TT_MAX_RANK], acc = 1;
  for (int d = rank - 1; d >= 0; d--) {
    rm[d] = acc;
    acc *= v->sizes[d];
  }
  return memcmp(rm, strides, sizeof(int64_t) * (size_t)rank) != 0;
}

static int iterator_layout(const operand_t *ops, int nops, int rank, const int64_t *sizes, int64_t *order,
                           int64_t *strides) {
  int same = nops > 0, contiguous = 1, channels_last = 1, dense = 1;
  for (int i = 0; i < nops; i++) {
    same &= same_sizes(ops[i].v, rank, sizes);
    contiguous &= view_row_major(ops[i].v);
    channels_last &= suggest_format(ops[i].v) == FMT_CHANNELS_LAST;
    dense &= tt_view_is_dense(ops[i].v);
  }
  if (same) { /* TensorIterator's fast set-up */
    if (contiguous) return 0;
    if (channels_last) {
      format_order(rank, order);
      dense_strides(rank, sizes, order, strides);
      return 1;
    }
    int equal = dense;
    for (int i = 1; equal && i < nops; i++)
      equal = !memcmp(ops[i].v->strides, ops[0].v->strides, sizeof(int64_t) * (size_t)rank);
    if (equal) return like_dense(ops[nops - 1].v, order, strides);
  }
  int64_t perm[TT_MAX_RANK];
  if (!iterator_perm(ops, nops, rank, sizes, perm)) return 0;
  return from_perm(rank, sizes, perm, order, strides);
}

static const tt_view_t *tensor_arg(const tt_arg_t *args, int nargs, int k, tt_dtype_t *dtype) {
  for (int i = 0; i < nargs; i++)
    if (args[i].kind == TT_ARG_TENSOR && args[i].t[0].storage && k-- == 0) {
      if (dtype) *dtype = args[i].t[0].dtype;
      return &args[i].t[0].view;
    }
  return NULL;
}

static int memory_format_layout(const tt_view_t *in, const tt_view_t *weight, int rank, const int64_t *sizes,
                                int64_t *order, int64_t *strides) {
  int fmt = in ? suggest_format(in) : FMT_CONTIGUOUS;
  if (fmt == FMT_CONTIGUOUS && weight) fmt = suggest_format(weight);
  if (fmt == FMT_CONTIGUOUS || !in || rank != in->rank || rank != (fmt == FMT_CHANNELS_LAST ? 4 : 5)) return 0;
  format_order(rank, order);
  dense_strides(rank, sizes, order, strides);
  return 1;
}

static void contiguous_strides(int rank, const int64_t *sizes, int64_t *strides) {
  int64_t acc = 1;
  for (int d = rank - 1; d >= 0; d--) {
    strides[d] = acc;
    acc *= sizes[d] > 1 ? sizes[d] : 1;
  }
}

static int is_row_major(int rank, const int64_t *sizes, const int64_t *strides) {
  int64_t rm[TT_MAX_RANK];
  contiguous_strides(rank, sizes, rm);
  return !memcmp(rm, strides, sizeof(int64_t) * (size_t)rank);
}

const char *tt_layout_format_rank_error(tt_memory_format_t fmt) {
  return fmt == TT_MEMORY_FORMAT_CHANNELS_LAST_3D ? "required rank 5 tensor to use channels_last_3d format"
                                                  : "required rank 4 tensor to use channels_last format";
}

int tt_layout_format_strides(int rank, const int64_t *sizes, tt_memory_format_t fmt, int64_t *strides) {
  if (fmt != TT_MEMORY_FORMAT_CHANNELS_LAST && fmt != TT_MEMORY_FORMAT_CHANNELS_LAST_3D) {
    contiguous_strides(rank, sizes, strides);
    return 0;
  }
  if (rank != (fmt == TT_MEMORY_FORMAT_CHANNELS_LAST ? 4 : 5)) return -1;
  /* c10's channels_last strides: C fastest, then W, H[, D], N, with the
   * sizes as they are (a size-0 dim zeroes the slower strides, as on CPU). */
  int64_t acc = 1;
  strides[1] = acc;
  acc *= sizes[1];
  for (int d = rank - 1; d >= 2; d--) {
    strides[d] = acc;
    acc *= sizes[d];
  }
  strides[0] = acc;
  return 0;
}

/* c10's is_non_overlapping_and_dense: an empty view is; otherwise its dims
 * of size >= 2, by increasing stride, have strides 1, s0, s0*s1, ... */
static int non_overlapping_and_dense(const tt_view_t *v) {
  return tt_view_numel(v) == 0 || tt_view_is_dense(v);
}

int tt_layout_copy_strides(const tt_view_t *v, tt_memory_format_t fmt, int64_t *order, int64_t *strides) {
  int rank = v->rank;
  if (fmt == TT_MEMORY_FORMAT_PRESERVE) {
    if (non_overlapping_and_dense(v)) {
      like_dense(v, order, strides);
    } else {
      operand_t op = {v, 1};
      int64_t perm[TT_MAX_RANK];
      iterator_perm(&op, 1, rank, v->sizes, perm);
      from_perm(rank, v->sizes, perm, order, strides);
    }
    return !is_row_major(rank, v->sizes, strides);
  }
  if (tt_layout_format_strides(rank, v->sizes, fmt, strides)) return -1;
  for (int d = 0; d < rank; d++) order[d] = d;
  if (fmt == TT_MEMORY_FORMAT_CONTIGUOUS) return 0;
  format_order(rank, order);
  return !is_row_major(rank, v->sizes, strides);
}

tt_memory_format_t tt_layout_memory_format_arg(const tt_arg_t *args, int nargs) {
  for (int i = 0; i < nargs; i++)
    if (args[i].kind == TT_ARG_MEMORY_FORMAT) return (tt_memory_format_t)args[i].i;
  return TT_MEMORY_FORMAT_PRESERVE;
}

int tt_layout_result(tt_layout_kind_t kind, const tt_arg_t *args, int nargs, int rank, const int64_t *sizes,
                     int64_t *order, int64_t *strides) {
  if (kind == TT_LAYOUT_COPY) { /* exact for every shape: a copy keeps even a size-1 dim's stride */
    const tt_view_t *in = tensor_arg(args, nargs, 0, NULL);
    if (!in || !same_sizes(in, rank, sizes)) return 0;
    return tt_layout_copy_strides(in, tt_layout_memory_format_arg(args, nargs), order, strides) > 0;
  }
  int64_t numel = 1;
  for (int d = 0; d < rank; d++) numel *= sizes[d];
  if (rank < 2 || numel <= 1) return 0;
  switch (kind) {
  case TT_LAYOUT_ITERATOR: {
    operand_t ops[MAX_OPERANDS];
    int nops = 0;
    tt_dtype_t dt;
    for (const tt_view_t *v; nops < MAX_OPERANDS && (v = tensor_arg(args, nargs, nops, &dt));) {
      if (v->rank > rank) return 0; /* not a result of the broadcast shape */
      ops[nops++] = (operand_t){v, (int64_t)tt_dtype_size(dt)};
    }
    return iterator_layout(ops, nops, rank, sizes, order, strides);
  }
  case TT_LAYOUT_MEMORY_FORMAT:
  case TT_LAYOUT_CONV:
    return memory_format_layout(tensor_arg(args, nargs, 0, NULL),
                                kind == TT_LAYOUT_CONV ? tensor_arg(args, nargs, 1, NULL) : NULL, rank, sizes, order,
                                strides);
  case TT_LAYOUT_LIKE_INPUT: {
    tt_dtype_t dt;
    const tt_view_t *in = tensor_arg(args, nargs, 0, &dt);
    if (!in || !same_sizes(in, rank, sizes)) return 0;
    if (tt_view_is_dense(in)) return like_dense(in, order, strides);
    operand_t op = {in, (int64_t)tt_dtype_size(dt)};
    int64_t perm[TT_MAX_RANK];
    if (!iterator_perm(&op, 1, rank, sizes, perm)) return 0;
    return from_perm(rank, sizes, perm, order, strides);
  }
  default:
    return 0;
  }
}
