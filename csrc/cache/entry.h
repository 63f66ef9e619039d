/* The on-disk form of one compile-cache entry (tiers 2 and 3): a fixed
 * header, then a serialized PJRT executable.
 *
 *   offset  size  field (little-endian)
 *        0     8  magic "TTXCACHE"
 *        8     4  format version (TT_CACHE_ENTRY_VERSION)
 *       12     4  header size (TT_CACHE_ENTRY_HEADER_SIZE)
 *       16    24  key: shapeless, dims, options fingerprints
 *       40     8  plugin identity (which plugin build may load the payload)
 *       48     8  module hash (the StableHLO text the payload was compiled from)
 *       56     8  payload length
 *       64     8  checksum of bytes [0, 64) and the payload
 *
 * The module hash guards against a torchtpu build whose lowering changed
 * while the graph fingerprint did not: such an entry is foreign, not used.
 * Pure functions, no I/O; thread safe. */
#ifndef TT_CACHE_ENTRY_H
#define TT_CACHE_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "cache/key.h"

#define TT_CACHE_ENTRY_VERSION 1u
#define TT_CACHE_ENTRY_HEADER_SIZE 72u

/* What an entry must match to be used. */
typedef struct tt_cache_entry_id_s {
  tt_cache_key_t key;
  uint64_t plugin; /* tt_pjrt_info_t.identity */
  uint64_t module; /* hash of the module text */
} tt_cache_entry_id_t;

typedef enum tt_cache_entry_check_e {
  TT_ENTRY_OK = 0,
  TT_ENTRY_TRUNCATED, /* shorter than its header says */
  TT_ENTRY_CORRUPT,   /* bad magic, length, checksum, or another key's entry */
  TT_ENTRY_FOREIGN,   /* another format version, plugin build or module text */
} tt_cache_entry_check_t;

/* Fills the header for `payload` of n bytes. */
void tt_cache_entry_header(const tt_cache_entry_id_t *id, const void *payload, size_t n,
                           unsigned char out_header[TT_CACHE_ENTRY_HEADER_SIZE]);
/* Validates a whole entry (header + payload) read from a file. On OK the
 * payload is data + TT_CACHE_ENTRY_HEADER_SIZE, *out_payload_size bytes. */
tt_cache_entry_check_t tt_cache_entry_check(const void *data, size_t n, const tt_cache_entry_id_t *id,
                                            size_t *out_payload_size);
const char *tt_cache_entry_check_name(tt_cache_entry_check_t c);

#endif
