/* placeholder */
#include "ops/families.h"
const tt_op_def_t tt_ops_special_misc[] = {{NULL, NULL, 0}};
