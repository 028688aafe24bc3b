"""The subject's embedder reuses the vectors mining just made (`ingest.wings.reusing`): a
drawer's exact content is answered from its vector, anything else is embedded once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ingest.wings import reusing


def test_known_texts_are_not_embedded_again_and_order_is_kept() -> None:
    calls: list[list[str]] = []

    def embed(texts: Sequence[str]) -> np.ndarray:
        calls.append(list(texts))
        return np.array([[float(len(t)), 0.0] for t in texts], dtype=np.float32)

    turn = "I rebuilt the bike's battery pack last week."
    embed_known = reusing({turn: np.array([0.0, 1.0], dtype=np.float32)}, embed)
    out = embed_known(["efoil", turn, "efoil", "battery"])
    assert calls == [["efoil", "battery"]]  # each unknown text once, the drawer's content never
    assert out.tolist() == [[5.0, 0.0], [0.0, 1.0], [5.0, 0.0], [7.0, 0.0]]
    assert embed_known([turn]).tolist() == [[0.0, 1.0]] and len(calls) == 1
