"""ITM-IoU, FineMatch's metric for predicted mismatch triplets (FineMatch §3.7, Algorithm 1).

Per predicted triplet ``p = (class, phrase, correction)`` against a true triplet ``g``::

    class      = EM(p.class, g.class)                    (case and surrounding space ignored)
    detection  = (SemSim(p.phrase, g.phrase) + chrF(p.phrase, g.phrase)) / 2
    correction = SemSim(p.correction, g.correction)
    score      = 0.2 class + 0.4 detection + 0.4 correction      mode "mdc" (Detection & Correction)
    score      = (0.2 class + 0.4 detection) / 0.6                mode "md"  (Mismatch Detection)

SemSim is BERTScore F1 (``bert-base-uncased``, layer 9, no baseline rescaling: FineMatch's
appendix names the model and nothing else) or any :data:`SemanticSim`; chrF is sacrebleu's
``CHRF(char_order=6)`` (word order 0, beta 2) divided by 100. For both, two empty strings count
1.0 and one empty string 0.0. The match threshold is ``T = 0.55``.

How the paper's text is read here (Algorithm 1 leaves these open):

(a) **One-to-one matching.** The paper takes, per prediction, the best truth ``max_k score >= T``,
    which lets two predictions claim the same truth. Here a prediction x truth score matrix is
    built, entries below T are unmatchable, and the assignment with the maximum total score
    (``scipy.optimize.linear_sum_assignment``) pairs them; ``|P ∩ G|`` = the number of assigned
    pairs with score >= T.
(b) **Pair score** ``= (sum of matched scores / |P|) × |P ∩ G| / (|P| + |G| − |P ∩ G|)``: the mean
    over predictions with unmatched predictions scoring 0, times the set IoU.
(c) **Empty sets.** No prediction and no truth (an aligned pair, predicted aligned) = 1; exactly one
    empty = 0. The dataset score is the mean over pairs, reported on the 0-100 scale.
(d) **Mismatch Detection weights.** Algorithm 1's MD branch (line 13) adds ``W_Co x Score_C``,
    which reads as a typo (MD predictions carry no correction); per the project's issue 4, MD drops
    the correction term and renormalises class/detection to 0.2/0.6 and 0.4/0.6.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from autoalign.errors import AutoAlignError

logger = logging.getLogger(__name__)

W_CLASS, W_DETECTION, W_CORRECTION = 0.2, 0.4, 0.4
THRESHOLD = 0.55
MODES = ("mdc", "md")
SEMANTIC_SIMS = ("bertscore", "chrf")

SemanticSim = Callable[[list[str], list[str]], list[float]]
"""Similarity of ``hyps[i]`` and ``refs[i]`` in [0, 1], for each i."""


class SemanticSimUnavailable(AutoAlignError, RuntimeError):
    """The semantic similarity model cannot be loaded (e.g. BERT weights missing offline)."""


@dataclass(frozen=True)
class Triplet:
    """One FineMatch mismatch: aspect class, caption phrase, correction."""

    cls: str
    phrase: str
    correction: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Triplet":
        """From ``{"class"|"aspect", "phrase", "correction"}`` (a Mismatch dict works too)."""
        label = data.get("class", data.get("aspect", ""))
        return cls(str(label or ""), str(data.get("phrase") or ""), str(data.get("correction") or ""))


# ----------------------------------------------------------------------------- similarities
_chrf_lock = threading.Lock()
_chrf_metric = None


def chrf(hyps: list[str], refs: list[str]) -> list[float]:
    """Sentence chrF (n = 6 characters, sacrebleu defaults otherwise) in [0, 1], per pair."""
    global _chrf_metric
    with _chrf_lock:
        if _chrf_metric is None:
            from sacrebleu.metrics import CHRF

            _chrf_metric = CHRF(char_order=6)
        metric = _chrf_metric
    return [metric.sentence_score(h, [r]).score / 100.0 for h, r in zip(hyps, refs)]


class BertScoreSim:
    """BERTScore F1 with a BERT model (default ``bert-base-uncased``, layer 9), loaded on first call.

    ``model`` may be a hub id (taken from the local Hugging Face cache when offline) or a local
    directory; ``num_layers`` defaults to bert-score's tuned layer for the model, else 9.
    """

    def __init__(self, model: str = "bert-base-uncased", num_layers: int | None = None, batch_size: int = 64, device: str | None = None):
        self.model = model
        self.num_layers = num_layers
        self.batch_size = batch_size
        self.device = device
        self._scorer = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._scorer is None:
                from autoalign.models.loading import ModelNotAvailable, resolve_model

                try:
                    path = resolve_model(self.model, "bertscore")
                except ModelNotAvailable as exc:
                    raise SemanticSimUnavailable(f"{exc} Or score without BERTScore: --semantic-sim chrf") from exc
                import bert_score
                from bert_score.utils import model2layers

                layers = self.num_layers or model2layers.get(self.model, 9)
                logger.info("loading BERTScore model %s (layer %d)", self.model, layers)
                try:
                    scorer = bert_score.BERTScorer(model_type=path, num_layers=layers, batch_size=self.batch_size, device=self.device)
                except OSError as exc:
                    raise SemanticSimUnavailable(
                        f"cannot load the BERTScore model {self.model!r} ({exc}); provide it locally or use --semantic-sim chrf"
                    ) from exc
                tok = scorer._tokenizer
                if getattr(tok, "model_max_length", 512) > 100_000:  # tokenizers saved without a limit
                    tok.model_max_length = 512
                self._scorer = scorer
            return self._scorer

    def __call__(self, hyps: list[str], refs: list[str]) -> list[float]:
        if not hyps:
            return []
        scorer = self._load()
        _, _, f1 = scorer.score(list(hyps), list(refs), batch_size=self.batch_size)
        return [float(x) for x in f1.tolist()]


def semantic_sim(name: str, **kwargs: Any) -> SemanticSim:
    """The similarity called ``name``: "bertscore" (:class:`BertScoreSim`) or "chrf"."""
    if name == "bertscore":
        return BertScoreSim(**kwargs)
    if name == "chrf":
        return chrf
    raise AutoAlignError(f"semantic similarity must be one of {', '.join(SEMANTIC_SIMS)} (got {name!r})")


def _pairwise(sim: SemanticSim, hyps: Sequence[str], refs: Sequence[str]) -> list[float]:
    """``sim`` on each pair, with empty strings handled here: both empty 1.0, one empty 0.0."""
    out = [0.0] * len(hyps)
    todo = []
    for i, (h, r) in enumerate(zip(hyps, refs)):
        h, r = h.strip(), r.strip()
        if not h or not r:
            out[i] = 1.0 if not h and not r else 0.0
        else:
            todo.append((i, h, r))
    if todo:
        values = sim([h for _, h, _ in todo], [r for _, _, r in todo])
        for (i, _, _), v in zip(todo, values):
            out[i] = min(1.0, max(0.0, float(v)))
    return out


# ----------------------------------------------------------------------------- scoring
@dataclass
class PairScore:
    """ITM-IoU of one (prediction set, truth set) pair, in [0, 1], with its one-to-one matches."""

    score: float
    n_pred: int
    n_true: int
    matches: list[tuple[int, int, float]] = field(default_factory=list)  # (pred index, truth index, aspect score)

    @property
    def n_matched(self) -> int:
        return len(self.matches)


def weights(mode: str) -> tuple[float, float, float]:
    """(class, detection, correction) weights of ``mode``: "mdc" 0.2/0.4/0.4, "md" 0.2/0.6, 0.4/0.6, 0."""
    if mode == "mdc":
        return W_CLASS, W_DETECTION, W_CORRECTION
    if mode == "md":
        total = W_CLASS + W_DETECTION
        return W_CLASS / total, W_DETECTION / total, 0.0
    raise AutoAlignError(f"ITM-IoU mode must be one of {', '.join(MODES)} (got {mode!r})")


def _same_class(a: str, b: str) -> float:
    return 1.0 if " ".join(a.lower().split()) == " ".join(b.lower().split()) else 0.0


def one_to_one(matrix: np.ndarray, threshold: float = THRESHOLD) -> list[tuple[int, int, float]]:
    """Maximum-total-score assignment among entries >= ``threshold`` (reading (a) in the module docstring)."""
    from scipy.optimize import linear_sum_assignment

    if matrix.size == 0:
        return []
    eligible = matrix >= threshold
    # Entries below T weigh 0 (as good as leaving both sides unmatched) and are dropped after, so the
    # assignment maximises the total score of eligible pairs only.
    weight = np.where(eligible, matrix, 0.0)
    rows, cols = linear_sum_assignment(weight, maximize=True)
    return [(int(i), int(j), float(matrix[i, j])) for i, j in zip(rows, cols) if eligible[i, j]]


def pair_score(matrix: np.ndarray, threshold: float = THRESHOLD) -> PairScore:
    """ITM-IoU of one pair from its prediction x truth aspect-score matrix (readings (a)-(c))."""
    n_pred, n_true = matrix.shape
    if n_pred == 0 and n_true == 0:
        return PairScore(1.0, 0, 0)
    if n_pred == 0 or n_true == 0:
        return PairScore(0.0, n_pred, n_true)
    matches = one_to_one(matrix, threshold)
    k = len(matches)
    mean = sum(s for _, _, s in matches) / n_pred
    iou = k / (n_pred + n_true - k)
    return PairScore(mean * iou, n_pred, n_true, matches)


@dataclass
class Evaluation:
    """ITM-IoU of a dataset in both modes: 0-100 means and the per-pair details."""

    n: int
    itm_iou_md: float
    itm_iou_mdc: float
    pairs_md: list[PairScore]
    pairs_mdc: list[PairScore]
    threshold: float


def _as_triplets(items: Iterable[Triplet | dict[str, Any]]) -> list[Triplet]:
    return [t if isinstance(t, Triplet) else Triplet.from_dict(t) for t in items]


def evaluate(
    pairs: Sequence[tuple[Sequence[Triplet | dict[str, Any]], Sequence[Triplet | dict[str, Any]]]],
    semantic: SemanticSim = chrf,
    threshold: float = THRESHOLD,
) -> Evaluation:
    """ITM-IoU of ``[(predictions, truths), ...]`` in both modes, with one batched similarity call per field."""
    data = [(_as_triplets(p), _as_triplets(g)) for p, g in pairs]
    index: list[tuple[int, int, int]] = []  # (pair, pred, truth) for each cell
    ph_h, ph_r, co_h, co_r = [], [], [], []
    for n, (preds, truths) in enumerate(data):
        for i, p in enumerate(preds):
            for j, g in enumerate(truths):
                index.append((n, i, j))
                ph_h.append(p.phrase)
                ph_r.append(g.phrase)
                co_h.append(p.correction)
                co_r.append(g.correction)
    phrase_sem = _pairwise(semantic, ph_h, ph_r)
    phrase_chrf = _pairwise(chrf, ph_h, ph_r)
    correction_sem = _pairwise(semantic, co_h, co_r)
    components = {"md": [], "mdc": []}
    matrices = {mode: [np.zeros((len(p), len(g))) for p, g in data] for mode in MODES}
    for cell, (n, i, j) in enumerate(index):
        cls = _same_class(data[n][0][i].cls, data[n][1][j].cls)
        detection = (phrase_sem[cell] + phrase_chrf[cell]) / 2.0
        for mode in MODES:
            wc, wd, wo = weights(mode)
            matrices[mode][n][i, j] = wc * cls + wd * detection + wo * correction_sem[cell]
    for mode in MODES:
        components[mode] = [pair_score(m, threshold) for m in matrices[mode]]

    def mean100(scores: list[PairScore]) -> float:
        return 100.0 * float(np.mean([s.score for s in scores])) if scores else 0.0

    return Evaluation(
        n=len(data),
        itm_iou_md=mean100(components["md"]),
        itm_iou_mdc=mean100(components["mdc"]),
        pairs_md=components["md"],
        pairs_mdc=components["mdc"],
        threshold=threshold,
    )


def itm_iou(
    predictions: Sequence[Triplet | dict[str, Any]],
    truths: Sequence[Triplet | dict[str, Any]],
    semantic: SemanticSim = chrf,
    mode: str = "mdc",
    threshold: float = THRESHOLD,
) -> float:
    """ITM-IoU of one pair in [0, 1] (``mode`` "mdc" or "md")."""
    weights(mode)  # validates the mode
    result = evaluate([(predictions, truths)], semantic, threshold)
    return (result.pairs_mdc if mode == "mdc" else result.pairs_md)[0].score
