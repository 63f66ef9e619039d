/* The float32 contraction modes (torch.set_float32_matmul_precision): a
 * value type, readable above the IR (the facade takes the mode as one). */
#ifndef TT_IR_PRECISION_H
#define TT_IR_PRECISION_H

/* sub of TT_OPK_DOT and TT_OPK_CONV: how float32 operands are multiplied
 * (torch.set_float32_matmul_precision). HIGHEST is 0, so a node built
 * without a mode is an IEEE float32 contraction, as before modes existed.
 * MEDIUM: one bf16 pass (operands rounded to bf16, f32 accumulation); HIGH:
 * three bf16 passes (x = hi + lo split, hi*hi + hi*lo + lo*hi). */
typedef enum tt_precision_e { TT_PREC_HIGHEST = 0, TT_PREC_HIGH = 1, TT_PREC_MEDIUM = 2 } tt_precision_t;

#endif
