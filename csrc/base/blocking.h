/* Host waits: the points where the calling thread blocks until the device
 * (an event), a compile, or another process's compile is done.
 *
 * The core calls tt_blocking_begin() before such a wait and
 * tt_blocking_end(token) after it, so that an embedding can let its other
 * threads run meanwhile: the Python binding releases the GIL there.
 *
 * Threading: the hooks are set once, by the process's one embedding, before
 * it makes its first call into the core, and are read-only afterwards; the
 * begin hook must be safe on any thread (core threads call it too, and get
 * a NULL token when there is nothing to release). */
#ifndef TT_BASE_BLOCKING_H
#define TT_BASE_BLOCKING_H

typedef void *(*tt_blocking_begin_fn_t)(void);
typedef void (*tt_blocking_end_fn_t)(void *token);

/* NULL hooks (the default) make begin/end no-ops. */
void tt_blocking_set_hooks(tt_blocking_begin_fn_t begin, tt_blocking_end_fn_t end);

void *tt_blocking_begin(void);
void tt_blocking_end(void *token);

#endif
