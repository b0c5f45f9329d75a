"""Pairing, roles and CSRF: a tablet shows a code, staff bind it, the cookie token writes
only with the CSRF header, revoking makes it read-only again."""

from __future__ import annotations

import re

from .conftest import ADMIN_PASSWORD, STAFF


def staff_browser(app):
    staff = app.test_client()
    assert staff.post("/admin/login", data={"password": "wrong"}).status_code == 401
    assert staff.post("/admin/login", data={"password": ADMIN_PASSWORD}).status_code == 302
    page = staff.get("/admin").get_data(as_text=True)
    csrf = re.search(r'name="csrf-token" content="([0-9a-f]+)"', page).group(1)
    return staff, csrf


def test_pairing_flow_and_csrf(app, mt_table):
    tablet = app.test_client()
    assert 'content="no"' in tablet.get(f"/t/{mt_table.id}").get_data(as_text=True)
    assert tablet.get("/api/pairing").status_code == 404
    code = tablet.post("/api/pairing").get_json()["code"]
    assert re.fullmatch(r"[A-Z0-9]{6}", code)
    assert tablet.get("/api/pairing").get_json() == {"paired": False, "code": code}

    staff, csrf = staff_browser(app)
    body = {"code": code.lower(), "table_id": mt_table.id}
    assert staff.post("/admin/api/pair", json=body).status_code == 403  # no CSRF header
    assert staff.post("/admin/api/pair", json=body,
                      headers={"X-CSRF-Token": "0" * 64}).status_code == 403
    assert tablet.post("/admin/api/pair", json=body).status_code == 401  # not staff
    assert staff.post("/admin/api/pair", json={"code": "ZZZZZZ", "table_id": mt_table.id},
                      headers={"X-CSRF-Token": csrf}).status_code == 404
    assert staff.post("/admin/api/pair", json={"code": code, "table_id": 99},
                      headers={"X-CSRF-Token": csrf}).status_code == 404
    response = staff.post("/admin/api/pair", json=body, headers={"X-CSRF-Token": csrf})
    assert response.status_code == 200, response.get_json()
    assert staff.post("/admin/api/pair", json=body,
                      headers={"X-CSRF-Token": csrf}).status_code == 409

    answer = tablet.get("/api/pairing")
    assert answer.get_json() == {"paired": True, "table_id": mt_table.id}
    cookie = answer.headers.getlist("Set-Cookie")
    assert any("dtc_device=" in c and "HttpOnly" in c and "SameSite=Strict" in c for c in cookie)
    assert tablet.get("/").headers["Location"].endswith(f"/t/{mt_table.id}")
    page = tablet.get(f"/t/{mt_table.id}").get_data(as_text=True)
    assert 'name="can-write" content="yes"' in page

    path = f"/api/tables/{mt_table.id}/moves"
    refused = tablet.post(path, json={"move": "12-5>p1"})
    assert refused.status_code == 403 and refused.get_json()["error"] == "csrf"
    token = tablet.get("/api/whoami").get_json()["csrf"]
    assert tablet.post(path, json={"move": "12-5>p1"},
                       headers={"X-CSRF-Token": token}).status_code == 200
    # another table is not this tablet's
    other = app.test_client().post("/api/tables", json={"name": "T2"}, headers=STAFF)
    assert tablet.post(f"/api/tables/{other.get_json()['id']}/moves", json={"move": "draw"},
                       headers={"X-CSRF-Token": token}).status_code == 403
    # staff in the browser may write to any table (with CSRF)
    assert staff.post(path, json={"move": "12-4>p2"},
                      headers={"X-CSRF-Token": csrf}).status_code == 200

    device = next(d for d in staff.get("/admin/api/tables").get_json()["devices"]
                  if d["label"] == "tablet")
    assert staff.post(f"/admin/api/devices/{device['id']}/revoke",
                      headers={"X-CSRF-Token": csrf}).status_code == 200
    assert tablet.post(path, json={"move": "draw"},
                       headers={"X-CSRF-Token": token}).status_code == 401


def test_admin_page_lists_tables(app, mt_table):
    anonymous = app.test_client()
    assert "Staff sign-in" in anonymous.get("/admin").get_data(as_text=True)
    assert anonymous.get("/admin/api/tables").status_code == 401
    staff, _csrf = staff_browser(app)
    page = staff.get("/admin").get_data(as_text=True)
    assert "Table 1" in page and "Mexican Train" in page and "Ann, Ben, Cat, Dan" in page
    assert staff.post("/admin/logout").status_code == 302
    assert staff.get("/admin/api/tables").status_code == 401


def test_index_lists_tables_for_spectators(app, mt_table):
    page = app.test_client().get("/").get_data(as_text=True)
    assert f'href="/t/{mt_table.id}"' in page and "pair-code" in page


def test_login_is_rate_limited(app):
    client = app.test_client()
    statuses = [client.post("/admin/login", data={"password": "nope"}).status_code
                for _ in range(12)]
    assert statuses[0] == 401 and statuses[-1] == 429
