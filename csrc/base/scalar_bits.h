/* A Python number as the bytes of a dtype, for rank-0 program arguments. */
#ifndef TT_BASE_SCALAR_BITS_H
#define TT_BASE_SCALAR_BITS_H

#include <stdint.h>

#include "base/dtype.h"

/* Encodes a number (f when is_float, else i) as host bytes of dtype in the
 * low bytes of the result (8 bytes max). */
uint64_t tt_scalar_bits(tt_dtype_t dtype, double f, int64_t i, int is_float);

/* The number tt_scalar_bits encoded, exactly: a float dtype's value as a
 * double (every float16/bfloat16/float32 value is one), an integral or bool
 * dtype's as an int64 (uint64 above INT64_MAX wraps, as the constant
 * emitter reads it back). Real dtypes only. */
double tt_scalar_bits_float(tt_dtype_t dtype, uint64_t bits);
int64_t tt_scalar_bits_int(tt_dtype_t dtype, uint64_t bits);

#endif
