/**
 * Secret tokens for tests, each at least 32 characters as the configuration requires of
 * API_TOKEN, ADMIN_TOKEN and METRICS_TOKEN (src/config/http.ts): one place, so no test goes on
 * showing a short one as if it were fine.
 */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef0123';
export const TEST_API_TOKEN = 'test-api-token-0123456789abcdef012345';
export const TEST_METRICS_TOKEN = 'test-metrics-token-0123456789abcdef01';
