/* The Python object that ties a core storage's lifetime to a torch storage:
 * it lives as the `_tt` attribute of the torch UntypedStorage. */
#include "bindings.h"

static void storage_dealloc(TtStorageObject *self) {
  /* In a forked child the buffer is the parent's: nothing to release here. */
  if (tt_py_engine_enter_quiet()) {
    tt_api_storage_release(self->storage);
    tt_py_engine_leave();
  }
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *storage_numel(TtStorageObject *self, PyObject *unused) {
  (void)unused;
  if (!tt_py_engine_enter()) return NULL; /* another thread may be growing it */
  long long n = tt_api_storage_numel(self->storage);
  tt_py_engine_leave();
  return PyLong_FromLongLong(n);
}

static PyObject *storage_nbytes(TtStorageObject *self, PyObject *unused) {
  (void)unused;
  if (!tt_py_engine_enter()) return NULL;
  long long n = tt_api_storage_nbytes(self->storage);
  tt_py_engine_leave();
  return PyLong_FromLongLong(n);
}

static PyMethodDef storage_methods[] = {
    {"numel", (PyCFunction)storage_numel, METH_NOARGS, "elements in the flat device buffer"},
    {"nbytes", (PyCFunction)storage_nbytes, METH_NOARGS, "bytes in the flat device buffer"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject TtStorageType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "torchtpu._C.Storage",
    .tp_basicsize = sizeof(TtStorageObject),
    .tp_dealloc = (destructor)storage_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A device buffer shared by all views of one torch storage.",
    .tp_methods = storage_methods,
};

PyObject *tt_py_storage_wrap(tt_storage_t *s) {
  TtStorageObject *o = PyObject_New(TtStorageObject, &TtStorageType);
  if (!o) {
    tt_api_storage_release(s);
    return NULL;
  }
  o->storage = s;
  return (PyObject *)o;
}

tt_storage_t *tt_py_tensor_storage(PyObject *tensor) {
  PyObject *st = PyObject_CallMethodNoArgs(tensor, tt_py.str_untyped_storage);
  if (!st) {
    PyErr_Clear();
    return NULL;
  }
  PyObject *tt = PyObject_GetAttr(st, tt_py.str_tt);
  Py_DECREF(st);
  if (!tt) {
    PyErr_Clear();
    return NULL;
  }
  tt_storage_t *s = Py_TYPE(tt) == &TtStorageType ? ((TtStorageObject *)tt)->storage : NULL;
  Py_DECREF(tt); /* the torch storage keeps it alive */
  return s;
}

PyObject *tt_py_make_tensor(tt_storage_t *s, tt_dtype_t dtype, int rank, const int64_t *sizes) {
  PyObject *so = tt_py_storage_wrap(s);
  if (!so) return NULL;
  PyObject *shape = PyTuple_New(rank);
  if (!shape) {
    Py_DECREF(so);
    return NULL;
  }
  for (int i = 0; i < rank; i++) PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(sizes[i]));
  PyObject *t = PyObject_CallFunctionObjArgs(tt_py.create_empty, shape, tt_py.dtypes[dtype], NULL);
  Py_DECREF(shape);
  if (!t) {
    Py_DECREF(so);
    return NULL;
  }
  PyObject *st = PyObject_CallMethodNoArgs(t, tt_py.str_untyped_storage);
  int rc = st ? PyObject_SetAttr(st, tt_py.str_tt, so) : -1;
  if (rc == 0 && !tt_py_sync_storage(st, ((TtStorageObject *)so)->storage, 1)) rc = -1;
  Py_XDECREF(st);
  Py_DECREF(so);
  if (rc < 0) {
    Py_DECREF(t);
    return NULL;
  }
  return t;
}

/* Moves the data pointer and nbytes of a storage made by the constructor
 * into st (PyTorch's _swap_data_ptr_ swaps both). */
static int swap_in(PyObject *st, uint64_t addr, uint64_t nbytes) {
  PyObject *made = PyObject_CallFunction(tt_py.construct_storage, "KOK", (unsigned long long)addr, tt_py.device,
                                         (unsigned long long)nbytes);
  if (!made) return 0;
  PyObject *r = PyObject_CallMethodOneArg(st, tt_py.str_swap_data_ptr, made);
  Py_DECREF(made); /* holds the old pointer now; nothing to free (no deleter) */
  Py_XDECREF(r);
  return r != NULL;
}

static long long call_ll(PyObject *o, PyObject *name) {
  PyObject *r = PyObject_CallMethodNoArgs(o, name);
  if (!r) return -1;
  long long v = PyLong_AsLongLong(r);
  Py_DECREF(r);
  return v;
}

int tt_py_sync_storage(PyObject *st, tt_storage_t *s, int fresh) {
  uint64_t nbytes = (uint64_t)tt_api_storage_nbytes(s), addr;
  if (fresh && nbytes == 0) return 1;
  if (!tt_py.construct_storage) {
    PyObject *torch_c = PyImport_ImportModule("torch._C");
    if (!torch_c) return 0;
    tt_py.construct_storage = PyObject_GetAttrString(torch_c, "_construct_storage_from_data_pointer");
    Py_DECREF(torch_c);
    if (!tt_py.construct_storage) return 0;
  }
  if (!tt_py.device && !(tt_py.device = PyObject_GetAttr(st, tt_py.str_device))) return 0;
  tt_status_t e = tt_api_storage_address(s, &addr);
  if (e) {
    tt_py_raise(e);
    return 0;
  }
  if (!fresh) {
    long long have = call_ll(st, tt_py.str_nbytes), ptr = call_ll(st, tt_py.str_data_ptr);
    if (PyErr_Occurred()) return 0;
    if ((uint64_t)have == nbytes && (uint64_t)ptr == addr) return 1;
    /* _swap_data_ptr_ wants equal sizes or one of them 0: go through 0. */
    if (have != 0 && !swap_in(st, 0, 0)) return 0;
  }
  return nbytes == 0 || swap_in(st, addr, nbytes);
}
