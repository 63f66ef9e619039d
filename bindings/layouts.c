/* The strides the core gives copies and resizes, for the few kernels that
 * build their result outside a core call: a copy across devices (.cpu(),
 * .to("tpu") of a strided host tensor), empty, resize_ and set_. Arithmetic only: no
 * engine, no lock (csrc/ops/result_layout.h, csrc/api/storage_resize.h). */
#include "bindings.h"

#include "api/storage_resize.h"
#include "ops/result_layout.h"

/* copy_strides(sizes, strides, memory_format|None): the strides of a copy of
 * a tensor with that view in that format (preserve when None), or None when
 * they are row-major. */
static PyObject *py_copy_strides(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *size, *stride, *format;
  if (!PyArg_ParseTuple(args, "OOO", &size, &stride, &format)) return NULL;
  tt_view_t v = {0};
  int n = tt_py_seq_ints(size, v.sizes, TT_MAX_RANK, "copy");
  if (n < 0 || tt_py_seq_ints(stride, v.strides, TT_MAX_RANK, "copy") != n) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "copy: as many strides as sizes expected");
    return NULL;
  }
  v.rank = n;
  int fmt = tt_py_memory_format(format);
  if (fmt < 0) return NULL;
  int64_t order[TT_MAX_RANK], strides[TT_MAX_RANK];
  int r = tt_layout_copy_strides(&v, (tt_memory_format_t)fmt, order, strides);
  if (r < 0) return PyErr_Format(PyExc_RuntimeError, "%s", tt_layout_format_rank_error((tt_memory_format_t)fmt));
  if (!r) Py_RETURN_NONE;
  return tt_py_int_tuple(n, strides);
}

/* resize_layout(sizes, memory_format|None, itemsize, offset, resize=True):
 * (strides, nbytes) of Tensor.resize_ (or, resize=False, of torch.empty)
 * with CPU's checks; None is contiguous. */
static PyObject *py_resize_layout(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *size, *format;
  long long itemsize, offset;
  int resize = 1;
  if (!PyArg_ParseTuple(args, "OOLL|p", &size, &format, &itemsize, &offset, &resize)) return NULL;
  int64_t sizes[TT_MAX_RANK], strides[TT_MAX_RANK], nbytes;
  int n = tt_py_seq_ints(size, sizes, TT_MAX_RANK, resize ? "resize_" : "empty");
  if (n < 0) return NULL;
  int fmt = format == Py_None ? TT_MEMORY_FORMAT_CONTIGUOUS : tt_py_memory_format(format);
  if (fmt < 0) return NULL;
  tt_status_t s = tt_resize_layout(resize, n, sizes, (tt_memory_format_t)fmt, (size_t)itemsize, offset, strides, &nbytes);
  if (s) return tt_py_raise(s);
  PyObject *st = tt_py_int_tuple(n, strides);
  return st ? Py_BuildValue("(NL)", st, (long long)nbytes) : NULL;
}

/* set_layout(sizes, strides, itemsize, offset): (strides, nbytes) of
 * Tensor.set_ with CPU's checks; strides () is contiguous. */
static PyObject *py_set_layout(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *size, *stride;
  long long itemsize, offset;
  if (!PyArg_ParseTuple(args, "OOLL", &size, &stride, &itemsize, &offset)) return NULL;
  int64_t sizes[TT_MAX_RANK], given[TT_MAX_RANK], strides[TT_MAX_RANK], nbytes;
  int n = tt_py_seq_ints(size, sizes, TT_MAX_RANK, "set_");
  int m = n < 0 ? -1 : tt_py_seq_ints(stride, given, TT_MAX_RANK, "set_");
  if (m < 0) return NULL;
  tt_status_t s = tt_set_layout(n, sizes, m, given, (size_t)itemsize, offset, strides, &nbytes);
  if (s) return tt_py_raise(s);
  PyObject *st = tt_py_int_tuple(n, strides);
  return st ? Py_BuildValue("(NL)", st, (long long)nbytes) : NULL;
}

PyMethodDef tt_py_layout_methods[] = {
    {"set_layout", py_set_layout, METH_VARARGS,
     "set_layout(sizes, strides, itemsize, offset): (strides, storage bytes) for Tensor.set_, CPU's checks"},
    {"copy_strides", py_copy_strides, METH_VARARGS,
     "copy_strides(sizes, strides, memory_format|None): a copy's strides (clone/_to_copy's rule), None if row-major"},
    {"resize_layout", py_resize_layout, METH_VARARGS,
     "resize_layout(sizes, memory_format|None, itemsize, offset, resize=True): (strides, storage bytes) for resize_ or empty"},
    {NULL, NULL, 0, NULL},
};
