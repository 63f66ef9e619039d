/* The table of ATen ops the core lowers, looked up by name. */
#ifndef TT_OPS_REGISTRY_H
#define TT_OPS_REGISTRY_H

#include "ops/lower.h"

enum {
  TT_OPF_INPLACE = 1, /* "foo_": outs[0] is written into argument 0, which is returned */
  TT_OPF_RANDOM = 2,  /* consumes generator state */
  /* Writes one value to every element (fill_, zero_): a written view whose
   * elements alias each other (an expanded tensor) is fine, as on CPU. */
  TT_OPF_UNIFORM_WRITE = 4,
};

typedef struct tt_op_def_s {
  const char *name; /* "add.Tensor" (no "aten::" prefix) */
  tt_lower_fn fn;
  int flags;
} tt_op_def_t;

int tt_ops_count(void);
const tt_op_def_t *tt_ops_get(int id);
/* -1 when not found. */
int tt_ops_find(const char *name);

#endif
