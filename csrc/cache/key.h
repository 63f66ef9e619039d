/* The three 64-bit fingerprints that name a compiled executable. */
#ifndef TT_CACHE_KEY_H
#define TT_CACHE_KEY_H

#include <stdint.h>

typedef struct tt_cache_key_s {
  uint64_t shapeless;
  uint64_t dims;
  uint64_t options; /* compile options, plugin identity and our version */
} tt_cache_key_t;

/* "<shapeless>_<dims>_<options>" as %016llx each; buf holds >= 52 bytes. */
void tt_cache_key_format(const tt_cache_key_t *k, char *buf, unsigned long n);

#endif
