from django.apps import AppConfig


class GroupsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "campaign.groups"
    label = "groups"
    verbose_name = "Groups (away dates, deadline calendars, webhooks)"
