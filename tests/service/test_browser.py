"""The tablet page in Debian chromium (Playwright): pairing, live plays, a refusal with its
reason, corrections and the round-end flow. Screenshots go to test-output/."""

from __future__ import annotations

import os
import shutil

import pytest

from companion.bench import Api, ServerProcess
from companion.demo import DEMO_PLAYERS, simulated_round
from companion.games import get_rules

CHROMIUM = "/usr/bin/chromium"
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "test-output")

pytestmark = [pytest.mark.browser, pytest.mark.slow]
if not os.path.exists(CHROMIUM):
    pytestmark.append(pytest.mark.skip(reason="Debian chromium is not installed "
                                       "(apt-get install -y chromium)"))
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


@pytest.fixture
def server(tmp_path):
    process = ServerProcess(instance=str(tmp_path), threads=32).start()
    yield process
    process.stop()
    process.log.close()


@pytest.fixture
def page():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.set_default_timeout(10_000)
        yield page
        context.close()
        browser.close()


def shot(page, name: str) -> str:
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, f"tablet-{name}.png")
    page.screenshot(path=path)
    return path


def test_tablet_live_refusal_and_round_end(server, page, tmp_path):
    base = f"http://127.0.0.1:{server.port}"
    staff = Api(server.port)
    status, table = staff.request("POST", "/api/tables", {"name": "Table 7"})
    table_id = table["id"]
    status, made = staff.request("POST", f"/admin/api/tables/{table_id}/tokens",
                                 {"label": "camera"})
    camera = Api(server.port, made["token"])
    camera.post_until_answered(f"/api/tables/{table_id}/match",
                               {"game": "mexican-train", "players": DEMO_PLAYERS})

    # pairing: the unpaired tablet shows a code; staff enter it; the tablet goes to its table
    page.goto(base + "/")
    code = page.locator("#pair-code")
    sync_api.expect(code).to_have_text(sync_api_re(r"^[A-Z0-9]{6}$"))
    shot(page, "pairing")
    status, paired = staff.request("POST", "/admin/api/pair",
                                   {"code": code.inner_text(), "table_id": table_id})
    assert status == 200, paired
    page.wait_for_url(f"{base}/t/{table_id}")
    sync_api.expect(page.locator("#role")).to_have_text("Paired")
    sync_api.expect(page.locator("#turn")).to_contain_text("Ann's turn")

    # a play posted through the API (the camera) appears without a reload
    camera.post_until_answered(f"/api/tables/{table_id}/moves", {"move": "12-5>p1"})
    row = page.locator('tr[data-train="p1"]')
    sync_api.expect(row.locator(".end")).to_have_text("5")
    sync_api.expect(page.locator("#turn")).to_contain_text("Ben's turn")

    # a refused play shows its reason: from the API, and typed on the tablet
    status, _refused = camera.request("POST", f"/api/tables/{table_id}/moves",
                                     {"move": "6-4>p1", "source": "camera"})
    assert status == 422
    sync_api.expect(page.locator("#refusal")).to_contain_text("MT-8")
    page.fill("#move-input", "12-3>p3")
    page.click("#move-form button[type=submit]")
    sync_api.expect(page.locator("#refusal")).to_contain_text("has no marker")
    shot(page, "refusal")

    # undo from the tablet, then the round plays out (posted as the camera would)
    page.click("#undo")
    sync_api.expect(row.locator(".end")).to_have_text("12")
    options = get_rules("mexican-train").resolve_options(4, {})
    sim = simulated_round("mexican-train", 4, options, 0, seed=11)
    for move in sim.moves:
        camera.post_until_answered(f"/api/tables/{table_id}/moves", {"move": move})

    # round end: tap tiles for most players, a pip sum for one, check, confirm
    sync_api.expect(page.locator("#round-end")).to_be_visible()
    slots = list(sim.hands)
    by_sum = slots[0]
    pips = [sum(int(x) for x in tile.split("-")) for tile in sim.hands[by_sum]]
    page.fill(f'[data-pipsum="{by_sum}"]', "+".join(str(p) for p in pips))
    for slot in slots[1:]:
        for tile in sim.hands[slot]:
            page.click(f'[data-picker="{slot}"] [data-tile="{tile}"]')
    if photo_of(sim.hands[slots[0]], tmp_path / "hand.png"):
        page.set_input_files(f'[data-photo="{by_sum}"]', str(tmp_path / "hand.png"))
        view = page.locator(f'[data-photo-view="{by_sum}"]')
        sync_api.expect(view).to_contain_text("tiles seen")
        assert view.locator("svg image").count() == 1
        page.fill(f'[data-pipsum="{by_sum}"]', "+".join(str(p) for p in pips))
    shot(page, "round-end")
    page.click("#check-round")
    sync_api.expect(page.locator("#preview")).to_contain_text("Round score")
    page.click("#finish-round")
    sync_api.expect(page.locator("#round-end")).to_be_hidden()
    sync_api.expect(page.locator("#scores tbody tr")).to_have_count(1)
    sync_api.expect(page.locator("#chart svg polyline")).to_have_count(4)
    sync_api.expect(page.locator("#round-label")).to_contain_text("Round 2")

    # a few plays of round 2, then the picture for the README
    sim2 = simulated_round("mexican-train", 4, options, 1, seed=12)
    for move in sim2.moves[:14]:
        camera.post_until_answered(f"/api/tables/{table_id}/moves", {"move": move})
    camera.request("POST", f"/api/tables/{table_id}/moves", {"move": "0-0>p9"})
    sync_api.expect(page.locator("#refusal")).to_be_visible()
    path = shot(page, "match")
    if os.environ.get("UPDATE_DOCS_IMG"):
        shutil.copy(path, os.path.join(OUT, "..", "docs", "img", "tablet.png"))


def photo_of(tiles: list[str], path) -> bool:
    """A synthetic photo of a revealed hand, when the vision package can draw one."""
    from companion.photo import vision_available

    if not vision_available():
        return False
    import cv2

    import vision

    pairs = [tuple(int(x) for x in tile.split("-")) for tile in tiles]
    image, _truth = vision.render_table(vision.RenderSpec(tiles=pairs, set_size=12, seed=1))
    cv2.imwrite(str(path), image)
    return True


def sync_api_re(pattern: str):
    import re

    return re.compile(pattern)


def test_tablet_shows_texas_42_and_doubles_tables(server, page):
    base = f"http://127.0.0.1:{server.port}"
    staff = Api(server.port)
    players = ["Ann", "Ben", "Cat", "Dan"]
    status, table = staff.request("POST", "/api/tables", {"name": "Forty-two"})
    assert status == 201, table
    staff.post_until_answered(f"/api/tables/{table['id']}/match",
                              {"game": "texas-42", "players": players})
    for move in ("bid 30", "pass", "bid 31"):
        staff.post_until_answered(f"/api/tables/{table['id']}/moves", {"move": move})
    page.goto(f"{base}/t/{table['id']}")  # a spectator: read-only, but sees everything
    box = page.locator("#game-table")
    sync_api.expect(box).to_contain_text("Bids: Ben: 30 · Cat: pass · Dan: 31")
    sync_api.expect(box).to_contain_text("trumps: not named")
    shot(page, "texas-42")

    status, table = staff.request("POST", "/api/tables", {"name": "Doubles"})
    assert status == 201, table
    staff.post_until_answered(f"/api/tables/{table['id']}/match",
                              {"game": "doubles", "players": players,
                               "setup": {"starter": 1, "opening": "6-6"}})
    page.goto(f"{base}/t/{table['id']}")
    box = page.locator("#game-table")
    sync_api.expect(box).to_contain_text("Unlocked numbers: 6")
    staff.post_until_answered(f"/api/tables/{table['id']}/moves", {"move": "6-4>6-6"})
    sync_api.expect(box).to_contain_text("locked (needs its double)")  # live, no reload
    shot(page, "doubles")
