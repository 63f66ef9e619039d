/* Status -> Python exception, choosing the type PyTorch raises on CPU. */
#include "bindings.h"

PyObject *tt_py_raise(tt_status_t s) {
  PyObject *type = PyExc_RuntimeError;
  switch (tt_status_code(s)) {
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
