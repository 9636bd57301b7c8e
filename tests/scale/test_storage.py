"""Issue 33 item 4: no index duplicates a unique constraint that starts with the same column (the
dice log's campaign_id, the map cells' campaign_id)."""

import pytest
from django.db import connection


@pytest.mark.parametrize("table, unique", [("campaign_diceroll", ["campaign_id", "seq"]),
                                           ("campaign_mapcell", ["campaign_id", "y", "x"])])
def test_no_index_on_campaign_id_alone_beside_the_unique_that_covers_it(db, table, unique):
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    assert any(c["unique"] and c["columns"] == unique for c in constraints.values())
    alone = [name for name, c in constraints.items() if c["index"] and c["columns"] == ["campaign_id"]]
    assert alone == []
