/* 64-bit fingerprints for cache keys. */
#ifndef TT_BASE_HASH_H
#define TT_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define TT_HASH_SEED 0x9e3779b97f4a7c15ULL

uint64_t tt_hash_bytes(uint64_t h, const void *data, size_t n);
uint64_t tt_hash_u64(uint64_t h, uint64_t v);
uint64_t tt_hash_str(uint64_t h, const char *s);

#endif
