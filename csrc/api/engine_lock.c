/* The engine lock (recursive) and the fork guard (see engine_lock.h). */
#include "api/engine_lock.h"

#include <pthread.h>
#include <stdatomic.h>

/* Process-wide by nature: one engine per process, and fork marks the process. */
static pthread_mutex_t g_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_once_t g_guard_once = PTHREAD_ONCE_INIT;
static atomic_int g_forked;

int tt_engine_trylock(void) { return pthread_mutex_trylock(&g_lock) == 0; }
void tt_engine_lock(void) { pthread_mutex_lock(&g_lock); }
void tt_engine_unlock(void) { pthread_mutex_unlock(&g_lock); }

static void mark_child(void) { atomic_store(&g_forked, 1); }
static void register_guard(void) { pthread_atfork(NULL, NULL, mark_child); }

void tt_engine_arm_fork_guard(void) { pthread_once(&g_guard_once, register_guard); }
int tt_engine_forked(void) { return atomic_load_explicit(&g_forked, memory_order_relaxed); }
