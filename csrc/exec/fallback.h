/* Ops with no TPU lowering: the CPU-fallback switch, per-op run counts with
 * warn-once state, and the errors raised when an op cannot run on TPU. The
 * core decides; the glue does the host copies (they call PyTorch's CPU kernels).
 * State: tt_fallback_t, one per engine. Thread safety: none; the engine's
 * owner serializes calls. */
#ifndef TT_EXEC_FALLBACK_H
#define TT_EXEC_FALLBACK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/status.h"

typedef struct tt_fallback_entry_s {
  char *name;
  uint64_t runs;
} tt_fallback_entry_t;

/* An engine's fallback switch and the ops that ran on the host. Few distinct
 * ops fall back, and each run copies tensors to the host and back: a linear
 * scan of this list costs nothing next to that. */
typedef struct tt_fallback_s {
  bool enabled;
  tt_fallback_entry_t *entries;
  int n_entries, cap_entries;
} tt_fallback_t;

/* Off by default, as in TorchTPU. */
void tt_fallback_set_enabled(tt_fallback_t *f, bool on);
bool tt_fallback_enabled(const tt_fallback_t *f);

/* `op` ("aten::name.overload") has no lowering. With the fallback off: a
 * NOT_IMPLEMENTED status naming the op, how to turn the fallback on and where
 * to report. With it on: counts one host run of `op` and sets *out_first on
 * its first run, so the caller warns once per op. */
tt_status_t tt_fallback_enter(tt_fallback_t *f, const char *op, bool *out_first);

/* `op` was called with an input the TPU cannot hold (`what`: "sparse COO
 * layout", "quantized dtype", ...): NOT_IMPLEMENTED saying so and what to do.
 * The fallback does not apply: the host copy would need the same support. */
tt_status_t tt_fallback_unsupported(const char *op, const char *what);

/* The ops that ran on the host since the last reset, in first-run order. */
int tt_fallback_op_count(const tt_fallback_t *f);
const char *tt_fallback_op(const tt_fallback_t *f, int i, uint64_t *out_runs);
void tt_fallback_reset(tt_fallback_t *f);

#endif
