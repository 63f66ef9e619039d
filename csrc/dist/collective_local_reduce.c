/* Bitwise reductions (BAND, BOR, BXOR) that XLA's collective runtimes do not
 * take as an all_reduce computation: move the group's data, reduce locally.
 * Costs group-size times the bytes of a native all_reduce; exact. */
#include <string.h>

#include "dist/collective_internal.h"

int tt_dist_needs_local_reduce(const char *comb, tt_dtype_t dt) {
  if (strcmp(comb, "xor") == 0) return 1;
  return (strcmp(comb, "and") == 0 || strcmp(comb, "or") == 0) && dt != TT_BOOL;
}

/* The identity of `comb` as a 0-d constant %init. */
static void identity(tt_strbuf_t *sb, const char *comb, tt_dtype_t dt) {
  int ones = strcmp(comb, "and") == 0;
  tt_strbuf_append(sb, "    %init = stablehlo.constant dense<");
  if (dt == TT_BOOL)
    tt_strbuf_append(sb, ones ? "true" : "false");
  else if (!ones)
    tt_strbuf_append(sb, "0");
  else if (tt_dtype_is_unsigned(dt))
    tt_strbuf_appendf(sb, "%llu", (unsigned long long)(~0ull >> (64 - 8 * tt_dtype_size(dt))));
  else
    tt_strbuf_append(sb, "-1");
  tt_strbuf_append(sb, "> : ");
  tt_dist_tensor_type(sb, NULL, 0, dt);
  tt_strbuf_append(sb, "\n");
}

static void i64_array(tt_strbuf_t *sb, const int64_t *v, int n) {
  tt_strbuf_append(sb, "array<i64");
  for (int i = 0; i < n; i++) tt_strbuf_appendf(sb, "%s%lld", i ? ", " : ": ", (long long)v[i]);
  tt_strbuf_append(sb, ">");
}

/* %dst = "stablehlo.<op>"(%src) {attrs} : (src type) -> (dst type) */
static void unary(tt_strbuf_t *sb, const char *dst, const char *op, const char *src,
                  const char *attrs, const int64_t *sd, int sr, const int64_t *dd, int dr,
                  tt_dtype_t dt) {
  tt_strbuf_appendf(sb, "    %s = \"stablehlo.%s\"(%s)%s : (", dst, op, src, attrs);
  tt_dist_tensor_type(sb, sd, sr, dt);
  tt_strbuf_append(sb, ") -> ");
  tt_dist_tensor_type(sb, dd, dr, dt);
  tt_strbuf_append(sb, "\n");
}

void tt_dist_emit_local_reduce(const tt_dist_collective_t *c, const char *comb,
                               const int64_t *rd, int rr, tt_strbuf_t *sb) {
  int s = c->groups->group_size, d = c->dim, r = c->rank;
  int64_t stacked[TT_DIST_MAX_RANK + 1], moved[TT_DIST_MAX_RANK + 1];
  tt_strbuf_t attrs;
  tt_strbuf_init(&attrs);
  if (c->kind == TT_DIST_ALL_REDUCE) {
    /* [dims] -> [1, dims] -> all_gather along 0 -> [S, dims] */
    stacked[0] = 1;
    memcpy(stacked + 1, c->dims, (size_t)r * sizeof *stacked);
    memcpy(moved, stacked, (size_t)(r + 1) * sizeof *moved);
    moved[0] = s;
    unary(sb, "%x1", "reshape", "%x", "", c->dims, r, stacked, r + 1, c->dtype);
    tt_strbuf_append(&attrs, " {all_gather_dim = 0 : i64, replica_groups = ");
    tt_dist_groups_format(c->groups, &attrs);
    tt_dist_channel_attrs(&attrs, c->channel);
    tt_strbuf_append(&attrs, "}");
    unary(sb, "%g", "all_gather", "%x1", attrs.data ? attrs.data : "", stacked, r + 1, moved,
          r + 1, c->dtype);
  } else {
    /* Split the scatter dim into [S, chunk], bring S to the front, and let
     * all_to_all hand block k of every member to its k-th rank:
     * [.., d, ..] -> [.., S, d/S, ..] -> [S, .., d/S, ..] -> all_to_all -> same shape. */
    int64_t split[TT_DIST_MAX_RANK + 1], perm[TT_DIST_MAX_RANK + 1];
    for (int i = 0, j = 0; i < r; i++) {
      if (i == d) {
        split[j++] = s;
        split[j++] = c->dims[i] / s;
      } else {
        split[j++] = c->dims[i];
      }
    }
    perm[0] = d;
    for (int i = 0, j = 1; i <= r; i++)
      if (i != d) perm[j++] = i;
    for (int i = 0; i <= r; i++) moved[i] = split[perm[i]];
    unary(sb, "%x1", "reshape", "%x", "", c->dims, r, split, r + 1, c->dtype);
    tt_strbuf_append(&attrs, " {permutation = ");
    i64_array(&attrs, perm, r + 1);
    tt_strbuf_append(&attrs, "}");
    unary(sb, "%x2", "transpose", "%x1", attrs.data ? attrs.data : "", split, r + 1, moved, r + 1,
          c->dtype);
    attrs.len = 0;
    tt_strbuf_appendf(&attrs, " {split_dimension = 0 : i64, concat_dimension = 0 : i64, "
                              "split_count = %d : i64, replica_groups = ", s);
    tt_dist_groups_format(c->groups, &attrs);
    tt_strbuf_append(&attrs, "}");
    unary(sb, "%g", "all_to_all", "%x2", attrs.data ? attrs.data : "", moved, r + 1, moved, r + 1,
          c->dtype);
  }
  if (attrs.failed) sb->failed = 1; /* reported by the caller's tt_strbuf_status */
  tt_strbuf_free(&attrs);
  identity(sb, comb, c->dtype);
  tt_strbuf_append(sb, "    %r = \"stablehlo.reduce\"(%g, %init)");
  tt_dist_region(sb, comb, c->dtype);
  tt_strbuf_append(sb, " {dimensions = array<i64: 0>} : (");
  tt_dist_tensor_type(sb, moved, r + 1, c->dtype);
  tt_strbuf_append(sb, ", ");
  tt_dist_tensor_type(sb, NULL, 0, c->dtype);
  tt_strbuf_append(sb, ") -> ");
  tt_dist_tensor_type(sb, rd, rr, c->dtype);
  tt_strbuf_append(sb, "\n");
}
