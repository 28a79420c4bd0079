"""Training-step cost of the world's generator UNet on this machine: fp32, CPU bf16 autocast, torch.compile,
and the attention layout of rounds 1-9 (16 heads of 3-4 channels instead of heads of 16).

    python -m experiments.train_step_cost [--steps 15] [--no-compile]

One optimiser step of the generator recipe's UNet and text encoder (batch 48, 4x16x16 latents), timed
after warm-up, each variant twice in alternation; prints seconds per step and the ratio to fp32, all
measured in this one run. It answers "would a cheaper number format, a compiler or a saner attention
layout bring the world's training under its budget?" (README, "How the models were trained"). The
rounds 1-9 layout has the same parameters; only the heads they are split into differ. ``torch.compile`` needs a C++
compiler and spends a minute or more compiling before its first step (not counted).
"""

from __future__ import annotations

import argparse
import time


def main(argv: list[str] | None = None) -> None:
    import torch
    import torch.nn.functional as F

    from autoalign.world.training import train_generator as gen

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=15, help="timed steps per variant and repeat")
    parser.add_argument("--no-compile", action="store_true", help="skip the torch.compile variant")
    args = parser.parse_args(argv)

    torch.manual_seed(0)
    tok = gen.tokenizer()
    encoder, unet = gen.text_encoder(tok), gen.unet()
    optimizer = torch.optim.AdamW(list(unet.parameters()) + list(encoder.parameters()), lr=1e-4)
    captions = ["two red circles and a blue square"] * 48
    x, eps = torch.randn(48, 4, 16, 16), torch.randn(48, 4, 16, 16)
    t = torch.randint(0, 1000, (48,))
    # the same weights split into 16 heads (diffusers reads attention_head_dim as a number of heads)
    old = type(unet).from_config({**dict(unet.config), "attention_head_dim": 16})
    old.load_state_dict(unet.state_dict())
    old_optimizer = torch.optim.AdamW(list(old.parameters()) + list(encoder.parameters()), lr=1e-4)
    variants = {"fp32": (unet, False, optimizer), "bf16 autocast": (unet, True, optimizer),
                "16 heads (rounds 1-9)": (old, False, old_optimizer)}
    if not args.no_compile:
        variants["torch.compile"] = (torch.compile(unet), False, optimizer)

    def step(model, bf16: bool, optimizer) -> None:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            pred = model(x, t, encoder_hidden_states=gen.encode_text(tok, encoder, captions)).sample
            loss = F.mse_loss(pred.float(), eps)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    seconds: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(2):
        for name, (model, bf16, opt) in variants.items():
            for _ in range(3):  # warm-up (and compilation, the first time)
                step(model, bf16, opt)
            start = time.perf_counter()
            for _ in range(args.steps):
                step(model, bf16, opt)
            seconds[name].append((time.perf_counter() - start) / args.steps)
    base = min(seconds["fp32"])
    print(f"threads: {torch.get_num_threads()}, steps per repeat: {args.steps}")
    for name, values in seconds.items():
        print(f"{name:>14}: {', '.join(f'{v:.3f}' for v in values)} s/step; {min(values) / base:.2f}x fp32's")


if __name__ == "__main__":
    main()
