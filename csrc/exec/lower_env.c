/* The lowering interface implemented by an engine. */
#include "exec/lower_env.h"

#include "exec/engine.h"

static tt_val_t env_param(void *self, const tt_type_t *type, tt_binding_t b) {
  return tt_region_param(self, type, b);
}

static tt_val_t env_storage_base(void *self, tt_storage_t *s) { return tt_region_base(self, s); }

static void env_storage_meta(void *self, const tt_storage_t *s, tt_dtype_t *out_dtype, int64_t *out_numel) {
  (void)self;
  *out_dtype = s->dtype;
  *out_numel = s->numel;
}

static void env_rng_draw(void *self, uint64_t *out_seed, uint64_t *out_offset) {
  tt_engine_t *e = self;
  *out_seed = e->rng_seed;
  *out_offset = e->rng_offset++;
}

int tt_engine_matmul_precision(const tt_engine_t *e) {
  int p = e->matmul_precision_source ? e->matmul_precision_source(e->matmul_precision_ctx) : e->matmul_precision;
  return (p == TT_PREC_HIGH || p == TT_PREC_MEDIUM) ? p : TT_PREC_HIGHEST;
}

static int env_matmul_precision(void *self) { return tt_engine_matmul_precision(self); }

/* In a capture that bakes its constants (exec/plan.h), the offsets of views
 * into storages the graph made are the same at every replay: constants.
 * Offsets into the graph's arguments stay runtime values (plans of one
 * graph called on x[i] for each i share a program). */
static int env_fixed(void *self, const tt_storage_t *s) {
  const tt_region_capture_t *c = &((tt_engine_t *)self)->region.capture;
  return s && c->active && c->bake && s->serial >= c->first_serial;
}

tt_lower_env_t tt_engine_lower_env(tt_engine_t *e) {
  tt_lower_env_t env = {e, env_param, env_storage_base, env_storage_meta, env_rng_draw, env_matmul_precision,
                         env_fixed};
  return env;
}
