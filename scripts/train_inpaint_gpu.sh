#!/usr/bin/env bash
# Train the shapes world's 9-channel inpainting model (autoalign/world/training/train_inpaint.py, its PLAN as
# committed) on a CUDA GPU, and hand the weights back as ONE archive: $OUT/inpaint.tgz (the folder
# StableDiffusionInpaintPipeline loads; unpack with `mkdir DIR && tar xzf inpaint.tgz -C DIR`), with
# $OUT/inpaint-MODEL_CARD.json and $OUT/inpaint-train.log beside it. Prints the steps/s.
#
# Run from the repository root on the device machine (torch present, diffusers & co. as wheels in .whl/):
#   OUT=/some/dir bash scripts/train_inpaint_gpu.sh
# Nothing is written into autoalign/world/weights/; checkpoints go to a temporary AUTOALIGN_HOME.
# A check of the script itself elsewhere: DEVICE=cpu STEPS=2 OUT=/tmp/x bash scripts/train_inpaint_gpu.sh
set -euo pipefail
: "${OUT:?set OUT to the folder the archive goes to}"
if ! python3 -c "import diffusers, transformers" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH="/tmp/site:$PWD"
else
  export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
fi
export HF_HUB_OFFLINE=1 AUTOALIGN_HOME="$(mktemp -d)"
work="$(mktemp -d)"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
python3 - "$work" "${DEVICE:-cuda}" "${STEPS:-}" > "$OUT/inpaint-train.log" 2>&1 <<'PY' || { tail -n 40 "$OUT/inpaint-train.log"; exit 1; }
import json, logging, sys, time
from pathlib import Path

import torch

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
from autoalign.world.training import recipes

out, device, steps = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]) if sys.argv[3] else None
assert device == "cpu" or torch.cuda.is_available(), "no CUDA device"
start = time.time()
stats = recipes.train("inpaint", out, seed=0, resume=False, progress=False, device=device, steps=steps)
total = time.time() - start

from diffusers import StableDiffusionInpaintPipeline  # the folder loads as the pipeline the region editor uses

pipe = StableDiffusionInpaintPipeline.from_pretrained(out / "inpaint", torch_dtype=torch.float32)
assert pipe.unet.config.in_channels == 9
print(json.dumps({"steps": stats["steps"], "train_seconds": round(stats["seconds"], 1),
                  "steps_per_s": round(stats["steps"] / stats["seconds"], 2), "total_seconds": round(total, 1),
                  "loss": round(stats["loss"], 4),
                  "device": torch.cuda.get_device_name(0) if device != "cpu" else "cpu"}))
PY
tail -n 3 "$OUT/inpaint-train.log"
cp "$work/inpaint/MODEL_CARD.json" "$OUT/inpaint-MODEL_CARD.json"
tar czf "$OUT/inpaint.tgz" -C "$work/inpaint" .
ls -l "$OUT"
