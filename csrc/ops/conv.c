/* Lowerings of the conv op family. */
#include "ops/common.h"
#include "ops/families.h"

const tt_op_def_t tt_ops_conv[] = {
    {NULL, NULL, 0},
};
