/* Emits a graph as StableHLO module text (generic op form, entry @main). */
#ifndef TT_HLO_EMIT_H
#define TT_HLO_EMIT_H

#include "base/strbuf.h"
#include "ir/graph.h"

/* Appends the module to sb. Parameters become @main's arguments in order;
 * graph outputs become its results. */
tt_status_t tt_hlo_emit_module(const tt_graph_t *g, tt_strbuf_t *sb);

/* "tensor<2x3xf32>" */
void tt_hlo_type(tt_strbuf_t *sb, const tt_type_t *t);

#endif
