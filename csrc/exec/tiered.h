/* Tiered compilation: a program missing from every cache tier is first
 * compiled quickly (XLA's backend optimization level 0: the same values,
 * slower code, a fraction of the compile time), so the first step of a
 * model waits less. A quick executable found in tier 1 at least
 * TORCH_TPU_TIERED_COMPILE times is hot; once the program set is steady (a
 * run of tier-1 hits with no new program), hot ones are compiled again at
 * the full level on the compile pool, one at a time (the host keeps a core),
 * and each optimized executable replaces its quick one in tier 1 when ready
 * (a launch under way keeps the old one alive). Only optimized executables
 * are written to tiers 2 and 3, so a warm start loads fast code; upgrades
 * still queued at exit are dropped. 0 turns it off (every compile at the
 * full level); it is off as well without the compile pool (Debug mode,
 * TORCH_TPU_ASYNC_COMPILE=0), where an upgrade would block the host.
 * Thread safety: the engine's owner's thread only (the pool's jobs are
 * exec/compile_pool.h's). */
#ifndef TT_EXEC_TIERED_H
#define TT_EXEC_TIERED_H

#include <stdint.h>

#include "base/strbuf.h"
#include "cache/entry.h"
#include "cache/tier1.h"
#include "exec/engine_type.h"

typedef struct tt_tiered_rec_s tt_tiered_rec_t;

typedef struct tt_tiered_s {
  tt_tiered_rec_t *recs; /* quick executables' module texts, until upgraded */
  tt_tiered_rec_t *upgrading; /* the one upgrade under way, or NULL */
  int hot;                /* records past the threshold, not yet upgraded */
  uint64_t quiet;         /* tier-1 hits since the last miss */
  int forced;             /* tt_tiered_set_threshold: -1 (the environment's), else the threshold */
} tt_tiered_t;

/* Lookups before a quick executable is hot; 0 when tiering is off for the
 * next compiles. */
int tt_tiered_threshold(tt_engine_t *e);
/* Tests and benchmarks: a threshold (0 = off), or -1 for the environment's. */
void tt_tiered_set_threshold(tt_engine_t *e, int n);
/* A quick executable is about to enter tier 1: keeps its module text (taken)
 * for the upgrade; the record is the tier-1 entry's tag (NULL when out of
 * host memory: the quick executable then stays). */
tt_tiered_rec_t *tt_tiered_add(tt_engine_t *e, const tt_cache_entry_id_t *id, tt_strbuf_t *text, const char *what);
/* A tier-1 lookup found x / found nothing. */
void tt_tiered_hit(tt_engine_t *e, tt_tier1_exe_t *x);
void tt_tiered_miss(tt_engine_t *e);
/* Frees the texts kept (the engine's destroy, after the pool's shutdown). */
void tt_tiered_clear(tt_engine_t *e);

#endif
