"""Battles handed off by the campaign turn: the lifecycle (``lifecycle``: a turn stops at battles
fought as games and completes when they are settled), battle actions (``actions``: tabletop
entry, confirm, dispute, moderator settlement, deadlines), their forms, pages, API and URLs."""
