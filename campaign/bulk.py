"""Fast bulk insert of plain rows, for the few tables that get tens of thousands at once (map
cells and worlds when a map is made or imported).

``bulk_create`` builds a model instance and prepares every value of every row, which dominates
the cost of storing a 200×200 map; here rows are tuples of ready database values. On PostgreSQL
they go in through ``COPY``; elsewhere through one ``executemany``. Only for fields whose Python
value is already the database value (integers, text, booleans, foreign key ids).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connections, router


def insert_rows(model, fields: Sequence[str], rows: Iterable[tuple]) -> None:
    meta = model._meta
    using = router.db_for_write(model)
    connection = connections[using]
    qn = connection.ops.quote_name
    columns = ", ".join(qn(meta.get_field(name).column) for name in fields)
    table = qn(meta.db_table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            placeholders = ", ".join(["%s"] * len(fields))
            cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({placeholders})", list(rows))
