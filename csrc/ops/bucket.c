/* Lowering at a bucket's shape (ops/bucket.h): which ops may, how their
 * padded inputs are found and widened, and where their result's padding lies. */
#include "ops/bucket.h"

#include <stdio.h>
#include <string.h>

#include "ops/common.h"
#include "ops/result_layout.h"

static int64_t pow2_above(int64_t len) {
  int64_t c = 1;
  while (c <= len) c *= 2;
  return c;
}

int64_t tt_bucket_capacity(int64_t len, int64_t row, int64_t min_len) {
  int64_t c = pow2_above(len);
  while (c < min_len && row > 0 && c * 2 * row <= TT_BUCKET_SMALL_ELEMS) c *= 2;
  return c;
}

/* Whether cap is a capacity tt_bucket_capacity gives len under some least
 * capacity up to min_len (a tensor made under another setting, or whose
 * row grew by broadcasting, still reads as padded). */
static int is_capacity(int64_t cap, int64_t len, int64_t row, int64_t min_len) {
  int64_t c = pow2_above(len);
  if (cap == c) return 1;
  if (cap < c || cap > min_len || cap * row > TT_BUCKET_SMALL_ELEMS) return 0;
  while (c < cap) c *= 2;
  return c == cap;
}

typedef enum rule_e { R_NONE, R_ELEM, R_MM, R_BMM, R_BADDBMM, R_SOFTMAX, R_CAT, R_CLONE, R_ARANGE, R_CONVERT, R_INDEX } rule_t;

/* Elementwise ops need no mask: a padded element only reaches padded
 * elements of the result. Contractions over the padded dim read zeros there,
 * softmax reads the lowest value. An in-place elementwise op ("mul_") runs
 * padded only on a padded self that owns its storage (`fits`): its write
 * then reaches nothing but that storage's padding, whose values no result
 * reads. */
static const struct {
  const char *name;
  rule_t rule;
} kRules[] = {
    {"add.Tensor", R_ELEM}, {"sub.Tensor", R_ELEM}, {"mul.Tensor", R_ELEM}, {"div.Tensor", R_ELEM},
    {"add.Scalar", R_ELEM}, {"sub.Scalar", R_ELEM}, {"mul.Scalar", R_ELEM}, {"div.Scalar", R_ELEM},
    {"neg", R_ELEM},        {"exp", R_ELEM},        {"where.self", R_ELEM}, {"mm", R_MM},
    {"bmm", R_BMM},         {"_softmax", R_SOFTMAX}, {"_log_softmax", R_SOFTMAX}, {"cat", R_CAT},
    {"lt.Tensor", R_ELEM},  {"le.Tensor", R_ELEM},  {"gt.Tensor", R_ELEM},  {"ge.Tensor", R_ELEM},
    {"eq.Tensor", R_ELEM},  {"ne.Tensor", R_ELEM},  {"lt.Scalar", R_ELEM},  {"le.Scalar", R_ELEM},
    {"gt.Scalar", R_ELEM},  {"ge.Scalar", R_ELEM},  {"eq.Scalar", R_ELEM},  {"ne.Scalar", R_ELEM},
    {"bitwise_and.Tensor", R_ELEM}, {"bitwise_or.Tensor", R_ELEM}, {"bitwise_not", R_ELEM},
    {"masked_fill.Scalar", R_ELEM}, {"rsub.Scalar", R_ELEM}, {"clone", R_CLONE},
    {"arange", R_ARANGE},   {"arange.start", R_ARANGE}, {"arange.start_step", R_ARANGE},
    {"_to_copy", R_CONVERT}, {"index.Tensor", R_INDEX}, {"baddbmm", R_BADDBMM},
    /* a prefix sum along the padded dim reads only what comes before: the
     * padding at the end reaches only the padding */
    {"cumsum", R_ELEM},
};

static rule_t find_rule(const char *name) {
  for (size_t i = 0; i < sizeof kRules / sizeof kRules[0]; i++)
    if (!strcmp(kRules[i].name, name)) return kRules[i].rule;
  return R_NONE;
}

/* The rule of an in-place elementwise op ("div_.Tensor", "neg_"): its
 * functional form's, when that is elementwise; *inplace says so. */
static rule_t find_inplace_rule(const char *name, int *inplace) {
  *inplace = 0;
  const char *dot = strchr(name, '.');
  size_t n = dot ? (size_t)(dot - name) : strlen(name);
  char fn[64];
  if (n < 2 || name[n - 1] != '_' || strlen(name) >= sizeof fn) return R_NONE;
  memcpy(fn, name, n - 1);
  snprintf(fn + n - 1, sizeof fn - (n - 1), "%s", dot ? dot : "");
  if (find_rule(fn) != R_ELEM) return R_NONE;
  *inplace = 1;
  return R_ELEM;
}

/* Whether view w (strides >= 0) spans its storage of n elements exactly,
 * from 0 to n - 1, and its dims of nonzero stride do not overlap one
 * another: the storage is the padded tensor (a view into a larger buffer,
 * such as one of q, k, v split from one projection, is not). */
static int fits(const tt_view_t *w, int64_t n) {
  if (w->offset != 0) return 0;
  int64_t last = w->offset;
  int order[TT_MAX_RANK], m = 0;
  for (int i = 0; i < w->rank; i++) {
    if (w->strides[i] < 0 || w->sizes[i] <= 0) return 0;
    last += (w->sizes[i] - 1) * w->strides[i];
    if (w->sizes[i] > 1 && w->strides[i] > 0) order[m++] = i;
  }
  if (last != n - 1) return 0;
  for (int i = 1; i < m; i++) /* sort by stride (m <= 8) */
    for (int j = i; j > 0 && w->strides[order[j]] < w->strides[order[j - 1]]; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (int i = 1; i < m; i++)
    if (w->strides[order[i]] < w->strides[order[i - 1]] * w->sizes[order[i - 1]]) return 0;
  return 1;
}

/* The elements one index of dim d of view v holds in its storage: the
 * product of the other dims' sizes, broadcast (stride-0) dims left out. */
static int64_t row_of(const tt_view_t *v, int d) {
  int64_t row = 1;
  for (int i = 0; i < v->rank; i++)
    if (i != d && v->strides[i] != 0) row *= v->sizes[i];
  return row;
}

/* The one dim along which r is a prefix of a capacity of its length
 * (is_capacity) that spans its storage, or -1. A size-1 dim has an
 * arbitrary stride (PyTorch gives views one), so it is taken only when no
 * longer dim qualifies. */
static int padded_dim(tt_lower_t *L, const tt_tensor_ref_t *r, int64_t min_len, int64_t *out_cap) {
  if (!r->storage || r->is_host_scalar || r->dtype != tt_l_storage_dtype(L, r->storage)) return -1;
  int64_t n = tt_l_storage_numel(L, r->storage);
  int found = -1, ones = 0, one = -1;
  int64_t found_cap = 0, one_cap = 0;
  for (int d = 0; d < r->view.rank; d++) {
    int64_t len = r->view.sizes[d], row = row_of(&r->view, d);
    if (len < 1 || r->view.strides[d] <= 0 || row < 1 || n % row) continue;
    int64_t cap = n / row;
    if (cap <= len || !is_capacity(cap, len, row, min_len)) continue;
    tt_view_t w = r->view;
    w.sizes[d] = cap;
    if (!fits(&w, n)) continue;
    if (len == 1) {
      ones++;
      one = d;
      one_cap = cap;
      continue;
    }
    if (found >= 0) return -1; /* two candidates: not ours */
    found = d;
    found_cap = cap;
  }
  if (found < 0 && ones == 1) {
    found = one;
    found_cap = one_cap;
  }
  if (found >= 0) *out_cap = found_cap;
  return found;
}

/* cat([a, b], d) of a KV cache: the result at the capacity of its length,
 * b written at a's logical length (a runtime scalar). */
static tt_status_t lower_cat_bucketed(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  const tt_tensor_ref_t *ra = &L->args[0].t[0];
  int d = (int)L->args[1].i, rank = ra->view.rank;
  int64_t la = ra->view.sizes[d];
  for (int k = 0; k < L->npads; k++)
    if (L->pad_ref[k] == ra) la = L->pad_len[k];
  int64_t cap = L->pad_cap;
  int64_t dims[TT_MAX_RANK];
  memcpy(dims, ra->view.sizes, sizeof(int64_t) * (size_t)rank);
  dims[d] = cap;
  tt_val_t x;
  if (la == 0) {
    x = tt_b_full_i(g, ra->dtype, rank, dims, 0);
  } else {
    x = tt_l_tensor_elem(L, 0, 0);
    int64_t have = ra->view.sizes[d];
    if (have != cap) { /* a bucket crossed: one program per crossing */
      int64_t lo[TT_MAX_RANK] = {0}, hi[TT_MAX_RANK] = {0}, in[TT_MAX_RANK] = {0};
      hi[d] = cap - have;
      x = tt_b_pad(g, x, tt_b_const_i(g, ra->dtype, 0), lo, hi, in);
    }
  }
  tt_val_t starts[TT_MAX_RANK];
  for (int i = 0; i < rank; i++) starts[i] = i == d ? tt_l_scalar(L, TT_I32, 0.0, la, 0) : tt_b_const_i(g, TT_I32, 0);
  tt_l_output(L, tt_b_dus_v(g, x, tt_l_tensor_elem(L, 0, 1), starts));
  return NULL;
}

/* Widens ref j of the plan to its capacity and lists it as a padded read. */
static void widen(tt_lower_t *L, tt_tensor_ref_t *r, int d, int64_t cap, int64_t len) {
  r->view.sizes[d] = cap;
  L->pad_ref[L->npads] = r;
  L->pad_dim[L->npads] = d;
  L->pad_len[L->npads] = len;
  L->npads++;
}

static int prepare_cat(tt_lower_t *L, tt_bucket_plan_t *p, const int *pd, const int64_t *cap, int64_t min_len) {
  if (L->nargs < 2 || p->args[0].kind != TT_ARG_TENSORS || p->args[0].n != 2 || p->args[1].kind != TT_ARG_INT) return 0;
  tt_tensor_ref_t *a = &p->args[0].t[0], *b = &p->args[0].t[1];
  int rank = a->view.rank;
  if (rank < 1 || b->view.rank != rank || a->dtype != b->dtype || !a->storage || !b->storage || a->conj || a->neg ||
      b->conj || b->neg)
    return 0;
  int64_t d = p->args[1].i;
  if (d < -rank || d >= rank) return 0;
  d = d < 0 ? d + rank : d;
  for (int i = 0; i < rank; i++)
    if (i != d && a->view.sizes[i] != b->view.sizes[i]) return 0;
  if (b->view.sizes[d] < 1) return 0;
  /* b is read as it is (whatever padding it may have), a too unless it is
   * padded along d at the result's capacity */
  int64_t row = 1;
  for (int i = 0; i < rank; i++)
    if (i != d) row *= a->view.sizes[i];
  int64_t la = a->view.sizes[d], out_cap = tt_bucket_capacity(la + b->view.sizes[d], row, min_len);
  int grows = pd[0] == d && cap[0] == out_cap;
  /* An append is bucketed: a cache growing by one row (a generated token's
   * keys, values, id or mask), from empty, padded already, or growing by
   * several rows along a sequence dim (a chunk of keys or values [.., S, D]
   * along S, of ids or a mask [B, S] along S: speculative decoding's
   * candidates, chunked prefill). A concatenation of parts is not: rotary
   * embeddings' halves, or a partial rotary's rotated and passed-through
   * parts along head_dim, padded there would meet the cache padded along
   * the sequence in one matmul (two padded lengths: it declines, and the
   * attention compiles per length); nor channels [B, C, H, W] along C. */
  int seq_dim = rank >= 3 ? d == rank - 2 : d == rank - 1;
  if (pd[0] != d && la > 0 && b->view.sizes[d] != 1 && !seq_dim) return 0;
  p->args[1].i = d;
  L->pad_cap = out_cap;
  if (grows) widen(L, a, (int)d, cap[0], la);
  p->fn = lower_cat_bucketed;
  p->out_dim = (int)d;
  p->out_len = la + b->view.sizes[d];
  return 1;
}

/* arange with integer start, end and step: `end` moved to the capacity's
 * end; the values before it are the same. Its length is the only shape in
 * its program (start and step are runtime scalars already). */
static int prepare_arange(tt_lower_t *L, tt_bucket_plan_t *p, const char *name, int64_t min_len) {
  int istart = strcmp(name, "arange") ? 0 : -1, iend = istart + 1, istep = strcmp(name, "arange.start_step") ? -1 : 2;
  if (L->nargs <= iend || p->args[iend].kind != TT_ARG_INT || (istart >= 0 && p->args[istart].kind != TT_ARG_INT) ||
      (istep >= 0 && p->args[istep].kind != TT_ARG_INT))
    return 0;
  int64_t s = istart >= 0 ? p->args[istart].i : 0, e = p->args[iend].i, st = istep >= 0 ? p->args[istep].i : 1;
  if (st <= 0 || e <= s || e - s > ((int64_t)1 << 40)) return 0;
  int64_t n = (e - s + st - 1) / st, cap = tt_bucket_capacity(n, 1, min_len);
  p->args[iend].i = s + cap * st;
  p->out_dim = 0;
  p->out_len = n;
  return 1;
}

/* index.Tensor(self, indices) with self padded along an indexed dim (a
 * mask indexed by a batch index and a growing position index): self and
 * the index tensors of its length and capacity are widened, their padding
 * masked to zeros (index 0, so padding never fails the bounds check, which
 * uses the logical length at run time: ops/index.c); index tensors of
 * other lengths are read as they are and must broadcast along the result's
 * padded dim. Only indices on the leading dims, none None, so the result is
 * their broadcast shape followed by self's other dims. */
/* Whether ref j is padded at length len and capacity c. */
static int at_bucket(tt_tensor_ref_t **refs, const int *pd, const int64_t *cap, int j, int64_t len, int64_t c) {
  return pd[j] >= 0 && refs[j]->view.sizes[pd[j]] == len && cap[j] == c;
}

static int prepare_index(tt_lower_t *L, tt_bucket_plan_t *p, tt_tensor_ref_t **refs, int nrefs, const int *pd,
                         const int64_t *cap) {
  if (L->nargs != 2 || p->args[0].kind != TT_ARG_TENSOR || p->args[1].kind != TT_ARG_TENSORS) return 0;
  int n = p->args[1].n;
  if (nrefs != 1 + n || pd[0] < 0 || pd[0] >= n) return 0;
  int64_t len = refs[0]->view.sizes[pd[0]], c = cap[0];
  int brank = 0;
  for (int j = 1; j <= n; j++) {
    if (!refs[j]->storage || refs[j]->is_host_scalar || refs[j]->conj || refs[j]->neg) return 0;
    if (refs[j]->view.rank > brank) brank = refs[j]->view.rank;
  }
  int od = -1;
  for (int j = 1; j <= n; j++) {
    if (!at_bucket(refs, pd, cap, j, len, c)) continue;
    int o = brank - refs[j]->view.rank + pd[j];
    if (od >= 0 && o != od) return 0;
    od = o;
  }
  if (od < 0) return 0;
  for (int j = 1; j <= n; j++) {
    if (at_bucket(refs, pd, cap, j, len, c)) continue;
    int a = od - (brank - refs[j]->view.rank);
    if (a >= 0 && refs[j]->view.sizes[a] != 1) return 0;
  }
  widen(L, refs[0], pd[0], c, len);
  for (int j = 1; j <= n; j++)
    if (at_bucket(refs, pd, cap, j, len, c)) widen(L, refs[j], pd[j], c, len);
  L->pad_mask = 1;
  p->out_dim = od;
  p->out_len = len;
  return 1;
}

int tt_bucket_prepare(tt_lower_t *L, const char *name, int64_t min_len, tt_bucket_plan_t *p) {
  int inplace = 0;
  rule_t rule = find_rule(name);
  if (rule == R_NONE) rule = find_inplace_rule(name, &inplace);
  if (rule == R_NONE || L->nargs > TT_BUCKET_MAX_ARGS) return 0;
  /* Copies of the arguments, each tensor ref in p->refs. */
  tt_tensor_ref_t *refs[TT_BUCKET_MAX_REFS];
  int nrefs = 0;
  memcpy(p->args, L->args, sizeof(tt_arg_t) * (size_t)L->nargs);
  for (int i = 0; i < L->nargs; i++) {
    tt_arg_t *a = &p->args[i];
    int n = a->kind == TT_ARG_TENSOR ? 1 : a->kind == TT_ARG_TENSORS ? a->n : 0;
    if (nrefs + n > TT_BUCKET_MAX_REFS) return 0;
    if (!n) continue;
    memcpy(&p->refs[nrefs], a->t, sizeof(tt_tensor_ref_t) * (size_t)n);
    a->t = &p->refs[nrefs];
    for (int j = 0; j < n; j++) refs[nrefs + j] = &p->refs[nrefs + j];
    nrefs += n;
  }
  int pd[TT_BUCKET_MAX_REFS];
  int64_t cap[TT_BUCKET_MAX_REFS], len = -1, bucket = -1;
  int any = 0;
  for (int j = 0; j < nrefs; j++) pd[j] = padded_dim(L, refs[j], min_len, &cap[j]);
  L->npads = 0;
  L->pad_mask = 0;
  p->fn = NULL;
  p->out_dim = -1;
  if (rule == R_INDEX) return prepare_index(L, p, refs, nrefs, pd, cap);
  if (rule == R_CAT) return prepare_cat(L, p, pd, cap, min_len); /* a's padding alone counts (b is read as it is) */
  if (rule == R_ARANGE) return prepare_arange(L, p, name, min_len);
  /* A length-1 view that happens to span a capacity (a one-token slice of a
   * larger storage) is no padded operand beside longer ones: it broadcasts. */
  int64_t longest = 0;
  for (int j = 0; j < nrefs; j++)
    if (pd[j] >= 0 && refs[j]->view.sizes[pd[j]] > longest) longest = refs[j]->view.sizes[pd[j]];
  for (int j = 0; j < nrefs; j++)
    if (pd[j] >= 0 && longest > 1 && refs[j]->view.sizes[pd[j]] == 1) pd[j] = -1;
  for (int j = 0; j < nrefs; j++) {
    if (pd[j] < 0) continue;
    int64_t l = refs[j]->view.sizes[pd[j]];
    if (any && (l != len || cap[j] != bucket)) return 0; /* one logical length per op */
    len = l;
    bucket = cap[j];
    any = 1;
  }
  p->out_len = len;
  if (!any) return 0;
  int od = -1;
  if (rule == R_CONVERT) { /* a dtype conversion: elementwise, unless a memory format is asked for */
    tt_memory_format_t fmt = tt_layout_memory_format_arg(p->args, L->nargs);
    if (fmt != TT_MEMORY_FORMAT_PRESERVE && fmt != TT_MEMORY_FORMAT_CONTIGUOUS) return 0;
    rule = fmt == TT_MEMORY_FORMAT_PRESERVE ? R_ELEM : R_CLONE;
  }
  if (rule == R_CLONE) { /* only where the padded result is still contiguous, as clone's must be */
    if (nrefs != 1 || pd[0] < 0) return 0;
    for (int i = 0; i < pd[0]; i++)
      if (refs[0]->view.sizes[i] != 1) return 0;
    od = pd[0];
  } else if (rule == R_ELEM) {
    int rank = 0;
    for (int j = 0; j < nrefs; j++)
      if (refs[j]->view.rank > rank) rank = refs[j]->view.rank;
    for (int j = 0; j < nrefs; j++) {
      if (pd[j] < 0) continue;
      int o = pd[j] + rank - refs[j]->view.rank;
      if (od >= 0 && o != od) return 0;
      od = o;
    }
    for (int j = 0; j < nrefs; j++) { /* the others broadcast along the padded dim */
      int a = od - (rank - refs[j]->view.rank);
      if (pd[j] < 0 && a >= 0 && refs[j]->view.sizes[a] != 1) return 0;
    }
    /* In place: self is the padded tensor, whole (it owns its storage, so
     * the write reaches only its own padding) and of the result's rank. */
    if (inplace && (pd[0] < 0 || refs[0]->view.rank != rank)) return 0;
  } else if (rule == R_MM || rule == R_BMM) {
    int bt = rule == R_BMM; /* dims: [batch,] rows, inner / [batch,] inner, cols */
    if (nrefs != 2 || refs[0]->view.rank != 2 + bt || refs[1]->view.rank != 2 + bt) return 0;
    int pa = pd[0], pb = pd[1];
    if (bt && (pa == 0 || pb == 0)) {
      if (pa != 0 || pb != 0) return 0;
      od = 0;
    } else if (pa == bt + 1 || pb == bt) { /* the contracted dim: zeros past the length on both sides */
      if (pa != bt + 1 || pb != bt) return 0;
      L->pad_mask = 1;
    } else {
      if (pa >= 0 && pb >= 0) return 0; /* two padded dims in the result */
      od = pa >= 0 ? bt : bt + 1;
    }
  } else if (rule == R_BADDBMM) { /* self + batch1 @ batch2: bmm's rule, self as an elementwise operand */
    if (nrefs != 3 || refs[1]->view.rank != 3 || refs[2]->view.rank != 3 || refs[0]->view.rank > 3) return 0;
    int pa = pd[1], pb = pd[2], ps = pd[0], ds = 3 - refs[0]->view.rank;
    if (pa == 0 || pb == 0 || (ps >= 0 && ps + ds == 0)) return 0;
    if (pa == 2 || pb == 1) { /* the contracted dim: zeros past the length on both sides */
      if (pa != 2 || pb != 1 || ps >= 0) return 0;
      L->pad_mask = 1;
    } else {
      if ((pa >= 0) == (pb >= 0)) return 0; /* two padded dims in the result, or self's alone */
      od = pa >= 0 ? 1 : 2;
      if (ps >= 0 && ps + ds != od) return 0;
      if (ps < 0 && od - ds >= 0 && refs[0]->view.sizes[od - ds] != 1) return 0; /* self broadcasts there */
    }
  } else if (rule == R_SOFTMAX) {
    if (nrefs != 1 || L->nargs < 2 || p->args[1].kind != TT_ARG_INT) return 0;
    int rank = refs[0]->view.rank;
    int64_t dim = p->args[1].i;
    if (dim < -rank || dim >= rank) return 0;
    dim = dim < 0 ? dim + rank : dim;
    od = pd[0];
    if (dim == od) L->pad_mask = 2;
  }
  for (int j = 0; j < nrefs; j++)
    if (pd[j] >= 0) widen(L, refs[j], pd[j], cap[j], len);
  p->out_dim = od;
  return 1;
}
