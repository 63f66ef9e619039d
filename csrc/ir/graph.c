/* Graph storage: nodes in an append-only array, with a sticky first error. */
#include "ir/graph.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/nbytes.h"

/* Node arrays (inputs, ints, result types) come from an arena of blocks that
 * never move, rewound on reset: building a region allocates nothing per node
 * once warm. */
typedef struct block_s {
  struct block_s *next;
  size_t cap, used;
  _Alignas(8) unsigned char data[];
} block_t;

struct tt_graph_s {
  block_t *blocks; /* first block; `cur` is the one being filled */
  block_t *cur;
  tt_node_t *nodes;
  int num_nodes, cap_nodes;
  int *params; /* node index of each parameter, by parameter index */
  int num_params, cap_params;
  int *outputs;
  int *out_alias; /* the parameter each output may reuse the buffer of, or -1 (tt_graph_alias_output) */
  int num_outputs, cap_outputs, cap_alias;
  tt_status_t error;
};

tt_status_t tt_graph_create(tt_graph_t **out_graph) {
  *out_graph = tt_calloc(1, sizeof(tt_graph_t));
  if (!*out_graph) return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory creating a graph");
  return TT_OK_STATUS;
}

static void *arena_alloc(tt_graph_t *g, size_t n) {
  n = (n + 7) & ~(size_t)7;
  for (;;) {
    block_t *b = g->cur;
    if (b && b->used + n <= b->cap) {
      void *p = b->data + b->used;
      b->used += n;
      return p;
    }
    if (b && b->next) { /* reuse a block kept from before the last reset */
      g->cur = b->next;
      g->cur->used = 0;
      continue;
    }
    size_t cap = n > 65536 ? n : 65536;
    block_t *nb = tt_malloc(sizeof(block_t) + cap);
    if (!nb) return NULL;
    nb->next = NULL;
    nb->cap = cap;
    nb->used = 0;
    if (b) b->next = nb;
    else g->blocks = nb;
    g->cur = nb;
  }
}

void tt_graph_reset(tt_graph_t *g) {
  if (g->blocks) g->blocks->used = 0;
  g->cur = g->blocks;
  g->num_nodes = g->num_params = g->num_outputs = 0;
  tt_status_free(g->error);
  g->error = NULL;
}

void tt_graph_truncate(tt_graph_t *g, int n) {
  /* The dropped nodes' arrays stay in the arena until the next reset. */
  if (n < g->num_nodes) g->num_nodes = n;
  while (g->num_params > 0 && g->params[g->num_params - 1] >= n) g->num_params--;
  int k = 0;
  for (int i = 0; i < g->num_outputs; i++)
    if (g->outputs[i] < n) {
      g->out_alias[k] = g->out_alias[i] < g->num_params ? g->out_alias[i] : -1;
      g->outputs[k++] = g->outputs[i];
    }
  g->num_outputs = k;
  tt_status_free(g->error);
  g->error = NULL;
}

void tt_graph_destroy(tt_graph_t *g) {
  if (!g) return;
  tt_graph_reset(g);
  for (block_t *b = g->blocks; b;) {
    block_t *next = b->next;
    tt_free(b);
    b = next;
  }
  tt_free(g->nodes);
  tt_free(g->params);
  tt_free(g->outputs);
  tt_free(g->out_alias);
  tt_free(g);
}

tt_status_t tt_graph_take_error(tt_graph_t *g) {
  tt_status_t s = g->error;
  g->error = NULL;
  return s;
}

int tt_graph_failed(const tt_graph_t *g) { return g->error != NULL; }

tt_val_t tt_graph_fail(tt_graph_t *g, tt_code_t code, const char *fmt, ...) {
  if (g->error) return -1;
  va_list ap;
  va_start(ap, fmt);
  g->error = tt_status_makev(code, fmt, ap);
  va_end(ap);
  return -1;
}

static int grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return 1;
  int c = *cap ? *cap * 2 : 16;
  while (c < need) c *= 2;
  void *q = tt_realloc(*p, (size_t)c * elem);
  if (!q) return 0;
  *p = q;
  *cap = c;
  return 1;
}

int tt_graph_num_nodes(const tt_graph_t *g) { return g->num_nodes; }
const tt_node_t *tt_graph_node(const tt_graph_t *g, int i) { return &g->nodes[i]; }
/* A failed builder value (-1), or any other id that names no node, gets
 * this empty type (rank 0, no dtype): lowerings that read a type before
 * checking for failure read zeros, never memory outside the node array, and
 * the graph's error is what the caller reports. */
static const tt_type_t no_type = {.dtype = TT_DTYPE_INVALID};
const tt_type_t *tt_graph_type(const tt_graph_t *g, tt_val_t v) {
  return v >= 0 && v < g->num_nodes ? &g->nodes[v].type : &no_type;
}
int tt_graph_num_params(const tt_graph_t *g) { return g->num_params; }
const tt_type_t *tt_graph_param_type(const tt_graph_t *g, int i) {
  return &g->nodes[g->params[i]].type;
}
tt_val_t tt_graph_param_value(const tt_graph_t *g, int i) { return g->params[i]; }
int tt_graph_num_outputs(const tt_graph_t *g) { return g->num_outputs; }
tt_val_t tt_graph_output(const tt_graph_t *g, int i) { return g->outputs[i]; }

tt_status_t tt_graph_add_output(tt_graph_t *g, tt_val_t v) {
  if (g->error) return tt_status_make(tt_status_code(g->error), "%s", tt_status_message(g->error));
  if (v < 0 || v >= g->num_nodes)
    return tt_status_make(TT_INTERNAL, "graph output %d is not a node", v);
  if (!grow((void **)&g->outputs, &g->cap_outputs, g->num_outputs + 1, sizeof(int)) ||
      !grow((void **)&g->out_alias, &g->cap_alias, g->num_outputs + 1, sizeof(int)))
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory adding a graph output");
  g->out_alias[g->num_outputs] = -1;
  g->outputs[g->num_outputs++] = v;
  return TT_OK_STATUS;
}

tt_status_t tt_graph_alias_output(tt_graph_t *g, int out, int param) {
  if (out < 0 || out >= g->num_outputs || param < 0 || param >= g->num_params)
    return tt_status_make(TT_INTERNAL, "graph alias: output %d or parameter %d out of range", out, param);
  const tt_type_t *a = &g->nodes[g->outputs[out]].type, *b = &g->nodes[g->params[param]].type;
  if (a->dtype != b->dtype || a->rank != b->rank || memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank))
    return tt_status_make(TT_INTERNAL, "graph alias: output %d and parameter %d differ in type", out, param);
  for (int i = 0; i < g->num_outputs; i++)
    if (i != out && g->out_alias[i] == param)
      return tt_status_make(TT_INTERNAL, "graph alias: parameter %d already reused by output %d", param, i);
  g->out_alias[out] = param;
  return TT_OK_STATUS;
}

int tt_graph_output_alias(const tt_graph_t *g, int i) { return g->out_alias ? g->out_alias[i] : -1; }

static void *dup_array(tt_graph_t *g, const void *src, size_t n, size_t elem, int *ok) {
  if (n == 0) return NULL;
  void *d = arena_alloc(g, n * elem);
  if (!d) {
    *ok = 0;
    return NULL;
  }
  memcpy(d, src, n * elem);
  return d;
}

static tt_val_t append_node(tt_graph_t *g, tt_opk_t kind, int sub, const tt_val_t *inputs,
                            int ninputs, const int64_t *ints, int nints, double f,
                            const tt_type_t *types, int ntypes) {
  if (g->error) return -1;
  for (int i = 0; i < ninputs; i++)
    if (inputs[i] < 0 || inputs[i] >= g->num_nodes)
      return tt_graph_fail(g, TT_INTERNAL, "node input %d is not a value", inputs[i]);
  for (int t = 0; t < ntypes; t++)
    if (types[t].rank < 0 || types[t].rank > TT_MAX_RANK)
      return tt_graph_fail(g, TT_INVALID_ARGUMENT, "tensors of rank %d are not supported (max %d)",
                           types[t].rank, TT_MAX_RANK);
  /* Every value's shape passes here: one whose bytes overflow int64 would
   * abort inside XLA ("overflow in static extent product"). */
  for (int t = 0; t < ntypes; t++)
    if (tt_nbytes_overflows(types[t].dims, types[t].rank, tt_dtype_size(types[t].dtype))) {
      int64_t unused;
      tt_status_t s = tt_nbytes_contiguous(types[t].dims, types[t].rank, 0, tt_dtype_size(types[t].dtype), &unused);
      tt_val_t r = tt_graph_fail(g, TT_INVALID_ARGUMENT, "%s", tt_status_message(s));
      tt_status_free(s);
      return r;
    }
  if (!grow((void **)&g->nodes, &g->cap_nodes, g->num_nodes + 1, sizeof(tt_node_t)))
    return tt_graph_fail(g, TT_OUT_OF_MEMORY, "out of host memory building a graph");
  if (kind == TT_OPK_PARAM &&
      !grow((void **)&g->params, &g->cap_params, g->num_params + 1, sizeof(int)))
    return tt_graph_fail(g, TT_OUT_OF_MEMORY, "out of host memory building a graph");
  tt_node_t n;
  memset(&n, 0, sizeof(n));
  int ok = 1;
  n.kind = kind;
  n.sub = sub;
  n.ninputs = ninputs;
  n.inputs = dup_array(g, inputs, (size_t)ninputs, sizeof(int), &ok);
  n.nints = nints;
  n.ints = dup_array(g, ints, (size_t)nints, sizeof(int64_t), &ok);
  n.f = f;
  n.nresults = ntypes;
  n.type = types[0];
  if (ntypes > 1) n.types = dup_array(g, types, (size_t)ntypes, sizeof(tt_type_t), &ok);
  if (kind == TT_OPK_PARAM) {
    n.nints = 1;
    n.ints = arena_alloc(g, sizeof(int64_t));
    ok &= n.ints != NULL;
  }
  if (!ok) return tt_graph_fail(g, TT_OUT_OF_MEMORY, "out of host memory building a graph");
  if (kind == TT_OPK_PARAM) {
    n.ints[0] = g->num_params;
    g->params[g->num_params++] = g->num_nodes;
  }
  g->nodes[g->num_nodes] = n;
  return g->num_nodes++;
}

tt_val_t tt_graph_append(tt_graph_t *g, tt_opk_t kind, int sub, const tt_val_t *inputs, int ninputs,
                         const int64_t *ints, int nints, double f, const tt_type_t *type) {
  return append_node(g, kind, sub, inputs, ninputs, ints, nints, f, type, 1);
}

tt_val_t tt_graph_append_multi(tt_graph_t *g, tt_opk_t kind, int sub, const tt_val_t *inputs,
                               int ninputs, const int64_t *ints, int nints,
                               const tt_type_t *types, int ntypes) {
  return append_node(g, kind, sub, inputs, ninputs, ints, nints, 0.0, types, ntypes);
}

tt_type_t tt_type_make(tt_dtype_t dtype, int rank, const int64_t *dims) {
  tt_type_t t;
  memset(&t, 0, sizeof(t));
  t.dtype = dtype;
  t.rank = rank;
  for (int i = 0; i < rank && i < TT_MAX_RANK; i++) t.dims[i] = dims[i];
  return t;
}

int64_t tt_type_numel(const tt_type_t *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->dims[i];
  return n;
}

int tt_type_equal(const tt_type_t *a, const tt_type_t *b) {
  if (a->dtype != b->dtype || a->rank != b->rank) return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return 0;
  return 1;
}

void tt_type_describe(const tt_type_t *t, char *buf, unsigned long n) {
  size_t used = 0;
  used += (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < t->rank && used < n; i++)
    used += (size_t)snprintf(buf + used, n - used, i ? ", %lld" : "%lld", (long long)t->dims[i]);
  if (used < n) snprintf(buf + used, n - used, "] %s", tt_dtype_name(t->dtype));
}
