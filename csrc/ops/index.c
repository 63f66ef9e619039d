/* Lowerings of the index op family. */
#include "ops/common.h"
#include "ops/families.h"

const tt_op_def_t tt_ops_index[] = {
    {NULL, NULL, 0},
};
