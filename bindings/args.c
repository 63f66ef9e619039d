/* Python values -> core arguments (tensors become view references). */
#include <string.h>

#include "bindings.h"

tt_dtype_t tt_py_dtype(PyObject *dtype) {
  for (int i = 0; i < TT_DTYPE_COUNT; i++)
    if (tt_py.dtypes[i] == dtype) return (tt_dtype_t)i;
  return TT_DTYPE_INVALID;
}

static int int_tuple(PyObject *seq, int64_t *out, int max, const char *what) {
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > max) {
    PyErr_Format(PyExc_RuntimeError, "%s: tensors of rank %zd are not supported on TPU (max %d)", what, n, max);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    out[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    if (out[i] == -1 && PyErr_Occurred()) return -1;
  }
  return (int)n;
}

int tt_py_seq_ints(PyObject *obj, int64_t *out, int max, const char *what) {
  PyObject *seq = PySequence_Fast(obj, "expected a sequence");
  if (!seq) return -1;
  int n = int_tuple(seq, out, max, what);
  Py_DECREF(seq);
  return n;
}

static int host_scalar(PyObject *obj, tt_tensor_ref_t *out) {
  PyObject *v = PyObject_CallMethodNoArgs(obj, tt_py.str_item);
  if (!v) return 0;
  out->is_host_scalar = 1;
  if (PyFloat_Check(v)) {
    out->host_f = PyFloat_AsDouble(v);
  } else if (PyLong_Check(v)) {
    out->host_i = PyLong_AsLongLong(v);
    out->host_f = (double)out->host_i;
  } else if (PyComplex_Check(v)) {
    out->host_f = PyComplex_RealAsDouble(v);
    out->host_im = PyComplex_ImagAsDouble(v);
  } else {
    Py_DECREF(v);
    PyErr_SetString(PyExc_TypeError, "a 0-dim host tensor of an unsupported type");
    return 0;
  }
  Py_DECREF(v);
  return 1;
}

static int math_bit(PyObject *obj, PyObject *method) {
  PyObject *v = PyObject_CallMethodNoArgs(obj, method);
  if (!v) return -1;
  int r = PyObject_IsTrue(v);
  Py_DECREF(v);
  return r;
}

int tt_py_device_mismatch(PyObject *tensor, const char *op) {
  PyObject *dev = PyObject_GetAttrString(tensor, "device");
  PyObject *ds = dev ? PyObject_Str(dev) : NULL;
  PyErr_Format(PyExc_RuntimeError,
               "Expected all tensors to be on the same device, but found at least two devices, tpu:0 and %s! (in %s)",
               ds ? PyUnicode_AsUTF8(ds) : "another device", op);
  Py_XDECREF(ds);
  Py_XDECREF(dev);
  return 0;
}

int tt_py_tensor_ref(PyObject *obj, const char *op, tt_tensor_ref_t *out) {
  memset(out, 0, sizeof(*out));
  PyObject *dt = PyObject_GetAttr(obj, tt_py.str_dtype);
  if (!dt) return 0;
  out->dtype = tt_py_dtype(dt);
  if (out->dtype == TT_DTYPE_INVALID) {
    PyObject *r = PyObject_Str(dt);
    PyErr_Format(PyExc_NotImplementedError,
                 "%s: dtype %s is not supported on TPU yet (supported: float32, bfloat16, float16, "
                 "float64, complex64, complex128, int64, int32, int16, int8, uint8, bool)", op, r ? PyUnicode_AsUTF8(r) : "?");
    Py_XDECREF(r);
    Py_DECREF(dt);
    return 0;
  }
  Py_DECREF(dt);
  /* PyTorch's lazy conj/neg bits exist only on complex (conj) and on
   * floating/complex (neg, e.g. the imag of a conj view) tensors. */
  if (tt_dtype_is_complex(out->dtype) || tt_dtype_is_float(out->dtype)) {
    if (tt_dtype_is_complex(out->dtype) && (out->conj = math_bit(obj, tt_py.str_is_conj)) < 0) return 0;
    if ((out->neg = math_bit(obj, tt_py.str_is_neg)) < 0) return 0;
  }
  out->storage = tt_py_tensor_storage(obj);
  PyObject *shape = PyObject_GetAttr(obj, tt_py.str_shape);
  if (!shape) return 0;
  int rank = tt_py_seq_ints(shape, out->view.sizes, TT_MAX_RANK, op);
  Py_DECREF(shape);
  if (rank < 0) return 0;
  out->view.rank = rank;
  if (!out->storage) return rank == 0 ? host_scalar(obj, out) : tt_py_device_mismatch(obj, op);
  PyObject *st = PyObject_CallMethodNoArgs(obj, tt_py.str_stride);
  if (!st) return 0;
  int n = tt_py_seq_ints(st, out->view.strides, TT_MAX_RANK, op);
  Py_DECREF(st);
  if (n < 0) return 0;
  PyObject *off = PyObject_CallMethodNoArgs(obj, tt_py.str_storage_offset);
  if (!off) return 0;
  out->view.offset = PyLong_AsLongLong(off);
  Py_DECREF(off);
  if (PyErr_Occurred()) return 0;
  return 1;
}

static void *own(tt_py_args_t *a, size_t bytes) {
  if (a->nowned >= (int)(sizeof(a->owned) / sizeof(a->owned[0]))) return NULL;
  void *p = PyMem_Calloc(1, bytes ? bytes : 1);
  if (p) a->owned[a->nowned++] = p;
  return p;
}

/* A type check, not isinstance(): no __instancecheck__ lookup on the
 * metaclass (nn.Parameter and other subclasses took that slow path). */
static int is_tensor(PyObject *o) {
  return PyType_Check(tt_py.tensor_type) && PyObject_TypeCheck(o, (PyTypeObject *)tt_py.tensor_type);
}

static int type_named(PyObject *o, const char *name) { return strcmp(Py_TYPE(o)->tp_name, name) == 0; }

int tt_py_memory_format(PyObject *obj) {
  static const char *names[] = {"torch.preserve_format", "torch.contiguous_format", "torch.channels_last",
                                "torch.channels_last_3d"};
  if (obj == Py_None) return TT_MEMORY_FORMAT_PRESERVE;
  PyObject *r = PyObject_Str(obj);
  const char *s = r ? PyUnicode_AsUTF8(r) : NULL;
  int fmt = -1;
  for (int k = 0; s && k < 4; k++)
    if (!strcmp(s, names[k])) fmt = k;
  if (s && fmt < 0) PyErr_Format(PyExc_RuntimeError, "unsupported memory format %s", s);
  Py_XDECREF(r);
  return fmt;
}

static int convert_list(PyObject *obj, const char *op, tt_py_args_t *a, tt_arg_t *out) {
  PyObject *seq = PySequence_Fast(obj, "expected a sequence");
  if (!seq) return 0;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int has_tensor = 0, has_float = 0, has_complex = 0;
  for (Py_ssize_t i = 0; i < n && !has_tensor; i++) {
    PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
    if (it == Py_None || is_tensor(it)) has_tensor = 1;
    else if (PyFloat_Check(it)) has_float = 1;
    else if (PyComplex_Check(it)) has_complex = 1;
  }
  int ok = 1;
  out->n = (int)n;
  if (has_tensor) {
    out->kind = TT_ARG_TENSORS;
    out->t = own(a, sizeof(tt_tensor_ref_t) * (size_t)n);
    if (!out->t) ok = 0, PyErr_NoMemory();
    for (Py_ssize_t i = 0; ok && i < n; i++) {
      PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
      if (it == Py_None) out->t[i].dtype = TT_DTYPE_INVALID;
      else ok = tt_py_tensor_ref(it, op, &out->t[i]);
    }
  } else if (has_complex) { /* a scalar list with a complex entry (_foreach_add(z, [1, 2j])) */
    out->kind = TT_ARG_FLOATS;
    out->floats = own(a, sizeof(double) * (size_t)n);
    out->floats_im = own(a, sizeof(double) * (size_t)n);
    out->floats_complex = own(a, (size_t)n);
    if (!out->floats || !out->floats_im || !out->floats_complex) ok = 0, PyErr_NoMemory();
    for (Py_ssize_t i = 0; ok && i < n; i++) {
      PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
      Py_complex c = PyComplex_AsCComplex(it);
      if (PyErr_Occurred()) ok = 0;
      out->floats[i] = c.real, out->floats_im[i] = c.imag;
      out->floats_complex[i] = (unsigned char)PyComplex_Check(it);
    }
  } else if (has_float) {
    out->kind = TT_ARG_FLOATS;
    out->floats = own(a, sizeof(double) * (size_t)n);
    out->floats_im = NULL, out->floats_complex = NULL;
    if (!out->floats) ok = 0, PyErr_NoMemory();
    for (Py_ssize_t i = 0; ok && i < n; i++) {
      out->floats[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
      if (PyErr_Occurred()) ok = 0;
    }
  } else {
    out->kind = TT_ARG_INTS;
    out->ints = own(a, sizeof(int64_t) * (size_t)n);
    if (!out->ints) ok = 0, PyErr_NoMemory();
    for (Py_ssize_t i = 0; ok && i < n; i++) {
      out->ints[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
      if (out->ints[i] == -1 && PyErr_Occurred()) ok = 0;
    }
  }
  Py_DECREF(seq);
  return ok;
}

static int is_generator(PyObject *o) {
  for (PyTypeObject *t = Py_TYPE(o); t; t = t->tp_base)
    if (strcmp(t->tp_name, "torch._C.Generator") == 0) return 1;
  return 0;
}

/* A torch.tpu.Generator (it carries _tt_seed) drives the op's random draws;
 * any other generator belongs to another device: CUDA's error for a CPU
 * generator, with our device name. */
static int convert_generator(PyObject *obj, const char *op, tt_py_args_t *a) {
  static PyObject *lookup; /* torchtpu._generator._lookup, held for the process */
  if (!lookup) {
    PyObject *m = PyImport_ImportModule("torchtpu._generator");
    lookup = m ? PyObject_GetAttrString(m, "_lookup") : NULL;
    Py_XDECREF(m);
    if (!lookup) return 0;
  }
  PyObject *ours = PyObject_CallOneArg(lookup, obj);
  if (!ours) return 0;
  if (ours != Py_None) {
    a->generator = ours; /* the registry and the caller's object keep it alive during the call */
    Py_DECREF(ours);
    return 1;
  }
  Py_DECREF(ours);
  PyObject *dev = PyObject_GetAttrString(obj, "device");
  PyObject *ty = dev ? PyObject_GetAttrString(dev, "type") : NULL;
  const char *name = ty && PyUnicode_Check(ty) ? PyUnicode_AsUTF8(ty) : NULL;
  PyErr_Clear();
  PyErr_Format(PyExc_RuntimeError,
               "%s: Expected a 'tpu' device type for generator but found '%s' (use torch.tpu.Generator() for tpu tensors)",
               op, name ? name : "?");
  Py_XDECREF(ty);
  Py_XDECREF(dev);
  return 0;
}

static int convert_one(PyObject *obj, const char *op, tt_py_args_t *a, tt_arg_t *out) {
  memset(out, 0, sizeof(*out));
  if (obj == Py_None) return 1;
  if (PyBool_Check(obj)) {
    out->kind = TT_ARG_BOOL;
    out->i = obj == Py_True;
    return 1;
  }
  if (PyLong_Check(obj)) {
    out->kind = TT_ARG_INT;
    out->i = PyLong_AsLongLong(obj);
    return !(out->i == -1 && PyErr_Occurred());
  }
  if (PyFloat_Check(obj)) {
    out->kind = TT_ARG_FLOAT;
    out->f = PyFloat_AsDouble(obj);
    return 1;
  }
  if (PyUnicode_Check(obj)) {
    out->kind = TT_ARG_STR;
    out->s = PyUnicode_AsUTF8(obj);
    return out->s != NULL;
  }
  if (is_tensor(obj)) {
    out->kind = TT_ARG_TENSOR;
    out->t = own(a, sizeof(tt_tensor_ref_t));
    if (!out->t) {
      PyErr_NoMemory();
      return 0;
    }
    return tt_py_tensor_ref(obj, op, out->t);
  }
  if (PyList_Check(obj) || PyTuple_Check(obj)) return convert_list(obj, op, a, out);
  if (type_named(obj, "torch.dtype")) {
    tt_dtype_t dt = tt_py_dtype(obj);
    if (dt == TT_DTYPE_INVALID) {
      PyObject *r = PyObject_Str(obj);
      PyErr_Format(PyExc_NotImplementedError, "%s: dtype %s is not supported on TPU yet", op,
                   r ? PyUnicode_AsUTF8(r) : "?");
      Py_XDECREF(r);
      return 0;
    }
    out->kind = TT_ARG_DTYPE;
    out->i = dt;
    return 1;
  }
  if (type_named(obj, "torch.device")) return tt_py_check_device(obj); /* placement: only tpu:0 exists */
  if (type_named(obj, "torch.memory_format")) {
    out->kind = TT_ARG_MEMORY_FORMAT;
    out->i = tt_py_memory_format(obj);
    return out->i >= 0;
  }
  if (type_named(obj, "torch.layout")) return 1; /* torch.strided: nothing for the core */
  if (is_generator(obj)) return convert_generator(obj, op, a);
  if (PyComplex_Check(obj)) {
    out->kind = TT_ARG_COMPLEX;
    out->f = PyComplex_RealAsDouble(obj);
    out->f_im = PyComplex_ImagAsDouble(obj);
    return 1;
  }
  /* SymInt-like objects that convert to int. */
  PyObject *idx = PyNumber_Index(obj);
  if (idx) {
    out->kind = TT_ARG_INT;
    out->i = PyLong_AsLongLong(idx);
    Py_DECREF(idx);
    return !PyErr_Occurred();
  }
  PyErr_Clear();
  PyErr_Format(PyExc_TypeError, "%s: unsupported argument of type %s", op, Py_TYPE(obj)->tp_name);
  return 0;
}

/* torch.get_default_dtype() reaches the core with every call (PyTorch has
 * no hook on set_default_dtype): one call of a C builtin returning a cached
 * dtype object, compared by identity with the last one seen. */
static int sync_default_dtype(void) {
  static PyObject *get_default, *last;
  if (!get_default) {
    PyObject *torch = PyImport_ImportModule("torch");
    if (!torch) return 0;
    get_default = PyObject_GetAttrString(torch, "get_default_dtype");
    Py_DECREF(torch);
    if (!get_default) return 0;
  }
  PyObject *dt = PyObject_CallNoArgs(get_default);
  if (!dt) return 0;
  if (dt != last && tt_py.engine) {
    last = dt; /* dtype objects live as long as torch: borrowed */
    tt_call_set_default_dtype(tt_py.engine, tt_py_dtype(dt));
  }
  Py_DECREF(dt);
  return 1;
}

int tt_py_sync_call_state(void) { return sync_default_dtype(); } /* the matmul precision is asked when needed */

int tt_py_args_convert(PyObject *tuple, const char *op, tt_py_args_t *out) {
  if (!sync_default_dtype()) return 0;
  out->nargs = 0;
  out->nowned = 0;
  out->generator = NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(tuple);
  if (n > (Py_ssize_t)(sizeof(out->args) / sizeof(out->args[0]))) {
    PyErr_Format(PyExc_RuntimeError, "%s: too many arguments", op);
    return 0;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (!convert_one(PyTuple_GET_ITEM(tuple, i), op, out, &out->args[i])) {
      tt_py_args_free(out);
      return 0;
    }
    out->nargs++;
  }
  return 1;
}

void tt_py_args_free(tt_py_args_t *a) {
  for (int i = 0; i < a->nowned; i++) PyMem_Free(a->owned[i]);
  a->nowned = 0;
}
