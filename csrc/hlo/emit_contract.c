/* dot_general and convolution nodes, in their float32 precision mode (node
 * sub, tt_precision_t).
 *
 * On a TPU plugin the mode becomes the ops' precision_config (DEFAULT, HIGH,
 * HIGHEST) and the MXU runs its 1, 3 or 6 bf16 passes. Other plugins (XLA's
 * CPU plugin computes float32 whatever precision_config says) get the passes
 * written out, so that float32 matmuls round as they would on a TPU:
 *   MEDIUM   one pass: both operands rounded to bf16, the products summed
 *            in float32 (a contraction with bf16 operands and a float32
 *            result type: a bf16 product is exact in float32);
 *   HIGH     three passes: x = hi + lo with hi = bf16(x), lo = bf16(x - hi),
 *            the sum of lo*hi + hi*lo + hi*hi (smallest terms first; a NaN
 *            sum of the cross terms, from an infinite operand, counts as 0);
 *   HIGHEST  the plugin's native float32 contraction: on CPU that is IEEE
 *            float32 arithmetic, at least as accurate as the TPU's six
 *            passes, so no passes are written for it.
 * Only float32 operands take a mode (the lowerings give other dtypes
 * HIGHEST); a node of another dtype is emitted natively whatever its sub. */
#include <stdio.h>
#include <string.h>

#include "hlo/emit.h"
#include "hlo/emit_util.h"

static const char *precision_name(int precision) {
  return precision == TT_PREC_MEDIUM ? "DEFAULT" : precision == TT_PREC_HIGH ? "HIGH" : "HIGHEST";
}

/* The op name and its attributes, from the opening brace on. */
static void attrs(tt_strbuf_t *sb, const tt_node_t *n, const char *prec) {
  const int64_t *p = n->ints;
  if (n->kind == TT_OPK_DOT) {
    int64_t nb = p[0];
    const int64_t *lb = p + 1, *rb = p + 1 + nb;
    int64_t nc = p[1 + 2 * nb];
    const int64_t *lc = p + 2 + 2 * nb, *rc = lc + nc;
    tt_strbuf_append(sb, " {dot_dimension_numbers = #stablehlo.dot<");
    int first = 1;
    if (nb) {
      tt_strbuf_append(sb, "lhs_batching_dimensions = ");
      tt_hlo_i64_list(sb, lb, (int)nb);
      tt_strbuf_append(sb, ", rhs_batching_dimensions = ");
      tt_hlo_i64_list(sb, rb, (int)nb);
      first = 0;
    }
    if (nc) {
      tt_strbuf_append(sb, first ? "lhs_contracting_dimensions = " : ", lhs_contracting_dimensions = ");
      tt_hlo_i64_list(sb, lc, (int)nc);
      tt_strbuf_append(sb, ", rhs_contracting_dimensions = ");
      tt_hlo_i64_list(sb, rc, (int)nc);
    }
    tt_strbuf_appendf(sb, ">, precision_config = [#stablehlo<precision %s>, #stablehlo<precision %s>]}", prec, prec);
    return;
  }
  int nsp = (int)p[0];
  const int64_t *st = p + 1, *lo = st + nsp, *hi = lo + nsp, *ld = hi + nsp, *rd = ld + nsp;
  int64_t fg = rd[nsp], bg = rd[nsp + 1];
  static const char *sp[] = {"0", "0, 1", "0, 1, 2"};
  tt_strbuf_appendf(sb, " {dimension_numbers = #stablehlo.conv<[b, f, %s]x[o, i, %s]->[b, f, %s]>, window_strides = ",
                    sp[nsp - 1], sp[nsp - 1], sp[nsp - 1]);
  tt_hlo_i64_array(sb, st, nsp);
  tt_strbuf_append(sb, ", padding = dense<[");
  for (int i = 0; i < nsp; i++)
    tt_strbuf_appendf(sb, "%s[%lld, %lld]", i ? ", " : "", (long long)lo[i], (long long)hi[i]);
  tt_strbuf_appendf(sb, "]> : tensor<%dx2xi64>, lhs_dilation = ", nsp);
  tt_hlo_i64_array(sb, ld, nsp);
  tt_strbuf_append(sb, ", rhs_dilation = ");
  tt_hlo_i64_array(sb, rd, nsp);
  tt_strbuf_appendf(sb, ", feature_group_count = %lld : i64, batch_group_count = %lld : i64, "
                        "precision_config = [#stablehlo<precision %s>, #stablehlo<precision %s>]}",
                    (long long)fg, (long long)bg, prec, prec);
}

static const char *op_name(const tt_node_t *n) {
  return n->kind == TT_OPK_DOT ? "\"stablehlo.dot_general\"" : "\"stablehlo.convolution\"";
}

/* The name a value is read by: %vN, or %vN#k for a result of a multi-result node. */
static void value_name(char *buf, size_t size, const tt_graph_t *g, int v) {
  const tt_node_t *n = tt_graph_node(g, v);
  if (n->kind == TT_OPK_GET)
    snprintf(buf, size, "%%v%d#%lld", n->inputs[0], (long long)n->ints[0]);
  else
    snprintf(buf, size, "%%v%d", v);
}

static tt_type_t with_dtype(const tt_type_t *t, tt_dtype_t dt) {
  tt_type_t r = *t;
  r.dtype = dt;
  return r;
}

/* %<out> = "stablehlo.<op>"(%<x>) : (tx) -> tr, one line. */
static void unary_line(tt_strbuf_t *sb, const char *out, const char *op, const char *x, const tt_type_t *tx,
                       const tt_type_t *tr) {
  tt_strbuf_appendf(sb, "    %s = \"stablehlo.%s\"(%s) : (", out, op, x);
  tt_hlo_type(sb, tx);
  tt_strbuf_append(sb, ") -> ");
  tt_hlo_type(sb, tr);
  tt_strbuf_append(sb, "\n");
}

static void binary_line(tt_strbuf_t *sb, const char *out, const char *op, const char *a, const char *b,
                        const tt_type_t *t) {
  tt_strbuf_appendf(sb, "    %s = \"stablehlo.%s\"(%s, %s) : (", out, op, a, b);
  tt_hlo_type(sb, t);
  tt_strbuf_append(sb, ", ");
  tt_hlo_type(sb, t);
  tt_strbuf_append(sb, ") -> ");
  tt_hlo_type(sb, t);
  tt_strbuf_append(sb, "\n");
}

/* One contraction of the node's kind: %<out> = op(%a, %b) with operand
 * types ta, tb and the node's result type. */
static void contract_line(tt_strbuf_t *sb, const tt_node_t *n, const char *out, const char *a, const char *b,
                          const tt_type_t *ta, const tt_type_t *tb, const char *prec) {
  tt_strbuf_appendf(sb, "    %s = %s(%s, %s)", out, op_name(n), a, b);
  attrs(sb, n, prec);
  tt_strbuf_append(sb, " : (");
  tt_hlo_type(sb, ta);
  tt_strbuf_append(sb, ", ");
  tt_hlo_type(sb, tb);
  tt_strbuf_append(sb, ") -> ");
  tt_hlo_type(sb, &n->type);
  tt_strbuf_append(sb, "\n");
}

/* The bf16 split of operand x (side 'l' or 'r') of node v: %vN_<s>h =
 * bf16(x) and, when want_lo, %vN_<s>l = bf16(x - hi). */
static void split(tt_strbuf_t *sb, int v, char side, const char *x, const tt_type_t *t, int want_lo) {
  tt_type_t bf = with_dtype(t, TT_BF16);
  char hi[48], hif[48], d[48], lo[48];
  snprintf(hi, sizeof hi, "%%v%d_%ch", v, side);
  unary_line(sb, hi, "convert", x, t, &bf);
  if (!want_lo) return;
  snprintf(hif, sizeof hif, "%%v%d_%chf", v, side);
  snprintf(d, sizeof d, "%%v%d_%cd", v, side);
  snprintf(lo, sizeof lo, "%%v%d_%cl", v, side);
  unary_line(sb, hif, "convert", hi, &bf, t);
  binary_line(sb, d, "subtract", x, hif, t);
  unary_line(sb, lo, "convert", d, t, &bf);
}

/* %<out> = 0 where %<x> is NaN, else %<x> (type t). */
static void nan_to_zero(tt_strbuf_t *sb, int v, const char *out, const char *x, const tt_type_t *t) {
  tt_type_t pr = with_dtype(t, TT_BOOL);
  char nan[48], zero[48];
  snprintf(nan, sizeof nan, "%%v%d_nan", v);
  snprintf(zero, sizeof zero, "%%v%d_z", v);
  tt_strbuf_appendf(sb, "    %s = \"stablehlo.compare\"(%s, %s) {comparison_direction = #stablehlo<comparison_direction NE>} : (",
                    nan, x, x);
  tt_hlo_type(sb, t);
  tt_strbuf_append(sb, ", ");
  tt_hlo_type(sb, t);
  tt_strbuf_append(sb, ") -> ");
  tt_hlo_type(sb, &pr);
  tt_strbuf_appendf(sb, "\n    %s = \"stablehlo.constant\"() {value = dense<0.0> : ", zero);
  tt_hlo_type(sb, t);
  tt_strbuf_append(sb, "} : () -> ");
  tt_hlo_type(sb, t);
  tt_strbuf_appendf(sb, "\n    %s = \"stablehlo.select\"(%s, %s, %s) : (", out, nan, zero, x);
  tt_hlo_type(sb, &pr);
  tt_strbuf_append(sb, ", ");
  tt_hlo_type(sb, t);
  tt_strbuf_append(sb, ", ");
  tt_hlo_type(sb, t);
  tt_strbuf_append(sb, ") -> ");
  tt_hlo_type(sb, t);
  tt_strbuf_append(sb, "\n");
}

tt_status_t tt_hlo_emit_contraction(const tt_graph_t *g, int v, int native_precision, tt_strbuf_t *sb) {
  const tt_node_t *n = tt_graph_node(g, v);
  const tt_type_t *ta = tt_graph_type(g, n->inputs[0]), *tb = tt_graph_type(g, n->inputs[1]);
  char a[48], b[48], out[48];
  value_name(a, sizeof a, g, n->inputs[0]);
  value_name(b, sizeof b, g, n->inputs[1]);
  snprintf(out, sizeof out, "%%v%d", v);
  int mode = n->sub;
  int f32 = ta->dtype == TT_F32 && tb->dtype == TT_F32;
  if (native_precision || !f32 || mode == TT_PREC_HIGHEST) {
    contract_line(sb, n, out, a, b, ta, tb, precision_name(f32 ? mode : TT_PREC_HIGHEST));
    return TT_OK_STATUS;
  }
  tt_type_t bfa = with_dtype(ta, TT_BF16), bfb = with_dtype(tb, TT_BF16);
  int high = mode == TT_PREC_HIGH;
  split(sb, v, 'l', a, ta, high);
  split(sb, v, 'r', b, tb, high);
  char ah[48], al[48], bh[48], bl[48];
  snprintf(ah, sizeof ah, "%%v%d_lh", v);
  snprintf(al, sizeof al, "%%v%d_ll", v);
  snprintf(bh, sizeof bh, "%%v%d_rh", v);
  snprintf(bl, sizeof bl, "%%v%d_rl", v);
  if (!high) {
    contract_line(sb, n, out, ah, bh, &bfa, &bfb, "DEFAULT");
    return TT_OK_STATUS;
  }
  char p0[48], p1[48], p2[48], s01[48], c01[48];
  snprintf(p0, sizeof p0, "%%v%d_p0", v);
  snprintf(p1, sizeof p1, "%%v%d_p1", v);
  snprintf(p2, sizeof p2, "%%v%d_p2", v);
  snprintf(s01, sizeof s01, "%%v%d_s", v);
  snprintf(c01, sizeof c01, "%%v%d_c", v);
  contract_line(sb, n, p0, al, bh, &bfa, &bfb, "DEFAULT");
  contract_line(sb, n, p1, ah, bl, &bfa, &bfb, "DEFAULT");
  contract_line(sb, n, p2, ah, bh, &bfa, &bfb, "DEFAULT");
  binary_line(sb, s01, "add", p0, p1, &n->type);
  /* An infinite operand makes lo = inf - inf = NaN: the cross terms then
   * count as 0 and hi*hi carries the infinity (a NaN operand still gives
   * NaN through hi*hi). */
  nan_to_zero(sb, v, c01, s01, &n->type);
  binary_line(sb, out, "add", c01, p2, &n->type);
  return TT_OK_STATUS;
}
