/* Shared pieces of StableHLO text: names, arrays, literals, reduction regions. */
#include "hlo/emit_util.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "hlo/emit.h"

void tt_hlo_type(tt_strbuf_t *sb, const tt_type_t *t) {
  tt_strbuf_append(sb, "tensor<");
  for (int i = 0; i < t->rank; i++) tt_strbuf_appendf(sb, "%lldx", (long long)t->dims[i]);
  tt_strbuf_append(sb, tt_dtype_mlir(t->dtype));
  tt_strbuf_append(sb, ">");
}

void tt_hlo_scalar_type(tt_strbuf_t *sb, tt_dtype_t dt) {
  tt_strbuf_appendf(sb, "tensor<%s>", tt_dtype_mlir(dt));
}

void tt_hlo_name(tt_strbuf_t *sb, const tt_graph_t *g, int v) {
  const tt_node_t *n = tt_graph_node(g, v);
  if (n->kind == TT_OPK_GET)
    tt_strbuf_appendf(sb, "%%v%d#%lld", n->inputs[0], (long long)n->ints[0]);
  else
    tt_strbuf_appendf(sb, "%%v%d", v);
}

void tt_hlo_i64_array(tt_strbuf_t *sb, const int64_t *v, int n) {
  tt_strbuf_append(sb, "array<i64");
  for (int i = 0; i < n; i++) tt_strbuf_appendf(sb, i ? ", %lld" : ": %lld", (long long)v[i]);
  tt_strbuf_append(sb, ">");
}

void tt_hlo_i64_list(tt_strbuf_t *sb, const int64_t *v, int n) {
  tt_strbuf_append(sb, "[");
  for (int i = 0; i < n; i++) tt_strbuf_appendf(sb, i ? ", %lld" : "%lld", (long long)v[i]);
  tt_strbuf_append(sb, "]");
}

/* Non-finite floats must be spelled as hex bit patterns of the target type. */
static void nonfinite_hex(tt_strbuf_t *sb, tt_dtype_t dt, double f) {
  int neg = signbit(f) != 0, nan = isnan(f);
  switch (dt) {
    case TT_F16: tt_strbuf_appendf(sb, "0x%04X", nan ? 0x7E00u : (neg ? 0xFC00u : 0x7C00u)); break;
    case TT_BF16: tt_strbuf_appendf(sb, "0x%04X", nan ? 0x7FC0u : (neg ? 0xFF80u : 0x7F80u)); break;
    case TT_F64: {
      uint64_t bits = nan ? 0x7FF8000000000000ULL : (neg ? 0xFFF0000000000000ULL : 0x7FF0000000000000ULL);
      tt_strbuf_appendf(sb, "0x%016llX", (unsigned long long)bits);
      break;
    }
    default: tt_strbuf_appendf(sb, "0x%08X", nan ? 0x7FC00000u : (neg ? 0xFF800000u : 0x7F800000u));
  }
}

void tt_hlo_constant_literal(tt_strbuf_t *sb, tt_dtype_t dt, double f, int64_t i) {
  if (tt_dtype_is_float(dt)) {
    if (isfinite(f))
      tt_strbuf_appendf(sb, "%.17e", f);
    else
      nonfinite_hex(sb, dt, f);
  } else if (dt == TT_BOOL) {
    tt_strbuf_append(sb, i ? "true" : "false");
  } else if (dt == TT_U64) {
    tt_strbuf_appendf(sb, "%llu", (unsigned long long)i);
  } else {
    tt_strbuf_appendf(sb, "%lld", (long long)i);
  }
}

static const char *combiner(int kind, tt_dtype_t dt) {
  switch ((tt_reduce_t)kind) {
    case TT_RED_SUM: return dt == TT_BOOL ? "stablehlo.or" : "stablehlo.add";
    case TT_RED_PROD: return dt == TT_BOOL ? "stablehlo.and" : "stablehlo.multiply";
    case TT_RED_MAX: return "stablehlo.maximum";
    case TT_RED_MIN: return "stablehlo.minimum";
    case TT_RED_AND: return "stablehlo.and";
    case TT_RED_OR: return "stablehlo.or";
    default: return NULL;
  }
}

void tt_hlo_reduce_region(tt_strbuf_t *sb, int kind, tt_dtype_t dt) {
  char st[32];
  snprintf(st, sizeof st, "tensor<%s>", tt_dtype_mlir(dt));
  tt_strbuf_appendf(sb, "({\n  ^bb0(%%a: %s, %%b: %s):\n", st, st);
  if (kind == TT_RED_SET) {
    tt_strbuf_appendf(sb, "    \"stablehlo.return\"(%%b) : (%s) -> ()\n})", st);
    return;
  }
  tt_strbuf_appendf(sb, "    %%r = \"%s\"(%%a, %%b) : (%s, %s) -> %s\n", combiner(kind, dt), st, st, st);
  tt_strbuf_appendf(sb, "    \"stablehlo.return\"(%%r) : (%s) -> ()\n})", st);
}

void tt_hlo_operands(tt_strbuf_t *sb, const tt_graph_t *g, const tt_node_t *n) {
  tt_strbuf_append(sb, "(");
  for (int i = 0; i < n->ninputs; i++) {
    if (i) tt_strbuf_append(sb, ", ");
    tt_hlo_name(sb, g, n->inputs[i]);
  }
  tt_strbuf_append(sb, ")");
}

void tt_hlo_signature(tt_strbuf_t *sb, const tt_graph_t *g, const tt_node_t *n) {
  tt_strbuf_append(sb, " : (");
  for (int i = 0; i < n->ninputs; i++) {
    if (i) tt_strbuf_append(sb, ", ");
    tt_hlo_type(sb, tt_graph_type(g, n->inputs[i]));
  }
  tt_strbuf_append(sb, ") -> ");
  if (n->nresults > 1) {
    tt_strbuf_append(sb, "(");
    for (int i = 0; i < n->nresults; i++) {
      if (i) tt_strbuf_append(sb, ", ");
      tt_hlo_type(sb, &n->types[i]);
    }
    tt_strbuf_append(sb, ")");
  } else {
    tt_hlo_type(sb, &n->type);
  }
  tt_strbuf_append(sb, "\n");
}
