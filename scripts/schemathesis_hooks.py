"""Schemathesis hooks for scripts/ci-schemathesis.sh: the host token of every match this run created.

Clubroom's tokens are per match: `POST /v1/matches` answers `host_token` once, and only that match
accepts it. The spec's links carry the match id from the creation to the operations on the match
(`$response.body#/match/id`), but a runtime expression can only fill parameters, and the token is
the bearer security scheme, not a parameter; it would also be lost one step later (an action's
answer does not repeat it). So this file remembers `id -> host_token` from every 201 of
`POST /v1/matches` and an auth provider presents that token whenever a request names a match this
run created. Requests on other ids (random ones in the fuzzing phase) keep whatever credentials
schemathesis generated, and schemathesis still removes or spoils the token on purpose to check
that the server refuses (the `ignored_auth` check).
"""

import threading

import schemathesis

_HOST_TOKENS = {}
_LOCK = threading.Lock()


@schemathesis.hook
def after_call(context, case, response):
    if case.operation.method.upper() != "POST" or case.operation.path != "/v1/matches":
        return
    if response.status_code != 201:
        return
    try:
        body = response.json()
        match_id, token = body["match"]["id"], body["host_token"]
    except (ValueError, KeyError, TypeError):
        return  # response_schema_conformance reports a malformed answer
    with _LOCK:
        _HOST_TOKENS[match_id] = token


@schemathesis.auth(refresh_interval=None)
class HostToken:
    """`Authorization: Bearer <host token>` for the matches this run created."""

    def get(self, case, ctx):
        match_id = (case.path_parameters or {}).get("id")
        if not isinstance(match_id, str):
            return None
        with _LOCK:
            return _HOST_TOKENS.get(match_id)

    def set(self, case, data, ctx):
        if case.headers is None:
            case.headers = {}
        case.headers["Authorization"] = f"Bearer {data}"
