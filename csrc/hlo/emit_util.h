/* Private helpers shared by the StableHLO text emitters. */
#ifndef TT_HLO_EMIT_UTIL_H
#define TT_HLO_EMIT_UTIL_H

#include "base/strbuf.h"
#include "ir/graph.h"

void tt_hlo_name(tt_strbuf_t *sb, const tt_graph_t *g, int v);
void tt_hlo_i64_array(tt_strbuf_t *sb, const int64_t *v, int n);     /* array<i64: 1, 2> */
void tt_hlo_i64_list(tt_strbuf_t *sb, const int64_t *v, int n);      /* [1, 2] */
void tt_hlo_scalar_type(tt_strbuf_t *sb, tt_dtype_t dt);             /* tensor<f32> */
void tt_hlo_constant_literal(tt_strbuf_t *sb, tt_dtype_t dt, double f, int64_t i);
/* Region for a binary reduction of element type dt: ({ ^bb0(...): ... }) */
void tt_hlo_reduce_region(tt_strbuf_t *sb, int kind, tt_dtype_t dt);
/* Operand list and functional type: (%a, %b) ... : (ta, tb) -> tr */
void tt_hlo_operands(tt_strbuf_t *sb, const tt_graph_t *g, const tt_node_t *n);
void tt_hlo_signature(tt_strbuf_t *sb, const tt_graph_t *g, const tt_node_t *n);

/* A DOT or CONV node v, whole line(s), in its precision mode (emit_contract.c). */
tt_status_t tt_hlo_emit_contraction(const tt_graph_t *g, int v, int native_precision, tt_strbuf_t *sb);

#endif
