"""Hugging Face transformers models built from tiny configs (random weights,
no downloads) train on "tpu" as on CPU: a tied-LM-head GPT-2 and a BERT with
its decoder tied to the word embeddings (10 steps, losses within 1e-4
relative, ties and Parameter objects kept by `.to("tpu")`), and mixture-of-
experts models (Qwen3-MoE, OLMoE, Mixtral), whose grouped expert path calls
integer histc off CPU: forward and one training step."""
import copy

import pytest
import torch
import transformers

from conftest import to_cpu

VOCAB = 100


def _ids():
    g = torch.Generator().manual_seed(1)
    return torch.randint(0, VOCAB, (2, 8), generator=g)


def _pair(config_cls, model_cls, **kw):
    torch.manual_seed(0)
    cpu = model_cls(config_cls(**kw)).train()
    tpu = copy.deepcopy(cpu)
    return cpu, tpu


def _step(model, opt, ids):
    opt.zero_grad()
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    opt.step()
    return out


def _train_and_compare(cpu, tpu, tied, steps):
    opt_cpu = torch.optim.AdamW(cpu.parameters(), lr=1e-3)
    params = list(tpu.parameters())
    opt_tpu = torch.optim.AdamW(tpu.parameters(), lr=1e-3)  # built before the move, as users do
    tpu.to("tpu")
    assert all(a is b for a, b in zip(tpu.parameters(), params)) and len(list(tpu.parameters())) == len(params)
    a, b = tied(tpu)
    assert a is b and a.device.type == "tpu"
    ids = _ids()
    for i in range(steps):
        want = _step(cpu, opt_cpu, ids).loss.item()
        got = _step(tpu, opt_tpu, ids.to("tpu")).loss.item()
        assert abs(got - want) <= 1e-4 * abs(want), (i, got, want)
    assert a is b
    for (name, p), (_, q) in zip(tpu.named_parameters(), cpu.named_parameters()):
        torch.testing.assert_close(to_cpu(p), q.detach(), rtol=1e-4, atol=1e-5, msg=name)


def test_gpt2_tied_lm_head_trains_like_cpu():
    cpu, tpu = _pair(transformers.GPT2Config, transformers.GPT2LMHeadModel, vocab_size=VOCAB, n_layer=2, n_head=2,
                     n_embd=32, n_positions=32, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                     bos_token_id=0, eos_token_id=0)
    assert cpu.lm_head.weight is cpu.transformer.wte.weight
    _train_and_compare(cpu, tpu, lambda m: (m.lm_head.weight, m.transformer.wte.weight), steps=10)


def test_bert_tied_decoder_trains_like_cpu():
    cpu, tpu = _pair(transformers.BertConfig, transformers.BertForMaskedLM, vocab_size=VOCAB, hidden_size=32,
                     num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, max_position_embeddings=32,
                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    tied = lambda m: (m.cls.predictions.decoder.weight, m.bert.embeddings.word_embeddings.weight)  # noqa: E731
    assert tied(cpu)[0] is tied(cpu)[1]
    _train_and_compare(cpu, tpu, tied, steps=10)


SMALL = dict(vocab_size=VOCAB, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, hidden_size=32,
             max_position_embeddings=32, bos_token_id=0, eos_token_id=0, pad_token_id=0)
MOE = {
    "qwen3_moe": (transformers.Qwen3MoeConfig, transformers.Qwen3MoeForCausalLM,
                  dict(intermediate_size=64, moe_intermediate_size=32, num_experts=4, num_experts_per_tok=2, head_dim=16)),
    "olmoe": (transformers.OlmoeConfig, transformers.OlmoeForCausalLM,
              dict(intermediate_size=32, num_experts=4, num_experts_per_tok=2)),
    "mixtral": (transformers.MixtralConfig, transformers.MixtralForCausalLM,
                dict(intermediate_size=64, num_local_experts=4, num_experts_per_tok=2)),
}


@pytest.mark.parametrize("name", sorted(MOE))
def test_moe_forward_and_training_step_match_cpu(name):
    config_cls, model_cls, kw = MOE[name]
    cpu, tpu = _pair(config_cls, model_cls, **SMALL, **kw)
    opt_cpu = torch.optim.SGD(cpu.parameters(), lr=0.1)
    tpu.to("tpu")
    opt_tpu = torch.optim.SGD(tpu.parameters(), lr=0.1)
    ids = _ids()
    want = _step(cpu, opt_cpu, ids)
    got = _step(tpu, opt_tpu, ids.to("tpu"))
    torch.testing.assert_close(to_cpu(got.logits), want.logits.detach(), rtol=1e-4, atol=1e-5)
    assert abs(got.loss.item() - want.loss.item()) <= 1e-4 * abs(want.loss.item())
    for (pname, p), (_, q) in zip(tpu.named_parameters(), cpu.named_parameters()):
        torch.testing.assert_close(to_cpu(p), q.detach(), rtol=1e-4, atol=1e-5, msg=pname)
