"""Online play of an embedded battle, for any registered rule book: ``embedded`` (a ``Battle`` row
↔ its engine's state, replayed from its steps), ``actions`` (start, act, hand a side to the
computer, the deadline sweep), the play and replay pages and their API. Everything
engine-specific comes from the battle's ruleset (``tactical.rules.play.PlayRules``, found in
``tactical/rules/registry.py``): this package imports no engine (tests/test_architecture.py).
"""
