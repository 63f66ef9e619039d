/* out= step of the facade (api/out_write.h). */
#include "api/out_write.h"

#include "ops/out_rules.h"

tt_status_t tt_call_check_out_write(const char *name, int k, const tt_tensor_ref_t *out, tt_dtype_t result,
                                    const int64_t *res, int res_rank, const tt_tensor_ref_t *ins, int nins,
                                    tt_out_resize_t *resize, char *warn, size_t cap) {
  tt_status_t s = tt_op_check_out(name, k, result, out->dtype);
  if (s) return s;
  for (int i = 0; i < nins; i++)
    if ((s = tt_op_out_overlap(out, &ins[i]))) return s;
  *resize = tt_op_out_resize(out->view.sizes, out->view.rank, res, res_rank, warn, cap);
  return NULL;
}
