"""Event Horizon's pages: the campaign, map, reports and chart (``campaigns``), the order page
and ship design (``orders``), orders as text (``textorders``)."""
