"""The platform's pages, one module per domain like ``campaign/actions/``: ``home`` (the home
page, health check), ``accounts``, ``lobby``, ``moderation``, ``notifications``, ``dice`` (the dice
log of any layer), ``dashboard`` (the home page's rows) and ``bench`` (bench/http.py's views)."""
