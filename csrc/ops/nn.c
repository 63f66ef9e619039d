/* Lowerings of the nn op family. */
#include "ops/common.h"
#include "ops/families.h"

const tt_op_def_t tt_ops_nn[] = {
    {NULL, NULL, 0},
};
