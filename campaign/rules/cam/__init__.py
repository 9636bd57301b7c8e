"""The CAM campaign layer (pure Python): ``seeds/000_…`` appendix "Campaign Supplement" (CAM 1.0 –
CAM 4.3) with its section 1.5 ship descriptions.

Modules, one step each: ``state`` (settings, rosters, ``new_campaign``), ``ships`` (SDs, limits,
points costs, the starter catalogue), ``factions`` (wealth classes, break-contact tempers),
``scenario`` (CAM 2.1–2.3), ``breakcontact`` (CAM 3.0–3.1), ``scoring`` (CAM 3.1 victory scale,
CAM 4.3 CPs, standings), ``replacements`` (CAM 4.2) and ``autoresolve`` (the Event Horizon odds
system on CAM points). Rulings: ``docs/rulings.md`` "CAM campaign layer".
"""
