/* Tests of the core without Python: op calls through the registry, view
 * decomposition and inversion, errors. TORCH_TPU_PJRT_PLUGIN names the plugin. */
#include <math.h>
#include <string.h>

#include "api/call.h"
#include "test_engine.h"
#include "base/nbytes.h"
#include "check.h"
#include "ops/autocast_policy.h"
#include "ops/out_write.h"
#include "ir/builder.h"
#include "refs.h"
#include "ops/registry.h"

static void test_add(void) {
  float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30}, out[6];
  tt_storage_t *sa = host_f32(a, 6), *sb = host_f32(b, 3);
  int64_t sz[2] = {2, 3}, st[2] = {3, 1}, sz1[1] = {3}, st1[1] = {1};
  tt_tensor_ref_t ra = ref_of(sa, 2, sz, st, 0), rb = ref_of(sb, 1, sz1, st1, 0);
  tt_arg_t args[2] = {tensor_arg(&ra), tensor_arg(&rb)};
  tt_call_result_t r;
  if (CHECK_OK(tt_call(E, tt_ops_find("add.Tensor"), args, 2, &r))) {
    CHECK(r.n == 1 && r.outs[0].rank == 2 && r.outs[0].dtype == TT_F32);
    tt_tensor_ref_t ro = ref_of(r.outs[0].storage, 2, sz, st, 0);
    if (CHECK_OK(tt_tensor_to_host(E, &ro, TT_F32, out, sizeof out)))
      for (int i = 0; i < 6; i++) CHECK(out[i] == a[i] + b[i % 3]);
    tt_call_result_clear(&r);
  }
  /* Broadcast mismatch: PyTorch's RuntimeError. */
  int64_t sz4[1] = {4};
  float c[4] = {0};
  tt_storage_t *sc = host_f32(c, 4);
  tt_tensor_ref_t rc = ref_of(sc, 1, sz4, st1, 0);
  tt_arg_t bad[2] = {tensor_arg(&rb), tensor_arg(&rc)};
  CHECK_ERR(tt_call(E, tt_ops_find("add.Tensor"), bad, 2, &r), TT_INVALID_ARGUMENT);
  tt_storage_release(sa);
  tt_storage_release(sb);
  tt_storage_release(sc);
}

/* Reads views of a 0..23 base through every decomposition path. */
static void test_view_reads(void) {
  float base[24], out[24];
  for (int i = 0; i < 24; i++) base[i] = (float)i;
  tt_storage_t *s = host_f32(base, 24);
  struct {
    int rank;
    int64_t sizes[3], strides[3], offset;
  } cases[] = {
      {2, {4, 6}, {6, 1}, 0},   /* whole */
      {2, {6, 4}, {1, 6}, 0},   /* transpose */
      {2, {4, 3}, {6, 1}, 2},   /* column block (narrow) */
      {2, {2, 3}, {12, 2}, 1},  /* strided rows and columns */
      {1, {5}, {5, 0}, 3},      /* diagonal-like stride */
      {2, {3, 4}, {0, 1}, 4},   /* expand (stride 0) */
      {2, {3, 3}, {5, 3}, 0},   /* non-block: gather path */
      {0, {0}, {0}, 7},         /* scalar */
      {3, {2, 2, 2}, {1, 12, 6}, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    tt_tensor_ref_t r = ref_of(s, cases[c].rank, cases[c].sizes, cases[c].strides, cases[c].offset);
    int64_t n = tt_view_numel(&r.view);
    if (!CHECK_OK(tt_tensor_to_host(E, &r, TT_F32, out, (size_t)n * 4))) continue;
    for (int64_t k = 0; k < n; k++) {
      int64_t rem = k, idx = cases[c].offset;
      for (int d = cases[c].rank - 1; d >= 0; d--) {
        idx += (rem % cases[c].sizes[d]) * cases[c].strides[d];
        rem /= cases[c].sizes[d];
      }
      if (out[k] != base[idx]) {
        fprintf(stderr, "view case %zu element %lld: got %g want %g\n", c, (long long)k, out[k], base[idx]);
        CHECK(0);
        break;
      }
    }
    CHECK(1);
  }
  tt_storage_release(s);
}

/* fill_ through views writes into the base; aliases see it. */
static void test_view_writes(void) {
  struct {
    int rank;
    int64_t sizes[2], strides[2], offset;
  } cases[] = {
      {2, {4, 2}, {6, 1}, 1},   /* columns 1-2 */
      {2, {3, 4}, {1, 6}, 0},   /* transposed block */
      {1, {4}, {7, 0}, 0},      /* diagonal */
      {2, {2, 2}, {5, 3}, 2},   /* non-block: scatter path */
      {1, {24}, {1, 0}, 0},     /* whole */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    float base[24], out[24], expect[24];
    for (int i = 0; i < 24; i++) base[i] = expect[i] = (float)i;
    tt_storage_t *s = host_f32(base, 24);
    tt_tensor_ref_t r = ref_of(s, cases[c].rank, cases[c].sizes, cases[c].strides, cases[c].offset);
    tt_arg_t args[2];
    args[0] = tensor_arg(&r);
    memset(&args[1], 0, sizeof args[1]);
    args[1].kind = TT_ARG_FLOAT;
    args[1].f = -1.0;
    tt_call_result_t res;
    if (CHECK_OK(tt_call(E, tt_ops_find("fill_.Scalar"), args, 2, &res))) {
      CHECK(res.returns_arg == 0 && res.n == 0);
      int64_t n = tt_view_numel(&r.view);
      for (int64_t k = 0; k < n; k++) {
        int64_t rem = k, idx = cases[c].offset;
        for (int d = cases[c].rank - 1; d >= 0; d--) {
          idx += (rem % cases[c].sizes[d]) * cases[c].strides[d];
          rem /= cases[c].sizes[d];
        }
        expect[idx] = -1.0f;
      }
      int64_t whole_sz[1] = {24}, whole_st[1] = {1};
      tt_tensor_ref_t w = ref_of(s, 1, whole_sz, whole_st, 0);
      if (CHECK_OK(tt_tensor_to_host(E, &w, TT_F32, out, sizeof out)))
        CHECK(memcmp(out, expect, sizeof out) == 0);
    }
    tt_storage_release(s);
  }
}

static void test_errors(void) {
  float v[4] = {0};
  tt_storage_t *s = host_f32(v, 4);
  int64_t sz[2] = {2, 2}, st[2] = {0, 1};
  tt_tensor_ref_t r = ref_of(s, 2, sz, st, 0); /* expanded: overlapping */
  tt_arg_t args[2];
  args[0] = tensor_arg(&r);
  memset(&args[1], 0, sizeof args[1]);
  args[1].kind = TT_ARG_FLOAT;
  args[1].f = 2.0;
  tt_call_result_t res;
  /* A value-dependent write through the overlapping view is refused... */
  CHECK_ERR(tt_call(E, tt_ops_find("exp_"), args, 1, &res), TT_INVALID_ARGUMENT);
  /* ...but one value everywhere is fine, as on CPU. */
  if (CHECK_OK(tt_call(E, tt_ops_find("fill_.Scalar"), args, 2, &res))) {
    float out[4];
    int64_t wsz[1] = {4}, wst[1] = {1};
    tt_tensor_ref_t w = ref_of(s, 1, wsz, wst, 0);
    if (CHECK_OK(tt_tensor_to_host(E, &w, TT_F32, out, sizeof out)))
      CHECK(out[0] == 2.0f && out[1] == 2.0f && out[2] == 0.0f && out[3] == 0.0f);
  }
  CHECK_ERR(tt_call(E, -5, args, 2, &res), TT_INTERNAL);
  /* Wrong argument kind: a number where a tensor is required. */
  tt_arg_t nums[2];
  memset(nums, 0, sizeof nums);
  nums[0].kind = TT_ARG_INT;
  nums[1].kind = TT_ARG_INT;
  CHECK_ERR(tt_call(E, tt_ops_find("clone"), nums, 1, &res), TT_TYPE_ERROR);
  tt_storage_release(s);
}

/* A failed builder value has no type: tt_graph_type gives an empty type
 * (rank 0, no dtype) for -1 and for any id past the last node, never a
 * pointer outside the node array. */
static void test_failed_value_has_no_type(void) {
  tt_graph_t *g = NULL;
  if (!CHECK_OK(tt_graph_create(&g))) return;
  int64_t three = 3, four = 4;
  tt_val_t a = tt_b_full_f(g, TT_F32, 1, &three, 1.0), b = tt_b_full_f(g, TT_F32, 1, &four, 2.0);
  CHECK(tt_graph_type(g, a) != NULL && tt_graph_type(g, a)->dims[0] == 3);
  tt_val_t bad = tt_b_binary(g, TT_BIN_ADD, a, b); /* shapes [3] and [4]: a graph error */
  CHECK(bad < 0 && tt_graph_failed(g));
  const tt_type_t *none = tt_graph_type(g, bad);
  CHECK(none != NULL && none->rank == 0 && none->dtype == TT_DTYPE_INVALID);
  CHECK(tt_graph_type(g, -1) == none);
  CHECK(tt_graph_type(g, tt_graph_num_nodes(g)) == none);
  CHECK(tt_b_unary(g, TT_UN_NEG, bad) < 0); /* later builds stay failed, no crash */
  tt_status_t st = tt_graph_take_error(g);
  CHECK(st != NULL);
  tt_status_free(st);
  tt_graph_destroy(g);
}

/* PyTorch's storage size rules: overflow of the byte count is an error with
 * CPU's message; a value whose shape overflows never enters a graph. */
static void test_size_overflow(void) {
  int64_t n = 0, big[1] = {(int64_t)1 << 62}, two[2] = {(int64_t)1 << 31, (int64_t)1 << 31};
  int64_t after[3] = {(int64_t)1 << 40, (int64_t)1 << 40, 0}, before[3] = {0, (int64_t)1 << 40, (int64_t)1 << 40};
  tt_status_t s = tt_nbytes_contiguous(big, 1, 0, 4, &n);
  CHECK(s && strcmp(tt_status_message(s), "Storage size calculation overflowed with sizes=[4611686018427387904]") == 0);
  tt_status_free(s);
  CHECK_OK(tt_nbytes_contiguous(big, 1, 0, 1, &n));
  CHECK(n == (int64_t)1 << 62);
  CHECK(tt_nbytes_overflows(two, 2, 4) && !tt_nbytes_overflows(two, 2, 1));
  CHECK(tt_nbytes_overflows(after, 3, 1)); /* sticky, as c10::safe_multiplies_u64 */
  CHECK_OK(tt_nbytes_contiguous(before, 3, 0, 4, &n));
  CHECK(n == 0);
  int64_t sz[2] = {2, 2}, st[2] = {(int64_t)1 << 62, 1}, neg[2] = {-1, 1}, ok[2] = {1, 2};
  CHECK_ERR(tt_nbytes_strided(sz, st, 2, 0, 4, &n), TT_INVALID_ARGUMENT);
  CHECK_ERR(tt_nbytes_strided(sz, neg, 2, 0, 4, &n), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_nbytes_strided(sz, ok, 2, 3, 4, &n));
  CHECK(n == (3 + 1 + 2 + 1) * 4);
  tt_graph_t *g = NULL;
  if (!CHECK_OK(tt_graph_create(&g))) return;
  CHECK(tt_b_full_f(g, TT_F32, 1, big, 1.0) < 0 && tt_graph_failed(g));
  s = tt_graph_take_error(g);
  CHECK(s && strstr(tt_status_message(s), "Storage size calculation overflowed with sizes=[4611686018427387904]"));
  tt_status_free(s);
  tt_graph_destroy(g);
}

static void test_cache_reuse(void) {
  tt_engine_t *c = E;
  float v[5] = {1, 2, 3, 4, 5};
  tt_storage_t *s = host_f32(v, 5);
  int64_t sz[1] = {5}, st[1] = {1};
  tt_tensor_ref_t r = ref_of(s, 1, sz, st, 0);
  tt_arg_t args[2];
  args[0] = tensor_arg(&r);
  memset(&args[1], 0, sizeof args[1]);
  args[1].kind = TT_ARG_FLOAT;
  uint64_t misses0 = c->stats.misses;
  for (int i = 0; i < 4; i++) {
    args[1].f = 0.5 * i; /* scalars are runtime arguments: no recompile */
    tt_call_result_t res;
    if (CHECK_OK(tt_call(E, tt_ops_find("mul.Scalar"), args, 2, &res))) tt_call_result_clear(&res);
  }
  CHECK(c->stats.misses - misses0 <= 1);
  tt_storage_release(s);
}

/* Host data into a whole storage (its buffer taken, no device copy) and into
 * a strided view (copied on device, converting from float64). */
static void test_from_host(void) {
  float zeros[6] = {0}, out[6];
  tt_storage_t *s = host_f32(zeros, 6);
  tt_pjrt_buffer_t *before = s->buf;
  float whole[6] = {1, 2, 3, 4, 5, 6};
  tt_tensor_ref_t all = vec(s, 6);
  CHECK_OK(tt_tensor_from_host(E, &all, whole, TT_F32, 6));
  CHECK(s->buf != before); /* the uploaded buffer became the storage's */
  if (CHECK_OK(tt_tensor_to_host(E, &all, TT_F32, out, sizeof out)))
    for (int i = 0; i < 6; i++) CHECK(out[i] == whole[i]);
  /* column 1 of the 2x3 matrix: a strided view, values given as float64 */
  int64_t sz[1] = {2}, st[1] = {3};
  tt_tensor_ref_t col = ref_of(s, 1, sz, st, 1);
  double col_values[2] = {-7.5, 9.25};
  CHECK_OK(tt_tensor_from_host(E, &col, col_values, TT_F64, 2));
  if (CHECK_OK(tt_tensor_to_host(E, &all, TT_F32, out, sizeof out))) {
    float want[6] = {1, -7.5f, 3, 4, 9.25f, 6};
    for (int i = 0; i < 6; i++) CHECK(out[i] == want[i]);
  }
  tt_storage_release(s);
}

/* The registry: every row named, lowered and found again by its name (the
 * binary search agrees with the table), flags only of the known kinds, an
 * in-place flag only on a trailing-underscore name; each size companion
 * has an id after the rows, is named as its op and found from its row. */
static void test_registry(void) {
  int n = tt_ops_count(), named = tt_ops_named_count(), bad = 0, companions = 0, complex_rows = 0, unordered = 0;
  CHECK(named > 400 && n > named);
  for (int id = 0; id < named; id++) {
    const tt_op_def_t *d = tt_ops_get(id);
    if (!d || !d->name || !d->name[0] || !d->fn || tt_ops_find(d->name) != id ||
        (d->flags & ~(TT_OPF_INPLACE | TT_OPF_UNIFORM_WRITE | TT_OPF_COMPLEX | TT_OPF_INDEX_MASKS | TT_OPF_UNORDERED |
                      TT_OPF_UNORDERED_CHECK)) ||
        (d->complex && (d->flags & TT_OPF_COMPLEX)) ||
        ((d->flags & TT_OPF_UNORDERED) && (d->flags & TT_OPF_UNORDERED_CHECK)) ||
        ((d->flags & (TT_OPF_UNORDERED | TT_OPF_UNORDERED_CHECK)) && (d->complex || (d->flags & TT_OPF_COMPLEX)))) {
      bad++;
      continue;
    }
    if (d->complex || (d->flags & TT_OPF_COMPLEX)) complex_rows++;
    if (d->flags & (TT_OPF_UNORDERED | TT_OPF_UNORDERED_CHECK)) unordered++;
    if (d->flags & TT_OPF_INPLACE) {
      const char *dot = strchr(d->name, '.');
      size_t len = dot ? (size_t)(dot - d->name) : strlen(d->name);
      if (len < 2 || d->name[len - 1] != '_') bad++;
    }
    int c = tt_ops_size_companion(id);
    if ((c >= 0) != (d->size != NULL)) bad++;
    if (c >= 0) {
      const tt_op_def_t *cd = tt_ops_get(c);
      companions++;
      if (c < named || !cd || cd->fn != d->size || strcmp(cd->name, d->name) || tt_ops_size_companion(c) != -1) bad++;
    }
  }
  CHECK(bad == 0);
  CHECK(companions == n - named && companions >= 10);
  CHECK(complex_rows > 100);
  CHECK(unordered > 60);
  CHECK((tt_ops_get(tt_ops_find("lt.Tensor"))->flags & TT_OPF_UNORDERED) &&
        (tt_ops_get(tt_ops_find("sort.stable"))->flags & TT_OPF_UNORDERED_CHECK));
  CHECK(tt_ops_size_companion(tt_ops_find("bincount")) >= named && tt_ops_size_companion(tt_ops_find("add.Tensor")) == -1);
  CHECK(tt_ops_get(tt_ops_find("add.Tensor"))->complex != NULL);
  CHECK(tt_ops_get(tt_ops_find("clone"))->flags & TT_OPF_COMPLEX);
  CHECK((tt_ops_get(tt_ops_find("index_put"))->flags & TT_OPF_INDEX_MASKS) &&
        !(tt_ops_get(tt_ops_find("index_select"))->flags & TT_OPF_INDEX_MASKS));
  CHECK(tt_ops_get(n) == NULL && tt_ops_get(-1) == NULL);
  CHECK(tt_ops_find("no_such_op.Tensor") == -1 && tt_ops_find("") == -1 && tt_ops_find("zzzz") == -1);
  CHECK(tt_ops_find("add.Tensor") >= 0 && tt_ops_find("add") != tt_ops_find("add.Tensor"));
}

/* The autocast policy table: names unique and non-empty, every class known. */
static void test_autocast_policy(void) {
  int n = tt_autocast_count(), bad = 0;
  CHECK(n > 100 && tt_autocast_row(n) == NULL && tt_autocast_row(-1) == NULL);
  for (int i = 0; i < n; i++) {
    const tt_autocast_row_t *r = tt_autocast_row(i);
    if (!r->name || !r->name[0] || tt_autocast_class_name(r->cls)[0] == '?') bad++;
    for (int j = 0; j < i; j++)
      if (!strcmp(tt_autocast_row(j)->name, r->name)) bad++;
  }
  CHECK(bad == 0);
}

/* out= writes (ops/out_write.h): resize_output's rule and warning, the overlap refusal. */
static void test_out_write(void) {
  int64_t two[1] = {2}, three[1] = {3}, none[1] = {0}, m23[2] = {2, 3};
  char warn[512] = "";
  CHECK(tt_op_out_resize(three, 1, three, 1, warn, sizeof warn) == TT_OUT_KEEP && warn[0] == 0);
  CHECK(tt_op_out_resize(none, 1, m23, 2, warn, sizeof warn) == TT_OUT_RESIZE && warn[0] == 0);
  CHECK(tt_op_out_resize(two, 1, m23, 2, NULL, 0) == TT_OUT_RESIZE_WARN);
  CHECK(tt_op_out_resize(two, 1, NULL, 0, warn, sizeof warn) == TT_OUT_RESIZE_WARN &&
        strstr(warn, "since it had shape [2], which does not match the required output shape []. ") != NULL);
  CHECK(tt_op_out_resize(m23, 2, three, 1, warn, sizeof warn) == TT_OUT_RESIZE_WARN &&
        strstr(warn, "shape [2, 3], which does not match the required output shape [3]") != NULL);
  tt_storage_t *fake = (tt_storage_t *)&warn; /* only compared, never read */
  tt_tensor_ref_t a = {.storage = fake, .dtype = TT_F32, .view = {.rank = 1, .sizes = {4}, .strides = {1}}};
  tt_tensor_ref_t b = a, c = a, host = {.dtype = TT_F32, .is_host_scalar = 1};
  b.view.offset = 2; /* [2, 6) against [0, 4): partial */
  c.view.offset = 4; /* [4, 8): disjoint */
  tt_status_t s = tt_op_out_overlap(&a, &b);
  CHECK(s && strstr(tt_status_message(s), "refer to a single memory location") != NULL);
  tt_status_free(s);
  CHECK(tt_op_out_overlap(&a, &a) == NULL && tt_op_out_overlap(&a, &c) == NULL && tt_op_out_overlap(&a, &host) == NULL);
}

int main(void) {
  test_registry();
  test_out_write();
  test_autocast_policy();
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  test_from_host();
  test_add();
  test_view_reads();
  test_view_writes();
  test_errors();
  test_failed_value_has_no_type();
  test_size_overflow();
  test_cache_reuse();
  tt_shutdown(E);
  return check_summary();
}
