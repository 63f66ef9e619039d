/* Each op family file exports a NULL-terminated table, declared here from
 * the one list of families (ops/families.def). */
#ifndef TT_OPS_FAMILIES_H
#define TT_OPS_FAMILIES_H

#include "ops/registry.h"

#define TT_FAMILY(name) extern const tt_op_def_t tt_ops_##name[];
#include "ops/families.def"
#undef TT_FAMILY

#endif
