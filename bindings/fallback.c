/* torchtpu._C calls of the CPU fallback (api/engine_state.h): argument conversion only. */
#include "api/engine_state.h"
#include "bindings.h"

PyObject *tt_py_fallback_set_enabled(PyObject *self, PyObject *on) {
  (void)self;
  int v = PyObject_IsTrue(on);
  if (v < 0) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_engine_set_fallback(e, v);
  Py_RETURN_NONE;
}

PyObject *tt_py_fallback_enabled(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  return PyBool_FromLong(tt_engine_fallback_enabled(e));
}

PyObject *tt_py_fallback_enter(PyObject *self, PyObject *op) {
  (void)self;
  const char *name = PyUnicode_AsUTF8(op);
  if (!name) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  bool first;
  tt_status_t s = tt_engine_fallback_enter(e, name, &first);
  if (s) return tt_py_raise(s);
  return PyBool_FromLong(first);
}

PyObject *tt_py_fallback_unsupported(PyObject *self, PyObject *args) {
  (void)self;
  const char *op, *what;
  if (!PyArg_ParseTuple(args, "ss", &op, &what)) return NULL;
  return tt_py_raise(tt_engine_fallback_unsupported(op, what));
}

PyObject *tt_py_fallback_counts(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  PyObject *d = PyDict_New();
  for (int i = 0; d && i < tt_engine_fallback_op_count(e); i++) {
    uint64_t runs;
    const char *name = tt_engine_fallback_op(e, i, &runs);
    PyObject *v = PyLong_FromUnsignedLongLong(runs);
    if (!v || PyDict_SetItemString(d, name, v) < 0) Py_CLEAR(d);
    Py_XDECREF(v);
  }
  return d;
}

PyObject *tt_py_fallback_reset(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_engine_fallback_reset(e);
  Py_RETURN_NONE;
}
