"""Domino Table Companion: the scorekeeper service and the rules core (``companion.games``).

``create_app`` is imported lazily so that ``companion.games`` stays free of Flask.
"""


def create_app(test_config=None):
    """Build the Flask application (see ``companion.app``)."""
    from .app import create_app as _create_app

    return _create_app(test_config)
