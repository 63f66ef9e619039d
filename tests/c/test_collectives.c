/* The skinny collective programs (csrc/dist) run on N CPU devices of one
 * process, checked against results computed here on the host: every
 * collective, every ReduceOp, integer, bool and float dtypes, the whole world
 * and subgroups (the seeds' (4, 0, 1, 3) / (5, 2, 6, 7) split among them), and
 * the errors of splits StableHLO cannot express.
 *
 * TORCH_TPU_PJRT_PLUGIN: the plugin (required). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/collective_local.h"
#include "base/alloc.h"
#include "check.h"
#include "dist/collective.h"
#include "dist/replica_groups.h"

#define MAX_WORLD 8
#define MAX_ELEMS 256

static const char *g_plugin;
static tt_pjrt_runtime_t *g_rt; /* one client with MAX_WORLD devices serves every world */

/* ------------------------------------------------------------ host values */

static double get(const void *p, tt_dtype_t dt, size_t i) {
  switch (dt) {
    case TT_BOOL: return ((const uint8_t *)p)[i] != 0;
    case TT_U8: return ((const uint8_t *)p)[i];
    case TT_I8: return ((const int8_t *)p)[i];
    case TT_I32: return ((const int32_t *)p)[i];
    case TT_I64: return (double)((const int64_t *)p)[i];
    case TT_F32: return ((const float *)p)[i];
    case TT_F64: return ((const double *)p)[i];
    default: return NAN;
  }
}

/* Stores v converted as the device would (integers wrap to their width). */
static void put(void *p, tt_dtype_t dt, size_t i, double v) {
  switch (dt) {
    case TT_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case TT_U8: ((uint8_t *)p)[i] = (uint8_t)(int64_t)v; break;
    case TT_I8: ((int8_t *)p)[i] = (int8_t)(int64_t)v; break;
    case TT_I32: ((int32_t *)p)[i] = (int32_t)(int64_t)v; break;
    case TT_I64: ((int64_t *)p)[i] = (int64_t)v; break;
    case TT_F32: ((float *)p)[i] = (float)v; break;
    case TT_F64: ((double *)p)[i] = v; break;
    default: break;
  }
}

/* Rank r's element i: small values, so sums and products stay exact. */
static double input_value(tt_dtype_t dt, int r, size_t i) {
  if (dt == TT_BOOL) return (r + (int)i) % 3 == 0;
  int v = (int)((r * 7 + i * 3) % 11);
  if (dt == TT_U8) return v % 4;
  if (dt == TT_F32 || dt == TT_F64) return v - 5 + 0.5 * (r % 2);
  return v - 5;
}

static int64_t to_i(double v) { return (int64_t)v; }

static double combine(tt_dist_op_t op, tt_dtype_t dt, double a, double b) {
  int is_bool = dt == TT_BOOL;
  switch (op) {
    case TT_DIST_SUM: case TT_DIST_AVG: case TT_DIST_PREMUL_SUM:
      return is_bool ? (a != 0 || b != 0) : a + b;
    case TT_DIST_PRODUCT: return is_bool ? (a != 0 && b != 0) : a * b;
    case TT_DIST_MIN: return a < b ? a : b;
    case TT_DIST_MAX: return a > b ? a : b;
    case TT_DIST_BAND: return (double)(to_i(a) & to_i(b));
    case TT_DIST_BOR: return (double)(to_i(a) | to_i(b));
    case TT_DIST_BXOR: return (double)(to_i(a) ^ to_i(b));
    default: return NAN;
  }
}

static size_t numel(const int64_t *dims, int rank) {
  size_t n = 1;
  for (int i = 0; i < rank; i++) n *= (size_t)dims[i];
  return n;
}

static void unravel(size_t flat, const int64_t *dims, int rank, int64_t *idx) {
  for (int i = rank - 1; i >= 0; i--) {
    idx[i] = (int64_t)(flat % (size_t)dims[i]);
    flat /= (size_t)dims[i];
  }
}

static size_t ravel(const int64_t *idx, const int64_t *dims, int rank) {
  size_t f = 0;
  for (int i = 0; i < rank; i++) f = f * (size_t)dims[i] + (size_t)idx[i];
  return f;
}

/* ------------------------------------------------------------ reference */

/* The group reduction of element i, over the members of `group`, wrapped to
 * the dtype after each step as the device does. */
static double reduce_elem(const tt_dist_collective_t *c, const int *group, void *const *in,
                          const double *factors, size_t i) {
  int s = c->groups->group_size;
  uint8_t tmp[16];
  double acc = 0;
  for (int k = 0; k < s; k++) {
    double v = get(in[group[k]], c->dtype, i);
    if (c->op == TT_DIST_PREMUL_SUM) v *= factors[group[k]];
    acc = k ? combine(c->op, c->dtype, acc, v) : v;
    put(tmp, c->dtype, 0, acc);
    acc = get(tmp, c->dtype, 0);
  }
  if (c->op == TT_DIST_AVG) acc /= s;
  return acc;
}

/* Rank r's expected result, as doubles. */
static void expected(const tt_dist_collective_t *c, void *const *in, const double *factors, int r,
                     const int64_t *rd, int rr, double *out) {
  size_t n = numel(rd, rr);
  int64_t idx[TT_DIST_MAX_RANK];
  if (c->kind == TT_DIST_PERMUTE) {
    int src = -1;
    for (int p = 0; p < c->pairs->num_pairs; p++)
      if (c->pairs->pairs[2 * p + 1] == r) src = c->pairs->pairs[2 * p];
    for (size_t i = 0; i < n; i++) out[i] = src < 0 ? 0 : get(in[src], c->dtype, i);
    return;
  }
  int pos = 0;
  int g = tt_dist_groups_find(c->groups, r, &pos);
  const int *group = c->groups->ranks + (size_t)g * c->groups->group_size;
  if (c->kind == TT_DIST_BROADCAST) {
    for (size_t i = 0; i < n; i++) out[i] = get(in[group[c->root]], c->dtype, i);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    unravel(i, rd, rr, idx);
    switch (c->kind) {
      case TT_DIST_ALL_REDUCE: out[i] = reduce_elem(c, group, in, factors, i); break;
      case TT_DIST_ALL_GATHER: {
        int64_t block = c->dims[c->dim];
        int k = (int)(idx[c->dim] / block);
        idx[c->dim] %= block;
        out[i] = get(in[group[k]], c->dtype, ravel(idx, c->dims, c->rank));
        break;
      }
      case TT_DIST_REDUCE_SCATTER:
        idx[c->dim] += (int64_t)pos * rd[c->dim];
        out[i] = reduce_elem(c, group, in, factors, ravel(idx, c->dims, c->rank));
        break;
      case TT_DIST_ALL_TO_ALL: {
        /* Block k along concat_dim came from member k's chunk `pos` of split_dim. */
        int s = c->groups->group_size;
        int64_t chunk = c->dims[c->dim] / s;
        int64_t cblock = c->dim == c->concat_dim ? chunk : c->dims[c->concat_dim];
        int k = (int)(idx[c->concat_dim] / cblock);
        idx[c->concat_dim] %= cblock;
        idx[c->dim] += (int64_t)pos * chunk;
        out[i] = get(in[group[k]], c->dtype, ravel(idx, c->dims, c->rank));
        break;
      }
      default: out[i] = NAN;
    }
  }
}

/* ------------------------------------------------------------ one case */

static int g_cases;

/* Runs `c` on the device and compares every rank's result with the host. */
static void run_case(const tt_dist_collective_t *c, const char *label) {
  int world = tt_dist_collective_world(c);
  size_t n_in = numel(c->dims, c->rank), esz = tt_dtype_size(c->dtype);
  static uint8_t in_data[MAX_WORLD][MAX_ELEMS * 8], out_data[MAX_WORLD][MAX_ELEMS * 8];
  static uint8_t fac_data[MAX_WORLD][8];
  void *in[MAX_WORLD], *out[MAX_WORLD];
  const void *fac[MAX_WORLD];
  double factors[MAX_WORLD];
  for (int r = 0; r < world; r++) {
    for (size_t i = 0; i < n_in; i++) put(in_data[r], c->dtype, i, input_value(c->dtype, r, i));
    factors[r] = (c->dtype == TT_F32 || c->dtype == TT_F64) ? 0.25 * (r + 1) : (r % 3) + 1;
    put(fac_data[r], c->dtype, 0, factors[r]);
    in[r] = in_data[r];
    out[r] = out_data[r];
    fac[r] = fac_data[r];
  }
  int64_t rd[TT_DIST_MAX_RANK];
  int rr = 0;
  if (!CHECK_OK(tt_dist_collective_check(c, rd, &rr))) return;
  size_t n_out = numel(rd, rr);
  tt_status_t s = tt_collective_run_local(g_rt, c, (const void *const *)in, fac, out, n_out * esz);
  g_cases++;
  if (s) {
    fprintf(stderr, "FAIL %s: %s\n", label, tt_status_message(s));
    g_failed++;
    tt_status_free(s);
    return;
  }
  int bad = 0;
  static double want[MAX_ELEMS];
  for (int r = 0; r < world && !bad; r++) {
    expected(c, in, factors, r, rd, rr, want);
    for (size_t i = 0; i < n_out && !bad; i++) {
      double got = get(out[r], c->dtype, i);
      double tol = (c->dtype == TT_F32 ? 1e-6 : 1e-12) * (fabs(want[i]) + 1);
      if (!(fabs(got - want[i]) <= tol)) {
        fprintf(stderr, "FAIL %s: rank %d element %zu: got %g, want %g\n", label, r, i, got,
                want[i]);
        bad = 1;
      }
    }
  }
  CHECK(!bad);
}

/* ------------------------------------------------------------ splits */

static void make_groups(int world, int num_known, int size, const int *ranks,
                        tt_dist_groups_t *out) {
  int sizes[MAX_WORLD];
  for (int i = 0; i < num_known; i++) sizes[i] = size;
  CHECK_OK(tt_dist_groups_resolve(world, num_known, sizes, ranks, out));
}

static void test_groups_resolve(void) {
  /* The seeds' example: naming (4, 0, 1, 3) and (5, 2, 6, 7) prints both. */
  tt_dist_groups_t g;
  const int seeds[8] = {4, 0, 1, 3, 5, 2, 6, 7};
  make_groups(8, 2, 4, seeds, &g);
  tt_strbuf_t sb;
  tt_strbuf_init(&sb);
  tt_dist_groups_format(&g, &sb);
  CHECK(sb.data && strcmp(sb.data, "dense<[[4, 0, 1, 3], [5, 2, 6, 7]]> : tensor<2x4xi64>") == 0);
  tt_strbuf_free(&sb);
  int pos = -1;
  CHECK(tt_dist_groups_find(&g, 2, &pos) == 1 && pos == 1);
  CHECK(tt_dist_groups_find(&g, 9, &pos) == -1 && pos == -1);
  tt_dist_groups_free(&g);

  /* One subgroup alone (new_group): the rest are filled in rank order. */
  make_groups(8, 1, 4, seeds, &g);
  tt_strbuf_init(&sb);
  tt_dist_groups_format(&g, &sb);
  CHECK(sb.data && strcmp(sb.data, "dense<[[4, 0, 1, 3], [2, 5, 6, 7]]> : tensor<2x4xi64>") == 0);
  tt_strbuf_free(&sb);
  tt_dist_groups_free(&g);

  /* Color/key split (split_group, MPI_Comm_split): colors 1,0,1,0,... keys reversed. */
  int colors[8], keys[8];
  for (int r = 0; r < 8; r++) colors[r] = (r + 1) % 2, keys[r] = -r;
  if (CHECK_OK(tt_dist_groups_from_colors(8, colors, keys, &g))) {
    const int want[8] = {7, 5, 3, 1, 6, 4, 2, 0};
    CHECK(g.num_groups == 2 && g.group_size == 4 && memcmp(g.ranks, want, sizeof want) == 0);
  }
  tt_dist_groups_free(&g);
  /* Negative color: left out, then completed. */
  const int c2[4] = {0, -1, 0, -1};
  if (CHECK_OK(tt_dist_groups_from_colors(4, c2, NULL, &g))) {
    const int want[4] = {0, 2, 1, 3};
    CHECK(g.num_groups == 2 && memcmp(g.ranks, want, sizeof want) == 0);
  }
  tt_dist_groups_free(&g);

  /* Errors, each naming what is wrong. */
  int sizes[3] = {3, 3, 2};
  const int r3[3] = {0, 1, 2};
  tt_status_t s = tt_dist_groups_resolve(8, 1, sizes, r3, &g);
  CHECK(s && tt_status_code(s) == TT_VALUE_ERROR &&
        strstr(tt_status_message(s), "same size") && strstr(tt_status_message(s), "[3, 4, 5, 6, 7]"));
  tt_status_free(s);
  const int r8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  s = tt_dist_groups_resolve(8, 3, sizes, r8, &g);
  CHECK(s && strstr(tt_status_message(s), "subgroup 2 has 2 ranks but subgroup 0 has 3"));
  tt_status_free(s);
  const int out_of_range[2] = {0, 8};
  int two[2] = {2, 2};
  s = tt_dist_groups_resolve(8, 1, two, out_of_range, &g);
  CHECK(s && strstr(tt_status_message(s), "rank 8 in subgroup 0 is outside the world of 8"));
  tt_status_free(s);
  const int overlap[4] = {0, 1, 1, 2};
  s = tt_dist_groups_resolve(4, 2, two, overlap, &g);
  CHECK(s && strstr(tt_status_message(s), "rank 1 is in subgroup 0 and in subgroup 1"));
  tt_status_free(s);
  const int dup[2] = {3, 3};
  CHECK_ERR(tt_dist_groups_resolve(4, 1, two, dup, &g), TT_VALUE_ERROR);
  CHECK_ERR(tt_dist_groups_resolve(0, 1, two, dup, &g), TT_VALUE_ERROR);
  CHECK(g.ranks == NULL);

  /* Pairs: a source sends once, a target receives once. */
  tt_dist_pairs_t p;
  const int bad_src[4] = {0, 1, 0, 2};
  s = tt_dist_pairs_make(4, 2, bad_src, &p);
  CHECK(s && strstr(tt_status_message(s), "rank 0 is the source of pairs 0 and 1"));
  tt_status_free(s);
  const int bad_rank[2] = {0, 4};
  CHECK_ERR(tt_dist_pairs_make(4, 1, bad_rank, &p), TT_VALUE_ERROR);
  make_groups(8, 2, 4, seeds, &g);
  const int ring[8] = {0, 1, 1, 2, 2, 3, 3, 0};
  if (CHECK_OK(tt_dist_pairs_in_groups(&g, 4, ring, &p))) {
    CHECK(p.num_pairs == 8 && p.pairs[0] == 4 && p.pairs[1] == 0 && p.pairs[8] == 5 &&
          p.pairs[9] == 2);
  }
  tt_dist_pairs_free(&p);
  tt_dist_groups_free(&g);
}

/* Allocation failures inside the split code give OUT_OF_MEMORY, no leak. */
static void test_groups_alloc_failures(void) {
  const int seeds[4] = {4, 0, 1, 3};
  int four = 4;
  for (long k = 0; k < 4; k++) {
    tt_dist_groups_t g;
    tt_alloc_fail_after(k);
    tt_status_t s = tt_dist_groups_resolve(8, 1, &four, seeds, &g);
    tt_alloc_fail_after(-1);
    CHECK(s == NULL || tt_status_code(s) == TT_OUT_OF_MEMORY);
    tt_status_free(s);
    tt_dist_groups_free(&g);
  }
}

/* ------------------------------------------------------------ collectives */

static const tt_dtype_t kDtypes[] = {TT_F32, TT_F64, TT_I32, TT_I64, TT_U8, TT_BOOL};
#define NUM_DTYPES (sizeof kDtypes / sizeof kDtypes[0])

static int op_allowed(tt_dist_op_t op, tt_dtype_t dt) {
  if (dt == TT_BOOL) return op != TT_DIST_AVG && op != TT_DIST_PREMUL_SUM;
  int bitwise = op == TT_DIST_BAND || op == TT_DIST_BOR || op == TT_DIST_BXOR;
  if (bitwise) return dt != TT_F32 && dt != TT_F64;
  if (op == TT_DIST_AVG) return dt == TT_F32 || dt == TT_F64;
  return 1;
}

/* Every ReduceOp with every dtype, all_reduce and reduce_scatter, over the
 * seeds' split of 8: the allowed pairs match the host, the others are refused. */
static void test_reductions(const tt_dist_groups_t *g) {
  for (int kind = TT_DIST_ALL_REDUCE; kind <= TT_DIST_REDUCE_SCATTER; kind += 2) {
    for (int op = 0; op < TT_DIST_OP_COUNT; op++) {
      for (size_t d = 0; d < NUM_DTYPES; d++) {
        tt_dist_collective_t c = {.kind = (tt_dist_kind_t)kind, .op = (tt_dist_op_t)op,
                                  .dtype = kDtypes[d], .rank = 2, .dims = {8, 3}, .dim = 0,
                                  .groups = g};
        char label[128];
        snprintf(label, sizeof label, "%s %s %s over %dx%d", tt_dist_kind_name(c.kind),
                 tt_dist_op_name(c.op), tt_dtype_name(c.dtype), g->num_groups, g->group_size);
        if (op_allowed(c.op, c.dtype)) {
          run_case(&c, label);
        } else {
          int64_t rd[TT_DIST_MAX_RANK];
          int rr;
          tt_status_t s = tt_dist_collective_check(&c, rd, &rr);
          CHECK(s && tt_status_code(s) == TT_VALUE_ERROR &&
                strstr(tt_status_message(s), tt_dist_op_name(c.op)));
          tt_status_free(s);
        }
      }
    }
  }
}

/* A few ReduceOps over the whole world (the seeds' split covers them all). */
static void test_world_reductions(const tt_dist_groups_t *g) {
  const tt_dist_op_t ops[3] = {TT_DIST_SUM, TT_DIST_MAX, TT_DIST_BXOR};
  for (int kind = TT_DIST_ALL_REDUCE; kind <= TT_DIST_REDUCE_SCATTER; kind += 2)
    for (int i = 0; i < 3; i++) {
      tt_dist_collective_t c = {.kind = (tt_dist_kind_t)kind, .op = ops[i], .dtype = TT_I32,
                                .rank = 2, .dims = {4, 3}, .groups = g};
      char label[96];
      snprintf(label, sizeof label, "%s %s int32 over the world of %d", tt_dist_kind_name(c.kind),
               tt_dist_op_name(c.op), g->world);
      run_case(&c, label);
    }
}

/* The data-movement collectives over a split, in a few shapes and dims. */
static void test_movement(const tt_dist_groups_t *g, tt_dtype_t dt) {
  char label[160];
  int s = g->group_size;
  for (int dim = 0; dim < 3; dim++) {
    tt_dist_collective_t c = {.kind = TT_DIST_ALL_GATHER, .dtype = dt, .rank = 3,
                              .dims = {2, 3, 2}, .dim = dim, .groups = g};
    snprintf(label, sizeof label, "all_gather dim %d %s over %dx%d", dim, tt_dtype_name(dt),
             g->num_groups, s);
    run_case(&c, label);
  }
  for (int split = 0; split < 2; split++)
    for (int concat = 0; concat < 2; concat++) {
      if (split == 0 && concat == 0) continue; /* split == concat: (1, 1) covers it */
      tt_dist_collective_t c = {.kind = TT_DIST_ALL_TO_ALL, .dtype = dt, .rank = 2,
                                .dims = {2 * s, s}, .dim = split, .concat_dim = concat,
                                .groups = g};
      snprintf(label, sizeof label, "all_to_all split %d concat %d %s over %dx%d", split, concat,
               tt_dtype_name(dt), g->num_groups, s);
      run_case(&c, label);
    }
  for (int root = 0; root < s; root += s > 2 ? s - 1 : 1) { /* first and last positions */
    tt_dist_collective_t c = {.kind = TT_DIST_BROADCAST, .dtype = dt, .rank = 2, .dims = {2, 3},
                              .root = root, .groups = g};
    snprintf(label, sizeof label, "broadcast root %d %s over %dx%d", root,
             tt_dtype_name(dt), g->num_groups, s);
    run_case(&c, label);
  }
  tt_dist_collective_t rs = {.kind = TT_DIST_REDUCE_SCATTER, .op = TT_DIST_SUM, .dtype = dt,
                             .rank = 2, .dims = {3, 2 * s}, .dim = 1, .groups = g};
  snprintf(label, sizeof label, "reduce_scatter dim 1 %s over %dx%d", tt_dtype_name(dt),
           g->num_groups, s);
  run_case(&rs, label);
  /* A ring inside every group, and a ring that skips a rank (it receives zeros). */
  int ring[2 * MAX_WORLD];
  for (int i = 0; i < s; i++) ring[2 * i] = i, ring[2 * i + 1] = (i + 1) % s;
  tt_dist_pairs_t p;
  if (CHECK_OK(tt_dist_pairs_in_groups(g, s, ring, &p))) {
    tt_dist_collective_t c = {.kind = TT_DIST_PERMUTE, .dtype = dt, .rank = 1, .dims = {5},
                              .pairs = &p};
    snprintf(label, sizeof label, "collective_permute ring %s over %dx%d", tt_dtype_name(dt),
             g->num_groups, s);
    run_case(&c, label);
  }
  tt_dist_pairs_free(&p);
  const int send_recv[2] = {g->ranks[0], g->ranks[g->group_size * g->num_groups - 1]};
  if (CHECK_OK(tt_dist_pairs_make(g->world, 1, send_recv, &p))) {
    tt_dist_collective_t c = {.kind = TT_DIST_PERMUTE, .dtype = dt, .rank = 2, .dims = {2, 2},
                              .pairs = &p};
    snprintf(label, sizeof label, "send %d -> recv %d %s", send_recv[0], send_recv[1],
             tt_dtype_name(dt));
    run_case(&c, label);
  }
  tt_dist_pairs_free(&p);
}

/* The three channel modes name the same processes with one partition. */
static void test_channels(const tt_dist_groups_t *g) {
  for (int ch = 0; ch < 3; ch++) {
    for (int kind = TT_DIST_ALL_REDUCE; kind <= TT_DIST_REDUCE_SCATTER; kind++) {
      tt_dist_collective_t c = {.kind = (tt_dist_kind_t)kind, .op = TT_DIST_MAX, .dtype = TT_F32,
                                .rank = 1, .dims = {8}, .groups = g,
                                .channel = (tt_dist_channel_t)ch};
      char label[128];
      snprintf(label, sizeof label, "%s channel mode %d", tt_dist_kind_name(c.kind), ch);
      run_case(&c, label);
    }
  }
}

static void test_emit_errors(const tt_dist_groups_t *g) {
  int64_t rd[TT_DIST_MAX_RANK];
  int rr;
  tt_dist_collective_t c = {.kind = TT_DIST_REDUCE_SCATTER, .op = TT_DIST_SUM, .dtype = TT_F32,
                            .rank = 2, .dims = {3, 5}, .dim = 1, .groups = g};
  tt_status_t s = tt_dist_collective_check(&c, rd, &rr);
  CHECK(s && strstr(tt_status_message(s), "must divide evenly among the 4 ranks"));
  tt_status_free(s);
  c.dim = 2;
  CHECK_ERR(tt_dist_collective_check(&c, rd, &rr), TT_INDEX_ERROR);
  c.kind = TT_DIST_ALL_GATHER;
  c.rank = 0;
  c.dim = 0;
  CHECK_ERR(tt_dist_collective_check(&c, rd, &rr), TT_INDEX_ERROR);
  c.kind = TT_DIST_ALL_REDUCE;
  c.groups = NULL;
  CHECK_ERR(tt_dist_collective_check(&c, rd, &rr), TT_INVALID_ARGUMENT);
  /* A program for 8 ranks refuses a client with fewer devices. */
  tt_pjrt_runtime_t *small = NULL;
  tt_pjrt_options_t opts = {.cpu_device_count = 2};
  if (CHECK_OK(tt_pjrt_runtime_create(g_plugin, &opts, &small))) {
    tt_dist_collective_t ar = {.kind = TT_DIST_ALL_REDUCE, .dtype = TT_F32, .rank = 1,
                               .dims = {2}, .groups = g};
    float x[2] = {0}, y[2];
    const void *in[1] = {x};
    void *out[1] = {y};
    s = tt_collective_run_local(small, &ar, in, NULL, out, sizeof y);
    CHECK(s && strstr(tt_status_message(s), "needs 8 devices; the client has 2"));
    tt_status_free(s);
    tt_pjrt_runtime_destroy(small);
  }
}

/* Every host allocation of the run failing in turn gives OUT_OF_MEMORY (the
 * plugin's own allocations do not go through tt_malloc), never a crash or leak. */
static void test_run_alloc_failures(const tt_dist_groups_t *g) {
  tt_dist_collective_t c = {.kind = TT_DIST_ALL_REDUCE, .op = TT_DIST_AVG, .dtype = TT_F32,
                            .rank = 1, .dims = {2}, .groups = g};
  float x[MAX_WORLD][2] = {{0}}, y[MAX_WORLD][2];
  const void *in[MAX_WORLD];
  void *out[MAX_WORLD];
  for (int r = 0; r < MAX_WORLD; r++) in[r] = x[r], out[r] = y[r];
  int done = 0;
  for (long k = 0; k < 32 && !done; k++) {
    tt_alloc_fail_after(k);
    tt_status_t s = tt_collective_run_local(g_rt, &c, in, NULL, out, sizeof y[0]);
    tt_alloc_fail_after(-1);
    CHECK(s == NULL || tt_status_code(s) == TT_OUT_OF_MEMORY);
    done = s == NULL;
    tt_status_free(s);
  }
  CHECK(done);
}

/* Replica r of a 4-replica program runs on one device each, all distinct. */
static void test_replica_devices(const tt_dist_groups_t *g) {
  tt_dist_collective_t c = {.kind = TT_DIST_ALL_REDUCE, .dtype = TT_F32, .rank = 1, .dims = {2},
                            .groups = g};
  tt_strbuf_t sb;
  tt_strbuf_init(&sb);
  tt_pjrt_executable_t *exe = NULL;
  if (CHECK_OK(tt_dist_collective_emit(&c, &sb)) &&
      CHECK_OK(tt_pjrt_compile(g_rt, sb.data, sb.len, 4, "all_reduce", &exe))) {
    int dev[4];
    if (CHECK_OK(tt_pjrt_executable_replica_devices(g_rt, exe, dev, 4))) {
      printf("replicas 0..3 run on devices %d %d %d %d\n", dev[0], dev[1], dev[2], dev[3]);
      for (int i = 0; i < 4; i++) {
        CHECK(dev[i] >= 0 && dev[i] < MAX_WORLD);
        for (int j = 0; j < i; j++) CHECK(dev[i] != dev[j]);
      }
    }
    CHECK_ERR(tt_pjrt_executable_replica_devices(g_rt, exe, dev, 2), TT_INTERNAL);
  }
  tt_pjrt_executable_destroy(g_rt, exe);
  tt_strbuf_free(&sb);
}

/* broadcast keeps the root's bits: signed zeros, NaN, infinities. */
static void test_broadcast_bits(const tt_dist_groups_t *g) {
  tt_dist_collective_t c = {.kind = TT_DIST_BROADCAST, .dtype = TT_F32, .rank = 1, .dims = {4},
                            .root = 2, .groups = g};
  float x[MAX_WORLD][4], y[MAX_WORLD][4];
  const void *in[MAX_WORLD];
  void *out[MAX_WORLD];
  for (int r = 0; r < MAX_WORLD; r++) {
    x[r][0] = -0.0f, x[r][1] = NAN, x[r][2] = -INFINITY, x[r][3] = (float)r;
    in[r] = x[r];
    out[r] = y[r];
  }
  if (!CHECK_OK(tt_collective_run_local(g_rt, &c, in, NULL, out, sizeof y[0]))) return;
  for (int r = 0; r < g->world; r++) {
    int pos, gi = tt_dist_groups_find(g, r, &pos);
    int root = g->ranks[gi * g->group_size + 2];
    CHECK(y[r][0] == 0.0f && signbit(y[r][0]));
    CHECK(isnan(y[r][1]));
    CHECK(y[r][2] == -INFINITY);
    CHECK(y[r][3] == (float)root);
  }
}

/* Zero-element operands: an empty result and no collective in the program. */
static void test_empty(const tt_dist_groups_t *g) {
  tt_dist_collective_t gather = {.kind = TT_DIST_ALL_GATHER, .dtype = TT_F32, .rank = 2,
                                 .dims = {0, 2}, .groups = g};
  run_case(&gather, "all_gather of a 0x2 tensor");
  tt_dist_collective_t reduce = {.kind = TT_DIST_ALL_REDUCE, .op = TT_DIST_BXOR, .dtype = TT_I32,
                                 .rank = 1, .dims = {0}, .groups = g};
  run_case(&reduce, "all_reduce BXOR of an empty tensor");
}

/* The self-test entry makes and drops a client of its own each call. */
static void test_selftest_entry(void) {
  tt_dist_groups_t g;
  if (!CHECK_OK(tt_dist_groups_world(4, &g))) return;
  tt_dist_collective_t c = {.kind = TT_DIST_ALL_REDUCE, .op = TT_DIST_SUM, .dtype = TT_I32,
                            .rank = 1, .dims = {3}, .groups = &g};
  int32_t x[4][3], y[4][3];
  const void *in[4];
  void *out[4];
  for (int r = 0; r < 4; r++) {
    for (int i = 0; i < 3; i++) x[r][i] = r * 10 + i;
    in[r] = x[r];
    out[r] = y[r];
  }
  if (CHECK_OK(tt_collective_selftest(g_plugin, &c, in, NULL, out, sizeof y[0])))
    for (int r = 0; r < 4; r++)
      for (int i = 0; i < 3; i++) CHECK(y[r][i] == 60 + 4 * i);
  tt_dist_groups_free(&g);
}

int main(void) {
  g_plugin = getenv("TORCH_TPU_PJRT_PLUGIN");
  if (!g_plugin || !*g_plugin) {
    fprintf(stderr, "TORCH_TPU_PJRT_PLUGIN must name a PJRT plugin\n");
    return 2;
  }
  test_groups_resolve();
  test_groups_alloc_failures();

  tt_pjrt_options_t opts = {.cpu_device_count = MAX_WORLD};
  if (!CHECK_OK(tt_pjrt_runtime_create(g_plugin, &opts, &g_rt))) return check_summary();
  CHECK(tt_pjrt_runtime_info(g_rt)->num_devices == MAX_WORLD);

  const int seeds[8] = {4, 0, 1, 3, 5, 2, 6, 7};
  const int pairs4[2] = {3, 0};    /* world 4: (3, 0) named, (1, 2) completed */
  const int halves8[4] = {0, 2, 4, 6};
  tt_dist_groups_t world4, world8, seeds8, pairs_of4, halves;
  CHECK_OK(tt_dist_groups_world(4, &world4));
  CHECK_OK(tt_dist_groups_world(8, &world8));
  make_groups(8, 2, 4, seeds, &seeds8);
  make_groups(4, 1, 2, pairs4, &pairs_of4);
  make_groups(8, 1, 4, halves8, &halves);

  test_reductions(&seeds8);
  test_world_reductions(&world4);
  const tt_dist_groups_t *splits[] = {&world4, &world8, &seeds8, &pairs_of4, &halves};
  for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) test_movement(splits[i], TT_F32);
  test_movement(&seeds8, TT_I64);
  test_movement(&pairs_of4, TT_I64);
  test_movement(&seeds8, TT_BOOL);
  test_movement(&pairs_of4, TT_U8);
  test_channels(&seeds8);
  test_emit_errors(&seeds8);
  test_run_alloc_failures(&world4);
  test_empty(&seeds8);
  test_broadcast_bits(&seeds8);
  test_replica_devices(&world4);
  test_selftest_entry();

  tt_dist_groups_free(&world4);
  tt_dist_groups_free(&world8);
  tt_dist_groups_free(&seeds8);
  tt_dist_groups_free(&pairs_of4);
  tt_dist_groups_free(&halves);
  tt_pjrt_runtime_destroy(g_rt);
  printf("%d collective programs run on the devices\n", g_cases);
  return check_summary();
}
