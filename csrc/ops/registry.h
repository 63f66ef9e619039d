/* The table of ATen ops the core lowers, looked up by name: one row per op
 * holds everything the core and the glue know about it. */
#ifndef TT_OPS_REGISTRY_H
#define TT_OPS_REGISTRY_H

#include "ops/lower.h"
#include "ops/result_layout.h"

enum {
  TT_OPF_INPLACE = 1, /* "foo_": outs[0] is written into argument 0, which is returned */
  /* Writes one value to every element (fill_, zero_): a written view whose
   * elements alias each other (an expanded tensor) is fine, as on CPU. */
  TT_OPF_UNIFORM_WRITE = 2,
  /* The real lowering is right on complex values as it is (it only moves,
   * selects or converts elements): checked against CPU in test_complex.py. */
  TT_OPF_COMPLEX = 4,
  /* Argument 1 is an index list (index, index_put, _index_put_impl_) that
   * may hold boolean or byte masks: the facade expands them into long
   * indices first, or runs masked_fill, as PyTorch does (api/index_masks.h). */
  TT_OPF_INDEX_MASKS = 8,
  /* Needs an ordering of values (comparisons, min/max, sorting, rounding):
   * CPU has no complex kernel either, so complex inputs are refused with
   * CPU's type and a message saying so. UNORDERED: NotImplementedError
   * (CPU's dtype dispatch finds no kernel); UNORDERED_CHECK: RuntimeError
   * (CPU checks the dtype first: max.dim, maximum, sort, topk, ...). */
  TT_OPF_UNORDERED = 16,
  TT_OPF_UNORDERED_CHECK = 32,
};

typedef struct tt_op_def_s {
  const char *name; /* "add.Tensor" (no "aten::" prefix) */
  tt_lower_fn fn;
  int flags;
  /* The lowering for complex inputs; NULL: complex inputs are refused
   * unless TT_OPF_COMPLEX (ops/complex_rules.c). */
  tt_lower_fn complex;
  /* An op whose output shape depends on the data: this lowering runs first
   * (its own op id, tt_ops_size_companion), its small int64 result is read
   * back and passed to the op as a last list of ints. */
  tt_lower_fn size;
  /* How the results are laid out when a tensor argument is not row-major
   * (ops/result_layout.h); ops PyTorch tags pointwise take TensorIterator's
   * rule without saying so here (the embedding marks them on the engine:
   * tt_call_set_pointwise_ops). */
  tt_layout_kind_t layout;
} tt_op_def_t;

/* Ids [0, tt_ops_named_count()) are the rows, found by name; the ids after
 * them are the rows' size companions (named as their op). */
int tt_ops_count(void);
int tt_ops_named_count(void);
const tt_op_def_t *tt_ops_get(int id);
/* -1 when not found. */
int tt_ops_find(const char *name);
/* The id of op `id`'s size companion, -1 when it has none. */
int tt_ops_size_companion(int id);

#endif
