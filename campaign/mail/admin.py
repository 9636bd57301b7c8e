from django.contrib import admin

from .models import InboundMessage


@admin.register(InboundMessage)
class InboundMessageAdmin(admin.ModelAdmin):
    """Read-only: the store is what came in; it is changed by processing only."""

    list_display = ("received_at", "sender", "subject", "via", "status", "route", "reply_kind")
    list_filter = ("status", "via", "route")
    search_fields = ("message_id", "sender", "subject")
    exclude = ("raw",)
    readonly_fields = [f.name for f in InboundMessage._meta.fields if f.name != "raw"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
