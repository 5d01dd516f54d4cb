// Types of the REST API for web/src/api.js, derived from the contract: types/api.d.ts is generated
// from server/api/openapi.json by openapi-typescript (`npm run types` in web/, or
// tests/structure/api_contract.py), then `tsc -p web` checks api.js against it, so a call to a
// route, method or body the contract does not describe fails the tests.
import type { paths } from '../types/api';

export type Route = keyof paths;
export type Method = 'get' | 'post' | 'delete';
/** The methods the contract describes for a route. */
export type MethodOf<P extends Route> = {
  [M in Method]: paths[P][M] extends undefined | never ? never : M;
}[Method];
type Operation<P extends Route, M extends Method> = NonNullable<paths[P][M]>;
/** The JSON body an operation takes (undefined where it takes none). */
export type Body<P extends Route, M extends Method> = Operation<P, M> extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : undefined;
type Ok<R> = R extends { 200: { content: infer C } }
  ? C
  : R extends { 201: { content: infer C } }
    ? C
    : R extends { 202: { content: infer C } }
      ? C
      : never;
/** What a successful answer holds: the JSON value, or the text of a text/plain or PGN answer. */
export type Answer<P extends Route, M extends Method> = Operation<P, M> extends { responses: infer R }
  ? Ok<R> extends { 'application/json': infer A }
    ? A
    : string
  : never;
/** The route's path parameters ({id}), if it has any. */
export type Params<P extends Route> = P extends `${string}{${string}}${string}` ? { id: string } : undefined;
