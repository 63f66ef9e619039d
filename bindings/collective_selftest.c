/* torchtpu._C._collective_selftest and _replica_groups: a private door to the
 * skinny collective programs on N CPU devices of one process, for tests.
 * Converts Python values and calls api/collective_local; decides nothing. */
#include "bindings.h"

#include "api/collective_local.h"
#include "base/alloc.h"
#include "dist/collective.h"
#include "dist/replica_groups.h"

/* A list of int lists -> sizes[] and flat ranks[] (tt_malloc'd). */
static int int_lists(PyObject *lists, int *out_n, int **out_sizes, int **out_flat) {
  PyObject *seq = PySequence_Fast(lists, "groups must be a list of rank lists");
  if (!seq) return 0;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), total = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    Py_ssize_t k = PySequence_Size(PySequence_Fast_GET_ITEM(seq, i));
    if (k < 0) {
      Py_DECREF(seq);
      return 0;
    }
    total += k;
  }
  int *sizes = tt_malloc((size_t)(n ? n : 1) * sizeof *sizes);
  int *flat = tt_malloc((size_t)(total ? total : 1) * sizeof *flat);
  if (!sizes || !flat) {
    tt_free(sizes);
    tt_free(flat);
    Py_DECREF(seq);
    PyErr_NoMemory();
    return 0;
  }
  Py_ssize_t k = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *g = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), "a group must be a list");
    if (!g) goto fail;
    sizes[i] = (int)PySequence_Fast_GET_SIZE(g);
    for (Py_ssize_t j = 0; j < sizes[i]; j++) {
      long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(g, j));
      if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(g);
        goto fail;
      }
      flat[k++] = (int)v;
    }
    Py_DECREF(g);
  }
  Py_DECREF(seq);
  *out_n = (int)n;
  *out_sizes = sizes;
  *out_flat = flat;
  return 1;
fail:
  tt_free(sizes);
  tt_free(flat);
  Py_DECREF(seq);
  return 0;
}

/* groups None: the whole world; else the known subgroups of a split. */
static int make_groups(int world, PyObject *groups, tt_dist_groups_t *out) {
  if (groups == Py_None) {
    tt_status_t s = tt_dist_groups_world(world, out);
    return s ? (tt_py_raise(s), 0) : 1;
  }
  int n, *sizes, *flat;
  if (!int_lists(groups, &n, &sizes, &flat)) return 0;
  tt_status_t s = tt_dist_groups_resolve(world, n, sizes, flat, out);
  tt_free(sizes);
  tt_free(flat);
  return s ? (tt_py_raise(s), 0) : 1;
}

PyObject *tt_py_replica_groups_entry(PyObject *self, PyObject *args) {
  (void)self;
  int world;
  PyObject *groups;
  if (!PyArg_ParseTuple(args, "iO", &world, &groups)) return NULL;
  tt_dist_groups_t g;
  if (!make_groups(world, groups, &g)) return NULL;
  PyObject *out = PyList_New(g.num_groups);
  for (int i = 0; out && i < g.num_groups; i++) {
    PyObject *row = PyList_New(g.group_size);
    for (int j = 0; row && j < g.group_size; j++)
      PyList_SET_ITEM(row, j, PyLong_FromLong(g.ranks[i * g.group_size + j]));
    if (!row) Py_CLEAR(out);
    else PyList_SET_ITEM(out, i, row);
  }
  tt_dist_groups_free(&g);
  return out;
}

/* Fills c's kind, op, dtype and shape from Python values. */
static int describe(const char *kind, const char *op, PyObject *dtype, PyObject *shape,
                    tt_dist_collective_t *c) {
  int k = tt_dist_kind_from_name(kind), o = tt_dist_op_from_name(op);
  if (k < 0 || o < 0) {
    PyErr_Format(PyExc_ValueError, "unknown collective '%s' or ReduceOp '%s'", kind, op);
    return 0;
  }
  c->kind = (tt_dist_kind_t)k;
  c->op = (tt_dist_op_t)o;
  c->dtype = tt_py_dtype(dtype);
  if (c->dtype == TT_DTYPE_INVALID) {
    PyErr_SetString(PyExc_TypeError, "unsupported dtype for a collective");
    return 0;
  }
  PyObject *seq = PySequence_Fast(shape, "shape must be a sequence of ints");
  if (!seq) return 0;
  Py_ssize_t r = PySequence_Fast_GET_SIZE(seq);
  if (r > TT_DIST_MAX_RANK) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "rank %zd tensors are not supported (at most %d)", r,
                 TT_DIST_MAX_RANK);
    return 0;
  }
  c->rank = (int)r;
  for (Py_ssize_t i = 0; i < r; i++) c->dims[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
  Py_DECREF(seq);
  return !PyErr_Occurred();
}

/* Borrows `n` buffers of list `objs` (views[] must be released by the caller). */
static int get_buffers(PyObject *objs, int n, Py_buffer *views, const void **ptrs,
                       size_t want, const char *what) {
  if (!PyList_Check(objs) || PyList_GET_SIZE(objs) != n) {
    PyErr_Format(PyExc_ValueError, "%s must be a list of %d buffers, one per rank", what, n);
    return 0;
  }
  for (int r = 0; r < n; r++) {
    if (PyObject_GetBuffer(PyList_GET_ITEM(objs, r), &views[r], PyBUF_C_CONTIGUOUS) < 0) {
      for (int j = 0; j < r; j++) PyBuffer_Release(&views[j]);
      return 0;
    }
    ptrs[r] = views[r].buf;
    if ((size_t)views[r].len != want) {
      PyErr_Format(PyExc_ValueError, "%s[%d] holds %zd bytes, expected %zu", what, r,
                   views[r].len, want);
      for (int j = 0; j <= r; j++) PyBuffer_Release(&views[j]);
      return 0;
    }
  }
  return 1;
}

/* Runs c with the inputs, returns a list of bytes (one per rank). */
static PyObject *run(const char *plugin, tt_dist_collective_t *c, PyObject *inputs,
                     PyObject *factors) {
  int world = tt_dist_collective_world(c);
  size_t in_bytes = tt_dtype_size(c->dtype), out_bytes = 0;
  for (int i = 0; i < c->rank; i++) in_bytes *= (size_t)c->dims[i];
  tt_status_t s = tt_collective_result_nbytes(c, &out_bytes);
  if (s) return tt_py_raise(s);
  Py_buffer views[2 * 64];
  const void *in[64], *fac[64];
  void *out[64];
  if (world > 64) return PyErr_Format(PyExc_ValueError, "at most 64 ranks in a self-test");
  int with_factors = factors != Py_None;
  if (!get_buffers(inputs, world, views, in, in_bytes, "inputs")) return NULL;
  if (with_factors &&
      !get_buffers(factors, world, views + world, fac, tt_dtype_size(c->dtype), "factors")) {
    for (int r = 0; r < world; r++) PyBuffer_Release(&views[r]);
    return NULL;
  }
  PyObject *list = PyList_New(world);
  for (int r = 0; list && r < world; r++) {
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)out_bytes);
    if (!b) Py_CLEAR(list);
    else {
      PyList_SET_ITEM(list, r, b);
      out[r] = PyBytes_AS_STRING(b);
    }
  }
  if (list) {
    Py_BEGIN_ALLOW_THREADS
    s = tt_collective_selftest(plugin, c, in, with_factors ? fac : NULL, out, out_bytes);
    Py_END_ALLOW_THREADS
  }
  for (int r = 0; r < world * (1 + with_factors); r++) PyBuffer_Release(&views[r]);
  if (s) {
    Py_XDECREF(list);
    return tt_py_raise(s);
  }
  return list;
}

PyObject *tt_py_collective_selftest_entry(PyObject *self, PyObject *args) {
  (void)self;
  const char *plugin, *kind, *op;
  PyObject *dtype, *shape, *groups, *pairs, *inputs, *factors;
  int world, dim, concat_dim, channel, root = 0;
  if (!PyArg_ParseTuple(args, "sssOOiiiOOiOO|i", &plugin, &kind, &op, &dtype, &shape, &dim,
                        &concat_dim, &world, &groups, &pairs, &channel, &inputs, &factors, &root))
    return NULL;
  tt_dist_collective_t c = {.dim = dim, .concat_dim = concat_dim, .root = root,
                            .channel = (tt_dist_channel_t)channel};
  if (channel < TT_DIST_CROSS_REPLICA || channel > TT_DIST_GLOBAL_IDS)
    return PyErr_Format(PyExc_ValueError, "channel mode must be 0, 1 or 2, got %d", channel);
  if (!describe(kind, op, dtype, shape, &c)) return NULL;
  tt_dist_groups_t g = {0};
  tt_dist_pairs_t p = {0};
  if (c.kind == TT_DIST_PERMUTE) {
    int n, *sizes, *flat;
    if (!int_lists(pairs, &n, &sizes, &flat)) return NULL;
    tt_status_t s = TT_OK_STATUS;
    for (int i = 0; i < n && !s; i++)
      if (sizes[i] != 2) s = tt_status_make(TT_VALUE_ERROR, "pair %d has %d ranks, not 2", i, sizes[i]);
    if (!s) s = tt_dist_pairs_make(world, n, flat, &p);
    tt_free(sizes);
    tt_free(flat);
    if (s) return tt_py_raise(s);
    c.pairs = &p;
  } else {
    if (!make_groups(world, groups, &g)) return NULL;
    c.groups = &g;
  }
  PyObject *out = run(plugin, &c, inputs, factors);
  tt_dist_groups_free(&g);
  tt_dist_pairs_free(&p);
  return out;
}
