/* Storages: the flat device buffer behind a PyTorch storage, shared by every
 * view of it. A write replaces the buffer; every alias sees the new one.
 * Thread safety: refcounts are atomic; buffer swaps are done under the engine lock (api/engine_lock.h)
 * by the binding (the core assumes one mutating thread). */
#ifndef TT_EXEC_STORAGE_H
#define TT_EXEC_STORAGE_H

#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"
#include "exec/engine_type.h"
#include "exec/stats.h"
#include "pjrt/runtime.h"

typedef struct tt_storage_s {
  int refcount;
  tt_engine_t *engine; /* whose device holds buf, and whose region it may be pending in */
  tt_dtype_t dtype;
  int64_t numel;
  tt_pjrt_buffer_t *buf; /* flat [numel]; NULL until first written (reads as zeros) */
  /* In the open region of generation `gen` (exec/region.h): the node holding
   * the storage's value when it was written there (pending, -1 if none), and
   * the parameter bound to `buf` when it was read there (-1 if none). */
  uint64_t gen;
  int pending;
  int param;
  /* A deferred computation that should have produced this storage failed. */
  int poisoned;
  /* The host address PyTorch reports as its data_ptr (base/vaddr.h): 0
   * until asked for; addr_capacity bytes are reserved there. */
  uint64_t addr, addr_capacity;
  /* Order of creation in its engine (exec/plan.h tells a graph's own
   * storages from those made before it). */
  uint64_t serial;
} tt_storage_t;

/* Takes ownership of buf (may be NULL). */
tt_status_t tt_storage_create(tt_engine_t *e, tt_dtype_t dtype, int64_t numel, tt_pjrt_buffer_t *buf,
                              tt_storage_t **out_storage);
void tt_storage_retain(tt_storage_t *s);
void tt_storage_release(tt_storage_t *s);
/* Replaces the buffer (taking ownership), destroying the old one. */
void tt_storage_set_buffer(tt_storage_t *s, tt_pjrt_buffer_t *buf);
/* The same after a launch that took the old buffer as a donated argument
 * (XLA's input/output alias) and wrote buf: the old one is destroyed once
 * the launches in flight are done (exec/retired.h), since destroying it at
 * once would wait for the program. */
void tt_storage_set_buffer_donated(tt_storage_t *s, tt_pjrt_buffer_t *buf);
/* Removes and returns the buffer (the caller owns it); the storage reads as zeros after. */
tt_pjrt_buffer_t *tt_storage_take_buffer(tt_storage_t *s);
/* The storage's unique, inaccessible host address, sized for its current
 * numel: it moves when the storage outgrew it (as realloc moves data); 0 for
 * an empty storage. */
tt_status_t tt_storage_address(tt_storage_t *s, uint64_t *out_addr);
/* The buffer, materializing zeros for a never-written storage. */
tt_status_t tt_storage_buffer(tt_storage_t *s, tt_pjrt_buffer_t **out_buf);

/* The engine's memory counters read, or their peaks reset to the live
 * values, atomically. */
tt_memory_stats_t tt_memory_snapshot(const tt_engine_t *e);
void tt_memory_reset_peak(tt_engine_t *e);

#endif
