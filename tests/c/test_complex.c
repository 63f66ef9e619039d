/* Tests of complex64/complex128 in the core without Python: promotion, a
 * round trip, arithmetic, the conj bit, the refusal of unchecked ops (and
 * the in-place iterator checks that precede it), FFT. */
#include <math.h>
#include <string.h>

#include "api/call.h"
#include "test_engine.h"
#include "check.h"
#include "refs.h"
#include "ops/registry.h"

static void test_promotion(void) {
  CHECK(tt_dtype_promote(TT_C64, TT_F32) == TT_C64);
  CHECK(tt_dtype_promote(TT_C64, TT_F64) == TT_C128);
  CHECK(tt_dtype_promote(TT_I64, TT_C64) == TT_C64);
  CHECK(tt_dtype_promote(TT_BOOL, TT_C128) == TT_C128);
  CHECK(tt_dtype_size(TT_C64) == 8 && tt_dtype_size(TT_C128) == 16);
  CHECK(strcmp(tt_dtype_mlir(TT_C64), "complex<f32>") == 0);
}

/* z * conj(z) = |z|^2 (conj bit on the second operand), and sin refused. */
static void test_mul_conj_and_refusal(void) {
  float z[4] = {1, 2, 3, -4}, out[4];
  tt_storage_t *s = NULL;
  if (!CHECK_OK(tt_storage_from_host(E, z, TT_C64, 2, &s))) return;
  tt_tensor_ref_t a = vec(s, 2), b = vec(s, 2);
  b.conj = 1;
  tt_arg_t args[2] = {tensor_arg(&a), tensor_arg(&b)};
  tt_call_result_t r;
  if (CHECK_OK(tt_call(E, tt_ops_find("mul.Tensor"), args, 2, &r))) {
    CHECK(r.outs[0].dtype == TT_C64);
    tt_tensor_ref_t o = vec(r.outs[0].storage, 2);
    if (CHECK_OK(tt_tensor_to_host(E, &o, TT_C64, out, sizeof out)))
      CHECK(out[0] == 5 && out[1] == 0 && out[2] == 25 && out[3] == 0);
    tt_call_result_clear(&r);
  }
  /* download through the conj bit */
  if (CHECK_OK(tt_tensor_to_host(E, &b, TT_C64, out, sizeof out))) CHECK(out[1] == -2 && out[3] == 4);
  CHECK_ERR(tt_call(E, tt_ops_find("erf"), args, 1, &r), TT_NOT_IMPLEMENTED); /* sinh computes since h-fuzz5 */
  /* no ordering: CPU's exception types (NotImplementedError; RuntimeError where CPU checks first) */
  CHECK_ERR(tt_call(E, tt_ops_find("lt.Tensor"), args, 2, &r), TT_NOT_IMPLEMENTED);
  CHECK_ERR(tt_call(E, tt_ops_find("maximum"), args, 2, &r), TT_INVALID_ARGUMENT);
  tt_storage_release(s);
}

/* CPU's error, word for word (a RuntimeError: TT_INVALID_ARGUMENT). */
static void check_cpu_error(tt_status_t s, const char *want) {
  int same = s && tt_status_code(s) == TT_INVALID_ARGUMENT && !strcmp(tt_status_message(s), want);
  CHECK(same);
  if (!same) fprintf(stderr, "  expected '%s', got '%s'\n", want, s ? tt_status_message(s) : "OK");
  tt_status_free(s);
}

/* int16 x.fmod_(complex other): once the embedding marks fmod_.Tensor as
 * self.op_(other), TensorIterator's checks replace the refusal of the
 * complex values (api/iterator_first.h): shapes first, then the cast. */
static void test_inplace_iterator_first(void) {
  int16_t xi[3] = {1, 1, 1};
  float z[12] = {0};
  tt_storage_t *si = NULL, *sz = NULL;
  if (!CHECK_OK(tt_storage_from_host(E, xi, TT_I16, 3, &si))) return;
  if (!CHECK_OK(tt_storage_from_host(E, z, TT_C64, 6, &sz))) {
    tt_storage_release(si);
    return;
  }
  const int64_t sizes[2] = {2, 3}, strides[2] = {3, 1};
  tt_tensor_ref_t self = vec(si, 3), other = vec(sz, 3), four = vec(sz, 4), wide = ref_of(sz, 2, sizes, strides, 0);
  int op = tt_ops_find("fmod_.Tensor");
  tt_arg_t args[2] = {tensor_arg(&self), tensor_arg(&other)};
  tt_call_result_t r;
  CHECK_ERR(tt_call(E, op, args, 2, &r), TT_NOT_IMPLEMENTED); /* unmarked: the refusal stands */
  if (CHECK_OK(tt_call_set_inplace_iterator_ops(E, &op, 1, NULL, 0))) {
    check_cpu_error(tt_call(E, op, args, 2, &r), "result type ComplexFloat can't be cast to the desired output type Short");
    args[1] = tensor_arg(&wide);
    check_cpu_error(tt_call(E, op, args, 2, &r), "output with shape [3] doesn't match the broadcast shape [2, 3]");
    args[1] = tensor_arg(&four);
    check_cpu_error(tt_call(E, op, args, 2, &r),
                    "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0");
    int scalar_op = tt_ops_find("fmod_.Scalar");
    CHECK_OK(tt_call_set_inplace_iterator_ops(E, &scalar_op, 1, NULL, 0));
    memset(&args[1], 0, sizeof args[1]);
    args[1].kind = TT_ARG_COMPLEX;
    args[1].f_im = 1; /* 1j: the default complex type */
    check_cpu_error(tt_call(E, scalar_op, args, 2, &r), "result type ComplexFloat can't be cast to the desired output type Short");
    CHECK_OK(tt_call_set_inplace_iterator_ops(E, NULL, 0, NULL, 0));
  }
  tt_storage_release(si);
  tt_storage_release(sz);
}

/* The FFT of a unit impulse is all ones; rfft of a constant is (n, 0, ...). */
static void test_fft(void) {
  float x[8] = {1, 1, 1, 1, 1, 1, 1, 1}, out[10];
  tt_storage_t *s = NULL;
  if (!CHECK_OK(tt_storage_from_host(E, x, TT_F32, 8, &s))) return;
  tt_tensor_ref_t a = vec(s, 8);
  int64_t dim = 0;
  tt_arg_t args[4];
  memset(args, 0, sizeof args);
  args[0] = tensor_arg(&a);
  args[1].kind = TT_ARG_INTS;
  args[1].n = 1;
  args[1].ints = &dim;
  args[2].kind = TT_ARG_INT;
  args[2].i = 1; /* 1/sqrt(n) */
  args[3].kind = TT_ARG_BOOL;
  args[3].i = 1; /* onesided: 8/2+1 = 5 bins */
  tt_call_result_t r;
  if (CHECK_OK(tt_call(E, tt_ops_find("_fft_r2c"), args, 4, &r))) {
    CHECK(r.outs[0].dtype == TT_C64 && r.outs[0].sizes[0] == 5);
    tt_tensor_ref_t o = vec(r.outs[0].storage, 5);
    if (CHECK_OK(tt_tensor_to_host(E, &o, TT_C64, out, sizeof out))) {
      CHECK(fabsf(out[0] - 8.0f / sqrtf(8.0f)) < 1e-5f);
      float rest = 0;
      for (int i = 1; i < 10; i++) rest += fabsf(out[i]);
      CHECK(rest < 1e-5f);
    }
    tt_call_result_clear(&r);
  }
  tt_storage_release(s);
}

int main(void) {
  test_promotion();
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  test_mul_conj_and_refusal();
  test_inplace_iterator_first();
  test_fft();
  tt_shutdown(E);
  return check_summary();
}
