/* Numbers encoded as the bits of a dtype (round to nearest even for the
 * 16-bit floats). */
#include "base/scalar_bits.h"

#include <string.h>

static uint16_t f32_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffff) > 0x7f800000) return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

static uint16_t f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31) return (uint16_t)(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    mant |= 0x800000;
    uint32_t shift = (uint32_t)(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) half++;
    return (uint16_t)(sign | half);
  }
  uint32_t half = sign | ((uint32_t)exp << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) half++;
  return (uint16_t)half;
}

uint64_t tt_scalar_bits(tt_dtype_t dtype, double f, int64_t i, int is_float) {
  uint64_t out = 0;
  double v = is_float ? f : (double)i;
  int64_t iv = is_float ? (int64_t)f : i;
  switch (dtype) {
    case TT_F64: memcpy(&out, &v, 8); break;
    case TT_F32: { float x = (float)v; memcpy(&out, &x, 4); break; }
    case TT_BF16: out = f32_to_bf16((float)v); break;
    case TT_F16: out = f32_to_f16((float)v); break;
    case TT_BOOL: out = is_float ? (f != 0.0) : (i != 0); break;
    default: {
      size_t n = tt_dtype_size(dtype);
      memcpy(&out, &iv, n); /* little-endian truncation */
    }
  }
  return out;
}

static float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000 | (mant << 13);
  } else if (exp == 0) { /* zero or subnormal: mant * 2^-24, exact in float32 */
    float f = (float)mant * 0x1p-24f;
    return sign ? -f : f;
  } else {
    u = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  memcpy(&f, &u, 4);
  return f;
}

double tt_scalar_bits_float(tt_dtype_t dtype, uint64_t bits) {
  switch (dtype) {
    case TT_F64: { double d; memcpy(&d, &bits, 8); return d; }
    case TT_F32: { float f; uint32_t u = (uint32_t)bits; memcpy(&f, &u, 4); return f; }
    case TT_BF16: { float f; uint32_t u = (uint32_t)(bits & 0xffff) << 16; memcpy(&f, &u, 4); return f; }
    case TT_F16: return f16_to_f32((uint16_t)bits);
    default: return 0.0 / 0.0;
  }
}
