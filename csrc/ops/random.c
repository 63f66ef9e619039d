/* Lowerings of the random op family. */
#include "ops/common.h"
#include "ops/families.h"

const tt_op_def_t tt_ops_random[] = {
    {NULL, NULL, 0},
};
