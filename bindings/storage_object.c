/* The Python object that ties a core storage's lifetime to a torch storage:
 * it lives as the `_tt` attribute of the torch UntypedStorage. */
#include "bindings.h"

static void storage_dealloc(TtStorageObject *self) {
  tt_storage_release(self->storage);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *storage_numel(TtStorageObject *self, PyObject *unused) {
  (void)unused;
  return PyLong_FromLongLong(self->storage->numel);
}

static PyObject *storage_nbytes(TtStorageObject *self, PyObject *unused) {
  (void)unused;
  return PyLong_FromLongLong(self->storage->numel * (long long)tt_dtype_size(self->storage->dtype));
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
    tt_storage_release(s);
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
  Py_XDECREF(st);
  Py_DECREF(so);
  if (rc < 0) {
    Py_DECREF(t);
    return NULL;
  }
  return t;
}
