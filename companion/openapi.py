"""The OpenAPI 3.1 document of the JSON API, built from one table of routes."""

from __future__ import annotations

ERROR = {"$ref": "#/components/schemas/Error"}
ACTION_FIELDS = {
    "expected_seq": {"type": "integer", "description": "409 when the table is elsewhere"},
    "key": {"type": "string", "description": "idempotency key (or the Idempotency-Key header)"},
    "source": {"type": "string", "enum": ["tablet", "camera", "hub", "system"]},
}

# (method, path, summary, request body properties or None, success status, needs writer)
ROUTES = [
    ("get", "/api/health", "Liveness", None, 200, False),
    ("get", "/api/games", "Registered games and their options", None, 200, False),
    ("get", "/api/tables", "All tables with a one-line state", None, 200, False),
    ("post", "/api/tables", "Create a table (staff)", {"name": {"type": "string"}}, 201, True),
    ("get", "/api/tables/{table_id}", "Public state of a table", None, 200, False),
    ("get", "/api/tables/{table_id}/events", "Events after ?since=SEQ (&limit=N)", None, 200,
     False),
    ("get", "/api/tables/{table_id}/stream",
     "Server-Sent Events; id = seq; Last-Event-ID resumes", None, 200, False),
    ("post", "/api/tables/{table_id}/players", "Seat players",
     {"players": {"type": "array", "items": {"type": "string"}}}, 200, True),
    ("post", "/api/tables/{table_id}/match", "Start a match",
     {"game": {"type": "string"}, "options": {"type": "object"},
      "players": {"type": "array", "items": {"type": "string"}},
      "starter": {"type": ["string", "integer"]},
      "setup": {"type": "object", "description": "public start facts, e.g. opening"}},
     200, True),
    ("post", "/api/tables/{table_id}/moves",
     "Post a move in canonical text (6-4>p2, draw, pass, announce p3, bid 30, trumps fives)",
     {"move": {"type": "string"}, "player": {"type": ["string", "integer"]}}, 200, True),
    ("post", "/api/tables/{table_id}/undo", "Undo the last move of the round (a new event)",
     {}, 200, True),
    ("post", "/api/tables/{table_id}/fix", "Correct a misrecognised tile of a move",
     {"move_seq": {"type": "integer"}, "move": {"type": "string"}}, 200, True),
    ("post", "/api/tables/{table_id}/round/preview",
     "Scores and cross-checks of the revealed hands, without committing",
     {"hands": {"type": "object"}}, 200, True),
    ("post", "/api/tables/{table_id}/round/finish", "Finish the round with the revealed hands",
     {"hands": {"type": "object"}, "starter": {"type": ["string", "integer"]},
      "setup": {"type": "object", "description": "the next round's start facts"}}, 200, True),
    ("post", "/api/tables/{table_id}/round/photo",
     "Photo of a hand -> proposed tiles (multipart field image); 503 without vision", None,
     200, True),
    ("post", "/api/tables/{table_id}/scores", "Edit a round score with a reason",
     {"round": {"type": "integer"}, "player": {"type": ["string", "integer"]},
      "score": {"type": "integer"}, "reason": {"type": "string"}}, 200, True),
    ("post", "/api/tables/{table_id}/status", "Hub or camera status shown on the tablet",
     {"part": {"type": "string", "enum": ["hub", "camera"]}, "online": {"type": "boolean"},
      "text": {"type": "string"}}, 200, True),
    ("post", "/api/pairing", "An unpaired tablet asks for a short code (cookie)", None, 200,
     False),
    ("get", "/api/pairing", "The tablet polls; once staff paired it, the token cookie is set",
     None, 200, False),
    ("get", "/api/whoami", "The caller's role and CSRF token", None, 200, False),
]


def openapi_document() -> dict:
    paths: dict = {}
    for method, path, summary, body, status, writer in ROUTES:
        op: dict = {"summary": summary, "responses": {
            str(status): {"description": "OK"},
            "default": {"description": "Error", "content": {"application/json": {
                "schema": ERROR}}}}}
        if "{table_id}" in path:
            op["parameters"] = [{"name": "table_id", "in": "path", "required": True,
                                 "schema": {"type": "integer"}}]
        if body is not None:
            props = dict(body)
            if writer and path != "/api/tables" and not path.endswith("/preview"):
                props.update(ACTION_FIELDS)
            op["requestBody"] = {"content": {"application/json": {"schema": {
                "type": "object", "properties": props}}}}
        if writer:
            op["security"] = [{"device": []}, {"deviceCookie": [], "csrf": []}, {"staff": []}]
            op["responses"].update({
                "401": {"description": "no credential (read-only)"},
                "403": {"description": "wrong table, or CSRF header missing"},
                "409": {"description": "stale expected_seq"},
                "413": {"description": "body too large"},
                "422": {"description": "refused: error, message, rule (the engine's rule id)"},
            })
        paths.setdefault(path, {})[method] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": "Domino Table Companion scorekeeper", "version": "1.0"},
        "paths": paths,
        "components": {
            "schemas": {"Error": {"type": "object", "required": ["error", "message"],
                                  "properties": {"error": {"type": "string"},
                                                 "message": {"type": "string"},
                                                 "rule": {"type": "string"}}}},
            "securitySchemes": {
                "device": {"type": "http", "scheme": "bearer"},
                "deviceCookie": {"type": "apiKey", "in": "cookie", "name": "dtc_device"},
                "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"},
                "staff": {"type": "http", "scheme": "basic"},
            },
        },
    }
