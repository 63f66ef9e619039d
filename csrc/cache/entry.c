/* Encoding and validation of compile-cache entry headers. */
#include "cache/entry.h"

#include <string.h>

#include "base/hash.h"

static const unsigned char kMagic[8] = {'T', 'T', 'X', 'C', 'A', 'C', 'H', 'E'};

/* Explicit little-endian so entries move between hosts of either order. */
static void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static uint32_t get32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static uint64_t checksum(const unsigned char *head64, const void *payload, size_t n) {
  return tt_hash_bytes(tt_hash_bytes(TT_HASH_SEED, head64, 64), payload, n);
}

void tt_cache_entry_header(const tt_cache_entry_id_t *id, const void *payload, size_t n,
                           unsigned char out[TT_CACHE_ENTRY_HEADER_SIZE]) {
  memcpy(out, kMagic, 8);
  put32(out + 8, TT_CACHE_ENTRY_VERSION);
  put32(out + 12, TT_CACHE_ENTRY_HEADER_SIZE);
  put64(out + 16, id->key.shapeless);
  put64(out + 24, id->key.dims);
  put64(out + 32, id->key.options);
  put64(out + 40, id->plugin);
  put64(out + 48, id->module);
  put64(out + 56, (uint64_t)n);
  put64(out + 64, checksum(out, payload, n));
}

tt_cache_entry_check_t tt_cache_entry_check(const void *data, size_t n, const tt_cache_entry_id_t *id,
                                            size_t *out_payload_size) {
  const unsigned char *p = data;
  *out_payload_size = 0;
  /* A prefix of the magic is a cut-off write; anything else is not ours. */
  if (memcmp(p, kMagic, n < 8 ? n : 8)) return TT_ENTRY_CORRUPT;
  if (n < 16) return TT_ENTRY_TRUNCATED;
  if (get32(p + 8) != TT_CACHE_ENTRY_VERSION || get32(p + 12) != TT_CACHE_ENTRY_HEADER_SIZE)
    return TT_ENTRY_FOREIGN;
  if (n < TT_CACHE_ENTRY_HEADER_SIZE) return TT_ENTRY_TRUNCATED;
  uint64_t len = get64(p + 56);
  size_t have = n - TT_CACHE_ENTRY_HEADER_SIZE;
  if (len > have) return TT_ENTRY_TRUNCATED;
  if (len < have) return TT_ENTRY_CORRUPT;
  if (checksum(p, p + TT_CACHE_ENTRY_HEADER_SIZE, have) != get64(p + 64)) return TT_ENTRY_CORRUPT;
  /* The bytes are intact: now, is it the entry we asked for? */
  if (get64(p + 16) != id->key.shapeless || get64(p + 24) != id->key.dims || get64(p + 32) != id->key.options)
    return TT_ENTRY_CORRUPT; /* a file holding another key's entry: misplaced */
  if (get64(p + 40) != id->plugin || get64(p + 48) != id->module) return TT_ENTRY_FOREIGN;
  *out_payload_size = have;
  return TT_ENTRY_OK;
}

const char *tt_cache_entry_check_name(tt_cache_entry_check_t c) {
  switch (c) {
    case TT_ENTRY_OK: return "ok";
    case TT_ENTRY_TRUNCATED: return "truncated";
    case TT_ENTRY_CORRUPT: return "corrupt";
    case TT_ENTRY_FOREIGN: return "foreign";
  }
  return "?";
}
