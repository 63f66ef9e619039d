/* Lowerings of the linalg op family. */
#include "ops/common.h"
#include "ops/families.h"

const tt_op_def_t tt_ops_linalg[] = {
    {NULL, NULL, 0},
};
