"""The platform's REST API, one module per domain like ``campaign/actions/``: ``lobby``,
``moderation``, ``token`` (API tokens), and the API's base: ``authentication``; ``urls``."""
