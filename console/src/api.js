// The console speaks only Strata's public HTTP API, so it is also an example of it.

const KEY_STORAGE = "strata.apiKey";

export function apiKey() {
  return sessionStorage.getItem(KEY_STORAGE) || "";
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

/** An error answer of the API: `{"error": {"code", "message", "param"?}}` plus the status. */
export class ApiError extends Error {
  constructor(status, code, message, param) {
    super(message);
    this.status = status;
    this.code = code;
    this.param = param;
  }

  /** `{line, column}` of a SPARQL syntax error ("error at 3:14: ..."), if the message has one. */
  position() {
    const m = /error at (\d+):(\d+)/.exec(this.message);
    return m ? { line: Number(m[1]), column: Number(m[2]) } : null;
  }
}

export async function request(path, { method = "GET", accept = "application/json", body, contentType, params } = {}) {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, value);
  }
  const headers = { Accept: accept };
  const key = apiKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  if (contentType) headers["Content-Type"] = contentType;
  const response = await fetch(url, { method, headers, body });
  if (!response.ok) {
    let code = `http_${response.status}`;
    let message = response.statusText;
    let param;
    try {
      const error = (await response.json()).error;
      if (error) ({ code, message, param } = error);
    } catch {
      // not a JSON error body: keep the status line
    }
    throw new ApiError(response.status, code, message, param);
  }
  return response;
}

export async function json(path, options) {
  return (await request(path, options)).json();
}

/** Runs a SPARQL query pinned to `asOf` (a commit number, or empty for the head). */
export async function sparql(graph, query, asOf, accept = "application/sparql-results+json") {
  return request(`/graphs/${encodeURIComponent(graph)}/sparql`, {
    method: "POST",
    accept,
    contentType: "application/sparql-query",
    body: query,
    params: { as_of: asOf },
  });
}

export async function update(graph, text) {
  return json(`/graphs/${encodeURIComponent(graph)}/update`, {
    method: "POST",
    contentType: "application/sparql-update",
    body: text,
  });
}
