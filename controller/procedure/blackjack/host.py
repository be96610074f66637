"""What the blackjack parts and their host share: the steps of the rules' round.

The model is each part's host: a part declares, as a `Protocol` of its own module, exactly
what it reads and calls of the model, and the model satisfies them all. A step is the word
they share (the model builds the rules' round from its steps, the parts ask it to take one),
so it lives here, below both (decision 084).
"""

from __future__ import annotations

from typing import Any

Step = list[Any]
"""One step of the rules' round: ["start", bets], ["card", code], ["act", action, cents]..."""
