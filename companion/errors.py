"""One JSON error helper: every API error is ``{"error": code, "message": sentence}``."""

from __future__ import annotations

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from .session import CommandError
from .store import UnknownTable

CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
         405: "method_not_allowed", 409: "conflict", 413: "too_large",
         415: "unsupported_media_type", 422: "invalid", 429: "too_many", 500: "server_error",
         503: "unavailable"}


def error_response(status: int, message: str, error: str | None = None, **extra):
    body = {"error": error or CODES.get(status, "error"), "message": message}
    body.update(extra)
    response = jsonify(body)
    response.status_code = status
    return response


def wants_json() -> bool:
    return request.path.startswith(("/api/", "/admin/api/"))


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(CommandError)
    def command_error(exc: CommandError):
        response = jsonify(exc.to_json())
        response.status_code = exc.status
        return response

    @app.errorhandler(UnknownTable)
    def unknown_table(exc: UnknownTable):
        return error_response(404, f"There is no table {exc.args[0]}.", "unknown_table")

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if not wants_json():
            return exc
        message = exc.description or exc.name
        if exc.code == 413:
            limit = request.max_content_length
            message = (f"The request body is larger than the limit of {limit} bytes."
                       if limit else "The request body is too large.")
        return error_response(exc.code or 500, message)

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        app.logger.exception("unexpected error on %s", request.path)
        if not wants_json():
            return "Internal server error", 500
        return error_response(500, "Something went wrong on the server; it has been logged.")
