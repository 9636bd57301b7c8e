"""Geometry every rule book shares (pure Python, standard library and campaign.rules.grid only).

``inches`` (a table measured in inches: Buoyz), ``square`` (a grid of squares with facings and
lines: Event Horizon), ``hex`` (the campaign hex grid with hex-side facings, arcs, lines of sight
and outline corners). A rule book keeps only its own templates and charts on top of these.
"""
