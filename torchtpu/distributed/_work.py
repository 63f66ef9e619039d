"""Work objects for collectives on tpu tensors.

- completed(result): the host path finished the collective before returning
  (wait() is immediate, is_completed() is True, get_future().value() holds the
  tpu tensors, which is what DDP's reducer reads its bucket from).
- deferred(inner, finish): a receive; the copy into the tpu tensor runs when
  the caller waits (a receive must not block its issuer: batch_isend_irecv
  posts receives before the matching sends).
"""
import torch
from torch._C._distributed_c10d import PythonCallbackWork, _create_work_from_future


def completed(result):
    fut = torch.futures.Future()
    fut.set_result(result)
    return _create_work_from_future(fut)


def deferred(inner, finish):
    state = {"done": False}

    def wait(timeout):
        if not state["done"]:
            if timeout is None or timeout.total_seconds() <= 0:
                inner.wait()
            else:
                inner.wait(timeout)
            finish()
            state["done"] = True
        return True

    return PythonCallbackWork(wait)
