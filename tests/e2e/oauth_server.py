#!/usr/bin/env python3
"""An OAuth 2.1 authorization server for Strata's tests, built with Authlib on Flask.

Real protocol endpoints, as a hosted authorization server has them:

- `/.well-known/oauth-authorization-server` (RFC 8414) and
  `/.well-known/openid-configuration`, `/jwks` (RS256 keys, `kid`s; rotatable);
- `/authorize` (authorization code + PKCE S256, Authlib's `AuthorizationCodeGrant` and
  `CodeChallenge`): signs in the user named by `login_hint` (default `alice`) without a
  form, so a test client can follow the redirect;
- `/token` (authorization code and client credentials; RFC 8707 `resource` becomes the
  JWT's `aud`), `/introspect` (RFC 7662) and `/revoke` (RFC 7009) through Authlib's
  endpoints, `/register` (RFC 7591 dynamic client registration).

Clients `jwt-client` / `jwt-secret` and `opaque-client` / `opaque-secret` take client
credentials tokens (JWT, or opaque ones only introspection can read); `strata` /
`strata-secret` is the resource server's own client for introspection. Registered clients
get JWTs unless their metadata says `"token_format": "opaque"`.

Test-only controls (never in a real server): `POST /test/mint` signs any claims and
header (`{"claims": {...}, "header": {...}, "key": "current|foreign"}`), `POST
/test/jwks` sets how `/jwks` answers (`{"mode": "ok|hang|garbage"}`), `POST
/test/rotate` adds a new signing key (`{"drop_old": true}` removes the others).

    python3 tests/e2e/oauth_server.py [--port 0] [--resource URL]

prints `listening http://127.0.0.1:PORT` when it serves.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import threading
import time

import jwt
from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import AuthorizationCodeMixin, ClientMixin, TokenMixin, grants
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc7662 import IntrospectionEndpoint
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask, Response, jsonify, request
from werkzeug.serving import make_server

LOCK = threading.Lock()


class Keys:
    """RS256 signing keys; the last one signs."""

    def __init__(self):
        self.keys: list[tuple[str, rsa.RSAPrivateKey]] = []
        self.foreign = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.mode = "ok"
        self.rotate()

    def rotate(self, drop_old: bool = False):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        kid = f"k{len(self.keys) + 1}-{secrets.token_hex(4)}"
        if drop_old:
            self.keys = []
        self.keys.append((kid, key))
        return kid

    def jwks(self):
        out = []
        for kid, key in self.keys:
            jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
            jwk.update({"kid": kid, "alg": "RS256", "use": "sig"})
            out.append(jwk)
        return {"keys": out}

    def sign(self, claims: dict, header: dict | None = None, foreign: bool = False) -> str:
        kid, key = self.keys[-1]
        header = dict(header or {})
        alg = header.pop("alg", "RS256")
        header.setdefault("kid", kid)
        if foreign:
            key = self.foreign
        if alg == "none":
            return jwt.encode(claims, None, algorithm="none", headers=header)
        if alg.startswith("HS"):
            return jwt.encode(claims, "shared-secret-0123456789abcdef0123", algorithm=alg, headers=header)
        return jwt.encode(claims, key, algorithm=alg, headers=header)


class Client(ClientMixin):
    def __init__(self, client_id, secret=None, grant_types=("client_credentials",),
                 redirect_uris=(), auth_method="client_secret_basic", token_format="jwt",
                 lifetime=3600):
        self.client_id = client_id
        self.secret = secret
        self.grant_types = list(grant_types)
        self.redirect_uris = list(redirect_uris)
        self.auth_method = auth_method
        self.token_format = token_format
        self.lifetime = lifetime

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return self.redirect_uris[0] if self.redirect_uris else None

    def get_allowed_scope(self, scope):
        return scope or ""

    def check_redirect_uri(self, redirect_uri):
        return redirect_uri in self.redirect_uris

    def check_client_secret(self, client_secret):
        return self.secret is not None and secrets.compare_digest(client_secret, self.secret)

    def check_endpoint_auth_method(self, method, endpoint):
        if endpoint == "token":
            return method == self.auth_method
        return self.secret is not None and method in ("client_secret_basic", "client_secret_post")

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


class Code(AuthorizationCodeMixin):
    def __init__(self, code, client_id, redirect_uri, scope, user, challenge, method, resource):
        self.code = code
        self.client_id = client_id
        self.redirect_uri = redirect_uri
        self.scope = scope
        self.user = user
        self.code_challenge = challenge
        self.code_challenge_method = method
        self.resource = resource
        self.issued = time.time()

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope

    def get_nonce(self):
        return None

    def get_auth_time(self):
        return int(self.issued)


class Token(TokenMixin):
    def __init__(self, value, client, scope, user, lifetime, audience):
        self.value = value
        self.client = client
        self.scope = scope
        self.user = user
        self.issued = int(time.time())
        self.lifetime = lifetime
        self.audience = audience
        self.revoked = False

    def check_client(self, client):
        return client.get_client_id() == self.client.get_client_id()

    def get_scope(self):
        return self.scope

    def get_expires_in(self):
        return self.lifetime

    def is_expired(self):
        return time.time() > self.issued + self.lifetime

    def is_revoked(self):
        return self.revoked

    def get_user(self):
        return self.user

    def get_client(self):
        return self.client


class User:
    def __init__(self, name):
        self.name = name

    def get_user_id(self):
        return self.name


def build(issuer_holder: dict, default_resource: str | None):
    app = Flask("strata-test-authorization-server")
    keys = Keys()
    clients: dict[str, Client] = {
        "jwt-client": Client("jwt-client", "jwt-secret"),
        "opaque-client": Client("opaque-client", "opaque-secret", token_format="opaque"),
        "strata": Client("strata", "strata-secret", grant_types=()),
    }
    codes: dict[str, Code] = {}
    tokens: dict[str, Token] = {}

    def issuer():
        return issuer_holder["issuer"]

    def generate(grant_type, client, user=None, scope=None, expires_in=None,
                 include_refresh_token=True):
        resource = request.form.get("resource") or default_resource
        if grant_type == "authorization_code":
            code = codes.get(request.form.get("code", ""))
            resource = request.form.get("resource") or (code.resource if code else None) or resource
        lifetime = client.lifetime
        now = int(time.time())
        if client.token_format == "opaque":
            value = secrets.token_urlsafe(32)
        else:
            claims = {
                "iss": issuer(), "iat": now, "exp": now + lifetime,
                "sub": user.get_user_id() if user else client.get_client_id(),
                "client_id": client.get_client_id(), "scope": scope or "",
                "jti": secrets.token_hex(8),
            }
            if resource:
                claims["aud"] = resource
            value = keys.sign(claims, {"typ": "at+jwt"})
        with LOCK:
            tokens[value] = Token(value, client, scope or "", user, lifetime, resource)
        return {"token_type": "Bearer", "access_token": value, "expires_in": lifetime,
                "scope": scope or ""}

    def query_client(client_id):
        return clients.get(client_id)

    def save_token(token, req):
        pass  # kept by `generate`

    server = AuthorizationServer(app, query_client=query_client, save_token=save_token)
    server.register_token_generator("default", generate)

    class CodeGrant(grants.AuthorizationCodeGrant):
        TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

        def save_authorization_code(self, code, req):
            data = req.payload.data
            with LOCK:
                codes[code] = Code(code, req.client.get_client_id(), req.payload.redirect_uri,
                                   req.payload.scope or "", req.user, data.get("code_challenge"),
                                   data.get("code_challenge_method"), data.get("resource"))

        def query_authorization_code(self, code, client):
            found = codes.get(code)
            if found and found.client_id == client.get_client_id():
                return found
            return None

        def delete_authorization_code(self, authorization_code):
            with LOCK:
                codes.pop(authorization_code.code, None)

        def authenticate_user(self, authorization_code):
            return authorization_code.user

    class Introspect(IntrospectionEndpoint):
        def query_token(self, token_string, token_type_hint):
            return tokens.get(token_string)

        def introspect_token(self, token):
            payload = {
                "active": True, "scope": token.scope, "client_id": token.client.get_client_id(),
                "token_type": "Bearer", "exp": token.issued + token.lifetime, "iat": token.issued,
                "sub": token.user.get_user_id() if token.user else token.client.get_client_id(),
                "iss": issuer(),
            }
            if token.audience:
                payload["aud"] = token.audience
            return payload

        def check_permission(self, token, client, req):
            return client.get_client_id() in ("strata", token.client.get_client_id())

    class Revoke(RevocationEndpoint):
        def query_token(self, token_string, token_type_hint):
            return tokens.get(token_string)

        def revoke_token(self, token, req):
            token.revoked = True

    server.register_grant(CodeGrant, [CodeChallenge(required=True)])
    server.register_grant(grants.ClientCredentialsGrant)
    server.register_endpoint(Introspect)
    server.register_endpoint(Revoke)

    def metadata():
        base = issuer()
        return {
            "issuer": base,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "jwks_uri": f"{base}/jwks",
            "introspection_endpoint": f"{base}/introspect",
            "revocation_endpoint": f"{base}/revoke",
            "registration_endpoint": f"{base}/register",
            "scopes_supported": ["strata:read", "strata:write", "strata:admin"],
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "client_credentials"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        }

    # Browsers (the console) call the metadata, registration and token endpoints.
    @app.after_request
    def cors(response):
        response.headers["Access-Control-Allow-Origin"] = "*"
        response.headers["Access-Control-Allow-Headers"] = "Content-Type, Authorization"
        response.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
        return response

    @app.get("/.well-known/oauth-authorization-server")
    def as_metadata():
        return jsonify(metadata())

    @app.get("/.well-known/openid-configuration")
    def oidc_metadata():
        return jsonify(metadata())

    @app.get("/jwks")
    def jwks():
        if keys.mode == "hang":
            time.sleep(30)
        if keys.mode == "garbage":
            return Response("{not json", mimetype="application/json")
        return jsonify(keys.jwks())

    @app.get("/authorize")
    def authorize():
        user = User(request.args.get("login_hint", "alice"))
        return server.create_authorization_response(grant_user=user)

    @app.post("/token")
    def token():
        return server.create_token_response()

    @app.post("/introspect")
    def introspect():
        return server.create_endpoint_response("introspection")

    @app.post("/revoke")
    def revoke():
        return server.create_endpoint_response("revocation")

    @app.post("/register")
    def register():
        meta = request.get_json(force=True, silent=True) or {}
        uris = meta.get("redirect_uris") or []
        method = meta.get("token_endpoint_auth_method", "client_secret_basic")
        client_id = "dyn-" + secrets.token_hex(6)
        secret = None if method == "none" else secrets.token_urlsafe(24)
        grant_types = meta.get("grant_types") or ["authorization_code"]
        client = Client(client_id, secret, grant_types=grant_types, redirect_uris=uris,
                        auth_method=method, token_format=meta.get("token_format", "jwt"))
        with LOCK:
            clients[client_id] = client
        answer = dict(meta)
        answer.update({"client_id": client_id, "client_id_issued_at": int(time.time()),
                       "token_endpoint_auth_method": method, "grant_types": grant_types,
                       "response_types": ["code"]})
        if secret:
            answer.update({"client_secret": secret, "client_secret_expires_at": 0})
        return jsonify(answer), 201

    @app.post("/test/mint")
    def mint():
        body = request.get_json(force=True)
        claims = dict(body.get("claims", {}))
        now = int(time.time())
        claims.setdefault("iss", issuer())
        claims.setdefault("iat", now)
        claims.setdefault("exp", now + 3600)
        for name in [n for n, v in claims.items() if v is None]:
            del claims[name]
        value = keys.sign(claims, body.get("header"), foreign=body.get("key") == "foreign")
        return jsonify({"access_token": value})

    @app.post("/test/jwks")
    def jwks_mode():
        keys.mode = request.get_json(force=True).get("mode", "ok")
        return jsonify({"mode": keys.mode})

    @app.post("/test/rotate")
    def rotate():
        body = request.get_json(force=True, silent=True) or {}
        kid = keys.rotate(bool(body.get("drop_old", False)))
        return jsonify({"kid": kid})

    return app


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--resource", default=None,
                        help="the audience of tokens asked for without a resource parameter")
    args = parser.parse_args()
    holder = {"issuer": ""}
    app = build(holder, args.resource)
    http = make_server("127.0.0.1", args.port, app, threaded=True)
    holder["issuer"] = f"http://127.0.0.1:{http.server_port}"
    print(f"listening {holder['issuer']}", flush=True)
    try:
        http.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
