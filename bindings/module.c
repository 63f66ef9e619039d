/* torchtpu._C: the module table and the calls the Python glue makes. */
#include <string.h>

#include "api/init.h"
#include "api/transfer.h"
#include "api/engine_lock.h"
#include "api/foreign.h"
#include "api/compiled.h"
#include "api/engine_state.h"
#include "api/storage_resize.h"
#include "api/events.h"
#include "base/env.h"
#include "base/nbytes.h"
#include "base/prof.h"
#include "bindings.h"
#include "ops/autocast_policy.h"

tt_py_t tt_py;

tt_engine_t *tt_py_engine(void) {
  if (!tt_py.engine) PyErr_SetString(PyExc_RuntimeError, "torchtpu is not initialized");
  return tt_py.engine;
}

static PyObject *py_init(PyObject *self, PyObject *args) {
  (void)self;
  const char *fallback = NULL;
  if (!PyArg_ParseTuple(args, "z", &fallback)) return NULL;
  if (tt_py.engine) Py_RETURN_NONE; /* idempotent */
  tt_status_t s = tt_init(fallback, &tt_py.engine);
  if (!s && tt_py.pointwise_ids) s = tt_call_set_pointwise_ops(tt_py.engine, tt_py.pointwise_ids, tt_py.npointwise_ids);
  if (!s && (tt_py.inplace_binary_ids || tt_py.inplace_pointwise_ids))
    s = tt_call_set_inplace_iterator_ops(tt_py.engine, tt_py.inplace_binary_ids, tt_py.ninplace_binary_ids,
                                         tt_py.inplace_pointwise_ids, tt_py.ninplace_pointwise_ids);
  if (s) return tt_py_raise(s);
  tt_py_install_matmul_precision(tt_py.engine);
  Py_RETURN_NONE;
}

static PyObject *py_setup(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *create, *dtypes, *tensor_type;
  if (!PyArg_ParseTuple(args, "OO!O", &create, &PyTuple_Type, &dtypes, &tensor_type)) return NULL;
  if (PyTuple_GET_SIZE(dtypes) > TT_DTYPE_COUNT) {
    PyErr_SetString(PyExc_ValueError, "too many dtypes");
    return NULL;
  }
  Py_INCREF(create);
  tt_py.create_empty = create;
  Py_INCREF(tensor_type);
  tt_py.tensor_type = tensor_type;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dtypes); i++) {
    PyObject *d = PyTuple_GET_ITEM(dtypes, i);
    Py_INCREF(d);
    tt_py.dtypes[i] = d == Py_None ? NULL : d;
  }
  Py_RETURN_NONE;
}

static PyObject *py_op_names(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  int n = tt_call_op_named_count(); /* size companions have ids after these, no names of their own */
  PyObject *list = PyList_New(n);
  if (!list) return NULL;
  for (int i = 0; i < n; i++) PyList_SET_ITEM(list, i, PyUnicode_FromString(tt_call_op_name(i)));
  return list;
}

PyObject *tt_py_int_tuple(int n, const int64_t *v) {
  PyObject *t = PyTuple_New(n);
  for (int i = 0; t && i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
  return t;
}

/* A result the core laid out in CPU's strides (its storage holds the
 * elements in that order): the same tensor with those strides, not a view. */
static PyObject *restride(PyObject *t, const tt_call_out_t *o) {
  PyObject *sizes = tt_py_int_tuple(o->rank, o->sizes), *strides = sizes ? tt_py_int_tuple(o->rank, o->strides) : NULL;
  PyObject *r = strides && tt_py.restride ? PyObject_CallFunctionObjArgs(tt_py.restride, t, sizes, strides, NULL) : NULL;
  if (!r && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torchtpu: restride is not installed (set_layout_ops)");
  Py_XDECREF(sizes);
  Py_XDECREF(strides);
  Py_DECREF(t);
  return r;
}

static PyObject *results_to_python(tt_call_result_t *r, PyObject *argtuple) {
  if (r->returns_arg >= 0 && r->n == 0) {
    PyObject *o = PyTuple_GET_ITEM(argtuple, r->returns_arg);
    Py_INCREF(o);
    return o;
  }
  if (r->n == 0) Py_RETURN_NONE;
  PyObject *tup = PyTuple_New(r->n);
  if (!tup) return NULL;
  for (int i = 0; i < r->n; i++) {
    tt_call_out_t *o = &r->outs[i];
    PyObject *t = tt_py_make_tensor(o->storage, o->dtype, o->rank, o->sizes);
    o->storage = NULL; /* stolen, even on failure */
    if (t && o->strided) t = restride(t, o);
    if (t && o->pad_dim >= 0) { /* a padded result: the view of its logical length */
      PyObject *v = PyObject_CallMethod(t, "narrow", "iiL", o->pad_dim, 0, (long long)o->pad_len);
      Py_DECREF(t);
      t = v;
    }
    if (!t) {
      tt_call_result_clear(r); /* releases the results not yet wrapped */
      Py_DECREF(tup);
      return NULL;
    }
    PyTuple_SET_ITEM(tup, i, t);
  }
  tt_call_result_clear(r); /* every storage was stolen: frees a heap array only */
  if (PyTuple_GET_SIZE(tup) == 1) {
    PyObject *t = PyTuple_GET_ITEM(tup, 0);
    Py_INCREF(t);
    Py_DECREF(tup);
    return t;
  }
  return tup;
}

/* A torch.tpu.Generator's (seed, offset) stand in for the device's during
 * one call (lowering reads them); its offset then advances as the device's
 * would have, and the device's state is put back. */
static int generator_swap_in(PyObject *gen, uint64_t saved[2]) {
  tt_engine_t *c = tt_py.engine;
  PyObject *s = PyObject_GetAttrString(gen, "_tt_seed"), *o = s ? PyObject_GetAttrString(gen, "_tt_offset") : NULL;
  unsigned long long seed = s ? PyLong_AsUnsignedLongLongMask(s) : 0, off = o ? PyLong_AsUnsignedLongLongMask(o) : 0;
  Py_XDECREF(s);
  Py_XDECREF(o);
  if (PyErr_Occurred()) return 0;
  tt_engine_rng_state(c, &saved[0], &saved[1]);
  tt_engine_set_rng_state(c, seed, off);
  return 1;
}

static int generator_swap_out(PyObject *gen, const uint64_t saved[2]) {
  tt_engine_t *c = tt_py.engine;
  uint64_t seed, offset;
  tt_engine_rng_state(c, &seed, &offset);
  PyObject *o = PyLong_FromUnsignedLongLong(offset);
  tt_engine_set_rng_state(c, saved[0], saved[1]);
  int ok = o && PyObject_SetAttrString(gen, "_tt_offset", o) == 0;
  Py_XDECREF(o);
  return ok;
}

static PyObject *py_call(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
  (void)self;
  if (argc != 2 || !PyTuple_Check(argv[1])) {
    PyErr_SetString(PyExc_TypeError, "call(op_id, args_tuple)");
    return NULL;
  }
  int id = (int)PyLong_AsLong(argv[0]);
  const char *op_name = tt_call_op_name(id);
  if (!op_name) {
    if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "unknown op id %d", id);
    return NULL;
  }
  TT_PROF_BEGIN(TT_PROF_PY_CALL);
  /* Per call, on this thread's stack: a call may re-enter on the same
   * thread (tensor wrapping runs Python), so no scratch is shared. */
  tt_py_args_t a;
  TT_PROF_BEGIN(TT_PROF_ARGS);
  if (!tt_py_args_convert(argv[1], op_name, &a)) return NULL;
  TT_PROF_END(TT_PROF_ARGS);
  tt_call_result_t r;
  uint64_t saved[2];
  PyObject *gen = a.generator;
  if (gen) /* a replay would draw from the device's generator instead */
    tt_compiled_capture_refuse(tt_py.engine, "an op with a torch.tpu.Generator argument");
  if (gen && !generator_swap_in(gen, saved)) {
    tt_py_args_free(&a);
    return NULL;
  }
  tt_status_t s = tt_call(tt_py.engine, id, a.args, a.nargs, &r);
  tt_py_args_free(&a);
  if (gen && !generator_swap_out(gen, saved)) {
    if (!s) tt_call_result_clear(&r);
    tt_status_free(s);
    return NULL;
  }
  for (int i = 0; !s && i < r.nwarnings; i++)
    if (PyErr_WarnEx(PyExc_UserWarning, r.warnings[i], 1) < 0) { /* warnings as errors */
      tt_call_result_clear(&r);
      return NULL;
    }
  TT_PROF_BEGIN(TT_PROF_RESULTS);
  PyObject *res = s ? tt_py_raise(s) : results_to_python(&r, argv[1]);
  TT_PROF_END(TT_PROF_RESULTS);
  TT_PROF_END(TT_PROF_PY_CALL);
  return res;
}

/* A sequence of op ids as a malloc'd array (*n entries); NULL with the
 * Python error set. */
static int *op_ids(PyObject *ids, int *n) {
  PyObject *seq = PySequence_Fast(ids, "op ids must be a sequence");
  if (!seq) return NULL;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
  int *v = malloc(sizeof(int) * (size_t)(len ? len : 1));
  if (!v) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < len; i++) v[i] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
  Py_DECREF(seq);
  if (PyErr_Occurred()) {
    free(v);
    return NULL;
  }
  *n = (int)len;
  return v;
}

/* set_layout_ops(pointwise_op_ids, restride): the ops PyTorch tags
 * pointwise (their results take TensorIterator's layout in the core), and
 * the glue's restride(t, sizes, strides) that gives a result its strides. */
static PyObject *py_set_layout_ops(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *ids, *fn;
  if (!PyArg_ParseTuple(args, "OO", &ids, &fn)) return NULL;
  int n = 0, *v = op_ids(ids, &n);
  if (!v) return NULL;
  free(tt_py.pointwise_ids); /* kept for the engine, created on first use (init) */
  tt_py.pointwise_ids = v;
  tt_py.npointwise_ids = n;
  tt_status_t s = tt_py.engine ? tt_call_set_pointwise_ops(tt_py.engine, v, n) : TT_OK_STATUS;
  if (s) return tt_py_raise(s);
  Py_INCREF(fn);
  Py_XSETREF(tt_py.restride, fn);
  Py_RETURN_NONE;
}

/* set_inplace_iterator_ops(binary_ids, pointwise_ids): the in-place ops
 * self.op_(other) (their schema's argument 1 is `other`) and the other
 * in-place pointwise ops, whose iterator checks (shapes; for the binary ones
 * the cast into self) the core makes before a refusal of a dtype. */
static PyObject *py_set_inplace_iterator_ops(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *bin, *pw;
  if (!PyArg_ParseTuple(args, "OO", &bin, &pw)) return NULL;
  int nb = 0, np = 0, *b = op_ids(bin, &nb);
  if (!b) return NULL;
  int *p = op_ids(pw, &np);
  if (!p) {
    free(b);
    return NULL;
  }
  free(tt_py.inplace_binary_ids); /* kept for the engine, created on first use (init) */
  free(tt_py.inplace_pointwise_ids);
  tt_py.inplace_binary_ids = b;
  tt_py.ninplace_binary_ids = nb;
  tt_py.inplace_pointwise_ids = p;
  tt_py.ninplace_pointwise_ids = np;
  tt_status_t s = tt_py.engine ? tt_call_set_inplace_iterator_ops(tt_py.engine, b, nb, p, np) : TT_OK_STATUS;
  if (s) return tt_py_raise(s);
  Py_RETURN_NONE;
}

static PyObject *py_empty(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *shape, *dtype;
  if (!PyArg_ParseTuple(args, "OO", &shape, &dtype)) return NULL;
  tt_dtype_t dt = tt_py_dtype(dtype);
  if (dt == TT_DTYPE_INVALID) {
    PyObject *r = PyObject_Str(dtype);
    PyErr_Format(PyExc_NotImplementedError, "dtype %s is not supported on TPU yet", r ? PyUnicode_AsUTF8(r) : "?");
    Py_XDECREF(r);
    return NULL;
  }
  PyObject *seq = PySequence_Fast(shape, "shape must be a sequence");
  if (!seq) return NULL;
  Py_ssize_t rank = PySequence_Fast_GET_SIZE(seq);
  if (rank > TT_MAX_RANK) {
    Py_DECREF(seq);
    return PyErr_Format(PyExc_RuntimeError, "tensors of rank %zd are not supported on TPU (max %d)", rank, TT_MAX_RANK);
  }
  int64_t sizes[TT_MAX_RANK], numel = 1;
  for (Py_ssize_t i = 0; i < rank; i++) {
    sizes[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    if (sizes[i] < 0) {
      Py_DECREF(seq);
      if (PyErr_Occurred()) return NULL;
      return PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld", (long long)sizes[i]);
    }
    numel *= sizes[i];
  }
  Py_DECREF(seq);
  int64_t nbytes;
  tt_status_t st = tt_nbytes_contiguous(sizes, (int)rank, 0, tt_dtype_size(dt), &nbytes);
  if (st) return tt_py_raise(st);
  tt_storage_t *s;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  st = tt_api_storage_new(e, dt, numel, &s);
  if (st) return tt_py_raise(st);
  return tt_py_make_tensor(s, dt, (int)rank, sizes);
}

static int cpu_buffer(PyObject *cpu, void **out_ptr, tt_dtype_t *out_dt, int64_t *out_numel) {
  PyObject *dt = PyObject_GetAttr(cpu, tt_py.str_dtype);
  if (!dt) return 0;
  *out_dt = tt_py_dtype(dt);
  Py_DECREF(dt);
  if (*out_dt == TT_DTYPE_INVALID) {
    PyErr_SetString(PyExc_NotImplementedError, "this dtype is not supported on TPU yet");
    return 0;
  }
  PyObject *p = PyObject_CallMethodNoArgs(cpu, tt_py.str_data_ptr);
  if (!p) return 0;
  *out_ptr = PyLong_AsVoidPtr(p);
  Py_DECREF(p);
  PyObject *n = PyObject_CallMethod(cpu, "numel", NULL);
  if (!n) return 0;
  *out_numel = PyLong_AsLongLong(n);
  Py_DECREF(n);
  return !PyErr_Occurred();
}

/* upload(dst_tpu_view, src_cpu_contiguous): src has dst's shape and dtype. */
static PyObject *py_upload(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *dst, *src;
  if (!PyArg_ParseTuple(args, "OO", &dst, &src)) return NULL;
  tt_tensor_ref_t ref;
  if (!tt_py_tensor_ref(dst, "copy_", &ref)) return NULL;
  void *ptr;
  tt_dtype_t dt;
  int64_t numel;
  if (!cpu_buffer(src, &ptr, &dt, &numel)) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_status_t s = tt_tensor_from_host(e, &ref, ptr, dt, numel);
  if (s) return tt_py_raise(s);
  Py_INCREF(dst);
  return dst;
}

/* download(src_tpu_view, dst_cpu_contiguous): dst has src's shape, any supported dtype. */
static PyObject *py_download(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *src, *dst;
  if (!PyArg_ParseTuple(args, "OO", &src, &dst)) return NULL;
  tt_tensor_ref_t ref;
  if (!tt_py_tensor_ref(src, "to_cpu", &ref)) return NULL;
  if (!ref.storage) {
    PyErr_SetString(PyExc_RuntimeError, "download: source is not a tpu tensor");
    return NULL;
  }
  void *ptr;
  tt_dtype_t dt;
  int64_t numel;
  if (!cpu_buffer(dst, &ptr, &dt, &numel)) return NULL;
  /* The engine lock is held (this is an entry point); the core releases
   * the GIL while it waits for the device. */
  tt_status_t s = tt_tensor_to_host(tt_api_storage_engine(ref.storage), &ref, dt, ptr, (size_t)numel * tt_dtype_size(dt));
  if (s) return tt_py_raise(s);
  Py_INCREF(dst);
  return dst;
}

static PyObject *py_synchronize(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_status_t s = tt_synchronize(e);
  if (s) return tt_py_raise(s);
  Py_RETURN_NONE;
}

/* Registered with Python's atexit: compile threads stop while the plugin is
 * whole (C-level exit handlers may run after parts of it are torn down). */
static PyObject *py_stop_compiles(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  if (tt_py.engine) tt_engine_stop_compiles(tt_py.engine);
  Py_RETURN_NONE;
}

static PyObject *py_runtime_info(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  int64_t shv[3];
  const tt_pjrt_info_t *i = tt_engine_runtime_info(e, shv);
  return Py_BuildValue("{s:s,s:s,s:s,s:s,s:s,s:(ii),s:i,s:s,s:(LLL)}", "plugin_path", i->plugin_path,
                       "platform_name", i->platform_name, "platform_version", i->platform_version,
                       "device_kind", i->device_kind, "xla_version", i->xla_version, "pjrt_api_version",
                       i->api_major, i->api_minor, "num_devices", i->num_devices, "torchtpu_version",
                       tt_engine_version(), "stablehlo_version", (long long)shv[0], (long long)shv[1], (long long)shv[2]);
}

static PyObject *dir_path(const char *path) {
  if (!path) Py_RETURN_NONE;
  return PyUnicode_DecodeFSDefault(path);
}

static PyObject *py_cache_stats(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_cache_report_t rep = tt_engine_cache_report(e);
  const tt_cache_stats_t *s = &rep.stats;
  tt_cache_dir_stats_t d2 = rep.tier2, d3 = rep.tier3;
  PyObject *out = Py_BuildValue(
      "{s:K,s:K,s:K,s:K,s:d,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:d,s:N,s:N}", "requests", (unsigned long long)s->requests,
      "hits", (unsigned long long)s->hits, "misses", (unsigned long long)s->misses, "executables",
      (unsigned long long)s->executables, "compile_seconds", s->compile_seconds, "tier1_hits",
      (unsigned long long)s->tier1_hits, "tier2_hits", (unsigned long long)s->tier2_hits, "tier3_hits",
      (unsigned long long)s->tier3_hits, "tier2_writes", (unsigned long long)s->tier2_writes, "tier3_writes",
      (unsigned long long)s->tier3_writes, "corrupt_entries", (unsigned long long)s->corrupt_entries,
      "write_errors", (unsigned long long)s->write_errors, "load_seconds", s->load_seconds, "tier2_dir",
      dir_path(rep.tier2_dir), "tier3_dir", dir_path(rep.tier3_dir));
  if (!out) return NULL;
  PyObject *extra = Py_BuildValue(
      "{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "tier2_evicted", (unsigned long long)d2.evicted, "tier3_evicted",
      (unsigned long long)d3.evicted, "stale_temps_removed",
      (unsigned long long)(d2.stale_temps_removed + d3.stale_temps_removed), "compile_waits",
      (unsigned long long)s->compile_waits, "tier1_evicted", (unsigned long long)s->tier1_evicted, "async_compiles",
      (unsigned long long)s->async_compiles, "compile_joins", (unsigned long long)s->compile_joins, "fast_compiles",
      (unsigned long long)s->fast_compiles, "upgrades", (unsigned long long)s->upgrades);
  if (!extra || PyDict_Update(out, extra)) {
    Py_XDECREF(extra);
    Py_DECREF(out);
    return NULL;
  }
  Py_DECREF(extra);
  return out;
}

static PyObject *py_set_eager_mode(PyObject *self, PyObject *name) {
  (void)self;
  const char *n = PyUnicode_AsUTF8(name);
  if (!n) return NULL;
  tt_eager_mode_t m;
  tt_status_t s = tt_eager_mode_parse(n, &m);
  if (!s) {
    tt_engine_t *e = tt_py_engine();
    if (!e) return NULL;
    s = tt_set_eager_mode(e, m);
  }
  if (s) return tt_py_raise(s);
  Py_RETURN_NONE;
}

static PyObject *py_get_eager_mode(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyUnicode_FromString(tt_eager_mode_name(tt_py.engine ? tt_get_eager_mode(tt_py.engine) : TT_MODE_STRICT));
}

static PyObject *py_rng_state(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  uint64_t seed, offset;
  tt_engine_rng_state(e, &seed, &offset);
  return Py_BuildValue("(KK)", (unsigned long long)seed, (unsigned long long)offset);
}

static PyObject *py_set_rng_state(PyObject *self, PyObject *args) {
  (void)self;
  unsigned long long seed, offset;
  if (!PyArg_ParseTuple(args, "KK", &seed, &offset)) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_engine_set_rng_state(e, seed, offset);
  Py_RETURN_NONE;
}

static PyObject *py_storage_numel(PyObject *self, PyObject *tensor) {
  (void)self;
  tt_storage_t *s = tt_py_tensor_storage(tensor);
  if (!s) Py_RETURN_NONE;
  return PyLong_FromLongLong(tt_api_storage_numel(s));
}

/* The core storage of a tpu tensor or untyped storage, resized by `resize`
 * to hold nbytes; then the torch storage reports its new size and address
 * (tt_py_sync_storage). `name` names the entry in errors. */
static PyObject *change_storage(PyObject *args, tt_status_t (*resize)(tt_storage_t *, int64_t), const char *name) {
  PyObject *obj;
  long long nbytes;
  if (!PyArg_ParseTuple(args, "OL", &obj, &nbytes)) return NULL;
  PyObject *st = PyObject_HasAttr(obj, tt_py.str_tt) ? (Py_INCREF(obj), obj)
                                                     : PyObject_CallMethodNoArgs(obj, tt_py.str_untyped_storage);
  if (!st) return NULL;
  PyObject *tt = PyObject_GetAttr(st, tt_py.str_tt);
  if (!tt || Py_TYPE(tt) != &TtStorageType) {
    Py_XDECREF(tt);
    Py_DECREF(st);
    PyErr_Clear();
    return PyErr_Format(PyExc_RuntimeError, "%s: not a tpu tensor or storage", name);
  }
  tt_storage_t *s = ((TtStorageObject *)tt)->storage;
  long long item = (long long)tt_dtype_size(tt_api_storage_dtype(s));
  tt_status_t e = resize(s, (nbytes + item - 1) / item);
  int ok = e ? (tt_py_raise(e), 0) : tt_py_sync_storage(st, s, 0);
  Py_DECREF(tt);
  Py_DECREF(st);
  if (!ok) return NULL;
  Py_RETURN_NONE;
}

/* grow_storage(tensor or untyped storage, nbytes): grows to hold nbytes (old
 * contents kept); never shrinks (Tensor.resize_, set_). */
static PyObject *py_grow_storage(PyObject *self, PyObject *args) {
  (void)self;
  return change_storage(args, tt_storage_grow, "grow_storage");
}

/* resize_storage(tensor or untyped storage, nbytes): exactly nbytes
 * (UntypedStorage.resize_): grown with zeros, shrunk to a prefix, or emptied
 * (0 frees the device buffer). */
static PyObject *py_resize_storage(PyObject *self, PyObject *args) {
  (void)self;
  return change_storage(args, tt_storage_resize, "resize_storage");
}

/* event_record() -> mark; event_query(mark) -> bool; event_synchronize(mark):
 * torch.tpu.Event on the core's marks (api/events.h). */
static PyObject *py_event_record(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  uint64_t mark;
  tt_status_t s = tt_event_record(e, &mark);
  if (s) return tt_py_raise(s);
  return PyLong_FromUnsignedLongLong(mark);
}

static PyObject *py_event_query(PyObject *self, PyObject *arg) {
  (void)self;
  unsigned long long mark = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  int done = 0;
  tt_status_t s = tt_event_query(e, mark, &done);
  if (s) return tt_py_raise(s);
  return PyBool_FromLong(done);
}

static PyObject *py_event_synchronize(PyObject *self, PyObject *arg) {
  (void)self;
  unsigned long long mark = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_status_t s = tt_event_synchronize(e, mark);
  if (s) return tt_py_raise(s);
  Py_RETURN_NONE;
}

/* The core's device-buffer counters, and the plugin allocator's own
 * (device_*; -1 where the plugin does not report them). */
static PyObject *py_memory_stats(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_memory_stats_t m = tt_engine_memory(e);
  tt_pjrt_memory_t d;
  int have = tt_engine_device_memory(e, &d);
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:O,s:L,s:L,s:L,s:L,s:L}", "live_bytes", (long long)m.live_bytes,
                       "peak_bytes", (long long)m.peak_bytes, "num_allocs", (long long)m.num_allocs, "num_frees",
                       (long long)m.num_frees, "live_buffers", (long long)m.live_buffers, "peak_buffers",
                       (long long)m.peak_buffers, "allocated_bytes", (long long)m.allocated_bytes, "freed_bytes",
                       (long long)m.freed_bytes, "device_stats", have ? Py_True : Py_False, "device_bytes_in_use",
                       (long long)d.bytes_in_use, "device_peak_bytes_in_use", (long long)d.peak_bytes_in_use,
                       "device_bytes_limit", (long long)d.bytes_limit, "device_bytes_reserved",
                       (long long)d.bytes_reserved, "device_peak_bytes_reserved", (long long)d.peak_bytes_reserved);
}

static PyObject *py_reset_peak(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  if (tt_py.engine) tt_engine_reset_memory_peak(tt_py.engine);
  Py_RETURN_NONE;
}

/* {phase: (nanoseconds, count)} of the on-demand timers (base/prof.h); resets them. */
static PyObject *py_prof_take(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  PyObject *d = PyDict_New();
  for (int i = 0; d && i < TT_PROF_COUNT; i++) {
    uint64_t ns, n;
    tt_prof_get(i, &ns, &n);
    PyObject *v = Py_BuildValue("(KK)", (unsigned long long)ns, (unsigned long long)n);
    if (!v || PyDict_SetItemString(d, tt_prof_name(i), v) < 0) Py_CLEAR(d);
    Py_XDECREF(v);
  }
  tt_prof_reset();
  return d;
}

/* set_allow_excess_precision(bool): deferred work runs first, under the old setting. */
static PyObject *py_set_allow_excess_precision(PyObject *self, PyObject *arg) {
  (void)self;
  int on = PyObject_IsTrue(arg);
  if (on < 0) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_status_t s = tt_engine_change_excess_precision(e, on);
  if (s) return tt_py_raise(s);
  Py_RETURN_NONE;
}

static PyObject *py_allow_excess_precision(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  return PyBool_FromLong(tt_engine_allows_excess_precision(e));
}

static PyObject *py_region_stats(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_region_stats_t rs = tt_engine_region_stats(e);
  const tt_region_stats_t *r = &rs;
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "flushes", (unsigned long long)r->flushes, "last_nodes",
                       (unsigned long long)r->last_nodes, "last_outputs", (unsigned long long)r->last_outputs,
                       "last_ops", (unsigned long long)r->last_ops, "repeat_cuts",
                       (unsigned long long)r->repeat_cuts, "chunk_cuts", (unsigned long long)r->chunk_cuts, "ops",
                       (unsigned long long)r->ops);
}

/* set_launch_timing(bool): each launch waits for its program and its time is
 * summed (exec/stats.h); launch_timing() reads the sums. */
static PyObject *py_set_launch_timing(PyObject *self, PyObject *arg) {
  (void)self;
  int on = PyObject_IsTrue(arg);
  if (on < 0) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_status_t s = tt_engine_set_launch_timing(e, on);
  if (s) return tt_py_raise(s);
  Py_RETURN_NONE;
}

static PyObject *py_launch_timing(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_launch_timing_t t = tt_engine_launch_timing(e);
  return Py_BuildValue("{s:O,s:K,s:d}", "enabled", t.on ? Py_True : Py_False, "launches",
                       (unsigned long long)t.launches, "seconds", (double)t.ns * 1e-9);
}

/* set_eager_buckets(bool): ops on padded tensors run at their bucket's shape (ops/bucket.h). */
static PyObject *py_set_eager_buckets(PyObject *self, PyObject *arg) {
  (void)self;
  int on = PyObject_IsTrue(arg);
  if (on < 0) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_engine_set_eager_buckets(e, on);
  Py_RETURN_NONE;
}

static PyObject *py_get_eager_buckets(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  return PyBool_FromLong(tt_engine_eager_buckets(e));
}

/* set_eager_bucket_min(n): the least capacity of a small tensor's grown dim (ops/bucket.h). */
static PyObject *py_set_eager_bucket_min(PyObject *self, PyObject *arg) {
  (void)self;
  long long n = PyLong_AsLongLong(arg);
  if (n == -1 && PyErr_Occurred()) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_engine_set_eager_bucket_min(e, n > ((long long)1 << 40) ? ((long long)1 << 40) : n);
  Py_RETURN_NONE;
}

static PyObject *py_get_eager_bucket_min(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  return PyLong_FromLongLong(tt_engine_eager_bucket_min(e));
}

/* set_tiered_compile(n): tiered compilation's threshold (0 off, -1 the environment's). */
static PyObject *py_set_tiered_compile(PyObject *self, PyObject *arg) {
  (void)self;
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_engine_set_tiered_compile(e, n < -1 ? -1 : n > 1000000000 ? 1000000000 : (int)n);
  Py_RETURN_NONE;
}

static PyObject *py_get_tiered_compile(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  return PyLong_FromLong(tt_engine_tiered_compile(e));
}

static PyObject *py_set_defer_chunk_ops(PyObject *self, PyObject *arg) {
  (void)self;
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_engine_set_defer_chunk_ops(e, (int)n);
  Py_RETURN_NONE;
}

static PyObject *py_get_defer_chunk_ops(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  return PyLong_FromLong(tt_engine_defer_chunk_ops(e));
}

/* check_strided(tensor, size, stride, offset): PyTorch's bounds rule for
 * as_strided against the core storage (torch's own reports 0 bytes). A
 * tensor with no core storage has nothing to check against: a wrapper
 * subclass, such as functionalization's FunctionalTensor, on which
 * AOTAutograd replays an in-place view op (transpose_, unsqueeze_) to update
 * the wrapper's sizes and strides. */
static PyObject *py_check_strided(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *tensor, *size, *stride;
  long long offset;
  if (!PyArg_ParseTuple(args, "OOOL", &tensor, &size, &stride, &offset)) return NULL;
  if (!tt_py_tensor_storage(tensor)) Py_RETURN_NONE;
  tt_tensor_ref_t ref;
  if (!tt_py_tensor_ref(tensor, "as_strided", &ref)) return NULL;
  if (!ref.storage) Py_RETURN_NONE;
  tt_view_t v;
  memset(&v, 0, sizeof v);
  PyObject *a = PySequence_Fast(size, "size must be a sequence"), *b = PySequence_Fast(stride, "stride must be a sequence");
  if (!a || !b) {
    Py_XDECREF(a);
    Py_XDECREF(b);
    return NULL;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(a);
  if (n > TT_MAX_RANK || PySequence_Fast_GET_SIZE(b) != n) {
    Py_DECREF(a);
    Py_DECREF(b);
    return PyErr_Format(PyExc_RuntimeError, "as_strided: %zd sizes and %zd strides (at most %d dims on TPU)", n,
                        PySequence_Fast_GET_SIZE(b), TT_MAX_RANK);
  }
  v.rank = (int)n;
  for (Py_ssize_t i = 0; i < n; i++) {
    v.sizes[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(a, i));
    v.strides[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(b, i));
  }
  Py_DECREF(a);
  Py_DECREF(b);
  if (PyErr_Occurred()) return NULL;
  v.offset = offset;
  int64_t bytes = tt_api_storage_nbytes(ref.storage);
  tt_status_t s = tt_view_check_bounds(&v, tt_dtype_size(ref.dtype), bytes);
  if (s) return tt_py_raise(s);
  Py_RETURN_NONE;
}

/* storage_nbytes(size, stride or None, itemsize, offset): the bytes a storage
 * needs for that view (contiguous when stride is None), PyTorch's overflow
 * check and message; for empty_strided. Pure arithmetic: no engine lock. */
static PyObject *py_storage_nbytes(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *size, *stride;
  long long itemsize, offset;
  if (!PyArg_ParseTuple(args, "OOLL", &size, &stride, &itemsize, &offset)) return NULL;
  int64_t d[2][TT_MAX_RANK];
  PyObject *lists[2] = {size, stride};
  Py_ssize_t n = 0;
  for (int k = 0; k < 2; k++) {
    if (lists[k] == Py_None) continue;
    PyObject *seq = PySequence_Fast(lists[k], "size and stride must be sequences");
    if (!seq) return NULL;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    if (m > TT_MAX_RANK || (k && m != n)) {
      Py_DECREF(seq);
      return PyErr_Format(PyExc_RuntimeError, "%zd sizes and %zd strides (at most %d dims on TPU)", n, m, TT_MAX_RANK);
    }
    n = k ? n : m;
    for (Py_ssize_t i = 0; i < m; i++) d[k][i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    Py_DECREF(seq);
    if (PyErr_Occurred()) return NULL;
  }
  int64_t nbytes;
  tt_status_t s = stride == Py_None ? tt_nbytes_contiguous(d[0], (int)n, offset, (size_t)itemsize, &nbytes)
                                    : tt_nbytes_strided(d[0], d[1], (int)n, offset, (size_t)itemsize, &nbytes);
  if (s) return tt_py_raise(s);
  return PyLong_FromLongLong(nbytes);
}

ENGINE_ENTRY(py_init)
ENGINE_ENTRY(py_setup)
ENGINE_ENTRY(py_op_names)
ENGINE_ENTRY(py_empty)
ENGINE_ENTRY(py_upload)
ENGINE_ENTRY(py_download)
ENGINE_ENTRY(py_synchronize)
ENGINE_ENTRY(py_runtime_info)
ENGINE_ENTRY(py_cache_stats)
ENGINE_ENTRY(py_set_eager_mode)
ENGINE_ENTRY(py_get_eager_mode)
ENGINE_ENTRY(py_rng_state)
ENGINE_ENTRY(py_set_rng_state)
ENGINE_ENTRY(py_grow_storage)
ENGINE_ENTRY(py_resize_storage)
ENGINE_ENTRY(py_event_record)
ENGINE_ENTRY(py_event_query)
ENGINE_ENTRY(py_event_synchronize)
ENGINE_ENTRY(py_memory_stats)
ENGINE_ENTRY(py_reset_peak)
ENGINE_ENTRY(py_prof_take)
ENGINE_ENTRY(py_region_stats)
ENGINE_ENTRY(py_set_allow_excess_precision)
ENGINE_ENTRY(py_allow_excess_precision)
ENGINE_ENTRY(py_set_defer_chunk_ops)
ENGINE_ENTRY(py_set_eager_buckets)
ENGINE_ENTRY(py_set_launch_timing)
ENGINE_ENTRY(py_launch_timing)
ENGINE_ENTRY(py_get_eager_buckets)
ENGINE_ENTRY(py_set_eager_bucket_min)
ENGINE_ENTRY(py_get_eager_bucket_min)
ENGINE_ENTRY(py_set_tiered_compile)
ENGINE_ENTRY(py_get_tiered_compile)
ENGINE_ENTRY(py_get_defer_chunk_ops)
ENGINE_ENTRY(py_check_strided)
ENGINE_ENTRY(py_storage_numel)
ENGINE_ENTRY(tt_py_fallback_set_enabled)
ENGINE_ENTRY(tt_py_fallback_enabled)
ENGINE_ENTRY(tt_py_fallback_enter)
ENGINE_ENTRY(tt_py_fallback_unsupported)
ENGINE_ENTRY(tt_py_fallback_counts)
ENGINE_ENTRY(tt_py_fallback_reset)

static PyObject *py_call_entry(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
  if (!tt_py_engine_enter()) return NULL;
  PyObject *res = py_call(self, argv, argc);
  tt_py_engine_leave();
  return res;
}

/* foreign_intern(text) -> key: a StableHLO module for _tt_foreign_call.
 * The table has its own lock: no engine lock. */
static PyObject *py_foreign_intern(PyObject *self, PyObject *arg) {
  (void)self;
  Py_ssize_t len;
  const char *text = PyUnicode_AsUTF8AndSize(arg, &len);
  if (!text) return NULL;
  int64_t key = 0;
  tt_status_t s = tt_api_foreign_intern(text, (size_t)len, &key);
  if (s) return tt_py_raise(s);
  int nin, nout;
  tt_api_foreign_arity(key, &nin, &nout);
  return Py_BuildValue("(Lii)", (long long)key, nin, nout);
}

/* op_size_companion(id): the op id of that op's size companion, or None. */
static PyObject *py_op_size_companion(PyObject *self, PyObject *args) {
  (void)self;
  int id;
  if (!PyArg_ParseTuple(args, "i", &id)) return NULL;
  int c = tt_call_op_size_companion(id);
  if (c < 0) Py_RETURN_NONE;
  return PyLong_FromLong(c);
}

/* autocast_policy() -> [(op name, "lower" | "fp32" | "promote")]: the core's table (ops/autocast_policy.h). */
static PyObject *py_autocast_policy(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  int n = tt_autocast_count();
  PyObject *list = PyList_New(n);
  for (int i = 0; list && i < n; i++) {
    const tt_autocast_row_t *r = tt_autocast_row(i);
    PyObject *t = Py_BuildValue("(ss)", r->name, tt_autocast_class_name(r->cls));
    if (!t) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, t);
  }
  return list;
}


/* No lock: callable in a forked child, where the engine must not be touched. */
static PyObject *py_in_bad_fork(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyBool_FromLong(tt_engine_forked());
}

/* No lock: the declarations are constant. [(name, kind, default, doc)] */
static PyObject *py_env_vars(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  static const char *const kinds[] = {"flag", "count", "bytes", "text"};
  PyObject *list = PyList_New(0);
  for (int i = 0; list && tt_env_decl(i); i++) {
    const tt_env_decl_t *d = tt_env_decl(i);
    PyObject *t = Py_BuildValue("(ssss)", d->name, kinds[d->kind], d->dflt, d->doc);
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

static PyObject *py_gil_releases(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyLong_FromUnsignedLongLong(tt_py_engine_gil_releases());
}

/* At exit: a forked child has no compile threads to stop (nor may it touch
 * the engine), so it skips this quietly. */
static PyObject *py_stop_compiles_entry(PyObject *self, PyObject *unused) {
  if (!tt_py_engine_enter_quiet()) Py_RETURN_NONE;
  PyObject *res = py_stop_compiles(self, unused);
  tt_py_engine_leave();
  return res;
}

static PyMethodDef methods[] = {
    {"storage_nbytes", py_storage_nbytes, METH_VARARGS, "storage_nbytes(size, stride|None, itemsize, offset)"},
    {"foreign_intern", py_foreign_intern, METH_O, "foreign_intern(module_text) -> (key, nin, nout)"},
    {"in_bad_fork", py_in_bad_fork, METH_NOARGS, "True in a child forked after the device was initialized"},
    {"gil_releases", py_gil_releases, METH_NOARGS, "host waits so far that released the GIL"},
    {"env_vars", py_env_vars, METH_NOARGS, "the environment variables the core reads: [(name, kind, default, doc)]"},
    {"init", py_init_entry, METH_VARARGS, "init(fallback_plugin_path_or_None): load the PJRT plugin"},
    {"setup", py_setup_entry, METH_VARARGS, "setup(create_empty, dtypes, Tensor)"},
    {"set_layout_ops", py_set_layout_ops, METH_VARARGS, "set_layout_ops(pointwise_op_ids, restride): results laid out as CPU lays them out"},
    {"set_inplace_iterator_ops", py_set_inplace_iterator_ops, METH_VARARGS,
     "set_inplace_iterator_ops(binary_ids, pointwise_ids): in-place ops self.op_(other) and the other in-place "
     "pointwise ops, whose iterator checks precede a dtype refusal"},
    {"op_size_companion", py_op_size_companion, METH_VARARGS, "op_size_companion(id): its size companion's op id, or None"},
    {"autocast_policy", py_autocast_policy, METH_NOARGS, "autocast_policy(): [(op name, autocast class)]"},
    {"op_names", py_op_names_entry, METH_NOARGS, "names of the ops the core lowers, by op id"},
    {"call", (PyCFunction)(void (*)(void))py_call_entry, METH_FASTCALL, "call(op_id, args): run an op"},
    {"empty", py_empty_entry, METH_VARARGS, "empty(shape, dtype): a contiguous tensor over a new lazy storage"},
    {"upload", py_upload_entry, METH_VARARGS, "upload(dst, cpu_src)"},
    {"download", py_download_entry, METH_VARARGS, "download(src, cpu_dst)"},
    {"synchronize", py_synchronize_entry, METH_NOARGS, "wait for all work launched so far"},
    {"stop_compiles", py_stop_compiles_entry, METH_NOARGS, "join the background compile threads (at exit)"},
    {"runtime_info", py_runtime_info_entry, METH_NOARGS, "plugin and device facts"},
    {"cache_stats", py_cache_stats_entry, METH_NOARGS, "compile cache counters"},
    {"set_eager_mode", py_set_eager_mode_entry, METH_O, "set_eager_mode(name): 'strict', 'debug' or 'defer_and_fuse'"},
    {"get_eager_mode", py_get_eager_mode_entry, METH_NOARGS, "the current eager mode's name"},
    {"rng_state", py_rng_state_entry, METH_NOARGS, "(seed, offset)"},
    {"set_rng_state", py_set_rng_state_entry, METH_VARARGS, "set_rng_state(seed, offset)"},
    {"grow_storage", py_grow_storage_entry, METH_VARARGS, "grow_storage(tensor or storage, nbytes): resize_/set_ storage growth"},
    {"resize_storage", py_resize_storage_entry, METH_VARARGS, "resize_storage(tensor or storage, nbytes): UntypedStorage.resize_"},
    {"event_record", py_event_record_entry, METH_NOARGS, "event_record() -> mark after the work launched so far"},
    {"event_query", py_event_query_entry, METH_O, "event_query(mark) -> whether the work before mark is done"},
    {"event_synchronize", py_event_synchronize_entry, METH_O, "event_synchronize(mark): waits for the work before mark"},
    {"memory_stats", py_memory_stats_entry, METH_NOARGS, "bytes held by storages: live and peak"},
    {"reset_peak_memory", py_reset_peak_entry, METH_NOARGS, "peak := live"},
    {"prof_take", py_prof_take_entry, METH_NOARGS, "phase timers of the op path (built with -DTT_PROFILE=1), reset"},
    {"region_stats", py_region_stats_entry, METH_NOARGS, "counters of the deferred region"},
    {"set_allow_excess_precision", py_set_allow_excess_precision_entry, METH_O,
     "set_allow_excess_precision(bool): may programs compiled from now on skip roundings (XLA's default)"},
    {"allow_excess_precision", py_allow_excess_precision_entry, METH_NOARGS, "the setting above"},
    {"set_eager_buckets", py_set_eager_buckets_entry, METH_O,
     "set_eager_buckets(bool): eager cat grows tensors in power-of-two buckets; ops on them compile once per bucket"},
    {"get_eager_buckets", py_get_eager_buckets_entry, METH_NOARGS, "whether eager buckets are on"},
    {"set_eager_bucket_min", py_set_eager_bucket_min_entry, METH_O,
     "set_eager_bucket_min(n): the least capacity of a small tensor's grown dim (1: every power of two)"},
    {"get_eager_bucket_min", py_get_eager_bucket_min_entry, METH_NOARGS, "the setting above"},
    {"set_launch_timing", py_set_launch_timing_entry, METH_O,
     "set_launch_timing(bool): each launch waits for its program; its time is summed (for benchmarks)"},
    {"launch_timing", py_launch_timing_entry, METH_NOARGS, "{enabled, launches, seconds} of launch timing"},
    {"set_tiered_compile", py_set_tiered_compile_entry, METH_O,
     "set_tiered_compile(n): quick first compiles, optimized after n lookups (0 off, -1 the environment's)"},
    {"get_tiered_compile", py_get_tiered_compile_entry, METH_NOARGS, "tiered compilation's threshold (0: off)"},
    {"_set_defer_chunk_ops", py_set_defer_chunk_ops_entry, METH_O, "DeferAndFuse closes a region after n ops (0: never)"},
    {"_get_defer_chunk_ops", py_get_defer_chunk_ops_entry, METH_NOARGS, "DeferAndFuse's chunk size in ops (0: none)"},
    {"check_strided", py_check_strided_entry, METH_VARARGS, "check_strided(t, size, stride, offset): as_strided bounds"},
    {"storage_numel", py_storage_numel_entry, METH_O, "elements of a tpu tensor's storage, or None"},
    {"fallback_set_enabled", tt_py_fallback_set_enabled_entry, METH_O, "turn the CPU fallback on or off"},
    {"fallback_enabled", tt_py_fallback_enabled_entry, METH_NOARGS, "whether the CPU fallback is on"},
    {"fallback_enter", tt_py_fallback_enter_entry, METH_O, "fallback_enter(op): count a host run (True on the first) or raise"},
    {"fallback_unsupported", tt_py_fallback_unsupported_entry, METH_VARARGS, "fallback_unsupported(op, what): raise"},
    {"fallback_counts", tt_py_fallback_counts_entry, METH_NOARGS, "{op: host runs}"},
    {"fallback_reset", tt_py_fallback_reset_entry, METH_NOARGS, "forget the counts (ops warn again)"},
    {"_collective_selftest", tt_py_collective_selftest_entry, METH_VARARGS,
     "_collective_selftest(plugin, kind, op, dtype, shape, dim, concat_dim, world, groups, pairs, "
     "channel, inputs, factors[, root]): one skinny collective on `world` CPU devices of a private client"},
    {"_replica_groups", tt_py_replica_groups_entry, METH_VARARGS,
     "_replica_groups(world, groups): the complete split StableHLO names"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "torchtpu._C", "torchtpu's C core binding", -1, methods,
                                     NULL, NULL, NULL, NULL};

#define INTERN(field, text) \
  if (!(tt_py.field = PyUnicode_InternFromString(text))) return NULL

PyMODINIT_FUNC PyInit__C(void) {
  if (PyType_Ready(&TtStorageType) < 0) return NULL;
  INTERN(str_tt, "_tt");
  INTERN(str_untyped_storage, "untyped_storage");
  INTERN(str_stride, "stride");
  INTERN(str_storage_offset, "storage_offset");
  INTERN(str_shape, "shape");
  INTERN(str_dtype, "dtype");
  INTERN(str_item, "item");
  INTERN(str_is_conj, "is_conj");
  INTERN(str_is_neg, "is_neg");
  INTERN(str_requires_grad, "requires_grad");
  INTERN(str_current_level, "_current_level");
  INTERN(str_dim, "dim");
  INTERN(str_data_ptr, "data_ptr");
  INTERN(str_is_contiguous, "is_contiguous");
  INTERN(str_swap_data_ptr, "_swap_data_ptr_");
  INTERN(str_nbytes, "nbytes");
  INTERN(str_device, "device");
  tt_py_engine_install_hooks();
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  if (PyModule_AddFunctions(m, tt_py_precision_methods) < 0) return NULL;
  if (PyModule_AddFunctions(m, tt_py_layout_methods) < 0) return NULL;
  if (PyModule_AddFunctions(m, tt_py_out_write_methods) < 0) return NULL;
  if (PyModule_AddFunctions(m, tt_py_plan_methods) < 0 || !tt_py_plan_ready(m)) return NULL;
  Py_INCREF(&TtStorageType);
  PyModule_AddObject(m, "Storage", (PyObject *)&TtStorageType);
  return m;
}
