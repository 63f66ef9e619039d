/* Tier 1 of the compile cache: loaded executables in process memory, bounded
 * by an entry count (TORCH_TPU_TIER1_COMPILATION_CACHE_MAX_ENTRIES), least
 * recently used evicted first. Executables are refcounted handles: the table
 * holds one reference and every launch holds one until its completion event
 * is waited for (exec/inflight.h), so an evicted executable is destroyed only
 * when no launch of it can still be running.
 * The bound is a count, not bytes: PJRT reports no cheap, reliable size of a
 * loaded executable (PJRT_Executable_SizeOfGeneratedCodeInBytes is optional,
 * and serializing to measure costs as much as a tier-2 write).
 * Thread safety: all functions lock internally. */
#ifndef TT_CACHE_TIER1_H
#define TT_CACHE_TIER1_H

#include <stddef.h>
#include <stdint.h>

#include "cache/key.h"
#include "pjrt/runtime.h"

typedef struct tt_tier1_s tt_tier1_t;
typedef struct tt_tier1_exe_s tt_tier1_exe_t; /* a refcounted executable */

#define TT_TIER1_DEFAULT_MAX_ENTRIES 4096

/* max_entries 0: no limit. */
tt_status_t tt_tier1_create(tt_pjrt_runtime_t *rt, size_t max_entries, tt_tier1_t **out_cache);
/* The limit from TORCH_TPU_TIER1_COMPILATION_CACHE_MAX_ENTRIES (0: none),
 * TT_TIER1_DEFAULT_MAX_ENTRIES when unset or unparsable. */
size_t tt_tier1_max_entries_from_env(const tt_env_t *env);
/* Destroys every executable; references still held are a bug (checked by
 * the tests: every launch is waited for before). */
void tt_tier1_destroy(tt_tier1_t *c);
/* A new reference to key's executable (now the most recently used), or NULL. */
tt_tier1_exe_t *tt_tier1_lookup(tt_tier1_t *c, const tt_cache_key_t *k);
/* Takes ownership of exe and returns a new reference to the entry. If the key
 * is already present (two compiles raced), exe is destroyed and the existing
 * entry returned. May evict the least recently used entries beyond the limit.
 * NULL (exe destroyed) when out of host memory. */
tt_tier1_exe_t *tt_tier1_insert(tt_tier1_t *c, const tt_cache_key_t *k, tt_pjrt_executable_t *exe);
/* As insert, with a tag the inserter reads back on lookups (tiered
 * compilation marks its quick executables so, exec/tiered.h); an entry
 * already present keeps its own. */
tt_tier1_exe_t *tt_tier1_insert_as(tt_tier1_t *c, const tt_cache_key_t *k, tt_pjrt_executable_t *exe, void *tag);
/* Puts exe (taken) in key's place, untagged: the old entry leaves the table
 * and is destroyed when no launch holds it any more (as an eviction, not
 * counted as one). 0 when out of host memory (exe destroyed, key absent). */
int tt_tier1_replace(tt_tier1_t *c, const tt_cache_key_t *k, tt_pjrt_executable_t *exe);
void *tt_tier1_tag(const tt_tier1_exe_t *e);
void tt_tier1_retain(tt_tier1_t *c, tt_tier1_exe_t *e);
/* Drops a reference; the last one destroys an evicted executable. */
void tt_tier1_release(tt_tier1_t *c, tt_tier1_exe_t *e);
/* Borrowed while the caller holds a reference. */
tt_pjrt_executable_t *tt_tier1_executable(const tt_tier1_exe_t *e);
size_t tt_tier1_size(tt_tier1_t *c);
/* Entries evicted by the limit so far. */
uint64_t tt_tier1_evicted(tt_tier1_t *c);
/* Executables evicted but not yet destroyed (a launch still holds them). */
size_t tt_tier1_lingering(tt_tier1_t *c);

#endif
