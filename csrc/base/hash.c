/* 64-bit fingerprints: FNV-1a over bytes with a final avalanche mix. */
#include "base/hash.h"

#include <string.h>

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

uint64_t tt_hash_bytes(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return mix(h);
}

uint64_t tt_hash_u64(uint64_t h, uint64_t v) { return mix(h ^ mix(v + 0x9e3779b97f4a7c15ULL)); }

uint64_t tt_hash_str(uint64_t h, const char *s) { return tt_hash_bytes(h, s, strlen(s)); }
