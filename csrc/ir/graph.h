/* The IR: a graph of StableHLO-level nodes with inferred types, built by op
 * lowerings and turned into module text by hlo/. A graph is single-threaded. */
#ifndef TT_IR_GRAPH_H
#define TT_IR_GRAPH_H

#include <stdint.h>

#include "base/dtype.h"
#include "base/rank.h"
#include "base/status.h"
#include "ir/precision.h"


typedef struct tt_type_s {
  tt_dtype_t dtype;
  int rank;
  int64_t dims[TT_MAX_RANK];
} tt_type_t;

/* A value is a node index; -1 is "no value" (a failed build step). */
typedef int tt_val_t;

typedef enum tt_opk_e {
  TT_OPK_PARAM = 0,   /* ints[0] = parameter index */
  TT_OPK_CONSTANT,    /* splat constant: f = value (ints[0] raw bits for ints) */
  TT_OPK_IOTA,        /* ints[0] = iota dimension */
  TT_OPK_UNARY,       /* sub = tt_unary_t */
  TT_OPK_BINARY,      /* sub = tt_binary_t */
  TT_OPK_COMPARE,     /* sub = tt_cmp_t */
  TT_OPK_SELECT,
  TT_OPK_CLAMP,
  TT_OPK_CONVERT,
  TT_OPK_BITCAST,     /* bitcast_convert */
  TT_OPK_RESHAPE,
  TT_OPK_TRANSPOSE,   /* ints = permutation */
  TT_OPK_BROADCAST,   /* broadcast_in_dim; ints = broadcast_dimensions */
  TT_OPK_SLICE,       /* ints = start[r], limit[r], stride[r] */
  TT_OPK_DUS,         /* dynamic_update_slice(operand, update, idx...) */
  TT_OPK_DSLICE,      /* dynamic_slice(operand, idx...); ints = sizes */
  TT_OPK_CONCAT,      /* ints[0] = dimension */
  TT_OPK_PAD,         /* (operand, padval); ints = low[r], high[r], interior[r] */
  TT_OPK_REVERSE,     /* ints = dimensions */
  TT_OPK_REDUCE,      /* n operands then n inits; sub = tt_reduce_t; ints = dims */
  TT_OPK_REDUCE_WINDOW, /* (x, init); sub = reduce kind; ints = win[r], stride[r], pad_lo[r], pad_hi[r] */
  TT_OPK_SELECT_SCATTER, /* (operand, source, init): max-pool backward; ints like reduce_window */
  TT_OPK_DOT,         /* ints = [nb, lhs_batch.., rhs_batch.., nc, lhs_contract.., rhs_contract..] */
  TT_OPK_CONV,        /* see tt_b_conv */
  TT_OPK_GATHER,      /* see tt_b_gather */
  TT_OPK_SCATTER,     /* see tt_b_scatter; sub = tt_reduce_t (SET = replace) */
  TT_OPK_RNG,         /* rng_bit_generator(state): results (state', bits) */
  TT_OPK_SORT,        /* n operands; ints[0] = dim, ints[1] = descending, ints[2] = stable */
  TT_OPK_GET,         /* result ints[0] of multi-result node input 0 */
  /* Structured control flow (see tt_b_while_begin in ir/builder.h). Regions
   * live inline in the node array: a WHILE node (inputs = initial carried
   * values, results = final ones) is followed by its condition region, then
   * its body region. Each region is REGION_ARG nodes (one per carried value,
   * ints[0] = position), the region's nodes (nested WHILEs allowed), and a
   * RETURN node (inputs = the region's results, ints[0] = 0 condition, 1
   * body). Region nodes may use values defined before the WHILE; values
   * defined inside a region are not visible after its RETURN. */
  TT_OPK_WHILE,
  TT_OPK_REGION_ARG,
  TT_OPK_RETURN,
  TT_OPK_CHOLESKY,    /* ints[0] = lower */
  TT_OPK_TRIANGULAR_SOLVE, /* (a, b); ints = left_side, lower, unit_diagonal, transpose_a */
  TT_OPK_FFT,         /* sub = tt_fft_t; ints = fft_length (1 to 3 innermost dims) */
  /* A call of a foreign module's entry function (ir/foreign.h): ints[0] =
   * its key; inputs and results are the entry's arguments and results. */
  TT_OPK_FOREIGN,
  TT_OPK_COUNT
} tt_opk_t;

typedef enum tt_unary_e {
  TT_UN_NEG, TT_UN_ABS, TT_UN_EXP, TT_UN_EXPM1, TT_UN_LOG, TT_UN_LOG1P, TT_UN_SQRT, TT_UN_RSQRT,
  TT_UN_TANH, TT_UN_LOGISTIC, TT_UN_SIN, TT_UN_COS, TT_UN_TAN, TT_UN_FLOOR, TT_UN_CEIL,
  TT_UN_ROUND_EVEN, TT_UN_SIGN, TT_UN_NOT, TT_UN_IS_FINITE, TT_UN_CBRT, TT_UN_ERF,
  /* CHLO ops: XLA expands them during PJRT compile (CPU, GPU and TPU alike). */
  TT_UN_LGAMMA, TT_UN_DIGAMMA, TT_UN_ERF_INV, TT_UN_ERFC, TT_UN_BESSEL_I1E,
  /* complex -> its real type */
  TT_UN_REAL, TT_UN_IMAG,
  /* CHLO's inverse trigonometric and hyperbolic functions, used for complex
   * values (XLA's expansions follow C99's branch cuts) */
  TT_UN_ACOS, TT_UN_ASIN, TT_UN_ATAN, TT_UN_ACOSH, TT_UN_ASINH, TT_UN_ATANH,
  TT_UN_COUNT
} tt_unary_t;

typedef enum tt_binary_e {
  TT_BIN_ADD, TT_BIN_SUB, TT_BIN_MUL, TT_BIN_DIV, TT_BIN_REM, TT_BIN_POW, TT_BIN_MAX, TT_BIN_MIN,
  TT_BIN_AND, TT_BIN_OR, TT_BIN_XOR, TT_BIN_ATAN2, TT_BIN_SHL, TT_BIN_SHR_A, TT_BIN_SHR_L,
  /* CHLO ops (see above): polygamma(n, x), zeta(s, q), next_after(x, y). */
  TT_BIN_POLYGAMMA, TT_BIN_ZETA, TT_BIN_NEXT_AFTER,
  TT_BIN_COMPLEX, /* (re, im) of a real type -> its complex type */
  TT_BIN_COUNT
} tt_binary_t;


typedef enum tt_fft_e { TT_FFT_FFT, TT_FFT_IFFT, TT_FFT_RFFT, TT_FFT_IRFFT } tt_fft_t;

typedef enum tt_cmp_e { TT_CMP_EQ, TT_CMP_NE, TT_CMP_LT, TT_CMP_LE, TT_CMP_GT, TT_CMP_GE } tt_cmp_t;

typedef enum tt_reduce_e {
  TT_RED_SUM, TT_RED_PROD, TT_RED_MAX, TT_RED_MIN, TT_RED_AND, TT_RED_OR,
  TT_RED_ARGMAX, TT_RED_ARGMIN, /* two operands (values, indices); first index on ties */
  TT_RED_SET                    /* scatter only: replace */
} tt_reduce_t;

typedef struct tt_node_s {
  tt_opk_t kind;
  int sub;
  int ninputs;
  int *inputs;
  int nints;
  int64_t *ints;
  double f;
  int nresults;        /* > 1 only for multi-result nodes; then types[] holds them */
  tt_type_t type;      /* the single result, or results[0] */
  tt_type_t *types;    /* all results when nresults > 1 */
} tt_node_t;

typedef struct tt_graph_s tt_graph_t;

/* A parameter carries no data, only its type; the executor binds buffers. */
tt_status_t tt_graph_create(tt_graph_t **out_graph);
void tt_graph_destroy(tt_graph_t *g);
/* Drops all nodes and outputs, keeps memory for reuse. */
void tt_graph_reset(tt_graph_t *g);

/* Drops nodes from index n on (and the parameters and outputs among them)
 * and clears a recorded error: undoes a failed lowering in a shared graph. */
void tt_graph_truncate(tt_graph_t *g, int n);

/* The first error recorded by a builder call; later calls become no-ops
 * returning -1. Lowerings build freely and check once. */
tt_status_t tt_graph_take_error(tt_graph_t *g);
int tt_graph_failed(const tt_graph_t *g);
/* Records an error (formatted) unless one is already recorded; returns -1. */
tt_val_t tt_graph_fail(tt_graph_t *g, tt_code_t code, const char *fmt, ...) TT_PRINTF(3, 4);

int tt_graph_num_nodes(const tt_graph_t *g);
const tt_node_t *tt_graph_node(const tt_graph_t *g, int i);
/* The type of value v; an empty type (rank 0, dtype TT_DTYPE_INVALID) when v
 * names no node (a failed builder's -1): test v < 0 or tt_graph_failed(g),
 * not the pointer. */
const tt_type_t *tt_graph_type(const tt_graph_t *g, tt_val_t v);
int tt_graph_num_params(const tt_graph_t *g);
const tt_type_t *tt_graph_param_type(const tt_graph_t *g, int i);
/* The node index of parameter i. */
tt_val_t tt_graph_param_value(const tt_graph_t *g, int i);

tt_status_t tt_graph_add_output(tt_graph_t *g, tt_val_t v);
int tt_graph_num_outputs(const tt_graph_t *g);
tt_val_t tt_graph_output(const tt_graph_t *g, int i);
/* Output `out` may be written into parameter `param`'s buffer (same type):
 * the program's input/output aliasing, so a launch donating that buffer
 * updates it in place (exec/plan.h). One output per parameter. */
tt_status_t tt_graph_alias_output(tt_graph_t *g, int out, int param);
/* The parameter output i may reuse, or -1. */
int tt_graph_output_alias(const tt_graph_t *g, int i);

/* Low-level append used by builders: copies inputs and ints. */
tt_val_t tt_graph_append(tt_graph_t *g, tt_opk_t kind, int sub, const tt_val_t *inputs, int ninputs,
                         const int64_t *ints, int nints, double f, const tt_type_t *type);
tt_val_t tt_graph_append_multi(tt_graph_t *g, tt_opk_t kind, int sub, const tt_val_t *inputs,
                               int ninputs, const int64_t *ints, int nints,
                               const tt_type_t *types, int ntypes);

/* Type helpers. */
tt_type_t tt_type_make(tt_dtype_t dtype, int rank, const int64_t *dims);
int64_t tt_type_numel(const tt_type_t *t);
int tt_type_equal(const tt_type_t *a, const tt_type_t *b);
/* "2x3xf32"-style text for messages, e.g. "[2, 3] float32". */
void tt_type_describe(const tt_type_t *t, char *buf, unsigned long n);

#endif
