"""The JSON API through the Flask test client: every refusal path and bad input."""

from __future__ import annotations

import pytest

from companion.demo import simulated_round

from .conftest import STAFF, new_table


def error_of(response, status):
    body = response.get_json()
    assert response.status_code == status, body
    assert set(body) >= {"error", "message"} and body["message"], body
    return body


# -- tables, auth, bad bodies ------------------------------------------------------------
def test_create_table_needs_staff(client):
    error_of(client.post("/api/tables", json={"name": "T"}), 401)
    bad = {"Authorization": "Basic " + "c3RhZmY6d3Jvbmc="}  # staff:wrong
    error_of(client.post("/api/tables", json={"name": "T"}, headers=bad), 401)
    assert client.post("/api/tables", json={"name": "T"}, headers=STAFF).status_code == 201


@pytest.mark.parametrize("body", [{"name": ""}, {"name": 5}, {"name": "x" * 61}, {}])
def test_create_table_bad_name(client, body):
    error_of(client.post("/api/tables", json=body, headers=STAFF), 422)


def test_bad_bodies(table):
    error_of(table.post("/moves", data="not json", headers={"Content-Type": "application/json"}),
             400)
    error_of(table.post("/moves", data="move=6-4", headers={"Content-Type": "text/plain"}), 415)
    error_of(table.post("/moves", json=["6-4"]), 400)
    body = error_of(table.post("/moves", json={"move": "x" * 70_000}), 413)
    assert "limit" in body["message"]


def test_unknown_table_and_route(client, table):
    error_of(client.get("/api/tables/999"), 404)
    error_of(client.post("/api/tables/999/moves", json={"move": "draw"}, headers=STAFF), 404)
    error_of(client.get("/api/nothing-here"), 404)
    error_of(client.delete(f"/api/tables/{table.id}"), 405)


def test_spectator_and_wrong_device_are_refused(client, mt_table):
    error_of(client.post(f"/api/tables/{mt_table.id}/moves", json={"move": "draw"}), 401)
    other = new_table(client, "Table 2")
    response = client.post(f"/api/tables/{mt_table.id}/moves", json={"move": "draw"},
                           headers=other.headers)
    assert error_of(response, 403)["error"] == "forbidden"
    bogus = {"Authorization": "Bearer not-a-token"}
    error_of(client.post(f"/api/tables/{mt_table.id}/moves", json={"move": "draw"},
                         headers=bogus), 401)


def test_revoked_device_is_read_only(client, mt_table):
    devices = client.get("/admin/api/tables", headers=STAFF).get_json()["devices"]
    client.post(f"/admin/api/devices/{devices[0]['id']}/revoke", headers=STAFF)
    error_of(mt_table.move("draw"), 401)
    error_of(client.post(f"/admin/api/devices/{devices[0]['id']}/revoke", headers=STAFF), 404)


# -- seating and starting -----------------------------------------------------------------
@pytest.mark.parametrize("players", [None, [], "Ann", ["Ann", ""], ["x" * 41], [1, 2],
                                     [f"P{i}" for i in range(13)]])
def test_seat_bad_players(table, players):
    error_of(table.post("/players", json={"players": players}), 422)


def test_start_refusals(table):
    assert error_of(table.post("/match", json={"game": "mexican-train"}), 422)["error"] == \
        "no_players"
    assert table.post("/players", json={"players": ["Ann", "Ben"]}).status_code == 200
    assert error_of(table.post("/match", json={"game": "snakes"}), 422)["error"] == \
        "unknown_game"
    error_of(table.post("/match", json={"game": 12}), 422)
    body = error_of(table.post("/match", json={"game": "mt", "options": {"double_blank": 7}}),
                    422)
    assert body["error"] == "invalid_options" and "double_blank" in body["message"]
    error_of(table.post("/match", json={"game": "mt", "options": {"nope": 1}}), 422)
    error_of(table.post("/match", json={"game": "mt", "options": [1]}), 422)
    error_of(table.post("/match", json={"game": "mt", "starter": "p9"}), 422)
    response = table.post("/match", json={"game": "mt", "options": {"double_blank": 0}})
    assert response.status_code == 200
    state = response.get_json()["state"]
    assert state["match"]["game"] == "mexican-train" and state["match"]["options"][
        "double_blank"] == 0
    assert error_of(table.post("/match", json={"game": "mt"}), 422)["error"] == \
        "match_in_progress"
    assert error_of(table.post("/players", json={"players": ["A", "B"]}), 422)["error"] == \
        "match_in_progress"


def test_move_without_match(table):
    assert error_of(table.move("draw"), 422)["error"] == "no_match"


# -- moves and refusals -------------------------------------------------------------------
def test_play_and_state(mt_table):
    response = mt_table.move("12-5>p1", player="p1")
    body = response.get_json()
    assert response.status_code == 200, body
    assert body["event"]["kind"] == "move" and body["event"]["payload"]["move"] == "12-5>p1"
    round_view = body["state"]["round"]
    train = next(t for t in round_view["trains"] if t["name"] == "p1")
    assert train["open_end"] == 5 and train["count"] == 1
    assert round_view["current"] == 1


@pytest.mark.parametrize("move, error", [("", "invalid_move"), ("6-4>", "invalid_move"),
                                         ("hello world", "invalid_move"),
                                         ("19-4>p1", "invalid_move")])
def test_unreadable_moves(mt_table, move, error):
    assert error_of(mt_table.move(move), 422)["error"] == error


def test_move_not_text(mt_table):
    error_of(mt_table.post("/moves", json={"move": 64}), 422)
    error_of(mt_table.post("/moves", json={}), 422)


def test_illegal_moves_name_their_rule(mt_table):
    body = error_of(mt_table.move("6-4>p1"), 422)
    assert body["error"] == "illegal_move" and body["rule"] == "MT-8"
    assert "6-4" in body["message"] and body["sentence"]
    assert error_of(mt_table.move("12-5>p2"), 422)["rule"] == "MT-8"  # not p1's, no marker
    assert error_of(mt_table.move("12-12>p1"), 422)["rule"] == "MT-1"  # the engine is out
    assert error_of(mt_table.move("12-5>p9"), 422)["rule"] == "MT-2"
    last = mt_table.state()["last_refusal"]
    assert last["rule"] == "MT-2" and last["move"] == "12-5>p9"


def test_wrong_player_is_refused_with_the_turn_rule(mt_table):
    body = error_of(mt_table.move("12-5>p2", player="p2"), 422)
    assert body["rule"] == "MT-7" and "Ann" in body["message"]
    error_of(mt_table.move("12-5>p1", player="p7"), 422)
    error_of(mt_table.move("12-5>p1", player="bob"), 422)
    assert mt_table.move("12-5>p1", seat=0).status_code == 200


def test_ambiguous_move_lists_candidates(mt_table):
    body = error_of(mt_table.move("12-5"), 422)
    assert body["error"] == "ambiguous_move"
    assert set(body["candidates"]) == {"12-5>p1", "12-5>mx"}


def test_tile_cannot_exist_twice(mt_table):
    assert mt_table.move("12-5>p1").status_code == 200
    assert error_of(mt_table.move("12-5>mx"), 422)["rule"] == "MT-1"


def test_source_and_key_validation(mt_table):
    error_of(mt_table.post("/moves", json={"move": "draw", "source": "phone"}), 422)
    error_of(mt_table.post("/moves", json={"move": "draw", "key": ""}), 422)
    error_of(mt_table.post("/moves", json={"move": "draw", "key": 5}), 422)
    error_of(mt_table.post("/moves", json={"move": "draw", "expected_seq": "1"}), 422)
    response = mt_table.post("/moves", json={"move": "draw", "source": "camera"})
    assert response.get_json()["event"]["source"] == "camera"


# -- sequencing: expected_seq and idempotency ---------------------------------------------
def test_stale_expected_seq_is_409(mt_table):
    seq = mt_table.state()["seq"]
    assert mt_table.post("/moves", json={"move": "12-5>p1", "expected_seq": seq}).status_code \
        == 200
    body = error_of(mt_table.post("/moves", json={"move": "draw", "expected_seq": seq}), 409)
    assert body["error"] == "stale" and body["seq"] == seq + 1


def test_idempotency_key_returns_first_answer(mt_table):
    first = mt_table.post("/moves", json={"move": "12-5>p1"}, headers={"Idempotency-Key": "k1"})
    again = mt_table.post("/moves", json={"move": "12-5>p1"}, headers={"Idempotency-Key": "k1"})
    assert first.status_code == again.status_code == 200
    assert again.get_json()["replayed"] is True
    assert again.get_json()["event"] == first.get_json()["event"]
    assert mt_table.state()["seq"] == first.get_json()["seq"]
    body = error_of(mt_table.post("/moves", json={"move": "draw"},
                                  headers={"Idempotency-Key": "k1"}), 422)
    assert body["error"] == "idempotency_key_reused"
    # a retried stale request with its key still gets its first answer
    retry = mt_table.post("/moves", json={"move": "12-5>p1", "key": "k1", "expected_seq": 0})
    assert retry.status_code == 200 and retry.get_json()["replayed"]


# -- undo and corrections ----------------------------------------------------------------
def test_undo_is_a_new_event(mt_table):
    assert error_of(mt_table.post("/undo"), 422)["rule"] == "UNDO"
    before = mt_table.state()
    mt_table.move("12-5>p1")
    response = mt_table.post("/undo")
    assert response.status_code == 200
    after = response.get_json()["state"]
    assert after["seq"] == before["seq"] + 2
    assert after["round"]["trains"] == before["round"]["trains"]
    kinds = [e["kind"] for e in mt_table.client.get(
        f"/api/tables/{mt_table.id}/events?since={before['seq']}").get_json()["events"]]
    assert kinds == ["move", "undo"]


def test_fix_a_misread_tile(mt_table):
    seq = mt_table.move("12-5>p1").get_json()["seq"]
    mt_table.move("12-4>p2")
    assert error_of(mt_table.post("/fix", json={"move_seq": 999, "move": "12-6"}), 422)[
        "error"] == "unknown_move"
    error_of(mt_table.post("/fix", json={"move_seq": "x", "move": "12-6"}), 422)
    error_of(mt_table.post("/fix", json={"move_seq": seq, "move": ""}), 422)
    error_of(mt_table.post("/fix", json={"move_seq": seq, "move": "99-1"}), 422)
    assert error_of(mt_table.post("/fix", json={"move_seq": seq, "move": "12-4"}), 422)[
        "rule"] == "MT-1"  # 12-4 is already on p2's train
    response = mt_table.post("/fix", json={"move_seq": seq, "move": "12-6"})
    assert response.status_code == 200, response.get_json()
    p1 = next(t for t in response.get_json()["state"]["round"]["trains"] if t["name"] == "p1")
    assert p1["tiles"] == ["12-6"] and p1["open_end"] == 6


# -- round end -------------------------------------------------------------------------
def play_round(table, seed=3):
    options = table.state()["match"]["options"]
    sim = simulated_round("mexican-train", 4, options, table.state()["match"]["round_index"],
                          seed)
    for text in sim.moves:
        response = table.move(text)
        assert response.status_code == 200, (text, response.get_json())
    return sim


def test_round_end_flow(mt_table):
    assert error_of(mt_table.post("/round/finish", json={"hands": {}}), 422)["error"] == \
        "round_not_over"
    sim = play_round(mt_table)
    state = mt_table.state()
    assert state["round"]["round_over"]
    assert state["round"]["unseen_tiles"]
    error_of(mt_table.post("/round/preview", json={"hands": "p1"}), 422)
    error_of(mt_table.post("/round/preview", json={"hands": {"p9": [1]}}), 422)
    error_of(mt_table.post("/round/preview", json={"hands": {"p1": {"pips": "10+"}}}), 422)
    error_of(mt_table.post("/round/preview", json={"hands": {"p1": {"tiles": ["13-x"]}}}), 422)
    error_of(mt_table.post("/round/preview", json={"hands": {"p1": {"tiles": ["14-1"]}}}), 422)
    error_of(mt_table.post("/round/preview", json={"hands": {"p1": {"foo": 1}}}), 422)
    assert error_of(mt_table.post("/round/preview", json={"hands": {}}), 422)["error"] in (
        "hands_needed", "invalid")
    hands = {slot: {"tiles": tiles} for slot, tiles in sim.hands.items()}
    preview = mt_table.post("/round/preview", json={"hands": hands}).get_json()
    assert preview["problems"] == []
    # one hand by pip sum instead of tiles
    slot = next(iter(sim.hands))
    pips = [sum(int(x) for x in t.split("-")) for t in sim.hands[slot]]
    hands[slot] = {"pips": "+".join(str(p) for p in pips)}
    response = mt_table.post("/round/finish", json={"hands": hands})
    assert response.status_code == 200, response.get_json()
    state = response.get_json()["state"]
    assert state["scores"]["rounds"][0]["scores"] == preview["scores"]
    assert state["scores"]["totals"] == preview["scores"]
    assert state["match"]["round_index"] == 1 and state["round"]["engine"] == "11-11"


def test_round_end_cross_checks(mt_table):
    sim = play_round(mt_table)
    on_table = next(t["tiles"][0] for t in mt_table.state()["round"]["trains"] if t["tiles"])
    slots = list(sim.hands)
    hands = {s: {"tiles": list(t)} for s, t in sim.hands.items()}
    hands[slots[0]]["tiles"].append(on_table)
    if len(slots) > 1:
        hands[slots[1]]["tiles"].append(sim.hands[slots[0]][0])
    problems = mt_table.post("/round/preview", json={"hands": hands}).get_json()["problems"]
    assert any("already on the table" in p for p in problems)
    assert any("should hold" in p for p in problems)
    if len(slots) > 1:
        assert any("revealed twice" in p for p in problems)


def test_edit_score(mt_table):
    error_of(mt_table.post("/scores", json={"round": 0, "player": "p1", "score": 5,
                                            "reason": "x"}), 422)
    sim = play_round(mt_table)
    mt_table.post("/round/finish", json={"hands": sim.hands})
    bad = [{"round": 3, "player": "p1", "score": 5, "reason": "x"},
           {"round": 0, "player": "p9", "score": 5, "reason": "x"},
           {"round": 0, "player": "p1", "score": -1, "reason": "x"},
           {"round": 0, "player": "p1", "score": "5", "reason": "x"},
           {"round": 0, "player": "p1", "score": 5, "reason": " "},
           {"round": 0, "player": "p1", "score": 5, "reason": "x" * 201}]
    for body in bad:
        error_of(mt_table.post("/scores", json=body), 422)
    response = mt_table.post("/scores", json={"round": 0, "player": "p2", "score": 42,
                                               "reason": "miscounted 0-0"})
    scores = response.get_json()["state"]["scores"]
    assert scores["rounds"][0]["scores"][1] == 42 and scores["totals"][1] == 42
    assert scores["rounds"][0]["edits"][0]["reason"] == "miscounted 0-0"


def test_events_since(mt_table, client):
    mt_table.move("12-5>p1")
    body = client.get(f"/api/tables/{mt_table.id}/events?since=1").get_json()
    assert [e["seq"] for e in body["events"]] == [2] and body["seq"] == 2
    error_of(client.get(f"/api/tables/{mt_table.id}/events?since=-1"), 400)
    error_of(client.get(f"/api/tables/{mt_table.id}/events?limit=0"), 400)


def test_openapi_and_games(client):
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.") and "/api/tables/{table_id}/moves" in doc["paths"]
    games = client.get("/api/games").get_json()["games"]
    assert "mexican-train" in {g["name"] for g in games}


def test_state_survives_a_new_app(app, mt_table, tmp_path):
    from companion import create_app

    mt_table.move("12-5>p1")
    fresh = create_app(dict(app.config, SECRET_KEY="test-secret"))
    view = fresh.test_client().get(f"/api/tables/{mt_table.id}").get_json()
    assert view == mt_table.state() | {"last_refusal": None}


def test_listener_registry(app, mt_table):
    seen = []
    unsubscribe = app.extensions["companion.tables"].subscribe(
        lambda table_id, event, state: seen.append((table_id, event["kind"], state["seq"])))
    mt_table.move("12-5>p1")
    mt_table.move("6-4>p1")
    unsubscribe()
    mt_table.move("12-4>p2")
    assert seen[0] == (mt_table.id, "move", 2)
    assert seen[1][1] == "refusal" and len(seen) == 2


# -- every registered game through the same API ----------------------------------------
@pytest.mark.parametrize("game", ["chicken-foot", "doubles", "texas-42"])
def test_other_games_generically(table, game):
    from companion.games import game_names

    if game not in game_names():
        pytest.skip(f"{game} is not registered yet")
    table.post("/players", json={"players": ["Ann", "Ben", "Cat", "Dan"]})
    response = table.post("/match", json={"game": game})
    if response.status_code == 422:
        body = response.get_json()
        assert body["error"] == "setup_needed", body
        from companion.games import SIMULATION, get_rules

        rules = get_rules(game)
        options = rules.resolve_options(4, {})
        sim = rules.new_round(4, options, 0, mode=SIMULATION, seed=1)
        response = table.post("/match", json={"game": game, "setup": sim.setup})
    assert response.status_code == 200, response.get_json()
    state = response.get_json()["state"]
    assert state["match"]["game"] == game and state["round"]["current"] is not None
    from companion.games import get_rules

    rules = get_rules(game)
    session_state = table.client.application.extensions["companion.tables"].session(
        table.id).match.state
    legal = [str(m) for m in rules.legal_moves(session_state)]
    assert legal
    answer = table.move(legal[0])
    assert answer.status_code == 200, answer.get_json()
    undone = table.post("/undo")
    assert undone.status_code == 200 and undone.get_json()["event"]["payload"]["undone"] == \
        legal[0].lower()
