/** The HTTP API's error body: `{ error: { code, message } }`, the message safe to show a user. */
export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}
