"""Online play of an embedded battle: the engine state of a ``Battle`` row (``embedded``), the
play actions (``actions``: start, act, hand a fleet to the computer, the activation sweep), the
board as SVG (``boardsvg``), the play and replay pages and their API. Written for the Event
Horizon engine today (issue 15: to become generic over rule books)."""
