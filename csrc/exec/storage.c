/* Storage lifetime: refcounting and buffer replacement. */
#include "exec/storage.h"

#include "exec/engine.h"
#include "exec/retired.h"
#include "base/alloc.h"
#include "base/vaddr.h"

static void raise_peak(int64_t *peak, int64_t now) {
  int64_t seen = __atomic_load_n(peak, __ATOMIC_RELAXED);
  while (now > seen && !__atomic_compare_exchange_n(peak, &seen, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

static void account(const tt_storage_t *s, int sign) {
  tt_memory_stats_t *m = &s->engine->memory;
  int64_t bytes = s->numel * (int64_t)tt_dtype_size(s->dtype);
  int64_t live = __atomic_add_fetch(&m->live_bytes, sign * bytes, __ATOMIC_RELAXED);
  int64_t buffers = __atomic_add_fetch(&m->live_buffers, sign, __ATOMIC_RELAXED);
  __atomic_add_fetch(sign > 0 ? &m->num_allocs : &m->num_frees, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(sign > 0 ? &m->allocated_bytes : &m->freed_bytes, bytes, __ATOMIC_RELAXED);
  if (sign > 0) {
    raise_peak(&m->peak_bytes, live);
    raise_peak(&m->peak_buffers, buffers);
  }
}

void tt_memory_reset_peak(tt_engine_t *e) {
  tt_memory_stats_t *m = &e->memory;
  __atomic_store_n(&m->peak_bytes, __atomic_load_n(&m->live_bytes, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
  __atomic_store_n(&m->peak_buffers, __atomic_load_n(&m->live_buffers, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

tt_memory_stats_t tt_memory_snapshot(const tt_engine_t *e) {
  const tt_memory_stats_t *m = &e->memory;
  tt_memory_stats_t r;
  r.live_bytes = __atomic_load_n(&m->live_bytes, __ATOMIC_RELAXED);
  r.peak_bytes = __atomic_load_n(&m->peak_bytes, __ATOMIC_RELAXED);
  r.num_allocs = __atomic_load_n(&m->num_allocs, __ATOMIC_RELAXED);
  r.num_frees = __atomic_load_n(&m->num_frees, __ATOMIC_RELAXED);
  r.live_buffers = __atomic_load_n(&m->live_buffers, __ATOMIC_RELAXED);
  r.peak_buffers = __atomic_load_n(&m->peak_buffers, __ATOMIC_RELAXED);
  r.allocated_bytes = __atomic_load_n(&m->allocated_bytes, __ATOMIC_RELAXED);
  r.freed_bytes = __atomic_load_n(&m->freed_bytes, __ATOMIC_RELAXED);
  return r;
}

tt_status_t tt_storage_create(tt_engine_t *e, tt_dtype_t dtype, int64_t numel, tt_pjrt_buffer_t *buf,
                              tt_storage_t **out_storage) {
  tt_storage_t *s = tt_calloc(1, sizeof(*s));
  if (!s) {
    if (buf) tt_pjrt_buffer_destroy(e->rt, buf);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory creating a storage");
  }
  s->refcount = 1;
  s->engine = e;
  s->dtype = dtype;
  s->numel = numel;
  s->buf = buf;
  s->pending = s->param = -1;
  s->serial = e->storage_serial++;
  if (buf) account(s, 1);
  *out_storage = s;
  return TT_OK_STATUS;
}

void tt_storage_retain(tt_storage_t *s) { __atomic_add_fetch(&s->refcount, 1, __ATOMIC_RELAXED); }

void tt_storage_release(tt_storage_t *s) {
  if (!s || __atomic_sub_fetch(&s->refcount, 1, __ATOMIC_ACQ_REL) != 0) return;
  tt_region_forget(s->engine, s); /* a dead value is never an output */
  tt_vaddr_free(s->addr, s->addr_capacity);
  if (s->buf) {
    account(s, -1);
    tt_pjrt_buffer_destroy(s->engine->rt, s->buf);
  }
  tt_free(s);
}

/* Both buffers exist at once until the old one is destroyed: at once, so
 * that its memory is free as soon as its readers are done, or retired when
 * a launch still holds it. */
static void replace_buffer(tt_storage_t *s, tt_pjrt_buffer_t *buf, int donated) {
  if (buf) account(s, 1);
  if (s->buf) {
    account(s, -1);
    if (donated) tt_retire_buffer(s->engine, s->buf);
    else tt_pjrt_buffer_destroy(s->engine->rt, s->buf);
  }
  s->buf = buf;
}

void tt_storage_set_buffer(tt_storage_t *s, tt_pjrt_buffer_t *buf) { replace_buffer(s, buf, 0); }
void tt_storage_set_buffer_donated(tt_storage_t *s, tt_pjrt_buffer_t *buf) { replace_buffer(s, buf, 1); }

tt_status_t tt_storage_buffer(tt_storage_t *s, tt_pjrt_buffer_t **out_buf) {
  if (s->poisoned)
    return tt_status_make(TT_INTERNAL, "this tensor's value was never computed: the deferred "
                                       "computation that produced it failed earlier");
  if (!s->buf) {
    size_t n = (size_t)s->numel * tt_dtype_size(s->dtype);
    void *zeros = tt_calloc(1, n);
    if (!zeros)
      return tt_status_make(TT_OUT_OF_MEMORY, "TPU out of memory: tried to allocate %llu bytes (the host copy "
                                              "of zeros for a new storage)", (unsigned long long)n);
    int64_t dim = s->numel;
    tt_status_t st = tt_pjrt_buffer_from_host(s->engine->rt, zeros, s->dtype, &dim, 1, 0, &s->buf);
    tt_free(zeros);
    TT_RETURN_IF_ERROR(st);
    account(s, 1);
  }
  *out_buf = s->buf;
  return TT_OK_STATUS;
}

tt_pjrt_buffer_t *tt_storage_take_buffer(tt_storage_t *s) {
  tt_pjrt_buffer_t *buf = s->buf;
  if (buf) account(s, -1);
  s->buf = NULL;
  return buf;
}

tt_status_t tt_storage_address(tt_storage_t *s, uint64_t *out_addr) {
  uint64_t nbytes = (uint64_t)s->numel * tt_dtype_size(s->dtype);
  if (nbytes == 0 || (s->addr && s->addr_capacity >= nbytes)) {
    *out_addr = nbytes ? s->addr : 0;
    return TT_OK_STATUS;
  }
  tt_vaddr_free(s->addr, s->addr_capacity);
  s->addr = tt_vaddr_alloc(nbytes, &s->addr_capacity);
  if (!s->addr)
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host address space for a storage of %llu bytes",
                          (unsigned long long)nbytes);
  *out_addr = s->addr;
  return TT_OK_STATUS;
}
