"""Does an InstructPix2Pix editor read its source image? Denoising loss with the true, a zeroed and another
edit's source latents, per noise band, on validation editing triples.

    python -m experiments.editor_source_use [--editor DIR] [--scenes 400] [--kinds drop,extra,swap]

The editor is trained to predict the noise added to the *edited* scene's latents, given the source
scene's latents as four extra input channels. If it uses the source, its loss with the true source is
lower than with a zeroed one (what the image-dropped branch of classifier-free guidance sees) and a
wrong source makes it worse still; if it ignores the source, all three are equal. ``--kinds`` picks
edit kinds by the corruption that made the source (``drop``: the edit must add an object, ``extra``:
remove one, ``swap``: move two, ``recolor``, ``reshape``). The triples are ``world eval``'s editor cases
(:func:`autoalign.benchmarks.world_eval.edit_cases`) of the first ``--scenes`` validation scenes, so
``--scenes 400`` reads the edits of ``autoalign world eval --only editor --validation --n 400``.
Validation split only: a tool for tuning.
"""

from __future__ import annotations

import argparse
from pathlib import Path

BANDS = ((0, 200), (200, 500), (500, 800), (800, 1000))


def source_use(editor_dir: Path, scenes: int = 400, kinds: list[str] | None = None, seed: int = 1) -> dict:
    import torch
    import torch.nn.functional as F
    from diffusers import StableDiffusionInstructPix2PixPipeline

    from autoalign.benchmarks.world_eval import edit_cases
    from autoalign.world.render import draw
    from autoalign.world.training import train_generator as gen

    data = [t for t in edit_cases("val", scenes) if not kinds or t.kind in kinds]
    pipe = StableDiffusionInstructPix2PixPipeline.from_pretrained(editor_dir).to(torch.float32)
    vae, unet = pipe.vae, pipe.unet
    weight = unet.conv_in.weight
    out: dict = {"n": len(data), "kinds": {k: sum(t.kind == k for t in data) for k in sorted({t.kind for t in data})},
                 "conv_in weight norm: noisy / source channels": [round(weight[:, :4].norm().item(), 3),
                                                                  round(weight[:, 4:].norm().item(), 3)]}
    noise = gen.noise_scheduler()
    torch.manual_seed(seed)
    with torch.no_grad():
        src = gen.latents_of(vae, [draw(t.source) for t in data], scaled=False)
        tgt = gen.latents_of(vae, [draw(t.target) for t in data])
        text = gen.encode_text(pipe.tokenizer, pipe.text_encoder, [t.instruction for t in data])
        other = src[torch.roll(torch.arange(len(data)), 1)]
        for lo, hi in BANDS:
            eps = torch.randn_like(tgt)
            steps = torch.randint(lo, hi, (len(data),))
            noisy = noise.add_noise(tgt, eps, steps)
            losses = {}
            for name, source in (("true source", src), ("zeroed source", torch.zeros_like(src)), ("another's source", other)):
                pred = unet(torch.cat([noisy, source], dim=1), steps, encoder_hidden_states=text).sample
                losses[name] = round(F.mse_loss(pred, eps).item(), 5)
            out[f"t in [{lo}, {hi})"] = losses
    return out


def main(argv: list[str] | None = None) -> None:
    from autoalign.world import WEIGHTS_DIR

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--editor", type=Path, default=WEIGHTS_DIR / "editor", help="an InstructPix2Pix pipeline folder")
    parser.add_argument("--scenes", type=int, default=400, help="validation scenes whose editor cases are read")
    parser.add_argument("--kinds", default="", help="comma-separated edit kinds (default: all)")
    args = parser.parse_args(argv)
    result = source_use(args.editor, args.scenes, [k for k in args.kinds.split(",") if k])
    for key, value in result.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
