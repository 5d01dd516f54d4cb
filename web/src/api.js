// The REST side of the server (see docs: POST /api/games and friends). Every failure becomes an
// ApiError carrying the server's stable code and message, so the page can show both.

export class ApiError extends Error {
  constructor(code, message, status = 0, field = undefined, retryAfter = undefined) {
    super(message);
    this.code = code;
    this.status = status;
    this.field = field;
    this.retryAfter = retryAfter;
  }
}

async function request(method, path, body, accept = 'json') {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError('connection_lost', 'Cannot reach the feelfish server: is it running? Retrying when you act again.');
  }
  const text = await res.text();
  if (!res.ok) {
    let err;
    try {
      err = JSON.parse(text).error;
    } catch {
      /* not JSON: a proxy's page, say */
    }
    const retry = res.headers.get('Retry-After');
    throw new ApiError(
      (err && err.code) || `http_${res.status}`,
      (err && err.message) || `The server answered ${res.status} ${res.statusText}.`,
      res.status,
      err && err.field,
      retry ? Number(retry) : undefined,
    );
  }
  if (accept === 'text') return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('bad_response', 'The server sent something that is not JSON.', res.status);
  }
}

export const api = {
  config: () => request('GET', '/api/config'),
  createGame: (opts) => request('POST', '/api/games', opts),
  game: (id) => request('GET', `/api/games/${encodeURIComponent(id)}`),
  move: (id, move) => request('POST', `/api/games/${encodeURIComponent(id)}/moves`, { move }),
  resign: (id) => request('POST', `/api/games/${encodeURIComponent(id)}/resign`, {}),
  pgn: (id) => request('GET', `/api/games/${encodeURIComponent(id)}/pgn`, undefined, 'text'),
  takeback: (id) => request('POST', `/api/games/${encodeURIComponent(id)}/takeback`, {}),
  openapi: () => request('GET', '/api/openapi.json'),
  bot: () => request('GET', '/api/bot'),
  lab: (body) => request('POST', '/api/lab', body),
  analyseGame: (body) => request('POST', '/api/game-analysis', body),
  gameAnalysis: (id) => request('GET', `/api/game-analysis/${encodeURIComponent(id)}`),
  gameAnalysisPgn: (id) => request('GET', `/api/game-analysis/${encodeURIComponent(id)}/pgn`, undefined, 'text'),
};

// Whether the server has a route (from its OpenAPI document, asked once): lets the page use newer
// routes without probing them (a 404 would show on the browser's console).
let routes = null;
export async function hasRoute(path) {
  if (!routes)
    routes = api.openapi().then(
      (doc) => new Set(Object.keys(doc.paths || {})),
      () => {
        routes = null;
        return new Set();
      },
    );
  return (await routes).has(path);
}

// The WebSocket address: the server's wsUrl if it gives one (API.md), else its wsPort on this
// page's host, else (no config at all) this page's port + 1, as with the defaults 8080/8081.
export function wsUrlFrom(config) {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  if (config && config.wsUrl) {
    if (/^wss?:\/\//.test(config.wsUrl)) return config.wsUrl;
    return `${proto}//${location.host}${config.wsUrl.startsWith('/') ? '' : '/'}${config.wsUrl}`;
  }
  const port = config && config.wsPort ? config.wsPort : Number(location.port || (location.protocol === 'https:' ? 443 : 80)) + 1;
  return `${proto}//${location.hostname}:${port}/`;
}
