/* The compile-cache lookup chain: tier 1 -> tier 2 -> tier 3 -> compile. */
#include "exec/find.h"

#include "exec/engine.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/blocking.h"
#include "base/clock.h"
#include "base/hash.h"
#include "base/strbuf.h"
#include "cache/claim.h"
#include "exec/module_dump.h"
#include "exec/opt_level.h"
#include "exec/tiered.h"
#include "hlo/emit.h"

static double now_seconds(void) { return 1e-9 * (double)tt_monotonic_ns(); }

/* Loads id's entry from one directory tier. A bad entry is counted and left
 * to be overwritten by the caller's write-back. On a hit, *out_entry holds the
 * whole file (for copying to a lower tier). */
static tt_pjrt_executable_t *load(tt_engine_t *c, tt_cache_stats_t *st, tt_cache_dir_t *d,
                                  const tt_cache_entry_id_t *id, void **out_entry, size_t *out_entry_size) {
  *out_entry = NULL;
  if (!d) return NULL;
  void *data;
  size_t n, payload;
  tt_cache_entry_check_t chk;
  tt_cache_dir_get(d, id, &data, &n, &payload, &chk);
  if (!data) return NULL;
  tt_pjrt_executable_t *exe = NULL;
  if (chk == TT_ENTRY_OK) {
    tt_status_t s = tt_pjrt_executable_deserialize(c->rt, (char *)data + TT_CACHE_ENTRY_HEADER_SIZE, payload, &exe);
    if (s) { /* intact bytes the plugin rejects: as bad as a corrupt file */
      tt_status_free(s);
      exe = NULL;
    }
  }
  if (!exe) {
    st->corrupt_entries++;
    tt_free(data);
    return NULL;
  }
  *out_entry = data;
  *out_entry_size = n;
  return exe;
}

static void store(tt_cache_stats_t *st, tt_cache_dir_t *d, const tt_cache_key_t *key, const void *header, size_t hn,
                  const void *payload, size_t n, uint64_t *writes) {
  if (!d) return;
  tt_status_t s = tt_cache_dir_put(d, key, header, hn, payload, n);
  if (s) { /* a cache that cannot be written is slower, not wrong */
    st->write_errors++;
    tt_status_free(s);
    return;
  }
  (*writes)++;
}

void tt_exec_find_cancel(tt_engine_t *e, int cancel) { atomic_store(&e->cancel_waits, cancel); }

void tt_exec_set_compile_fault(tt_engine_t *e, const char *what_contains) { atomic_store(&e->compile_fault, what_contains); }

void tt_exec_set_refuse_classic(tt_engine_t *e, int refuse) { atomic_store(&e->refuse_classic, refuse); }

/* The compile options a key's options half stands for (tt_engine_options_key). */
static tt_pjrt_compile_options_t options_of(tt_engine_t *c, const tt_cache_key_t *key, int fast,
                                            const tt_strbuf_t *text) {
  int classic = !atomic_load(&c->no_classic_emitters) && tt_module_is_small(text->data, text->len, c->small_program);
  tt_pjrt_compile_options_t o = {1, key->options == c->options_key_exact, fast, c->opt_level, classic};
  return o;
}

/* XLA CPU plugins newer than the default one have no classic emitters and
 * refuse the option that asks for them ("No such compile option:
 * 'xla_cpu_use_fusion_emitters'"): the program is compiled again without it,
 * and so is every later one of this engine. The executables are the plugin's
 * only kind, so the cache keys (whose plugin identity differs) stay true. */
static tt_status_t compile_without_classic(tt_engine_t *c, tt_status_t s, const tt_strbuf_t *text, const char *what,
                                           const tt_pjrt_compile_options_t *o, tt_pjrt_executable_t **out_exe) {
  if (!s || !o->classic_emitters || !strstr(tt_status_message(s), "xla_cpu_use_fusion_emitters")) return s;
  atomic_store(&c->no_classic_emitters, 1);
  tt_status_free(s);
  tt_pjrt_compile_options_t plain = *o;
  plain.classic_emitters = 0;
  return tt_pjrt_compile_with(c->rt, text->data, text->len, &plain, what, out_exe);
}

static tt_status_t compile(tt_engine_t *c, tt_cache_stats_t *st, const tt_strbuf_t *text, const char *what,
                           int dump_text, const tt_pjrt_compile_options_t *o, tt_pjrt_executable_t **out_exe) {
  tt_module_dump(c, what, text);
  double t0 = now_seconds();
  const char *fault = atomic_load(&c->compile_fault);
  tt_status_t s = fault && strstr(what, fault)
                      ? tt_status_make(TT_INTERNAL, "compiling %s failed: injected fault (tests)", what)
                  : o->classic_emitters && atomic_load(&c->refuse_classic)
                      ? tt_status_make(TT_INVALID_ARGUMENT, "compiling %s failed (injected, tests): No such compile "
                                       "option: 'xla_cpu_use_fusion_emitters'", what)
                      : tt_pjrt_compile_with(c->rt, text->data, text->len, o, what, out_exe);
  s = compile_without_classic(c, s, text, what, o, out_exe);
  st->compile_seconds += now_seconds() - t0;
  if (s && dump_text && text->data) s = tt_status_annotate(s, "module text:\n%s\n", text->data);
  if (!s) st->misses++;
  if (!s && o->fast) st->fast_compiles++;
  return s;
}

/* Serializes a fresh executable into the directory tiers. */
static void write_back(tt_engine_t *c, tt_cache_stats_t *st, const tt_cache_entry_id_t *id, tt_pjrt_executable_t *exe) {
  if (!c->tier2 && !c->tier3) return;
  void *payload;
  size_t n;
  tt_status_t s = tt_pjrt_executable_serialize(c->rt, exe, &payload, &n);
  if (s) {
    st->write_errors++;
    tt_status_free(s);
    return;
  }
  unsigned char header[TT_CACHE_ENTRY_HEADER_SIZE];
  tt_cache_entry_header(id, payload, n, header);
  store(st, c->tier2, &id->key, header, sizeof header, payload, n, &st->tier2_writes);
  store(st, c->tier3, &id->key, header, sizeof header, payload, n, &st->tier3_writes);
  tt_free(payload);
}

/* How long a process waits for another one's compile of the same key before
 * compiling itself: a claim may delay a compile, never block it. */
#define CLAIM_WAIT_SECONDS 900.0

/* After a miss in every tier: if another process of this host is compiling
 * the key, waits for its tier-2 entry (NULL if it never came). Sets *owned
 * when this process took the claim and must compile and release it. */
static tt_pjrt_executable_t *wait_for_peer(tt_engine_t *c, tt_cache_stats_t *st, const tt_cache_entry_id_t *id,
                                           int *owned) {
  *owned = 0;
  if (!c->tier2) return NULL;
  double t0 = now_seconds();
  unsigned sleep_us = 1000;
  int waited = 0;
  for (;;) {
    tt_cache_claim_t cl = tt_cache_claim(c->tier2, &id->key);
    if (cl == TT_CLAIM_UNAVAILABLE) return NULL;
    /* Owned or busy: the entry may have landed just before, either way. */
    void *entry = NULL;
    size_t entry_size = 0;
    tt_pjrt_executable_t *exe = load(c, st, c->tier2, id, &entry, &entry_size);
    tt_free(entry);
    if (exe) {
      if (cl == TT_CLAIM_OWNED) tt_cache_claim_release(c->tier2, &id->key);
      st->tier2_hits++;
      if (waited) st->compile_waits++;
      return exe;
    }
    if (cl == TT_CLAIM_OWNED) {
      *owned = 1;
      return NULL;
    }
    if (now_seconds() - t0 > CLAIM_WAIT_SECONDS || atomic_load(&c->cancel_waits)) return NULL;
    if (!tt_cache_claim_held(c->tier2, &id->key)) continue; /* owner gone: try to take over */
    waited = 1;
    void *token = tt_blocking_begin(); /* another process compiles this key */
    usleep(sleep_us);
    tt_blocking_end(token);
    if (sleep_us < 20000) sleep_us *= 2;
  }
}

tt_tier1_exe_t *tt_exec_find_cached(tt_engine_t *c, const tt_cache_key_t *key) {
  tt_tier1_exe_t *e = tt_tier1_lookup(c->tier1, key);
  if (e) {
    c->stats.hits++;
    c->stats.tier1_hits++;
    tt_tiered_hit(c, e);
  } else {
    tt_tiered_miss(c);
  }
  return e;
}

tt_status_t tt_exec_emit_text(tt_engine_t *e, const tt_graph_t *g, tt_strbuf_t *out_text) {
  return tt_hlo_emit_module_for(g, tt_pjrt_runtime_info(e->rt)->platform_name, out_text);
}

tt_status_t tt_exec_emit(tt_engine_t *c, tt_graph_t *g, const tt_cache_key_t *key, tt_strbuf_t *out_text,
                         tt_cache_entry_id_t *out_id) {
  /* The module text is needed to compile and, for tiers 2 and 3, to check
   * that an entry was built from this very text; emitting it costs far less
   * than compiling. */
  tt_strbuf_init(out_text);
  tt_status_t s = tt_hlo_emit_module_for(g, tt_pjrt_runtime_info(c->rt)->platform_name, out_text);
  if (s) {
    tt_strbuf_free(out_text);
    return s;
  }
  tt_cache_entry_id_t id = {*key, tt_pjrt_runtime_info(c->rt)->identity,
                            tt_hash_bytes(TT_HASH_SEED, out_text->data, out_text->len)};
  *out_id = id;
  return TT_OK_STATUS;
}

tt_status_t tt_exec_find_uncached(tt_engine_t *c, const tt_cache_entry_id_t *id, const tt_strbuf_t *text,
                                  const char *what, int dump_text, int fast_ok, tt_cache_stats_t *st,
                                  tt_pjrt_executable_t **out_exe, int *out_fast) {
  *out_fast = 0;
  void *entry = NULL;
  size_t entry_size = 0;
  double t0 = now_seconds();
  tt_pjrt_executable_t *exe = load(c, st, c->tier2, id, &entry, &entry_size);
  if (exe) {
    st->tier2_hits++;
  } else {
    exe = load(c, st, c->tier3, id, &entry, &entry_size);
    if (exe) {
      st->tier3_hits++;
      /* Promote to the host tier: the file is already a valid entry. */
      store(st, c->tier2, &id->key, entry, entry_size, NULL, 0, &st->tier2_writes);
    }
  }
  tt_free(entry);
  int owned = 0;
  if (!exe) exe = wait_for_peer(c, st, id, &owned);
  tt_status_t s = TT_OK_STATUS;
  if (exe) {
    st->hits++;
    st->load_seconds += now_seconds() - t0;
  } else if (atomic_load(&c->cancel_waits)) { /* shutting down: no compile to wait for at exit */
    s = tt_status_make(TT_UNAVAILABLE, "compiling %s: cancelled, torchtpu is shutting down", what);
    if (owned) tt_cache_claim_release(c->tier2, &id->key);
  } else {
    tt_pjrt_compile_options_t o = options_of(c, &id->key, fast_ok, text);
    s = compile(c, st, text, what, dump_text, &o, &exe);
    if (!s && !fast_ok) write_back(c, st, id, exe); /* the cache tiers keep optimized executables only */
    *out_fast = !s && fast_ok;
    if (owned) tt_cache_claim_release(c->tier2, &id->key);
  }
  if (!s) *out_exe = exe;
  return s;
}

void tt_exec_stats_add(tt_cache_stats_t *into, const tt_cache_stats_t *d) {
  into->requests += d->requests;
  into->hits += d->hits;
  into->misses += d->misses;
  into->tier1_hits += d->tier1_hits;
  into->tier2_hits += d->tier2_hits;
  into->tier3_hits += d->tier3_hits;
  into->tier2_writes += d->tier2_writes;
  into->tier3_writes += d->tier3_writes;
  into->corrupt_entries += d->corrupt_entries;
  into->write_errors += d->write_errors;
  into->compile_waits += d->compile_waits;
  into->compile_seconds += d->compile_seconds;
  into->load_seconds += d->load_seconds;
  into->fast_compiles += d->fast_compiles;
  into->upgrades += d->upgrades;
}

tt_status_t tt_exec_find_executable(tt_engine_t *c, tt_graph_t *g, const tt_cache_key_t *key, const char *what,
                                    tt_tier1_exe_t **out_exe) {
  tt_tier1_exe_t *e = tt_exec_find_cached(c, key);
  if (e) {
    *out_exe = e;
    return TT_OK_STATUS;
  }
  tt_strbuf_t text;
  tt_cache_entry_id_t id;
  TT_RETURN_IF_ERROR(tt_exec_emit(c, g, key, &text, &id));
  tt_pjrt_executable_t *exe = NULL;
  int fast = 0;
  tt_status_t s = tt_exec_find_uncached(c, &id, &text, what, tt_env_flag(&c->env, TT_ENV_DUMP_HLO_ON_ERROR, 0),
                                        tt_tiered_threshold(c) > 0, &c->stats, &exe, &fast);
  tt_tiered_rec_t *rec = !s && fast ? tt_tiered_add(c, &id, &text, what) : NULL;
  tt_strbuf_free(&text);
  if (s) return s;
  e = tt_tier1_insert_as(c->tier1, key, exe, rec);
  if (!e) return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory caching the executable of %s", what);
  c->stats.executables = tt_tier1_size(c->tier1);
  c->stats.tier1_evicted = tt_tier1_evicted(c->tier1);
  *out_exe = e;
  return TT_OK_STATUS;
}
