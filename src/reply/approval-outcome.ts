/**
 * The line that replaces an approval message once it is decided (its buttons go): what became of
 * it, by whom (`by`: a mention in the platform's own syntax; none for an expiry) and when, in UTC.
 * One wording for every platform.
 */
export function approvalOutcomeLine(outcome: 'approved' | 'denied' | 'expired', at: string, by?: string): string {
  const verb = { approved: '✅ Approved', denied: '🚫 Denied', expired: '⌛ Expired' }[outcome];
  return `${verb}${by ? ` by ${by}` : ''} at ${at.slice(11, 16)} UTC.`;
}
