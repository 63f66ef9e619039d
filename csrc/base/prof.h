/* Phase timers of the op path, compiled in on demand to see where the host
 * microseconds of one op go: -DTT_PROFILE=1 wall time, -DTT_PROFILE=2 CPU
 * time of the calling thread. Without it they cost nothing. */
#ifndef TT_BASE_PROF_H
#define TT_BASE_PROF_H

#include <stdint.h>

typedef enum tt_prof_id_e {
  TT_PROF_PY_CALL,    /* bindings: the whole _C.call */
  TT_PROF_ARGS,       /* bindings: Python arguments -> core arguments */
  TT_PROF_RESULTS,    /* bindings: result storages -> torch tensors */
  TT_PROF_CALL,       /* core: tt_call */
  TT_PROF_LOWER,      /* core: lowering into the region graph (writes included) */
  TT_PROF_END_OP,     /* core: closing the op (repeat check, flush in Strict) */
  TT_PROF_FLUSH,      /* exec: closing a region and running it */
  TT_PROF_FINGERPRINT,/* exec: graph fingerprint */
  TT_PROF_FIND,       /* exec: compile-cache lookup (compiles included) */
  TT_PROF_BIND,       /* exec: parameter buffers */
  TT_PROF_EXECUTE,    /* exec: PJRT execute */
  TT_PROF_EVENT,      /* exec: completion event of the launch */
  TT_PROF_COUNT
} tt_prof_id_t;

#ifdef TT_PROFILE
#include <time.h>
extern uint64_t tt_prof_ns[TT_PROF_COUNT], tt_prof_n[TT_PROF_COUNT];
static inline uint64_t tt_prof_now(void) {
  struct timespec ts;
  clock_gettime(TT_PROFILE == 2 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define TT_PROF_BEGIN(id) uint64_t tt_prof_t0_##id = tt_prof_now()
#define TT_PROF_END(id) (tt_prof_ns[id] += tt_prof_now() - tt_prof_t0_##id, tt_prof_n[id]++)
#else
#define TT_PROF_BEGIN(id) ((void)0)
#define TT_PROF_END(id) ((void)0)
#endif

/* Names by id; counters are zero when not compiled in. */
const char *tt_prof_name(int id);
void tt_prof_get(int id, uint64_t *out_ns, uint64_t *out_count);
void tt_prof_reset(void);

#endif
