/* _tt_foreign_call(Tensor[] inputs, int key, str name): a call of a foreign
 * StableHLO module interned by ir/foreign.c (torch.tpu.pallas.jax_op). One
 * node whose results are the module entry's results: in Strict it is one
 * program, in DeferAndFuse and compiled graphs part of the region's. */
#include <stdio.h>

#include "ir/foreign.h"
#include "ops/common.h"
#include "ops/families.h"

static tt_status_t lower_foreign(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int n = tt_l_list_len(L, 0);
  int64_t key = tt_l_int(L, 1, 0);
  const char *name = tt_l_str(L, 2, "jax_op");
  if (tt_graph_failed(g)) return NULL;
  const tt_foreign_t *f = tt_foreign_get((uint64_t)key);
  if (!f) return tt_status_make(TT_INVALID_ARGUMENT, "%s: no foreign module with key %016llx was interned", name,
                                (unsigned long long)key);
  if (n != f->nin)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: its lowered module takes %d arguments, got %d tensors", name, f->nin, n);
  if (n > TT_FOREIGN_MAX_VALUES) return tt_status_make(TT_NOT_IMPLEMENTED, "%s: more than %d tensors", name, TT_FOREIGN_MAX_VALUES);
  tt_val_t ins[TT_FOREIGN_MAX_VALUES];
  for (int i = 0; i < n; i++) {
    ins[i] = tt_l_tensor_elem(L, 0, i);
    if (tt_graph_failed(g)) return NULL;
    const tt_type_t *t = tt_graph_type(g, ins[i]);
    if (!tt_type_equal(t, &f->in[i])) {
      char got[128], want[128];
      tt_type_describe(t, got, sizeof got);
      tt_type_describe(&f->in[i], want, sizeof want);
      return tt_status_make(TT_INVALID_ARGUMENT, "%s: argument %d is %s, its lowered module expects %s", name, i, got, want);
    }
  }
  int64_t k = key;
  tt_val_t node = tt_graph_append_multi(g, TT_OPK_FOREIGN, 0, ins, n, &k, 1, f->out, f->nout);
  for (int i = 0; i < f->nout; i++) tt_l_output(L, tt_b_get(g, node, i));
  return NULL;
}

const tt_op_def_t tt_ops_foreign[] = {
    {"_tt_foreign_call", lower_foreign, TT_OPF_COMPLEX},
    {NULL, NULL, 0},
};
