"""The official Python MCP SDK's OAuth flow against Strata's `/mcp`, end to end.

Usage:
    python3 mcp_oauth_client.py BASE_URL

The SDK meets the 401 challenge, reads Strata's protected resource metadata, discovers
the authorization server from it, registers itself (dynamic client registration), signs
in with authorization code + PKCE (the test authorization server approves `alice` without
a form: the redirect handler follows its redirect and hands the code to the callback),
takes the token and calls tools. Prints `CHECK <name> ok` lines and `ALL CHECKS PASSED`;
exits non-zero on the first failure.
"""

import asyncio
import sys
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp import ClientSession
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken


def check(name, condition, detail=""):
    if not condition:
        raise AssertionError(f"CHECK {name} FAILED: {detail}")
    print(f"CHECK {name} ok", flush=True)


class Memory(TokenStorage):
    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def main(base: str) -> None:
    redirected = {}

    async def redirect_handler(url: str) -> None:
        # The person signing in: the authorization server answers with a redirect to
        # the client's redirect URI, carrying the code.
        query = parse_qs(urlparse(url).query)
        redirected["resource"] = query.get("resource", [None])[0]
        async with httpx2.AsyncClient() as client:
            response = await client.get(url)
        check("authorize-redirects", response.status_code in (302, 303), f"{response.status_code} {response.text[:300]}")
        location = parse_qs(urlparse(response.headers["location"]).query)
        redirected["code"] = location["code"][0]
        redirected["state"] = location.get("state", [None])[0]

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=redirected["code"], state=redirected["state"])

    storage = Memory()
    provider = OAuthClientProvider(
        server_url=f"{base}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="strata-e2e",
            redirect_uris=["http://127.0.0.1:9/callback"],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            scope="strata:read strata:write",
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with create_mcp_http_client(auth=provider) as http:
        async with streamable_http_client(f"{base}/mcp", http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                check("signed-in", storage.tokens is not None and bool(redirected.get("code")))
                check("resource-indicator", (redirected.get("resource") or "").startswith(base), redirected)
                listed = await session.list_tools()
                names = sorted(t.name for t in listed.tools)
                check("tools-listed", "query" in names and "commit" in names, names)
                result = await session.call_tool(
                    "query", {"mode": "sparql", "sparql": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"}
                )
                error = getattr(result, "is_error", None)
                if error is None:
                    error = getattr(result, "isError", None)
                check("query-answered", error is False, result)
                write = await session.call_tool(
                    "rdf",
                    {"action": "import", "content": "<http://example.org/a> <http://example.org/b> \"c\" .",
                     "format": "ntriples"},
                )
                error = getattr(write, "is_error", None)
                if error is None:
                    error = getattr(write, "isError", None)
                content = getattr(write, "structured_content", None) or getattr(write, "structuredContent", None)
                check("write-allowed", error is False, (write, content))
                scopes = (storage.tokens.scope or "").split()
                check("token-scopes", "strata:read" in scopes and "strata:write" in scopes, scopes)
    print("ALL CHECKS PASSED", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
