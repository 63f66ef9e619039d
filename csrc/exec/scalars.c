/* A direct-mapped cache of device scalars keyed by (dtype, bits). */
#include "exec/scalars.h"

#include <string.h>

#include "api/context.h"
#include "base/alloc.h"
#include "base/hash.h"

#define SLOTS 256

typedef struct {
  tt_dtype_t dtype;
  uint64_t bits;
  tt_pjrt_buffer_t *buf;
} slot_t;

static slot_t slots[SLOTS];

/* An evicted scalar may already be bound as an argument of the program
 * being launched (two scalars of one launch sharing a slot), so evicted
 * buffers are kept until the next launch starts binding: by then PJRT holds
 * its own reference for the program that used them. */
static tt_pjrt_buffer_t **evicted;
static size_t nevicted, cap_evicted;

static void evict(tt_pjrt_buffer_t *buf) {
  if (nevicted == cap_evicted) {
    size_t cap = cap_evicted ? 2 * cap_evicted : 64;
    tt_pjrt_buffer_t **p = tt_realloc(evicted, cap * sizeof(*p));
    if (!p) return; /* keep it alive forever rather than free it early */
    evicted = p;
    cap_evicted = cap;
  }
  evicted[nevicted++] = buf;
}

void tt_scalars_release_evicted(void) {
  for (size_t i = 0; i < nevicted; i++) tt_pjrt_buffer_destroy(tt_ctx()->rt, evicted[i]);
  nevicted = 0;
}

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

tt_status_t tt_scalars_get(tt_dtype_t dtype, uint64_t bits, tt_pjrt_buffer_t **out_buf) {
  size_t i = (size_t)tt_hash_u64((uint64_t)dtype, bits) & (SLOTS - 1);
  slot_t *s = &slots[i];
  if (s->buf && s->dtype == dtype && s->bits == bits) {
    *out_buf = s->buf;
    return TT_OK_STATUS;
  }
  tt_pjrt_buffer_t *buf;
  TT_RETURN_IF_ERROR(tt_pjrt_buffer_from_host(tt_ctx()->rt, &bits, dtype, NULL, 0, 0, &buf));
  /* The evicted scalar may still be an argument of an enqueued program;
   * PJRT keeps it alive until that program is done. */
  if (s->buf) evict(s->buf);
  s->dtype = dtype;
  s->bits = bits;
  s->buf = buf;
  *out_buf = buf;
  return TT_OK_STATUS;
}

void tt_scalars_clear(void) {
  for (size_t i = 0; i < SLOTS; i++) {
    if (slots[i].buf) tt_pjrt_buffer_destroy(tt_ctx()->rt, slots[i].buf);
    slots[i].buf = NULL;
  }
  tt_scalars_release_evicted();
  tt_free(evicted);
  evicted = NULL;
  cap_evicted = 0;
}
