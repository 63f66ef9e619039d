/* The embedding's entry: creating the process's engine and arming the fork
 * guard (api/engine_lock.h). The embedding (the Python binding) owns the
 * engine it gets and passes it to every call of api/. */
#ifndef TT_API_INIT_H
#define TT_API_INIT_H

#include "base/status.h"
#include "exec/engine_type.h"

/* Creates an engine (exec/engine.h) and arms the fork guard: a child forked
 * from now on must not touch the device. */
tt_status_t tt_init(const char *fallback_plugin, tt_engine_t **out_engine);
/* Destroys the engine (NULL is a no-op). */
void tt_shutdown(tt_engine_t *e);

#endif
