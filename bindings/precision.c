/* The float32 matmul precision of a call, asked by the core while it
 * lowers a float32 contraction (dot_general, convolution), on the calling
 * thread: the thread's torch.tpu.precision block if any, else PyTorch's
 * global torch.get_float32_matmul_precision() (which allow_tf32 and the
 * fp32_precision flags also move), with a platform default (medium on a
 * TPU) while the user has set nothing. Ops that contract nothing never ask,
 * so they pay nothing for it. This file holds the Python-side inputs. */
#include <string.h>

#include "bindings.h"
#include "ir/precision.h"

/* This thread's torch.tpu.precision override, -1 = none. */
static _Thread_local int override_mode = -1;
/* The mode used while PyTorch's setting is its untouched default
 * ("highest"): -1 = PyTorch's, TT_PREC_MEDIUM on a TPU (TorchTPU's default)
 * until the user calls torch.set_float32_matmul_precision. */
static int unset_default = -1;

/* The blocks of the threads now inside backward() (torch.autograd.backward
 * or grad called in a torch.tpu.precision block): PyTorch runs a device's
 * backward ops on its autograd worker thread, which has no block of its own
 * and takes the innermost of these. A stack: threads in backward at once
 * with different blocks see the latest one. */
#define BACKWARD_MAX 64
static int backward_modes[BACKWARD_MAX];
static int backward_depth;

/* Whether this thread is running a backward pass (an autograd worker). */
static int in_backward(void) {
  static PyObject *task_id;
  if (!task_id) {
    PyObject *c = PyImport_ImportModule("torch._C");
    if (!c) return -1;
    task_id = PyObject_GetAttrString(c, "_current_graph_task_id");
    Py_DECREF(c);
    if (!task_id) return -1;
  }
  PyObject *r = PyObject_CallNoArgs(task_id);
  if (!r) return -1;
  long id = PyLong_AsLong(r);
  Py_DECREF(r);
  if (id == -1 && PyErr_Occurred()) return -1;
  return id != -1;
}

static int parse_mode(const char *s) {
  if (!strcmp(s, "highest")) return TT_PREC_HIGHEST;
  if (!strcmp(s, "high")) return TT_PREC_HIGH;
  if (!strcmp(s, "medium")) return TT_PREC_MEDIUM;
  return -1;
}

/* PyTorch's global setting. torch.get_float32_matmul_precision() raises
 * when the legacy and the new (torch.backends.*.fp32_precision) APIs were
 * mixed; then torchtpu._precision.fallback_mode() maps the new API's
 * generic value. Returns -1 with an exception set on failure. */
static int global_mode(void) {
  static PyObject *getter, *fallback;
  if (!getter) {
    PyObject *c = PyImport_ImportModule("torch._C");
    if (!c) return -1;
    getter = PyObject_GetAttrString(c, "_get_float32_matmul_precision");
    Py_DECREF(c);
    if (!getter) return -1;
  }
  PyObject *r = PyObject_CallNoArgs(getter);
  if (!r) {
    if (!PyErr_ExceptionMatches(PyExc_RuntimeError)) return -1;
    PyErr_Clear();
    if (!fallback) {
      PyObject *m = PyImport_ImportModule("torchtpu._precision");
      if (!m) return -1;
      fallback = PyObject_GetAttrString(m, "fallback_mode");
      Py_DECREF(m);
      if (!fallback) return -1;
    }
    r = PyObject_CallNoArgs(fallback);
    if (!r) return -1;
  }
  const char *s = PyUnicode_Check(r) ? PyUnicode_AsUTF8(r) : NULL;
  int mode = s ? parse_mode(s) : -1;
  Py_DECREF(r);
  if (mode < 0 && !PyErr_Occurred()) mode = TT_PREC_HIGHEST;
  if (mode == TT_PREC_HIGHEST && unset_default >= 0) mode = unset_default;
  return mode;
}

/* This thread's mode: its block, the block of the thread that started the
 * backward pass it runs, or the global setting. -1 with an exception set. */
static int thread_mode(void) {
  if (override_mode >= 0) return override_mode;
  if (backward_depth > 0) {
    int b = in_backward();
    if (b < 0) return -1;
    if (b) return backward_modes[backward_depth - 1];
  }
  return global_mode();
}

/* The engine asks this while lowering a float32 contraction, on the thread
 * making the call (which holds the GIL). A failure to read PyTorch's setting
 * (it cannot raise but for a broken torch) is reported as unraisable and
 * the op gets the most precise mode. */
static int precision_source(void *ctx) {
  (void)ctx;
  int mode = thread_mode();
  if (mode >= 0) return mode;
  PyErr_WriteUnraisable(NULL);
  return TT_PREC_HIGHEST;
}

void tt_py_install_matmul_precision(tt_engine_t *e) { tt_call_set_matmul_precision_source(e, precision_source, NULL); }

static int mode_arg(PyObject *arg, int allow_none) {
  if (allow_none && arg == Py_None) return -1;
  const char *s = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
  int mode = s ? parse_mode(s) : -1;
  if (mode < 0) {
    PyErr_Format(PyExc_ValueError, "matmul precision must be 'highest', 'high' or 'medium'%s, got %R",
                 allow_none ? " (or None)" : "", arg);
    return -2;
  }
  return mode;
}

static PyObject *mode_object(int mode) {
  if (mode < 0) Py_RETURN_NONE;
  return PyUnicode_FromString(mode == TT_PREC_MEDIUM ? "medium" : mode == TT_PREC_HIGH ? "high" : "highest");
}

/* _set_precision_override(mode or None) -> the previous override (or None). */
static PyObject *py_set_override(PyObject *self, PyObject *arg) {
  (void)self;
  int mode = mode_arg(arg, 1);
  if (mode == -2) return NULL;
  int prev = override_mode;
  override_mode = mode;
  return mode_object(prev);
}

static PyObject *py_get_override(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return mode_object(override_mode);
}

/* _set_precision_unset_default(mode or None): the mode while PyTorch's
 * setting is untouched (None: PyTorch's own "highest"). */
static PyObject *py_set_unset_default(PyObject *self, PyObject *arg) {
  (void)self;
  int mode = mode_arg(arg, 1);
  if (mode == -2) return NULL;
  unset_default = mode;
  Py_RETURN_NONE;
}

/* _matmul_precision(): the mode the next op on this thread gets. */
static PyObject *py_effective(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  int mode = thread_mode();
  if (mode < 0) return NULL;
  return mode_object(mode);
}

/* _push_backward_precision(): called by the backward()/grad() wrapper of a
 * thread in a block; returns whether it pushed (pop only then). */
static PyObject *py_push_backward(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  if (override_mode < 0 || backward_depth >= BACKWARD_MAX) Py_RETURN_FALSE;
  backward_modes[backward_depth++] = override_mode;
  Py_RETURN_TRUE;
}

static PyObject *py_pop_backward(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  if (backward_depth > 0) backward_depth--;
  Py_RETURN_NONE;
}

PyMethodDef tt_py_precision_methods[] = {
    {"_set_precision_override", py_set_override, METH_O,
     "_set_precision_override(mode|None): this thread's torch.tpu.precision mode; returns the previous one"},
    {"_get_precision_override", py_get_override, METH_NOARGS, "this thread's torch.tpu.precision mode or None"},
    {"_set_precision_unset_default", py_set_unset_default, METH_O,
     "_set_precision_unset_default(mode|None): the mode while torch's setting is its default"},
    {"_matmul_precision", py_effective, METH_NOARGS, "the float32 matmul precision the next op gets"},
    {"_push_backward_precision", py_push_backward, METH_NOARGS,
     "this thread's block for the backward pass it starts; True if pushed"},
    {"_pop_backward_precision", py_pop_backward, METH_NOARGS, "undoes a push"},
    {NULL, NULL, 0, NULL},
};
