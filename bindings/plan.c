/* torchtpu._C calls of compiled graphs (api/compiled.h): capture of a graph
 * into a plan, and its replay, one Python -> C call per graph execution.
 * Converts Python values and wraps results; the core decides the rest. */
#include <string.h>

#include "api/compiled.h"
#include "bindings.h"

/* The plan object: the core's plan plus the graph's output list template
 * (non-tensor outputs, e.g. None gradients, are constants of the graph). */
typedef struct {
  PyObject_HEAD
  tt_plan_t *plan;
  int nslots;
  PyObject *consts; /* tuple of nslots: the value of each non-tensor slot, None at tensor slots */
  int *slot_of;     /* plan output k -> its slot */
} TtPlanObject;

static void plan_dealloc(TtPlanObject *self) {
  if (self->plan && tt_py_engine_enter_quiet()) {
    tt_compiled_release(self->plan);
    tt_py_engine_leave();
  }
  Py_XDECREF(self->consts);
  PyMem_Free(self->slot_of);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *plan_num_args(TtPlanObject *self, PyObject *unused) {
  (void)unused;
  return PyLong_FromLong(tt_compiled_num_args(self->plan));
}

static PyObject *plan_num_outputs(TtPlanObject *self, PyObject *unused) {
  (void)unused;
  return PyLong_FromLong(self->nslots);
}

static PyMethodDef plan_methods[] = {
    {"num_args", (PyCFunction)plan_num_args, METH_NOARGS, "arguments the graph takes"},
    {"num_outputs", (PyCFunction)plan_num_outputs, METH_NOARGS, "outputs the graph returns"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TtPlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "torchtpu._C.Plan",
    .tp_basicsize = sizeof(TtPlanObject),
    .tp_dealloc = (destructor)plan_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A compiled graph captured as one executable (csrc/exec/plan.h).",
    .tp_methods = plan_methods,
};

/* Binding state, under the engine lock: the hold a capture keeps from
 * begin to end, and the view functions torchtpu._compile registers:
 * _plan_view (any output view, through the dispatcher), a direct one
 * (as_strided redispatched below autograd: ADInplaceOrView records the
 * view as eager's would be, Meta sets its metadata) and the module whose
 * _current_level says whether a forward-AD level is open. */
static int g_capture_hold;
static unsigned long g_capture_thread;
static PyObject *g_view_fn, *g_direct_view_fn, *g_forward_ad, *g_grad_enabled;

static int is_tensor(PyObject *o) {
  return PyType_Check(tt_py.tensor_type) && PyObject_TypeCheck(o, (PyTypeObject *)tt_py.tensor_type);
}

/* A tpu tensor as a ref; anything else as a ref with no storage. */
static int ref_or_none(PyObject *obj, tt_tensor_ref_t *out) {
  if (!is_tensor(obj) || !tt_py_tensor_storage(obj)) {
    memset(out, 0, sizeof *out);
    out->dtype = TT_DTYPE_INVALID;
    return 1;
  }
  return tt_py_tensor_ref(obj, "compiled graph", out);
}

/* refs of every item of seq (a list or tuple), in a PyMem array. */
static tt_tensor_ref_t *refs_of(PyObject *seq, Py_ssize_t n, tt_tensor_ref_t *small, Py_ssize_t nsmall) {
  tt_tensor_ref_t *r = n <= nsmall ? small : PyMem_Malloc(sizeof(tt_tensor_ref_t) * (size_t)(n ? n : 1));
  if (!r) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < n; i++)
    if (!ref_or_none(PySequence_Fast_GET_ITEM(seq, i), &r[i])) {
      if (r != small) PyMem_Free(r);
      return NULL;
    }
  return r;
}

/* plan_set_view_fn(view, direct_view or None, forward_ad_module, is_grad_enabled) */
static PyObject *py_plan_set_view_fn(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *fn, *direct, *fwd, *grad;
  if (!PyArg_ParseTuple(args, "OOOO", &fn, &direct, &fwd, &grad)) return NULL;
  Py_INCREF(fn);
  Py_XSETREF(g_view_fn, fn);
  Py_INCREF(direct);
  Py_XSETREF(g_direct_view_fn, direct);
  Py_INCREF(fwd);
  Py_XSETREF(g_forward_ad, fwd);
  Py_INCREF(grad);
  Py_XSETREF(g_grad_enabled, grad);
  Py_RETURN_NONE;
}

static PyObject *py_plan_capture_begin(PyObject *self, PyObject *bake) {
  (void)self;
  int b = PyObject_IsTrue(bake);
  if (b < 0) return NULL;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  if (g_capture_hold) return PyErr_Format(PyExc_RuntimeError, "plan_capture_begin: a capture is already open");
  tt_status_t s = tt_compiled_capture_begin(e, b);
  if (s) return tt_py_raise(s);
  if (!tt_py_engine_enter()) { /* the hold kept until end or abort */
    tt_compiled_capture_abort(e);
    return NULL;
  }
  g_capture_hold = 1;
  g_capture_thread = PyThread_get_thread_ident();
  Py_RETURN_NONE;
}

static int end_hold(const char *fn) {
  if (!g_capture_hold || g_capture_thread != PyThread_get_thread_ident()) {
    PyErr_Format(PyExc_RuntimeError, "%s: no capture is open on this thread", fn);
    return 0;
  }
  g_capture_hold = 0;
  tt_py_engine_leave();
  return 1;
}

static PyObject *py_plan_capture_abort(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  if (!end_hold("plan_capture_abort")) return NULL;
  tt_compiled_capture_abort(tt_py.engine);
  Py_RETURN_NONE;
}

/* plan_capture_end(args, outs, name) -> (Plan or None, why) */
static PyObject *py_plan_capture_end(PyObject *self, PyObject *argtuple) {
  (void)self;
  PyObject *args, *outs;
  const char *name;
  if (!PyArg_ParseTuple(argtuple, "OOs", &args, &outs, &name)) return NULL;
  if (!end_hold("plan_capture_end")) return NULL;
  tt_engine_t *e = tt_py.engine;
  PyObject *aseq = PySequence_Fast(args, "args must be a sequence");
  PyObject *oseq = aseq ? PySequence_Fast(outs, "outputs must be a sequence") : NULL;
  if (!oseq) {
    Py_XDECREF(aseq);
    tt_compiled_capture_abort(e);
    return NULL;
  }
  Py_ssize_t na = PySequence_Fast_GET_SIZE(aseq), no = PySequence_Fast_GET_SIZE(oseq);
  tt_tensor_ref_t asmall[16], osmall[16];
  tt_tensor_ref_t *ar = refs_of(aseq, na, asmall, 16);
  /* Only the tensor outputs go to the core; the rest are the template's. */
  tt_tensor_ref_t *orefs = no <= 16 ? osmall : PyMem_Malloc(sizeof(tt_tensor_ref_t) * (size_t)no);
  int *slot_of = PyMem_Malloc(sizeof(int) * (size_t)(no ? no : 1));
  PyObject *consts = PyTuple_New(no);
  int nt = 0, ok = ar && orefs && slot_of && consts;
  if (ar && (!orefs || !slot_of)) PyErr_NoMemory();
  for (Py_ssize_t i = 0; ok && i < no; i++) {
    PyObject *o = PySequence_Fast_GET_ITEM(oseq, i);
    if (is_tensor(o)) {
      ok = ref_or_none(o, &orefs[nt]);
      slot_of[nt++] = (int)i;
      Py_INCREF(Py_None);
      PyTuple_SET_ITEM(consts, i, Py_None);
    } else {
      Py_INCREF(o);
      PyTuple_SET_ITEM(consts, i, o);
    }
  }
  PyObject *res = NULL;
  if (ok) {
    tt_plan_t *plan = NULL;
    char why[256];
    tt_status_t s = tt_compiled_capture_end(e, ar, (int)na, orefs, nt, name, &plan, why, sizeof why);
    if (s) {
      tt_py_raise(s);
    } else if (!plan) {
      res = Py_BuildValue("(Os)", Py_None, why);
    } else {
      TtPlanObject *po = PyObject_New(TtPlanObject, &TtPlanType);
      if (!po) {
        tt_compiled_release(plan);
      } else {
        po->plan = plan;
        po->nslots = (int)no;
        po->consts = consts;
        po->slot_of = slot_of;
        consts = NULL;
        slot_of = NULL;
        res = Py_BuildValue("(Ns)", (PyObject *)po, "");
      }
    }
  } else {
    tt_compiled_capture_abort(e);
  }
  Py_XDECREF(consts);
  PyMem_Free(slot_of);
  if (ar && ar != asmall) PyMem_Free(ar);
  if (orefs && orefs != osmall) PyMem_Free(orefs);
  Py_DECREF(aseq);
  Py_DECREF(oseq);
  return res;
}

static int view_equal(const tt_view_t *a, const tt_view_t *b) {
  return a->rank == b->rank && a->offset == b->offset &&
         !memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->rank) &&
         !memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)a->rank);
}

static PyObject *ints_tuple(const int64_t *v, int n) {
  PyObject *t = PyTuple_New(n);
  for (int i = 0; t && i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
  return t;
}

/* Autograd's state, read once per plan_run and only if an output is a view:
 * -1 until read. */
typedef struct {
  int forward_ad; /* a forward-AD level is open */
  int grad;       /* grad mode is on */
} autograd_state_t;

/* *flag read by read(): 0/1, or -1 with an exception set. */
static int cached(int *flag, int (*read)(void)) {
  if (*flag < 0) *flag = read();
  return *flag;
}

static int read_forward_ad(void) {
  PyObject *level = PyObject_GetAttr(g_forward_ad, tt_py.str_current_level);
  if (!level) return -1;
  long lv = PyLong_AsLong(level);
  Py_DECREF(level);
  return lv == -1 && PyErr_Occurred() ? -1 : lv >= 0;
}

static int read_grad(void) {
  PyObject *on = PyObject_CallNoArgs(g_grad_enabled);
  if (!on) return -1;
  int r = on != Py_False;
  Py_DECREF(on);
  return r;
}

/* 1 when base viewed as o is what the dispatcher's as_strided would give
 * without autograd's kernel: same dtype (else a view(dtype) comes first),
 * base not requiring grad or grad mode off (else autograd records the
 * view's backward) and no forward-AD level open (autograd would view a
 * tangent); -1 on error. fresh: base was made by this call (never requires
 * grad). The tpu kernel's bounds check is not needed: the capture made this
 * view of a storage of this size (tt_compiled_check). */
static int direct_view_ok(PyObject *base, tt_dtype_t base_dtype, const tt_plan_out_t *o, int fresh,
                          autograd_state_t *ag) {
  if (!g_direct_view_fn || g_direct_view_fn == Py_None || base_dtype != o->dtype) return 0;
  int fwd = cached(&ag->forward_ad, read_forward_ad);
  if (fwd != 0 || fresh) return fwd < 0 ? -1 : !fwd;
  PyObject *rg = PyObject_GetAttr(base, tt_py.str_requires_grad);
  if (!rg) return -1;
  int needs = rg != Py_False;
  Py_DECREF(rg);
  if (!needs) return 1;
  int grad = cached(&ag->grad, read_grad);
  return grad < 0 ? -1 : !grad;
}

/* base (of dtype base_dtype; fresh: made by this call) viewed as o. */
static PyObject *view_of(PyObject *base, tt_dtype_t base_dtype, const tt_plan_out_t *o, int fresh,
                         autograd_state_t *ag) {
  if (!g_view_fn) return PyErr_Format(PyExc_RuntimeError, "compiled graph: no view function registered");
  int direct = direct_view_ok(base, base_dtype, o, fresh, ag);
  if (direct < 0) return NULL;
  PyObject *sz = ints_tuple(o->view.sizes, o->view.rank), *st = ints_tuple(o->view.strides, o->view.rank);
  PyObject *off = sz && st ? PyLong_FromLongLong((long long)o->view.offset) : NULL;
  PyObject *r = NULL;
  if (off && direct) {
    PyObject *argv[] = {base, sz, st, off};
    r = PyObject_Vectorcall(g_direct_view_fn, argv, 4, NULL);
  } else if (off) {
    PyObject *argv[] = {base, tt_py.dtypes[o->dtype], sz, st, off};
    r = PyObject_Vectorcall(g_view_fn, argv, 5, NULL);
  }
  Py_XDECREF(sz);
  Py_XDECREF(st);
  Py_XDECREF(off);
  return r;
}

/* plan_run(plan, args) -> list of outputs */
static PyObject *py_plan_run(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
  (void)self;
  if (argc < 2 || argc > 3 || Py_TYPE(argv[0]) != &TtPlanType) {
    PyErr_SetString(PyExc_TypeError, "plan_run(plan, args, raise_on_mismatch=True)");
    return NULL;
  }
  int quiet = argc == 3 && !PyObject_IsTrue(argv[2]);
  TtPlanObject *po = (TtPlanObject *)argv[0];
  tt_engine_t *e = tt_py_engine();
  if (!e || !tt_py_sync_call_state()) return NULL;
  PyObject *aseq = PySequence_Fast(argv[1], "args must be a sequence");
  if (!aseq) return NULL;
  Py_ssize_t na = PySequence_Fast_GET_SIZE(aseq);
  tt_tensor_ref_t asmall[16];
  tt_tensor_ref_t *ar = refs_of(aseq, na, asmall, 16);
  int nout = tt_compiled_num_outputs(po->plan);
  tt_storage_t *ssmall[16];
  tt_storage_t **st = nout <= 16 ? ssmall : PyMem_Calloc((size_t)nout, sizeof(tt_storage_t *));
  PyObject *res = NULL;
  if (ar && st && quiet) {
    tt_status_t c = tt_compiled_check(po->plan, ar, (int)na);
    if (c) { /* not this plan's arguments: None, for the caller to try another */
      tt_status_free(c);
      if (ar != asmall) PyMem_Free(ar);
      if (st != ssmall) PyMem_Free(st);
      Py_DECREF(aseq);
      Py_RETURN_NONE;
    }
  }
  if (ar && st) {
    tt_status_t s = tt_compiled_run(e, po->plan, ar, (int)na, st);
    if (s) {
      tt_py_raise(s);
    } else {
      res = PyList_New(po->nslots);
      PyObject *bsmall[16] = {0};
      autograd_state_t ag = {-1, -1};
      int nres = tt_compiled_num_results(po->plan);
      PyObject **by_result = nres <= 16 ? bsmall : PyMem_Calloc((size_t)nres, sizeof(PyObject *));
      if (!by_result) Py_CLEAR(res);
      for (int i = 0; res && i < po->nslots; i++) {
        PyObject *c = PyTuple_GET_ITEM(po->consts, i);
        Py_INCREF(c);
        PyList_SET_ITEM(res, i, c);
      }
      int k = 0;
      for (; res && k < nout; k++) {
        const tt_plan_out_t *o = tt_compiled_output(po->plan, k);
        tt_storage_t *s_k = st[k];
        st[k] = NULL;
        PyObject *t = NULL;
        if (o->kind == TT_PLAN_OUT_ARG) {
          tt_api_storage_release(s_k);
          PyObject *arg = PySequence_Fast_GET_ITEM(aseq, o->index);
          if (o->dtype == ar[o->index].dtype && view_equal(&o->view, &ar[o->index].view)) t = (Py_INCREF(arg), arg);
          else t = view_of(arg, ar[o->index].dtype, o, 0, &ag);
        } else if (!by_result[o->index] && o->dtype == tt_api_storage_dtype(s_k) && tt_view_is_whole(&o->view, tt_api_storage_numel(s_k))) {
          t = tt_py_make_tensor(s_k, o->dtype, o->view.rank, o->view.sizes);
          if (t) by_result[o->index] = (Py_INCREF(t), t);
        } else { /* a view of the result's tensor (of the result's dtype, whole or flat) */
          tt_dtype_t rd = tt_api_storage_dtype(s_k);
          if (!by_result[o->index]) {
            int64_t n = tt_api_storage_numel(s_k);
            by_result[o->index] = tt_py_make_tensor(s_k, rd, 1, &n);
          } else {
            tt_api_storage_release(s_k);
          }
          t = by_result[o->index] ? view_of(by_result[o->index], rd, o, 1, &ag) : NULL;
        }
        if (!t) {
          Py_CLEAR(res);
          break;
        }
        PyObject *old = PyList_GET_ITEM(res, po->slot_of[k]);
        PyList_SET_ITEM(res, po->slot_of[k], t);
        Py_DECREF(old);
      }
      for (int j = k; j < nout; j++) tt_api_storage_release(st[j]); /* not wrapped (an error) */
      if (by_result) {
        for (int r = 0; r < nres; r++) Py_XDECREF(by_result[r]);
        if (by_result != bsmall) PyMem_Free(by_result);
      }
    }
  }
  if (ar && ar != asmall) PyMem_Free(ar);
  if (st && st != ssmall) PyMem_Free(st);
  Py_DECREF(aseq);
  return res;
}

static PyObject *py_plan_stats(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_plan_stats_t s = tt_compiled_stats(e);
  return Py_BuildValue("{s:K,s:K,s:K,s:K}", "captures", (unsigned long long)s.captures, "capture_failures",
                       (unsigned long long)s.capture_failures, "replays", (unsigned long long)s.replays, "deferred",
                       (unsigned long long)s.deferred);
}

/* plan_set_fusion(on) -> the previous setting */
static PyObject *py_plan_set_fusion(PyObject *self, PyObject *on) {
  (void)self;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  int v = PyObject_IsTrue(on);
  if (v < 0) return NULL;
  int old = 0;
  tt_status_t s = tt_compiled_set_fusion(e, v, &old);
  if (s) return tt_py_raise(s);
  return PyBool_FromLong(old);
}

/* plan_set_compile_fault(text or None): tests: compiles whose name contains text fail */
static PyObject *py_plan_set_compile_fault(PyObject *self, PyObject *arg) {
  (void)self;
  static char fault[256];
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  if (arg == Py_None) {
    tt_compiled_set_compile_fault(e, NULL);
    Py_RETURN_NONE;
  }
  const char *text = PyUnicode_AsUTF8(arg);
  if (!text) return NULL;
  tt_compiled_set_compile_fault(e, NULL); /* no compile reads fault while it changes */
  snprintf(fault, sizeof fault, "%s", text);
  tt_compiled_set_compile_fault(e, fault);
  Py_RETURN_NONE;
}

/* plan_device_address(tensor) -> int: its storage's device address (tests) */
static PyObject *py_plan_device_address(PyObject *self, PyObject *t) {
  (void)self;
  tt_engine_t *e = tt_py_engine();
  if (!e) return NULL;
  tt_tensor_ref_t r;
  if (!ref_or_none(t, &r)) return NULL;
  if (!r.storage) return PyErr_Format(PyExc_TypeError, "plan_device_address: expected a tpu tensor");
  uint64_t addr = 0;
  tt_status_t s = tt_compiled_device_address(e, r.storage, &addr);
  if (s) return tt_py_raise(s);
  return PyLong_FromUnsignedLongLong(addr);
}

ENGINE_ENTRY(py_plan_capture_begin)
ENGINE_ENTRY(py_plan_capture_abort)
ENGINE_ENTRY(py_plan_capture_end)
ENGINE_ENTRY(py_plan_stats)
ENGINE_ENTRY(py_plan_set_fusion)
ENGINE_ENTRY(py_plan_set_compile_fault)
ENGINE_ENTRY(py_plan_set_view_fn)
ENGINE_ENTRY(py_plan_device_address)

static PyObject *py_plan_run_entry(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
  if (!tt_py_engine_enter()) return NULL;
  PyObject *res = py_plan_run(self, argv, argc);
  tt_py_engine_leave();
  return res;
}

PyMethodDef tt_py_plan_methods[] = {
    {"plan_capture_begin", py_plan_capture_begin_entry, METH_O,
     "plan_capture_begin(bake): start capturing a compiled graph (holds the engine until plan_capture_end or "
     "plan_capture_abort); bake: offsets of views into tensors it makes are constants of its program"},
    {"plan_capture_end", py_plan_capture_end_entry, METH_VARARGS,
     "plan_capture_end(args, outputs, name) -> (Plan or None, why it was not captured)"},
    {"plan_capture_abort", py_plan_capture_abort_entry, METH_NOARGS, "drop the open capture (the graph raised)"},
    {"plan_run", (PyCFunction)(void (*)(void))py_plan_run_entry, METH_FASTCALL,
     "plan_run(plan, args, raise_on_mismatch=True) -> outputs: replay a captured graph (None for arguments it "
     "was not captured for, when raise_on_mismatch is False)"},
    {"plan_stats", py_plan_stats_entry, METH_NOARGS, "{captures, capture_failures, replays, deferred}"},
    {"plan_set_fusion", py_plan_set_fusion_entry, METH_O,
     "plan_set_fusion(on) -> previous: replays of compiled graphs captured from now on join the open region "
     "(one program per step) or launch on their own"},
    {"plan_set_compile_fault", py_plan_set_compile_fault_entry, METH_O,
     "plan_set_compile_fault(text or None): tests: compiles whose name contains text fail"},
    {"plan_set_view_fn", py_plan_set_view_fn_entry, METH_VARARGS,
     "plan_set_view_fn(view(base, dtype, size, stride, offset), direct_view(base, size, stride, offset), "
     "forward_ad_module, is_grad_enabled): how plan_run makes output views"},
    {"plan_device_address", py_plan_device_address_entry, METH_O,
     "plan_device_address(tensor) -> its storage's device address, after pending work (tests: in-place updates)"},
    {NULL, NULL, 0, NULL},
};

int tt_py_plan_ready(PyObject *module) {
  if (PyType_Ready(&TtPlanType) < 0) return 0;
  Py_INCREF(&TtPlanType);
  return PyModule_AddObject(module, "Plan", (PyObject *)&TtPlanType) == 0;
}
