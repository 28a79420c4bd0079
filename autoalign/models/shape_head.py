"""The shape head: a small learned classifier that names the shape of one instance the ``segformer`` grounder read.

Why: a SegFormer labels pixels, but in the shapes world a circle and a square differ by one number of the whole
object, how much of its box it fills (a circle about pi/4, a square nearly all), which no pixel sees. On generated
images the world grounder's per-pixel majority vote confuses rounded squares and square-ish circles. The head reads
each instance as a whole: eight numbers of its mask and the SegFormer's own probabilities (:func:`features`), a
two-layer MLP, and one of the labels in ``shape_head.json`` (the model's shapes, then ``blob``: an object no shape
fits, ``none``: not an object).

Files, in the grounder's folder beside ``config.json`` (absent: the grounder reads shapes by majority vote, as every
hub checkpoint does): ``shape_head.safetensors`` (the MLP's weights and the features' mean / std) and
``shape_head.json`` (labels, layer width, feature names). Trained by the world's grounder recipe
(:func:`autoalign.world.training.train_grounder.train_shape_head`) on generated images, each instance labelled by
the world's own reading of the blob under it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

WEIGHTS = "shape_head.safetensors"
CONFIG = "shape_head.json"
#: the eight numbers :func:`features` returns, in order
FEATURES = ("fill", "drop", "aspect", "side", "area", "p_circle", "p_square", "p_triangle")
EXTRA_LABELS = ("blob", "none")


def features(mask: np.ndarray, shape_probs: Sequence[float]) -> np.ndarray:
    """One instance as :data:`FEATURES`: the share of its box its mask fills, how far its mass sits below the box's
    centre (a fraction of the height; a triangle's is large), its box's aspect (long / short side), longer side and
    area in pixels, and the mean probability of each shape over its mask (``shape_probs``, background excluded)."""
    ys, xs = np.nonzero(mask)
    w, h = int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)
    fill = len(xs) / float(w * h)
    drop = (ys.mean() - (ys.min() + ys.max()) / 2) / h
    return np.array([fill, drop, max(w, h) / min(w, h), max(w, h), len(xs), *shape_probs], dtype=np.float32)


def build(n_features: int, n_labels: int, width: int):
    import torch

    return torch.nn.Sequential(torch.nn.Linear(n_features, width), torch.nn.ReLU(), torch.nn.Linear(width, width),
                               torch.nn.ReLU(), torch.nn.Linear(width, n_labels))


class ShapeHead:
    """A trained head: :meth:`predict` names each instance's label, :meth:`predict_proba` gives its softmax."""

    def __init__(self, net: Any, mean: np.ndarray, std: np.ndarray, labels: Sequence[str]):
        self.net, self.mean, self.std, self.labels = net.eval(), mean.astype(np.float32), std.astype(np.float32), list(labels)

    def predict_proba(self, rows: np.ndarray) -> np.ndarray:
        """One row per instance: the probability of each of :attr:`labels`."""
        import torch

        if len(rows) == 0:
            return np.zeros((0, len(self.labels)), dtype=np.float32)
        x = torch.from_numpy(((np.asarray(rows, dtype=np.float32) - self.mean) / self.std).astype(np.float32))
        with torch.inference_mode():
            return self.net(x).softmax(1).numpy()

    def predict(self, rows: np.ndarray) -> list[str]:
        return [self.labels[int(k)] for k in self.predict_proba(rows).argmax(1)]

    def save(self, folder: Path) -> None:
        import torch
        from safetensors.torch import save

        from autoalign.files import atomic_write_bytes

        folder = Path(folder)
        tensors = {f"net.{k}": v.detach().to(torch.float32).contiguous() for k, v in self.net.state_dict().items()}
        tensors["mean"], tensors["std"] = torch.from_numpy(self.mean), torch.from_numpy(self.std)
        atomic_write_bytes(folder / WEIGHTS, save(tensors))
        width = int(self.net[0].out_features)
        atomic_write_bytes(folder / CONFIG, json.dumps({"labels": self.labels, "width": width, "features": list(FEATURES)},
                                                       indent=2).encode("utf-8"))


def load(folder: str | Path) -> ShapeHead | None:
    """The head saved in ``folder``, or None when there is none (a hub id, or a grounder without a head)."""
    folder = Path(folder)
    if not (folder / WEIGHTS).is_file() or not (folder / CONFIG).is_file():
        return None
    from safetensors.torch import load_file

    meta = json.loads((folder / CONFIG).read_text(encoding="utf-8"))
    tensors = load_file(str(folder / WEIGHTS))
    net = build(len(meta["features"]), len(meta["labels"]), int(meta["width"]))
    net.load_state_dict({k[4:]: v for k, v in tensors.items() if k.startswith("net.")})
    return ShapeHead(net, tensors["mean"].numpy(), tensors["std"].numpy(), meta["labels"])


def fit(rows: np.ndarray, targets: np.ndarray, labels: Sequence[str], width: int = 128, steps: int = 3000,
        seed: int = 0) -> ShapeHead:
    """Train a head on ``rows`` (:func:`features`) and ``targets`` (indices into ``labels``): Adam, cosine schedule,
    batches of 256 drawn with ``seed``."""
    import torch

    rows = np.asarray(rows, dtype=np.float32)
    mean, std = rows.mean(0), rows.std(0) + 1e-6
    x, y = torch.from_numpy((rows - mean) / std), torch.as_tensor(targets, dtype=torch.long)
    torch.manual_seed(seed)
    net = build(rows.shape[1], len(labels), width)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        idx = torch.randint(0, len(x), (min(256, len(x)),), generator=gen)
        loss = torch.nn.functional.cross_entropy(net(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    return ShapeHead(net, mean, std, labels)
