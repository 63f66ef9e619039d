/* TORCH_TPU_DUMP_MODULES_TO=<dir>: the StableHLO text of each module the
 * engine compiles, written to <dir>/<pid>-<n>-<what>.mlir (n counts the
 * engine's dumps; what, the program's name with every character outside
 * [A-Za-z0-9._-] made '_', cut to 80). For reading a plan's program and
 * replaying it (bench/bench_program_vs_torchax.py). Best effort: a directory
 * that cannot be made or a file that cannot be written warns once on stderr
 * and the compile goes on. Thread safety: any thread (compile workers). */
#ifndef TT_EXEC_MODULE_DUMP_H
#define TT_EXEC_MODULE_DUMP_H

#include "base/strbuf.h"
#include "exec/engine_type.h"

void tt_module_dump(tt_engine_t *e, const char *what, const tt_strbuf_t *text);

#endif
