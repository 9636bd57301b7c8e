"""Each campaign layer's door to the tactical engines, one package per layer it serves
(docs/architecture.md): ``eventhorizon/`` (an Event Horizon turn's battles handed off and their
results taken back), ``cam/`` (CAM scenarios fought online on the Buoyz engine) and ``pickup/``
(pickup battles, whose host layer is the site's own ``"pickup"``). What every battle shares stays
in ``tactical/battles/`` and ``tactical/play/``."""
