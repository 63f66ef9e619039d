/* A directory of compile-cache entries, one file per key, shared by any
 * number of processes (tier 2 in /dev/shm, tier 3 anywhere, including a
 * remote file system mounted as a directory). Writes go to a uniquely named
 * temporary file in the same directory and are renamed into place, so a
 * reader sees a whole old entry, a whole new one, or none; many writers of one
 * key are safe (the last rename wins, each one complete). No locks: they are
 * unreliable on remote file systems. Readers validate every entry (entry.h).
 * Thread safety: a store may be used from several threads; it has no
 * mutable state besides a temp-name counter. */
#ifndef TT_CACHE_STORE_H
#define TT_CACHE_STORE_H

#include <stddef.h>

#include "base/status.h"
#include "cache/dir_stats.h"
#include "cache/entry.h"

typedef struct tt_cache_dir_s tt_cache_dir_t;

typedef struct tt_cache_dir_options_s {
  int private_dir; /* create the directory 0700 (a host-wide place such as /dev/shm) */
  int durable;     /* fsync entries before renaming them (persistent storage) */
  uint64_t max_bytes; /* size limit of the entries (0: none); least recently used go first */
} tt_cache_dir_options_t;


/* Creates the directory (and its parents) if needed; fails if it cannot be
 * created or written. */
tt_status_t tt_cache_dir_open(const char *path, const tt_cache_dir_options_t *options,
                              tt_cache_dir_t **out_dir);
void tt_cache_dir_close(tt_cache_dir_t *d);
const char *tt_cache_dir_path(const tt_cache_dir_t *d);
tt_cache_dir_stats_t tt_cache_dir_stats(const tt_cache_dir_t *d);

/* Reads and validates the entry for id->key. A valid entry's modification
 * time is refreshed (the size limit evicts least recently used first). *out_entry is NULL when there is
 * none; otherwise the caller frees it (tt_free) and *out_check says whether it
 * may be used (payload at TT_CACHE_ENTRY_HEADER_SIZE, *out_payload_size bytes).
 * An unreadable file is reported as missing. */
void tt_cache_dir_get(tt_cache_dir_t *d, const tt_cache_entry_id_t *id, void **out_entry,
                      size_t *out_entry_size, size_t *out_payload_size, tt_cache_entry_check_t *out_check);
/* Stores header + payload as the entry for key (atomically replacing any).
 * The first put of a process sweeps the directory (stale temp files go,
 * entries beyond the limit are evicted down to 3/4 of it), and so does any
 * put after which the size known to this process (the last sweep's count plus
 * its own puts since) exceeds the limit. Other processes' writes are seen at
 * the next sweep, so a directory shared by N writers can briefly exceed the
 * limit by what they wrote since their last sweeps. */
tt_status_t tt_cache_dir_put(tt_cache_dir_t *d, const tt_cache_key_t *key, const void *header,
                             size_t header_size, const void *payload, size_t payload_size);
/* The file name of key's entry ("<key>.ttx") inside the directory; buf >= 64 bytes. */
void tt_cache_dir_entry_name(const tt_cache_key_t *key, char *buf, size_t n);

#endif
