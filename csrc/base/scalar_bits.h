/* A Python number as the bytes of a dtype, for rank-0 program arguments. */
#ifndef TT_BASE_SCALAR_BITS_H
#define TT_BASE_SCALAR_BITS_H

#include <stdint.h>

#include "base/dtype.h"

/* Encodes a number (f when is_float, else i) as host bytes of dtype in the
 * low bytes of the result (8 bytes max). */
uint64_t tt_scalar_bits(tt_dtype_t dtype, double f, int64_t i, int is_float);

#endif
