/* Op calls: lowering, writes through views, launch, and result collection. */
#include "api/call.h"

#include "api/out_write.h"

#include "api/index_masks.h"
#include "api/iterator_first.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/prof.h"
#include "exec/engine.h"
#include "exec/lower_env.h"
#include "ops/bucket.h"
#include "ops/common.h"
#include "ops/complex_refusal.h"
#include "ops/complex_rules.h"
#include "ops/out_rules.h"
#include "ops/lower.h"
#include "ops/registry.h"
#include "ops/result_layout.h"
#include "views/view.h"


/* One engine's per-call scratch: the lowering context and the arrays that
 * bound what one op may touch (one call at a time per engine). */
struct tt_call_scratch_s {
  tt_lower_t L;
  tt_storage_t *written[TT_LOWER_MAX_WRITES];
  tt_val_t new_base[TT_LOWER_MAX_WRITES];
  tt_val_t flat[TT_LOWER_MAX_OUTS];
  tt_bucket_plan_t bucket;
};

static struct tt_call_scratch_s *scratch(tt_engine_t *e) {
  if (!e->call_scratch) e->call_scratch = tt_malloc(sizeof(struct tt_call_scratch_s)); /* freed with e */
  return e->call_scratch;
}

int tt_call_op_count(void) { return tt_ops_count(); }
int tt_call_op_named_count(void) { return tt_ops_named_count(); }
const char *tt_call_op_name(int op_id) {
  const tt_op_def_t *d = tt_ops_get(op_id);
  return d ? d->name : NULL;
}
int tt_call_op_size_companion(int op_id) { return tt_ops_size_companion(op_id); }

tt_status_t tt_call_check_out(const char *name, int k, tt_dtype_t result, tt_dtype_t out) {
  return tt_op_check_out(name, k, result, out);
}

int tt_call_out_dtype_from_out(const char *name) { return tt_op_out_dtype_from_out(name); }
tt_status_t tt_call_check_out_dtype_arg(const char *name, tt_dtype_t dtype, tt_dtype_t out, tt_dtype_t in, int phase) {
  tt_status_t first = phase == 0 ? tt_call_check_out_input(name, in, out) : NULL; /* nansum's, mean_dtype_out's */
  return first ? first : tt_op_check_out_dtype_arg(name, dtype, out, in, phase);
}

static const tt_tensor_ref_t *write_target(tt_lower_t *L, int i, int j) {
  const tt_arg_t *a = &L->args[i];
  if (a->kind == TT_ARG_TENSOR && j == 0) return a->t;
  if (a->kind == TT_ARG_TENSORS && j < a->n) return &a->t[j];
  return NULL;
}

/* The in-place form of an op: its single result goes into argument 0. */
static void inplace_to_write(tt_lower_t *L) {
  if (L->nouts != 1) {
    tt_l_fail(L, TT_INTERNAL, "%s: in-place form expects one result, got %d", L->op, L->nouts);
    return;
  }
  const tt_tensor_ref_t *self = write_target(L, 0, 0);
  if (!self) {
    tt_l_fail(L, TT_TYPE_ERROR, "%s: self must be a Tensor", L->op);
    return;
  }
  tt_dtype_t rdt = tt_graph_type(L->g, L->outs[0])->dtype;
  if (!tt_op_can_cast(rdt, self->dtype)) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "result type %s can't be cast to the desired output type %s",
              tt_op_type_name(rdt), tt_op_type_name(self->dtype));
    return;
  }
  tt_l_write(L, 0, 0, L->outs[0]);
  L->nouts = 0;
  L->returns_arg = 0;
}

/* PyTorch refuses an in-place op whose input partially overlaps the
 * written-to tensor (its result would depend on the loop order): the
 * written ref (argument i, element j) against every other tensor argument. */
static int partial_overlap(tt_lower_t *L, const tt_tensor_ref_t *t, int i, int j) {
  size_t ts = tt_dtype_size(t->dtype);
  for (int k = 0; k < L->nargs; k++) {
    const tt_arg_t *a = &L->args[k];
    if (k == i || (a->kind != TT_ARG_TENSOR && a->kind != TT_ARG_TENSORS)) continue;
    int n = a->kind == TT_ARG_TENSOR ? 1 : a->n;
    /* Lists of one length pair up element-wise (foreach ops): only element j
     * meets the written one, so a foreach write checks one ref, not n. */
    int paired = a->kind == TT_ARG_TENSORS && L->args[i].kind == TT_ARG_TENSORS && L->args[i].n == n;
    for (int e = paired ? j : 0; e < (paired ? j + 1 : n); e++) {
      const tt_tensor_ref_t *r = &a->t[e];
      if (r->storage != t->storage || !r->storage) continue;
      if (tt_view_overlap(&t->view, ts, &r->view, tt_dtype_size(r->dtype)) == TT_OVERLAP_PARTIAL) return 1;
    }
  }
  return 0;
}

/* Appends the writes to the graph; written storages become extra outputs. */
static int apply_writes(tt_lower_t *L, int flags, tt_storage_t **written, tt_val_t *new_base) {
  int nw = 0;
  for (int w = 0; w < L->nwrites; w++) {
    const tt_tensor_ref_t *t = write_target(L, L->write_arg[w], L->write_elem[w]);
    if (!t || !t->storage) {
      tt_l_fail(L, TT_INTERNAL, "%s: write into a non-tensor argument", L->op);
      return 0;
    }
    int uniform = (flags & TT_OPF_UNIFORM_WRITE) != 0 || L->alias_write;
    if (!uniform && tt_view_has_internal_overlap(&t->view)) {
      tt_l_fail(L, TT_INVALID_ARGUMENT,
                "unsupported operation: more than one element of the written-to tensor refers to a "
                "single memory location. Please clone() the tensor before performing the operation.");
      return 0;
    }
    if (!(flags & TT_OPF_UNIFORM_WRITE) && partial_overlap(L, t, L->write_arg[w], L->write_elem[w])) {
      tt_l_fail(L, TT_INVALID_ARGUMENT,
                "unsupported operation: some elements of the input tensor and the written-to tensor refer "
                "to a single memory location. Please clone() the tensor before performing the operation.");
      return 0;
    }
    tt_val_t v = tt_b_convert(L->g, L->write_val[w], t->dtype);
    if (v < 0) return 0;
    v = tt_l_apply_math_bits(L->g, t, v); /* conj and neg are their own inverses */
    if (tt_graph_type(L->g, v)->rank != t->view.rank ||
        memcmp(tt_graph_type(L->g, v)->dims, t->view.sizes, sizeof(int64_t) * (size_t)t->view.rank))
      v = tt_b_broadcast_to(L->g, v, t->view.rank, t->view.sizes);
    tt_view_t view = t->view;
    if (uniform) v = tt_view_drop_broadcast(L->g, v, &t->view, &view);
    tt_dtype_t sdt = t->storage->dtype;
    int64_t n = t->storage->numel;
    int k = 0;
    while (k < nw && written[k] != t->storage) k++;
    if (k == nw) {
      written[nw] = t->storage;
      new_base[nw] = t->dtype == sdt && tt_view_is_whole(&view, n) ? -1 : tt_l_storage_base(L, t->storage);
      nw++;
    }
    tt_val_t base = new_base[k];
    if (base < 0) { /* whole overwrite: no need to read the old contents */
      new_base[k] = tt_b_reshape(L->g, v, 1, &n);
    } else if (t->dtype != sdt) { /* a dtype view: write its bytes, then back to the storage's type */
      int64_t tn = tt_view_bitcast_numel(sdt, n, t->dtype);
      tt_val_t as_t = tt_view_bitcast_flat(L->g, base, t->dtype, tn);
      tt_val_t off = tt_l_view_offset(L, t->storage, &view, tn);
      new_base[k] = tt_view_bitcast_flat(L->g, tt_view_write_at(L->g, as_t, &view, v, off), sdt, n);
    } else {
      new_base[k] = tt_view_write_at(L->g, base, &view, v, tt_l_view_offset(L, t->storage, &view, n));
    }
  }
  return nw;
}

static tt_val_t flatten(tt_graph_t *g, tt_val_t v) {
  if (v < 0 || tt_graph_failed(g)) return -1;
  int64_t n = tt_type_numel(tt_graph_type(g, v));
  return tt_b_reshape(g, v, 1, &n);
}

/* Debug mode: downloads the check flags of the op's launch and decides
 * whether its results may land (an out-of-range index fails the op). */
typedef struct debug_checks_ctx_s {
  tt_engine_t *e;
  const tt_lower_t *L;
} debug_checks_ctx_t;

static tt_status_t debug_checks(void *ctx, tt_pjrt_buffer_t **flags) {
  const debug_checks_ctx_t *c = ctx;
  const tt_lower_t *L = c->L;
  int64_t v[TT_CHECK_FLAG_LEN * TT_LOWER_MAX_CHECKS];
  tt_status_t s = TT_OK_STATUS;
  for (int i = 0; i < L->nchecks; i++) {
    if (!s) s = tt_pjrt_buffer_to_host(c->e->rt, flags[i], &v[TT_CHECK_FLAG_LEN * i], TT_CHECK_FLAG_LEN * sizeof(int64_t));
    tt_pjrt_buffer_destroy(c->e->rt, flags[i]);
  }
  return s ? s : tt_l_check_result(L, v);
}

/* What the repeated-ops heuristic compares: the op and the types, shapes and
 * integer arguments of its inputs (runtime scalars do not change the graph). */
static uint64_t op_fingerprint(int op_id, const tt_arg_t *args, int nargs) {
  uint64_t h = tt_hash_u64(TT_HASH_SEED, (uint64_t)op_id);
  for (int i = 0; i < nargs; i++) {
    const tt_arg_t *a = &args[i];
    h = tt_hash_u64(h, (uint64_t)a->kind);
    if (a->kind == TT_ARG_TENSOR) {
      h = tt_hash_u64(h, (uint64_t)a->t->dtype);
      h = tt_hash_bytes(h, a->t->view.sizes, sizeof(int64_t) * (size_t)a->t->view.rank);
    } else if (a->kind == TT_ARG_INT || a->kind == TT_ARG_BOOL || a->kind == TT_ARG_DTYPE) {
      h = tt_hash_u64(h, (uint64_t)a->i);
    } else if (a->kind == TT_ARG_INTS) {
      h = tt_hash_bytes(h, a->ints, sizeof(int64_t) * (size_t)a->n);
    } else if (a->kind == TT_ARG_TENSORS) {
      h = tt_hash_u64(h, (uint64_t)a->n);
    }
  }
  return h;
}

/* A result in CPU's layout for this call (ops/result_layout.h): stored as
 * transpose(v, order), so that its row-major elements are the tensor's
 * elements at `strides`. */
static tt_val_t lay_out(tt_graph_t *g, tt_layout_kind_t layout, const tt_lower_t *L, tt_val_t v, tt_call_out_t *o) {
  const tt_type_t *t = tt_graph_type(g, v);
  int64_t order[TT_MAX_RANK];
  o->strided = 0;
  if (!tt_layout_result(layout, L->args, L->nargs, t->rank, t->dims, order, o->strides)) return v;
  o->strided = 1;
  for (int d = 0; d < t->rank; d++)
    if (order[d] != d) return tt_b_transpose(g, v, order);
  return v; /* only size-1 dims' strides differ */
}

/* Lowers the op into the open region: results become pending storages,
 * writes become the new values of the written storages. */
static tt_status_t lower_into_region(tt_engine_t *e, struct tt_call_scratch_s *sc, const tt_op_def_t *def,
                                     tt_layout_kind_t layout, tt_call_result_t *out) {
  tt_lower_t *L = &sc->L;
  tt_graph_t *g = L->g;
  tt_status_t s = def->fn(L);
  if (!s && !tt_graph_failed(g) && (def->flags & TT_OPF_INPLACE)) inplace_to_write(L);
  tt_storage_t **written = sc->written;
  tt_val_t *new_base = sc->new_base, *flat = sc->flat;
  int nw = 0;
  if (!s && !tt_graph_failed(g)) nw = apply_writes(L, def->flags, written, new_base);
  if (layout && !s && L->nouts > TT_CALL_INLINE_OUTS) layout = TT_LAYOUT_DEFAULT;
  for (int i = 0; !s && i < L->nouts; i++) {
    tt_val_t v = L->outs[i];
    if (layout && !tt_graph_failed(g)) v = lay_out(g, layout, L, v, &out->inline_outs[i]); /* i < INLINE_OUTS */
    flat[i] = flatten(g, v);
  }
  if (!s) s = tt_graph_take_error(g);
  if (s) return s;
  if (L->nouts > TT_CALL_INLINE_OUTS) {
    out->outs = tt_malloc(sizeof(tt_call_out_t) * (size_t)L->nouts);
    if (!out->outs) {
      out->outs = out->inline_outs;
      return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory for %d results", L->nouts);
    }
  }
  for (int i = 0; i < L->nouts; i++) {
    const tt_type_t *t = tt_graph_type(g, L->outs[i]);
    tt_call_out_t *o = &out->outs[i];
    o->dtype = t->dtype;
    o->rank = t->rank;
    o->pad_dim = -1;
    o->pad_len = 0;
    if (!layout) o->strided = 0;
    memcpy(o->sizes, t->dims, sizeof(int64_t) * (size_t)t->rank);
    TT_RETURN_IF_ERROR(tt_storage_create(e, t->dtype, tt_type_numel(t), NULL, &o->storage));
    out->n = i + 1;
    TT_RETURN_IF_ERROR(tt_region_write(e, o->storage, flat[i]));
  }
  for (int i = 0; i < nw; i++) TT_RETURN_IF_ERROR(tt_region_write(e, written[i], new_base[i]));
  out->returns_arg = L->returns_arg;
  return TT_OK_STATUS;
}

/* The op at its padded inputs' bucket shape (ops/bucket.h), when it may;
 * 0 when it does not run padded (or its padded lowering failed and was
 * undone): then it lowers as usual. */
static int lower_bucketed(tt_engine_t *e, struct tt_call_scratch_s *sc, const tt_op_def_t *def,
                                  tt_call_result_t *out) {
  tt_lower_t *L = &sc->L;
  tt_bucket_plan_t *p = &sc->bucket;
  if (!e->eager_buckets || e->region.capture.active || !tt_bucket_prepare(L, def->name, e->eager_bucket_min, p))
    return 0;
  int inplace = (def->flags & TT_OPF_INPLACE) != 0; /* one write into self (ops/bucket.c) */
  tt_arg_t *args = L->args;
  L->args = p->args;
  tt_op_def_t bdef = *def;
  if (p->fn) bdef.fn = p->fn;
  tt_status_t s = lower_into_region(e, sc, &bdef, TT_LAYOUT_DEFAULT, out);
  L->args = args;
  if (!s && (inplace ? L->nouts || L->nwrites != 1 || L->returns_arg != 0 : L->nouts != 1 || L->nwrites || L->returns_arg >= 0))
    s = tt_status_make(TT_INTERNAL, "not one result");
  if (s) { /* undone: the op lowers as usual */
    tt_status_free(s);
    tt_call_result_clear(out);
    tt_region_rollback(e);
    L->nparams = L->nouts = L->nwrites = L->nchecks = 0;
    L->returns_arg = -1;
    L->warning = NULL;
    L->alias_write = 0;
    L->npads = 0;
    L->pad_mask = 0;
    return 0;
  }
  L->npads = 0;
  L->pad_mask = 0;
  if (p->out_dim >= 0 && !inplace) {
    out->outs[0].pad_dim = p->out_dim;
    out->outs[0].pad_len = p->out_len;
  }
  return 1;
}

/* A set of op ids, one byte per op (ids of a: 1, ids of b: 2), replacing *set. */
static tt_status_t set_ops(const int *a, int na, const int *b, int nb, const char *what, unsigned char **set, int *count) {
  int nops = tt_ops_count();
  unsigned char *v = tt_calloc((size_t)nops, 1);
  if (!v) return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory for the %s op set", what);
  for (int i = 0; i < na; i++)
    if (a[i] >= 0 && a[i] < nops) v[a[i]] = 1;
  for (int i = 0; i < nb; i++)
    if (b[i] >= 0 && b[i] < nops) v[b[i]] = 2;
  tt_free(*set);
  *set = v;
  *count = nops;
  return TT_OK_STATUS;
}

tt_status_t tt_call_set_pointwise_ops(tt_engine_t *e, const int *ids, int n) {
  return set_ops(ids, n, NULL, 0, "pointwise", &e->pointwise_ops, &e->npointwise_ops);
}

tt_status_t tt_call_set_inplace_iterator_ops(tt_engine_t *e, const int *binary, int nb, const int *pointwise, int np) {
  return set_ops(pointwise, np, binary, nb, "in-place iterator", &e->inplace_iterator_ops, &e->ninplace_iterator_ops);
}

void tt_call_set_default_dtype(tt_engine_t *e, tt_dtype_t dt) {
  e->default_float = (dt == TT_F64 || dt == TT_F16 || dt == TT_BF16) ? dt : TT_F32;
}

void tt_call_set_matmul_precision(tt_engine_t *e, int precision) {
  e->matmul_precision = (precision == TT_PREC_HIGH || precision == TT_PREC_MEDIUM) ? precision : TT_PREC_HIGHEST;
}

int tt_call_matmul_precision(const tt_engine_t *e) { return e->matmul_precision; }

void tt_call_set_matmul_precision_source(tt_engine_t *e, int (*source)(void *ctx), void *ctx) {
  e->matmul_precision_source = source;
  e->matmul_precision_ctx = ctx;
}

tt_status_t tt_call(tt_engine_t *e, int op_id, tt_arg_t *args, int nargs, tt_call_result_t *out) {
  const tt_op_def_t *def = tt_ops_get(op_id);
  if (def && (def->flags & TT_OPF_INDEX_MASKS)) return tt_call_index_masks(e, op_id, def, args, nargs, out);
  return tt_call_op(e, op_id, args, nargs, out);
}

tt_status_t tt_call_op(tt_engine_t *e, int op_id, tt_arg_t *args, int nargs, tt_call_result_t *out) {
  /* Results and the lowering context are large (their arrays bound what one
   * op may touch) and filled before being read: reset only the counters. */
  out->n = 0;
  out->outs = out->inline_outs;
  out->returns_arg = -1;
  out->nwarnings = 0;
  const tt_op_def_t *def = tt_ops_get(op_id);
  if (!def) return tt_status_make(TT_INTERNAL, "unknown op id %d", op_id);
  /* Complex values reach only the lowerings checked on them (ops/complex_rules.c). */
  tt_op_def_t cdef;
  tt_lower_fn fn;
  tt_status_t cs = tt_complex_route(def, args, nargs, e->default_float, &fn);
  if (cs) {
    /* TensorIterator's checks come first, unless CPU's refusal is the op's own check */
    if (tt_complex_refusal_before_shapes(def)) return cs;
    tt_status_t first = tt_iterator_inplace_first(e, op_id, args, nargs, cs);
    if (!first) first = tt_iterator_broadcast_first(e, op_id, args, nargs, cs);
    if (first) tt_status_free(cs);
    return first ? first : cs;
  }
  if (fn != def->fn) {
    cdef = *def;
    cdef.fn = fn;
    def = &cdef;
  }
  tt_graph_t *g = tt_region_graph(e);
  struct tt_call_scratch_s *sc = scratch(e);
  if (!g || !sc) return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory creating the region graph");
  tt_lower_env_t env = tt_engine_lower_env(e);
  tt_lower_t *L = &sc->L;
  L->env = &env;
  L->default_float = e->default_float;
  L->nparams = L->nouts = L->nwrites = L->nchecks = 0;
  L->g = g;
  L->op = def->name;
  L->inplace = (def->flags & TT_OPF_INPLACE) != 0;
  L->args = args;
  L->nargs = nargs;
  L->returns_arg = -1;
  L->warning = NULL;
  L->alias_write = 0;
  TT_PROF_BEGIN(TT_PROF_CALL);
  tt_region_begin_op(e);
  L->npads = 0;
  L->pad_mask = 0;
  TT_PROF_BEGIN(TT_PROF_LOWER);
  tt_layout_kind_t layout = def->layout;
  if (layout == TT_LAYOUT_DEFAULT && op_id < e->npointwise_ops && e->pointwise_ops[op_id]) layout = TT_LAYOUT_ITERATOR;
  /* the argument scan only for ops with a layout rule (most calls skip it);
   * a copy's rule is exact for every input (a memory_format, a size-1 dim's
   * stride), so it always runs */
  if (layout == TT_LAYOUT_ROW_MAJOR || (layout && layout != TT_LAYOUT_COPY && !tt_layout_args_strided(args, nargs)))
    layout = TT_LAYOUT_DEFAULT;
  tt_status_t s = lower_bucketed(e, sc, def, out) ? TT_OK_STATUS : lower_into_region(e, sc, def, layout, out);
  TT_PROF_END(TT_PROF_LOWER);
  if (s) {
    tt_call_result_clear(out); /* their pending values are forgotten with them */
    tt_region_rollback(e);
    tt_status_t first = tt_iterator_inplace_first(e, op_id, args, nargs, s);
    if (first) { /* CPU's words as they are */
      tt_status_free(s);
      return first;
    }
    first = tt_iterator_broadcast_first(e, op_id, args, nargs, s);
    if (first) {
      tt_status_free(s);
      s = first;
    }
    return tt_status_annotate(s, "aten::%s", def->name); /* a size companion is named as its op */
  }
  char what[160];
  snprintf(what, sizeof what, "aten::%s", def->name);
  if (L->nchecks && e->mode == TT_MODE_DEBUG) { /* the op's results land only if its indices are in range */
    tt_val_t flags[TT_LOWER_MAX_CHECKS];
    for (int i = 0; i < L->nchecks; i++) flags[i] = L->checks[i].flag;
    debug_checks_ctx_t dc = {e, L};
    s = tt_region_flush_checked(e, what, flags, L->nchecks, debug_checks, &dc);
  } else { /* elsewhere the checks are read at the next synchronization point */
    TT_PROF_BEGIN(TT_PROF_END_OP);
    if (L->nchecks) s = tt_region_add_checks(e, L->checks, L->nchecks);
    if (!s) s = tt_region_end_op(e, op_fingerprint(op_id, args, nargs), what);
    TT_PROF_END(TT_PROF_END_OP);
  }
  TT_PROF_END(TT_PROF_CALL);
  if (s) {
    tt_call_result_clear(out);
    return s;
  }
  if (L->warning) out->warnings[out->nwarnings++] = L->warning;
  return TT_OK_STATUS;
}

void tt_call_result_clear(tt_call_result_t *r) {
  for (int i = 0; i < r->n; i++) tt_storage_release(r->outs[i].storage);
  r->n = 0;
  if (r->outs && r->outs != r->inline_outs) tt_free(r->outs);
  r->outs = r->inline_outs;
}

tt_status_t tt_synchronize(tt_engine_t *e) {
  TT_RETURN_IF_ERROR(tt_region_flush(e, "torch.tpu.synchronize"));
  TT_RETURN_IF_ERROR(tt_inflight_wait_all(e));
  return tt_async_errors_check(e, 1);
}

tt_status_t tt_materialize(tt_engine_t *e, const char *why) { return tt_region_flush(e, why); }
