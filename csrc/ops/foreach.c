/* Lowerings of the foreach op family. */
#include "ops/common.h"
#include "ops/families.h"

const tt_op_def_t tt_ops_foreach[] = {
    {NULL, NULL, 0},
};
