/* The facade of the foreign-module table (api/foreign.h). */
#include "api/foreign.h"

#include "ir/foreign.h"

tt_status_t tt_api_foreign_intern(const char *text, size_t len, int64_t *out_key) {
  uint64_t key = 0;
  TT_RETURN_IF_ERROR(tt_foreign_intern(text, len, &key));
  *out_key = (int64_t)key;
  return TT_OK_STATUS;
}

void tt_api_foreign_arity(int64_t key, int *out_nin, int *out_nout) {
  const tt_foreign_t *f = tt_foreign_get((uint64_t)key);
  *out_nin = f ? f->nin : 0;
  *out_nout = f ? f->nout : 0;
}
