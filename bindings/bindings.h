/* Shared declarations of the torchtpu._C extension: conversion of Python
 * objects to core values and back. The extension holds no op semantics. */
#ifndef TT_BINDINGS_H
#define TT_BINDINGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ops/args.h"
#include "api/call.h"
#include "exec/engine_type.h"
#include "api/storage.h" /* the storages Python objects own */
#include "base/status.h"

/* Python objects captured from torch at setup. */
typedef struct tt_py_s {
  tt_engine_t *engine;               /* the process's engine, owned here (NULL before init) */
  PyObject *create_empty;            /* torch._C._acc.create_empty_tensor */
  PyObject *dtypes[TT_DTYPE_COUNT];  /* torch.float32, ... by tt_dtype_t */
  PyObject *tensor_type;             /* torch.Tensor */
  PyObject *construct_storage;       /* torch._C._construct_storage_from_data_pointer (lazy) */
  PyObject *device;                  /* the tpu device object (lazy) */
  PyObject *restride;                /* the glue's restride(t, sizes, strides): new metadata, same storage */
  int *pointwise_ids;                /* the op ids PyTorch tags pointwise (set_layout_ops), for the engine */
  int npointwise_ids;
  int *inplace_binary_ids;           /* the in-place ops self.op_(other) (set_inplace_iterator_ops), for the engine */
  int ninplace_binary_ids;
  int *inplace_pointwise_ids;        /* the other in-place pointwise ops (set_inplace_iterator_ops), for the engine */
  int ninplace_pointwise_ids;
  PyObject *str_tt, *str_untyped_storage, *str_stride, *str_storage_offset, *str_shape,
      *str_dtype, *str_item, *str_dim, *str_data_ptr, *str_is_contiguous,
      *str_swap_data_ptr, *str_nbytes, *str_device, *str_is_conj, *str_is_neg, *str_requires_grad,
      *str_current_level;
} tt_py_t;

extern tt_py_t tt_py;

/* The process's engine; NULL with RuntimeError set before torchtpu's init. */
tt_engine_t *tt_py_engine(void);

/* Raises the Python exception matching the status, frees it, returns NULL. */
PyObject *tt_py_raise(tt_status_t s);
/* 1 if the torch.device names tpu:0 (or no index, or another device type);
 * else 0 with torch.AcceleratorError "invalid device ordinal" set, as CUDA. */
int tt_py_check_device(PyObject *device);

/* The Storage object type: owns one reference to a tt_storage_t. */
extern PyTypeObject TtStorageType;
typedef struct {
  PyObject_HEAD
  tt_storage_t *storage;
} TtStorageObject;
PyObject *tt_py_storage_wrap(tt_storage_t *s); /* steals the reference */
/* Borrowed core storage of a torch tensor on "tpu", or NULL (no exception set). */
tt_storage_t *tt_py_tensor_storage(PyObject *tensor);

/* Gives torch storage `st` the core storage's real nbytes and its unique,
 * inaccessible address as data pointer (base/vaddr.h). `fresh`: st still
 * has 0 bytes and no pointer. Returns 0 with an exception set on failure. */
int tt_py_sync_storage(PyObject *st, tt_storage_t *s, int fresh);

/* Makes the engine ask this file for the float32 matmul precision of the
 * calls that contract float32 values (precision.c). */
void tt_py_install_matmul_precision(tt_engine_t *e);
/* torch.tpu.precision's functions of the _C module (precision.c). */
extern PyMethodDef tt_py_precision_methods[];
/* copy and resize_ strides (layouts.c). */
extern PyMethodDef tt_py_layout_methods[];
/* out= overloads' checks (out_write.c). */
extern PyMethodDef tt_py_out_write_methods[];

/* dtype object -> tt_dtype_t, TT_DTYPE_INVALID if unsupported. */
tt_dtype_t tt_py_dtype(PyObject *dtype);
/* torch.memory_format (None: preserve) -> tt_memory_format_t; -1 with a
 * RuntimeError set for one the core does not know. */
int tt_py_memory_format(PyObject *obj);
/* A sequence of at most max ints into out[]; its length, or -1 with an
 * error set (`what` names the op). */
int tt_py_seq_ints(PyObject *obj, int64_t *out, int max, const char *what);
/* A tuple of n ints (NULL with an error set). */
PyObject *tt_py_int_tuple(int n, const int64_t *v);

/* Argument conversion scratch: owns arrays allocated while converting. */
typedef struct tt_py_args_s {
  tt_arg_t args[32];
  int nargs;
  void *owned[64];
  int nowned;
  PyObject *generator; /* borrowed: a torch.tpu.Generator argument, or NULL */
} tt_py_args_t;

/* Pushes this call's default dtype and float32 matmul precision to the
 * core (every op call does); 0 with an exception set on failure. */
int tt_py_sync_call_state(void);
/* Fills out from a tuple of Python values. Returns 0 with an exception set on failure. */
int tt_py_args_convert(PyObject *tuple, const char *op, tt_py_args_t *out);
void tt_py_args_free(tt_py_args_t *a);
/* One torch tensor as a view reference. */
int tt_py_tensor_ref(PyObject *obj, const char *op, tt_tensor_ref_t *out);
/* CPU's "Expected all tensors to be on the same device" for a tensor that is
 * not on tpu, naming op; returns 0 with it set. */
int tt_py_device_mismatch(PyObject *tensor, const char *op);

/* A new "tpu" torch tensor (contiguous) over the given storage (steals it). */
PyObject *tt_py_make_tensor(tt_storage_t *s, tt_dtype_t dtype, int rank, const int64_t *sizes);

/* Engine entry (bindings/engine_entry.c; threading model in csrc/api/engine_lock.h).
 * enter: 1 with the engine lock held, or 0 with RuntimeError set in a forked
 * child. enter_quiet: the same without an exception (for deallocation paths).
 * leave: releases one hold. install_hooks: once, at module init. */
int tt_py_engine_enter(void);
int tt_py_engine_enter_quiet(void);
void tt_py_engine_leave(void);
/* fn##_entry: fn (a METH_O / METH_NOARGS / METH_VARARGS function) with the
 * engine lock held for its whole call (threading model:
 * csrc/api/engine_lock.h); in a forked child it raises instead. */
#define ENGINE_ENTRY(fn)                                       \
  static PyObject *fn##_entry(PyObject *self, PyObject *arg) { \
    if (!tt_py_engine_enter()) return NULL;                    \
    PyObject *res = fn(self, arg);                             \
    tt_py_engine_leave();                                      \
    return res;                                                \
  }
void tt_py_engine_install_hooks(void);
/* Host waits so far during which the GIL was released (a count for tests). */
unsigned long long tt_py_engine_gil_releases(void);

/* CPU fallback calls (bindings/fallback.c), listed in the module table. */
PyObject *tt_py_fallback_set_enabled(PyObject *self, PyObject *on);
PyObject *tt_py_fallback_enabled(PyObject *self, PyObject *unused);
PyObject *tt_py_fallback_enter(PyObject *self, PyObject *op);
PyObject *tt_py_fallback_unsupported(PyObject *self, PyObject *args);
PyObject *tt_py_fallback_counts(PyObject *self, PyObject *unused);
PyObject *tt_py_fallback_reset(PyObject *self, PyObject *unused);

/* Compiled graphs (plan.c): module functions and the Plan type. */
extern PyMethodDef tt_py_plan_methods[];
int tt_py_plan_ready(PyObject *module);

/* collective_selftest.c: the skinny collective programs on N CPU devices (tests only). */
PyObject *tt_py_collective_selftest_entry(PyObject *self, PyObject *args);
PyObject *tt_py_replica_groups_entry(PyObject *self, PyObject *args);

#endif
