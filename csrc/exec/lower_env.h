/* The engine's side of the lowering interface (ops/lower.h tt_lower_env_t):
 * region parameters, storage bases and RNG draws of one engine. */
#ifndef TT_EXEC_LOWER_ENV_H
#define TT_EXEC_LOWER_ENV_H

#include "exec/engine_type.h"
#include "ops/lower.h"

/* An environment whose calls go to e (valid while e lives). */
tt_lower_env_t tt_engine_lower_env(tt_engine_t *e);
/* The float32 matmul precision of the call in progress: the engine's
 * precision source when set, else its matmul_precision field. */
int tt_engine_matmul_precision(const tt_engine_t *e);

#endif
