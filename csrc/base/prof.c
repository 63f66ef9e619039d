/* Storage and names of the on-demand phase timers (base/prof.h). */
#include "base/prof.h"

#include <stddef.h>

#ifdef TT_PROFILE
uint64_t tt_prof_ns[TT_PROF_COUNT], tt_prof_n[TT_PROF_COUNT];
#endif

static const char *const names[TT_PROF_COUNT] = {
    "py_call", "args", "results", "call", "lower", "end_op",
    "flush", "fingerprint", "find", "bind", "execute", "event",
};

const char *tt_prof_name(int id) { return id >= 0 && id < TT_PROF_COUNT ? names[id] : NULL; }

void tt_prof_get(int id, uint64_t *out_ns, uint64_t *out_count) {
  *out_ns = *out_count = 0;
#ifdef TT_PROFILE
  if (id >= 0 && id < TT_PROF_COUNT) {
    *out_ns = tt_prof_ns[id];
    *out_count = tt_prof_n[id];
  }
#else
  (void)id;
#endif
}

void tt_prof_reset(void) {
#ifdef TT_PROFILE
  for (int i = 0; i < TT_PROF_COUNT; i++) tt_prof_ns[i] = tt_prof_n[i] = 0;
#endif
}
