// @ts-check
// The REST side of the server (see docs: POST /api/games and friends). Every failure becomes an
// ApiError carrying the server's stable code and message, so the page can show both. Each call names
// an operation of the contract (route template, method, body), typed by the types generated from
// server/api/openapi.json (src/api-types.d.ts): `tsc -p web` refuses a call the contract does not
// describe.

export class ApiError extends Error {
  /**
   * @param {string} code the server's stable code (or the page's own: connection_lost, bad_response, http_NNN)
   * @param {string} message
   * @param {number} [status]
   * @param {string} [field]
   * @param {number} [retryAfter]
   */
  constructor(code, message, status = 0, field = undefined, retryAfter = undefined) {
    super(message);
    this.code = code;
    this.status = status;
    this.field = field;
    this.retryAfter = retryAfter;
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} body
 * @param {'json' | 'text'} accept
 * @returns {Promise<any>}
 */
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

/**
 * One operation of the contract: its route template ({id} filled from params), method and body.
 * @template {import('./api-types').Route} P
 * @template {import('./api-types').MethodOf<P>} M
 * @param {M} method
 * @param {P} route
 * @param {import('./api-types').Params<P>} params
 * @param {import('./api-types').Body<P, M>} [body]
 * @param {'json' | 'text'} [accept]
 * @returns {Promise<import('./api-types').Answer<P, M>>}
 */
function call(method, route, params, body, accept = 'json') {
  const path = params ? route.replace('{id}', encodeURIComponent(params.id)) : route;
  return request(method.toUpperCase(), path, body, accept);
}

/** @typedef {import('./api-types').Body<'/api/games', 'post'>} NewGame */
/** @typedef {import('./api-types').Body<'/api/lab', 'post'>} LabRequest */
/** @typedef {import('./api-types').Body<'/api/game-analysis', 'post'>} GameAnalysisRequest */

export const api = {
  config: () => call('get', '/api/config', undefined),
  /** @param {NewGame} opts */
  createGame: (opts) => call('post', '/api/games', undefined, opts),
  /** @param {string} id */
  game: (id) => call('get', '/api/games/{id}', { id }),
  /** @param {string} id @param {string} move UCI or SAN */
  move: (id, move) => call('post', '/api/games/{id}/moves', { id }, { move }),
  /** @param {string} id */
  resign: (id) => call('post', '/api/games/{id}/resign', { id }, {}),
  /** @param {string} id */
  pgn: (id) => call('get', '/api/games/{id}/pgn', { id }, undefined, 'text'),
  /** @param {string} id */
  takeback: (id) => call('post', '/api/games/{id}/takeback', { id }, {}),
  openapi: () => call('get', '/api/openapi.json', undefined),
  bayesCurve: () => call('get', '/api/bayes/curve', undefined),
  bot: () => call('get', '/api/bot', undefined),
  /** @param {LabRequest} body */
  lab: (body) => call('post', '/api/lab', undefined, body),
  /** @param {GameAnalysisRequest} body */
  analyseGame: (body) => call('post', '/api/game-analysis', undefined, body),
  /** @param {string} id */
  gameAnalysis: (id) => call('get', '/api/game-analysis/{id}', { id }),
  /** @param {string} id */
  gameAnalysisPgn: (id) => call('get', '/api/game-analysis/{id}/pgn', { id }, undefined, 'text'),
};

// Whether the server has a route (from its OpenAPI document, asked once): lets the page use newer
// routes without probing them (a 404 would show on the browser's console).
/** @type {Promise<Set<string>> | null} */
let routes = null;
/** @param {string} path */
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
/** @param {{wsUrl?: string, wsPort?: number} | null | undefined} config */
export function wsUrlFrom(config) {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  if (config && config.wsUrl) {
    if (/^wss?:\/\//.test(config.wsUrl)) return config.wsUrl;
    return `${proto}//${location.host}${config.wsUrl.startsWith('/') ? '' : '/'}${config.wsUrl}`;
  }
  const port = config && config.wsPort ? config.wsPort : Number(location.port || (location.protocol === 'https:' ? 443 : 80)) + 1;
  return `${proto}//${location.hostname}:${port}/`;
}
