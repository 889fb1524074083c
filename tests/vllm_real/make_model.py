"""Write a tiny Qwen2-style model for the real vLLM to serve: random weights, a tokenizer trained here.

Run with the vLLM venv's python (it has torch, transformers and tokenizers): ``python make_model.py DIR``.
Nothing comes from a hub. The model is 2 layers, hidden 256, 4 heads (head_dim 64: vLLM's CPU attention
refuses 16), bf16, seeded, so every build is the same. The tokenizer is a byte-level BPE trained on generated
sentences, with a ChatML chat template. Its output is nonsense, and repetitive enough for ngram speculation
to accept most of its drafts.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

WORDS = ("the server decodes tokens while the draft proposes more and the verifier accepts most of them "
         "throughput rises when the batch grows and the cache holds every prefix of every prompt").split()
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
VOCAB = 512


def sentences(count: int = 400) -> list[str]:
    rng = random.Random(7)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 16))) + "." for _ in range(count)]


def train_tokenizer(out: Path) -> int:
    """The tokenizer files in ``out``; returns the vocabulary size."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(sentences(), trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   bos_token=None, unk_token=None)
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(str(out))
    return tok.get_vocab_size()


def write_model(out: Path, vocab: int) -> None:
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=vocab, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=4, head_dim=64, max_position_embeddings=2048,
                         tie_word_embeddings=True, bos_token_id=None, eos_token_id=2, pad_token_id=0,
                         torch_dtype="bfloat16")
    model = Qwen2ForCausalLM(config).to(torch.bfloat16)
    model.save_pretrained(str(out), safe_serialization=True)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    vocab = train_tokenizer(out)
    write_model(out, vocab)
    (out / "generation_config.json").write_text(json.dumps({"eos_token_id": 2, "pad_token_id": 0}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
