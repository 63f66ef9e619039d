/* Graph fingerprints: the shapeless key and the dimensions key of a region. */
#ifndef TT_IR_FINGERPRINT_H
#define TT_IR_FINGERPRINT_H

#include <stdint.h>

#include "ir/graph.h"

typedef struct tt_graph_key_s {
  uint64_t shapeless; /* op kinds, sub-ops, edges, dtypes, ranks, outputs */
  uint64_t dims;      /* every dimension and integer/float attribute */
} tt_graph_key_t;

tt_graph_key_t tt_graph_fingerprint(const tt_graph_t *g);

#endif
