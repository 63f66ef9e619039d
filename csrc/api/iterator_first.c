/* TensorIterator's checks ahead of a dtype refusal (see iterator_first.h). */
#include "api/iterator_first.h"

#include <stdio.h>
#include <string.h>

#include "ops/common.h"
#include "ops/out_rules.h"
#include "ops/registry.h"
#include "views/view_type.h"

static int marked(const unsigned char *set, int n, int op_id) { return set && op_id >= 0 && op_id < n ? set[op_id] : 0; }

/* Broadcasts (rank, shape) with view v in place (infer_size); on a mismatch
 * its error, at the rightmost mismatching dim. */
static tt_status_t broadcast_into(int *rank, int64_t *shape, const tt_view_t *v) {
  int n = v->rank > *rank ? v->rank : *rank;
  int64_t next[TT_MAX_RANK];
  for (int d = n - 1; d >= 0; d--) {
    int da = d - (n - *rank), db = d - (n - v->rank);
    int64_t a = da >= 0 ? shape[da] : 1, b = db >= 0 ? v->sizes[db] : 1;
    if (a != b && a != 1 && b != 1)
      return tt_status_make(TT_INVALID_ARGUMENT,
                            "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                            (long long)a, (long long)b, d);
    next[d] = a == 1 ? b : a;
  }
  memcpy(shape, next, sizeof(int64_t) * (size_t)n);
  *rank = n;
  return TT_OK_STATUS;
}

tt_status_t tt_iterator_broadcast_first(const tt_engine_t *e, int op_id, const tt_arg_t *args, int nargs,
                                        tt_status_t refusal) {
  if (!refusal || tt_status_code(refusal) != TT_NOT_IMPLEMENTED) return TT_OK_STATUS;
  /* PyTorch's pointwise tag, or a row the core knows to be TensorIterator's
   * (floor_divide, untagged: fuzz 413:247, complex [33, 17] // [257] is the
   * size error on CPU, not div_floor_cpu's refusal) */
  const tt_op_def_t *def = tt_ops_get(op_id);
  if (!marked(e->pointwise_ops, e->npointwise_ops, op_id) && !(def && def->layout == TT_LAYOUT_ITERATOR))
    return TT_OK_STATUS;
  int64_t shape[TT_MAX_RANK];
  int rank = 0;
  for (int i = 0; i < nargs; i++)
    if (args[i].kind == TT_ARG_TENSOR) TT_RETURN_IF_ERROR(broadcast_into(&rank, shape, &args[i].t->view));
  return TT_OK_STATUS;
}

/* A comparison's in-place form (lt_, eq_, greater_equal_, ...) or a logical
 * op's (logical_xor_, fuzz 532:1063): its iterator casts the bool result
 * into self without the safe-cast check. */
static int comparison(const tt_op_def_t *def) {
  static const char *const names[] = {"eq_", "ne_", "lt_", "le_", "gt_", "ge_", "less_", "less_equal_", "greater_",
                                      "greater_equal_", "not_equal_", "logical_and_", "logical_or_", "logical_xor_"};
  if (!def) return 0;
  const char *dot = strchr(def->name, '.');
  size_t n = dot ? (size_t)(dot - def->name) : strlen(def->name);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strlen(names[i]) == n && !strncmp(names[i], def->name, n)) return 1;
  return 0;
}

/* "[2, 3]", as PyTorch prints a shape in these messages. */
static void shape_text(char *buf, size_t cap, int rank, const int64_t *d) {
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < rank && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, i ? ", %lld" : "%lld", (long long)d[i]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

tt_status_t tt_iterator_inplace_first(const tt_engine_t *e, int op_id, const tt_arg_t *args, int nargs,
                                      tt_status_t refusal) {
  int kind = marked(e->inplace_iterator_ops, e->ninplace_iterator_ops, op_id); /* 2: binary, 1: pointwise */
  /* the shape check comes first whatever the failure (a lowering's own
   * error for a result larger than self: addcmul_ of complex values, which
   * compute); the cast check below only for a dtype refusal */
  if (!refusal || !kind || nargs < 1 || args[0].kind != TT_ARG_TENSOR) return TT_OK_STATUS;
  const tt_tensor_ref_t *self = args[0].t;
  /* TensorIterator's memory-overlap check comes first: a self whose
   * elements share memory (a size > 1 dim of stride 0; CPU's MemOverlap::Yes)
   * is refused before the shapes (fuzz 413:1150: an expanded complex self's
   * floor_divide_ is that error on CPU, not div_floor_cpu's refusal; 419:441:
   * an expanded bool self's ceil_, not ceil_vml_cpu's); only ahead of a
   * dtype refusal, as an op's own checks (clamp_'s bounds) come before it */
  int dispatch = tt_status_code(refusal) == TT_NOT_IMPLEMENTED; /* not an op's own (meta) check */
  for (int d = 0; dispatch && d < self->view.rank && tt_view_numel(&self->view) > 0; d++)
    if (self->view.strides[d] == 0 && self->view.sizes[d] > 1)
      return tt_status_make(TT_INVALID_ARGUMENT,
                            "unsupported operation: more than one element of the written-to tensor refers to a "
                            "single memory location. Please clone() the tensor before performing the operation.");
  if (nargs < 2) return TT_OK_STATUS;
  tt_arg_kind_t k = args[1].kind;
  if (kind == 2 && k != TT_ARG_TENSOR && k != TT_ARG_BOOL && k != TT_ARG_INT && k != TT_ARG_FLOAT && k != TT_ARG_COMPLEX)
    return TT_OK_STATUS;
  { /* self with each tensor operand in turn (lerp_'s end, then weight) */
    int64_t shape[TT_MAX_RANK];
    int rank = self->view.rank;
    memcpy(shape, self->view.sizes, sizeof(int64_t) * (size_t)rank);
    for (int i = 1; i < nargs; i++)
      if (args[i].kind == TT_ARG_TENSOR) TT_RETURN_IF_ERROR(broadcast_into(&rank, shape, &args[i].t->view));
    if (rank != self->view.rank || memcmp(shape, self->view.sizes, sizeof(int64_t) * (size_t)rank)) {
      char a[256], b[256]; /* rank 8 of 19-digit sizes fits */
      shape_text(a, sizeof a, self->view.rank, self->view.sizes);
      shape_text(b, sizeof b, rank, shape);
      return tt_status_make(TT_INVALID_ARGUMENT, "output with shape %s doesn't match the broadcast shape %s", a, b);
    }
  }
  /* the result is cast into self (binary ops' enforce_safe_casting_to_output,
   * not comparisons': int.lt_(complex) is lt_cpu's refusal): a complex one
   * into a real self, or any result type self cannot take, fails before a
   * dtype refusal (fuzz 440:277: bool.nextafter_(uint8) is 'result type
   * Byte can't be cast to the desired output type Bool' on CPU) */
  if (tt_status_code(refusal) != TT_NOT_IMPLEMENTED || kind != 2 || tt_dtype_is_complex(self->dtype) ||
      comparison(tt_ops_get(op_id)))
    return TT_OK_STATUS;
  static const int both[2] = {0, 1};
  int complex32 = 0;
  tt_dtype_t rt = tt_op_result_type_of(args, nargs, both, 2, e->default_float, &complex32);
  if (!complex32 && (rt == TT_DTYPE_INVALID || tt_op_can_cast(rt, self->dtype))) return TT_OK_STATUS;
  return tt_status_make(TT_INVALID_ARGUMENT, "result type %s can't be cast to the desired output type %s",
                        complex32 ? "ComplexHalf" : tt_op_type_name(rt), tt_op_type_name(self->dtype));
}
