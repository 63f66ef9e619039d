/* The engine a C test runs on: created by the test's main (tt_init), passed
 * to every engine call. One per test program, unless a test makes more. */
#ifndef TT_TEST_ENGINE_H
#define TT_TEST_ENGINE_H

#include "api/init.h"
#include "exec/engine.h" /* white-box: the tests read engine fields */
#include "api/transfer.h"

static tt_engine_t *E;

#endif
