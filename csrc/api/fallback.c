/* CPU-fallback policy and bookkeeping (see fallback.h). */
#include "api/fallback.h"

#include <string.h>

#include "base/alloc.h"

#define REPORT_AT "the torchtpu issue tracker (give the op name, dtypes and shapes)"

typedef struct {
  char *name;
  uint64_t runs;
} entry_t;

static bool enabled;
/* Few distinct ops fall back, and each run copies tensors to the host and
 * back: a linear scan of this list costs nothing next to that. */
static entry_t *entries;
static int n_entries, cap_entries;

void tt_fallback_set_enabled(bool on) { enabled = on; }

bool tt_fallback_enabled(void) { return enabled; }

static entry_t *find_or_add(const char *op, bool *out_added) {
  *out_added = false;
  for (int i = 0; i < n_entries; i++)
    if (strcmp(entries[i].name, op) == 0) return &entries[i];
  if (n_entries == cap_entries) {
    int cap = cap_entries ? 2 * cap_entries : 32;
    entry_t *grown = tt_realloc(entries, (size_t)cap * sizeof *grown);
    if (!grown) return NULL;
    entries = grown;
    cap_entries = cap;
  }
  char *name = tt_strdup(op);
  if (!name) return NULL;
  entries[n_entries] = (entry_t){name, 0};
  *out_added = true;
  return &entries[n_entries++];
}

tt_status_t tt_fallback_enter(const char *op, bool *out_first) {
  *out_first = false;
  if (!enabled)
    return tt_status_make(TT_NOT_IMPLEMENTED,
                          "operator '%s' is not implemented for TPU yet. To run it on the CPU instead "
                          "(inputs copied to the host, results copied back), set the environment variable "
                          "TORCH_TPU_CPU_FALLBACK=1 or call torch.tpu.set_cpu_fallback(True). "
                          "Please report the missing op at " REPORT_AT ".",
                          op);
  bool added;
  entry_t *e = find_or_add(op, &added);
  if (!e) return tt_status_make(TT_OUT_OF_MEMORY, "CPU fallback of %s: out of host memory", op);
  e->runs++;
  *out_first = added;
  return TT_OK_STATUS;
}

tt_status_t tt_fallback_unsupported(const char *op, const char *what) {
  return tt_status_make(TT_NOT_IMPLEMENTED,
                        "operator '%s': %s is not supported on TPU yet (the CPU fallback does not apply "
                        "to it either). Keep such tensors on the CPU, or convert them there before moving "
                        "them to TPU (.to_dense(), .dequantize(), or real and imaginary parts as separate "
                        "real tensors). Please report the need at " REPORT_AT ".",
                        op, what);
}

int tt_fallback_op_count(void) { return n_entries; }

const char *tt_fallback_op(int i, uint64_t *out_runs) {
  if (i < 0 || i >= n_entries) return NULL;
  *out_runs = entries[i].runs;
  return entries[i].name;
}

void tt_fallback_reset(void) {
  for (int i = 0; i < n_entries; i++) tt_free(entries[i].name);
  tt_free(entries);
  entries = NULL;
  n_entries = cap_entries = 0;
}
