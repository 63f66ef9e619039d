/* StableHLO module text for a graph: one generic-form op per node. A few
 * special functions are CHLO ops (names with their "chlo." dialect): XLA's
 * PJRT compile legalizes CHLO to HLO on every plugin (CPU, CUDA, libtpu). */
#include "hlo/emit.h"

#include <stdio.h>
#include <string.h>

#include "hlo/emit_util.h"
#include "ir/foreign.h"

static const char *unary_name(int op) {
  static const char *names[TT_UN_COUNT] = {
      [TT_UN_NEG] = "negate", [TT_UN_ABS] = "abs", [TT_UN_EXP] = "exponential",
      [TT_UN_EXPM1] = "exponential_minus_one", [TT_UN_LOG] = "log", [TT_UN_LOG1P] = "log_plus_one",
      [TT_UN_SQRT] = "sqrt", [TT_UN_RSQRT] = "rsqrt", [TT_UN_TANH] = "tanh",
      [TT_UN_LOGISTIC] = "logistic", [TT_UN_SIN] = "sine", [TT_UN_COS] = "cosine",
      [TT_UN_TAN] = "tan", [TT_UN_FLOOR] = "floor", [TT_UN_CEIL] = "ceil",
      [TT_UN_ROUND_EVEN] = "round_nearest_even", [TT_UN_SIGN] = "sign", [TT_UN_NOT] = "not",
      [TT_UN_IS_FINITE] = "is_finite", [TT_UN_CBRT] = "cbrt", [TT_UN_ERF] = "chlo.erf",
      [TT_UN_LGAMMA] = "chlo.lgamma", [TT_UN_DIGAMMA] = "chlo.digamma", [TT_UN_ERF_INV] = "chlo.erf_inv",
      [TT_UN_ERFC] = "chlo.erfc", [TT_UN_BESSEL_I1E] = "chlo.bessel_i1e",
      [TT_UN_REAL] = "real", [TT_UN_IMAG] = "imag", [TT_UN_ACOS] = "chlo.acos", [TT_UN_ASIN] = "chlo.asin",
      [TT_UN_ATAN] = "chlo.atan", [TT_UN_ACOSH] = "chlo.acosh", [TT_UN_ASINH] = "chlo.asinh",
      [TT_UN_ATANH] = "chlo.atanh",
  };
  return op >= 0 && op < TT_UN_COUNT ? names[op] : NULL;
}

static const char *binary_name(int op) {
  static const char *names[TT_BIN_COUNT] = {
      [TT_BIN_ADD] = "add", [TT_BIN_SUB] = "subtract", [TT_BIN_MUL] = "multiply",
      [TT_BIN_DIV] = "divide", [TT_BIN_REM] = "remainder", [TT_BIN_POW] = "power",
      [TT_BIN_MAX] = "maximum", [TT_BIN_MIN] = "minimum", [TT_BIN_AND] = "and",
      [TT_BIN_OR] = "or", [TT_BIN_XOR] = "xor", [TT_BIN_ATAN2] = "atan2",
      [TT_BIN_SHL] = "shift_left", [TT_BIN_SHR_A] = "shift_right_arithmetic",
      [TT_BIN_SHR_L] = "shift_right_logical",
      [TT_BIN_POLYGAMMA] = "chlo.polygamma", [TT_BIN_ZETA] = "chlo.zeta", [TT_BIN_NEXT_AFTER] = "chlo.next_after",
      [TT_BIN_COMPLEX] = "complex",
  };
  return op >= 0 && op < TT_BIN_COUNT ? names[op] : NULL;
}

static const char *cmp_name(int c) {
  static const char *names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  return c >= 0 && c < 6 ? names[c] : "EQ";
}

static void window_attrs(tt_strbuf_t *sb, const tt_node_t *n, int rank) {
  const int64_t *w = n->ints, *s = n->ints + rank, *lo = n->ints + 2 * rank, *hi = n->ints + 3 * rank;
  tt_strbuf_append(sb, " {window_dimensions = ");
  tt_hlo_i64_array(sb, w, rank);
  tt_strbuf_append(sb, ", window_strides = ");
  tt_hlo_i64_array(sb, s, rank);
  tt_strbuf_append(sb, ", padding = dense<[");
  for (int i = 0; i < rank; i++)
    tt_strbuf_appendf(sb, "%s[%lld, %lld]", i ? ", " : "", (long long)lo[i], (long long)hi[i]);
  tt_strbuf_appendf(sb, "]> : tensor<%dx2xi64>", rank);
  if (n->nints >= 5 * rank) { /* optional window dilations */
    tt_strbuf_append(sb, ", window_dilations = ");
    tt_hlo_i64_array(sb, n->ints + 4 * rank, rank);
  }
  tt_strbuf_append(sb, "}");
}

/* (values, indices) arg-reduction region: first index wins ties, NaN wins. */
static void argreduce_region(tt_strbuf_t *sb, int kind, tt_dtype_t dt) {
  char v[32];
  snprintf(v, sizeof v, "tensor<%s>", tt_dtype_mlir(dt));
  const char *dir = kind == TT_RED_ARGMAX ? "GT" : "LT";
  tt_strbuf_appendf(sb,
      "({\n  ^bb0(%%av: %s, %%ai: tensor<i64>, %%bv: %s, %%bi: tensor<i64>):\n"
      "    %%an = \"stablehlo.compare\"(%%av, %%av) {comparison_direction = #stablehlo<comparison_direction NE>} : (%s, %s) -> tensor<i1>\n"
      "    %%bn = \"stablehlo.compare\"(%%bv, %%bv) {comparison_direction = #stablehlo<comparison_direction NE>} : (%s, %s) -> tensor<i1>\n"
      "    %%gt = \"stablehlo.compare\"(%%av, %%bv) {comparison_direction = #stablehlo<comparison_direction %s>} : (%s, %s) -> tensor<i1>\n"
      "    %%eq = \"stablehlo.compare\"(%%av, %%bv) {comparison_direction = #stablehlo<comparison_direction EQ>} : (%s, %s) -> tensor<i1>\n"
      "    %%li = \"stablehlo.compare\"(%%ai, %%bi) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "    %%nb = \"stablehlo.not\"(%%bn) : (tensor<i1>) -> tensor<i1>\n"
      "    %%p1 = \"stablehlo.and\"(%%an, %%nb) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%bb = \"stablehlo.and\"(%%an, %%bn) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%e2 = \"stablehlo.or\"(%%eq, %%bb) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%p2 = \"stablehlo.and\"(%%e2, %%li) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%ng = \"stablehlo.and\"(%%gt, %%nb) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%p3 = \"stablehlo.or\"(%%p1, %%ng) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%pa = \"stablehlo.or\"(%%p3, %%p2) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%rv = \"stablehlo.select\"(%%pa, %%av, %%bv) : (tensor<i1>, %s, %s) -> %s\n"
      "    %%ri = \"stablehlo.select\"(%%pa, %%ai, %%bi) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>\n"
      "    \"stablehlo.return\"(%%rv, %%ri) : (%s, tensor<i64>) -> ()\n})",
      v, v, v, v, v, v, dir, v, v, v, v, v, v, v, v);
}

/* Max-pool's (value, index) region: a wins when it is NaN and b is not or
 * has a smaller index, or when a > b, or on ties with a smaller index. */
static void pool_argmax_region(tt_strbuf_t *sb, tt_dtype_t dt) {
  char v[32];
  snprintf(v, sizeof v, "tensor<%s>", tt_dtype_mlir(dt));
  tt_strbuf_appendf(sb,
      "({\n  ^bb0(%%av: %s, %%ai: tensor<i64>, %%bv: %s, %%bi: tensor<i64>):\n"
      "    %%an = \"stablehlo.compare\"(%%av, %%av) {comparison_direction = #stablehlo<comparison_direction NE>} : (%s, %s) -> tensor<i1>\n"
      "    %%bn = \"stablehlo.compare\"(%%bv, %%bv) {comparison_direction = #stablehlo<comparison_direction NE>} : (%s, %s) -> tensor<i1>\n"
      "    %%gt = \"stablehlo.compare\"(%%av, %%bv) {comparison_direction = #stablehlo<comparison_direction GT>} : (%s, %s) -> tensor<i1>\n"
      "    %%eq = \"stablehlo.compare\"(%%av, %%bv) {comparison_direction = #stablehlo<comparison_direction EQ>} : (%s, %s) -> tensor<i1>\n"
      "    %%li = \"stablehlo.compare\"(%%ai, %%bi) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "    %%gi = \"stablehlo.compare\"(%%ai, %%bi) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "    %%nb = \"stablehlo.not\"(%%bn) : (tensor<i1>) -> tensor<i1>\n"
      "    %%o1 = \"stablehlo.or\"(%%nb, %%gi) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%p1 = \"stablehlo.and\"(%%an, %%o1) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%p2 = \"stablehlo.and\"(%%eq, %%li) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%p3 = \"stablehlo.or\"(%%p1, %%gt) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%pa = \"stablehlo.or\"(%%p3, %%p2) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %%rv = \"stablehlo.select\"(%%pa, %%av, %%bv) : (tensor<i1>, %s, %s) -> %s\n"
      "    %%ri = \"stablehlo.select\"(%%pa, %%ai, %%bi) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>\n"
      "    \"stablehlo.return\"(%%rv, %%ri) : (%s, tensor<i64>) -> ()\n})",
      v, v, v, v, v, v, v, v, v, v, v, v, v, v);
}

/* The sort comparator on the first operand. Integers: LT/GT. Floats, as
 * PyTorch orders them: -0.0 and 0.0 are equal keys (a stable sort keeps
 * their order) and every NaN, whatever its sign, is the largest value:
 * ascending is x < y || (isnan(y) && !isnan(x)), descending
 * x > y || (isnan(x) && !isnan(y)). (StableHLO's TOTALORDER would put -0.0
 * before 0.0 and negative NaNs first.) */
static void sort_region(tt_strbuf_t *sb, const tt_graph_t *g, const tt_node_t *n) {
  tt_strbuf_append(sb, "({\n  ^bb0(");
  for (int i = 0; i < n->ninputs; i++) {
    const char *et = tt_dtype_mlir(tt_graph_type(g, n->inputs[i])->dtype);
    tt_strbuf_appendf(sb, "%s%%x%d: tensor<%s>, %%y%d: tensor<%s>", i ? ", " : "", i, et, i, et);
  }
  tt_dtype_t dt = tt_graph_type(g, n->inputs[0])->dtype;
  const char *t = tt_dtype_mlir(dt);
  int descending = n->ints[1] != 0;
  tt_strbuf_appendf(sb,
      "):\n    %%c = \"stablehlo.compare\"(%%x0, %%y0) {comparison_direction = #stablehlo<comparison_direction %s>} : "
      "(tensor<%s>, tensor<%s>) -> tensor<i1>\n",
      descending ? "GT" : "LT", t, t);
  if (tt_dtype_is_float(dt)) {
    /* %w: the operand that wins when it alone is NaN (y ascending, x descending). */
    const char *w = descending ? "%x0" : "%y0", *l = descending ? "%y0" : "%x0";
    tt_strbuf_appendf(sb,
        "    %%wn = \"stablehlo.compare\"(%s, %s) {comparison_direction = #stablehlo<comparison_direction NE>} : "
        "(tensor<%s>, tensor<%s>) -> tensor<i1>\n"
        "    %%ln = \"stablehlo.compare\"(%s, %s) {comparison_direction = #stablehlo<comparison_direction NE>} : "
        "(tensor<%s>, tensor<%s>) -> tensor<i1>\n"
        "    %%lk = \"stablehlo.not\"(%%ln) : (tensor<i1>) -> tensor<i1>\n"
        "    %%nan = \"stablehlo.and\"(%%wn, %%lk) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
        "    %%r = \"stablehlo.or\"(%%c, %%nan) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
        "    \"stablehlo.return\"(%%r) : (tensor<i1>) -> ()\n})",
        w, w, t, t, l, l, t, t);
  } else {
    tt_strbuf_append(sb, "    \"stablehlo.return\"(%c) : (tensor<i1>) -> ()\n})");
  }
}

static void dims_list(tt_strbuf_t *sb, const char *name, const int64_t **p, int *first) {
  int64_t cnt = *(*p)++;
  if (cnt > 0) {
    tt_strbuf_appendf(sb, "%s%s = ", *first ? "" : ", ", name);
    tt_hlo_i64_list(sb, *p, (int)cnt);
    *first = 0;
  }
  *p += cnt;
}

static tt_status_t emit_node(const tt_graph_t *g, int v, int native_precision, tt_strbuf_t *sb) {
  const tt_node_t *n = tt_graph_node(g, v);
  if (n->kind == TT_OPK_PARAM || n->kind == TT_OPK_GET) return TT_OK_STATUS;
  if (n->kind == TT_OPK_DOT || n->kind == TT_OPK_CONV) return tt_hlo_emit_contraction(g, v, native_precision, sb);
  tt_strbuf_append(sb, "    ");
  tt_strbuf_appendf(sb, "%%v%d", v);
  if (n->nresults > 1) tt_strbuf_appendf(sb, ":%d", n->nresults);
  tt_strbuf_append(sb, " = ");
  const tt_type_t *in0 = n->ninputs ? tt_graph_type(g, n->inputs[0]) : NULL;
  switch (n->kind) {
    case TT_OPK_CONSTANT:
      tt_strbuf_append(sb, "\"stablehlo.constant\"() {value = dense<");
      tt_hlo_constant_literal(sb, n->type.dtype, n->f, n->ints[0]);
      tt_strbuf_append(sb, "> : ");
      tt_hlo_type(sb, &n->type);
      tt_strbuf_append(sb, "}");
      break;
    case TT_OPK_IOTA:
      tt_strbuf_appendf(sb, "\"stablehlo.iota\"() {iota_dimension = %lld : i64}", (long long)n->ints[0]);
      break;
    case TT_OPK_UNARY: {
      const char *name = unary_name(n->sub);
      if (!name) return tt_status_make(TT_INTERNAL, "no StableHLO op for unary %d", n->sub);
      tt_strbuf_appendf(sb, "\"%s%s\"", strchr(name, '.') ? "" : "stablehlo.", name);
      tt_hlo_operands(sb, g, n);
      break;
    }
    case TT_OPK_BINARY: {
      const char *name = binary_name(n->sub);
      if (!name) return tt_status_make(TT_INTERNAL, "no StableHLO op for binary %d", n->sub);
      tt_strbuf_appendf(sb, "\"%s%s\"", strchr(name, '.') ? "" : "stablehlo.", name);
      tt_hlo_operands(sb, g, n);
      break;
    }
    case TT_OPK_COMPARE:
      tt_strbuf_append(sb, "\"stablehlo.compare\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_appendf(sb, " {comparison_direction = #stablehlo<comparison_direction %s>}", cmp_name(n->sub));
      break;
    case TT_OPK_SELECT: tt_strbuf_append(sb, "\"stablehlo.select\""); tt_hlo_operands(sb, g, n); break;
    case TT_OPK_CLAMP: tt_strbuf_append(sb, "\"stablehlo.clamp\""); tt_hlo_operands(sb, g, n); break;
    case TT_OPK_CONVERT: tt_strbuf_append(sb, "\"stablehlo.convert\""); tt_hlo_operands(sb, g, n); break;
    case TT_OPK_BITCAST: tt_strbuf_append(sb, "\"stablehlo.bitcast_convert\""); tt_hlo_operands(sb, g, n); break;
    case TT_OPK_RESHAPE: tt_strbuf_append(sb, "\"stablehlo.reshape\""); tt_hlo_operands(sb, g, n); break;
    case TT_OPK_TRANSPOSE:
      tt_strbuf_append(sb, "\"stablehlo.transpose\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " {permutation = ");
      tt_hlo_i64_array(sb, n->ints, n->nints);
      tt_strbuf_append(sb, "}");
      break;
    case TT_OPK_BROADCAST:
      tt_strbuf_append(sb, "\"stablehlo.broadcast_in_dim\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " {broadcast_dimensions = ");
      tt_hlo_i64_array(sb, n->ints, n->nints);
      tt_strbuf_append(sb, "}");
      break;
    case TT_OPK_SLICE: {
      int r = in0->rank;
      tt_strbuf_append(sb, "\"stablehlo.slice\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " {start_indices = ");
      tt_hlo_i64_array(sb, n->ints, r);
      tt_strbuf_append(sb, ", limit_indices = ");
      tt_hlo_i64_array(sb, n->ints + r, r);
      tt_strbuf_append(sb, ", strides = ");
      tt_hlo_i64_array(sb, n->ints + 2 * r, r);
      tt_strbuf_append(sb, "}");
      break;
    }
    case TT_OPK_DUS: tt_strbuf_append(sb, "\"stablehlo.dynamic_update_slice\""); tt_hlo_operands(sb, g, n); break;
    case TT_OPK_DSLICE:
      tt_strbuf_append(sb, "\"stablehlo.dynamic_slice\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " {slice_sizes = ");
      tt_hlo_i64_array(sb, n->ints, n->nints);
      tt_strbuf_append(sb, "}");
      break;
    case TT_OPK_CONCAT:
      tt_strbuf_append(sb, "\"stablehlo.concatenate\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_appendf(sb, " {dimension = %lld : i64}", (long long)n->ints[0]);
      break;
    case TT_OPK_PAD: {
      int r = in0->rank;
      tt_strbuf_append(sb, "\"stablehlo.pad\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " {edge_padding_low = ");
      tt_hlo_i64_array(sb, n->ints, r);
      tt_strbuf_append(sb, ", edge_padding_high = ");
      tt_hlo_i64_array(sb, n->ints + r, r);
      tt_strbuf_append(sb, ", interior_padding = ");
      tt_hlo_i64_array(sb, n->ints + 2 * r, r);
      tt_strbuf_append(sb, "}");
      break;
    }
    case TT_OPK_REVERSE:
      tt_strbuf_append(sb, "\"stablehlo.reverse\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " {dimensions = ");
      tt_hlo_i64_array(sb, n->ints, n->nints);
      tt_strbuf_append(sb, "}");
      break;
    case TT_OPK_REDUCE:
      tt_strbuf_append(sb, "\"stablehlo.reduce\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " ");
      if (n->sub == TT_RED_ARGMAX || n->sub == TT_RED_ARGMIN)
        argreduce_region(sb, n->sub, in0->dtype);
      else
        tt_hlo_reduce_region(sb, n->sub, in0->dtype);
      tt_strbuf_append(sb, " {dimensions = ");
      tt_hlo_i64_array(sb, n->ints, n->nints);
      tt_strbuf_append(sb, "}");
      break;
    case TT_OPK_REDUCE_WINDOW:
      tt_strbuf_append(sb, "\"stablehlo.reduce_window\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " ");
      if (n->sub == TT_RED_ARGMAX)
        pool_argmax_region(sb, in0->dtype);
      else
        tt_hlo_reduce_region(sb, n->sub, in0->dtype);
      window_attrs(sb, n, in0->rank);
      break;
    case TT_OPK_SELECT_SCATTER: {
      const char *st = tt_dtype_mlir(in0->dtype);
      tt_dtype_t sdt = tt_graph_type(g, n->inputs[1])->dtype;
      tt_strbuf_append(sb, "\"stablehlo.select_and_scatter\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_appendf(sb,
          " ({\n  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n"
          "    %%c = \"stablehlo.compare\"(%%a, %%b) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<%s>, tensor<%s>) -> tensor<i1>\n"
          "    \"stablehlo.return\"(%%c) : (tensor<i1>) -> ()\n}, ",
          st, st, st, st);
      tt_hlo_reduce_region(sb, TT_RED_SUM, sdt);
      tt_strbuf_append(sb, ")");
      window_attrs(sb, n, in0->rank);
      break;
    }
    case TT_OPK_GATHER: {
      const int64_t *p = n->ints;
      const tt_type_t *ix = tt_graph_type(g, n->inputs[1]);
      tt_strbuf_append(sb, "\"stablehlo.gather\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " {dimension_numbers = #stablehlo.gather<");
      int first = 1;
      dims_list(sb, "offset_dims", &p, &first);
      dims_list(sb, "collapsed_slice_dims", &p, &first);
      dims_list(sb, "start_index_map", &p, &first);
      tt_strbuf_appendf(sb, "%sindex_vector_dim = %d>, slice_sizes = ", first ? "" : ", ", ix->rank - 1);
      int64_t ns = *p++;
      tt_hlo_i64_array(sb, p, (int)ns);
      tt_strbuf_append(sb, ", indices_are_sorted = false}");
      break;
    }
    case TT_OPK_SCATTER: {
      const int64_t *p = n->ints;
      const tt_type_t *ix = tt_graph_type(g, n->inputs[1]);
      tt_strbuf_append(sb, "\"stablehlo.scatter\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " ");
      tt_hlo_reduce_region(sb, n->sub, in0->dtype);
      tt_strbuf_append(sb, " {scatter_dimension_numbers = #stablehlo.scatter<");
      int first = 1;
      dims_list(sb, "update_window_dims", &p, &first);
      dims_list(sb, "inserted_window_dims", &p, &first);
      dims_list(sb, "scatter_dims_to_operand_dims", &p, &first);
      tt_strbuf_appendf(sb, "%sindex_vector_dim = %d>, indices_are_sorted = false, unique_indices = false}",
                        first ? "" : ", ", ix->rank - 1);
      break;
    }
    case TT_OPK_RNG:
      tt_strbuf_append(sb, "\"stablehlo.rng_bit_generator\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}");
      break;
    case TT_OPK_SORT:
      tt_strbuf_append(sb, "\"stablehlo.sort\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " ");
      sort_region(sb, g, n);
      tt_strbuf_appendf(sb, " {dimension = %lld : i64, is_stable = %s}", (long long)n->ints[0],
                        n->ints[2] ? "true" : "false");
      break;
    case TT_OPK_CHOLESKY:
      tt_strbuf_append(sb, "\"stablehlo.cholesky\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_appendf(sb, " {lower = %s}", n->ints[0] ? "true" : "false");
      break;
    case TT_OPK_TRIANGULAR_SOLVE:
      tt_strbuf_append(sb, "\"stablehlo.triangular_solve\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_appendf(sb, " {left_side = %s, lower = %s, unit_diagonal = %s, transpose_a = #stablehlo<transpose %s>}",
                        n->ints[0] ? "true" : "false", n->ints[1] ? "true" : "false",
                        n->ints[2] ? "true" : "false", n->ints[3] ? "TRANSPOSE" : "NO_TRANSPOSE");
      break;
    case TT_OPK_FFT: {
      static const char *types[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
      tt_strbuf_append(sb, "\"stablehlo.fft\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_appendf(sb, " {fft_type = #stablehlo<fft_type %s>, fft_length = ", types[n->sub & 3]);
      tt_hlo_i64_array(sb, n->ints, n->nints);
      tt_strbuf_append(sb, "}");
      break;
    }
    case TT_OPK_FOREIGN: {
      const tt_foreign_t *f = tt_foreign_get((uint64_t)n->ints[0]);
      if (!f) return tt_status_make(TT_INTERNAL, "emitter: foreign module %016llx is not interned", (unsigned long long)n->ints[0]);
      tt_strbuf_append(sb, "\"func.call\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_appendf(sb, " {callee = @%s}", f->entry);
      break;
    }
    default:
      return tt_status_make(TT_INTERNAL, "emitter: unknown node kind %d", (int)n->kind);
  }
  tt_hlo_signature(sb, g, n);
  return TT_OK_STATUS;
}

static tt_status_t emit_nodes(const tt_graph_t *g, int *pv, int in_region, int native_precision, tt_strbuf_t *sb);

/* One region of the WHILE node w starting at *pv: the ^bb0 header from its
 * REGION_ARG nodes, then its nodes through the closing RETURN. */
static tt_status_t emit_region(const tt_graph_t *g, const tt_node_t *w, int *pv, int native_precision,
                               tt_strbuf_t *sb) {
  tt_strbuf_append(sb, "  ^bb0(");
  for (int i = 0; i < w->nresults; i++, (*pv)++) {
    if (*pv >= tt_graph_num_nodes(g) || tt_graph_node(g, *pv)->kind != TT_OPK_REGION_ARG)
      return tt_status_make(TT_INTERNAL, "emitter: while region without its %d arguments", w->nresults);
    tt_strbuf_appendf(sb, "%s%%v%d: ", i ? ", " : "", *pv);
    tt_hlo_type(sb, tt_graph_type(g, *pv));
  }
  tt_strbuf_append(sb, "):\n");
  return emit_nodes(g, pv, 1, native_precision, sb);
}

static tt_status_t emit_while(const tt_graph_t *g, int *pv, int native_precision, tt_strbuf_t *sb) {
  int v = (*pv)++;
  const tt_node_t *n = tt_graph_node(g, v);
  tt_strbuf_appendf(sb, "    %%v%d", v);
  if (n->nresults > 1) tt_strbuf_appendf(sb, ":%d", n->nresults);
  tt_strbuf_append(sb, " = \"stablehlo.while\"");
  tt_hlo_operands(sb, g, n);
  tt_strbuf_append(sb, " ({\n");
  TT_RETURN_IF_ERROR(emit_region(g, n, pv, native_precision, sb));
  tt_strbuf_append(sb, "  }, {\n");
  TT_RETURN_IF_ERROR(emit_region(g, n, pv, native_precision, sb));
  tt_strbuf_append(sb, "  })");
  tt_hlo_signature(sb, g, n);
  return TT_OK_STATUS;
}

/* Emits nodes from *pv on: to the end of the graph at top level, through the
 * closing RETURN (which is emitted) inside a region. */
static tt_status_t emit_nodes(const tt_graph_t *g, int *pv, int in_region, int native_precision, tt_strbuf_t *sb) {
  int nn = tt_graph_num_nodes(g);
  while (*pv < nn) {
    const tt_node_t *n = tt_graph_node(g, *pv);
    if (n->kind == TT_OPK_WHILE) {
      TT_RETURN_IF_ERROR(emit_while(g, pv, native_precision, sb));
      continue;
    }
    if (n->kind == TT_OPK_REGION_ARG)
      return tt_status_make(TT_INTERNAL, "emitter: region argument %d outside a region header", *pv);
    if (n->kind == TT_OPK_RETURN) {
      if (!in_region) return tt_status_make(TT_INTERNAL, "emitter: region return %d at top level", *pv);
      tt_strbuf_append(sb, "    \"stablehlo.return\"");
      tt_hlo_operands(sb, g, n);
      tt_strbuf_append(sb, " : (");
      for (int i = 0; i < n->ninputs; i++) {
        if (i) tt_strbuf_append(sb, ", ");
        tt_hlo_type(sb, tt_graph_type(g, n->inputs[i]));
      }
      tt_strbuf_append(sb, ") -> ()\n");
      (*pv)++;
      return TT_OK_STATUS;
    }
    TT_RETURN_IF_ERROR(emit_node(g, *pv, native_precision, sb));
    (*pv)++;
  }
  if (in_region) return tt_status_make(TT_INTERNAL, "emitter: a while region is not closed");
  return TT_OK_STATUS;
}

tt_status_t tt_hlo_emit_module(const tt_graph_t *g, tt_strbuf_t *sb) { return tt_hlo_emit_module_for(g, NULL, sb); }

int tt_hlo_native_precision(const char *platform) { return platform && !strcmp(platform, "tpu"); }

tt_status_t tt_hlo_emit_module_for(const tt_graph_t *g, const char *platform, tt_strbuf_t *sb) {
  int native_precision = tt_hlo_native_precision(platform);
  tt_strbuf_append(sb, "module @tt attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n");
  tt_strbuf_append(sb, "  func.func public @main(");
  int nout = tt_graph_num_outputs(g);
  for (int i = 0; i < tt_graph_num_params(g); i++) {
    tt_strbuf_appendf(sb, "%s%%v%d: ", i ? ", " : "", tt_graph_param_value(g, i));
    tt_hlo_type(sb, tt_graph_param_type(g, i));
    /* A donated parameter's buffer receives this output (XLA's input/output alias). */
    for (int k = 0; k < nout; k++)
      if (tt_graph_output_alias(g, k) == i) tt_strbuf_appendf(sb, " {tf.aliasing_output = %d : i32}", k);
  }
  tt_strbuf_append(sb, ") -> (");
  for (int i = 0; i < nout; i++) {
    if (i) tt_strbuf_append(sb, ", ");
    tt_hlo_type(sb, tt_graph_type(g, tt_graph_output(g, i)));
  }
  tt_strbuf_append(sb, ") {\n");
  int v = 0;
  TT_RETURN_IF_ERROR(emit_nodes(g, &v, 0, native_precision, sb));
  tt_strbuf_append(sb, "    \"func.return\"(");
  for (int i = 0; i < nout; i++) {
    if (i) tt_strbuf_append(sb, ", ");
    tt_hlo_name(sb, g, tt_graph_output(g, i));
  }
  tt_strbuf_append(sb, ") : (");
  for (int i = 0; i < nout; i++) {
    if (i) tt_strbuf_append(sb, ", ");
    tt_hlo_type(sb, tt_graph_type(g, tt_graph_output(g, i)));
  }
  tt_strbuf_append(sb, ") -> ()\n  }\n");
  /* Each foreign module called here, once: its functions, renamed and
   * private (ir/foreign.c), beside our @main. */
  int nn = tt_graph_num_nodes(g);
  for (int i = 0; i < nn; i++) {
    const tt_node_t *n = tt_graph_node(g, i);
    if (n->kind != TT_OPK_FOREIGN) continue;
    int seen = 0;
    for (int j = 0; j < i && !seen; j++) {
      const tt_node_t *m = tt_graph_node(g, j);
      seen = m->kind == TT_OPK_FOREIGN && m->ints[0] == n->ints[0];
    }
    if (seen) continue;
    const tt_foreign_t *f = tt_foreign_get((uint64_t)n->ints[0]);
    if (!f) return tt_status_make(TT_INTERNAL, "emitter: foreign module %016llx is not interned", (unsigned long long)n->ints[0]);
    tt_strbuf_append(sb, f->funcs);
  }
  tt_strbuf_append(sb, "}\n");
  return tt_strbuf_status(sb);
}
