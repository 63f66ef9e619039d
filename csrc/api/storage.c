/* The embedding's view of storages (api/storage.h). */
#include "api/storage.h"

#include "exec/storage.h"

tt_status_t tt_api_storage_new(tt_engine_t *e, tt_dtype_t dtype, int64_t numel, tt_storage_t **out_storage) {
  return tt_storage_create(e, dtype, numel, NULL, out_storage);
}

void tt_api_storage_release(tt_storage_t *s) { tt_storage_release(s); }
int64_t tt_api_storage_numel(const tt_storage_t *s) { return s->numel; }
tt_dtype_t tt_api_storage_dtype(const tt_storage_t *s) { return s->dtype; }
int64_t tt_api_storage_nbytes(const tt_storage_t *s) { return s->numel * (int64_t)tt_dtype_size(s->dtype); }
tt_engine_t *tt_api_storage_engine(const tt_storage_t *s) { return s->engine; }
tt_status_t tt_api_storage_address(tt_storage_t *s, uint64_t *out_addr) { return tt_storage_address(s, out_addr); }
