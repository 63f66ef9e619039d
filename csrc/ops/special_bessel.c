/* Modified Bessel functions of the first kind (i0, i0e, i1, i1e and
 * special_modified_bessel_i0/i1) and spherical_bessel_j0.
 *
 * i0e: the Chebyshev expansions PyTorch's CPU kernel uses (Cephes' published
 * coefficients: 30 terms on [0, 8] in x/2 - 2, 25 terms beyond in 32/x - 2,
 * over sqrt(x)); i0 = exp|x| i0e. i1e is the CHLO op chlo.bessel_i1e, which
 * XLA expands during PJRT compile on every plugin; i1 = exp|x| i1e. */
#include <math.h>

#include "ops/common.h"
#include "ops/families.h"
#include "ops/special.h"

#define INF (1.0 / 0.0)

static const double I0_A[30] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15,  -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11,  -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8,  6.04699502254191894932E-8,  -2.67079385394061173391E-7,
    1.11738753912010371815E-6,   -4.41673835845875056359E-6,  1.64484480707288970893E-5,
    -5.75419501008210370398E-5,  1.88502885095841655729E-4,  -5.76375574538582365885E-4,
    1.63947561694133579842E-3,   -4.32430999505057594430E-3,  1.05464603945949983183E-2,
    -2.37374148058994688156E-2,  4.93052842396707084878E-2,  -9.49010970480476444210E-2,
    1.71620901522208775349E-1,   -3.04682672343198398683E-1,  6.76795274409476084995E-1};
static const double I0_B[25] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17,  -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15,  3.81168066935262242075E-15,  -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11,  4.94060238822496958910E-10,
    3.39623202570838634515E-9,   2.26666899049817806459E-8,   2.04891858946906374183E-7,
    2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1};

static tt_val_t un(tt_graph_t *g, tt_unary_t op, tt_val_t x) { return tt_b_unary(g, op, x); }

static tt_val_t f_i0e(tt_graph_t *g, tt_val_t x) {
  tt_val_t ax = un(g, TT_UN_ABS, x);
  tt_val_t a = tt_b_binary(g, TT_BIN_MIN, ax, tt_sp_c(g, x, 8));
  tt_val_t lo = tt_sp_chbevl(g, tt_sp_sub(g, tt_sp_mul(g, a, tt_sp_c(g, x, 0.5)), tt_sp_c(g, x, 2)), I0_A, 30);
  tt_val_t b = tt_b_binary(g, TT_BIN_MAX, ax, tt_sp_c(g, x, 8));
  tt_val_t hi = tt_sp_div(g, tt_sp_chbevl(g, tt_sp_sub(g, tt_sp_div(g, tt_sp_c(g, x, 32), b), tt_sp_c(g, x, 2)), I0_B, 25),
                          un(g, TT_UN_SQRT, b));
  return tt_b_select(g, tt_sp_le(g, ax, 8), lo, hi);
}
/* i0 = exp|x| i0e(x); NaN at +-inf (inf * 0), as CPU's kernel gives. */
static tt_val_t f_i0(tt_graph_t *g, tt_val_t x) {
  return tt_sp_mul(g, un(g, TT_UN_EXP, un(g, TT_UN_ABS, x)), f_i0e(g, x));
}
static tt_val_t f_i1e(tt_graph_t *g, tt_val_t x) { return un(g, TT_UN_BESSEL_I1E, x); }
static tt_val_t f_i1(tt_graph_t *g, tt_val_t x) {
  return tt_sp_mul(g, un(g, TT_UN_EXP, un(g, TT_UN_ABS, x)), f_i1e(g, x));
}

/* j0(x) = sin(x) / x; below 0.5 the Taylor series 1 - x^2/6 + x^4/120 - ...
 * (as CPU, which avoids the cancellation); 0 at +-inf. */
static tt_val_t f_sph_j0(tt_graph_t *g, tt_val_t x) {
  tt_val_t x2 = tt_sp_mul(g, x, x);
  static const double c[6] = {-1.0 / 39916800, 1.0 / 362880, -1.0 / 5040, 1.0 / 120, -1.0 / 6, 1.0};
  tt_val_t series = tt_sp_poly(g, x2, c, 6);
  tt_val_t r = tt_b_select(g, tt_sp_lt(g, un(g, TT_UN_ABS, x), 0.5), series, tt_sp_div(g, un(g, TT_UN_SIN, x), x));
  return tt_sp_where_c(g, tt_sp_eq(g, un(g, TT_UN_ABS, x), INF), 0, r);
}

static tt_status_t lower_i0(tt_lower_t *L) { return tt_sp_unary(L, f_i0); }
/* CPU evaluates i0e for bfloat16/float16 in that type's arithmetic (every
 * step rounds): so does this, by building the same steps in that type. */
static tt_status_t lower_i0e(tt_lower_t *L) {
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (dt != TT_BF16 && dt != TT_F16) return tt_sp_unary(L, f_i0e);
  tt_l_output(L, f_i0e(L->g, tt_l_tensor(L, 0)));
  return NULL;
}
static tt_status_t lower_i1(tt_lower_t *L) { return tt_sp_unary(L, f_i1); }
static tt_status_t lower_i1e(tt_lower_t *L) { return tt_sp_unary(L, f_i1e); }
static tt_status_t lower_sph_j0(tt_lower_t *L) { return tt_sp_unary(L, f_sph_j0); }

/* kaiser_window(L, periodic = true, beta = 12): i0(beta sqrt(1 - ((k - a) / a)^2)) / i0(beta),
 * a = (N - 1) / 2, k < N = L + periodic, the first L kept; in opmath, as CPU. */
static tt_status_t kaiser(tt_lower_t *L, int iperiodic, int ibeta, int idtype) {
  int64_t len = tt_l_int(L, 0, 0);
  int periodic = iperiodic >= 0 ? tt_l_bool(L, iperiodic, 1) : 1;
  double beta = ibeta >= 0 ? tt_l_float(L, ibeta, 12.0) : 12.0;
  tt_dtype_t dt = tt_l_dtype(L, idtype);
  if (dt == TT_DTYPE_INVALID) dt = tt_op_default_float(L);
  if (len < 0) return tt_status_make(TT_INVALID_ARGUMENT, "kaiser_window requires non-negative window_length, got window_length=%lld", (long long)len);
  if (!tt_dtype_is_float(dt))
    return tt_status_make(TT_INVALID_ARGUMENT, "kaiser_window expects floating point dtypes, got: %s", tt_op_type_name(dt));
  tt_graph_t *g = L->g;
  tt_dtype_t ct = tt_op_math_type(dt);
  if (len <= 1) {
    tt_l_output(L, tt_b_full_f(g, dt, 1, &len, 1.0));
    return NULL;
  }
  int64_t n = len + (periodic ? 1 : 0);
  double alpha = (double)(n - 1) / 2.0;
  tt_val_t k = tt_b_convert(g, tt_b_convert(g, tt_b_iota(g, TT_I64, 1, &len, 0), dt), ct);
  tt_val_t r = tt_sp_div(g, tt_sp_sub(g, k, tt_sp_c(g, k, alpha)), tt_sp_c(g, k, alpha));
  tt_val_t arg = tt_sp_mul(g, tt_sp_c(g, k, beta), un(g, TT_UN_SQRT, tt_sp_sub(g, tt_sp_c(g, k, 1), tt_sp_mul(g, r, r))));
  tt_val_t w = tt_sp_div(g, f_i0(g, arg), f_i0(g, tt_sp_c(g, k, beta)));
  tt_l_output(L, tt_b_convert(g, w, dt));
  return NULL;
}
static tt_status_t lower_kaiser(tt_lower_t *L) { return kaiser(L, -1, -1, 1); }
static tt_status_t lower_kaiser_periodic(tt_lower_t *L) { return kaiser(L, 1, -1, 2); }
static tt_status_t lower_kaiser_beta(tt_lower_t *L) { return kaiser(L, 1, 2, 3); }

const tt_op_def_t tt_ops_special_bessel[] = {
    {"kaiser_window", lower_kaiser, 0},
    {"kaiser_window.periodic", lower_kaiser_periodic, 0},
    {"kaiser_window.beta", lower_kaiser_beta, 0},
    {"i0", lower_i0, 0}, {"i0_", lower_i0, TT_OPF_INPLACE},
    {"special_i0e", lower_i0e, 0},
    {"special_i1", lower_i1, 0},
    {"special_i1e", lower_i1e, 0},
    {"special_modified_bessel_i0", lower_i0, 0},
    {"special_modified_bessel_i1", lower_i1, 0},
    {"special_spherical_bessel_j0", lower_sph_j0, 0},
    {NULL, NULL, 0},
};
