/* Status -> Python exception, choosing the type PyTorch raises on CPU. */
#include "bindings.h"

/* torch.<name> (an exception class), looked up once into *cache;
 * RuntimeError if torch lacks it. Borrowed: torch keeps it alive. */
static PyObject *torch_error(const char *name, PyObject **cache) {
  if (!*cache) {
    PyObject *torch = PyImport_ImportModule("torch");
    PyObject *t = torch ? PyObject_GetAttrString(torch, name) : NULL;
    Py_XDECREF(torch);
    if (!t) PyErr_Clear();
    *cache = t ? t : PyExc_RuntimeError;
  }
  return *cache;
}

static PyObject *out_of_memory_error(void) {
  static PyObject *type;
  return torch_error("OutOfMemoryError", &type);
}

int tt_py_check_device(PyObject *device) {
  static PyObject *accelerator_error;
  PyObject *index = PyObject_GetAttrString(device, "index");
  if (!index) return 0;
  long long i = index == Py_None ? 0 : PyLong_AsLongLong(index);
  Py_DECREF(index);
  if (i == -1 && PyErr_Occurred()) return 0;
  if (i == 0) return 1;
  PyObject *type = PyObject_GetAttrString(device, "type");
  int tpu = type && PyUnicode_Check(type) && PyUnicode_CompareWithASCIIString(type, "tpu") == 0;
  Py_XDECREF(type);
  if (!type) return 0;
  if (!tpu) return 1; /* another device type: that op's own checks apply */
  PyErr_Format(torch_error("AcceleratorError", &accelerator_error),
               "TPU error: invalid device ordinal: tpu:%lld was requested, but this process has one tpu "
               "device, tpu:0",
               i);
  return 0;
}

PyObject *tt_py_raise(tt_status_t s) {
  PyObject *type = PyExc_RuntimeError;
  switch (tt_status_code(s)) {
    case TT_OUT_OF_MEMORY: type = out_of_memory_error(); break;
    case TT_TYPE_ERROR: type = PyExc_TypeError; break;
    case TT_VALUE_ERROR: type = PyExc_ValueError; break;
    case TT_INDEX_ERROR: type = PyExc_IndexError; break;
    case TT_NOT_IMPLEMENTED: type = PyExc_NotImplementedError; break;
    default: break;
  }
  PyErr_SetString(type, tt_status_message(s));
  tt_status_free(s);
  return NULL;
}
