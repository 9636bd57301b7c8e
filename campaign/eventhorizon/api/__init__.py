"""Event Horizon's REST API: the campaign, map, reports, orders workflow (``campaigns``) and
orders as text (``textorders``)."""
