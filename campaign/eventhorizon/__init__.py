"""The Event Horizon campaign layer's Django side: rows <-> engine state (``adapters``), fog of
war (``visibility``), turn snapshots for the roll-back (``snapshots``), export and import
(``exchange``), orders as text (``order_text``), the map (``mapsvg``), reports and the empire chart
(``reports``, ``charts``), its pages (``views/``), its API (``api/``), its URLconfs and its
``CAMPAIGN_LAYERS`` record (``layer.py``).

A Python package, not a Django app: Event Horizon's models (empires, worlds, fleets, designs, the
map, turns and orders) stay in the platform app's ``campaign/models.py`` (docs/architecture.md).
The platform reaches this package only through its layer record, which ``campaign/apps.py``
registers."""
