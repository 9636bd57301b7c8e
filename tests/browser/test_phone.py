"""The site on a phone (issue 13 item 23): at 390×844 the navigation folds behind "Menu",
nothing scrolls sideways, the orders page works and the map fits the screen with pinch-zoom and
pan. Screenshots: tests/artifacts/test_phone_*.png."""

from django.urls import reverse

from .conftest import sideways_overflow


def test_phone_navigation_folds_behind_menu(phone, page, login, shot, small_campaign):
    login(phone, "bob", "pw-bob")
    lobby = phone.locator("header nav").get_by_text("Lobby")
    assert not lobby.is_visible()
    phone.locator("header").get_by_text("Menu").click()
    assert lobby.is_visible()
    shot(phone, "menu-open", full_page=False)
    lobby.click()
    phone.wait_for_url("**/lobby/")

    # On a desktop the links are simply there, and there is no Menu button.
    login(page, "carol", "pw-carol")
    assert page.locator("header nav").get_by_text("Lobby").is_visible()
    assert not page.locator("header").get_by_text("Menu").is_visible()


def test_phone_pages_do_not_scroll_sideways(phone, login, shot, small_campaign):
    login(phone, "bob", "pw-bob")
    pk = small_campaign.pk
    for name, url in [
        ("home", reverse("home")),
        ("campaign", reverse("campaign-detail", args=[pk])),
        ("orders", reverse("campaign-orders", args=[pk])),
        ("map", reverse("campaign-map", args=[pk])),
        ("dice", reverse("campaign-dice", args=[pk])),
        ("battles", reverse("battle-list", args=[pk])),
        ("lobby", reverse("lobby-list")),
        ("lobby-new", reverse("lobby-create")),
        ("what-if", reverse("whatif-new")),
        ("designs", reverse("design-library")),
        ("account", reverse("account")),
    ]:
        response = phone.goto(url)
        assert response.status == 200, (name, response.status)
        phone.wait_for_load_state("load")
        assert sideways_overflow(phone) == [], name
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390, name
        shot(phone, name, full_page=False)


def test_phone_orders_page_plots_a_move(phone, login, shot, small_campaign):
    """The orders page works by touch: tap a fleet in the list, tap a cell, save."""
    login(phone, "bob", "pw-bob")
    phone.goto(reverse("campaign-orders", args=[small_campaign.pk]))
    save = phone.locator("#save-button")
    save.scroll_into_view_if_needed()
    assert save.is_visible()
    box = save.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    save.tap()
    phone.locator("#save-status").filter(has_text="aved").wait_for()
    shot(phone, "orders-saved", full_page=False)


def test_phone_map_fits_the_screen_and_pinch_zooms(phone, login, shot, small_campaign):
    login(phone, "bob", "pw-bob")
    phone.goto(reverse("campaign-map", args=[small_campaign.pk]))
    svg = phone.locator("[data-map-loaded] svg.campaign-map")
    svg.wait_for(state="visible")
    frame = phone.locator("[data-map-viewport]").bounding_box()
    assert frame["width"] <= 390 and frame["height"] <= 844 * 0.75 + 1, frame
    # The frame takes the map's proportions: the map fills it rather than floating in it.
    drawn = svg.bounding_box()
    assert drawn["height"] >= frame["height"] - 2, (drawn, frame)
    shot(phone, "map", full_page=False)

    def view_width():
        return float(svg.get_attribute("viewBox").split()[2])

    before = view_width()
    # Two fingers spread apart: pointer events as a touch screen sends them.
    phone.evaluate("""(box) => {
      const viewport = document.querySelector('[data-map-viewport]');
      const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
      const send = (target, type, id, x) => target.dispatchEvent(new PointerEvent(type, {
        pointerId: id, pointerType: 'touch', clientX: x, clientY: cy, bubbles: true, isPrimary: id === 1}));
      send(viewport, 'pointerdown', 1, cx - 20);
      send(viewport, 'pointerdown', 2, cx + 20);
      for (let step = 1; step <= 5; step++) {
        send(window, 'pointermove', 1, cx - 20 - step * 16);
        send(window, 'pointermove', 2, cx + 20 + step * 16);
      }
      send(window, 'pointerup', 1, cx - 100);
      send(window, 'pointerup', 2, cx + 100);
    }""", frame)
    zoomed = view_width()
    assert zoomed < before / 3, (before, zoomed)  # fingers 40 px → 200 px apart: about 5× closer

    # One finger then pans the zoomed map.
    x_before = float(svg.get_attribute("viewBox").split()[0])
    phone.evaluate("""(box) => {
      const viewport = document.querySelector('[data-map-viewport]');
      const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
      const send = (target, type, x) => target.dispatchEvent(new PointerEvent(type, {
        pointerId: 7, pointerType: 'touch', clientX: x, clientY: cy, bubbles: true, isPrimary: true, button: 0}));
      send(viewport, 'pointerdown', cx);
      send(window, 'pointermove', cx - 40);
      send(window, 'pointermove', cx - 80);
      send(window, 'pointerup', cx - 80);
    }""", frame)
    assert float(svg.get_attribute("viewBox").split()[0]) > x_before
    shot(phone, "map-zoomed", full_page=False)
