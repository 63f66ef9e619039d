/* broadcast from a root position in every group, as one all_reduce (XLA's CPU
 * backend has no collective_broadcast): the program is the same on every
 * rank, each picking its role with stablehlo.replica_id from a table, and it
 * moves the bytes of one all_reduce. Non-roots contribute zero bits and the
 * sum runs on the bits as integers (floats bitcast, complex split into its
 * parts), so the root's value arrives exactly: -0.0, NaN payloads and all. */
#include <stdio.h>

#include "dist/collective_internal.h"

/* The integer type the sum runs on. */
static tt_dtype_t carrier(tt_dtype_t dt) {
  switch (tt_dtype_real_part(dt)) {
    case TT_F16: case TT_BF16: return TT_I16;
    case TT_F32: return TT_I32;
    case TT_F64: return TT_I64;
    default: return dt;
  }
}

static void type(tt_strbuf_t *sb, const int64_t *dims, int rank, tt_dtype_t dt) {
  tt_dist_tensor_type(sb, dims, rank, dt);
}

static void unary(tt_strbuf_t *sb, const char *dst, const char *op, const char *src,
                  const int64_t *sd, int sr, tt_dtype_t st, const int64_t *dd, int dr,
                  tt_dtype_t dt) {
  tt_strbuf_appendf(sb, "    %s = \"stablehlo.%s\"(%s) : (", dst, op, src);
  type(sb, sd, sr, st);
  tt_strbuf_append(sb, ") -> ");
  type(sb, dd, dr, dt);
  tt_strbuf_append(sb, "\n");
}

/* %part = rows [i, i+1) of %v ([2, dims] -> dims), bitcast back to `real`. */
static void take_part(tt_strbuf_t *sb, const tt_dist_collective_t *c, int i, const int64_t *sd,
                      tt_dtype_t car, tt_dtype_t real) {
  int r = c->rank;
  int64_t one[TT_DIST_MAX_RANK + 1];
  one[0] = 1;
  for (int k = 0; k < r; k++) one[k + 1] = c->dims[k];
  tt_strbuf_appendf(sb, "    %%s%d = \"stablehlo.slice\"(%%sum) {start_indices = array<i64: %d", i, i);
  for (int k = 0; k < r; k++) tt_strbuf_append(sb, ", 0");
  tt_strbuf_appendf(sb, ">, limit_indices = array<i64: %d", i + 1);
  for (int k = 0; k < r; k++) tt_strbuf_appendf(sb, ", %lld", (long long)c->dims[k]);
  tt_strbuf_append(sb, ">, strides = array<i64: 1");
  for (int k = 0; k < r; k++) tt_strbuf_append(sb, ", 1");
  tt_strbuf_append(sb, ">} : (");
  type(sb, sd, r + 1, car);
  tt_strbuf_append(sb, ") -> ");
  type(sb, one, r + 1, car);
  tt_strbuf_append(sb, "\n");
  char src[16], mid[16], dst[16];
  snprintf(src, sizeof src, "%%s%d", i);
  snprintf(mid, sizeof mid, "%%t%d", i);
  snprintf(dst, sizeof dst, "%%p%d", i);
  unary(sb, mid, "reshape", src, one, r + 1, car, c->dims, r, car);
  unary(sb, dst, "bitcast_convert", mid, c->dims, r, car, c->dims, r, real);
}

void tt_dist_emit_broadcast(const tt_dist_collective_t *c, tt_strbuf_t *sb) {
  const tt_dist_groups_t *g = c->groups;
  int world = g->world, r = c->rank, cplx = tt_dtype_is_complex(c->dtype);
  tt_dtype_t dt = c->dtype, car = carrier(dt), real = tt_dtype_real_part(dt);
  /* %v: the bits to sum, of shape sd (a leading 2 for complex parts). */
  int64_t sd[TT_DIST_MAX_RANK + 1], one[TT_DIST_MAX_RANK + 1];
  int sr = r + cplx;
  sd[0] = 2;
  one[0] = 1;
  for (int k = 0; k < r; k++) sd[k + cplx] = c->dims[k], one[k + 1] = c->dims[k];
  if (cplx) {
    unary(sb, "%re", "real", "%x", c->dims, r, dt, c->dims, r, real);
    unary(sb, "%im", "imag", "%x", c->dims, r, dt, c->dims, r, real);
    unary(sb, "%reb", "bitcast_convert", "%re", c->dims, r, real, c->dims, r, car);
    unary(sb, "%imb", "bitcast_convert", "%im", c->dims, r, real, c->dims, r, car);
    unary(sb, "%re1", "reshape", "%reb", c->dims, r, car, one, r + 1, car);
    unary(sb, "%im1", "reshape", "%imb", c->dims, r, car, one, r + 1, car);
    tt_strbuf_append(sb, "    %v = \"stablehlo.concatenate\"(%re1, %im1) {dimension = 0 : i64} : (");
    type(sb, one, r + 1, car);
    tt_strbuf_append(sb, ", ");
    type(sb, one, r + 1, car);
    tt_strbuf_append(sb, ") -> ");
    type(sb, sd, sr, car);
    tt_strbuf_append(sb, "\n");
  } else if (car != dt) {
    unary(sb, "%v", "bitcast_convert", "%x", c->dims, r, dt, c->dims, r, car);
  } else {
    tt_strbuf_append(sb, "    %v = \"stablehlo.reshape\"(%x) : (");
    type(sb, c->dims, r, dt);
    tt_strbuf_append(sb, ") -> ");
    type(sb, c->dims, r, dt);
    tt_strbuf_append(sb, "\n");
  }
  /* is_root[replica]: true for each group's rank at position `root`. */
  tt_strbuf_append(sb, "    %table = stablehlo.constant dense<[");
  for (int k = 0; k < world; k++) {
    int pos = -1;
    tt_dist_groups_find(g, k, &pos);
    tt_strbuf_appendf(sb, "%s%s", k ? ", " : "", pos == c->root ? "true" : "false");
  }
  tt_strbuf_appendf(sb, "]> : tensor<%dxi1>\n", world);
  tt_strbuf_append(sb, "    %id = \"stablehlo.replica_id\"() : () -> tensor<ui32>\n");
  tt_strbuf_appendf(sb,
                    "    %%mine = \"stablehlo.dynamic_slice\"(%%table, %%id) {slice_sizes = "
                    "array<i64: 1>} : (tensor<%dxi1>, tensor<ui32>) -> tensor<1xi1>\n",
                    world);
  tt_strbuf_append(sb, "    %is_root = \"stablehlo.reshape\"(%mine) : (tensor<1xi1>) -> tensor<i1>\n");
  tt_strbuf_append(sb, "    %mask = \"stablehlo.broadcast_in_dim\"(%is_root) {broadcast_dimensions = "
                       "array<i64>} : (tensor<i1>) -> ");
  type(sb, sd, sr, TT_BOOL);
  tt_strbuf_appendf(sb, "\n    %%zero = stablehlo.constant dense<%s> : ",
                    car == TT_BOOL ? "false" : "0");
  type(sb, sd, sr, car);
  tt_strbuf_append(sb, "\n    %mine_v = \"stablehlo.select\"(%mask, %v, %zero) : (");
  type(sb, sd, sr, TT_BOOL);
  tt_strbuf_append(sb, ", ");
  type(sb, sd, sr, car);
  tt_strbuf_append(sb, ", ");
  type(sb, sd, sr, car);
  tt_strbuf_append(sb, ") -> ");
  type(sb, sd, sr, car);
  tt_strbuf_append(sb, "\n    %sum = \"stablehlo.all_reduce\"(%mine_v)");
  tt_dist_region(sb, car == TT_BOOL ? "or" : "add", car);
  tt_strbuf_append(sb, " {replica_groups = ");
  tt_dist_groups_format(g, sb);
  tt_dist_channel_attrs(sb, c->channel);
  tt_strbuf_append(sb, "} : (");
  type(sb, sd, sr, car);
  tt_strbuf_append(sb, ") -> ");
  type(sb, sd, sr, car);
  tt_strbuf_append(sb, "\n");
  if (cplx) {
    take_part(sb, c, 0, sd, car, real);
    take_part(sb, c, 1, sd, car, real);
    tt_strbuf_append(sb, "    %r = \"stablehlo.complex\"(%p0, %p1) : (");
    type(sb, c->dims, r, real);
    tt_strbuf_append(sb, ", ");
    type(sb, c->dims, r, real);
    tt_strbuf_append(sb, ") -> ");
    type(sb, c->dims, r, dt);
    tt_strbuf_append(sb, "\n");
  } else {
    unary(sb, "%r", car != dt ? "bitcast_convert" : "reshape", "%sum", c->dims, r, car, c->dims, r,
          dt);
  }
}
