/* A Python number as the bytes of a dtype, for rank-0 program arguments. */
#ifndef TT_BASE_SCALAR_BITS_H
#define TT_BASE_SCALAR_BITS_H

#include <stdint.h>

#include "base/dtype.h"

/* Encodes a number (f when is_float, else i) as host bytes of dtype in the
 * low bytes of the result (8 bytes max). */
uint64_t tt_scalar_bits(tt_dtype_t dtype, double f, int64_t i, int is_float);

/* The number tt_scalar_bits encoded for a real floating dtype, exactly, as
 * a double (every float16/bfloat16/float32 value is one); NaN for any other
 * dtype. tt_scalar_bits_float(dt, tt_scalar_bits(dt, v, 0, 1)) is v rounded
 * to dt. */
double tt_scalar_bits_float(tt_dtype_t dtype, uint64_t bits);

#endif
