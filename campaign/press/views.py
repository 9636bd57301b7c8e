"""Press pages (thin: every look-up starts from what the user may read, outsiders get 404; each
change is one action from ``actions``).

    /press/                                   your campaigns' press, with unread counts
    /campaigns/{id}/press/                    the conversations, a compose form, the options
    /campaigns/{id}/press/{conversation}/     one conversation, newest last, and a reply form
    /campaigns/{id}/press/options/            POST (moderator): press on/off, moderator reads
"""

from __future__ import annotations

from django import forms
from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from ..actions.errors import ActionError, NotFound
from ..models import Campaign
from . import actions, visibility
from . import unread as unread_press
from .mail import conversation_title
from .models import MAX_TEXT

EVERYONE = "all"


class ComposeForm(forms.Form):
    to = forms.MultipleChoiceField(label="To", widget=forms.CheckboxSelectMultiple, required=True,
                                   error_messages={"required": "Choose who to write to."})
    text = forms.CharField(label="Message", max_length=MAX_TEXT, strip=True,
                           widget=forms.Textarea(attrs={"rows": 4}))

    def __init__(self, *args, reader: visibility.Reader, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["to"].choices = [(EVERYONE, "Everyone (every seat; observers and the moderator read it too)")] + [
            (str(s.number), s.label + (" — a computer player" if s.bot else ""))
            for s in reader.all_seats if s.number not in reader.seat_numbers]

    def clean_to(self):
        to = self.cleaned_data["to"]
        if EVERYONE in to:
            if len(to) > 1:
                raise forms.ValidationError("Choose either everyone or some seats, not both.")
            return EVERYONE
        return [int(s) for s in to]


class AnnounceForm(forms.Form):
    text = forms.CharField(label="Announcement", max_length=MAX_TEXT, strip=True,
                           widget=forms.Textarea(attrs={"rows": 3}))


class ReplyForm(forms.Form):
    text = forms.CharField(label="Reply", max_length=MAX_TEXT, strip=True, widget=forms.Textarea(attrs={"rows": 3}))


class OptionsForm(forms.Form):
    press = forms.BooleanField(required=False, label="Press on",
                               help_text="Players may write to each other (announcements work either way).")
    moderator_reads = forms.BooleanField(
        required=False, label="Moderators may read private press",
        help_text="Applies to private messages written while it is on; the players are told.")


def _reader(request, campaign_id: int) -> visibility.Reader:
    campaign = visibility.campaign_for(request.user, campaign_id)
    if campaign is None:
        raise Http404("no such campaign")
    return visibility.reader(campaign, request.user)


def _rows(reader: visibility.Reader) -> list[dict]:
    unread = visibility.unread_counts(reader)
    rows = []
    for c in visibility.conversations(reader).order_by("-last_message_at", "-id"):
        rows.append({"conversation": c, "unread": unread.get(c.pk, 0),
                     "title": conversation_title(c, reader.all_seats, viewer_seats=reader.seat_numbers)})
    return rows


def _context(reader: visibility.Reader, **extra) -> dict:
    campaign = reader.campaign
    return {"campaign": campaign, "reader": reader, "press_on": visibility.press_on(campaign),
            "moderator_reads": visibility.moderator_reads(campaign),
            "campaign_url": campaign_page(campaign), **extra}


def campaign_page(campaign: Campaign) -> str:
    from django.urls import reverse

    from ..layers import of

    return reverse(of(campaign).detail_url, args=[campaign.pk])


@login_required
@require_http_methods(["GET", "POST"])
def conversations(request, campaign_id: int):
    reader = _reader(request, campaign_id)
    compose = ComposeForm(reader=reader) if reader.can_write() else None
    announce = AnnounceForm() if reader.can_announce() else None
    if request.method == "POST":
        announcing = "announce" in request.POST
        form = (AnnounceForm(request.POST) if announcing and announce is not None
                else ComposeForm(request.POST, reader=reader) if compose is not None else None)
        if form is None:
            raise PermissionDenied("you do not write press in this campaign: players write, moderators announce")
        if form.is_valid():
            try:
                message = actions.post(campaign_id=reader.campaign.pk, user=request.user,
                                       to=None if announcing else form.cleaned_data["to"],
                                       text=form.cleaned_data["text"], announcement=announcing)
            except NotFound:
                raise Http404("no such campaign") from None
            except ActionError as exc:
                form.add_error(None, str(exc))
            else:
                flash.success(request, "Announcement posted." if announcing else "Message sent.")
                return redirect("press-conversation", campaign_id=reader.campaign.pk,
                                conversation_id=message.conversation.public_id)
        if announcing:
            announce = form
        else:
            compose = form
    options = OptionsForm(initial={"press": visibility.press_on(reader.campaign),
                                   "moderator_reads": visibility.moderator_reads(reader.campaign)})
    return render(request, "press/conversations.html", _context(
        reader, rows=_rows(reader), compose=compose, announce=announce,
        options=options if reader.is_moderator else None))


@login_required
@require_http_methods(["GET", "POST"])
def conversation(request, campaign_id: int, conversation_id: int):
    reader = _reader(request, campaign_id)
    found = visibility.conversations(reader).filter(public_id=conversation_id).first()
    if found is None:
        raise Http404("no such conversation")
    may_write = actions.may_write(reader, found)
    form = ReplyForm() if may_write else None
    if request.method == "POST":
        if not may_write:
            raise PermissionDenied("you do not write in this conversation")
        form = ReplyForm(request.POST)
        if form.is_valid():
            try:
                actions.reply(campaign_id=reader.campaign.pk, conversation_id=found.pk, user=request.user,
                              text=form.cleaned_data["text"])
            except NotFound:
                raise Http404("no such conversation") from None
            except ActionError as exc:
                form.add_error(None, str(exc))
            else:
                return redirect("press-conversation", campaign_id=reader.campaign.pk, conversation_id=found.public_id)
    shown = list(visibility.messages(reader, found))
    if shown:
        actions.mark_read(campaign_id=reader.campaign.pk, conversation_id=found.pk, user=request.user,
                          up_to=max(m.number for m in shown))
    return render(request, "press/conversation.html", _context(
        reader, conversation=found, shown=shown, form=form,
        title=conversation_title(found, reader.all_seats, viewer_seats=reader.seat_numbers)))


@login_required
@require_POST
def options(request, campaign_id: int):
    reader = _reader(request, campaign_id)
    if not reader.is_moderator:
        raise PermissionDenied("only the campaign's moderators change the press options")
    form = OptionsForm(request.POST)
    if form.is_valid():
        try:
            actions.set_press_options(campaign_id=reader.campaign.pk, user=request.user, **form.cleaned_data)
        except ActionError as exc:
            flash.error(request, str(exc))
        else:
            flash.success(request, "Press options saved.")
    return redirect("press", campaign_id=reader.campaign.pk)


INDEX_PAGE = 25  # campaigns on a page of the press index


@login_required
def index(request):
    # The campaigns the user takes part in and their unread press, in a fixed number of queries
    # whatever their number (issue 33; campaign/press/unread.py).
    # A page of INDEX_PAGE campaigns at a time (?page=N), their unread press counted for the page.
    page = Paginator(visibility.press_campaigns(request.user).order_by("-created_at", "-id"), INDEX_PAGE).get_page(
        request.GET.get("page"))
    campaigns = list(page.object_list)
    counts = (unread_press.by_campaign(request.user) if not page.has_other_pages()
              else unread_press.by_campaign(request.user, [c.pk for c in campaigns]))
    rows = [{"campaign": campaign, "unread": counts.get(campaign.pk, 0)} for campaign in campaigns]
    return render(request, "press/index.html", {"rows": rows, "page": page})
