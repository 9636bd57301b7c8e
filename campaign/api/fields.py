"""Serializer fields shared by the APIs."""

from rest_framework import serializers


class StrictBooleanField(serializers.BooleanField):
    """true or false, nothing else: DRF's BooleanField also takes 0, 1, "1", "yes", "on"… so a
    typo or a number switched an option (issue 24 item 15). A form post's "true"/"false" text is
    still read (the API takes form data too)."""

    default_error_messages = {"invalid": "Must be true or false, not {input!r}."}

    def to_internal_value(self, data):
        if isinstance(data, bool):
            return data
        if data in ("true", "false"):
            return data == "true"
        self.fail("invalid", input=data)
