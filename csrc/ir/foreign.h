/* Foreign StableHLO modules (lowered by JAX or any other producer) spliced
 * into our programs: an interned table from the module text's 64-bit hash to
 * its entry signature and its functions renamed for splicing.
 *
 * Thread safety: tt_foreign_intern and tt_foreign_get may be called from any
 * thread (one mutex). Entries are immutable once interned and live until the
 * process exits, so a borrowed entry stays valid. */
#ifndef TT_IR_FOREIGN_H
#define TT_IR_FOREIGN_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "ir/graph.h"

/* Tensors a call from a jax_op may pass (ops/foreign_module.c). */
#define TT_FOREIGN_MAX_VALUES 256
/* Arguments or results an entry may have (a replayed plan's program is one:
 * a transformer's forward returns hundreds of saved tensors). */
#define TT_FOREIGN_MAX_SIGNATURE 65536

typedef struct tt_foreign_s {
  uint64_t key;       /* hash of the module text as given */
  int nin, nout;
  tt_type_t *in;      /* the entry function's argument types */
  tt_type_t *out;     /* and its result types */
  char entry[40];     /* the entry's name after renaming: "tt_ff<key>_main" */
  char *funcs;        /* every function of the module, renamed and private */
} tt_foreign_t;

/* Parses a module (`module ... { func.func public @main ... }`, JAX's
 * `Lowered.as_text()` form or MLIR's generic form), renames every symbol it
 * defines with a prefix unique to its text, makes its functions private and
 * records the entry's (@main, else the one public function) signature.
 * Interning the same text again returns the same key and does no work. */
tt_status_t tt_foreign_intern(const char *text, size_t len, uint64_t *out_key);

/* The entry for key, or NULL when none was interned. */
const tt_foreign_t *tt_foreign_get(uint64_t key);

#endif
