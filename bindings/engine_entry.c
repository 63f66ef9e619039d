/* Entering the engine from Python: the engine lock taken without ever
 * blocking while holding the GIL, the GIL released during the core's host
 * waits, and the fork guard (threading model: csrc/api/engine_lock.h). */
#include "api/engine_lock.h"
#include "base/blocking.h"
#include "bindings.h"

#include <stdatomic.h>

static void lock_letting_python_run(void) {
  if (tt_engine_trylock()) return;
  /* Another thread holds the engine (it is waiting on the device with the
   * GIL released, or was switched out while running Python): wait for it
   * without the GIL, so that it can go on. */
  Py_BEGIN_ALLOW_THREADS
  tt_engine_lock();
  Py_END_ALLOW_THREADS
}

int tt_py_engine_enter(void) {
  if (tt_engine_forked()) {
    PyErr_SetString(PyExc_RuntimeError,
                    "Cannot re-initialize TPU in forked subprocess. To use TPU with multiprocessing, you must use "
                    "the 'spawn' start method");
    return 0;
  }
  lock_letting_python_run();
  return 1;
}

void tt_py_engine_leave(void) { tt_engine_unlock(); }

int tt_py_engine_enter_quiet(void) {
  if (tt_engine_forked()) return 0;
  lock_letting_python_run();
  return 1;
}

/* Host waits release the GIL when the waiting thread holds it (core threads
 * that wait, e.g. a compile thread, hold none). */
static atomic_ullong g_gil_releases; /* waits that let other threads run, for tests */

static void *release_gil(void) {
  if (!PyGILState_Check()) return NULL;
  atomic_fetch_add_explicit(&g_gil_releases, 1, memory_order_relaxed);
  return PyEval_SaveThread();
}

unsigned long long tt_py_engine_gil_releases(void) { return atomic_load(&g_gil_releases); }

static void reacquire_gil(void *token) {
  if (token) PyEval_RestoreThread((PyThreadState *)token);
}

void tt_py_engine_install_hooks(void) { tt_blocking_set_hooks(release_gil, reacquire_gil); }
