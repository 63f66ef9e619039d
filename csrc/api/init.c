/* Creating and destroying the embedding's engine. */
#include "api/init.h"

#include "api/engine_lock.h"
#include "exec/engine.h"

tt_status_t tt_init(const char *fallback_plugin, tt_engine_t **out_engine) {
  TT_RETURN_IF_ERROR(tt_engine_create(fallback_plugin, out_engine));
  tt_engine_arm_fork_guard();
  return TT_OK_STATUS;
}

void tt_shutdown(tt_engine_t *e) { tt_engine_destroy(e); }
