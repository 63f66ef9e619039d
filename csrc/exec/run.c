/* Strict eager launch: fingerprint, tier-1 lookup, compile on miss, execute. */
#include "exec/run.h"

#include <stdlib.h>
#include <time.h>

#include "api/context.h"
#include "base/alloc.h"
#include "base/strbuf.h"
#include "exec/inflight.h"
#include "exec/scalars.h"
#include "hlo/emit.h"
#include "ir/fingerprint.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static tt_status_t compile_graph(tt_ctx_t *c, tt_graph_t *g, const tt_cache_key_t *key,
                                 const char *what, tt_pjrt_executable_t **out_exe) {
  tt_strbuf_t sb;
  tt_strbuf_init(&sb);
  tt_status_t s = tt_hlo_emit_module(g, &sb);
  if (!s) {
    double t0 = now_seconds();
    s = tt_pjrt_compile(c->rt, sb.data, sb.len, 1, what, out_exe);
    c->stats.compile_seconds += now_seconds() - t0;
  }
  if (s && getenv("TORCH_TPU_DUMP_HLO_ON_ERROR") && sb.data)
    s = tt_status_annotate(s, "module text:\n%s\n", sb.data);
  tt_strbuf_free(&sb);
  if (s) return s;
  *out_exe = tt_tier1_insert(c->tier1, c->rt, key, *out_exe);
  c->stats.misses++;
  c->stats.executables = tt_tier1_size(c->tier1);
  return TT_OK_STATUS;
}

static tt_status_t bind_param(const tt_binding_t *b, tt_pjrt_buffer_t **out_buf, int *out_owned) {
  *out_owned = 0;
  switch (b->kind) {
    case TT_BIND_STORAGE: return tt_storage_buffer(b->storage, out_buf);
    case TT_BIND_SCALAR: return tt_scalars_get(b->dtype, b->bits, out_buf);
    case TT_BIND_HOST: {
      int64_t dim = 2;
      *out_owned = 1;
      return tt_pjrt_buffer_from_host(tt_ctx()->rt, b->host, TT_U64, &dim, 1, 0, out_buf);
    }
  }
  return tt_status_make(TT_INTERNAL, "unknown parameter binding");
}

tt_status_t tt_exec_run(tt_graph_t *g, const tt_binding_t *binds, const char *what,
                        tt_pjrt_buffer_t **outs) {
  tt_ctx_t *c = tt_ctx();
  tt_graph_key_t gk = tt_graph_fingerprint(g);
  tt_cache_key_t key = {gk.shapeless, gk.dims, c->options_key};
  c->stats.requests++;
  tt_pjrt_executable_t *exe = tt_tier1_lookup(c->tier1, &key);
  if (exe) {
    c->stats.hits++;
  } else {
    TT_RETURN_IF_ERROR(compile_graph(c, g, &key, what, &exe));
  }
  int np = tt_graph_num_params(g);
  tt_scalars_release_evicted();
  tt_pjrt_buffer_t *args_small[16];
  int owned_small[16];
  tt_pjrt_buffer_t **args = np <= 16 ? args_small : tt_malloc(sizeof(*args) * (size_t)np);
  int *owned = np <= 16 ? owned_small : tt_malloc(sizeof(int) * (size_t)np);
  tt_status_t s = (!args || !owned) ? tt_status_make(TT_OUT_OF_MEMORY, "out of host memory binding arguments") : NULL;
  int bound = 0;
  for (; !s && bound < np; bound++) s = bind_param(&binds[bound], &args[bound], &owned[bound]);
  if (s) bound--;
  if (!s) s = tt_pjrt_execute(c->rt, exe, args, (size_t)np, what, outs);
  if (!s && tt_graph_num_outputs(g) > 0) {
    s = tt_inflight_push(outs[0]);
    if (s)
      for (int i = 0; i < tt_graph_num_outputs(g); i++) tt_pjrt_buffer_destroy(c->rt, outs[i]);
  }
  for (int i = 0; i < bound; i++)
    if (owned[i]) tt_pjrt_buffer_destroy(c->rt, args[i]);
  if (args != args_small) tt_free(args);
  if (owned != owned_small) tt_free(owned);
  return s;
}
