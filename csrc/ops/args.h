/* Arguments of an ATen call as the core sees them: tensors as views of
 * storages, Python numbers with their kind, lists, strings. */
#ifndef TT_OPS_ARGS_H
#define TT_OPS_ARGS_H

#include <stdint.h>

#include "base/dtype.h"
#include "views/view_type.h"

/* A storage is the engine's (exec/storage.h); lowerings hold it as a handle
 * and reach its value through the lowering interface (ops/lower.h). */
typedef struct tt_storage_s tt_storage_t;

typedef struct tt_tensor_ref_s {
  tt_storage_t *storage; /* borrowed; NULL for a host (CPU) scalar tensor */
  tt_dtype_t dtype;
  tt_view_t view;
  /* A 0-dim CPU tensor passed where a tensor is expected: its value. */
  int is_host_scalar;
  double host_f;
  int64_t host_i;
  double host_im; /* imaginary part of a complex host scalar */
  /* PyTorch's lazy math bits (Tensor.conj(), _neg_view): the stored values
   * are read conjugated / negated, and written back through the inverse. */
  int conj, neg;
} tt_tensor_ref_t;

typedef enum tt_arg_kind_e {
  TT_ARG_NONE = 0,
  TT_ARG_TENSOR,
  TT_ARG_INT,
  TT_ARG_FLOAT,
  TT_ARG_BOOL,
  TT_ARG_INTS,
  TT_ARG_FLOATS,
  TT_ARG_TENSORS, /* entries may have storage NULL and dtype INVALID for None */
  TT_ARG_STR,
  TT_ARG_DTYPE,
  TT_ARG_COMPLEX, /* a Python complex: f + f_im * 1j */
  TT_ARG_MEMORY_FORMAT, /* a torch.memory_format: i is a tt_memory_format_t */
} tt_arg_kind_t;

/* torch.memory_format, as clone/_to_copy/resize_ take it. */
typedef enum tt_memory_format_e {
  TT_MEMORY_FORMAT_PRESERVE = 0,
  TT_MEMORY_FORMAT_CONTIGUOUS,
  TT_MEMORY_FORMAT_CHANNELS_LAST,
  TT_MEMORY_FORMAT_CHANNELS_LAST_3D,
} tt_memory_format_t;

typedef struct tt_arg_s {
  tt_arg_kind_t kind;
  int64_t i;           /* INT, BOOL, DTYPE, MEMORY_FORMAT */
  double f;            /* FLOAT; COMPLEX: real part */
  double f_im;         /* COMPLEX: imaginary part */
  int n;               /* INTS, FLOATS, TENSORS */
  int64_t *ints;       /* borrowed */
  double *floats;      /* borrowed */
  /* FLOATS where the list holds a Python complex, else NULL (borrowed):
   * each entry's imaginary part, and 1 where the entry is a complex (a
   * Scalar list keeps each entry's type: [2.0, 1j] is a float and a complex) */
  double *floats_im;
  unsigned char *floats_complex;
  tt_tensor_ref_t *t;  /* TENSOR: one; TENSORS: n */
  const char *s;       /* STR */
} tt_arg_t;

#endif
