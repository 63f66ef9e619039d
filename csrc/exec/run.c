/* Eager launch: fingerprint, find or compile (exec/find), bind, execute;
 * in debug mode, wait for the launch before returning. */
#include "exec/run.h"

#include "exec/engine.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/prof.h"
#include "exec/find.h"
#include "exec/inflight.h"
#include "exec/scalars.h"
#include "ir/fingerprint.h"

static tt_status_t bind_param(tt_engine_t *e, const tt_binding_t *b, tt_pjrt_buffer_t **out_buf, int *out_owned) {
  *out_owned = 0;
  switch (b->kind) {
    case TT_BIND_STORAGE: return tt_storage_buffer(b->storage, out_buf);
    case TT_BIND_SCALAR: return tt_scalars_get(e, b->dtype, b->bits, out_buf);
    case TT_BIND_HOST: {
      int64_t dim = 2;
      *out_owned = 1;
      return tt_pjrt_buffer_from_host(e->rt, b->host, TT_U64, &dim, 1, 0, out_buf);
    }
    case TT_BIND_RNG: {
      int64_t dim = 2;
      uint64_t key[2];
      tt_binding_rng_state(b->host[0], b->host[1], key);
      *out_owned = 1;
      return tt_pjrt_buffer_from_host(e->rt, key, TT_U64, &dim, 1, 0, out_buf);
    }
  }
  return tt_status_make(TT_INTERNAL, "unknown parameter binding");
}

tt_cache_key_t tt_exec_key(tt_engine_t *e, tt_graph_t *g) {
  TT_PROF_BEGIN(TT_PROF_FINGERPRINT);
  tt_graph_key_t gk = tt_graph_fingerprint(g);
  TT_PROF_END(TT_PROF_FINGERPRINT);
  e->stats.requests++;
  tt_cache_key_t key = {gk.shapeless, gk.dims, tt_engine_options_key(e)};
  return key;
}

tt_status_t tt_exec_launch(tt_engine_t *e, tt_tier1_exe_t *exe, const tt_binding_t *binds, int np, int nout, const char *what,
                           tt_pjrt_buffer_t **outs) {
  tt_scalars_release_evicted(e);
  tt_pjrt_buffer_t *args_small[16];
  int owned_small[16];
  tt_pjrt_buffer_t **args = np <= 16 ? args_small : tt_malloc(sizeof(*args) * (size_t)np);
  int *owned = np <= 16 ? owned_small : tt_malloc(sizeof(int) * (size_t)np);
  tt_status_t s = (!args || !owned) ? tt_status_make(TT_OUT_OF_MEMORY, "out of host memory binding arguments") : NULL;
  int bound = 0;
  TT_PROF_BEGIN(TT_PROF_BIND);
  for (; !s && bound < np; bound++) s = bind_param(e, &binds[bound], &args[bound], &owned[bound]);
  TT_PROF_END(TT_PROF_BIND);
  if (s) bound--;
  uint64_t t0 = e->timing.on ? tt_monotonic_ns() : 0;
  TT_PROF_BEGIN(TT_PROF_EXECUTE);
  if (!s) s = tt_pjrt_execute(e->rt, tt_tier1_executable(exe), args, (size_t)np, what, outs);
  TT_PROF_END(TT_PROF_EXECUTE);
  if (!s && nout > 0) {
    TT_PROF_BEGIN(TT_PROF_EVENT);
    s = tt_inflight_push(e, outs[0], exe);
    TT_PROF_END(TT_PROF_EVENT);
    /* Debug: the op's own error surfaces at the op, as with CUDA_LAUNCH_BLOCKING=1.
     * Launch timing waits the same way, to see when the program is done. */
    if (!s && (e->mode == TT_MODE_DEBUG || e->timing.on))
      s = tt_status_annotate(tt_pjrt_buffer_await(e->rt, outs[0]), "%s", what);
    if (s)
      for (int i = 0; i < nout; i++) tt_pjrt_buffer_destroy(e->rt, outs[i]);
  }
  if (!s && e->timing.on) {
    e->timing.ns += tt_monotonic_ns() - t0;
    e->timing.launches++;
  }
  for (int i = 0; i < bound; i++)
    if (owned[i]) tt_pjrt_buffer_destroy(e->rt, args[i]);
  if (args != args_small) tt_free(args);
  if (owned != owned_small) tt_free(owned);
  return s;
}

tt_status_t tt_exec_run(tt_engine_t *e, tt_graph_t *g, const tt_binding_t *binds, const char *what,
                        tt_pjrt_buffer_t **outs) {
  tt_cache_key_t key = tt_exec_key(e, g);
  tt_tier1_exe_t *exe;
  TT_PROF_BEGIN(TT_PROF_FIND);
  TT_RETURN_IF_ERROR(tt_exec_find_executable(e, g, &key, what, &exe));
  TT_PROF_END(TT_PROF_FIND);
  tt_status_t s = tt_exec_launch(e, exe, binds, tt_graph_num_params(g), tt_graph_num_outputs(g), what, outs);
  tt_tier1_release(e->tier1, exe);
  return s;
}
