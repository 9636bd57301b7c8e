"""The what-if pages of any rule book (issue 27 item 5): ``what-if/new/<book>/`` buys two forces
from the book's pickup fleet book — or as many as its pickup battles take (``?sides=n``, 2 to the
fleet book's ``max_sides``) —, and the run page shows the battles' progress and each side's win
rate. A book gets them by registering a ``Trial`` and a ``FleetBook`` (``tactical/whatif/books.py``).

Thin: the form's fields become a request, ``books.start_book_what_if`` checks and queues it (a
refusal comes back on the page as a form error, 400; an unknown book is 404).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from tactical.models import WhatIfRun
from tactical.whatif import books, runs

ROWS = 4  # ship rows per force on the page (the fleet book's ship limit still applies)


class BookWhatIfForm(forms.Form):
    """``sides`` forces (two unless the page asked for more), each rows of (ship, count) from the
    fleet book's offers; the points total each must keep within, the number of battles and a seed.
    ``sides`` as the request sent it: a count the book does not take is the form's error (the page
    then shows two forces)."""

    trials = forms.IntegerField(min_value=runs.MIN_TRIALS, max_value=runs.MAX_TRIALS, initial=runs.DEFAULT_TRIALS,
                                label="Battles to simulate (K)", help_text=f"{runs.MIN_TRIALS} to {runs.MAX_TRIALS}.")
    seed = forms.CharField(required=False, max_length=runs.MAX_SEED_LENGTH, label="Seed (optional)",
                           help_text="Leave empty for a fresh random seed. The same seed and forces give the "
                                     "same results.")

    def __init__(self, *args, fleets, offers, sides=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fleets = fleets
        self.sides_error = ""
        try:
            self.sides = books.MIN_SIDES if sides in (None, "") else books.check_sides(fleets, sides)
        except runs.WhatIfError as exc:
            self.sides, self.sides_error = books.MIN_SIDES, str(exc)
        self.fields["points"] = forms.IntegerField(
            min_value=fleets.min_points,
            max_value=fleets.max_points,
            initial=fleets.default_points,
            label=f"Points total of each force ({fleets.unit})",
            help_text=f"{fleets.min_points} to {fleets.max_points} {fleets.unit}; at most "
                      f"{fleets.max_ships} ships a side.",
        )
        choices = [("", "—")] + [(o.key, f"{o.name} ({o.points} {fleets.unit}){' — yours' if o.own else ''}"
                                          f"{': ' + o.detail if o.detail else ''}") for o in offers]
        self.rows: dict[int, list[tuple[str, str]]] = {}
        for seat in range(1, self.sides + 1):
            self.rows[seat] = []
            for row in range(1, ROWS + 1):
                ship, count = f"s{seat}_ship_{row}", f"s{seat}_count_{row}"
                self.fields[ship] = forms.ChoiceField(choices=choices, required=False,
                                                      label=f"{books.label(seat)}, ship {row}")
                self.fields[count] = forms.IntegerField(
                    required=False, min_value=1, max_value=fleets.max_ships, label="count",
                    widget=forms.NumberInput(attrs={"style": "width:4.5em"}))
                self.rows[seat].append((ship, count))

    def clean(self):
        if self.sides_error:
            raise forms.ValidationError(self.sides_error)
        return super().clean()

    def forces(self) -> list[dict[str, Any]]:
        """For the template: per force, its label and its (ship, count) bound fields."""
        return [{"seat": seat, "label": books.label(seat), "rows": [(self[s], self[c]) for s, c in rows]}
                for seat, rows in self.rows.items()]

    def request_params(self) -> dict[str, Any]:
        """The cleaned form as a request (``books.build_params``)."""
        data = self.cleaned_data
        forces: dict[str, list[str]] = {}
        for seat, rows in self.rows.items():
            keys: list[str] = []
            for ship, count in rows:
                if data.get(ship):
                    keys += [data[ship]] * (data.get(count) or 1)
                elif data.get(count):
                    self.add_error(ship, "a count needs a ship")
            forces[str(seat)] = keys
        return {"points": data["points"], "trials": data["trials"], "seed": data.get("seed") or None,
                "forces": forces}


@login_required
def whatif_book_new(request, book: str):
    own = next((b for b in books.offered() if b["name"] == book and not b["generic"]), None)
    if own is not None:  # a book with its own form (Event Horizon, the CAM what-if): there
        return redirect(own["url"])
    try:
        record, fleets = books.generic_book(book)
    except runs.WhatIfError as exc:
        return render(request, "tactical/whatif_book_new.html", {"error": str(exc), "offered": books.offered()},
                      status=runs.http_status(exc))
    offers = fleets.offers(request.user)
    if request.method == "POST":
        form = BookWhatIfForm(request.POST, fleets=fleets, offers=offers, sides=request.POST.get("sides"))
        if form.is_valid():
            params = form.request_params()
            if not form.errors:
                try:
                    run = books.start_book_what_if(user=request.user, book=book, params=params)
                except runs.WhatIfError as exc:  # the limits too (WhatIfLimitError)
                    form.add_error(None, str(exc))
                else:
                    return redirect("whatif-detail", run_id=run.pk)
    else:
        form = BookWhatIfForm(fleets=fleets, offers=offers, sides=request.GET.get("sides"))
    at_once, per_day = runs.limits()
    return render(request, "tactical/whatif_book_new.html",
                  {"book": record, "title": record.trial.title or record.title, "fleets": fleets, "form": form,
                   "side_counts": books.side_counts(fleets), "runs_at_once": at_once,
                   "battles_per_day": per_day,
                   "offered": books.offered()},
                  status=400 if form.errors or form.sides_error else 200)


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def detail_page(request, run: WhatIfRun):
    """The page of a run of any book (the default ``Trial.page``; ``views.whatif_detail`` found the
    run the user may see)."""
    context: dict[str, Any] = {
        "run": run, "title": books.title_of(run.params), "forces": books.forces_of(run),
        "finished": run.status in (WhatIfRun.Status.DONE, WhatIfRun.Status.FAILED),
        "stale_seconds": runs.STALE_SECONDS, "new_url": _new_url(run.params),
    }
    if run.status == WhatIfRun.Status.DONE and run.result:
        context["rates"] = [{**r, "rate": _pct(r["rate"]), "interval": f"{_pct(r['low'])} – {_pct(r['high'])}"}
                            for r in books.win_rates(run.result)]
        context["result"] = run.result
    return render(request, "tactical/whatif_book_detail.html", context)


def _new_url(params: dict[str, Any]) -> str:
    name = params.get("book")
    return next((b["url"] for b in books.offered() if b["name"] == name), "")
