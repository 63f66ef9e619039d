/* Graph fingerprints, split so that shape-polymorphic lookups stay possible. */
#include "ir/fingerprint.h"

#include <string.h>

#include "base/hash.h"

static uint64_t hash_type_shapeless(uint64_t h, const tt_type_t *t) {
  h = tt_hash_u64(h, (uint64_t)t->dtype);
  return tt_hash_u64(h, (uint64_t)t->rank);
}

static uint64_t hash_type_dims(uint64_t h, const tt_type_t *t) {
  return tt_hash_bytes(h, t->dims, sizeof(int64_t) * (size_t)t->rank);
}

/* Loop regions are inline in the node array (WHILE, REGION_ARG, RETURN
 * nodes; see ir/graph.h), so hashing every node in order covers their
 * contents and nesting with no special case. */
tt_graph_key_t tt_graph_fingerprint(const tt_graph_t *g) {
  uint64_t s = TT_HASH_SEED, d = TT_HASH_SEED ^ 0x5bd1e995ULL;
  int nn = tt_graph_num_nodes(g);
  for (int i = 0; i < nn; i++) {
    const tt_node_t *n = tt_graph_node(g, i);
    s = tt_hash_u64(s, ((uint64_t)n->kind << 32) | (uint32_t)n->sub);
    s = tt_hash_u64(s, (uint64_t)n->ninputs);
    if (n->kind == TT_OPK_FOREIGN) s = tt_hash_u64(s, (uint64_t)n->ints[0]); /* which module, in every key */
    for (int k = 0; k < n->ninputs; k++) s = tt_hash_u64(s, (uint64_t)(i - n->inputs[k]));
    if (n->nresults > 1) {
      for (int k = 0; k < n->nresults; k++) {
        s = hash_type_shapeless(s, &n->types[k]);
        d = hash_type_dims(d, &n->types[k]);
      }
    } else {
      s = hash_type_shapeless(s, &n->type);
      d = hash_type_dims(d, &n->type);
    }
    d = tt_hash_u64(d, (uint64_t)n->nints);
    if (n->nints) d = tt_hash_bytes(d, n->ints, sizeof(int64_t) * (size_t)n->nints);
    uint64_t fb;
    memcpy(&fb, &n->f, sizeof fb);
    d = tt_hash_u64(d, fb);
  }
  for (int i = 0; i < tt_graph_num_outputs(g); i++) {
    s = tt_hash_u64(s, (uint64_t)tt_graph_output(g, i));
    int a = tt_graph_output_alias(g, i);
    if (a >= 0) s = tt_hash_u64(tt_hash_u64(s, 0xa11a5ULL), (uint64_t)a);
  }
  tt_graph_key_t k = {s, d};
  return k;
}
