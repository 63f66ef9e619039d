/* Printable form of cache keys, used in file names and messages. */
#include "cache/key.h"

#include <stdio.h>

void tt_cache_key_format(const tt_cache_key_t *k, char *buf, unsigned long n) {
  snprintf(buf, n, "%016llx_%016llx_%016llx", (unsigned long long)k->shapeless,
           (unsigned long long)k->dims, (unsigned long long)k->options);
}
