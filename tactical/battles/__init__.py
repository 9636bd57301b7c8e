"""What every battle a campaign turn hands off shares: battle actions (``actions``: tabletop entry,
confirm, dispute, moderator settlement, deadlines), the handler the platform calls (``hooks``),
their forms, pages, API and URLs. Each layer's door to the engines is in ``tactical/hosts/``
(the Event Horizon turn's lifecycle in ``tactical/hosts/eventhorizon/lifecycle.py``)."""
