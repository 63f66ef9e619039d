"""FSDP2 fully_shard on tpu over tpu_dist: the transformer block trained a
few steps matches the same FSDP2 training on CPU over gloo (losses within
1e-5 relative, parameters) and the unsharded model trained on the full batch;
reshard_after_forward True (unsharded parameters freed with
untyped_storage().resize_(0) after forward, re-allocated for backward) and
False. The ranks are fsdp_worker.py, started by test_dist.launch."""
import os

from test_dist import assert_ok, launch

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fsdp_worker.py")


def test_fsdp2_reshard_after_forward_sgd_2_processes():
    assert_ok(launch(2, "fsdp_reshard", worker=WORKER), "fsdp_reshard")


def test_fsdp2_keep_unsharded_adamw_2_processes():
    assert_ok(launch(2, "fsdp_keep", worker=WORKER), "fsdp_keep")


def test_fsdp2_reshard_after_forward_4_processes():
    # uneven shards (50 embedding rows over 4 ranks); 2 steps keep 4 ranks on 2 cores near a minute
    assert_ok(launch(4, "fsdp_reshard", worker=WORKER, env={"FSDP_STEPS": "2"}), "fsdp_reshard")
