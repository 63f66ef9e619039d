/* Old buffers destroyed after the launches that may still hold them (exec/retired.h). */
#include "exec/retired.h"

#include "base/alloc.h"
#include "exec/engine.h"

static uint64_t launches_done(const tt_engine_t *e) { return e->inflight.pushed - e->inflight.count; }

static int grow(tt_retired_t *T) {
  size_t cap = T->cap ? T->cap * 2 : 64;
  tt_pjrt_buffer_t **bufs = tt_malloc(sizeof(*bufs) * cap);
  uint64_t *marks = tt_malloc(sizeof(*marks) * cap);
  if (!bufs || !marks) {
    tt_free(bufs);
    tt_free(marks);
    return 0;
  }
  for (size_t i = 0; i < T->count; i++) { /* unrolled from the old ring, oldest first */
    bufs[i] = T->bufs[(T->head + i) % T->cap];
    marks[i] = T->marks[(T->head + i) % T->cap];
  }
  tt_free(T->bufs);
  tt_free(T->marks);
  T->bufs = bufs;
  T->marks = marks;
  T->head = 0;
  T->cap = cap;
  return 1;
}

void tt_retire_buffer(tt_engine_t *e, tt_pjrt_buffer_t *buf) {
  if (!buf) return;
  tt_retired_t *T = &e->retired;
  uint64_t mark = e->inflight.pushed;
  if (launches_done(e) >= mark || (T->count == T->cap && !grow(T))) {
    tt_pjrt_buffer_destroy(e->rt, buf);
    return;
  }
  size_t at = (T->head + T->count) % T->cap;
  T->bufs[at] = buf;
  T->marks[at] = mark;
  T->count++;
}

void tt_retired_collect(tt_engine_t *e) {
  tt_retired_t *T = &e->retired;
  uint64_t done = launches_done(e);
  while (T->count && T->marks[T->head] <= done) {
    tt_pjrt_buffer_destroy(e->rt, T->bufs[T->head]);
    T->head = (T->head + 1) % T->cap;
    T->count--;
  }
}

void tt_retired_clear(tt_engine_t *e) {
  tt_retired_t *T = &e->retired;
  while (T->count) {
    tt_pjrt_buffer_destroy(e->rt, T->bufs[T->head]);
    T->head = (T->head + 1) % T->cap;
    T->count--;
  }
  tt_free(T->bufs);
  tt_free(T->marks);
  *T = (tt_retired_t){0};
}
