"""Fast bulk insert of plain rows, for the few tables that get tens of thousands at once (map
cells and worlds when a map is made or imported).

``bulk_create`` builds a model instance and prepares every value of every row, which dominates
the cost of storing a 200×200 map; here rows are tuples of ready database values. On PostgreSQL
they go in through ``COPY``; elsewhere through one ``executemany``. Only for fields whose Python
value is already the database value (integers, text, booleans, foreign key ids; JSON as its
text).
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


def update_rows(model, fields: Sequence[str], rows: Sequence[tuple], *, batch: int = 2000) -> None:
    """Update many rows by primary key: each row is ``(pk, value, …)`` for ``fields``.

    One ``UPDATE … FROM (VALUES …)`` per batch instead of ``bulk_update``'s CASE expressions,
    whose SQL grows with rows × fields. Same value rules as ``insert_rows``.
    """
    if not rows:
        return
    meta = model._meta
    connection = connections[router.db_for_write(model)]
    qn = connection.ops.quote_name
    table = qn(meta.db_table)
    pk_col = qn(meta.pk.column)
    model_fields = [meta.get_field(name) for name in fields]
    names = ", ".join(["_pk", *(f"_v{i}" for i in range(len(fields)))])
    postgres = connection.vendor == "postgresql"

    def value(i: int, field) -> str:
        # VALUES lists type strings as text; PostgreSQL will not assign text to jsonb unasked.
        if postgres and field.get_internal_type() == "JSONField":
            return f"CAST(_v._v{i} AS jsonb)"
        return f"_v._v{i}"

    sets = ", ".join(f"{qn(field.column)} = {value(i, field)}" for i, field in enumerate(model_fields))
    width = len(fields) + 1
    with connection.cursor() as cursor:
        for start in range(0, len(rows), batch):
            chunk = rows[start : start + batch]
            values = ", ".join(["(" + ", ".join(["%s"] * width) + ")"] * len(chunk))
            params = [value for row in chunk for value in row]
            # A CTE names the VALUES columns the same way on PostgreSQL and SQLite (≥ 3.33).
            cursor.execute(
                f"WITH _v({names}) AS (VALUES {values}) "
                f"UPDATE {table} SET {sets} FROM _v WHERE {table}.{pk_col} = _v._pk",
                params,
            )
