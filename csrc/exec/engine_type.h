/* The engine's type name alone, for headers that take an engine without
 * needing its fields (the full definition is exec/engine.h). */
#ifndef TT_EXEC_ENGINE_TYPE_H
#define TT_EXEC_ENGINE_TYPE_H

typedef struct tt_engine_s tt_engine_t;

#endif
