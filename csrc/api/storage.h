/* Storages as the embedding holds them: an opaque handle (tt_storage_t of
 * ops/args.h) that a torch storage object owns one reference to, with its
 * element type, length and host address. The binding sees storages only
 * through this header and api/storage_resize.h (exec/storage.h, with the
 * device buffer, stays below the facade).
 * Thread safety: callers hold the engine lock (api/engine_lock.h); the
 * reference count is atomic, so release is safe from any thread. */
#ifndef TT_API_STORAGE_H
#define TT_API_STORAGE_H

#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"
#include "exec/engine_type.h"
#include "ops/args.h"

/* A new storage of numel elements with no buffer yet (reads as zeros). */
tt_status_t tt_api_storage_new(tt_engine_t *e, tt_dtype_t dtype, int64_t numel, tt_storage_t **out_storage);
void tt_api_storage_release(tt_storage_t *s);
int64_t tt_api_storage_numel(const tt_storage_t *s);
tt_dtype_t tt_api_storage_dtype(const tt_storage_t *s);
/* numel times the element size. */
int64_t tt_api_storage_nbytes(const tt_storage_t *s);
/* The engine whose device holds it. */
tt_engine_t *tt_api_storage_engine(const tt_storage_t *s);
/* The unique host address PyTorch reports as its data_ptr (moves when the
 * storage outgrew its reservation, as realloc moves data; 0 when empty). */
tt_status_t tt_api_storage_address(tt_storage_t *s, uint64_t *out_addr);

#endif
