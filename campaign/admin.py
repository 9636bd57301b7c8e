"""The Django admin: site staff can edit any campaign's state here. Every change to a campaign's
state (campaign, empires, map, worlds, structures, designs, fleets, ships, builds, turns and their
orders, memberships) goes through ``actions.admin_edit``, which records it in the campaign's
audit log with the row before and after; the moderation pages show that log (players see it
once the campaign has ended). The dice log and the audit log themselves are read-only."""

from django.contrib import admin

from campaign.models import AuditEntry, Campaign, DiceRoll, Empire, Invitation, Membership, Turn, TurnOrders

from . import actions


class AuditedAdmin(admin.ModelAdmin):
    """Saves and deletions (one row, a bulk "delete selected", inline rows) are made by
    ``actions.admin_edit`` and land in the audit log (who, when, before, after)."""

    def save_model(self, request, obj, form, change):
        actions.admin_edit(
            user=request.user,
            instance=obj,
            save=lambda: super(AuditedAdmin, self).save_model(request, obj, form, change),
        )

    def delete_model(self, request, obj):
        actions.admin_edit(user=request.user, instance=obj, delete=True)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            actions.admin_edit(user=request.user, instance=obj, delete=True)

    def save_formset(self, request, form, formset, change):
        instances = formset.save(commit=False)
        for obj in formset.deleted_objects:
            actions.admin_edit(user=request.user, instance=obj, delete=True)
        for obj in instances:
            actions.admin_edit(user=request.user, instance=obj)
        formset.save_m2m()


class EmpireInline(admin.TabularInline):
    model = Empire
    extra = 0
    fields = ["seat", "name", "colour", "user", "is_bot", "auto_bot", "missed_turns", "bp", "technologies"]


@admin.register(Campaign)
class CampaignAdmin(AuditedAdmin):
    list_display = ["id", "name", "grid", "width", "height", "status", "turn", "paused", "created_at"]
    list_filter = ["status", "grid", "paused"]
    search_fields = ["name"]
    readonly_fields = ["layer", "seed_hash", "dice_offset", "paused_remaining", "created_at"]
    inlines = [EmpireInline]

    def has_add_permission(self, request):
        # A campaign needs its map and seed rolled: create it in the lobby or with newcampaign.
        return False


@admin.register(Empire)
class EmpireAdmin(AuditedAdmin):
    list_display = ["name", "campaign", "seat", "user", "bp", "is_bot", "auto_bot", "missed_turns"]
    list_filter = ["campaign"]
    search_fields = ["name"]


@admin.register(Membership)
class MembershipAdmin(AuditedAdmin):
    list_display = ["campaign", "user", "role", "empire", "joined_at"]
    list_filter = ["role"]
    list_select_related = ["campaign", "user", "empire"]


@admin.register(Invitation)
class InvitationAdmin(AuditedAdmin):
    """Email invitations: who was invited, by whom, and whether they came. They are sent from the
    campaign's lobby page (which emails the link); here they can be read or revoked (deleted)."""

    list_display = ["email", "campaign", "invited_by", "created_at", "accepted_by", "accepted_at"]
    list_filter = ["campaign"]
    search_fields = ["email"]
    list_select_related = ["campaign", "invited_by", "accepted_by"]
    exclude = ["token"]  # the link's secret is not shown (nor kept in the audit log)
    readonly_fields = ["campaign", "email", "invited_by", "accepted_by", "created_at", "accepted_at"]

    def has_add_permission(self, request):
        return False  # an invitation is an email: send it from the lobby


class TurnOrdersInline(admin.TabularInline):
    model = TurnOrders
    extra = 0
    fields = ["empire", "ready", "revision", "orders"]


@admin.register(Turn)
class TurnAdmin(AuditedAdmin):
    list_display = ["campaign", "number", "status", "deadline", "processed_at"]
    list_filter = ["status"]
    list_select_related = ["campaign"]
    inlines = [TurnOrdersInline]


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(DiceRoll)
class DiceRollAdmin(ReadOnlyAdmin):
    """Read-only: the dice log is append-only (docs/dice.md); only a turn roll-back truncates it."""

    list_display = ["campaign", "seq", "turn", "phase", "purpose", "expression", "total", "concerns"]
    list_filter = ["phase"]
    list_select_related = ["campaign"]


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    """Read-only: the audit log records changes; nobody edits it."""

    list_display = ["campaign", "at", "user", "action", "target"]
    list_filter = ["action"]
    list_select_related = ["campaign", "user"]
