/* Pending device-side index checks: one flag buffer per launch, read at the
 * next synchronization point (see async_errors.h). */
#include "exec/async_errors.h"

#include <string.h>

#include "exec/engine.h"
#include "base/alloc.h"

#define MAX_PENDING TT_ASYNC_MAX_PENDING
typedef tt_async_record_t record_t;

static void drop(tt_engine_t *e, record_t *r) {
  tt_pjrt_buffer_destroy(e->rt, r->flags);
  tt_free(r->checks);
  memset(r, 0, sizeof *r);
}

/* Downloads one launch's flags (it is done, or waited for) and forgets it. */
static tt_status_t read_record(tt_engine_t *e, record_t *r) {
  int64_t small[TT_CHECK_FLAG_LEN * 8];
  size_t nbytes = sizeof(int64_t) * TT_CHECK_FLAG_LEN * (size_t)r->n;
  int64_t *v = nbytes <= sizeof small ? small : tt_malloc(nbytes);
  tt_status_t s = v ? tt_pjrt_buffer_to_host(e->rt, r->flags, v, nbytes)
                    : tt_status_make(TT_OUT_OF_MEMORY, "out of host memory reading index checks");
  for (int i = 0; !s && i < r->n; i++) s = tt_index_check_status(&r->checks[i], &v[TT_CHECK_FLAG_LEN * i], 1);
  if (v && v != small) tt_free(v);
  drop(e, r);
  return s;
}

/* Keeps the earliest error; later ones are dropped (one error per sync). */
static void keep(tt_async_errors_t *A, tt_status_t s) {
  if (!A->found) A->found = s;
  else tt_status_free(s);
}

tt_status_t tt_async_errors_push(tt_engine_t *e, tt_pjrt_buffer_t *flags, const tt_index_check_t *checks, int n) {
  tt_async_errors_t *A = &e->async_errors;
  tt_index_check_t *copy = tt_malloc(sizeof(*copy) * (size_t)n);
  if (!copy) {
    tt_pjrt_buffer_destroy(e->rt, flags);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory keeping index checks");
  }
  memcpy(copy, checks, sizeof(*copy) * (size_t)n);
  if (A->count == MAX_PENDING) { /* long done: see MAX_PENDING */
    keep(A, read_record(e, &A->ring[A->head]));
    A->head = (A->head + 1) % MAX_PENDING;
    A->count--;
  }
  A->ring[(A->head + A->count) % MAX_PENDING] = (record_t){flags, n, copy};
  A->count++;
  return TT_OK_STATUS;
}

tt_status_t tt_async_errors_check(tt_engine_t *e, int all_done) {
  tt_async_errors_t *A = &e->async_errors;
  if (!A->count && !A->found) return TT_OK_STATUS; /* the common path */
  tt_pjrt_runtime_t *rt = e->rt;
  /* Compact the ring in place: records not done yet stay, in order. */
  unsigned kept = 0, n = A->count;
  for (unsigned i = 0; i < n; i++) {
    record_t *r = &A->ring[(A->head + i) % MAX_PENDING];
    int ready = 1;
    if (!all_done) {
      tt_status_t s = tt_pjrt_buffer_is_ready(rt, r->flags, &ready);
      if (s) { /* the launch itself failed: that error surfaces elsewhere */
        tt_status_free(s);
        drop(e, r);
        continue;
      }
    }
    if (ready) {
      keep(A, read_record(e, r));
    } else {
      record_t keepr = *r;
      A->ring[(A->head + kept) % MAX_PENDING] = keepr;
      kept++;
    }
  }
  A->count = kept;
  tt_status_t s = A->found;
  A->found = NULL;
  return s;
}

int tt_async_errors_pending(tt_engine_t *e) { return (int)e->async_errors.count; }

void tt_async_errors_shutdown(tt_engine_t *e) {
  tt_async_errors_t *A = &e->async_errors;
  while (A->count) {
    drop(e, &A->ring[A->head]);
    A->head = (A->head + 1) % MAX_PENDING;
    A->count--;
  }
  A->head = 0;
  tt_status_free(A->found);
  A->found = NULL;
}
