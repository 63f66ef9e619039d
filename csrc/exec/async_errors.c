/* Pending device-side index checks: one flag buffer per launch, read at the
 * next synchronization point (see async_errors.h). */
#include "exec/async_errors.h"

#include <string.h>

#include "api/context.h"
#include "base/alloc.h"

/* Launches kept before the oldest is read at a push. The in-flight queue
 * (exec/inflight.h) keeps the host at most 256 launches ahead of the device,
 * so a launch this old is long done and reading it does not wait. */
#define MAX_PENDING 1024

typedef struct record_s {
  tt_pjrt_buffer_t *flags; /* i64[2 * n] */
  int n;
  tt_index_check_t *checks;
} record_t;

static record_t ring[MAX_PENDING];
static unsigned head, count; /* oldest at head */
/* An error found while reading an old launch at a push: kept for the next
 * synchronization point, where errors are raised. */
static tt_status_t found;

static const char kAsyncNote[] =
    "raised asynchronously at this synchronization point by an earlier op, like CUDA's "
    "device-side assert: that op's outputs hold clamped values; set TORCH_TPU_LAUNCH_BLOCKING=1 "
    "to raise at the op";

tt_status_t tt_index_check_status(const tt_index_check_t *k, int64_t count_bad, int64_t index, int async) {
  if (count_bad == 0) return TT_OK_STATUS;
  long long n = (long long)count_bad, i = (long long)index, size = (long long)k->size;
  const char *op = k->op ? k->op : "?", *note = async ? kAsyncNote : "debug mode";
  switch (k->kind) {
    case TT_CHECK_INDEX:
      return tt_status_make(TT_INDEX_ERROR, "index %lld is out of bounds for dimension %d with size %lld (aten::%s, %lld index(es) out of range; %s)",
                            i, k->dim, size, op, n, note);
    case TT_CHECK_DIM:
      return tt_status_make(TT_INVALID_ARGUMENT, "index %lld is out of bounds for dimension %d with size %lld (aten::%s, %lld index(es) out of range; %s)",
                            i, k->dim, size, op, n, note);
    case TT_CHECK_SELF:
      return tt_status_make(TT_INDEX_ERROR, "index out of range in self (aten::%s: index %lld, dimension %d with size %lld; %s)",
                            op, i, k->dim, size, note);
    case TT_CHECK_TARGET:
      return tt_status_make(TT_INDEX_ERROR, "Target %lld is out of bounds. (aten::%s: %lld classes; %s)", i, op, size, note);
    case TT_CHECK_ZERO_DIV:
      return tt_status_make(TT_INVALID_ARGUMENT, "ZeroDivisionError (aten::%s: integer division by zero, %lld zero divisor(s); %s)",
                            op, n, note);
    case TT_CHECK_VALUE_FITS:
      return tt_status_make(TT_INVALID_ARGUMENT, "value cannot be converted to type %s without overflow (aten::%s: the value tensor; %s)",
                            k->type_name ? k->type_name : "?", op, note);
    case TT_CHECK_LDL_PIVOT:
      return tt_status_make(TT_INVALID_ARGUMENT, "Pivots given to ldl_solve must all satisfy |pivot| %s. Did you properly pass the "
                            "result of ldl_factor? (aten::%s: pivot %lld, LD.size(-2) = %lld; %s)",
                            i == 0 ? ">= 1" : "<= LD.size(-2)", op, i, size, note);
  }
  return tt_status_make(TT_INTERNAL, "unknown index check kind %d (aten::%s)", (int)k->kind, op);
}

static void drop(record_t *r) {
  tt_pjrt_buffer_destroy(tt_ctx()->rt, r->flags);
  tt_free(r->checks);
  memset(r, 0, sizeof *r);
}

/* Downloads one launch's flags (it is done, or waited for) and forgets it. */
static tt_status_t read_record(record_t *r) {
  int64_t small[16];
  size_t nbytes = sizeof(int64_t) * 2 * (size_t)r->n;
  int64_t *v = r->n <= 8 ? small : tt_malloc(nbytes);
  tt_status_t s = v ? tt_pjrt_buffer_to_host(tt_ctx()->rt, r->flags, v, nbytes)
                    : tt_status_make(TT_OUT_OF_MEMORY, "out of host memory reading index checks");
  for (int i = 0; !s && i < r->n; i++) s = tt_index_check_status(&r->checks[i], v[2 * i], v[2 * i + 1], 1);
  if (v && v != small) tt_free(v);
  drop(r);
  return s;
}

/* Keeps the earliest error; later ones are dropped (one error per sync). */
static void keep(tt_status_t s) {
  if (!found) found = s;
  else tt_status_free(s);
}

tt_status_t tt_async_errors_push(tt_pjrt_buffer_t *flags, const tt_index_check_t *checks, int n) {
  tt_index_check_t *copy = tt_malloc(sizeof(*copy) * (size_t)n);
  if (!copy) {
    tt_pjrt_buffer_destroy(tt_ctx()->rt, flags);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory keeping index checks");
  }
  memcpy(copy, checks, sizeof(*copy) * (size_t)n);
  if (count == MAX_PENDING) { /* long done: see MAX_PENDING */
    keep(read_record(&ring[head]));
    head = (head + 1) % MAX_PENDING;
    count--;
  }
  ring[(head + count) % MAX_PENDING] = (record_t){flags, n, copy};
  count++;
  return TT_OK_STATUS;
}

tt_status_t tt_async_errors_check(int all_done) {
  if (!count && !found) return TT_OK_STATUS; /* the common path */
  tt_pjrt_runtime_t *rt = tt_ctx()->rt;
  /* Compact the ring in place: records not done yet stay, in order. */
  unsigned kept = 0, n = count;
  for (unsigned i = 0; i < n; i++) {
    record_t *r = &ring[(head + i) % MAX_PENDING];
    int ready = 1;
    if (!all_done) {
      tt_status_t s = tt_pjrt_buffer_is_ready(rt, r->flags, &ready);
      if (s) { /* the launch itself failed: that error surfaces elsewhere */
        tt_status_free(s);
        drop(r);
        continue;
      }
    }
    if (ready) {
      keep(read_record(r));
    } else {
      record_t keepr = *r;
      ring[(head + kept) % MAX_PENDING] = keepr;
      kept++;
    }
  }
  count = kept;
  tt_status_t s = found;
  found = NULL;
  return s;
}

int tt_async_errors_pending(void) { return (int)count; }

void tt_async_errors_shutdown(void) {
  while (count) {
    drop(&ring[head]);
    head = (head + 1) % MAX_PENDING;
    count--;
  }
  head = 0;
  tt_status_free(found);
  found = NULL;
}
