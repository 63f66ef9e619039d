/* Element type facts and PyTorch's promote_types lattice. */
#include "base/dtype.h"

static const struct {
  const char *name;
  const char *mlir;
  size_t size;
} info[TT_DTYPE_COUNT] = {
    [TT_BOOL] = {"bool", "i1", 1},        [TT_U8] = {"uint8", "ui8", 1},
    [TT_I8] = {"int8", "i8", 1},          [TT_I16] = {"int16", "i16", 2},
    [TT_I32] = {"int32", "i32", 4},       [TT_I64] = {"int64", "i64", 8},
    [TT_F16] = {"float16", "f16", 2},     [TT_BF16] = {"bfloat16", "bf16", 2},
    [TT_F32] = {"float32", "f32", 4},     [TT_F64] = {"float64", "f64", 8},
    [TT_U32] = {"uint32", "ui32", 4},     [TT_U64] = {"uint64", "ui64", 8},
    [TT_C64] = {"complex64", "complex<f32>", 8}, [TT_C128] = {"complex128", "complex<f64>", 16},
};

int tt_dtype_valid(int dt) { return dt >= 0 && dt < TT_DTYPE_COUNT; }
size_t tt_dtype_size(tt_dtype_t dt) { return tt_dtype_valid(dt) ? info[dt].size : 0; }
const char *tt_dtype_name(tt_dtype_t dt) { return tt_dtype_valid(dt) ? info[dt].name : "invalid"; }
const char *tt_dtype_mlir(tt_dtype_t dt) { return tt_dtype_valid(dt) ? info[dt].mlir : "invalid"; }
int tt_dtype_is_float(tt_dtype_t dt) { return dt >= TT_F16 && dt <= TT_F64; }
int tt_dtype_is_int(tt_dtype_t dt) { return (dt >= TT_U8 && dt <= TT_I64) || dt == TT_U32 || dt == TT_U64; }
int tt_dtype_is_unsigned(tt_dtype_t dt) { return dt == TT_U8 || dt == TT_U32 || dt == TT_U64 || dt == TT_BOOL; }
int tt_dtype_is_complex(tt_dtype_t dt) { return dt == TT_C64 || dt == TT_C128; }
tt_dtype_t tt_dtype_real_part(tt_dtype_t dt) { return dt == TT_C64 ? TT_F32 : dt == TT_C128 ? TT_F64 : dt; }
tt_dtype_t tt_dtype_to_complex(tt_dtype_t dt) {
  if (tt_dtype_is_complex(dt)) return dt;
  return dt == TT_F64 ? TT_C128 : TT_C64;
}

tt_dtype_t tt_dtype_promote(tt_dtype_t a, tt_dtype_t b) {
  if (a == b) return a;
  if (a == TT_BOOL) return b;
  if (b == TT_BOOL) return a;
  /* complex wins; its precision is the wider of the two parts (complex64
   * with float64 is complex128), as in PyTorch. */
  if (tt_dtype_is_complex(a) || tt_dtype_is_complex(b)) {
    tt_dtype_t pa = tt_dtype_real_part(a), pb = tt_dtype_real_part(b);
    return pa == TT_F64 || pb == TT_F64 ? TT_C128 : TT_C64;
  }
  int fa = tt_dtype_is_float(a), fb = tt_dtype_is_float(b);
  if (fa && !fb) return a;
  if (fb && !fa) return b;
  if (fa && fb) {
    /* float16 with bfloat16 promotes to float32. */
    if ((a == TT_F16 && b == TT_BF16) || (a == TT_BF16 && b == TT_F16)) return TT_F32;
    return a > b ? a : b;
  }
  /* uint8 with a signed type: int8 -> int16, otherwise the signed one. */
  if (a == TT_U8 || b == TT_U8) {
    tt_dtype_t other = a == TT_U8 ? b : a;
    return other == TT_I8 ? TT_I16 : other;
  }
  return a > b ? a : b;
}
