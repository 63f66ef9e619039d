/* Element types the core knows, with their sizes and StableHLO spellings. */
#ifndef TT_BASE_DTYPE_H
#define TT_BASE_DTYPE_H

#include <stddef.h>

/* Order matters: within a category, a later type wins promotion (PyTorch's
 * lattice for the types we support, bf16/f16 handled specially). */
typedef enum tt_dtype_e {
  TT_BOOL = 0,
  TT_U8,
  TT_I8,
  TT_I16,
  TT_I32,
  TT_I64,
  TT_F16,
  TT_BF16,
  TT_F32,
  TT_F64,
  TT_U32, /* internal only: RNG bits */
  TT_U64, /* internal only: RNG state */
  TT_C64,  /* complex<f32>: interleaved (re, im) pairs of float32 */
  TT_C128, /* complex<f64> */
  TT_DTYPE_COUNT,
  TT_DTYPE_INVALID = -1
} tt_dtype_t;

size_t tt_dtype_size(tt_dtype_t dt);
/* PyTorch's name: "float32", "bfloat16", ... */
const char *tt_dtype_name(tt_dtype_t dt);
/* StableHLO element type: "f32", "bf16", "i1", "ui8", ... */
const char *tt_dtype_mlir(tt_dtype_t dt);
int tt_dtype_is_float(tt_dtype_t dt);
int tt_dtype_is_int(tt_dtype_t dt); /* integral, bool excluded */
int tt_dtype_is_unsigned(tt_dtype_t dt);
int tt_dtype_is_complex(tt_dtype_t dt);
/* complex64 -> float32, complex128 -> float64; other types unchanged. */
tt_dtype_t tt_dtype_real_part(tt_dtype_t dt);
/* PyTorch's toComplexType: float64 -> complex128, other floats -> complex64. */
tt_dtype_t tt_dtype_to_complex(tt_dtype_t dt);
int tt_dtype_valid(int dt);
/* PyTorch's promote_types for two dtypes. */
tt_dtype_t tt_dtype_promote(tt_dtype_t a, tt_dtype_t b);

#endif
