/* The engine lock and the fork guard: how threads share the one engine.
 *
 * Threading model. Any number of threads may call the core, but one at a
 * time: every entry point of the embedding (each call of the Python
 * binding, and the release of a storage by a dying tensor) holds the engine
 * lock for the whole call. The lock is recursive, because a call may re-enter
 * the core on the same thread (the binding's tensor wrapping runs Python
 * code, which may free a tensor or call another op). An op is therefore
 * atomic with respect to every other op, on any thread: a tensor shared by
 * threads sees their ops in some interleaving, never a half-done one. The
 * open DeferAndFuse region, the caches, the RNG and the counters are shared
 * by all threads, as PyTorch's CPU and CUDA device state is.
 *
 * The lock is never waited for by a thread that the embedding must let run:
 * the binding first tries it and, when it is taken, releases the GIL before
 * blocking on it. A thread holding the lock lets others run Python (not
 * ops) while it waits for the device or a compile (base/blocking.h).
 * The core's own threads (compile pool) never take it.
 *
 * Fork. The PJRT client and the core's threads do not survive fork(). Once
 * the engine is initialized, a child forked from the process is marked:
 * tt_engine_forked() is 1 there, and the embedding refuses every use of the
 * engine with a clear error (as CUDA does) and skips releases (the child
 * owns no device buffers: the parent does). */
#ifndef TT_API_ENGINE_LOCK_H
#define TT_API_ENGINE_LOCK_H

/* 1 when taken (counting one more recursive hold), 0 when another thread holds it. */
int tt_engine_trylock(void);
void tt_engine_lock(void);
void tt_engine_unlock(void);

/* Arms the fork guard (idempotent): called once the engine is initialized. */
void tt_engine_arm_fork_guard(void);
/* 1 in a process forked after the engine was initialized in its parent. */
int tt_engine_forked(void);

#endif
