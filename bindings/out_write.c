/* out= overloads: the _C entries the glue's out kernel calls. The rules are
 * the core's (api/out_write.h, ops/out_rules.h); this file converts tensors
 * to view references and turns the core's answers into Python's (an
 * exception, a UserWarning, which outputs to resize). */
#include "bindings.h"

#include "api/out_write.h"

/* A tensor the core can write into or read from here: 0 with CPU's device
 * error when it is not a tpu tensor (a 0-dim CPU tensor included: an out
 * tensor is never a host scalar). */
static int tpu_ref(PyObject *t, const char *name, tt_tensor_ref_t *ref) {
  if (!tt_py_tensor_ref(t, name, ref)) return 0;
  return ref->storage ? 1 : tt_py_device_mismatch(t, name);
}

/* check_out_write(name, outs, results, inputs) -> tuple of bools: for each
 * output (outs[k] receives results[k]) the core's checks (dtype rule,
 * overlap with the tpu tensors among inputs; CPU tensors among inputs, such
 * as CPU index tensors, cannot overlap and are skipped) and whether out must
 * be resized first; CPU's resize warning is issued here. */
static PyObject *py_check_out_write(PyObject *self, PyObject *args) {
  (void)self;
  const char *name;
  PyObject *outs, *results, *inputs;
  if (!PyArg_ParseTuple(args, "sOOO", &name, &outs, &results, &inputs)) return NULL;
  PyObject *o = PySequence_Fast(outs, "outs must be a sequence");
  PyObject *r = o ? PySequence_Fast(results, "results must be a sequence") : NULL;
  PyObject *in = r ? PySequence_Fast(inputs, "inputs must be a sequence") : NULL;
  PyObject *answer = NULL;
  tt_tensor_ref_t *ins = NULL;
  if (!in) goto done;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o), nin = PySequence_Fast_GET_SIZE(in);
  if (PySequence_Fast_GET_SIZE(r) != n) {
    PyErr_Format(PyExc_RuntimeError, "%s: %zd out tensors for %zd results", name, n, PySequence_Fast_GET_SIZE(r));
    goto done;
  }
  ins = PyMem_Calloc((size_t)nin + 1, sizeof *ins);
  if (!ins) {
    PyErr_NoMemory();
    goto done;
  }
  int m = 0;
  for (Py_ssize_t i = 0; i < nin; i++) {
    PyObject *t = PySequence_Fast_GET_ITEM(in, i);
    if (!tt_py_tensor_storage(t)) continue;
    if (!tt_py_tensor_ref(t, name, &ins[m])) goto done;
    m++;
  }
  answer = PyTuple_New(n);
  if (!answer) goto done;
  for (Py_ssize_t k = 0; k < n; k++) {
    tt_tensor_ref_t out, res;
    if (!tpu_ref(PySequence_Fast_GET_ITEM(o, k), name, &out) || !tpu_ref(PySequence_Fast_GET_ITEM(r, k), name, &res))
      goto fail;
    tt_out_resize_t resize;
    char warn[1024];
    tt_status_t s = tt_call_check_out_write(name, (int)k, &out, res.dtype, res.view.sizes, res.view.rank, ins, m,
                                            &resize, warn, sizeof warn);
    if (s) {
      tt_py_raise(s);
      goto fail;
    }
    if (resize == TT_OUT_RESIZE_WARN && PyErr_WarnEx(PyExc_UserWarning, warn, 2) < 0) goto fail;
    PyTuple_SET_ITEM(answer, k, PyBool_FromLong(resize != TT_OUT_KEEP));
  }
  goto done;
fail:
  Py_CLEAR(answer);
done:
  PyMem_Free(ins);
  Py_XDECREF(in);
  Py_XDECREF(r);
  Py_XDECREF(o);
  return answer;
}

ENGINE_ENTRY(py_check_out_write)

/* check_out_dtype_arg(name, dtype, out_dtype, input_dtype or None, phase=1):
 * an explicit dtype= against out's (ops/out_rules.h): phase 0 the checks
 * CPU makes before the dims (the input's dtype's first), 1 those after.
 * Pure: no lock. */
static PyObject *py_check_out_dtype_arg(PyObject *self, PyObject *args) {
  (void)self;
  const char *name;
  PyObject *dt, *od, *id = Py_None;
  int phase = 1;
  if (!PyArg_ParseTuple(args, "sOO|Oi", &name, &dt, &od, &id, &phase)) return NULL;
  tt_dtype_t in = id == Py_None ? TT_DTYPE_INVALID : tt_py_dtype(id);
  tt_status_t s = tt_call_check_out_dtype_arg(name, tt_py_dtype(dt), tt_py_dtype(od), in, phase);
  if (s) return tt_py_raise(s);
  Py_RETURN_NONE;
}

/* check_out_dtype(name, k, result_dtype or None, out_dtype, input_dtype or
 * None, input_numel): the out= dtype rule alone, before the functional op
 * runs (api/out_write.h); result None where PyTorch's meta kernel raised.
 * Pure: no lock. */
static PyObject *py_check_out_dtype(PyObject *self, PyObject *args) {
  (void)self;
  const char *name;
  int k;
  long long in_numel;
  PyObject *rd, *od, *id;
  if (!PyArg_ParseTuple(args, "siOOOL", &name, &k, &rd, &od, &id, &in_numel)) return NULL;
  tt_dtype_t in = id == Py_None ? TT_DTYPE_INVALID : tt_py_dtype(id), o = tt_py_dtype(od);
  tt_dtype_t r = rd == Py_None ? TT_DTYPE_INVALID : tt_py_dtype(rd);
  /* a dtype the core lacks: its own error comes later */
  if ((rd != Py_None && r == TT_DTYPE_INVALID) || o == TT_DTYPE_INVALID) Py_RETURN_NONE;
  tt_status_t s = tt_call_check_out_dtype_first(name, k, r, o, in, in_numel);
  if (s) return tt_py_raise(s);
  Py_RETURN_NONE;
}

/* check_out_operands(name, operands_dtype, out_dtype): where the meta kernel
 * raised, a binary op's cast of its operands' type into out (api/out_write.h).
 * Pure: no lock. */
static PyObject *py_check_out_operands(PyObject *self, PyObject *args) {
  (void)self;
  const char *name;
  PyObject *rd, *od;
  if (!PyArg_ParseTuple(args, "sOO", &name, &rd, &od)) return NULL;
  tt_status_t s = tt_call_check_out_operands(name, tt_py_dtype(rd), tt_py_dtype(od));
  if (s) return tt_py_raise(s);
  Py_RETURN_NONE;
}

/* check_out_complex32(name, k, out_dtype, operands=0): the out= rule for a
 * complex32 result (api/out_write.h). Pure: no lock. */
static PyObject *py_check_out_complex32(PyObject *self, PyObject *args) {
  (void)self;
  const char *name;
  int k, operands = 0;
  PyObject *od;
  if (!PyArg_ParseTuple(args, "siO|i", &name, &k, &od, &operands)) return NULL;
  tt_status_t s = tt_call_check_out_complex32(name, k, tt_py_dtype(od), operands);
  if (s) return tt_py_raise(s);
  Py_RETURN_NONE;
}

/* out_result_with(name): the argument whose result_type with the first input
 * is CPU's result dtype where PyTorch's meta kernel says otherwise, or None. */
static PyObject *py_out_result_with(PyObject *self, PyObject *arg) {
  (void)self;
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  const char *with = tt_call_out_result_with(name);
  if (!with) Py_RETURN_NONE;
  return PyUnicode_FromString(with);
}

/* out_rule_if_0dim(name): (argument number, overload) whose out= rule applies
 * where that argument is a 0-dim tensor, or None (api/out_write.h). */
static PyObject *py_out_rule_if_0dim(PyObject *self, PyObject *arg) {
  (void)self;
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  int k = 0;
  const char *rule = tt_call_out_rule_if_0dim(name, &k);
  if (!rule) Py_RETURN_NONE;
  return Py_BuildValue("(is)", k, rule);
}

/* out_dtype_from_out(name): 1 when that overload computes in out's dtype where dtype= is None, 2 when
 * only for a floating or complex input and out, 0 when not (ops/out_rules.h). */
static PyObject *py_out_dtype_from_out(PyObject *self, PyObject *arg) {
  (void)self;
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  return PyLong_FromLong(tt_call_out_dtype_from_out(name));
}

/* out_input_from_out(name): 1 when that overload's reduction reads its input in out's type. */
static PyObject *py_out_input_from_out(PyObject *self, PyObject *arg) {
  (void)self;
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  return PyBool_FromLong(tt_call_out_input_from_out(name));
}

/* out_input_dtype(name, input_dtype, input_numel, result_numel, out_dtype):
 * the dtype the input is converted to first, or None (api/out_write.h). Pure: no lock. */
static PyObject *py_out_input_dtype(PyObject *self, PyObject *args) {
  (void)self;
  const char *name;
  PyObject *id, *od;
  long long in_numel, res_numel;
  if (!PyArg_ParseTuple(args, "sOLLO", &name, &id, &in_numel, &res_numel, &od)) return NULL;
  tt_dtype_t in = tt_py_dtype(id), out = tt_py_dtype(od), convert = TT_DTYPE_INVALID;
  if (in == TT_DTYPE_INVALID || out == TT_DTYPE_INVALID) Py_RETURN_NONE; /* a dtype the core lacks: its own error comes later */
  tt_status_t s = tt_call_out_input_dtype(name, in, in_numel, res_numel, out, &convert);
  if (s) return tt_py_raise(s);
  if (convert == TT_DTYPE_INVALID) Py_RETURN_NONE;
  Py_INCREF(tt_py.dtypes[convert]);
  return tt_py.dtypes[convert];
}

/* out_into(name[, input_dtype, out_dtype, default_dtype]): the name of the
 * core op computing that out overload into out's dtype, or None
 * (api/out_write.h); with the name alone, whether it has one. Pure: no lock. */
static PyObject *py_out_into(PyObject *self, PyObject *args) {
  (void)self;
  const char *name;
  PyObject *id = Py_None, *od = Py_None, *dd = Py_None;
  if (!PyArg_ParseTuple(args, "s|OOO", &name, &id, &od, &dd)) return NULL;
  tt_dtype_t in = TT_DTYPE_INVALID, out = TT_DTYPE_INVALID, dflt = TT_DTYPE_INVALID;
  if (id != Py_None) {
    in = tt_py_dtype(id), out = tt_py_dtype(od), dflt = tt_py_dtype(dd);
    if (in == TT_DTYPE_INVALID || out == TT_DTYPE_INVALID || dflt == TT_DTYPE_INVALID) Py_RETURN_NONE;
  }
  const char *op = tt_call_out_into(name, in, out, dflt);
  if (!op) Py_RETURN_NONE;
  return PyUnicode_FromString(op);
}

PyMethodDef tt_py_out_write_methods[] = {
    {"out_into", py_out_into, METH_VARARGS,
     "out_into(name[, input_dtype, out_dtype, default_dtype]): the core op computing the overload into out's dtype, or None"},
    {"check_out_write", py_check_out_write_entry, METH_VARARGS,
     "check_out_write(name, outs, results, inputs): out= checks; per output, whether out is resized first"},
    {"check_out_dtype_arg", py_check_out_dtype_arg, METH_VARARGS, "check_out_dtype_arg(name, dtype, out_dtype, input_dtype=None, phase=1)"},
    {"check_out_complex32", py_check_out_complex32, METH_VARARGS, "check_out_complex32(name, k, out_dtype, operands=0)"},
    {"check_out_operands", py_check_out_operands, METH_VARARGS,
     "check_out_operands(name, operands_dtype, out_dtype)"},
    {"check_out_dtype", py_check_out_dtype, METH_VARARGS,
     "check_out_dtype(name, k, result_dtype or None, out_dtype, input_dtype or None, input_numel)"},
    {"out_rule_if_0dim", py_out_rule_if_0dim, METH_O,
     "out_rule_if_0dim(name): (argument number, overload) whose out= rule applies where that argument is 0-dim, or None"},
    {"out_result_with", py_out_result_with, METH_O,
     "out_result_with(name): the argument whose result_type with the first input is CPU's result dtype, or None"},
    {"out_dtype_from_out", py_out_dtype_from_out, METH_O,
     "out_dtype_from_out(name): 1 the overload computes in out's dtype where dtype= is None, 2 only for floating input and out, 0 not"},
    {"out_input_from_out", py_out_input_from_out, METH_O,
     "out_input_from_out(name): the overload's reduction reads its input in out's type"},
    {"out_input_dtype", py_out_input_dtype, METH_VARARGS,
     "out_input_dtype(name, input_dtype, input_numel, result_numel, out_dtype): the input's dtype first, or None"},
    {NULL, NULL, 0, NULL},
};
