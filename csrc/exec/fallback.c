/* CPU-fallback policy and bookkeeping (see fallback.h). */
#include "exec/fallback.h"

#include <string.h>

#include "base/alloc.h"

#define REPORT_AT "the torchtpu issue tracker (give the op name, dtypes and shapes)"

typedef tt_fallback_entry_t entry_t;

void tt_fallback_set_enabled(tt_fallback_t *f, bool on) { f->enabled = on; }

bool tt_fallback_enabled(const tt_fallback_t *f) { return f->enabled; }

static entry_t *find_or_add(tt_fallback_t *f, const char *op, bool *out_added) {
  *out_added = false;
  for (int i = 0; i < f->n_entries; i++)
    if (strcmp(f->entries[i].name, op) == 0) return &f->entries[i];
  if (f->n_entries == f->cap_entries) {
    int cap = f->cap_entries ? 2 * f->cap_entries : 32;
    entry_t *grown = tt_realloc(f->entries, (size_t)cap * sizeof *grown);
    if (!grown) return NULL;
    f->entries = grown;
    f->cap_entries = cap;
  }
  char *name = tt_strdup(op);
  if (!name) return NULL;
  f->entries[f->n_entries] = (entry_t){name, 0};
  *out_added = true;
  return &f->entries[f->n_entries++];
}

tt_status_t tt_fallback_enter(tt_fallback_t *f, const char *op, bool *out_first) {
  *out_first = false;
  if (!f->enabled)
    return tt_status_make(TT_NOT_IMPLEMENTED,
                          "operator '%s' is not implemented for TPU yet. To run it on the CPU instead "
                          "(inputs copied to the host, results copied back), set the environment variable "
                          "TORCH_TPU_CPU_FALLBACK=1 or call torch.tpu.set_cpu_fallback(True). "
                          "Please report the missing op at " REPORT_AT ".",
                          op);
  bool added;
  entry_t *e = find_or_add(f, op, &added);
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

int tt_fallback_op_count(const tt_fallback_t *f) { return f->n_entries; }

const char *tt_fallback_op(const tt_fallback_t *f, int i, uint64_t *out_runs) {
  if (i < 0 || i >= f->n_entries) return NULL;
  *out_runs = f->entries[i].runs;
  return f->entries[i].name;
}

void tt_fallback_reset(tt_fallback_t *f) {
  for (int i = 0; i < f->n_entries; i++) tt_free(f->entries[i].name);
  tt_free(f->entries);
  f->entries = NULL;
  f->n_entries = f->cap_entries = 0;
}
