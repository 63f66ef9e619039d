/* Foreign StableHLO modules for torch.tpu.pallas.jax_op: the facade over
 * ir/foreign.h that the binding calls. Thread safety: any thread. */
#ifndef TT_API_FOREIGN_H
#define TT_API_FOREIGN_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

/* Interns module text; *out_key is what _tt_foreign_call takes. */
tt_status_t tt_api_foreign_intern(const char *text, size_t len, int64_t *out_key);
/* Number of entry arguments and results of an interned module (0, 0 when none). */
void tt_api_foreign_arity(int64_t key, int *out_nin, int *out_nout);

#endif
