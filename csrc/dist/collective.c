/* Module text of the skinny collective programs, in StableHLO's generic op
 * form (the form most stable across the plugins' StableHLO versions). */
#include "dist/collective.h"

#include <stdio.h>
#include <string.h>

#include "dist/collective_internal.h"

static const char *const kKindNames[TT_DIST_KIND_COUNT] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute",
    "broadcast"};
static const char *const kOpNames[TT_DIST_OP_COUNT] = {
    "SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"};

const char *tt_dist_kind_name(tt_dist_kind_t kind) {
  return kind >= 0 && kind < TT_DIST_KIND_COUNT ? kKindNames[kind] : "unknown collective";
}
const char *tt_dist_op_name(tt_dist_op_t op) {
  return op >= 0 && op < TT_DIST_OP_COUNT ? kOpNames[op] : "unknown ReduceOp";
}

int tt_dist_kind_from_name(const char *name) {
  for (int i = 0; i < TT_DIST_KIND_COUNT; i++)
    if (name && strcmp(name, kKindNames[i]) == 0) return i;
  return -1;
}
int tt_dist_op_from_name(const char *name) {
  for (int i = 0; i < TT_DIST_OP_COUNT; i++)
    if (name && strcmp(name, kOpNames[i]) == 0) return i;
  return -1;
}

static int is_reduction(const tt_dist_collective_t *c) {
  return c->kind == TT_DIST_ALL_REDUCE || c->kind == TT_DIST_REDUCE_SCATTER;
}

int tt_dist_collective_world(const tt_dist_collective_t *c) {
  if (c->kind == TT_DIST_PERMUTE) return c->pairs ? c->pairs->world : 0;
  return c->groups ? c->groups->world : 0;
}

int tt_dist_collective_num_args(const tt_dist_collective_t *c) {
  return is_reduction(c) && c->op == TT_DIST_PREMUL_SUM ? 2 : 1;
}

/* The StableHLO op combining two elements for `op` on `dt`, or NULL (and an
 * error) where PyTorch's backends refuse the pair. Bool follows NCCL: SUM and
 * MAX are a logical or, PRODUCT and MIN a logical and. */
static tt_status_t combiner(const tt_dist_collective_t *c, const char **out) {
  tt_dist_op_t op = c->op;
  tt_dtype_t dt = c->dtype;
  const char *what = tt_dist_kind_name(c->kind);
  *out = NULL;
  if (op < 0 || op >= TT_DIST_OP_COUNT)
    return tt_status_make(TT_VALUE_ERROR, "%s: unknown ReduceOp %d", what, (int)op);
  if (dt == TT_BOOL) {
    static const char *const kBool[TT_DIST_OP_COUNT] = {
        [TT_DIST_SUM] = "or", [TT_DIST_PRODUCT] = "and", [TT_DIST_MIN] = "and",
        [TT_DIST_MAX] = "or", [TT_DIST_BAND] = "and",    [TT_DIST_BOR] = "or",
        [TT_DIST_BXOR] = "xor"};
    *out = kBool[op];
    if (!*out)
      return tt_status_make(TT_VALUE_ERROR, "%s: cannot use ReduceOp.%s with boolean inputs",
                            what, tt_dist_op_name(op));
    return TT_OK_STATUS;
  }
  int bitwise = op == TT_DIST_BAND || op == TT_DIST_BOR || op == TT_DIST_BXOR;
  if (bitwise && !tt_dtype_is_int(dt))
    return tt_status_make(TT_VALUE_ERROR,
                          "%s: ReduceOp.%s is defined for integer and bool tensors, not %s", what,
                          tt_dist_op_name(op), tt_dtype_name(dt));
  if (op == TT_DIST_AVG && !tt_dtype_is_float(dt) && !tt_dtype_is_complex(dt))
    return tt_status_make(TT_VALUE_ERROR,
                          "%s: ReduceOp.AVG needs a floating-point or complex tensor, got %s "
                          "(reduce with SUM and divide instead)",
                          what, tt_dtype_name(dt));
  if (tt_dtype_is_complex(dt) &&
      !(op == TT_DIST_SUM || op == TT_DIST_AVG || op == TT_DIST_PREMUL_SUM))
    return tt_status_make(TT_VALUE_ERROR, "%s does not support ReduceOp.%s on complex tensors",
                          what, tt_dist_op_name(op));
  static const char *const kOps[TT_DIST_OP_COUNT] = {
      [TT_DIST_SUM] = "add",      [TT_DIST_AVG] = "add",     [TT_DIST_PRODUCT] = "multiply",
      [TT_DIST_MIN] = "minimum",  [TT_DIST_MAX] = "maximum", [TT_DIST_BAND] = "and",
      [TT_DIST_BOR] = "or",       [TT_DIST_BXOR] = "xor",    [TT_DIST_PREMUL_SUM] = "add"};
  *out = kOps[op];
  return TT_OK_STATUS;
}

static void shape_str(const int64_t *dims, int rank, char *buf, size_t cap) {
  size_t len = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < rank && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "", (long long)dims[i]);
  if (len < cap) snprintf(buf + len, cap - len, "]");
}

static tt_status_t check_dim(const tt_dist_collective_t *c, int d, const char *name) {
  if (d < 0 || d >= c->rank) {
    char shape[160];
    shape_str(c->dims, c->rank, shape, sizeof shape);
    return tt_status_make(TT_INDEX_ERROR, "%s: %s %d is out of range for a tensor of shape %s",
                          tt_dist_kind_name(c->kind), name, d, shape);
  }
  return TT_OK_STATUS;
}

static tt_status_t check_divisible(const tt_dist_collective_t *c, int d, int parts) {
  if (c->dims[d] % parts != 0) {
    char shape[160];
    shape_str(c->dims, c->rank, shape, sizeof shape);
    return tt_status_make(TT_VALUE_ERROR,
                          "%s: dimension %d of shape %s (size %lld) must divide evenly among the "
                          "%d ranks of each group",
                          tt_dist_kind_name(c->kind), d, shape, (long long)c->dims[d], parts);
  }
  return TT_OK_STATUS;
}

static tt_status_t check_operand(const tt_dist_collective_t *c) {
  const char *what = tt_dist_kind_name(c->kind);
  if (c->kind < 0 || c->kind >= TT_DIST_KIND_COUNT)
    return tt_status_make(TT_VALUE_ERROR, "unknown collective kind %d", (int)c->kind);
  if (!tt_dtype_valid(c->dtype) || c->dtype == TT_U32 || c->dtype == TT_U64)
    return tt_status_make(TT_TYPE_ERROR, "%s: unsupported dtype %s", what,
                          tt_dtype_name(c->dtype));
  if (c->rank < 0 || c->rank > TT_DIST_MAX_RANK)
    return tt_status_make(TT_VALUE_ERROR, "%s: rank %d tensors are not supported (at most %d)",
                          what, c->rank, TT_DIST_MAX_RANK);
  for (int i = 0; i < c->rank; i++)
    if (c->dims[i] < 0)
      return tt_status_make(TT_VALUE_ERROR, "%s: negative dimension %lld", what,
                            (long long)c->dims[i]);
  if (c->kind == TT_DIST_PERMUTE ? !c->pairs : !c->groups)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: no %s given", what,
                          c->kind == TT_DIST_PERMUTE ? "source/target pairs" : "replica groups");
  return TT_OK_STATUS;
}

tt_status_t tt_dist_collective_check(const tt_dist_collective_t *c, int64_t *out_dims,
                                     int *out_rank) {
  TT_RETURN_IF_ERROR(check_operand(c));
  for (int i = 0; i < c->rank; i++) out_dims[i] = c->dims[i];
  *out_rank = c->rank;
  const char *comb;
  if (is_reduction(c)) TT_RETURN_IF_ERROR(combiner(c, &comb));
  int s = c->kind == TT_DIST_PERMUTE ? 1 : c->groups->group_size;
  switch (c->kind) {
    case TT_DIST_ALL_GATHER:
      TT_RETURN_IF_ERROR(check_dim(c, c->dim, "all_gather_dim"));
      out_dims[c->dim] *= s;
      break;
    case TT_DIST_REDUCE_SCATTER:
      TT_RETURN_IF_ERROR(check_dim(c, c->dim, "scatter_dimension"));
      TT_RETURN_IF_ERROR(check_divisible(c, c->dim, s));
      out_dims[c->dim] /= s;
      break;
    case TT_DIST_ALL_TO_ALL:
      TT_RETURN_IF_ERROR(check_dim(c, c->dim, "split_dimension"));
      TT_RETURN_IF_ERROR(check_dim(c, c->concat_dim, "concat_dimension"));
      TT_RETURN_IF_ERROR(check_divisible(c, c->dim, s));
      out_dims[c->dim] /= s;
      out_dims[c->concat_dim] *= s;
      break;
    case TT_DIST_BROADCAST:
      if (c->root < 0 || c->root >= s)
        return tt_status_make(TT_VALUE_ERROR,
                              "broadcast: root position %d is outside groups of %d ranks",
                              c->root, s);
      break;
    default: break;
  }
  return TT_OK_STATUS;
}

void tt_dist_tensor_type(tt_strbuf_t *sb, const int64_t *dims, int rank, tt_dtype_t dt) {
  tt_strbuf_append(sb, "tensor<");
  for (int i = 0; i < rank; i++) tt_strbuf_appendf(sb, "%lldx", (long long)dims[i]);
  tt_strbuf_appendf(sb, "%s>", tt_dtype_mlir(dt));
}

/* ({ ^bb0(%a: tensor<E>, %b: tensor<E>): %c = E-op; return }) */
void tt_dist_region(tt_strbuf_t *sb, const char *comb, tt_dtype_t dt) {
  const char *e = tt_dtype_mlir(dt);
  tt_strbuf_appendf(sb,
                    " ({\n    ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
                    "      %%c = \"stablehlo.%s\"(%%a, %%b) : (tensor<%s>, tensor<%s>) -> tensor<%s>\n"
                    "      \"stablehlo.return\"(%%c) : (tensor<%s>) -> ()\n    })",
                    e, e, comb, e, e, e, e);
}

void tt_dist_channel_attrs(tt_strbuf_t *sb, tt_dist_channel_t ch) {
  if (ch == TT_DIST_CROSS_REPLICA) return;
  tt_strbuf_append(sb, ", channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>");
  if (ch == TT_DIST_GLOBAL_IDS) tt_strbuf_append(sb, ", use_global_device_ids");
}

/* Multiplies %x by the 0-d factor %f (PREMUL_SUM); the product is %x0. */
static void premultiply(tt_strbuf_t *sb, const tt_dist_collective_t *c) {
  tt_strbuf_append(sb, "    %f_b = \"stablehlo.broadcast_in_dim\"(%f) "
                       "{broadcast_dimensions = array<i64>} : (");
  tt_dist_tensor_type(sb, NULL, 0, c->dtype);
  tt_strbuf_append(sb, ") -> ");
  tt_dist_tensor_type(sb, c->dims, c->rank, c->dtype);
  tt_strbuf_append(sb, "\n    %x0 = \"stablehlo.multiply\"(%x, %f_b) : (");
  tt_dist_tensor_type(sb, c->dims, c->rank, c->dtype);
  tt_strbuf_append(sb, ", ");
  tt_dist_tensor_type(sb, c->dims, c->rank, c->dtype);
  tt_strbuf_append(sb, ") -> ");
  tt_dist_tensor_type(sb, c->dims, c->rank, c->dtype);
  tt_strbuf_append(sb, "\n");
}

/* %r = %r0 / group size (AVG), as a splat constant of the result's type. */
static void divide_by_group(tt_strbuf_t *sb, const tt_dist_collective_t *c, const int64_t *rd,
                            int rr) {
  int n = c->groups->group_size;
  tt_strbuf_append(sb, "    %n = stablehlo.constant dense<");
  if (tt_dtype_is_complex(c->dtype))
    tt_strbuf_appendf(sb, "(%d.0, 0.0)", n);
  else
    tt_strbuf_appendf(sb, "%d.0", n);
  tt_strbuf_append(sb, "> : ");
  tt_dist_tensor_type(sb, rd, rr, c->dtype);
  tt_strbuf_append(sb, "\n    %r = \"stablehlo.divide\"(%r0, %n) : (");
  tt_dist_tensor_type(sb, rd, rr, c->dtype);
  tt_strbuf_append(sb, ", ");
  tt_dist_tensor_type(sb, rd, rr, c->dtype);
  tt_strbuf_append(sb, ") -> ");
  tt_dist_tensor_type(sb, rd, rr, c->dtype);
  tt_strbuf_append(sb, "\n");
}

static void collective_op(tt_strbuf_t *sb, const tt_dist_collective_t *c, const char *comb,
                          const char *src, const char *dst) {
  tt_strbuf_appendf(sb, "    %s = \"stablehlo.%s\"(%s)", dst, tt_dist_kind_name(c->kind), src);
  if (comb) tt_dist_region(sb, comb, c->dtype);
  tt_strbuf_append(sb, " {");
  switch (c->kind) {
    case TT_DIST_ALL_GATHER: tt_strbuf_appendf(sb, "all_gather_dim = %d : i64, ", c->dim); break;
    case TT_DIST_REDUCE_SCATTER:
      tt_strbuf_appendf(sb, "scatter_dimension = %d : i64, ", c->dim);
      break;
    case TT_DIST_ALL_TO_ALL:
      tt_strbuf_appendf(sb, "split_dimension = %d : i64, concat_dimension = %d : i64, "
                            "split_count = %d : i64, ",
                        c->dim, c->concat_dim, c->groups->group_size);
      break;
    default: break;
  }
  if (c->kind == TT_DIST_PERMUTE) {
    tt_strbuf_append(sb, "source_target_pairs = ");
    tt_dist_pairs_format(c->pairs, sb);
  } else {
    tt_strbuf_append(sb, "replica_groups = ");
    tt_dist_groups_format(c->groups, sb);
    if (c->kind != TT_DIST_ALL_TO_ALL) tt_dist_channel_attrs(sb, c->channel);
  }
  tt_strbuf_append(sb, "} : (");
  tt_dist_tensor_type(sb, c->dims, c->rank, c->dtype);
  tt_strbuf_append(sb, ") -> ");
}

static int is_empty(const tt_dist_collective_t *c) {
  for (int i = 0; i < c->rank; i++)
    if (c->dims[i] == 0) return 1;
  return 0;
}

tt_status_t tt_dist_collective_emit(const tt_dist_collective_t *c, tt_strbuf_t *sb) {
  int64_t rd[TT_DIST_MAX_RANK];
  int rr = 0;
  TT_RETURN_IF_ERROR(tt_dist_collective_check(c, rd, &rr));
  const char *comb = NULL;
  if (is_reduction(c)) TT_RETURN_IF_ERROR(combiner(c, &comb));
  int premul = tt_dist_collective_num_args(c) == 2;
  int avg = is_reduction(c) && c->op == TT_DIST_AVG;

  tt_strbuf_appendf(sb,
                    "module @%s attributes {mhlo.num_replicas = %d : i32, "
                    "mhlo.num_partitions = 1 : i32} {\n  func.func public @main(%%x: ",
                    tt_dist_kind_name(c->kind), tt_dist_collective_world(c));
  tt_dist_tensor_type(sb, c->dims, c->rank, c->dtype);
  if (premul) {
    tt_strbuf_append(sb, ", %f: ");
    tt_dist_tensor_type(sb, NULL, 0, c->dtype);
  }
  tt_strbuf_append(sb, ") -> ");
  tt_dist_tensor_type(sb, rd, rr, c->dtype);
  tt_strbuf_append(sb, " {\n");
  if (is_empty(c)) {
    /* Nothing to move and an empty result (the verifier even refuses a
     * zero-size all_gather dimension): no collective at all. */
    tt_strbuf_append(sb, "    %r = stablehlo.constant dense<> : ");
    tt_dist_tensor_type(sb, rd, rr, c->dtype);
    tt_strbuf_append(sb, "\n");
    avg = 0;
  } else if (c->kind == TT_DIST_BROADCAST) {
    tt_dist_emit_broadcast(c, sb);
  } else if (comb && tt_dist_needs_local_reduce(comb, c->dtype)) {
    tt_dist_emit_local_reduce(c, comb, rd, rr, sb);
  } else {
    if (premul) premultiply(sb, c);
    collective_op(sb, c, comb, premul ? "%x0" : "%x", avg ? "%r0" : "%r");
    tt_dist_tensor_type(sb, rd, rr, c->dtype);
    tt_strbuf_append(sb, "\n");
  }
  if (avg) divide_by_group(sb, c, rd, rr);
  tt_strbuf_append(sb, "    \"func.return\"(%r) : (");
  tt_dist_tensor_type(sb, rd, rr, c->dtype);
  tt_strbuf_append(sb, ") -> ()\n  }\n}\n");
  return tt_strbuf_status(sb);
}
