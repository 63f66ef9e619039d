/* Tiered compilation (exec/tiered.h): the kept texts, the hot-program
 * trigger and the swap of optimized executables into tier 1. */
#include "exec/tiered.h"

#include <string.h>

#include "base/alloc.h"
#include "exec/compile_pool.h"
#include "exec/engine.h"

/* A quick executable's text, waiting for its upgrade. */
struct tt_tiered_rec_s {
  tt_cache_entry_id_t id;
  tt_strbuf_t text;
  char *what;
  uint64_t uses;         /* tier-1 lookups that found it */
  int done;              /* upgraded, or its upgrade failed (never retried) */
  tt_compile_job_t *job; /* the upgrade under way */
  tt_tiered_rec_t *next;
};

/* Off unless asked: on a 2-core XLA:CPU host the first training step of
 * bench/bench_cold.py's transformer is 1.5x faster, but the steps until
 * the upgrades land run quick code 2.3x slower and share the cores with
 * them (README, "Tiered compilation"). */
#define DEFAULT_THRESHOLD 0
/* Tier-1 hits in a row with no miss: the program set is steady (a step's
 * programs all known), so upgrades no longer compete with first compiles. */
#define QUIET_HITS 64

int tt_tiered_threshold(tt_engine_t *e) {
  if (!tt_compile_pool_enabled(e) || e->mode == TT_MODE_DEBUG) return 0;
  if (e->tiered.forced >= 0) return e->tiered.forced;
  return (int)tt_env_count(&e->env, TT_ENV_TIERED_COMPILE, DEFAULT_THRESHOLD);
}

void tt_tiered_set_threshold(tt_engine_t *e, int n) { e->tiered.forced = n < 0 ? -1 : n; }

tt_tiered_rec_t *tt_tiered_add(tt_engine_t *e, const tt_cache_entry_id_t *id, tt_strbuf_t *text, const char *what) {
  tt_tiered_rec_t *r = tt_calloc(1, sizeof *r);
  size_t wn = strlen(what) + 1;
  char *w = tt_malloc(wn);
  if (!r || !w) {
    tt_free(r);
    tt_free(w);
    return NULL;
  }
  memcpy(w, what, wn);
  r->id = *id;
  r->text = *text;
  tt_strbuf_init(text);
  r->what = w;
  r->next = e->tiered.recs;
  e->tiered.recs = r;
  e->tiered.quiet = 0;
  return r;
}

void tt_tiered_miss(tt_engine_t *e) { e->tiered.quiet = 0; }

/* The upgrade under way, if finished: its executable replaces the quick one. */
static void collect(tt_engine_t *e) {
  tt_tiered_rec_t *r = e->tiered.upgrading;
  if (!tt_compile_job_done(r->job)) return;
  tt_pjrt_executable_t *exe = tt_compile_job_take(r->job);
  tt_compile_job_release(r->job);
  r->job = NULL;
  e->tiered.upgrading = NULL;
  if (!exe) return; /* failed or cancelled: the quick executable stays */
  if (tt_tier1_replace(e->tier1, &r->id.key, exe)) e->stats.upgrades++;
  /* the quick entry left the table: nothing reaches the record any more */
  for (tt_tiered_rec_t **p = &e->tiered.recs; *p; p = &(*p)->next)
    if (*p == r) {
      *p = r->next;
      break;
    }
  tt_strbuf_free(&r->text);
  tt_free(r->what);
  tt_free(r);
}

/* Starts the upgrade of a hot record (the most used). */
static void start_next(tt_engine_t *e, int threshold) {
  tt_tiered_rec_t *best = NULL;
  for (tt_tiered_rec_t *r = e->tiered.recs; r; r = r->next)
    if (!r->done && r->uses >= (uint64_t)threshold && (!best || r->uses > best->uses)) best = r;
  if (!best) {
    e->tiered.hot = 0;
    return;
  }
  best->done = 1;
  e->tiered.hot--;
  tt_strbuf_t text = best->text; /* the job takes it */
  tt_strbuf_init(&best->text);
  tt_status_t s = tt_compile_job_start_upgrade(e, &best->id, &text, best->what, &best->job);
  tt_strbuf_free(&text);
  if (s) { /* no upgrade: the quick executable stays */
    tt_status_free(s);
    best->job = NULL;
    return;
  }
  e->tiered.upgrading = best;
}

void tt_tiered_hit(tt_engine_t *e, tt_tier1_exe_t *x) {
  tt_tiered_t *T = &e->tiered;
  if (!T->recs) return; /* no quick executable: every launch's lookup stops here */
  T->quiet++;
  tt_tiered_rec_t *r = tt_tier1_tag(x);
  int threshold = r || T->hot ? tt_tiered_threshold(e) : 0;
  if (r && !r->done && ++r->uses == (uint64_t)threshold) T->hot++;
  if (T->upgrading) collect(e);
  if (!T->upgrading && T->hot > 0 && T->quiet >= QUIET_HITS && threshold > 0) start_next(e, threshold);
}

void tt_tiered_clear(tt_engine_t *e) {
  for (tt_tiered_rec_t *r = e->tiered.recs, *next; r; r = next) {
    next = r->next;
    if (r->job) { /* finished or cancelled by the pool's shutdown: off its list */
      tt_pjrt_executable_t *exe = tt_compile_job_take(r->job);
      if (exe) tt_pjrt_executable_destroy(e->rt, exe);
      tt_compile_job_release(r->job);
    }
    tt_strbuf_free(&r->text);
    tt_free(r->what);
    tt_free(r);
  }
  memset(&e->tiered, 0, sizeof e->tiered);
  e->tiered.forced = -1;
}
