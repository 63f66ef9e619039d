/* Emits a graph as StableHLO module text (generic op form, entry @main). */
#ifndef TT_HLO_EMIT_H
#define TT_HLO_EMIT_H

#include "base/strbuf.h"
#include "ir/graph.h"

/* Appends the module to sb. Parameters become @main's arguments in order;
 * graph outputs become its results. */
tt_status_t tt_hlo_emit_module(const tt_graph_t *g, tt_strbuf_t *sb);
/* The same for a plugin of PJRT platform name `platform` ("cpu", "tpu",
 * NULL = not a TPU): float32 dot_general/convolution precision modes (node
 * sub) become precision_config on a TPU, written-out bf16 passes elsewhere
 * (hlo/emit_contract.c). */
tt_status_t tt_hlo_emit_module_for(const tt_graph_t *g, const char *platform, tt_strbuf_t *sb);
/* Whether a plugin of that platform runs precision_config itself (TPU). */
int tt_hlo_native_precision(const char *platform);

/* "tensor<2x3xf32>" */
void tt_hlo_type(tt_strbuf_t *sb, const tt_type_t *t);

#endif
