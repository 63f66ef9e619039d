/* A direct-mapped cache of device scalars keyed by (dtype, bits). */
#include "exec/scalars.h"

#include <string.h>

#include "exec/engine.h"
#include "base/alloc.h"
#include "base/hash.h"

#define SLOTS TT_SCALAR_SLOTS

static void evict(tt_scalars_t *c, tt_pjrt_buffer_t *buf) {
  if (c->nevicted == c->cap_evicted) {
    size_t cap = c->cap_evicted ? 2 * c->cap_evicted : 64;
    tt_pjrt_buffer_t **p = tt_realloc(c->evicted, cap * sizeof(*p));
    if (!p) return; /* keep it alive forever rather than free it early */
    c->evicted = p;
    c->cap_evicted = cap;
  }
  c->evicted[c->nevicted++] = buf;
}

void tt_scalars_release_evicted(tt_engine_t *e) {
  tt_scalars_t *c = &e->scalars;
  for (size_t i = 0; i < c->nevicted; i++) tt_pjrt_buffer_destroy(e->rt, c->evicted[i]);
  c->nevicted = 0;
}

tt_status_t tt_scalars_get(tt_engine_t *e, tt_dtype_t dtype, uint64_t bits, tt_pjrt_buffer_t **out_buf) {
  tt_scalars_t *c = &e->scalars;
  size_t i = (size_t)tt_hash_u64((uint64_t)dtype, bits) & (SLOTS - 1);
  tt_scalar_slot_t *s = &c->slots[i];
  if (s->buf && s->dtype == dtype && s->bits == bits) {
    *out_buf = s->buf;
    return TT_OK_STATUS;
  }
  tt_pjrt_buffer_t *buf;
  TT_RETURN_IF_ERROR(tt_pjrt_buffer_from_host(e->rt, &bits, dtype, NULL, 0, 0, &buf));
  /* The c->evicted scalar may still be an argument of an enqueued program;
   * PJRT keeps it alive until that program is done. */
  if (s->buf) evict(c, s->buf);
  s->dtype = dtype;
  s->bits = bits;
  s->buf = buf;
  *out_buf = buf;
  return TT_OK_STATUS;
}

void tt_scalars_clear(tt_engine_t *e) {
  tt_scalars_t *c = &e->scalars;
  for (size_t i = 0; i < SLOTS; i++) {
    if (c->slots[i].buf) tt_pjrt_buffer_destroy(e->rt, c->slots[i].buf);
    c->slots[i].buf = NULL;
  }
  tt_scalars_release_evicted(e);
  tt_free(c->evicted);
  c->evicted = NULL;
  c->cap_evicted = 0;
}
